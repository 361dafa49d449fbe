//! The pane's worktree as `git status` last saw it. The server runs git
//! (never the pane) and tells the pane; the pane owns its record, so the
//! change is published, saved and listed like any other.

use signaltty_persistence::WorktreeRecord;
use signaltty_persistence::limits::{MAX_NAME_BYTES, saved_len};

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

/// Applies what a look at the pane's `worktree` found; true when that
/// changed it.
pub(super) fn apply(worktree: &mut Option<WorktreeRecord>, seen: WorktreeSeen) -> bool {
    let Some(worktree) = worktree.as_mut() else {
        return false;
    };
    let Some(changed) = updated(worktree, seen) else {
        return false;
    };
    *worktree = changed;
    true
}

/// The record after `seen`, when that changes it. A branch the record
/// cannot hold (or none: a detached HEAD) keeps the one it has.
fn updated(worktree: &WorktreeRecord, seen: WorktreeSeen) -> Option<WorktreeRecord> {
    if worktree.path != seen.path {
        return None;
    }
    let branch = if seen.branch.is_empty() || saved_len(&seen.branch) > MAX_NAME_BYTES {
        worktree.branch.clone()
    } else {
        seen.branch
    };
    let next = WorktreeRecord {
        branch,
        dirty: seen.dirty,
        gone: seen.gone,
        ..worktree.clone()
    };
    (next != *worktree).then_some(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> WorktreeRecord {
        WorktreeRecord {
            path: "/w/fix".into(),
            branch: "fix".into(),
            repo: "/w".into(),
            dirty: false,
            gone: false,
        }
    }

    fn seen(path: &str, branch: &str, dirty: bool) -> WorktreeSeen {
        WorktreeSeen {
            path: path.into(),
            branch: branch.into(),
            dirty,
            gone: false,
        }
    }

    #[test]
    fn only_a_change_to_this_worktree_updates_the_record() {
        assert_eq!(updated(&record(), seen("/w/fix", "fix", false)), None);
        assert_eq!(updated(&record(), seen("/w/other", "x", true)), None);
        let dirty = updated(&record(), seen("/w/fix", "fix", true)).unwrap();
        assert!(dirty.dirty && dirty.branch == "fix" && dirty.repo == "/w");
    }

    #[test]
    fn a_branch_the_record_cannot_hold_keeps_the_old_one() {
        let long = "b".repeat(MAX_NAME_BYTES + 1);
        let kept = updated(&record(), seen("/w/fix", &long, true)).unwrap();
        assert_eq!(kept.branch, "fix");
        let detached = updated(&record(), seen("/w/fix", "", true)).unwrap();
        assert_eq!(detached.branch, "fix");
        let moved = updated(&record(), seen("/w/fix", "other", false)).unwrap();
        assert_eq!(moved.branch, "other");
    }
}
