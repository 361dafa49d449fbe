//! One handler per request: the table of contents of what a client can ask.
//!
//! Handlers run in the connection's task. Names are resolved against the
//! read model the snapshot actor publishes (ids, unique prefixes, workspace
//! names), read without a message, then the owning actor is called
//! directly, so no request waits behind another client's work — or a save
//! — in some central actor.

use std::path::PathBuf;
use std::sync::Arc;

use ractor::{ActorRef, Message, RactorErr};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use signaltty_actors::model::{Model, PaneView};
use signaltty_actors::pane::{PaneMsg, ReadWhat, signal_by_name};
use signaltty_actors::snapshot::SnapshotMsg;
use signaltty_actors::snapshot::read::ModelReader;
use signaltty_actors::tab::{SplitAt, TabMsg};
use signaltty_actors::workspace::{PaneSpec, WorkspaceMsg};
use signaltty_actors::{ActorError, PaneState, names, snapshot};
use signaltty_adapters::{self as adapters, AgentKind};
use signaltty_persistence::{Attention, Direction, Lifecycle, NotificationRecord, Severity};
use signaltty_screen::{MAX_BODY_CHARS, MAX_TITLE_CHARS, sanitize};

use crate::input;
use crate::server::ServerMsg;
use crate::worktree::Worktrees;
use crate::worktree::requests::{self as worktrees, Closing};
use signaltty_protocol::limits::{Bounded, MAX_PANES, MAX_WORKSPACES};
use signaltty_protocol::{
    Done, ErrorCode, IdReply, NextReply, NotificationsReply, OrphansStatusReply, PROTOCOL,
    ReadReply, ResizeReply, RestoreStatusReply, SnapshotStatusReply, StatusReply, TabNewReply,
    WireError, method, params,
};

/// What every handler may use.
pub struct Ctx {
    pub server: ActorRef<ServerMsg>,
    pub listener: ActorRef<crate::listener::ListenerMsg>,
    pub socket_path: PathBuf,
    pub faults_enabled: bool,
    pub changes: tokio::sync::broadcast::Sender<signaltty_actors::snapshot::Change>,
    /// The model, read without asking the snapshot actor.
    pub model: ModelReader,
    /// The last `ls` reply, for as long as the model stays the same.
    pub listing: crate::listing::ListingCache,
    /// The cleanup of what the previous server left running.
    pub orphans: tokio::sync::watch::Receiver<crate::orphans::OrphanReport>,
    /// Where worktrees go, and the git that makes and removes them.
    pub worktrees: Arc<Worktrees>,
}

/// How long a request waits for an actor before answering UNAVAILABLE.
pub(crate) const CALL_MS: u64 = 30_000;

