//! Parameters of each method. Workspaces are named by id or name, tabs and
//! panes by id or a unique id prefix.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::text::{Text, Words, field};

/// `status` → [`super::StatusReply`]; `ls` → [`super::LsReply`];
/// `shutdown` → `{}`. None of them take parameters.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct Empty {}

/// → `{"id"}` of the new workspace.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct WorkspaceNew {
    pub name: Text<field::WorkspaceName>,
    #[serde(default)]
    pub cwd: Option<Text<field::Cwd>>,
    #[serde(default)]
    pub auto_resume: bool,
    /// A new git worktree (and branch) of this name, made from the
    /// repository holding `cwd`: it becomes the workspace's directory.
    #[serde(default)]
    pub worktree: Option<Text<field::WorktreeName>>,
}

impl WorkspaceNew {
    /// A workspace in the client's current directory.
    pub fn here(name: impl Into<String>) -> WorkspaceNew {
        WorkspaceNew {
            name: Text::from(name.into()),
            cwd: std::env::current_dir()
                .ok()
                .map(|d| d.display().to_string().into()),
            auto_resume: false,
            worktree: None,
        }
    }
}

/// → `{}`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct WorkspaceSet {
    pub workspace: Text<field::Workspace>,
    #[serde(default)]
    pub auto_resume: Option<bool>,
    /// How long its idle agents stay awake (`off`, `20m`), over the
    /// config's `[hibernate] after`.
    #[serde(default)]
    pub hibernate_after: Option<signaltty_types::SleepAfter>,
}

/// `workspace.close` → [`super::ClosedReply`]. With
/// `remove_worktree`, the worktrees its panes ran in are removed too
/// (refused, closing nothing, while one has uncommitted changes, unless
/// `force`, or while a pane elsewhere uses it).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Workspace {
    pub workspace: Text<field::Workspace>,
    #[serde(default)]
    pub remove_worktree: bool,
    #[serde(default)]
    pub force: bool,
}

/// → `{"id", "pane_id"}`: the new tab and its first pane.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TabNew {
    pub workspace: Text<field::Workspace>,
    #[serde(default)]
    pub title: Option<Text<field::TabTitle>>,
    #[serde(default)]
    pub cwd: Option<Text<field::Cwd>>,
    /// The first pane's command; empty for the default shell.
    #[serde(default)]
    pub argv: Words<field::Command>,
}

/// `tab.close` → `{}`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Tab {
    pub tab: Text<field::Tab>,
}

/// → `{"id"}` of the new pane.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct PaneNew {
    pub workspace: Text<field::Workspace>,
    #[serde(default)]
    pub tab: Option<Text<field::Tab>>,
    /// The pane to split; the tab's active pane when absent.
    #[serde(default)]
    pub split: Option<Text<field::Split>>,
    #[serde(default, deserialize_with = "crate::names::strict")]
    pub direction: Option<crate::Direction>,
    #[serde(default)]
    pub cwd: Option<Text<field::Cwd>>,
    #[serde(default)]
    pub title: Option<Text<field::PaneTitle>>,
    /// Empty for the default shell.
    #[serde(default)]
    pub argv: Words<field::Command>,
    #[serde(default)]
    pub rows: Option<u16>,
    #[serde(default)]
    pub cols: Option<u16>,
    /// A new git worktree (and branch) of this name, made from the
    /// repository holding the pane's directory (`cwd`, else the
    /// workspace's): the pane runs there.
    #[serde(default)]
    pub worktree: Option<Text<field::WorktreeName>>,
}

/// `pane.close` → [`super::ClosedReply`]. With `remove_worktree`, the
/// pane's worktree is removed too (refused, closing nothing, while it
/// has uncommitted changes, unless `force`, or while another pane uses
/// it); without it the worktree is kept.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PaneClose {
    pub pane: Text<field::Pane>,
    #[serde(default)]
    pub remove_worktree: bool,
    #[serde(default)]
    pub force: bool,
}

/// → `{}`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PaneSend {
    pub pane: Text<field::Pane>,
    pub text: String,
    /// Append a carriage return, as the Enter key does.
    #[serde(default)]
    pub enter: bool,
}

/// → [`super::ReadReply`]: the screen, or at most one of `tail`,
/// `scrollback`, `all`, `since`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct PaneRead {
    pub pane: Text<field::Pane>,
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

