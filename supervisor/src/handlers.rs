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
use serde_json::Value;
use signaltty_actors::model::{Model, PaneView};
use signaltty_actors::pane::{PaneMsg, ReadWhat};
use signaltty_actors::snapshot::SnapshotMsg;
use signaltty_actors::snapshot::read::ModelReader;
use signaltty_actors::tab::{SplitAt, TabMsg};
use signaltty_actors::workspace::{PaneSpec, WorkspaceMsg};
use signaltty_actors::{ActorError, PaneState, names, snapshot};
use signaltty_adapters as adapters;
use signaltty_persistence::{Attention, Direction, Lifecycle, NotificationRecord, Severity};
use signaltty_screen::{MAX_BODY_CHARS, MAX_TITLE_CHARS, sanitize};

use crate::input;
use crate::server::ServerMsg;
use crate::worktree::Worktrees;
use crate::worktree::requests::{self as worktrees, Closing};
use signaltty_protocol::limits::{MAX_PANES, MAX_WORKSPACES};
use signaltty_protocol::text::Plain;
use signaltty_protocol::{
    Call, ClosedReply, Done, ErrorCode, IdReply, Method, NextReply, NotificationsReply,
    OrphansStatusReply, PROTOCOL, ReadReply, ResizeReply, RestoreStatusReply, Signal,
    SnapshotStatusReply, StatusReply, TabNewReply, WireError, method, params,
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

/// The one match over every request: the table of contents of what a
/// client can ask. Each arm names the method whose reply its handler must
/// give, so a handler answering the wrong type does not compile. The
/// listener serves the streams itself (`pane.attach`, `subscribe`,
/// `events`) and `ls` from its cache.
pub async fn dispatch(ctx: &Ctx, call: Call) -> Result<Value, WireError> {
    use crate::{agents, arrange, aware};
    match call {
        Call::Status(_) => answer::<method::Status>(status(ctx).await),
        Call::Ls(_) => answer::<method::Ls>(Ok(crate::listing::listing(&*model(ctx).await))),
        Call::WorkspaceNew(p) => answer::<method::WorkspaceNew>(workspace_new(ctx, p).await),
        Call::WorkspaceSet(p) => answer::<method::WorkspaceSet>(workspace_set(ctx, p).await),
        Call::WorkspaceClose(p) => answer::<method::WorkspaceClose>(workspace_close(ctx, p).await),
        Call::TabNew(p) => answer::<method::TabNew>(tab_new(ctx, p).await),
        Call::TabClose(p) => answer::<method::TabClose>(tab_close(ctx, p).await),
        Call::PaneNew(p) => answer::<method::PaneNew>(pane_new(ctx, p).await),
        Call::PaneSend(p) => answer::<method::PaneSend>(pane_send(ctx, p).await),
        Call::PaneRead(p) => answer::<method::PaneRead>(pane_read(ctx, p).await),
        Call::PaneClose(p) => answer::<method::PaneClose>(pane_close(ctx, p).await),
        Call::PaneKill(p) => answer::<method::PaneKill>(pane_kill(ctx, p).await),
        Call::PaneResize(p) => answer::<method::PaneResize>(pane_resize(ctx, p).await),
        Call::PaneResume(p) => {
            answer::<method::PaneResume>(pane_revive(ctx, p, PaneMsg::Resume).await)
        }
        Call::PaneRespawn(p) => {
            answer::<method::PaneRespawn>(pane_revive(ctx, p, PaneMsg::Respawn).await)
        }
        Call::PaneReportSession(p) => {
            answer::<method::PaneReportSession>(pane_report_session(ctx, p).await)
        }
        Call::PaneSeen(p) => answer::<method::PaneSeen>(pane_seen(ctx, p).await),
        Call::PaneHook(p) => answer::<method::PaneHook>(pane_hook(ctx, p).await),
        Call::Notify(p) => answer::<method::Notify>(notify(ctx, p).await),
        Call::Notifications(p) => answer::<method::Notifications>(notifications(ctx, p).await),
        Call::Next(_) => answer::<method::Next>(next(ctx).await),
        Call::Shutdown(_) => answer::<method::Shutdown>(shutdown(ctx)),
        Call::DebugPanic(p) => answer::<method::DebugPanic>(debug_panic(ctx, p).await),
        Call::Rename(p) => answer::<method::Rename>(arrange::rename(ctx, p).await),
        Call::Focus(p) => answer::<method::Focus>(arrange::focus(ctx, p).await),
        Call::TabSplitRatio(p) => {
            answer::<method::TabSplitRatio>(arrange::split_ratio(ctx, p).await)
        }
        Call::PaneExplain(p) => answer::<method::PaneExplain>(aware::explain(ctx, p).await),
        Call::PaneWait(p) => answer::<method::PaneWait>(aware::wait(ctx, p).await),
        Call::PaneSendKeys(p) => answer::<method::PaneSendKeys>(agents::send_keys(ctx, p).await),
        Call::AgentStart(p) => answer::<method::AgentStart>(agents::start(ctx, p).await),
        Call::AgentPrompt(p) => answer::<method::AgentPrompt>(agents::prompt(ctx, p).await),
        Call::AgentWait(p) => answer::<method::AgentWait>(aware::agent_wait(ctx, p).await),
        Call::PaneAttach(_) | Call::Subscribe(_) | Call::Events(_) => Err(WireError::new(
            ErrorCode::Internal,
            "a stream is served by the connection, not dispatched",
        )),
    }
}

/// A handler's typed reply, as the wire carries it.
fn answer<M: Method>(reply: Result<M::Reply, WireError>) -> Result<Value, WireError> {
    serde_json::to_value(reply?).map_err(|e| WireError::new(ErrorCode::Internal, e.to_string()))
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

async fn status(ctx: &Ctx) -> Result<StatusReply, WireError> {
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
    Ok(reply)
}

async fn workspace_new(ctx: &Ctx, p: params::WorkspaceNew) -> Result<IdReply, WireError> {
    let model = model(ctx).await;
    room_for("workspaces", model.workspaces.len(), MAX_WORKSPACES)?;
    // Before git makes anything: a name the server would refuse anyway.
    if model.workspaces.iter().any(|w| w.name == p.name.trim()) {
        return Err(wire_error(ActorError::NameTaken(p.name.trim().to_string())));
    }
    let cwd = match p.cwd {
        Some(cwd) => cwd.plain(),
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
            name: p.name.plain(),
            cwd,
            auto_resume: p.auto_resume,
            worktree,
            reply
        },
        CALL_MS
    )
    .map_err(unavailable)?
    .map_err(wire_error)?;
    Ok(IdReply { id })
}

async fn workspace_set(ctx: &Ctx, p: params::WorkspaceSet) -> Result<Done, WireError> {
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
    Ok(Done {})
}

async fn workspace_close(ctx: &Ctx, p: params::Workspace) -> Result<ClosedReply, WireError> {
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
    Ok(closed)
}

async fn tab_new(ctx: &Ctx, p: params::TabNew) -> Result<TabNewReply, WireError> {
    let model = model(ctx).await;
    room_for("panes", model.panes.len(), MAX_PANES)?;
    let ws = model.resolve_workspace(&p.workspace).map_err(wire_error)?;
    let actor = workspace_actor(&ws.id)?;
    let worktree = p
        .cwd
        .as_deref()
        .and_then(|cwd| worktrees::known_worktree(&model, cwd));
    let pane = PaneSpec {
        argv: p.argv.plain(),
        cwd: p.cwd.plain(),
        worktree,
        ..PaneSpec::default()
    };
    let (tab, pane) = ractor::call_t!(
        actor,
        |reply| WorkspaceMsg::NewTab {
            title: p.title.plain(),
            pane,
            reply
        },
        CALL_MS
    )
    .map_err(unavailable)?
    .map_err(wire_error)?;
    Ok(TabNewReply {
        id: tab,
        pane_id: pane,
    })
}

async fn tab_close(ctx: &Ctx, p: params::Tab) -> Result<Done, WireError> {
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
    Ok(Done {})
}

async fn pane_new(ctx: &Ctx, p: params::PaneNew) -> Result<IdReply, WireError> {
    let model = model(ctx).await;
    room_for("panes", model.panes.len(), MAX_PANES)?;
    let ws = model.resolve_workspace(&p.workspace).map_err(wire_error)?;
    let direction = p.direction.unwrap_or(Direction::Right);
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
    let (cwd, worktree) = worktrees::for_new_pane(
        &ctx.worktrees,
        &model,
        ws,
        p.cwd.plain(),
        p.worktree.as_deref(),
    )
    .await?;
    let spec = PaneSpec {
        argv: p.argv.plain(),
        cwd,
        title: p.title.plain(),
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
    Ok(IdReply { id })
}

pub(crate) async fn find_pane(ctx: &Ctx, query: &str) -> Result<PaneView, WireError> {
    let model = model(ctx).await;
    model.resolve_pane(query).cloned().map_err(wire_error)
}

async fn pane_send(ctx: &Ctx, p: params::PaneSend) -> Result<Done, WireError> {
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
    Ok(Done {})
}

async fn pane_read(ctx: &Ctx, p: params::PaneRead) -> Result<ReadReply, WireError> {
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
    Ok(ReadReply {
        text: out.text,
        offset: out.offset,
        missed: out.missed,
    })
}

async fn pane_close(ctx: &Ctx, p: params::PaneClose) -> Result<ClosedReply, WireError> {
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
    Ok(closed)
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

/// The number of a signal a client may send.
fn signal_number(signal: Signal) -> i32 {
    match signal {
        Signal::Hup => libc::SIGHUP,
        Signal::Int => libc::SIGINT,
        Signal::Quit => libc::SIGQUIT,
        Signal::Term => libc::SIGTERM,
        Signal::Kill => libc::SIGKILL,
        Signal::Usr1 => libc::SIGUSR1,
        Signal::Usr2 => libc::SIGUSR2,
        Signal::Cont => libc::SIGCONT,
        Signal::Stop => libc::SIGSTOP,
        Signal::Tstp => libc::SIGTSTP,
        Signal::Winch => libc::SIGWINCH,
    }
}

async fn pane_kill(ctx: &Ctx, p: params::PaneKill) -> Result<Done, WireError> {
    let signal = signal_number(p.signal.unwrap_or(Signal::Term));
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
    Ok(Done {})
}

async fn pane_resize(ctx: &Ctx, p: params::PaneResize) -> Result<ResizeReply, WireError> {
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
    Ok(ResizeReply {
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
) -> Result<Done, WireError> {
    let view = find_pane(ctx, &p.pane).await?;
    worktrees::check_revivable(&view.record).await?;
    let actor = pane_actor(&view)?;
    crate::orphans::settled(&ctx.orphans).await;
    ractor::call_t!(actor, message, CALL_MS)
        .map_err(unavailable)?
        .map_err(wire_error)?;
    Ok(Done {})
}

async fn pane_report_session(ctx: &Ctx, p: params::ReportSession) -> Result<Done, WireError> {
    let view = find_pane(ctx, &p.pane).await?;
    let actor = pane_actor(&view)?;
    ractor::call_t!(
        actor,
        |reply| PaneMsg::ReportSession {
            kind: p.agent,
            id: p.session_id.plain(),
            reply
        },
        CALL_MS
    )
    .map_err(unavailable)?
    .map_err(wire_error)?;
    Ok(Done {})
}

async fn pane_seen(ctx: &Ctx, p: params::Pane) -> Result<Done, WireError> {
    let view = find_pane(ctx, &p.pane).await?;
    ractor::call_t!(pane_actor(&view)?, PaneMsg::Seen, CALL_MS).map_err(unavailable)?;
    Ok(Done {})
}

pub(crate) fn bad_params(e: impl std::fmt::Display) -> WireError {
    WireError::new(ErrorCode::BadParams, e.to_string())
}

async fn pane_hook(ctx: &Ctx, p: params::PaneHook) -> Result<Done, WireError> {
    let kind = p.agent;
    let effect = adapters::hook_effect(kind, &p.event, p.message.as_deref()).map_err(bad_params)?;
    let view = find_pane(ctx, &p.pane).await?;
    ractor::call_t!(
        pane_actor(&view)?,
        |reply| PaneMsg::Hook {
            kind,
            event: p.event.plain(),
            effect,
            session_id: p.session_id.plain(),
            message: p.message.plain(),
            reply
        },
        CALL_MS
    )
    .map_err(unavailable)?
    .map_err(wire_error)?;
    Ok(Done {})
}

async fn notify(ctx: &Ctx, p: params::Notify) -> Result<Done, WireError> {
    let severity = p.severity.unwrap_or(Severity::Info);
    match p.pane {
        Some(pane) => {
            let view = find_pane(ctx, &pane).await?;
            ractor::call_t!(
                pane_actor(&view)?,
                |reply| PaneMsg::Notify {
                    severity,
                    title: p.title.plain(),
                    body: p.body.plain(),
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
    Ok(Done {})
}

async fn notifications(
    ctx: &Ctx,
    p: params::Notifications,
) -> Result<NotificationsReply, WireError> {
    let model = model(ctx).await;
    let notifications = model
        .notifications
        .iter()
        .filter(|n| !p.unread || n.read_at.is_none())
        .cloned()
        .collect();
    Ok(NotificationsReply { notifications })
}

/// The pane that needs the user most: one whose agent is not busy with a
/// turn, then the most severe attention, then the most recent. A working
/// agent is picked only when nothing else needs the user.
async fn next(ctx: &Ctx) -> Result<NextReply, WireError> {
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
    Ok(NextReply {
        pane: best.map(|view| crate::listing::ls_pane(view)),
        workspace,
    })
}

fn shutdown(ctx: &Ctx) -> Result<Done, WireError> {
    ctx.server
        .cast(ServerMsg::Shutdown)
        .map_err(|e| WireError::new(ErrorCode::Unavailable, e.to_string()))?;
    Ok(Done {})
}

/// Fault injection, for the supervision tests: makes the named actor
/// panic inside a message handler.
async fn debug_panic(ctx: &Ctx, p: params::DebugPanic) -> Result<Done, WireError> {
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
    Ok(Done {})
}

fn unavailable_actor(what: &str) -> ActorError {
    ActorError::Unavailable(format!("the {what} actor is restarting"))
}
