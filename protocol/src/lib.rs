//! The IPC protocol, shared by the server and every client.
//!
//! This crate owns the wire types and their framing, and where a client
//! finds the server's socket. Clients link this crate and nothing of the
//! server stack; it must never depend on actors, tokio or PTYs.
//!
//! Framing: newline-delimited JSON over a Unix socket, one request or
//! response per line, at most [`MAX_LINE`] bytes. A request is
//! `{"v":"signaltty/1","id":N,"method":"…","params":{…}}`; its response
//! carries the same `id` and either `result` or `error` with a stable
//! [`ErrorCode`]. Unknown fields are ignored (a newer client may send
//! more); a field that is present with the wrong type is `BAD_PARAMS`.
//!
//! Each method's parameters are a struct in [`params`]; the doc of each
//! says what the result holds, and [`limits`] bounds its strings.
//!
//! `pane.attach` is the one method that changes the connection: after its
//! JSON reply, both directions carry binary [`frame`]s until either side
//! closes.

pub mod config_path;
pub mod limits;
pub mod schema;
pub mod socket_path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The record types the wire carries, named here so clients need no other
/// crate to read them.
pub use signaltty_persistence::{Attention, Branch, Direction, Layout, Lifecycle};

/// The protocol version every envelope carries.
pub const PROTOCOL: &str = "signaltty/1";
/// The longest line either side accepts.
pub const MAX_LINE: usize = 16 * 1024 * 1024;

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Request {
    pub v: String,
    pub id: u64,
    pub method: String,
    #[serde(default)]
    pub params: Value,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Response {
    pub v: String,
    /// The request's id; absent when the request was too broken to have one.
    #[serde(default)]
    pub id: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<WireError>,
}

impl Response {
    pub fn ok(id: u64, result: Value) -> Response {
        Response {
            v: PROTOCOL.to_string(),
            id: Some(id),
            result: Some(result),
            error: None,
        }
    }

    pub fn err(id: Option<u64>, error: WireError) -> Response {
        Response {
            v: PROTOCOL.to_string(),
            id,
            result: None,
            error: Some(error),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, thiserror::Error)]
#[error("{message}")]
pub struct WireError {
    pub code: ErrorCode,
    pub message: String,
}

impl WireError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> WireError {
        WireError {
            code,
            message: message.into(),
        }
    }
}

/// Stable error codes: clients branch on these, so they never change
/// meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// The line is not a JSON request envelope.
    BadRequest,
    /// The envelope's `v` is not [`PROTOCOL`].
    BadVersion,
    LineTooLong,
    UnknownMethod,
    BadParams,
    NoSuchPane,
    NoSuchTab,
    NoSuchWorkspace,
    PaneNotLive,
    NameTaken,
    SpawnFailed,
    /// The request is understood but not allowed (e.g. faults disabled).
    Refused,
    /// The server could not answer in time, or is shutting down.
    Unavailable,
    Internal,
    /// A bound was reached: a pane's input queue stayed full until the
    /// deadline, or the server holds as many connections or as much
    /// unfinished input as it accepts. Try again later.
    Busy,
    /// A `pane.wait` whose condition did not hold in time.
    TimedOut,
    /// An agent waits at a permission, trust or question prompt, which
    /// the request would answer; answer it first.
    Blocked,
    /// A code from a newer server.
    #[serde(other)]
    Unknown,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadRequest => "BAD_REQUEST",
            ErrorCode::BadVersion => "BAD_VERSION",
            ErrorCode::LineTooLong => "LINE_TOO_LONG",
            ErrorCode::UnknownMethod => "UNKNOWN_METHOD",
            ErrorCode::BadParams => "BAD_PARAMS",
            ErrorCode::NoSuchPane => "NO_SUCH_PANE",
            ErrorCode::NoSuchTab => "NO_SUCH_TAB",
            ErrorCode::NoSuchWorkspace => "NO_SUCH_WORKSPACE",
            ErrorCode::PaneNotLive => "PANE_NOT_LIVE",
            ErrorCode::NameTaken => "NAME_TAKEN",
            ErrorCode::SpawnFailed => "SPAWN_FAILED",
            ErrorCode::Refused => "REFUSED",
            ErrorCode::Unavailable => "UNAVAILABLE",
            ErrorCode::Internal => "INTERNAL",
            ErrorCode::Busy => "BUSY",
            ErrorCode::TimedOut => "TIMED_OUT",
            ErrorCode::Blocked => "BLOCKED",
            ErrorCode::Unknown => "UNKNOWN",
        }
    }
}

