//! The pane's worktree as `git status` last saw it. The server runs git
//! (never the pane) and tells the pane; the pane owns its record, so the
//! change is published, saved and listed like any other.

use signaltty_persistence::limits::{MAX_NAME_BYTES, saved_len};

use super::Pane;

/// What a look at the pane's worktree found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorktreeSeen {
    /// The worktree it is about: a pane that has since moved to another
    /// ignores a late answer.
    pub path: String,
    pub branch: String,
    pub dirty: bool,
    /// Its directory is missing.
    pub gone: bool,
}

impl Pane {
    pub(super) fn worktree_seen(&mut self, seen: WorktreeSeen) {
        let Some(worktree) = self.record.worktree.as_mut() else {
            return;
        };
        if worktree.path != seen.path {
            return;
        }
        // A branch name the record cannot hold keeps the one it has.
        let branch = if seen.branch.is_empty() || saved_len(&seen.branch) > MAX_NAME_BYTES {
            worktree.branch.clone()
        } else {
            seen.branch
        };
        if (&worktree.branch, worktree.dirty, worktree.gone) == (&branch, seen.dirty, seen.gone) {
            return;
        }
        worktree.branch = branch;
        worktree.dirty = seen.dirty;
        worktree.gone = seen.gone;
        self.publish();
    }
}
