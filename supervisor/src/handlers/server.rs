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

pub(crate) async fn upgrade(
    _ctx: &Ctx,
    _params: signaltty_protocol::params::Upgrade,
) -> Result<signaltty_protocol::UpgradeReply, WireError> {
    Err(WireError::new(
        ErrorCode::Refused,
        "upgrade: under construction",
    ))
}
