//! Requests that arrange what the user sees: names, where the user is, how
//! a tab's splits are shared out, and which tab each pane is in (swap,
//! break, move: the processes keep running). Each resolves its target
//! against the snapshot actor's model and asks the actor that owns it.

use signaltty_actors::model::Model;
use signaltty_actors::pane::PaneMsg;
use signaltty_actors::tab::{SplitAt, TabMsg};
use signaltty_actors::workspace::WorkspaceMsg;
use signaltty_actors::{ActorError, names};
use signaltty_persistence::Direction;
use signaltty_protocol::params::{self, TargetKind};
use signaltty_protocol::{
    BreakReply, Done, ErrorCode, MoveReply, RatioReply, RenameReply, SwapReply, WireError,
};
use signaltty_screen::MAX_TITLE_CHARS;

use crate::ctx::{CALL_MS, Ctx, model, pane_actor, unavailable, wire_error, workspace_actor};
use crate::messages::ServerMsg;
use signaltty_types::id::{PaneId, TabId, WorkspaceId};

/// What a rename or focus target turned out to be.
enum Target {
    Workspace {
        id: WorkspaceId,
    },
    Tab {
        id: TabId,
        workspace: WorkspaceId,
    },
    Pane {
        id: PaneId,
        tab: TabId,
        workspace: WorkspaceId,
    },
}

impl Target {
    fn kind(&self) -> TargetKind {
        match self {
            Target::Workspace { .. } => TargetKind::Workspace,
            Target::Tab { .. } => TargetKind::Tab,
            Target::Pane { .. } => TargetKind::Pane,
        }
    }

    fn id(&self) -> &str {
        match self {
            Target::Workspace { id } => id,
            Target::Tab { id, .. } => id,
            Target::Pane { id, .. } => id,
        }
    }
}

/// Looks `query` up as `kind`, or, without one, as whichever of a
/// workspace, tab or pane it names; it must name exactly one.
fn resolve(model: &Model, query: &str, kind: Option<TargetKind>) -> Result<Target, WireError> {
    let workspace = || {
        model
            .resolve_workspace(query)
            .map(|ws| Target::Workspace { id: ws.id.clone() })
    };
    let tab = || {
        model.resolve_tab(query).map(|tab| Target::Tab {
            id: tab.id.clone(),
            workspace: tab.workspace_id.clone(),
        })
    };
    let pane = || {
        model.resolve_pane(query).map(|view| Target::Pane {
            id: view.record.id.clone(),
            tab: view.record.tab_id.clone(),
            workspace: view.record.workspace_id.clone(),
        })
    };
    match kind {
        Some(TargetKind::Workspace) => workspace().map_err(wire_error),
        Some(TargetKind::Tab) => tab().map_err(wire_error),
        Some(TargetKind::Pane) => pane().map_err(wire_error),
        None => {
            let found: Vec<Target> = [workspace(), tab(), pane()]
                .into_iter()
                .filter_map(Result::ok)
                .collect();
            match <[Target; 1]>::try_from(found) {
                Ok([one]) => Ok(one),
                Err(found) if found.is_empty() => Err(WireError::new(
                    ErrorCode::BadParams,
                    format!("{query:?} is no workspace, tab or pane; see `signaltty ctl ls`"),
                )),
                Err(found) => {
                    let kinds: Vec<&str> = found.iter().map(|t| t.kind().as_str()).collect();
                    Err(WireError::new(
                        ErrorCode::BadParams,
                        format!(
                            "{query:?} could be a {}; give more of the id",
                            kinds.join(" or a ")
                        ),
                    ))
                }
            }
        }
    }
}

/// A name as given, trimmed: no control characters, at most
/// [`MAX_TITLE_CHARS`].
fn checked_name(name: &str) -> Result<String, WireError> {
    let name = name.trim();
    if name.chars().any(char::is_control) {
        return Err(WireError::new(
            ErrorCode::BadParams,
            "a name cannot hold control characters",
        ));
    }
    let chars = name.chars().count();
    if chars > MAX_TITLE_CHARS {
        return Err(WireError::new(
            ErrorCode::BadParams,
            format!("a name is at most {MAX_TITLE_CHARS} characters; this one has {chars}"),
        ));
    }
    Ok(name.to_string())
}