/// Every request but `ls` (rendered once per model version:
/// [`crate::listing`]), `subscribe` and `pane.attach`, which the listener
/// answers itself.
pub async fn dispatch(ctx: &Ctx, method: &str, params: Value) -> Result<Value, WireError> {
    match method {
        method::STATUS => status(ctx).await,
        method::WORKSPACE_NEW => workspace_new(ctx, parse(params)?).await,
        method::WORKSPACE_SET => workspace_set(ctx, parse(params)?).await,
        method::WORKSPACE_CLOSE => workspace_close(ctx, parse(params)?).await,
        method::TAB_NEW => tab_new(ctx, parse(params)?).await,
        method::TAB_CLOSE => tab_close(ctx, parse(params)?).await,
        method::PANE_NEW => pane_new(ctx, parse(params)?).await,
        method::PANE_SEND => pane_send(ctx, parse(params)?).await,
        method::PANE_READ => pane_read(ctx, parse(params)?).await,
        method::PANE_CLOSE => pane_close(ctx, parse(params)?).await,
        method::PANE_KILL => pane_kill(ctx, parse(params)?).await,
        method::PANE_RESIZE => pane_resize(ctx, parse(params)?).await,
        method::PANE_RESUME => pane_revive(ctx, parse(params)?, PaneMsg::Resume).await,
        method::PANE_RESPAWN => pane_revive(ctx, parse(params)?, PaneMsg::Respawn).await,
        method::PANE_REPORT_SESSION => pane_report_session(ctx, parse(params)?).await,
        method::PANE_SEEN => pane_seen(ctx, parse(params)?).await,
        method::PANE_HOOK => pane_hook(ctx, parse(params)?).await,
        method::NOTIFY => notify(ctx, parse(params)?).await,
        method::NOTIFICATIONS => notifications(ctx, parse(params)?).await,
        method::NEXT => next(ctx).await,
        method::SHUTDOWN => shutdown(ctx),
        method::DEBUG_PANIC => debug_panic(ctx, parse(params)?).await,
        method::RENAME => crate::arrange::rename(ctx, parse(params)?).await,
        method::FOCUS => crate::arrange::focus(ctx, parse(params)?).await,
        method::TAB_SPLIT_RATIO => crate::arrange::split_ratio(ctx, parse(params)?).await,
        method::PANE_SWAP => crate::arrange::swap(ctx, parse(params)?).await,
        method::PANE_BREAK => crate::arrange::break_out(ctx, parse(params)?).await,
        method::PANE_MOVE => crate::arrange::move_pane(ctx, parse(params)?).await,
        method::PANE_EXPLAIN => crate::aware::explain(ctx, parse(params)?).await,
        method::PANE_WAIT => crate::aware::wait(ctx, parse(params)?).await,
        method::PANE_SEND_KEYS => crate::agents::send_keys(ctx, parse(params)?).await,
        method::AGENT_START => crate::agents::start(ctx, parse(params)?).await,
        method::AGENT_PROMPT => crate::agents::prompt(ctx, parse(params)?).await,
        method::AGENT_WAIT => crate::aware::agent_wait(ctx, parse(params)?).await,
        other => Err(WireError::new(
            ErrorCode::UnknownMethod,
            format!("unknown method {other:?}; this server speaks {PROTOCOL}"),
        )),
    }
}

/// A request's parameters, typed and within their bounds
/// ([`signaltty_protocol::limits`]).
pub(crate) fn parse<P: DeserializeOwned + Bounded>(params: Value) -> Result<P, WireError> {
    let params = if params.is_null() { json!({}) } else { params };
    let params: P = serde_json::from_value(params)
        .map_err(|e| WireError::new(ErrorCode::BadParams, format!("bad parameters: {e}")))?;
    params.check_bounds()?;
    Ok(params)
}

/// Refuses to add one more of `what` when `count` are already held: the
/// counts bound the snapshot as the string limits bound each record.
pub(crate) fn room_for(what: &str, count: usize, max: usize) -> Result<(), WireError> {
    if count >= max {
        return Err(WireError::new(
            ErrorCode::Refused,
            format!(
                "this server already holds {count} {what}, the most it keeps; close some first"
            ),
        ));
    }
    Ok(())
}

pub fn wire_error(err: ActorError) -> WireError {
    let code = match &err {
        ActorError::NoSuchPane(_) => ErrorCode::NoSuchPane,
        ActorError::NoSuchTab(_) => ErrorCode::NoSuchTab,
        ActorError::NoSuchWorkspace(_) => ErrorCode::NoSuchWorkspace,
        ActorError::PaneNotLive { .. } => ErrorCode::PaneNotLive,
        ActorError::NameTaken(_) => ErrorCode::NameTaken,
        ActorError::Spawn(_) | ActorError::ReviveFailed(_) => ErrorCode::SpawnFailed,
        ActorError::BadRequest(_) => ErrorCode::BadParams,
        ActorError::Refused(_) => ErrorCode::Refused,
        ActorError::Blocked(_) => ErrorCode::Blocked,
        ActorError::Busy(_) => ErrorCode::Busy,
        ActorError::Unavailable(_) => ErrorCode::Unavailable,
        ActorError::Io(_) => ErrorCode::Internal,
    };
    WireError::new(code, err.to_string())
}

pub(crate) fn unavailable<T>(err: RactorErr<T>) -> WireError {
    WireError::new(
        ErrorCode::Unavailable,
        format!("the server did not answer in time ({err}); try again"),
    )
}

/// The model with every record published before this request.
pub(crate) async fn model(ctx: &Ctx) -> Arc<Model> {
    ctx.model.latest().await
}

