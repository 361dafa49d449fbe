//! The server itself: its status and shutting it down.

use crate::messages::ServerMsg;
use signaltty_actors::PaneState;
use signaltty_protocol::{
    Done, ErrorCode, OrphansStatusReply, PROTOCOL, RestoreStatusReply, SnapshotStatusReply,
    StatusReply, WireError,
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
        upgrades: server.upgrades,
    };
    Ok(reply)
}

pub(crate) fn shutdown(ctx: &Ctx) -> Result<Done, WireError> {
    ctx.server
        .cast(ServerMsg::Shutdown)
        .map_err(|e| WireError::new(ErrorCode::Unavailable, e.to_string()))?;
    Ok(Done {})
}

/// Hands the server over to a new binary (see `handover`); returns only
/// if that did not happen, saying why.
pub(crate) async fn upgrade(
    ctx: &Ctx,
    params: signaltty_protocol::params::Upgrade,
    caller: crate::handover::state::Caller,
) -> WireError {
    let binary = params
        .binary
        .map(|b| std::path::PathBuf::from(b.into_string()));
    match ractor::call_t!(
        ctx.server,
        |reply| ServerMsg::Upgrade {
            binary,
            caller,
            reply
        },
        UPGRADE_MS
    ) {
        Ok(error) => WireError::new(ErrorCode::Refused, format!("upgrade failed: {error}")),
        Err(e) => unavailable(e),
    }
}

/// The longest an upgrade may take before its caller gives up: the new
/// binary's check, and the panes pausing, each have their own limit.
const UPGRADE_MS: u64 = 30_000;
