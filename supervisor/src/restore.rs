//! Restore on start: the saved snapshot read back and turned into actors.
//!
//! Every saved workspace, tab and pane comes back with its id, layout,
//! title, size, cwd, argv, agent info, lifecycle and attention; each pane as
//! a tombstone (RESTORED, RESUMABLE or EXITED) showing its saved tail. No
//! process is started here: auto-resume, the one exception, runs only the
//! adapter-built resume command of RESUMABLE panes in workspaces that opted
//! in, and happens in the server once the tree is up.

use std::collections::HashMap;
use std::path::PathBuf;

use signaltty_actors::pane::handover::HandedPane;
use signaltty_actors::pane::{PaneArgs, PaneContext, PaneStart, restored_state};
use signaltty_actors::tab::TabArgs;
use signaltty_actors::workspace::WorkspaceArgs;
use signaltty_persistence::{LoadOutcome, Snapshot, StateDir, TailStore, WorktreeRecord};
use signaltty_screen::{MAX_BODY_CHARS, sanitize};
use signaltty_types::PaneRecord;
use tracing::{error, info, warn};

use crate::config::Config;
use crate::worktree::requests::gone_message;

/// Why the saved state cannot be restored; the server does not start.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    #[error(transparent)]
    Persist(#[from] signaltty_persistence::PersistError),
    #[error(
        "{} has snapshot_version {found}, but this signaltty reads only up to {supported}; \
         run a newer signaltty, or move the file away to start empty (nothing was changed)",
        .path.display()
    )]
    FutureSnapshot {
        path: PathBuf,
        found: u32,
        supported: u32,
    },
}

/// What start found on disk.
#[derive(Debug)]
pub struct Restore {
    pub snapshot: Option<Snapshot>,
    /// One line on what happened, for the log and `ctl status`.
    pub note: String,
    /// True when the note is a warning (something was corrupt).
    pub degraded: bool,
}

/// Reads the saved state, or sets it aside with `no_restore`. A snapshot
/// from a newer version is an error: nothing is touched and the server
/// must not start.
pub fn load(state_dir: &StateDir, no_restore: bool) -> Result<Restore, RestoreError> {
    if no_restore {
        let note = match state_dir.set_aside()? {
            Some(path) => format!(
                "started empty (--no-restore); the saved snapshot was set aside as {}",
                path.display()
            ),
            None => "started empty (--no-restore); there was no saved snapshot".to_string(),
        };
        info!("{note}");
        return Ok(Restore {
            snapshot: None,
            note,
            degraded: false,
        });
    }
    let outcome = state_dir.load()?;
    if let LoadOutcome::FutureVersion {
        path,
        found,
        supported,
    } = outcome
    {
        return Err(RestoreError::FutureSnapshot {
            path,
            found,
            supported,
        });
    }
    let warning = outcome.warning();
    let snapshot = match outcome {
        LoadOutcome::Restored(snapshot) | LoadOutcome::Recovered { snapshot, .. } => Some(snapshot),
        _ => None,
    };
    let restored = match &snapshot {
        Some(s) => format!(
            "restored {} workspaces, {} tabs and {} panes",
            s.workspaces.len(),
            s.tabs.len(),
            s.panes.len()
        ),
        None => "no saved snapshot; started empty".to_string(),
    };
    let (note, degraded) = match warning {
        Some(warning) => {
            error!("SNAPSHOT PROBLEM: {warning}");
            (format!("{warning}; {restored}"), true)
        }
        None => {
            info!("{restored}");
            (restored, false)
        }
    };
    Ok(Restore {
        snapshot,
        note,
        degraded,
    })
}

/// The config file's word on `auto_resume` wins over the saved value.
pub fn apply_config(snapshot: &mut Snapshot, config: &Config) {
    for ws in &mut snapshot.workspaces {
        if let Some(on) = config.auto_resume(&ws.name) {
            ws.auto_resume = on;
        }
    }
}

/// A pane whose worktree was deleted while no server ran comes back
/// EXITED, saying so, rather than as a pane that would run in another
/// directory; its workspace's worktree is marked gone too. Only a few
/// stats, before anything is spawned.
pub fn mark_gone_worktrees(snapshot: &mut Snapshot) {
    let gone = |w: &mut Option<WorktreeRecord>| match w {
        Some(w) if !std::path::Path::new(&w.path).is_dir() => {
            w.gone = true;
            Some(w.path.clone())
        }
        _ => None,
    };
    for ws in &mut snapshot.workspaces {
        if let Some(path) = gone(&mut ws.worktree) {
            warn!(workspace = %ws.id, path, "a workspace's worktree is gone");
        }
    }
    for pane in &mut snapshot.panes {
        let Some(path) = gone(&mut pane.worktree) else {
            continue;
        };
        warn!(pane = %pane.id, path, "a pane's worktree is gone; it comes back EXITED");
        pane.running = false;
        pane.last_message = Some(sanitize(&gone_message(&path), MAX_BODY_CHARS));
    }
}

/// The arguments that rebuild every saved workspace, each pane loaded with
/// its tail before anything could overwrite it.
pub fn workspace_args(
    snapshot: &Snapshot,
    tails: &TailStore,
    context: &PaneContext,
    handed: &mut HashMap<String, HandedPane>,
) -> Vec<WorkspaceArgs> {
    snapshot
        .workspaces
        .iter()
        .map(|ws| WorkspaceArgs {
            record: ws.clone(),
            tabs: ws
                .tabs
                .iter()
                .filter_map(|id| snapshot.tab(id))
                .map(|tab| TabArgs {
                    record: tab.clone(),
                    panes: tab
                        .layout
                        .pane_ids()
                        .into_iter()
                        .filter_map(|id| snapshot.pane(id))
                        .map(|pane| match handed.remove(pane.id.as_str()) {
                            Some(pane) => PaneArgs {
                                record: pane.record.clone(),
                                start: PaneStart::Adopt(Box::new(pane)),
                                context: context.clone(),
                            },
                            None => tombstone(pane.clone().into_live(), tails, context),
                        })
                        .collect(),
                    context: context.clone(),
                })
                .collect(),
            context: context.clone(),
        })
        .collect()
}

/// A saved pane restored without a process, showing its saved tail.
fn tombstone(record: PaneRecord, tails: &TailStore, context: &PaneContext) -> PaneArgs {
    PaneArgs {
        start: PaneStart::Tombstone {
            state: restored_state(&record),
            tail: match tails.read(&record.id) {
                Ok(tail) => tail,
                Err(e) => {
                    warn!(pane = %record.id, error = %e, "could not read a tail");
                    None
                }
            },
        },
        record,
        context: context.clone(),
    }
}