fn actor<M: Message>(name: String, missing: ActorError) -> Result<ActorRef<M>, WireError> {
    names::lookup::<M>(&name).ok_or_else(|| wire_error(missing))
}

pub(crate) fn pane_actor(view: &PaneView) -> Result<ActorRef<PaneMsg>, WireError> {
    let id = &view.record.id;
    actor(names::pane(id), ActorError::NoSuchPane(id.clone()))
}

pub(crate) fn workspace_actor(id: &str) -> Result<ActorRef<WorkspaceMsg>, WireError> {
    actor(
        names::workspace(id),
        ActorError::NoSuchWorkspace(id.to_string()),
    )
}

async fn status(ctx: &Ctx) -> Result<Value, WireError> {
    let model = model(ctx).await;
    let server = ractor::call_t!(ctx.server, ServerMsg::Status, CALL_MS).map_err(unavailable)?;
    let snapshot = server.snapshot;
    let reply = StatusReply {
        version: env!("CARGO_PKG_VERSION").to_string(),
        protocol: PROTOCOL.to_string(),
        pid: std::process::id(),
        socket: ctx.socket_path.display().to_string(),
        state_dir: server.state_dir.display().to_string(),
        uptime_ms: u64::try_from(server.uptime.as_millis()).unwrap_or(u64::MAX),
        workspaces: model.workspaces.len(),
        tabs: model.tabs.len(),
        panes: model.panes.len(),
        live_panes: model
            .panes
            .values()
            .filter(|p| p.state == PaneState::Live)
            .count(),
        faults_enabled: server.faults_enabled,
        snapshot: SnapshotStatusReply {
            path: snapshot.path.display().to_string(),
            writes: snapshot.writes,
            last_saved_at: snapshot.last_saved_at,
            last_error: snapshot.last_error,
            tail_error: snapshot.tail_error,
        },
        restore: RestoreStatusReply {
            note: server.restore_note,
            degraded: server.restore_degraded,
        },
        orphans: OrphansStatusReply {
            found: server.orphans.found,
            terminated: server.orphans.terminated,
            killed: server.orphans.killed,
            survived: server.orphans.survived,
        },
    };
    to_value(reply)
}

pub(crate) fn to_value<T: serde::Serialize>(value: T) -> Result<Value, WireError> {
    serde_json::to_value(value).map_err(|e| WireError::new(ErrorCode::Internal, e.to_string()))
}

async fn workspace_new(ctx: &Ctx, p: params::WorkspaceNew) -> Result<Value, WireError> {
    let model = model(ctx).await;
    room_for("workspaces", model.workspaces.len(), MAX_WORKSPACES)?;
    // Before git makes anything: a name the server would refuse anyway.
    if model.workspaces.iter().any(|w| w.name == p.name.trim()) {
        return Err(wire_error(ActorError::NameTaken(p.name.trim().to_string())));
    }
    let cwd = match p.cwd {
        Some(cwd) => cwd,
        None => std::env::current_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_else(|_| "/".into()),
    };
    let (cwd, worktree) = match &p.worktree {
        Some(name) => {
            let made = ctx
                .worktrees
                .create(std::path::Path::new(&cwd), name)
                .await
                .map_err(|e| e.to_wire())?;
            (made.path.clone(), Some(made))
        }
        None => {
            let known = worktrees::known_worktree(&model, &cwd);
            (cwd, known)
        }
    };
    let id = ractor::call_t!(
        ctx.server,
        |reply| ServerMsg::NewWorkspace {
            name: p.name,
            cwd,
            auto_resume: p.auto_resume,
            worktree,
            reply
        },
        CALL_MS
    )
    .map_err(unavailable)?
    .map_err(wire_error)?;
    to_value(IdReply { id })
}

async fn workspace_set(ctx: &Ctx, p: params::WorkspaceSet) -> Result<Value, WireError> {
    let model = model(ctx).await;
    let ws = model.resolve_workspace(&p.workspace).map_err(wire_error)?;
    let Some(on) = p.auto_resume else {
        return Err(WireError::new(
            ErrorCode::BadParams,
            "nothing to set; pass --auto-resume true|false",
        ));
    };
    let actor = workspace_actor(&ws.id)?;
    ractor::call_t!(actor, WorkspaceMsg::SetAutoResume, CALL_MS, on).map_err(unavailable)?;
    to_value(Done {})
}

