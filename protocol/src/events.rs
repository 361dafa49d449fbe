//! Lines the server sends unasked on a `subscribe` or `events` connection.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::PROTOCOL;

/// A line the server sends unasked on a `subscribe` connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Event {
    pub v: String,
    /// `changed`: something a listing shows changed; ask `ls` again.
    pub event: String,
}

impl Event {
    pub fn changed() -> Event {
        Event {
            v: PROTOCOL.to_string(),
            event: "changed".to_string(),
        }
    }
}

/// A line of an `events` stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum EventLine {
    Pane(PaneEvent),
    /// The last line to a reader that fell too far behind: the server
    /// closes the stream after it.
    Dropped(EventsDropped),
}

/// Something that happened to a pane.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PaneEvent {
    /// When, in ms since the epoch.
    pub at: u64,
    pub pane: String,
    pub workspace: String,
    pub tab: String,
    #[serde(flatten)]
    pub change: PaneChange,
}

/// What happened, named by the line's `event`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum PaneChange {
    /// A pane was created.
    PaneNew { name: String, argv: Vec<String> },
    /// A pane was closed.
    PaneClosed,
    /// Its state changed (`LIVE`, `EXITED`…).
    State {
        state: signaltty_types::PaneState,
        previous: signaltty_types::PaneState,
    },
    Lifecycle {
        lifecycle: signaltty_types::Lifecycle,
        previous: signaltty_types::Lifecycle,
    },
    Attention {
        attention: signaltty_types::Attention,
        previous: signaltty_types::Attention,
    },
    /// Its process ended (with its code, 128 + the signal for a signal).
    Exit { exit_code: Option<i32> },
    /// An agent was found in it, or the one in it ended (`ended`).
    Agent { kind: String, ended: bool },
    /// Its agent's session id was learned.
    Session { kind: String, session_id: String },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EventsDropped {
    /// Always `dropped`.
    pub event: String,
    pub at: u64,
    pub reason: String,
}
