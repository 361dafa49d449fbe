//! The snapshot schema, version 1.
//!
//! These are plain serde records: what the server writes and what a later
//! server reads back. Every field a later version might add or drop carries a
//! serde default, so an older file still loads; unknown fields are ignored.
//! Workspaces, tabs and panes are flat lists that refer to each other by id,
//! so one broken reference is detected by [`Snapshot::validate`] instead of
//! silently dropping a subtree.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use signaltty_types::id::{PaneId, TabId, WorkspaceId};
pub use signaltty_types::layout::{Branch, Direction, Layout, MAX_RATIO, MIN_RATIO};
use signaltty_types::pane::{AgentRecord, PaneRecord, RecordedKind};
pub use signaltty_types::pane::{ProcessRecord, PtySize, WorktreeRecord};
pub use signaltty_types::records::{Attention, Lifecycle, Millis, NotificationRecord, Severity};
pub use signaltty_types::sleep::SleepAfter;

/// The snapshot format this build writes and the newest it can read.
pub const SNAPSHOT_VERSION: u32 = 1;

/// How many notifications a snapshot keeps (the newest ones).
pub const MAX_NOTIFICATIONS: usize = 200;

/// One whole saved state of the server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub snapshot_version: u32,
    #[serde(default)]
    pub server: ServerInfo,
    #[serde(default)]
    pub workspaces: Vec<WorkspaceRecord>,
    #[serde(default)]
    pub tabs: Vec<TabRecord>,
    #[serde(default)]
    pub panes: Vec<SavedPane>,
    #[serde(default)]
    pub notifications: Vec<NotificationRecord>,
}

impl Default for Snapshot {
    fn default() -> Self {
        Snapshot::empty()
    }
}

impl Snapshot {
    /// A snapshot of a server with nothing open, in the current format.
    pub fn empty() -> Snapshot {
        Snapshot {
            snapshot_version: SNAPSHOT_VERSION,
            server: ServerInfo::default(),
            workspaces: Vec::new(),
            tabs: Vec::new(),
            panes: Vec::new(),
            notifications: Vec::new(),
        }
    }

    /// Repairs what can be repaired without guessing, so that small damage
    /// (a hand edit, an older writer) does not make a whole file corrupt:
    /// ratios are clamped, notifications capped, and an active tab or pane
    /// that no longer exists falls back to the first one. Broken references
    /// between records are left for [`Snapshot::validate`] to reject.
    pub fn normalize(&mut self) {
        for tab in &mut self.tabs {
            tab.layout.normalize();
            let active_ok = tab
                .active_pane_id
                .as_deref()
                .is_some_and(|id| tab.layout.contains(id));
            if !active_ok {
                tab.active_pane_id = tab.layout.pane_ids().first().map(|id| PaneId::trusted(*id));
            }
        }
        for ws in &mut self.workspaces {
            let active_ok = ws
                .active_tab_id
                .as_deref()
                .is_some_and(|id| ws.tabs.iter().any(|t| t == id));
            if !active_ok {
                ws.active_tab_id = ws.tabs.first().cloned();
            }
        }
        self.cap_notifications();
        let pathless = |w: &Option<WorktreeRecord>| w.as_ref().is_some_and(|w| w.path.is_empty());
        for ws in &mut self.workspaces {
            if pathless(&ws.worktree) {
                ws.worktree = None;
            }
        }
        for pane in &mut self.panes {
            if pathless(&pane.worktree) {
                pane.worktree = None;
            }
        }
    }

    /// Keeps the newest [`MAX_NOTIFICATIONS`] by `created_at`. When trimming
    /// is needed the survivors end up ordered by `created_at`; among equal
    /// times the one later in the list counts as newer and the list order is
    /// kept. A list within the cap is left exactly as it is.
    pub fn cap_notifications(&mut self) {
        if self.notifications.len() <= MAX_NOTIFICATIONS {
            return;
        }
        self.notifications.sort_by_key(|n| n.created_at);
        let excess = self.notifications.len() - MAX_NOTIFICATIONS;
        self.notifications.drain(..excess);
    }

    pub fn workspace(&self, id: &str) -> Option<&WorkspaceRecord> {
        self.workspaces.iter().find(|w| w.id == id)
    }

    pub fn tab(&self, id: &str) -> Option<&TabRecord> {
        self.tabs.iter().find(|t| t.id == id)
    }

    pub fn pane(&self, id: &str) -> Option<&SavedPane> {
        self.panes.iter().find(|p| p.id == id)
    }

    /// Every pane id, for [`crate::StateDir::sweep`]'s live set.
    pub fn pane_ids(&self) -> std::collections::HashSet<String> {
        self.panes.iter().map(|p| p.id.to_string()).collect()
    }
}