/// Method names.
pub mod method {
    pub const STATUS: &str = "status";
    pub const LS: &str = "ls";
    pub const WORKSPACE_NEW: &str = "workspace.new";
    pub const WORKSPACE_SET: &str = "workspace.set";
    pub const WORKSPACE_CLOSE: &str = "workspace.close";
    pub const TAB_NEW: &str = "tab.new";
    pub const TAB_CLOSE: &str = "tab.close";
    pub const PANE_NEW: &str = "pane.new";
    pub const PANE_SEND: &str = "pane.send";
    pub const PANE_READ: &str = "pane.read";
    pub const PANE_CLOSE: &str = "pane.close";
    pub const PANE_KILL: &str = "pane.kill";
    pub const PANE_RESIZE: &str = "pane.resize";
    pub const PANE_RESUME: &str = "pane.resume";
    pub const PANE_RESPAWN: &str = "pane.respawn";
    pub const PANE_REPORT_SESSION: &str = "pane.report_session";
    pub const PANE_ATTACH: &str = "pane.attach";
    pub const SUBSCRIBE: &str = "subscribe";
    pub const NOTIFY: &str = "notify";
    pub const NOTIFICATIONS: &str = "notifications";
    pub const NEXT: &str = "next";
    pub const PANE_SEEN: &str = "pane.seen";
    pub const PANE_HOOK: &str = "pane.hook";
    pub const SHUTDOWN: &str = "shutdown";
    pub const DEBUG_PANIC: &str = "debug.panic";
    pub const RENAME: &str = "rename";
    pub const FOCUS: &str = "focus";
    pub const TAB_SPLIT_RATIO: &str = "tab.split_ratio";
    pub const PANE_SWAP: &str = "pane.swap";
    pub const PANE_BREAK: &str = "pane.break";
    pub const PANE_MOVE: &str = "pane.move";
    pub const PANE_EXPLAIN: &str = "pane.explain";
    pub const PANE_WAIT: &str = "pane.wait";
    pub const PANE_SEND_KEYS: &str = "pane.send_keys";
    pub const AGENT_START: &str = "agent.start";
    pub const AGENT_PROMPT: &str = "agent.prompt";
    pub const EVENTS: &str = "events";
    pub const AGENT_WAIT: &str = "agent.wait";
}

/// Parameters of each method. Workspaces are named by id or name, tabs and
/// panes by id or a unique id prefix.
pub mod params {
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    /// `status` → [`super::StatusReply`]; `ls` → [`super::LsReply`];
    /// `shutdown` → `{}`. None of them take parameters.
    #[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
    pub struct Empty {}

    /// → `{"id"}` of the new workspace.
    #[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
    pub struct WorkspaceNew {
        pub name: String,
        #[serde(default)]
        pub cwd: Option<String>,
        #[serde(default)]
        pub auto_resume: bool,
        /// A new git worktree (and branch) of this name, made from the
        /// repository holding `cwd`: it becomes the workspace's directory.
        #[serde(default)]
        pub worktree: Option<String>,
    }

    impl WorkspaceNew {
        /// A workspace in the client's current directory.
        pub fn here(name: impl Into<String>) -> WorkspaceNew {
            WorkspaceNew {
                name: name.into(),
                cwd: std::env::current_dir()
                    .ok()
                    .map(|d| d.display().to_string()),
                auto_resume: false,
                worktree: None,
            }
        }
    }

    /// → `{}`.
    #[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
    pub struct WorkspaceSet {
        pub workspace: String,
        #[serde(default)]
        pub auto_resume: Option<bool>,
    }

    /// `workspace.close` → [`super::ClosedReply`]. With
    /// `remove_worktree`, the worktrees its panes ran in are removed too
    /// (refused, closing nothing, while one has uncommitted changes, unless
    /// `force`, or while a pane elsewhere uses it).
    #[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
    pub struct Workspace {
        pub workspace: String,
        #[serde(default)]
        pub remove_worktree: bool,
        #[serde(default)]
        pub force: bool,
    }

    /// → `{"id", "pane_id"}`: the new tab and its first pane.
    #[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
    pub struct TabNew {
        pub workspace: String,
        #[serde(default)]
        pub title: Option<String>,
        #[serde(default)]
        pub cwd: Option<String>,
        /// The first pane's command; empty for the default shell.
        #[serde(default)]
        pub argv: Vec<String>,
    }

    /// `tab.close` → `{}`.
    #[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
    pub struct Tab {
        pub tab: String,
    }

    /// → `{"id"}` of the new pane.
    #[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
    pub struct PaneNew {
        pub workspace: String,
        #[serde(default)]
        pub tab: Option<String>,
        /// The pane to split; the tab's active pane when absent.
        #[serde(default)]
        pub split: Option<String>,
        #[serde(default)]
        pub direction: Option<String>,
        #[serde(default)]
        pub cwd: Option<String>,
        #[serde(default)]
        pub title: Option<String>,
        /// Empty for the default shell.
        #[serde(default)]
        pub argv: Vec<String>,
        #[serde(default)]
        pub rows: Option<u16>,
        #[serde(default)]
        pub cols: Option<u16>,
        /// A new git worktree (and branch) of this name, made from the
        /// repository holding the pane's directory (`cwd`, else the
        /// workspace's): the pane runs there.
        #[serde(default)]
        pub worktree: Option<String>,
    }

