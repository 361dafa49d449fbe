//! Fault injection, for the supervision tests: compiled into debug builds
//! (and builds with the `fault-injection` feature) only, and refused unless
//! the server was started with `SIGNALTTY_ENABLE_FAULTS=1`.

use signaltty_actors::pane::PaneMsg;
use signaltty_actors::snapshot::SnapshotMsg;
use signaltty_actors::tab::TabMsg;
use signaltty_actors::workspace::WorkspaceMsg;
use signaltty_actors::{ActorError, names};
use signaltty_protocol::{Done, ErrorCode, WireError, params};

use crate::ctx::*;
use crate::messages::ListenerMsg;

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
        "listener" => ctx.listener.cast(ListenerMsg::DebugPanic).is_ok(),
        target => {
            let model = model(ctx).await;
            if let Ok(view) = model.resolve_pane(target) {
                pane_actor(view)?.cast(PaneMsg::DebugPanic).is_ok()
            } else if let Ok(tab) = model.resolve_tab(target) {
                actor::<TabMsg>(
                    names::tab(&tab.id),
                    ActorError::NoSuchTab(tab.id.to_string()),
                )?
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