/// Which server wrote the snapshot, and when.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerInfo {
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub saved_at: Millis,
    #[serde(default)]
    pub protocol: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkspaceRecord {
    pub id: WorkspaceId,
    pub name: String,
    #[serde(default)]
    pub cwd: String,
    /// Tab ids in display order.
    #[serde(default)]
    pub tabs: Vec<TabId>,
    #[serde(default)]
    pub active_tab_id: Option<TabId>,
    /// Resume this workspace's RESUMABLE agent panes by themselves on start.
    #[serde(default)]
    pub auto_resume: bool,
    #[serde(default)]
    pub created_at: Millis,
    /// When a client last focused something in it: the multiplexer reopens
    /// the workspace used last.
    #[serde(default)]
    pub last_used_at: Millis,
    /// The git worktree made for this workspace (`workspace new
    /// --worktree`): its `cwd`, which its new panes share.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<WorktreeRecord>,
    /// How long its idle agents stay awake, over the config's `[hibernate]
    /// after`. A value this build cannot read (a newer one's) reads as
    /// unset rather than losing the workspace.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "unless_unreadable"
    )]
    pub hibernate_after: Option<SleepAfter>,
}

/// `T`, or `None` for a value that does not read as one.
fn unless_unreadable<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    let value = serde_json::Value::deserialize(deserializer)?;
    Ok(serde_json::from_value(value).ok())
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TabRecord {
    pub id: TabId,
    pub workspace_id: WorkspaceId,
    #[serde(default)]
    pub title: String,
    pub layout: Layout,
    #[serde(default)]
    pub active_pane_id: Option<PaneId>,
}

/// A pane as saved. It converts to and from the live model's
/// [`PaneRecord`] at the edge (see [`SavedPane::from_live`] and
/// [`SavedPane::into_live`]); the agent's kind is kept as text here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedPane {
    pub id: PaneId,
    pub workspace_id: WorkspaceId,
    pub tab_id: TabId,
    #[serde(default)]
    pub title: String,
    /// A title the user chose: output from the pane cannot rename it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_title: Option<String>,
    #[serde(default)]
    pub cwd: String,
    #[serde(default)]
    pub argv: Vec<String>,
    /// Only the variables [`crate::env::filter_env`] lets through.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub pty_size: PtySize,
    #[serde(default)]
    pub agent: Option<SavedAgent>,
    #[serde(default)]
    pub lifecycle: Lifecycle,
    /// When `lifecycle` last changed.
    #[serde(default)]
    pub lifecycle_at: Millis,
    #[serde(default)]
    pub attention: Attention,
    /// When `attention` was last raised or cleared.
    #[serde(default)]
    pub attention_at: Millis,
    #[serde(default)]
    pub last_message: Option<String>,
    #[serde(default)]
    pub created_at: Millis,
    /// Whether the child process was running when this record was saved.
    #[serde(default)]
    pub running: bool,
    /// The child's exit code, once it has ended.
    #[serde(default)]
    pub exit_code: Option<i32>,
    /// The last process the pane started, so that what is left of it after
    /// the server died can be found and ended at the next start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process: Option<ProcessRecord>,
    /// The git worktree the pane runs in, when signaltty made it (`new
    /// --worktree`) or the pane started inside one it made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<WorktreeRecord>,
    /// When its agent was put to sleep (`ctl hibernate`): the process ended
    /// on purpose, and the pane comes back HIBERNATED, woken by a resume.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hibernated_at: Option<Millis>,
    /// Kept awake: it never hibernates (`ctl pin`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pinned: bool,
}

impl WorkspaceRecord {
    /// A workspace with no tabs yet.
    pub fn new(id: impl Into<String>, name: impl Into<String>) -> WorkspaceRecord {
        WorkspaceRecord {
            id: WorkspaceId::trusted(id),
            name: name.into(),
            cwd: String::new(),
            tabs: Vec::new(),
            active_tab_id: None,
            auto_resume: false,
            created_at: 0,
            last_used_at: 0,
            worktree: None,
            hibernate_after: None,
        }
    }
}

impl TabRecord {
    /// A tab whose layout is the single pane `pane_id`, which is active.
    pub fn new(
        id: impl Into<String>,
        workspace_id: impl Into<String>,
        pane_id: impl Into<String>,
    ) -> TabRecord {
        let pane_id = pane_id.into();
        TabRecord {
            id: TabId::trusted(id),
            workspace_id: WorkspaceId::trusted(workspace_id),
            title: String::new(),
            layout: Layout::pane(pane_id.clone()),
            active_pane_id: Some(PaneId::trusted(pane_id)),
        }
    }
}

impl SavedPane {
    /// A saved pane with every optional field at its default.
    pub fn new(
        id: impl Into<String>,
        workspace_id: impl Into<String>,
        tab_id: impl Into<String>,
    ) -> SavedPane {
        SavedPane::from_live(&PaneRecord::new(id, workspace_id, tab_id))
    }