    /// `pane.close` → [`super::ClosedReply`]. With `remove_worktree`, the
    /// pane's worktree is removed too (refused, closing nothing, while it
    /// has uncommitted changes, unless `force`, or while another pane uses
    /// it); without it the worktree is kept.
    #[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
    pub struct PaneClose {
        pub pane: String,
        #[serde(default)]
        pub remove_worktree: bool,
        #[serde(default)]
        pub force: bool,
    }

    /// → `{}`.
    #[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
    pub struct PaneSend {
        pub pane: String,
        pub text: String,
        /// Append a carriage return, as the Enter key does.
        #[serde(default)]
        pub enter: bool,
    }

    /// → [`super::ReadReply`]: the screen, or at most one of `tail`,
    /// `scrollback`, `all`, `since`.
    #[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
    pub struct PaneRead {
        pub pane: String,
        /// The last N lines of scrollback and screen instead of the screen.
        #[serde(default)]
        pub tail: Option<usize>,
        /// The screen and the N lines of scrollback above it.
        #[serde(default)]
        pub scrollback: Option<usize>,
        /// All the scrollback and the screen.
        #[serde(default)]
        pub all: bool,
        /// The rows completed since this offset (from an earlier reply).
        #[serde(default)]
        pub since: Option<u64>,
        /// Keep colours as SGR escape sequences.
        #[serde(default)]
        pub ansi: bool,
    }

    /// `pane.resume`, `pane.respawn`, `pane.seen` → `{}`.
    #[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
    pub struct Pane {
        pub pane: String,
    }

    /// → `{}`.
    #[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
    pub struct PaneKill {
        pub pane: String,
        /// A signal name such as `TERM`, `KILL`, `INT`, `HUP`; TERM if absent.
        #[serde(default)]
        pub signal: Option<String>,
        /// Signal the pane's whole process group, not just its child.
        #[serde(default)]
        pub group: bool,
    }

    /// → `{}`. Only with faults enabled: `target` is a pane, tab or
    /// workspace, or `snapshot` or `listener`, whose actor then panics.
    #[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
    pub struct DebugPanic {
        pub target: String,
    }

    /// → `{}`. The id is checked by the agent kind's adapter.
    #[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
    pub struct ReportSession {
        pub pane: String,
        pub session_id: String,
        /// The agent kind; the pane's known or detected kind if absent.
        #[serde(default)]
        pub agent: Option<String>,
    }

    /// → [`super::AttachReply`], then binary [`super::frame`]s.
    #[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
    pub struct PaneAttach {
        pub pane: String,
        /// The client's size; the pane takes it (the last client to attach
        /// or resize wins).
        #[serde(default)]
        pub rows: Option<u16>,
        #[serde(default)]
        pub cols: Option<u16>,
        /// Attaching counts as having seen the pane, unless this is set.
        #[serde(default)]
        pub keep_attention: bool,
        /// What a client that falls behind is sent.
        #[serde(default)]
        pub catch_up: super::CatchUp,
    }