async fn workspace_close(ctx: &Ctx, p: params::Workspace) -> Result<Value, WireError> {
    let model = model(ctx).await;
    let ws = model.resolve_workspace(&p.workspace).map_err(wire_error)?;
    let closing = Closing {
        panes: model
            .panes
            .values()
            .filter(|v| v.record.workspace_id == ws.id)
            .map(|v| &v.record)
            .collect(),
        workspace: Some(ws),
    };
    let planned =
        worktrees::plan_close(&ctx.worktrees, &model, &closing, p.remove_worktree, p.force).await?;
    let id = ws.id.clone();
    ractor::call_t!(
        ctx.server,
        |reply| ServerMsg::CloseWorkspace { id, reply },
        CALL_MS
    )
    .map_err(unavailable)?
    .map_err(wire_error)?;
    let closed =
        worktrees::finish_close(&ctx.worktrees, planned, p.remove_worktree, p.force).await?;
    to_value(closed)
}

async fn tab_new(ctx: &Ctx, p: params::TabNew) -> Result<Value, WireError> {
    let model = model(ctx).await;
    room_for("panes", model.panes.len(), MAX_PANES)?;
    let ws = model.resolve_workspace(&p.workspace).map_err(wire_error)?;
    let actor = workspace_actor(&ws.id)?;
    let worktree = p
        .cwd
        .as_deref()
        .and_then(|cwd| worktrees::known_worktree(&model, cwd));
    let pane = PaneSpec {
        argv: p.argv,
        cwd: p.cwd,
        worktree,
        ..PaneSpec::default()
    };
    let (tab, pane) = ractor::call_t!(
        actor,
        |reply| WorkspaceMsg::NewTab {
            title: p.title,
            pane,
            reply
        },
        CALL_MS
    )
    .map_err(unavailable)?
    .map_err(wire_error)?;
    to_value(TabNewReply {
        id: tab,
        pane_id: pane,
    })
}

async fn tab_close(ctx: &Ctx, p: params::Tab) -> Result<Value, WireError> {
    let model = model(ctx).await;
    let tab = model.resolve_tab(&p.tab).map_err(wire_error)?;
    let actor = workspace_actor(&tab.workspace_id)?;
    let tab = tab.id.clone();
    ractor::call_t!(
        actor,
        |reply| WorkspaceMsg::CloseTab { tab, reply },
        CALL_MS
    )
    .map_err(unavailable)?
    .map_err(wire_error)?;
    to_value(Done {})
}

fn parse_direction(direction: Option<&str>) -> Result<Direction, WireError> {
    match direction {
        None | Some("right") => Ok(Direction::Right),
        Some("down") => Ok(Direction::Down),
        Some(other) => Err(WireError::new(
            ErrorCode::BadParams,
            format!("direction {other:?} is not right or down"),
        )),
    }
}

async fn pane_new(ctx: &Ctx, p: params::PaneNew) -> Result<Value, WireError> {
    let model = model(ctx).await;
    room_for("panes", model.panes.len(), MAX_PANES)?;
    let ws = model.resolve_workspace(&p.workspace).map_err(wire_error)?;
    let direction = parse_direction(p.direction.as_deref())?;
    let split_pane = match &p.split {
        Some(query) => Some(model.resolve_pane(query).map_err(wire_error)?),
        None => None,
    };
    let mut tab = match &p.tab {
        Some(query) => Some(model.resolve_tab(query).map_err(wire_error)?),
        None => None,
    };
    if let Some(t) = tab
        && t.workspace_id != ws.id
    {
        return Err(WireError::new(
            ErrorCode::BadParams,
            format!("tab {} is not in workspace {}", t.id, ws.name),
        ));
    }
    if let Some(pane) = split_pane {
        let record = &pane.record;
        if record.workspace_id != ws.id || tab.is_some_and(|t| t.id != record.tab_id) {
            return Err(WireError::new(
                ErrorCode::BadParams,
                format!("pane {} is not in that workspace and tab", record.id),
            ));
        }
        tab = model.tabs.get(&record.tab_id);
    }
    let actor = workspace_actor(&ws.id)?;
    let (cwd, worktree) =
        worktrees::for_new_pane(&ctx.worktrees, &model, ws, p.cwd, p.worktree.as_deref()).await?;
    let spec = PaneSpec {
        argv: p.argv,
        cwd,
        title: p.title,
        rows: p.rows,
        cols: p.cols,
        worktree,
    };
    let split = SplitAt {
        pane: split_pane.map(|v| v.record.id.clone()),
        direction,
    };
    let tab = tab.map(|t| t.id.clone());
    let id = ractor::call_t!(
        actor,
        |reply| WorkspaceMsg::NewPane {
            tab,
            split,
            pane: spec,
            reply
        },
        CALL_MS
    )
    .map_err(unavailable)?
    .map_err(wire_error)?;
    to_value(IdReply { id })
}