fn non_empty(name: String, kind: &str) -> Result<String, WireError> {
    if name.is_empty() {
        return Err(WireError::new(
            ErrorCode::BadParams,
            format!("a {kind} needs a name; give one that is not empty"),
        ));
    }
    Ok(name)
}

pub async fn rename(ctx: &Ctx, p: params::Rename) -> Result<RenameReply, WireError> {
    let name = checked_name(&p.name)?;
    let model = model(ctx).await;
    let target = resolve(&model, &p.target, p.kind)?;
    match &target {
        Target::Pane { id, .. } => {
            let view = model.resolve_pane(id).map_err(wire_error)?;
            let name = (!name.is_empty()).then_some(name);
            ractor::call_t!(pane_actor(view)?, PaneMsg::Rename, CALL_MS, name)
                .map_err(unavailable)?;
        }
        Target::Tab { id, .. } => {
            let name = non_empty(name, "tab")?;
            ractor::call_t!(tab_actor(id)?, TabMsg::Rename, CALL_MS, name).map_err(unavailable)?;
        }
        Target::Workspace { id } => {
            let name = non_empty(name, "workspace")?;
            let id = id.clone();
            ractor::call_t!(
                ctx.server,
                |reply| ServerMsg::RenameWorkspace { id, name, reply },
                CALL_MS
            )
            .map_err(unavailable)?
            .map_err(wire_error)?;
        }
    }
    Ok(RenameReply {
        kind: target.kind(),
        id: target.id().to_string(),
    })
}

pub async fn focus(ctx: &Ctx, p: params::Focus) -> Result<Done, WireError> {
    let model = model(ctx).await;
    let (workspace, tab, pane) = match resolve(&model, &p.target, p.kind)? {
        Target::Workspace { id } => (id, None, None),
        Target::Tab { id, workspace } => (workspace, Some(id), None),
        Target::Pane { id, tab, workspace } => (workspace, Some(tab), Some(id)),
    };
    ractor::call_t!(
        workspace_actor(&workspace)?,
        |reply| WorkspaceMsg::Focus { tab, pane, reply },
        CALL_MS
    )
    .map_err(unavailable)?
    .map_err(wire_error)?;
    Ok(Done {})
}

pub async fn split_ratio(ctx: &Ctx, p: params::SplitRatio) -> Result<RatioReply, WireError> {
    if !p.ratio.is_finite() {
        return Err(WireError::new(
            ErrorCode::BadParams,
            "a ratio is a number between 0 and 1",
        ));
    }
    let model = model(ctx).await;
    let tab = model.resolve_tab(&p.tab).map_err(wire_error)?;
    let (path, ratio) = (p.path, p.ratio);
    let ratio = ractor::call_t!(
        tab_actor(&tab.id)?,
        |reply| TabMsg::SetRatio { path, ratio, reply },
        CALL_MS
    )
    .map_err(unavailable)?
    .map_err(wire_error)?;
    Ok(RatioReply { ratio })
}

/// A pane, and the tab and workspace it is in.
struct Placed {
    id: PaneId,
    tab: TabId,
    workspace: WorkspaceId,
}

fn placed(model: &Model, query: &str) -> Result<Placed, WireError> {
    let view = model.resolve_pane(query).map_err(wire_error)?;
    Ok(Placed {
        id: view.record.id.clone(),
        tab: view.record.tab_id.clone(),
        workspace: view.record.workspace_id.clone(),
    })
}

fn bad(message: String) -> WireError {
    WireError::new(ErrorCode::BadParams, message)
}

/// Panes change tabs within their workspace only: a running process keeps
/// the workspace it was started in.
fn same_workspace(pane: &Placed, workspace: &str, what: &str) -> Result<(), WireError> {
    if pane.workspace == workspace {
        return Ok(());
    }
    Err(bad(format!(
        "pane {} is in workspace {}, {what} in workspace {workspace}; panes move between \
         the tabs of one workspace",
        pane.id, pane.workspace
    )))
}