    /// What is saved of a live pane.
    pub fn from_live(pane: &PaneRecord) -> SavedPane {
        SavedPane {
            id: pane.id.clone(),
            workspace_id: pane.workspace_id.clone(),
            tab_id: pane.tab_id.clone(),
            title: pane.title.clone(),
            user_title: pane.user_title.clone(),
            cwd: pane.cwd.clone(),
            argv: pane.argv.clone(),
            env: pane.env.clone(),
            pty_size: pane.pty_size,
            agent: pane.agent.as_ref().map(SavedAgent::from_live),
            lifecycle: pane.lifecycle,
            lifecycle_at: pane.lifecycle_at,
            attention: pane.attention,
            attention_at: pane.attention_at,
            last_message: pane.last_message.clone(),
            created_at: pane.created_at,
            running: pane.running,
            exit_code: pane.exit_code,
            process: pane.process,
            worktree: pane.worktree.clone(),
            hibernated_at: pane.hibernated_at,
            pinned: pane.pinned,
        }
    }

    /// The live pane a saved one describes.
    pub fn into_live(self) -> PaneRecord {
        PaneRecord {
            id: self.id,
            workspace_id: self.workspace_id,
            tab_id: self.tab_id,
            title: self.title,
            user_title: self.user_title,
            cwd: self.cwd,
            argv: self.argv,
            env: self.env,
            pty_size: self.pty_size,
            agent: self.agent.map(SavedAgent::into_live),
            lifecycle: self.lifecycle,
            lifecycle_at: self.lifecycle_at,
            attention: self.attention,
            attention_at: self.attention_at,
            last_message: self.last_message,
            created_at: self.created_at,
            running: self.running,
            exit_code: self.exit_code,
            process: self.process,
            worktree: self.worktree,
            hibernated_at: self.hibernated_at,
            pinned: self.pinned,
        }
    }
}

impl SavedAgent {
    /// What is saved of a live pane's agent.
    pub fn from_live(agent: &AgentRecord) -> SavedAgent {
        SavedAgent {
            kind: agent.kind.as_str().to_string(),
            agent_session_id: agent.agent_session_id.clone(),
            resume_argv: agent.resume_argv.clone(),
            model: agent.model.clone(),
            ended: agent.ended,
        }
    }

    /// The live agent record a saved one describes: a kind this build
    /// does not know keeps its name.
    pub fn into_live(self) -> AgentRecord {
        AgentRecord {
            kind: RecordedKind::from_name(self.kind),
            agent_session_id: self.agent_session_id,
            resume_argv: self.resume_argv,
            model: self.model,
            ended: self.ended,
        }
    }
}

/// A pane's agent as saved.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedAgent {
    /// An adapter kind name (`claude`, `codex`, …); kept as text so a kind
    /// this build does not know survives a load and save.
    pub kind: String,
    #[serde(default)]
    pub agent_session_id: Option<String>,
    /// A resume command the agent reported about itself. It only ever runs on
    /// an explicit resume, never by itself.
    #[serde(default)]
    pub resume_argv: Option<Vec<String>>,
    #[serde(default)]
    pub model: Option<String>,
    /// The agent was found running inside the pane's own program (a shell)
    /// and has since ended: the pane is that program again, and the session
    /// id is kept so the agent can still be resumed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ended: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sleep_window_this_build_cannot_read_leaves_the_workspace_whole() {
        let text = r#"{"id":"w1","name":"api","hibernate_after":"3 fortnights"}"#;
        let record: WorkspaceRecord = serde_json::from_str(text).unwrap();
        assert_eq!(record.name, "api");
        assert_eq!(record.hibernate_after, None);
        let text = r#"{"id":"w1","name":"api","hibernate_after":"20m"}"#;
        let record: WorkspaceRecord = serde_json::from_str(text).unwrap();
        assert_eq!(
            record.hibernate_after,
            Some(SleepAfter::After(std::time::Duration::from_secs(1200)))
        );
    }

    #[test]
    fn a_pane_goes_live_and_back_unchanged_even_with_an_unknown_agent() {
        let text = r#"{"id":"p1","workspace_id":"w1","tab_id":"t1","argv":["hal"],
            "agent":{"kind":"hal9000","agent_session_id":"s1","ended":true},"pinned":true}"#;
        let saved: SavedPane = serde_json::from_str(text).unwrap();
        let live = saved.clone().into_live();
        let agent = live.agent.as_ref().unwrap();
        assert_eq!(agent.kind, RecordedKind::Unknown("hal9000".into()));
        assert_eq!(live.agent_kind(), signaltty_types::AgentKind::Generic);
        assert_eq!(SavedPane::from_live(&live), saved);
        let known = r#"{"id":"p1","workspace_id":"w1","tab_id":"t1","agent":{"kind":"codex"}}"#;
        let live = serde_json::from_str::<SavedPane>(known)
            .unwrap()
            .into_live();
        assert_eq!(live.agent_kind(), signaltty_types::AgentKind::Codex);
    }
}