pub(crate) async fn find_pane(ctx: &Ctx, query: &str) -> Result<PaneView, WireError> {
    let model = model(ctx).await;
    model.resolve_pane(query).cloned().map_err(wire_error)
}

async fn pane_send(ctx: &Ctx, p: params::PaneSend) -> Result<Value, WireError> {
    let view = find_pane(ctx, &p.pane).await?;
    let mut bytes = p.text.into_bytes();
    if p.enter {
        bytes.push(b'\r');
    }
    let actor = pane_actor(&view)?;
    let queue = ractor::call_t!(actor, PaneMsg::InputQueue, CALL_MS).map_err(unavailable)?;
    input::send(&actor, &queue, bytes, Some(input::SEND_DEADLINE))
        .await
        .map_err(|e| e.to_wire(&view.record.id))?;
    to_value(Done {})
}

async fn pane_read(ctx: &Ctx, p: params::PaneRead) -> Result<Value, WireError> {
    let view = find_pane(ctx, &p.pane).await?;
    let what = match (p.tail, p.scrollback, p.all, p.since) {
        (None, None, false, None) => ReadWhat::Screen,
        (Some(lines), None, false, None) => ReadWhat::Tail(lines),
        (None, Some(lines), false, None) => ReadWhat::Scrollback(lines),
        (None, None, true, None) => ReadWhat::Tail(usize::MAX),
        (None, None, false, Some(offset)) => ReadWhat::Since(offset),
        _ => {
            return Err(bad_params(
                "read the screen, or one of --tail N, --scrollback N, --all, --since OFFSET",
            ));
        }
    };
    let actor = pane_actor(&view)?;
    let out = ractor::call_t!(
        actor,
        |reply| PaneMsg::Read {
            what,
            ansi: p.ansi,
            reply
        },
        CALL_MS
    )
    .map_err(unavailable)?;
    to_value(ReadReply {
        text: out.text,
        offset: out.offset,
        missed: out.missed,
    })
}

async fn pane_close(ctx: &Ctx, p: params::PaneClose) -> Result<Value, WireError> {
    let model = model(ctx).await;
    let view = model.resolve_pane(&p.pane).map_err(wire_error)?;
    let closing = Closing {
        panes: vec![&view.record],
        workspace: None,
    };
    let planned =
        worktrees::plan_close(&ctx.worktrees, &model, &closing, p.remove_worktree, p.force).await?;
    close_pane(view).await?;
    let closed =
        worktrees::finish_close(&ctx.worktrees, planned, p.remove_worktree, p.force).await?;
    to_value(closed)
}

/// Closes a pane through its workspace, leaving any worktree it has.
pub(crate) async fn close_pane(view: &PaneView) -> Result<(), WireError> {
    let actor = workspace_actor(&view.record.workspace_id)?;
    let tab = view.record.tab_id.clone();
    let pane = view.record.id.clone();
    ractor::call_t!(
        actor,
        |reply| WorkspaceMsg::ClosePane { tab, pane, reply },
        CALL_MS
    )
    .map_err(unavailable)?
    .map_err(wire_error)
}

