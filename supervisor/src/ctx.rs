//! What every handler may use: the context a connection's requests run
//! in, and the helpers that find actors and turn their answers into wire
//! errors. It sits below everything that uses it: of this crate it
//! imports only what its fields hold (the messages, the `ls` cache, the
//! orphans' report, the worktrees), and none of those imports it.

use crate::listing::ListingCache;
use crate::messages::ServerMsg;
use crate::orphans::OrphanReport;
use crate::worktree::Worktrees;
use ractor::{ActorRef, Message, RactorErr};
use signaltty_actors::model::{Model, PaneView};
use signaltty_actors::pane::PaneMsg;
use signaltty_actors::snapshot::read::ModelReader;
use signaltty_actors::workspace::WorkspaceMsg;
use signaltty_actors::{ActorError, names};
use signaltty_protocol::{ErrorCode, WireError};
use std::path::PathBuf;
use std::sync::Arc;

/// What every handler may use.
pub struct Ctx {
    pub server: ActorRef<ServerMsg>,
    /// For fault injection to reach the listener.
    #[cfg(any(debug_assertions, feature = "fault-injection"))]
    pub listener: ActorRef<crate::messages::ListenerMsg>,
    pub socket_path: PathBuf,
    /// `ctl debug panic` is allowed (tests only).
    #[cfg(any(debug_assertions, feature = "fault-injection"))]
    pub faults_enabled: bool,
    pub changes: tokio::sync::broadcast::Sender<signaltty_actors::snapshot::Change>,
    /// The model, read without asking the snapshot actor.
    pub model: ModelReader,
    /// The last `ls` reply, for as long as the model stays the same.
    pub listing: ListingCache,
    /// The cleanup of what the previous server left running.
    pub orphans: tokio::sync::watch::Receiver<OrphanReport>,
    /// Where worktrees go, and the git that makes and removes them.
    pub worktrees: Arc<Worktrees>,
}

/// How long a request waits for an actor before answering UNAVAILABLE.
pub(crate) const CALL_MS: u64 = 30_000;

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

pub(crate) fn actor<M: Message>(
    name: String,
    missing: ActorError,
) -> Result<ActorRef<M>, WireError> {
    names::lookup::<M>(&name).ok_or_else(|| wire_error(missing))
}

pub(crate) fn pane_actor(view: &PaneView) -> Result<ActorRef<PaneMsg>, WireError> {
    let id = &view.record.id;
    actor(names::pane(id), ActorError::NoSuchPane(id.to_string()))
}

pub(crate) fn workspace_actor(id: &str) -> Result<ActorRef<WorkspaceMsg>, WireError> {
    actor(
        names::workspace(id),
        ActorError::NoSuchWorkspace(id.to_string()),
    )
}

pub(crate) async fn find_pane(ctx: &Ctx, query: &str) -> Result<PaneView, WireError> {
    let model = model(ctx).await;
    model.resolve_pane(query).cloned().map_err(wire_error)
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

pub(crate) fn bad_params(e: impl std::fmt::Display) -> WireError {
    WireError::new(ErrorCode::BadParams, e.to_string())
}