async fn ask_workspace<T>(
    workspace: &str,
    msg: impl FnOnce(ractor::RpcReplyPort<Result<T, ActorError>>) -> WorkspaceMsg,
) -> Result<T, WireError>
where
    T: Send + 'static,
{
    ractor::call_t!(workspace_actor(workspace)?, msg, CALL_MS)
        .map_err(unavailable)?
        .map_err(wire_error)
}

pub async fn swap(ctx: &Ctx, p: params::PaneSwap) -> Result<SwapReply, WireError> {
    let model = model(ctx).await;
    let (a, b) = (placed(&model, &p.pane)?, placed(&model, &p.with)?);
    if a.id == b.id {
        return Err(bad(format!(
            "pane {} cannot swap with itself; name two panes",
            a.id
        )));
    }
    same_workspace(&a, &b.workspace, &format!("pane {}", b.id))?;
    let (first, second) = ((a.tab.clone(), a.id.clone()), (b.tab.clone(), b.id.clone()));
    ask_workspace(&a.workspace, |reply| WorkspaceMsg::SwapPanes {
        a: first,
        b: second,
        reply,
    })
    .await?;
    Ok(SwapReply {
        pane: a.id.into(),
        tab: b.tab.into(),
        with: b.id.into(),
        with_tab: a.tab.into(),
    })
}

pub async fn break_out(ctx: &Ctx, p: params::PaneBreak) -> Result<BreakReply, WireError> {
    let title = match p.title {
        Some(title) => Some(non_empty(checked_name(&title)?, "tab")?),
        None => None,
    };
    let model = model(ctx).await;
    let pane = placed(&model, &p.pane)?;
    let alone = model
        .tabs
        .get(&pane.tab)
        .is_none_or(|tab| tab.layout.pane_ids().len() < 2);
    if alone {
        return Err(bad(format!(
            "pane {} is alone in its tab already; there is nothing to break it out of",
            pane.id
        )));
    }
    let (id, from) = (pane.id.clone(), pane.tab.clone());
    let tab = ask_workspace(&pane.workspace, |reply| WorkspaceMsg::BreakPane {
        pane: id,
        from,
        title,
        reply,
    })
    .await?;
    Ok(BreakReply {
        pane: pane.id.into(),
        tab: tab.into(),
    })
}

pub async fn move_pane(ctx: &Ctx, p: params::PaneMove) -> Result<MoveReply, WireError> {
    let model = model(ctx).await;
    let pane = placed(&model, &p.pane)?;
    let to = model.resolve_tab(&p.tab).map_err(wire_error)?;
    same_workspace(&pane, &to.workspace_id, &format!("tab {}", to.id))?;
    let beside = match &p.split {
        Some(query) => {
            let beside = placed(&model, query)?;
            if beside.tab != to.id {
                return Err(bad(format!(
                    "pane {} is not in tab {}; split a pane of the tab it moves to",
                    beside.id, to.id
                )));
            }
            if beside.id == pane.id {
                return Err(bad(format!("pane {} cannot move beside itself", pane.id)));
            }
            Some(beside.id)
        }
        None if to.id == pane.tab => {
            return Err(bad(format!(
                "pane {} is in tab {} already; name a pane of it to move it beside",
                pane.id, to.id
            )));
        }
        None => None,
    };
    let split = SplitAt {
        pane: beside,
        direction: p.direction.unwrap_or(Direction::Right),
    };
    let (id, from, dest) = (pane.id.clone(), pane.tab.clone(), to.id.clone());
    let closed = ask_workspace(&pane.workspace, |reply| WorkspaceMsg::MovePane {
        pane: id,
        from,
        to: dest,
        split,
        reply,
    })
    .await?;
    Ok(MoveReply {
        pane: pane.id.into(),
        tab: to.id.to_string(),
        closed_tab: closed.then_some(pane.tab.into()),
    })
}

fn tab_actor(id: &str) -> Result<ractor::ActorRef<TabMsg>, WireError> {
    names::lookup::<TabMsg>(&names::tab(id))
        .ok_or_else(|| wire_error(ActorError::NoSuchTab(id.into())))
}
