//! What the server knows of a pane and its agent, typed: the live model's
//! records. The snapshot on disk has records of its own
//! (`signaltty-persistence`'s `SavedPane`, `SavedAgent`) that convert to
//! and from these at the persistence edge, so the disk format can keep a
//! field as text for a newer build's sake while the server reads types.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::agent::AgentKind;
use crate::id::{PaneId, TabId, WorkspaceId};
use crate::records::{Attention, Lifecycle, Millis};

/// The size of a pane's terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PtySize {
    pub rows: u16,
    pub cols: u16,
}

impl Default for PtySize {
    fn default() -> Self {
        PtySize { rows: 24, cols: 80 }
    }
}

/// A pane: where it sits, what it runs and what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaneRecord {
    pub id: PaneId,
    pub workspace_id: WorkspaceId,
    pub tab_id: TabId,
    pub title: String,
    /// A title the user chose: output from the pane cannot rename it.
    pub user_title: Option<String>,
    pub cwd: String,
    pub argv: Vec<String>,
    /// Only the variables the persistence crate's `filter_env` lets
    /// through.
    pub env: BTreeMap<String, String>,
    pub pty_size: PtySize,
    pub agent: Option<AgentRecord>,
    pub lifecycle: Lifecycle,
    /// When `lifecycle` last changed.
    pub lifecycle_at: Millis,
    pub attention: Attention,
    /// When `attention` was last raised or cleared.
    pub attention_at: Millis,
    pub last_message: Option<String>,
    pub created_at: Millis,
    /// Whether the child process was running when this record was saved.
    pub running: bool,
    /// The child's exit code, once it has ended.
    pub exit_code: Option<i32>,
    /// The last process the pane started, so that what is left of it after
    /// the server died can be found and ended at the next start.
    pub process: Option<ProcessRecord>,
    /// The git worktree the pane runs in, when signaltty made it (`new
    /// --worktree`) or the pane started inside one it made.
    pub worktree: Option<WorktreeRecord>,
    /// When its agent was put to sleep (`ctl hibernate`): the process ended
    /// on purpose, and the pane comes back HIBERNATED, woken by a resume.
    pub hibernated_at: Option<Millis>,
    /// Kept awake: it never hibernates (`ctl pin`).
    pub pinned: bool,
}

impl PaneRecord {
    /// A pane record with every optional field at its default.
    pub fn new(
        id: impl Into<String>,
        workspace_id: impl Into<String>,
        tab_id: impl Into<String>,
    ) -> PaneRecord {
        PaneRecord {
            id: PaneId::trusted(id),
            workspace_id: WorkspaceId::trusted(workspace_id),
            tab_id: TabId::trusted(tab_id),
            title: String::new(),
            user_title: None,
            cwd: String::new(),
            argv: Vec::new(),
            env: BTreeMap::new(),
            pty_size: PtySize::default(),
            agent: None,
            lifecycle: Lifecycle::default(),
            lifecycle_at: 0,
            attention: Attention::default(),
            attention_at: 0,
            last_message: None,
            created_at: 0,
            running: false,
            exit_code: None,
            process: None,
            worktree: None,
            hibernated_at: None,
            pinned: false,
        }
    }

    /// The kind of agent the record names (`Generic` for none, or for one
    /// this build does not know).
    pub fn agent_kind(&self) -> AgentKind {
        self.agent
            .as_ref()
            .map_or(AgentKind::Generic, |agent| agent.kind.or_generic())
    }
}

/// What the server knows about the agent CLI running in a pane.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentRecord {
    pub kind: RecordedKind,
    pub agent_session_id: Option<String>,
    /// A resume command the agent reported about itself. It only ever runs
    /// on an explicit resume, never by itself.
    pub resume_argv: Option<Vec<String>>,
    pub model: Option<String>,
    /// The agent was found running inside the pane's own program (a shell)
    /// and has since ended: the pane is that program again, and the session
    /// id is kept so the agent can still be resumed.
    pub ended: bool,
}

impl AgentRecord {
    /// A record of a `kind` agent whose session is not known yet.
    pub fn of(kind: AgentKind) -> AgentRecord {
        AgentRecord {
            kind: RecordedKind::Known(kind),
            ..AgentRecord::default()
        }
    }
}

/// The agent kind a record names: one this build knows, or a name a newer
/// build wrote, kept as it was so a load and a save lose nothing. The 15
/// known kinds stay a plain [`AgentKind`] (a `Copy` value that indexes
/// their facts); only what a record carries can be unknown.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RecordedKind {
    Known(AgentKind),
    Unknown(String),
}

impl RecordedKind {
    /// Reads a saved name: a kind's name ([`AgentKind::as_str`], any ASCII
    /// case), else kept as unknown.
    pub fn from_name(name: String) -> RecordedKind {
        match name.parse() {
            Ok(kind) => RecordedKind::Known(kind),
            Err(_) => RecordedKind::Unknown(name),
        }
    }

    /// The kind, when this build knows it.
    pub fn known(&self) -> Option<AgentKind> {
        match self {
            RecordedKind::Known(kind) => Some(*kind),
            RecordedKind::Unknown(_) => None,
        }
    }

    /// The kind whose rules apply: an unknown one is read as `Generic`.
    pub fn or_generic(&self) -> AgentKind {
        self.known().unwrap_or(AgentKind::Generic)
    }

    /// The name, as saved and shown.
    pub fn as_str(&self) -> &str {
        match self {
            RecordedKind::Known(kind) => kind.as_str(),
            RecordedKind::Unknown(name) => name,
        }
    }
}

impl Default for RecordedKind {
    fn default() -> Self {
        RecordedKind::Known(AgentKind::Generic)
    }
}

impl From<AgentKind> for RecordedKind {
    fn from(kind: AgentKind) -> Self {
        RecordedKind::Known(kind)
    }
}

impl PartialEq<AgentKind> for RecordedKind {
    fn eq(&self, kind: &AgentKind) -> bool {
        self.known() == Some(*kind)
    }
}

impl fmt::Display for RecordedKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A git worktree signaltty made with `git worktree add`. Every field has a
/// default so a damaged record still loads; one without a path is dropped
/// by the snapshot's `normalize`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorktreeRecord {
    /// The worktree's directory.
    #[serde(default)]
    pub path: String,
    /// The branch it was made on, or the one it was last seen on.
    #[serde(default)]
    pub branch: String,
    /// The repository's main working tree, where `git worktree` runs.
    #[serde(default)]
    pub repo: String,
    /// It had uncommitted changes when last looked at.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dirty: bool,
    /// Its directory was found missing (deleted outside signaltty).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gone: bool,
}

/// Which process a pane ran. The pane's child leads its own session, so its
/// pid is also the session everything it started belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessRecord {
    /// The child's pid, which is its session id.
    pub session: i32,
    /// The child's start time in clock ticks after boot (`/proc/PID/stat`
    /// field 22): a later process with the same pid has another.
    pub start_ticks: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kind_this_build_does_not_know_keeps_its_name() {
        let kind = RecordedKind::from_name("hal9000".into());
        assert_eq!(kind, RecordedKind::Unknown("hal9000".into()));
        assert_eq!(kind.as_str(), "hal9000");
        assert_eq!(kind.or_generic(), AgentKind::Generic);
        assert_ne!(kind, AgentKind::Generic);
    }

    #[test]
    fn a_known_kind_reads_in_any_case() {
        let kind = RecordedKind::from_name("Claude".into());
        assert_eq!(kind, AgentKind::Claude);
        assert_eq!(kind.as_str(), "claude");
    }
}