    /// What kind of thing a [`Rename`] or [`Focus`] target names.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum TargetKind {
        Workspace,
        Tab,
        Pane,
    }

    impl TargetKind {
        pub fn as_str(self) -> &'static str {
            match self {
                TargetKind::Workspace => "workspace",
                TargetKind::Tab => "tab",
                TargetKind::Pane => "pane",
            }
        }
    }

    /// → `{"kind", "id"}` of what was renamed. Without `kind`, `target` is
    /// looked up as a workspace (id or name), then a tab, then a pane (id
    /// or unique prefix); a target that fits more than one kind is refused.
    /// A pane's name is kept over any title its program sets; an empty name
    /// gives the pane back its program's title. Tabs and workspaces need a
    /// non-empty name, and a workspace's must be unique.
    #[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
    pub struct Rename {
        pub target: String,
        #[serde(default)]
        pub kind: Option<TargetKind>,
        pub name: String,
    }

    /// → `{}`. Makes the target the current one at every level: a pane its
    /// tab's active pane, that tab its workspace's active tab, and the
    /// workspace the one used last (where a multiplexer reopens).
    #[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
    pub struct Focus {
        pub target: String,
        #[serde(default)]
        pub kind: Option<TargetKind>,
    }

    /// → `{"ratio"}` as clamped. Sets the share of the first child of the
    /// split reached from the root of the tab's layout by `path`.
    #[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
    pub struct SplitRatio {
        pub tab: String,
        #[serde(default)]
        pub path: Vec<signaltty_persistence::Branch>,
        pub ratio: f32,
    }

    /// → [`super::SwapReply`]. Trades the places of two panes of one
    /// workspace, in one tab or two (tmux swap-pane); both keep running
    /// and each keeps its focus.
    #[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
    pub struct PaneSwap {
        pub pane: String,
        pub with: String,
    }

    /// → [`super::BreakReply`]. Moves a running pane out of its tab into a
    /// new tab of its own, which becomes the active tab (tmux break-pane).
    #[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
    pub struct PaneBreak {
        pub pane: String,
        /// The new tab's title [default: `Tab N`].
        #[serde(default)]
        pub title: Option<String>,
    }

    /// → [`super::MoveReply`]. Moves a running pane into another tab of
    /// its workspace (tmux join-pane / move-pane), beside `split` (else
    /// that tab's active pane) in `direction` (else `right`); it becomes
    /// the active pane. A tab left with no pane closes.
    #[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
    pub struct PaneMove {
        pub pane: String,
        pub tab: String,
        #[serde(default)]
        pub split: Option<String>,
        #[serde(default)]
        pub direction: Option<signaltty_persistence::Direction>,
    }

    /// → `{"id"}` of the notification. Without a pane it concerns no pane.
    #[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
    pub struct Notify {
        #[serde(default)]
        pub pane: Option<String>,
        /// `info`, `warning` or `error`.
        #[serde(default)]
        pub severity: Option<String>,
        pub title: String,
        #[serde(default)]
        pub body: String,
    }

    /// → [`super::NotificationsReply`], newest last.
    #[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
    pub struct Notifications {
        #[serde(default)]
        pub unread: bool,
    }

    /// → `{}`. What the agent's hook said; the fields come from its JSON.
    #[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
    pub struct PaneHook {
        pub pane: String,
        pub agent: String,
        pub event: String,
        #[serde(default)]
        pub session_id: Option<String>,
        #[serde(default)]
        pub message: Option<String>,
    }

    /// → [`super::ExplainReply`]: a pane's agent kind, state and why; or,
    /// with `screen` instead of `pane`, a saved screen read with `agent`'s
    /// rules (the server's, overrides included).
    #[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
    pub struct PaneExplain {
        #[serde(default)]
        pub pane: Option<String>,
        /// The screen's text, at most [`MAX_EXPLAIN_SCREEN`] bytes.
        #[serde(default)]
        pub screen: Option<String>,
        #[serde(default)]
        pub title: Option<String>,
        #[serde(default)]
        pub agent: Option<String>,
    }

    /// The largest screen `pane.explain` reads.
    pub const MAX_EXPLAIN_SCREEN: usize = 1024 * 1024;

    /// The longest `pane.wait` text pattern.
    pub const MAX_WAIT_PATTERN: usize = 4096;

    /// → [`super::WaitReply`] once exactly one of `exit`, `lifecycle` or
    /// `text` (a regular expression, matched against each line of the
    /// screen and of new output) holds; `TIMED_OUT` after `timeout_ms`.
    /// The wait is given up when the client closes the connection (or
    /// shuts down its writing half).
    #[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
    pub struct PaneWait {
        pub pane: String,
        #[serde(default)]
        pub exit: bool,
        #[serde(default)]
        pub lifecycle: Option<String>,
        #[serde(default)]
        pub text: Option<String>,
        #[serde(default)]
        pub timeout_ms: Option<u64>,
    }

    /// The most keys one `pane.send_keys` sends.
    pub const MAX_SEND_KEYS: usize = 256;

    /// → `{}`. Each key is a name (`enter`, `esc`, `shift+tab`, `ctrl+c`,
    /// `up`, `f5`, one character…), encoded as the pane's program asked
    /// (cursor keys follow DECCKM).
    #[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
    pub struct PaneSendKeys {
        pub pane: String,
        pub keys: Vec<String>,
    }

    /// The longest `agent.start` wait for the agent's prompt.
    pub const MAX_START_TIMEOUT_MS: u64 = 60 * 60 * 1000;

    /// → [`super::AgentStartReply`] once the agent's input prompt is on
    /// screen; `BLOCKED` (the pane kept) when it waits at a dialog first,
    /// `SPAWN_FAILED` (the pane closed) with what it printed when it ends,
    /// `TIMED_OUT` (the pane kept) when it is not ready in time.
    #[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
    pub struct AgentStart {
        /// An agent kind: `claude`, `codex`, `gemini`…
        pub kind: String,
        /// The workspace (id or name); without one, the only workspace
        /// there is, or a new `default` when there is none.
        #[serde(default)]
        pub workspace: Option<String>,
        #[serde(default)]
        pub cwd: Option<String>,
        /// A git worktree to create and run the agent in.
        #[serde(default)]
        pub worktree: Option<String>,
        /// Arguments after the agent's program.
        #[serde(default)]
        pub args: Vec<String>,
        /// 60 s when absent.
        #[serde(default)]
        pub timeout_ms: Option<u64>,
    }

    /// The longest prompt `agent.prompt` types.
    pub const MAX_PROMPT_BYTES: usize = 256 * 1024;

    /// → [`super::PromptReply`]. `BLOCKED` while the agent waits at a
    /// dialog; `BUSY` while it works, unless `queue`, which holds the
    /// prompt until it is next idle.
    #[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
    pub struct AgentPrompt {
        pub pane: String,
        pub text: String,
        #[serde(default)]
        pub queue: bool,
    }

    /// → [`super::WaitReply`] once the agent's work is over: it is idle
    /// or done with no prompt of `agent.prompt` still to start a turn
    /// (`turn_end`), or it waits at a dialog (`blocked`), or it ended
    /// (`exit`); `TIMED_OUT` after `timeout_ms`.
    #[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
    pub struct AgentWait {
        pub pane: String,
        #[serde(default)]
        pub timeout_ms: Option<u64>,
    }

    /// → `{}`, then one [`super::EventLine`] per line, pushed as panes
    /// change, for as long as the client reads; of one pane only with
    /// `pane`.
    #[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
    pub struct Events {
        #[serde(default)]
        pub pane: Option<String>,
    }

    /// → `{"rows", "cols"}` as clamped.
    #[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
    pub struct PaneResize {
        pub pane: String,
        pub rows: u16,
        pub cols: u16,
    }
}

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
    /// `LIVE`, `RESTORED`, `RESUMABLE` or `EXITED`.
    State { state: String, previous: String },
    Lifecycle {
        lifecycle: signaltty_persistence::Lifecycle,
        previous: signaltty_persistence::Lifecycle,
    },
    Attention {
        attention: signaltty_persistence::Attention,
        previous: signaltty_persistence::Attention,
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

/// What an attached client that falls behind is sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CatchUp {
    /// Exactly the bytes it missed, from the pane's output ring (a fresh
    /// screen only when the ring has moved past them): for a client whose
    /// own terminal keeps the pane's history.
    #[default]
    Exact,
    /// A fresh screen at once, a short queue, and while output pours at
    /// most one picture a frame (~60 a second) instead of the bytes: for
    /// a client that draws the screen and asks the server for history
    /// (the multiplexer), so a flood costs it pictures, not every byte.
    Screen,
}

