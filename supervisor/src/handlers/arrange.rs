//! Requests that arrange what the user sees: names, where the user is, and
//! how a tab's splits are shared out. Each resolves its target against the
//! snapshot actor's model and asks the actor that owns it.

use signaltty_actors::model::Model;
use signaltty_actors::pane::PaneMsg;
use signaltty_actors::tab::TabMsg;
use signaltty_actors::workspace::WorkspaceMsg;
use signaltty_actors::{ActorError, names};
use signaltty_protocol::params::{self, TargetKind};
use signaltty_protocol::{Done, ErrorCode, RatioReply, RenameReply, WireError};
use signaltty_screen::MAX_TITLE_CHARS;

use crate::ctx::{CALL_MS, Ctx, model, pane_actor, unavailable, wire_error, workspace_actor};
use crate::server::ServerMsg;

/// What a rename or focus target turned out to be.
enum Target {
    Workspace {
        id: String,
    },
    Tab {
        id: String,
        workspace: String,
    },
    Pane {
        id: String,
        tab: String,
        workspace: String,
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
            Target::Workspace { id } | Target::Tab { id, .. } | Target::Pane { id, .. } => id,
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

fn tab_actor(id: &str) -> Result<ractor::ActorRef<TabMsg>, WireError> {
    names::lookup::<TabMsg>(&names::tab(id))
        .ok_or_else(|| wire_error(ActorError::NoSuchTab(id.into())))
}
