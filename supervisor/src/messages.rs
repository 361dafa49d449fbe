//! The messages the supervisor's own actors take: the server actor's, for
//! the handlers that ask it for something, and the listener's.
//!
//! They live apart from the actors so that what sends them (the handlers'
//! [`Ctx`](crate::ctx::Ctx)) need not import what receives them.

use std::path::PathBuf;
use std::time::Duration;

use ractor::RpcReplyPort;
use signaltty_actors::ActorError;
use signaltty_actors::snapshot::SnapshotStatus;
use signaltty_persistence::WorktreeRecord;

use crate::orphans::OrphanReport;
use signaltty_types::id::WorkspaceId;

pub enum ServerMsg {
    NewWorkspace {
        name: String,
        cwd: String,
        auto_resume: bool,
        /// The worktree `cwd` is, made for it.
        worktree: Option<WorktreeRecord>,
        reply: RpcReplyPort<Result<WorkspaceId, ActorError>>,
    },
    CloseWorkspace {
        id: WorkspaceId,
        reply: RpcReplyPort<Result<(), ActorError>>,
    },
    /// A new name for a workspace; names stay unique.
    RenameWorkspace {
        id: WorkspaceId,
        name: String,
        reply: RpcReplyPort<Result<(), ActorError>>,
    },
    Status(RpcReplyPort<ServerStatus>),
    /// Hand the server over to a new binary; answered only if that did not
    /// happen, with why.
    Upgrade {
        binary: Option<PathBuf>,
        caller: crate::handover::state::Caller,
        reply: RpcReplyPort<crate::handover::HandoverError>,
    },
    /// Final snapshot, hang up every child, stop.
    Shutdown,
}

#[derive(Debug, Clone)]
pub struct ServerStatus {
    pub uptime: Duration,
    pub socket_path: PathBuf,
    pub state_dir: PathBuf,
    pub faults_enabled: bool,
    pub snapshot: SnapshotStatus,
    /// What start found on disk and did about it.
    pub restore_note: String,
    pub restore_degraded: bool,
    /// What was left running by the previous server, and what was done.
    pub orphans: OrphanReport,
    /// Handovers this process has been through (`upgrade`).
    pub upgrades: u32,
}

pub enum ListenerMsg {
    /// The accept loop ended with an error: fail, so the server restarts us.
    AcceptFailed(String),
    /// Fault injection: panic inside this handler.
    #[cfg(any(debug_assertions, feature = "fault-injection"))]
    DebugPanic,
}
