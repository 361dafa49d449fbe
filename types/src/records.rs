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
