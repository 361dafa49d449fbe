//! The server itself: its status, shutting it down, fault injection.

use crate::messages::ServerMsg;
use signaltty_actors::pane::PaneMsg;
use signaltty_actors::snapshot::SnapshotMsg;
use signaltty_actors::tab::TabMsg;
use signaltty_actors::workspace::WorkspaceMsg;
use signaltty_actors::{ActorError, PaneState, names};
use signaltty_protocol::{
    Done, ErrorCode, OrphansStatusReply, PROTOCOL, RestoreStatusReply, SnapshotStatusReply,
    StatusReply, WireError, params,
};

use crate::ctx::*;

pub(crate) async fn status(ctx: &Ctx) -> Result<StatusReply, WireError> {
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

pub(crate) fn shutdown(ctx: &Ctx) -> Result<Done, WireError> {
    ctx.server
        .cast(ServerMsg::Shutdown)
        .map_err(|e| WireError::new(ErrorCode::Unavailable, e.to_string()))?;
    Ok(Done {})
}

/// Fault injection, for the supervision tests: makes the named actor
/// panic inside a message handler.
pub(crate) async fn debug_panic(ctx: &Ctx, p: params::DebugPanic) -> Result<Done, WireError> {
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
            .cast(crate::messages::ListenerMsg::DebugPanic)
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
