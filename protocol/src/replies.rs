//! What each method answers (see [`crate::schema::METHODS`] for which
//! answers what).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Call, Method, method, params};

/// What an attached client that falls behind is sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CatchUp {
    /// Exactly the bytes it missed, from the pane's output ring (a fresh
    /// screen only when the ring has moved past them): for a client whose
    /// own terminal must keep every byte of the pane's history
    /// (`attach --every-byte`).
    #[default]
    Exact,
    /// A fresh screen at once, a short queue, and while output pours at
    /// most one picture a frame (~60 a second) instead of the bytes: for
    /// a client that draws the screen and asks the server for history
    /// (the multiplexer), or shows the screen and lets a flood's bytes go
    /// (`attach`), so a flood costs it pictures, not every byte.
    Screen,
}

/// What bringing back a pane with no process runs: the `r` a client offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Revive {
    pub action: ReviveAction,
    /// The command it will run.
    pub argv: Vec<String>,
    /// For a resume: the words of the launch command it leaves out (not
    /// safe to repeat: a prompt, a one-shot flag…).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<String>,
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
    /// The request that does it to `pane`.
    pub fn call(self, pane: String) -> Call {
        let pane = params::Pane { pane: pane.into() };
        match self {
            ReviveAction::Resume => method::PaneResume::call(pane),
            ReviveAction::Respawn => method::PaneRespawn::call(pane),
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
    /// `resume: claude --resume 0b5… --model opus (drops: "fix it")` — one
    /// line for an offer.
    pub fn describe(&self) -> String {
        let command = format!("{}: {}", self.action.as_str(), self.argv.join(" "));
        if self.dropped.is_empty() {
            return command;
        }
        format!("{command} (drops: {})", shown_words(&self.dropped))
    }
}

/// Command-line words on one line, a word that is empty or holds a space
/// quoted so that where each ends can be seen: `--print "fix it"`.
pub fn shown_words(words: &[String]) -> String {
    let shown: Vec<String> = words
        .iter()
        .map(|word| {
            if word.is_empty() || word.contains(char::is_whitespace) {
                format!("{word:?}")
            } else {
                word.clone()
            }
        })
        .collect();
    shown.join(" ")
}

/// The JSON reply to `pane.attach`, before the frames start.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AttachReply {
    pub pane: String,
    pub state: signaltty_types::PaneState,
    #[serde(default)]
    pub exit_code: Option<i32>,
    /// The output offset the first snapshot frame ends at.
    pub offset: u64,
    pub rows: u16,
    pub cols: u16,
    /// For a pane with no process: what `r` runs.
    #[serde(default)]
    pub revive: Option<Revive>,
    /// What to send Shift+Enter as while the pane's program asks for no
    /// keyboard protocol: the key its agent reads as a new line (absent:
    /// Enter). Later changes come in [`StateFrame`]s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shift_enter_as: Option<signaltty_types::NewlineKey>,
}

/// The payload of a [`frame::STATE`] frame: sent when the pane's state or
/// what its program reads Shift+Enter as changes.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct StateFrame {
    pub state: signaltty_types::PaneState,
    #[serde(default)]
    pub exit_code: Option<i32>,
    /// For a pane with no process: what `r` runs.
    #[serde(default)]
    pub revive: Option<Revive>,
    /// As in [`AttachReply`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shift_enter_as: Option<signaltty_types::NewlineKey>,
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
    pub notifications: Vec<signaltty_types::NotificationRecord>,
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
    /// How many times this server process has handed itself over to a new
    /// binary (`upgrade`): a client that lost its connection and finds the
    /// same pid with a higher count knows it was an upgrade, not a crash,
    /// and reconnects.
    #[serde(default)]
    pub upgrades: u32,
}

/// The result of `upgrade`, from the server that took over.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct UpgradeReply {
    /// The version that was running, and the one that runs now.
    pub from_version: String,
    pub to_version: String,
    /// The binary now running.
    pub binary: String,
    /// Panes whose processes were carried over, of all panes.
    pub live_panes: usize,
    pub panes: usize,
    /// From the request to the new server answering.
    pub millis: u64,
    /// The same pid before and after: the processes stay its children.
    pub pid: u32,
    /// This server's handovers so far (see [`StatusReply::upgrades`]).
    pub upgrades: u32,
    /// Client connections (besides the caller's) open when it was asked
    /// for, which dropped at the exec; local clients reconnect by
    /// themselves.
    #[serde(default)]
    pub reconnecting: usize,
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
    /// How long its idle agents stay awake, where it set its own window
    /// (`workspace set --hibernate-after`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hibernate_after: Option<signaltty_types::SleepAfter>,
    /// The worktree made for it (`workspace new --worktree`).
    #[serde(default)]
    pub worktree: Option<LsWorktree>,
    /// The most severe attention of its panes.
    pub attention: signaltty_types::Attention,
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
    pub layout: signaltty_types::Layout,
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
    pub state: signaltty_types::PaneState,
    pub agent: Option<LsAgent>,
    pub lifecycle: signaltty_types::Lifecycle,
    pub attention: signaltty_types::Attention,
    pub exit_code: Option<i32>,
    #[serde(default)]
    pub last_message: Option<String>,
    /// The git worktree it runs in, when signaltty made it.
    #[serde(default)]
    pub worktree: Option<LsWorktree>,
    /// When its agent was put to sleep (milliseconds since the epoch),
    /// while it is HIBERNATED.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hibernated_at: Option<u64>,
    /// Kept awake: it never hibernates (`ctl pin`).
    #[serde(default)]
    pub pinned: bool,
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
    pub lifecycle: Option<signaltty_types::Lifecycle>,
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
    /// What a resume of the pane's agent would run, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume: Option<ResumeExplained>,
    /// How keys reach the pane's program: the keyboard protocol it asked
    /// for, and what Shift+Enter is sent as (absent for a saved screen).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<String>,
    /// Whether it may hibernate now, and if not why (absent for a saved
    /// screen).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sleep: Option<String>,
}

/// `ctl explain`'s word on a pane's resume.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ResumeExplained {
    /// The command a resume runs.
    pub argv: Vec<String>,
    /// The launch words it repeats (options and their values).
    #[serde(default)]
    pub kept: Vec<String>,
    /// The launch words it leaves out.
    #[serde(default)]
    pub dropped: Vec<String>,
}

/// The result of `pane.wait`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct WaitReply {
    /// `exit`, `lifecycle` or `text`; for `agent.wait`, `turn_end`,
    /// `blocked` or `exit`.
    pub met: String,
    /// For `turn_end`: `idle` or `done`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifecycle: Option<signaltty_types::Lifecycle>,
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