/// What bringing back a pane with no process runs: the `r` a client offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Revive {
    pub action: ReviveAction,
    /// The command it will run.
    pub argv: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReviveAction {
    /// The agent's official resume command (`pane.resume`).
    Resume,
    /// The pane's saved command again (`pane.respawn`).
    Respawn,
}

impl ReviveAction {
    /// The method that does it.
    pub fn method(self) -> &'static str {
        match self {
            ReviveAction::Resume => method::PANE_RESUME,
            ReviveAction::Respawn => method::PANE_RESPAWN,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ReviveAction::Resume => "resume",
            ReviveAction::Respawn => "respawn",
        }
    }
}

impl Revive {
    /// `resume: claude --resume 0b5…` — one line for an offer.
    pub fn describe(&self) -> String {
        format!("{}: {}", self.action.as_str(), self.argv.join(" "))
    }
}

/// The JSON reply to `pane.attach`, before the frames start.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AttachReply {
    pub pane: String,
    /// `LIVE`, `RESTORED`, `RESUMABLE` or `EXITED`.
    pub state: String,
    #[serde(default)]
    pub exit_code: Option<i32>,
    /// The output offset the first snapshot frame ends at.
    pub offset: u64,
    pub rows: u16,
    pub cols: u16,
    /// For a pane with no process: what `r` runs.
    #[serde(default)]
    pub revive: Option<Revive>,
}

/// The payload of a [`frame::STATE`] frame.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct StateFrame {
    pub state: String,
    #[serde(default)]
    pub exit_code: Option<i32>,
    /// For a pane with no process: what `r` runs.
    #[serde(default)]
    pub revive: Option<Revive>,
}

/// Binary frames of an attached connection: one byte of kind, four bytes
/// of big-endian payload length, the payload.
pub mod frame {
    pub const HEADER: usize = 5;
    /// The largest payload either side accepts.
    pub const MAX_PAYLOAD: usize = 16 * 1024 * 1024;

    /// Server → client: PTY output, continuing the stream in order.
    pub const OUTPUT: u8 = 1;
    /// Server → client: escape sequences that repaint the whole screen.
    pub const SNAPSHOT: u8 = 2;
    /// Server → client: a [`super::StateFrame`] as JSON.
    pub const STATE: u8 = 3;
    /// Server → client: the size (rows then cols, u16 big-endian) of the
    /// screen the next [`SNAPSHOT`] paints. Sent before every snapshot.
    pub const SIZE: u8 = 4;
    /// Client → server: keystrokes for the pane.
    pub const INPUT: u8 = 11;
    /// Client → server: the client's size, rows then cols, u16 big-endian.
    pub const RESIZE: u8 = 12;