/// `pane.pin` → `{}`: a pinned pane never hibernates.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PanePin {
    pub pane: Text<field::Pane>,
    pub pinned: bool,
}

/// `pane.resume`, `pane.respawn`, `pane.seen` → `{}`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Pane {
    pub pane: Text<field::Pane>,
}

/// → `{}`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PaneKill {
    pub pane: Text<field::Pane>,
    /// TERM if absent.
    #[serde(default)]
    pub signal: Option<crate::Signal>,
    /// Signal the pane's whole process group, not just its child.
    #[serde(default)]
    pub group: bool,
}

/// → `{}`. Only with faults enabled: `target` is a pane, tab or
/// workspace, or `snapshot` or `listener`, whose actor then panics.
#[cfg(any(debug_assertions, feature = "fault-injection"))]
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DebugPanic {
    pub target: Text<field::Target>,
}

/// → [`super::UpgradeReply`], sent by the server that took over; an error
/// (from the server that stays) if nothing changed.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct Upgrade {
    /// The program to hand over to; by default the one the server was
    /// started from, looked up afresh (so the file `cargo install` just
    /// replaced).
    #[serde(default)]
    pub binary: Option<Text<field::Binary>>,
}

/// → `{}`. The id is checked by the agent kind's adapter.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ReportSession {
    pub pane: Text<field::Pane>,
    pub session_id: Text<field::SessionId>,
    /// The agent kind; the pane's known or detected kind if absent.
    #[serde(default, deserialize_with = "crate::names::strict")]
    pub agent: Option<crate::AgentKind>,
}

/// → [`super::AttachReply`], then binary [`super::frame`]s.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct PaneAttach {
    pub pane: Text<field::Pane>,
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
    pub target: Text<field::Target>,
    #[serde(default)]
    pub kind: Option<TargetKind>,
    pub name: Text<field::NewName>,
}

/// → `{}`. Makes the target the current one at every level: a pane its
/// tab's active pane, that tab its workspace's active tab, and the
/// workspace the one used last (where a multiplexer reopens).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Focus {
    pub target: Text<field::Target>,
    #[serde(default)]
    pub kind: Option<TargetKind>,
}

/// → `{"ratio"}` as clamped. Sets the share of the first child of the
/// split reached from the root of the tab's layout by `path`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SplitRatio {
    pub tab: Text<field::Tab>,
    #[serde(default, deserialize_with = "crate::text::split_path")]
    pub path: Vec<signaltty_types::Branch>,
    pub ratio: f32,
}

/// → [`super::SwapReply`]. Trades the places of two panes of one
/// workspace, in one tab or two (tmux swap-pane); both keep running and
/// each keeps its focus.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PaneSwap {
    pub pane: Text<field::Pane>,
    pub with: Text<field::With>,
}

/// → [`super::BreakReply`]. Moves a running pane out of its tab into a new
/// tab of its own, which becomes the active tab (tmux break-pane).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PaneBreak {
    pub pane: Text<field::Pane>,
    /// The new tab's title [default: `Tab N`].
    #[serde(default)]
    pub title: Option<Text<field::TabTitle>>,
}

/// → [`super::MoveReply`]. Moves a running pane into another tab of its
/// workspace (tmux join-pane / move-pane), beside `split` (else that tab's
/// active pane) in `direction` (else `right`); it becomes the active pane.
/// A tab left with no pane closes.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PaneMove {
    pub pane: Text<field::Pane>,
    pub tab: Text<field::Tab>,
    #[serde(default)]
    pub split: Option<Text<field::Split>>,
    #[serde(default, deserialize_with = "crate::names::strict")]
    pub direction: Option<crate::Direction>,
}

/// → `{"id"}` of the notification. Without a pane it concerns no pane.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Notify {
    #[serde(default)]
    pub pane: Option<Text<field::Pane>>,
    /// `info` when absent.
    #[serde(default, deserialize_with = "crate::names::strict")]
    pub severity: Option<crate::Severity>,
    pub title: Text<field::NotificationTitle>,
    #[serde(default)]
    pub body: Text<field::NotificationBody>,
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
    pub pane: Text<field::Pane>,
    #[serde(deserialize_with = "crate::names::strict_one")]
    pub agent: crate::AgentKind,
    pub event: Text<field::HookEvent>,
    #[serde(default)]
    pub session_id: Option<Text<field::SessionId>>,
    #[serde(default)]
    pub message: Option<Text<field::HookMessage>>,
    /// The payload's `type`: where an agent runs one hook for all its
    /// events (its data file's `[hook_relay]`), the event it reports.
    #[serde(default)]
    pub payload_type: Option<Text<field::HookEvent>>,
}

