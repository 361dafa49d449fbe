//! `signaltty upgrade`: the server hands itself over to a new binary in
//! place, and no pane's process notices.
//!
//! Re-exec in place, not a new process: `execve` keeps the pid, so every
//! pane's child stays this process's child, and the new image reaps it and
//! learns its real exit code (a new process could not wait for them). The
//! steps, each undone if a later one fails:
//!
//! 1. the reaper holds (a child that ends now waits, a zombie, for the
//!    new image) and every pane stops reading its terminal (output waits
//!    in the kernel; nothing is lost);
//! 2. every pane describes itself (record, state, screen encoded, pid,
//!    terminal descriptor) and the handover is written into a memfd
//!    ([`state`]) with the snapshot of the whole model;
//! 3. the new binary checks it as a child ([`check`]): a binary that
//!    fails to start, errs, panics or hangs changes nothing;
//! 4. the descriptors it names are made inheritable and the process
//!    execs the new binary ([`exec`]); the listening socket stays open, so
//!    clients that connect meanwhile wait in its backlog.
//!
//! The new image finds the handover in its environment and rebuilds the
//! tree from it instead of from disk ([`take`]), each pane adopting its
//! child and terminal. The snapshot on disk is never touched by any of
//! this: a power cut during an upgrade restores as after any crash.

pub mod check;
pub mod exec;
pub mod fallback;
pub mod state;
pub mod take;

use std::os::fd::{AsRawFd, RawFd};
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use futures_util::future::join_all;
use ractor::{ActorRef, RpcReplyPort};
use signaltty_actors::model::Model;
use signaltty_actors::names;
use signaltty_actors::pane::PaneMsg;
use signaltty_actors::pane::reaper::Reaper;

pub use take::{Taken, take};

use state::{Caller, Header};

/// How long a pane may take to stop reading, or to describe itself.
const PANE_TIMEOUT_MS: u64 = 5_000;

#[derive(Debug, thiserror::Error)]
pub enum HandoverError {
    #[error("no binary to upgrade to: {0}")]
    NoBinary(String),
    #[error("pane {0} did not stop in time; nothing was changed")]
    PaneStuck(String),
    #[error(transparent)]
    State(#[from] state::StateError),
    #[error(transparent)]
    Check(#[from] check::CheckError),
    #[error("could not exec {binary}: {source}; nothing was changed")]
    Exec {
        binary: String,
        source: std::io::Error,
    },
}

/// What the handover needs from the server it replaces.
pub struct Outgoing<'a> {
    pub model: &'a Model,
    pub reaper: &'a Reaper,
    pub listener_fd: RawFd,
    pub lock_fd: RawFd,
    pub upgrades: u32,
}

/// Hands the server over to `binary` (by default the one it was started
/// from, as that path is now). Returns only if it did not happen, with
/// everything as it was.
pub async fn hand_over(
    out: Outgoing<'_>,
    binary: Option<PathBuf>,
    caller: Caller,
) -> HandoverError {
    let requested_at = now_ms();
    let binary = match resolve(binary) {
        Ok(binary) => binary,
        Err(e) => return e,
    };
    let panes: Vec<(String, ActorRef<PaneMsg>)> = out
        .model
        .panes
        .keys()
        .filter_map(|id| {
            let id = id.to_string();
            names::lookup::<PaneMsg>(&names::pane(&id)).map(|actor| (id, actor))
        })
        .collect();
    out.reaper.hold();
    let result: Result<std::convert::Infallible, HandoverError> = async {
        // Each pane encodes its own screen: all of them at once.
        ask_every(&panes, PaneMsg::Pause).await?;
        let handed = ask_every(&panes, PaneMsg::HandOver).await?;
        let mut blobs = Vec::new();
        let entries = Header::entries(handed, &mut blobs);
        let mut snapshot =
            signaltty_actors::snapshot::writer::snapshot_of(out.model, crate::server_info());
        snapshot.panes = entries.iter().map(|entry| entry.record.clone()).collect();
        let header = Header {
            nonce: uuid::Uuid::new_v4().to_string(),
            from_version: env!("CARGO_PKG_VERSION").to_string(),
            upgrades: out.upgrades + 1,
            requested_at,
            binary: binary.display().to_string(),
            listener_fd: out.listener_fd,
            lock_fd: out.lock_fd,
            caller: Some(caller),
            snapshot,
            panes: entries,
        };
        let file = state::write(&header, &blobs)?;
        check::run(&binary, &file, &header.nonce).await?;
        tracing::info!(binary = %binary.display(), panes = panes.len(), "handing over");
        let source = exec::exec(&binary, &header.inherited_fds(), file.as_raw_fd());
        Err(HandoverError::Exec {
            binary: binary.display().to_string(),
            source,
        })
    }
    .await;
    // Only a failure gets here.
    for (_, actor) in &panes {
        let _ = actor.cast(PaneMsg::Unpause);
    }
    out.reaper.release();
    match result {
        Err(e) => e,
        Ok(never) => match never {},
    }
}

/// Asks every pane at once (`ask` makes the message): their answers, in
/// order, or the first pane that did not answer in time.
async fn ask_every<T: Send + 'static>(
    panes: &[(String, ActorRef<PaneMsg>)],
    ask: fn(RpcReplyPort<T>) -> PaneMsg,
) -> Result<Vec<T>, HandoverError> {
    let answers = join_all(
        (panes.iter())
            .map(|(_, actor)| async move { ractor::call_t!(actor, ask, PANE_TIMEOUT_MS) }),
    )
    .await;
    (panes.iter().zip(answers))
        .map(|((id, _), answer)| answer.map_err(|_| HandoverError::PaneStuck(id.clone())))
        .collect()
}

/// The binary to hand over to: as given, or the one this server was
/// started from, by its path (`cargo install` replaces the file there).
fn resolve(binary: Option<PathBuf>) -> Result<PathBuf, HandoverError> {
    let binary = match binary {
        Some(binary) => binary,
        None => signaltty_actors::pane::server_binary::current()
            .ok_or_else(|| HandoverError::NoBinary("this server's own path is unknown".into()))?,
    };
    let binary = binary.canonicalize().map_err(|e| {
        HandoverError::NoBinary(format!("{}: {e}; give one with --binary", binary.display()))
    })?;
    Ok(binary)
}

pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_millis()
        .try_into()
        .unwrap_or(u64::MAX)
}
