//! Keeps the branch and dirty mark of shown worktrees up to date.
//!
//! Every [`REFRESH`] the task reads the model (no message) and asks each
//! pane with a worktree whether a client shows it; only those get a `git
//! status` — at most [`super::git::MAX_RUNNING`] at once, and never two for
//! one pane — and the pane is told what it found. A server nobody looks at
//! runs no git at all; a change reaches clients as the pane's record does.

use signaltty_types::id::PaneId;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::join_all;
use signaltty_actors::names;
use signaltty_actors::pane::PaneMsg;
use signaltty_actors::pane::worktree::WorktreeSeen;
use signaltty_actors::snapshot::read::ModelReader;
use signaltty_persistence::WorktreeRecord;
use tokio::task::JoinHandle;
use tracing::debug;

use super::{Looked, Worktrees};

/// How often shown worktrees are looked at.
pub const REFRESH: Duration = Duration::from_secs(2);
/// How long a pane has to say whether it is shown.
const ASK_MS: u64 = 1_000;

/// Starts the refresh; it runs until the handle is aborted.
pub fn spawn(model: ModelReader, worktrees: Arc<Worktrees>) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(REFRESH);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            refresh(&model, &worktrees).await;
        }
    })
}

/// One round: every shown worktree pane looked at, the round over only
/// when each is (so a slow git never overlaps itself).
async fn refresh(model: &ModelReader, worktrees: &Worktrees) {
    let model = model.now();
    let panes: Vec<(PaneId, WorktreeRecord)> = model
        .panes
        .values()
        .filter_map(|p| Some((p.record.id.clone(), p.record.worktree.clone()?)))
        .collect();
    if panes.is_empty() {
        return;
    }
    join_all(
        panes
            .into_iter()
            .map(|(id, worktree)| look_if_shown(worktrees, id, worktree)),
    )
    .await;
}

async fn look_if_shown(worktrees: &Worktrees, id: PaneId, worktree: WorktreeRecord) {
    let Some(pane) = names::lookup::<PaneMsg>(&names::pane(&id)) else {
        return;
    };
    if !ractor::call_t!(pane, PaneMsg::IsWatched, ASK_MS).unwrap_or(false) {
        return;
    }
    let seen = match worktrees.look(&worktree).await {
        Ok(Looked::Gone) => WorktreeSeen {
            path: worktree.path,
            branch: String::new(),
            dirty: false,
            gone: true,
        },
        Ok(Looked::Seen(status)) => WorktreeSeen {
            path: worktree.path,
            dirty: status.dirty(),
            branch: status.branch,
            gone: false,
        },
        Err(e) => {
            debug!(pane = %id, error = %e, "could not look at a worktree");
            return;
        }
    };
    let _ = pane.cast(PaneMsg::WorktreeSeen(seen));
}
