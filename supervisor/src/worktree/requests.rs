//! The worktree side of requests: which worktree a new pane runs in, what
//! closing may remove, and whether a pane may run again.
//!
//! Everything that can refuse is checked before anything is closed, so a
//! refused close leaves the pane as it was.

use std::collections::HashSet;
use std::path::Path;

use signaltty_actors::model::Model;
use signaltty_persistence::{WorkspaceRecord, WorktreeRecord};
use signaltty_protocol::{ClosedReply, ClosedWorktree, ErrorCode, WireError};
use signaltty_types::PaneRecord;

use super::{Worktrees, missing};

/// Where a new pane starts and the worktree it runs in. With `name`, a
/// worktree made now from the repository holding `cwd` (else the
/// workspace's directory); without, the worktree signaltty made that holds
/// `cwd`, if any. Without either the workspace decides (its own).
pub async fn for_new_pane(
    worktrees: &Worktrees,
    model: &Model,
    workspace: &WorkspaceRecord,
    cwd: Option<String>,
    name: Option<&str>,
) -> Result<(Option<String>, Option<WorktreeRecord>), WireError> {
    match (name, cwd) {
        (Some(name), cwd) => {
            let dir = cwd.unwrap_or_else(|| workspace.cwd.clone());
            let made = worktrees
                .create(Path::new(&dir), name)
                .await
                .map_err(|e| e.to_wire())?;
            Ok((Some(made.path.clone()), Some(made)))
        }
        (None, Some(cwd)) => {
            let known = known_worktree(model, &cwd);
            Ok((Some(cwd), known))
        }
        (None, None) => Ok((None, None)),
    }
}

/// The worktree signaltty made (for a pane or a workspace) that holds
/// `cwd`: a split of a worktree pane runs in that worktree too.
pub fn known_worktree(model: &Model, cwd: &str) -> Option<WorktreeRecord> {
    let inside = |w: &&WorktreeRecord| {
        cwd == w.path
            || cwd
                .strip_prefix(w.path.as_str())
                .is_some_and(|rest| rest.starts_with('/'))
    };
    model
        .panes
        .values()
        .filter_map(|p| p.record.worktree.as_ref())
        .chain(model.workspaces.iter().filter_map(|w| w.worktree.as_ref()))
        .find(inside)
        .map(|w| WorktreeRecord {
            dirty: false,
            gone: false,
            ..w.clone()
        })
}

/// What is being closed: some panes, and the workspace itself when the
/// whole of it goes.
pub struct Closing<'a> {
    pub panes: Vec<&'a PaneRecord>,
    pub workspace: Option<&'a WorkspaceRecord>,
}

/// The worktrees the closing panes (and workspace) run in. With `remove`,
/// each must be used by nothing that stays open and, unless `force`, be
/// free of uncommitted changes; else the close is refused as a whole.
pub async fn plan_close(
    worktrees: &Worktrees,
    model: &Model,
    closing: &Closing<'_>,
    remove: bool,
    force: bool,
) -> Result<Vec<WorktreeRecord>, WireError> {
    let mut seen = HashSet::new();
    let touched: Vec<WorktreeRecord> = closing
        .panes
        .iter()
        .filter_map(|p| p.worktree.as_ref())
        .chain(closing.workspace.and_then(|w| w.worktree.as_ref()))
        .filter(|w| seen.insert(w.path.clone()))
        .cloned()
        .collect();
    if !remove {
        return Ok(touched);
    }
    if touched.is_empty() && closing.workspace.is_none() {
        return Err(WireError::new(
            ErrorCode::BadParams,
            "that pane runs in no worktree signaltty made; close it without --remove-worktree",
        ));
    }
    for worktree in &touched {
        still_used(model, closing, worktree)?;
        if !force {
            worktrees
                .check_clean(worktree)
                .await
                .map_err(|e| e.to_wire())?;
        }
    }
    Ok(touched)
}

/// Refuses to remove a worktree that a pane or workspace staying open
/// still runs in.
fn still_used(
    model: &Model,
    closing: &Closing<'_>,
    worktree: &WorktreeRecord,
) -> Result<(), WireError> {
    let same = |w: &Option<WorktreeRecord>| w.as_ref().is_some_and(|w| w.path == worktree.path);
    let closing_pane = |id: &str| closing.panes.iter().any(|p| p.id == id);
    if let Some(ws) = model.workspaces.iter().find(|ws| {
        same(&ws.worktree) && closing.workspace.is_none_or(|closing| closing.id != ws.id)
    }) {
        return Err(WireError::new(
            ErrorCode::Refused,
            format!(
                "the worktree at {} is workspace {}'s directory; remove it with \
                 `signaltty ctl workspace close {} --remove-worktree`",
                worktree.path, ws.name, ws.name
            ),
        ));
    }
    if let Some(other) = model
        .panes
        .values()
        .find(|p| same(&p.record.worktree) && !closing_pane(&p.record.id))
    {
        return Err(WireError::new(
            ErrorCode::Refused,
            format!(
                "the worktree at {} is also used by pane {} ({}); close that pane first",
                worktree.path, other.record.id, other.record.title
            ),
        ));
    }
    Ok(())
}

/// After the close: the planned worktrees removed (when asked) or kept.
/// A removal git refuses now (the worktree changed since the check) keeps
/// that worktree and says so; the close itself is done.
pub async fn finish_close(
    worktrees: &Worktrees,
    planned: Vec<WorktreeRecord>,
    remove: bool,
    force: bool,
) -> Result<ClosedReply, WireError> {
    let mut reply = ClosedReply::default();
    let mut failures = Vec::new();
    for worktree in planned {
        let removed = remove && {
            match worktrees.remove(&worktree, force).await {
                Ok(()) => true,
                Err(e) => {
                    failures.push(format!("kept the worktree at {}: {e}", worktree.path));
                    false
                }
            }
        };
        reply.worktrees.push(ClosedWorktree {
            path: worktree.path,
            branch: worktree.branch,
            removed,
        });
    }
    if !failures.is_empty() {
        return Err(WireError::new(
            ErrorCode::Refused,
            format!("closed, but {}", failures.join("; ")),
        ));
    }
    Ok(reply)
}

/// Refuses to resume or respawn a pane whose worktree is gone: it would
/// run somewhere else.
pub async fn check_revivable(record: &PaneRecord) -> Result<(), WireError> {
    let Some(worktree) = &record.worktree else {
        return Ok(());
    };
    if missing(worktree).await {
        return Err(WireError::new(
            ErrorCode::Refused,
            format!(
                "pane {}'s worktree at {} is gone, and it will not run in another directory; \
                 recreate it (`git worktree add {} {}`) or close the pane",
                record.id, worktree.path, worktree.path, worktree.branch
            ),
        ));
    }
    Ok(())
}

/// What a restored pane whose worktree was deleted says.
pub fn gone_message(path: &str) -> String {
    format!(
        "the worktree at {path} is gone (deleted while signaltty was not running); \
         this pane will not run in another directory"
    )
}