/// → [`super::ExplainReply`]: a pane's agent kind, state and why; or,
/// with `screen` instead of `pane`, a saved screen read with `agent`'s
/// rules (the server's, overrides included).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct PaneExplain {
    #[serde(default)]
    pub pane: Option<Text<field::Pane>>,
    /// The screen's text, at most [`crate::text::MAX_EXPLAIN_SCREEN`] bytes.
    #[serde(default)]
    pub screen: Option<Text<field::SavedScreen>>,
    #[serde(default)]
    pub title: Option<Text<field::ScreenTitle>>,
    #[serde(default, deserialize_with = "crate::names::strict")]
    pub agent: Option<crate::AgentKind>,
}

/// → [`super::WaitReply`] once exactly one of `exit`, `lifecycle` or
/// `text` (a regular expression, matched against each line of the
/// screen and of new output) holds; `TIMED_OUT` after `timeout_ms`.
/// The wait is given up when the client closes the connection (or
/// shuts down its writing half).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct PaneWait {
    pub pane: Text<field::Pane>,
    #[serde(default)]
    pub exit: bool,
    #[serde(default, deserialize_with = "crate::names::strict")]
    pub lifecycle: Option<crate::Lifecycle>,
    #[serde(default)]
    pub text: Option<Text<field::Pattern>>,
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
    pub pane: Text<field::Pane>,
    #[serde(deserialize_with = "crate::text::keys")]
    pub keys: Vec<Text<field::KeyName>>,
}

/// The longest `agent.start` wait for the agent's prompt.
pub const MAX_START_TIMEOUT_MS: u64 = 60 * 60 * 1000;

/// → [`super::AgentStartReply`] once the agent's input prompt is on
/// screen; `BLOCKED` (the pane kept) when it waits at a dialog first,
/// `SPAWN_FAILED` (the pane closed) with what it printed when it ends,
/// `TIMED_OUT` (the pane kept) when it is not ready in time.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AgentStart {
    /// An agent kind: `claude`, `codex`, `gemini`…
    #[serde(deserialize_with = "crate::names::strict_one")]
    pub kind: crate::AgentKind,
    /// The workspace (id or name); without one, the only workspace
    /// there is, or a new `default` when there is none.
    #[serde(default)]
    pub workspace: Option<Text<field::Workspace>>,
    #[serde(default)]
    pub cwd: Option<Text<field::Cwd>>,
    /// A git worktree to create and run the agent in.
    #[serde(default)]
    pub worktree: Option<Text<field::WorktreeName>>,
    /// Arguments after the agent's program.
    #[serde(default)]
    pub args: Words<field::AgentArgs>,
    /// 60 s when absent; at most [`MAX_START_TIMEOUT_MS`].
    #[serde(default, deserialize_with = "crate::text::start_timeout")]
    pub timeout_ms: Option<u64>,
}

/// → [`super::PromptReply`]. `BLOCKED` while the agent waits at a
/// dialog; `BUSY` while it works, unless `queue`, which holds the
/// prompt until it is next idle.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct AgentPrompt {
    pub pane: Text<field::Pane>,
    pub text: Text<field::Prompt>,
    #[serde(default)]
    pub queue: bool,
}

/// → [`super::WaitReply`] once the agent's work is over: it is idle
/// or done with no prompt of `agent.prompt` still to start a turn
/// (`turn_end`), or it waits at a dialog (`blocked`), or it ended
/// (`exit`); `TIMED_OUT` after `timeout_ms`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct AgentWait {
    pub pane: Text<field::Pane>,
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// → `{}`, then one [`super::EventLine`] per line, pushed as panes
/// change, for as long as the client reads; of one pane only with
/// `pane`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct Events {
    #[serde(default)]
    pub pane: Option<Text<field::Pane>>,
}

/// → `{"rows", "cols"}` as clamped.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PaneResize {
    pub pane: Text<field::Pane>,
    pub rows: u16,
    pub cols: u16,
}
