//! The states a pane is in and the notifications it raises, as saved and
//! as every client is told them.

use serde::{Deserialize, Serialize};

/// Milliseconds since the Unix epoch.
pub type Millis = u64;

/// What the program in a pane is doing.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Lifecycle {
    Working,
    Blocked,
    Done,
    Idle,
    Failed,
    Exited,
    /// Also what a lifecycle from a newer version reads as (serde requires
    /// the catch-all to be the last variant).
    #[default]
    #[serde(other)]
    Unknown,
}

/// What a pane is, as shown to the user: whether a process runs in it
/// and, if not, what bringing it back would do. The server decides it; the
/// wire carries the names `LIVE`, `RESTORED`, `RESUMABLE`, `HIBERNATED`
/// and `EXITED`.
// No catch-all, unlike `Lifecycle`: a client acts on the state (only a
// `LIVE` pane takes keys, the others offer `r`), so a state it cannot name
// is refused rather than guessed at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PaneState {
    /// A child is running on the PTY.
    Live,
    /// Rebuilt after a restart; nothing runs.
    Restored,
    /// Restored, and its agent can be resumed with an official command.
    Resumable,
    /// Its agent was put to sleep to give its memory back: its session
    /// wakes through its official resume command (see `hibernate.rs`).
    Hibernated,
    /// The process ended, or the pane's actor failed and was replaced.
    Exited,
}

impl PaneState {
    /// The name the wire and every client show (the same as serde's).
    pub fn as_str(self) -> &'static str {
        match self {
            PaneState::Live => "LIVE",
            PaneState::Restored => "RESTORED",
            PaneState::Resumable => "RESUMABLE",
            PaneState::Hibernated => "HIBERNATED",
            PaneState::Exited => "EXITED",
        }
    }
}

impl std::fmt::Display for PaneState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `pad`, so a width in the format (`{:<9}`) lines columns up.
        f.pad(self.as_str())
    }
}

/// Whether the user needs to look at a pane. Variants are declared from the
/// least to the most severe, so `Ord` ranks them.
///
/// Unknown names (from a newer version) read as [`Attention::Unread`]:
/// something happened that this build cannot name, so the user should look.
/// serde only allows a catch-all on the last variant, which would break the
/// ordering, so reading goes through a private mirror enum.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case", from = "AttentionWire")]
pub enum Attention {
    #[default]
    None,
    Unread,
    Warning,
    InputRequired,
    PermissionRequired,
    Error,
}

/// The reading side of [`Attention`], with the catch-all last.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum AttentionWire {
    None,
    Unread,
    Warning,
    InputRequired,
    PermissionRequired,
    Error,
    #[serde(other)]
    Newer,
}

impl From<AttentionWire> for Attention {
    fn from(w: AttentionWire) -> Self {
        match w {
            AttentionWire::None => Attention::None,
            AttentionWire::Unread | AttentionWire::Newer => Attention::Unread,
            AttentionWire::Warning => Attention::Warning,
            AttentionWire::InputRequired => Attention::InputRequired,
            AttentionWire::PermissionRequired => Attention::PermissionRequired,
            AttentionWire::Error => Attention::Error,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NotificationRecord {
    pub id: u64,
    #[serde(default)]
    pub pane_id: Option<String>,
    #[serde(default)]
    pub workspace_id: Option<String>,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub body: String,
    #[serde(default)]
    pub severity: Severity,
    /// Where it came from: `osc9`, `osc777`, `bel`, `hook:claude`, `ctl`, …
    #[serde(default)]
    pub source: String,
    #[serde(default)]
    pub created_at: Millis,
    #[serde(default)]
    pub read_at: Option<Millis>,
}

#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Warning,
    Error,
    /// Also what a severity from a newer version reads as.
    #[default]
    #[serde(other)]
    Info,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pane_states_keep_their_wire_names_and_refuse_others() {
        let all = [
            (PaneState::Live, "LIVE"),
            (PaneState::Restored, "RESTORED"),
            (PaneState::Resumable, "RESUMABLE"),
            (PaneState::Hibernated, "HIBERNATED"),
            (PaneState::Exited, "EXITED"),
        ];
        for (state, name) in all {
            let json = serde_json::to_string(&state).unwrap();
            assert_eq!(json, format!("\"{name}\""));
            assert_eq!(
                (state.as_str(), state.to_string()),
                (name, name.to_string())
            );
            assert_eq!(serde_json::from_str::<PaneState>(&json).unwrap(), state);
        }
        assert_eq!(format!("[{:<9}]", PaneState::Live), "[LIVE     ]");
        for unknown in [r#""live""#, r#""ZOMBIE""#, r#""""#, "1"] {
            assert!(
                serde_json::from_str::<PaneState>(unknown).is_err(),
                "{unknown} must be refused"
            );
        }
    }
}