    pub fn encode(kind: u8, payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER + payload.len());
        out.extend_from_slice(&header(kind, payload.len()));
        out.extend_from_slice(payload);
        out
    }

    /// The header of a frame of `kind` whose payload is `len` bytes long,
    /// for a sender that writes the payload from where it already is.
    pub fn header(kind: u8, len: usize) -> [u8; HEADER] {
        let [a, b, c, d] = u32::try_from(len).unwrap_or(u32::MAX).to_be_bytes();
        [kind, a, b, c, d]
    }

    /// The kind and payload length of a header; an error for a payload
    /// larger than [`MAX_PAYLOAD`].
    pub fn parse_header(header: [u8; HEADER]) -> Result<(u8, usize), String> {
        let len = u32::from_be_bytes([header[1], header[2], header[3], header[4]]) as usize;
        if len > MAX_PAYLOAD {
            return Err(format!(
                "a frame of {len} bytes is larger than {MAX_PAYLOAD}"
            ));
        }
        Ok((header[0], len))
    }

    pub fn resize(rows: u16, cols: u16) -> Vec<u8> {
        sized(RESIZE, rows, cols)
    }

    /// A [`SIZE`] frame.
    pub fn size(rows: u16, cols: u16) -> Vec<u8> {
        sized(SIZE, rows, cols)
    }

    fn sized(kind: u8, rows: u16, cols: u16) -> Vec<u8> {
        let mut payload = rows.to_be_bytes().to_vec();
        payload.extend_from_slice(&cols.to_be_bytes());
        encode(kind, &payload)
    }

    /// The rows and cols of a [`RESIZE`] or [`SIZE`] payload.
    pub fn parse_resize(payload: &[u8]) -> Option<(u16, u16)> {
        match payload {
            [r0, r1, c0, c1] => Some((
                u16::from_be_bytes([*r0, *r1]),
                u16::from_be_bytes([*c0, *c1]),
            )),
            _ => None,
        }
    }
}

/// The result of a method that only says it was done.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Done {}

/// The result of a method that made something: its id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct IdReply {
    pub id: String,
}

/// The result of `tab.new`: the tab and its first pane.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TabNewReply {
    pub id: String,
    pub pane_id: String,
}

/// The result of `pane.resize`: the size as clamped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ResizeReply {
    pub rows: u16,
    pub cols: u16,
}

/// The result of `rename`: what was renamed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RenameReply {
    pub kind: params::TargetKind,
    pub id: String,
}

/// The result of `tab.split_ratio`: the ratio as clamped.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RatioReply {
    pub ratio: f32,
}

/// The result of `pane.swap`: the tab each pane is in now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SwapReply {
    pub pane: String,
    pub tab: String,
    pub with: String,
    pub with_tab: String,
}

/// The result of `pane.break`: the pane's new tab.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BreakReply {
    pub pane: String,
    pub tab: String,
}

/// The result of `pane.move`: where the pane is, and the tab that closed
/// because it left it empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MoveReply {
    pub pane: String,
    pub tab: String,
    pub closed_tab: Option<String>,
}

/// The result of `pane.read`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ReadReply {
    pub text: String,
    /// Where `since` reads on from: the rows the primary screen has
    /// completed (the cursor is below them) so far.
    pub offset: u64,
    /// Rows after `since` that the scrollback no longer holds.
    #[serde(default)]
    pub missed: u64,
}

/// The result of `agent.start`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AgentStartReply {
    /// The new pane, its agent ready for a prompt.
    pub id: String,
    pub tab: String,
    pub workspace: String,
    pub kind: String,
    /// The session id preset at launch, where the agent takes one.
    #[serde(default)]
    pub session_id: Option<String>,
    pub cwd: String,
    /// The git worktree made for it (`--worktree`).
    #[serde(default)]
    pub worktree: Option<LsWorktree>,
}

/// The result of `agent.prompt`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PromptReply {
    /// `sent`, or `queued` until the agent is idle.
    pub prompt: String,
    /// The prompt's place in the pane's queue, from 1, when queued.
    #[serde(default)]
    pub position: Option<usize>,
}

/// The result of `notifications`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct NotificationsReply {
    pub notifications: Vec<signaltty_persistence::NotificationRecord>,
}

/// The result of `next`: the pane that needs the user most, if any.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct NextReply {
    pub pane: Option<LsPane>,
    #[serde(default)]
    pub workspace: Option<String>,
}

/// The result of `status`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct StatusReply {
    pub version: String,
    pub protocol: String,
    pub pid: u32,
    pub socket: String,
    pub state_dir: String,
    pub uptime_ms: u64,
    pub workspaces: usize,
    pub tabs: usize,
    pub panes: usize,
    pub live_panes: usize,
    pub faults_enabled: bool,
    pub snapshot: SnapshotStatusReply,
    /// What start found on disk and did about it.
    pub restore: RestoreStatusReply,
    /// What the previous server left running, and what start did about it.
    #[serde(default)]
    pub orphans: OrphansStatusReply,
}

