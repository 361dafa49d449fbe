//! Workspaces and tabs: made, set, closed.

use crate::messages::ServerMsg;
use crate::worktree::requests::{self as worktrees, Closing};
use signaltty_actors::ActorError;
use signaltty_actors::workspace::{PaneSpec, WorkspaceMsg};
use signaltty_protocol::limits::{MAX_PANES, MAX_WORKSPACES};
use signaltty_protocol::text::Plain;
use signaltty_protocol::{ClosedReply, Done, ErrorCode, IdReply, TabNewReply, WireError, params};

use crate::ctx::*;

pub(crate) async fn workspace_new(
    ctx: &Ctx,
    p: params::WorkspaceNew,
) -> Result<IdReply, WireError> {
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
    Ok(IdReply { id: id.into() })
}

pub(crate) async fn workspace_set(ctx: &Ctx, p: params::WorkspaceSet) -> Result<Done, WireError> {
    let model = model(ctx).await;
    let ws = model.resolve_workspace(&p.workspace).map_err(wire_error)?;
    if p.auto_resume.is_none() && p.hibernate_after.is_none() {
        return Err(WireError::new(
            ErrorCode::BadParams,
            "nothing to set; pass --auto-resume true|false or --hibernate-after 20m|off",
        ));
    }
    let actor = workspace_actor(&ws.id)?;
    if let Some(on) = p.auto_resume {
        ractor::call_t!(actor, WorkspaceMsg::SetAutoResume, CALL_MS, on).map_err(unavailable)?;
    }
    if let Some(after) = p.hibernate_after {
        ractor::call_t!(actor, WorkspaceMsg::SetHibernateAfter, CALL_MS, after)
            .map_err(unavailable)?;
    }
    Ok(Done {})
}

pub(crate) async fn workspace_close(
    ctx: &Ctx,
    p: params::Workspace,
) -> Result<ClosedReply, WireError> {
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

pub(crate) async fn tab_new(ctx: &Ctx, p: params::TabNew) -> Result<TabNewReply, WireError> {
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
        id: tab.into(),
        pane_id: pane.into(),
    })
}

pub(crate) async fn tab_close(ctx: &Ctx, p: params::Tab) -> Result<Done, WireError> {
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