async fn pane_kill(ctx: &Ctx, p: params::PaneKill) -> Result<Value, WireError> {
    let name = p.signal.as_deref().unwrap_or("TERM");
    let signal = signal_by_name(name).ok_or_else(|| {
        WireError::new(
            ErrorCode::BadParams,
            format!(
                "signal {name:?} is not allowed; use one of HUP INT QUIT TERM KILL USR1 USR2 CONT STOP TSTP WINCH"
            ),
        )
    })?;
    let view = find_pane(ctx, &p.pane).await?;
    let actor = pane_actor(&view)?;
    let group = p.group;
    ractor::call_t!(
        actor,
        |reply| PaneMsg::Signal {
            signal,
            group,
            reply
        },
        CALL_MS
    )
    .map_err(unavailable)?
    .map_err(wire_error)?;
    to_value(Done {})
}

async fn pane_resize(ctx: &Ctx, p: params::PaneResize) -> Result<Value, WireError> {
    let view = find_pane(ctx, &p.pane).await?;
    let actor = pane_actor(&view)?;
    let size = ractor::call_t!(
        actor,
        |reply| PaneMsg::Resize {
            rows: p.rows,
            cols: p.cols,
            reply
        },
        CALL_MS
    )
    .map_err(unavailable)?;
    to_value(ResizeReply {
        rows: size.rows,
        cols: size.cols,
    })
}

/// Resume or respawn: the pane answers once its new child has survived its
/// first moments, or with what went wrong. Right after a start it first
/// waits for what the previous server left running to be ended.
async fn pane_revive(
    ctx: &Ctx,
    p: params::Pane,
    message: fn(ractor::RpcReplyPort<Result<(), ActorError>>) -> PaneMsg,
) -> Result<Value, WireError> {
    let view = find_pane(ctx, &p.pane).await?;
    worktrees::check_revivable(&view.record).await?;
    let actor = pane_actor(&view)?;
    crate::orphans::settled(&ctx.orphans).await;
    ractor::call_t!(actor, message, CALL_MS)
        .map_err(unavailable)?
        .map_err(wire_error)?;
    to_value(Done {})
}

async fn pane_report_session(ctx: &Ctx, p: params::ReportSession) -> Result<Value, WireError> {
    let view = find_pane(ctx, &p.pane).await?;
    let actor = pane_actor(&view)?;
    ractor::call_t!(
        actor,
        |reply| PaneMsg::ReportSession {
            kind: p.agent,
            id: p.session_id,
            reply
        },
        CALL_MS
    )
    .map_err(unavailable)?
    .map_err(wire_error)?;
    to_value(Done {})
}

async fn pane_seen(ctx: &Ctx, p: params::Pane) -> Result<Value, WireError> {
    let view = find_pane(ctx, &p.pane).await?;
    ractor::call_t!(pane_actor(&view)?, PaneMsg::Seen, CALL_MS).map_err(unavailable)?;
    to_value(Done {})
}

pub(crate) fn bad_params(e: impl std::fmt::Display) -> WireError {
    WireError::new(ErrorCode::BadParams, e.to_string())
}

async fn pane_hook(ctx: &Ctx, p: params::PaneHook) -> Result<Value, WireError> {
    let kind = AgentKind::parse(&p.agent).map_err(bad_params)?;
    let effect = adapters::hook_effect(kind, &p.event, p.message.as_deref()).map_err(bad_params)?;
    let view = find_pane(ctx, &p.pane).await?;
    ractor::call_t!(
        pane_actor(&view)?,
        |reply| PaneMsg::Hook {
            kind,
            event: p.event,
            effect,
            session_id: p.session_id,
            message: p.message,
            reply
        },
        CALL_MS
    )
    .map_err(unavailable)?
    .map_err(wire_error)?;
    to_value(Done {})
}

fn parse_severity(name: Option<&str>) -> Result<Severity, WireError> {
    match name {
        None | Some("info") => Ok(Severity::Info),
        Some("warning") => Ok(Severity::Warning),
        Some("error") => Ok(Severity::Error),
        Some(other) => Err(bad_params(format!(
            "severity {other:?} is not info, warning or error"
        ))),
    }
}