/// Processes a dead server left running in its panes' sessions, found at
/// start and ended (TERM, then KILL after a grace).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct OrphansStatusReply {
    pub found: usize,
    /// Ended by TERM.
    pub terminated: usize,
    /// Ended by KILL.
    pub killed: usize,
    /// Still running after KILL.
    pub survived: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RestoreStatusReply {
    pub note: String,
    /// True when the saved state was corrupt or set aside by a problem.
    pub degraded: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SnapshotStatusReply {
    pub path: String,
    pub writes: u64,
    #[serde(default)]
    pub last_saved_at: Option<u64>,
    #[serde(default)]
    pub last_error: Option<String>,
    /// The last failed tail write, until every pending tail is written.
    #[serde(default)]
    pub tail_error: Option<String>,
}

/// The result of `ls`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct LsReply {
    pub workspaces: Vec<LsWorkspace>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct LsWorkspace {
    pub id: String,
    pub name: String,
    pub cwd: String,
    pub auto_resume: bool,
    /// The worktree made for it (`workspace new --worktree`).
    #[serde(default)]
    pub worktree: Option<LsWorktree>,
    /// The most severe attention of its panes.
    pub attention: signaltty_persistence::Attention,
    pub tabs: Vec<LsTab>,
    #[serde(default)]
    pub active_tab: Option<String>,
    /// When a client last focused something in it (ms since the epoch).
    #[serde(default)]
    pub last_used_at: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct LsTab {
    pub id: String,
    pub title: String,
    pub layout: signaltty_persistence::Layout,
    pub panes: Vec<LsPane>,
    #[serde(default)]
    pub active_pane: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct LsPane {
    pub id: String,
    /// What tells the pane apart: the user's name for it, else its agent's
    /// kind, else its foreground command, else its program's title.
    #[serde(default)]
    pub name: String,
    /// The user's name for it, else the title its program set.
    pub title: String,
    pub cwd: String,
    pub argv: Vec<String>,
    /// `LIVE`, `RESTORED`, `RESUMABLE` or `EXITED`.
    pub state: String,
    pub agent: Option<LsAgent>,
    pub lifecycle: signaltty_persistence::Lifecycle,
    pub attention: signaltty_persistence::Attention,
    pub exit_code: Option<i32>,
    #[serde(default)]
    pub last_message: Option<String>,
    /// The git worktree it runs in, when signaltty made it.
    #[serde(default)]
    pub worktree: Option<LsWorktree>,
}

/// A git worktree signaltty made, as last seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LsWorktree {
    pub path: String,
    /// Its branch, as last seen.
    pub branch: String,
    /// The repository's main working tree.
    #[serde(default)]
    pub repo: String,
    /// Uncommitted changes, as last seen (looked at every few seconds while
    /// a client shows the pane).
    #[serde(default)]
    pub dirty: bool,
    /// Its directory was found missing.
    #[serde(default)]
    pub gone: bool,
}

/// The result of `pane.close` and `workspace.close`: what became of the
/// worktrees the closed panes ran in.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct ClosedReply {
    #[serde(default)]
    pub worktrees: Vec<ClosedWorktree>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ClosedWorktree {
    pub path: String,
    pub branch: String,
    /// Removed (`git worktree remove`); else kept on disk, with its branch.
    pub removed: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct LsAgent {
    pub kind: String,
    pub session_id: Option<String>,
    /// The agent ran inside the pane's shell and has ended.
    #[serde(default)]
    pub ended: bool,
}

/// The result of `pane.explain`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ExplainReply {
    /// The agent kind whose rules were read (`generic`: none).
    pub kind: String,
    /// What the screen shows: `working`, `blocked (permission)`,
    /// `blocked (input)`, `idle`, or `unknown`.
    pub state: String,
    /// The pane's lifecycle (absent for a saved screen).
    #[serde(default)]
    pub lifecycle: Option<signaltty_persistence::Lifecycle>,
    #[serde(default)]
    pub rule: Option<String>,
    pub evidence: Vec<String>,
    /// Where the rules came from: bundled, or the override file's path.
    pub rules: String,
    /// The foreground process's command line, when known.
    #[serde(default)]
    pub foreground: Option<Vec<String>>,
    #[serde(default)]
    pub session_id: Option<String>,
    /// The agent's file the session id was read from.
    #[serde(default)]
    pub session_file: Option<String>,
    /// How many `pane.wait` requests wait on the pane.
    #[serde(default)]
    pub waiting: usize,
}

/// The result of `pane.wait`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct WaitReply {
    /// `exit`, `lifecycle` or `text`; for `agent.wait`, `turn_end`,
    /// `blocked` or `exit`.
    pub met: String,
    /// For `turn_end`: `idle` or `done`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifecycle: Option<signaltty_persistence::Lifecycle>,
    /// For `text`: the line that matched.
    #[serde(default)]
    pub line: Option<String>,
    /// For `exit`: the exit code, when the process ended on its own.
    #[serde(default)]
    pub exit_code: Option<i32>,
}

/// What `signaltty sessions --json` prints: every session of this user,
/// running or only saved. Not a server method: the client reads it off the
/// disk and asks each running server (a remote one through `ssh … sessions
/// --json`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SessionsReply {
    /// The default session first, then the others by name.
    pub sessions: Vec<SessionEntry>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SessionEntry {
    pub name: String,
    /// Its server answered.
    pub running: bool,
    #[serde(default)]
    pub pid: Option<u32>,
    pub socket: String,
    pub state_dir: String,
    pub workspaces: usize,
    pub tabs: usize,
    pub panes: usize,
    /// Panes with a process (only a running server has any).
    pub live_panes: usize,
    #[serde(default)]
    pub last_saved_at: Option<u64>,
    /// What is wrong with its saved state or its server, if anything.
    #[serde(default)]
    pub problem: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelopes_round_trip() {
        let request = Request {
            v: PROTOCOL.into(),
            id: 7,
            method: method::PANE_SEND.into(),
            params: serde_json::json!({"pane": "ab", "text": "hi", "enter": true}),
        };
        let line = serde_json::to_string(&request).unwrap();
        let back: Request = serde_json::from_str(&line).unwrap();
        assert_eq!(back.id, 7);
        let send: params::PaneSend = serde_json::from_value(back.params).unwrap();
        assert!(send.enter);

        let response = Response::err(Some(7), WireError::new(ErrorCode::NoSuchPane, "no pane ab"));
        let line = serde_json::to_string(&response).unwrap();
        assert!(line.contains("\"NO_SUCH_PANE\""), "{line}");
        let back: Response = serde_json::from_str(&line).unwrap();
        assert_eq!(back.error.unwrap().code, ErrorCode::NoSuchPane);
    }

    #[test]
    fn unknown_fields_are_ignored_and_mistyped_ones_refused() {
        let ok: params::PaneSend =
            serde_json::from_str(r#"{"pane":"a","text":"b","from_the_future":1}"#).unwrap();
        assert_eq!(ok.pane, "a");
        assert!(
            serde_json::from_str::<params::PaneSend>(r#"{"pane":"a","text":"b","enter":"yes"}"#)
                .is_err()
        );
    }

    #[test]
    fn fields_an_older_peer_leaves_out_take_their_defaults() {
        let attach: params::PaneAttach = serde_json::from_str(r#"{"pane":"p"}"#).unwrap();
        assert_eq!(attach.catch_up, CatchUp::Exact);
        let reply: AttachReply =
            serde_json::from_str(r#"{"pane":"p","state":"LIVE","offset":0,"rows":2,"cols":2}"#)
                .unwrap();
        assert!(reply.revive.is_none());
        let ws: LsWorkspace = serde_json::from_str(
            r#"{"id":"w","name":"n","cwd":"/","auto_resume":false,"attention":"none","tabs":[]}"#,
        )
        .unwrap();
        assert_eq!((ws.active_tab, ws.last_used_at), (None, 0));
        assert!(ws.worktree.is_none());
        let pane: LsPane = serde_json::from_str(
            r#"{"id":"p","title":"t","cwd":"/","argv":[],"state":"LIVE","agent":null,
                "lifecycle":"unknown","attention":"none","exit_code":null}"#,
        )
        .unwrap();
        assert!(pane.worktree.is_none());
        let close: params::PaneClose = serde_json::from_str(r#"{"pane":"p"}"#).unwrap();
        assert!(!close.remove_worktree && !close.force);
        let new: params::PaneNew = serde_json::from_str(r#"{"workspace":"w"}"#).unwrap();
        assert!(new.worktree.is_none());
        let closed: ClosedReply = serde_json::from_str("{}").unwrap();
        assert!(closed.worktrees.is_empty());
    }

    #[test]
    fn the_revive_offer_and_the_new_requests_round_trip() {
        let frame = StateFrame {
            state: "EXITED".into(),
            exit_code: Some(0),
            revive: Some(Revive {
                action: ReviveAction::Resume,
                argv: vec!["claude".into(), "--resume".into(), "x".into()],
            }),
        };
        let text = serde_json::to_string(&frame).unwrap();
        assert!(text.contains(r#""action":"resume""#), "{text}");
        let back: StateFrame = serde_json::from_str(&text).unwrap();
        let revive = back.revive.unwrap();
        assert_eq!(revive.describe(), "resume: claude --resume x");
        assert_eq!(revive.action.method(), method::PANE_RESUME);
        let ratio: params::SplitRatio =
            serde_json::from_str(r#"{"tab":"t","path":["second","first"],"ratio":0.3}"#).unwrap();
        assert_eq!(ratio.path, vec![Branch::Second, Branch::First]);
        let rename: params::Rename =
            serde_json::from_str(r#"{"target":"t","kind":"workspace","name":"n"}"#).unwrap();
        assert_eq!(rename.kind, Some(params::TargetKind::Workspace));
        assert!(
            serde_json::from_str::<params::Focus>(r#"{"target":"t","kind":"window"}"#).is_err()
        );
        assert_eq!(
            frame::parse_resize(&frame::size(3, 4)[frame::HEADER..]),
            Some((3, 4))
        );
    }

    #[test]
    fn an_unknown_error_code_still_parses() {
        let e: WireError =
            serde_json::from_str(r#"{"code":"SOMETHING_NEW","message":"m"}"#).unwrap();
        assert_eq!(e.code, ErrorCode::Unknown);
    }
}