async fn notify(ctx: &Ctx, p: params::Notify) -> Result<Value, WireError> {
    let severity = parse_severity(p.severity.as_deref())?;
    match p.pane {
        Some(pane) => {
            let view = find_pane(ctx, &pane).await?;
            ractor::call_t!(
                pane_actor(&view)?,
                |reply| PaneMsg::Notify {
                    severity,
                    title: p.title,
                    body: p.body,
                    reply
                },
                CALL_MS
            )
            .map_err(unavailable)?;
        }
        None => snapshot::publish(SnapshotMsg::Notify(NotificationRecord {
            id: 0,
            pane_id: None,
            workspace_id: None,
            title: sanitize(&p.title, MAX_TITLE_CHARS),
            body: sanitize(&p.body, MAX_BODY_CHARS),
            severity,
            source: "ctl".into(),
            created_at: signaltty_actors::now_millis(),
            read_at: None,
        })),
    }
    to_value(Done {})
}

async fn notifications(ctx: &Ctx, p: params::Notifications) -> Result<Value, WireError> {
    let model = model(ctx).await;
    let notifications = model
        .notifications
        .iter()
        .filter(|n| !p.unread || n.read_at.is_none())
        .cloned()
        .collect();
    to_value(NotificationsReply { notifications })
}

/// The pane that needs the user most: one whose agent is not busy with a
/// turn, then the most severe attention, then the most recent. A working
/// agent is picked only when nothing else needs the user.
async fn next(ctx: &Ctx) -> Result<Value, WireError> {
    let model = model(ctx).await;
    let best = model
        .panes
        .values()
        .filter(|p| p.record.attention != Attention::None)
        .max_by_key(|p| {
            let idle = p.record.lifecycle != Lifecycle::Working;
            (idle, p.record.attention, p.record.attention_at)
        });
    let workspace = best.and_then(|p| {
        model
            .workspaces
            .iter()
            .find(|w| w.id == p.record.workspace_id)
            .map(|w| w.name.clone())
    });
    to_value(NextReply {
        pane: best.map(|view| crate::listing::ls_pane(view)),
        workspace,
    })
}

fn shutdown(ctx: &Ctx) -> Result<Value, WireError> {
    ctx.server
        .cast(ServerMsg::Shutdown)
        .map_err(|e| WireError::new(ErrorCode::Unavailable, e.to_string()))?;
    to_value(Done {})
}

/// Fault injection, for the supervision tests: makes the named actor
/// panic inside a message handler.
async fn debug_panic(ctx: &Ctx, p: params::DebugPanic) -> Result<Value, WireError> {
    if !ctx.faults_enabled {
        return Err(WireError::new(
            ErrorCode::Refused,
            "fault injection is off; start the server with SIGNALTTY_ENABLE_FAULTS=1 to use it",
        ));
    }
    let sent = match p.target.as_str() {
        "snapshot" => {
            actor::<SnapshotMsg>(names::SNAPSHOT.to_string(), unavailable_actor("snapshot"))?
                .cast(SnapshotMsg::DebugPanic)
                .is_ok()
        }
        "listener" => ctx
            .listener
            .cast(crate::listener::ListenerMsg::DebugPanic)
            .is_ok(),
        target => {
            let model = model(ctx).await;
            if let Ok(view) = model.resolve_pane(target) {
                pane_actor(view)?.cast(PaneMsg::DebugPanic).is_ok()
            } else if let Ok(tab) = model.resolve_tab(target) {
                actor::<TabMsg>(names::tab(&tab.id), ActorError::NoSuchTab(tab.id.clone()))?
                    .cast(TabMsg::DebugPanic)
                    .is_ok()
            } else {
                let ws = model.resolve_workspace(target).map_err(|_| {
                    WireError::new(
                        ErrorCode::BadParams,
                        format!(
                            "{target:?} is not a pane, tab or workspace, nor snapshot or listener"
                        ),
                    )
                })?;
                workspace_actor(&ws.id)?
                    .cast(WorkspaceMsg::DebugPanic)
                    .is_ok()
            }
        }
    };
    if !sent {
        return Err(WireError::new(
            ErrorCode::Unavailable,
            "that actor is not running",
        ));
    }
    to_value(Done {})
}

fn unavailable_actor(what: &str) -> ActorError {
    ActorError::Unavailable(format!("the {what} actor is restarting"))
}
