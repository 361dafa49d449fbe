//! What a pane is asked, what it answers, and what it sends itself.

use std::time::Duration;

use ractor::{ActorRef, RpcReplyPort};
use signaltty_adapters::{self as adapters, AgentKind, HookEffect};
use signaltty_persistence::{PtySize, Severity};

use super::input::{InputPiece, InputQueue};
use super::process::ProcessEvent;
use super::subscribers::{CatchUp, PaneFrame, PaneStatus};
use super::{aware, prompt, wait, worktree};
use crate::error::ActorError;

/// What `read` returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadWhat {
    Screen,
    /// The last N lines of scrollback and screen.
    Tail(usize),
    /// The screen and N lines of scrollback above it.
    Scrollback(usize),
    /// The rows completed since an offset (see `Screen::rows_since`).
    Since(u64),
}

/// What `read` returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOut {
    pub text: String,
    /// Where an incremental read ([`ReadWhat::Since`]) continues.
    pub offset: u64,
    /// Rows since the offset asked for that the history no longer holds.
    pub missed: u64,
}

/// What an attaching client gets: the screen as it is and the stream that
/// continues from exactly there.
#[derive(Debug)]
pub struct Attached {
    /// The output offset the first frame's snapshot ends at.
    pub offset: u64,
    /// Where the client's keystrokes wait for the program.
    pub input: InputQueue,
    pub status: PaneStatus,
    pub size: PtySize,
    /// Starts with the snapshot, then output, in order.
    pub frames: tokio::sync::mpsc::Receiver<PaneFrame>,
}

/// What other actors and the server may ask of a pane, and (wrapped in
/// [`Internal`]) what the pane sends itself.
pub enum PaneMsg {
    /// A client attaches, at its size (last writer wins); attaching counts
    /// as seeing the pane unless `keep_attention`.
    Attach {
        size: Option<(u16, u16)>,
        keep_attention: bool,
        catch_up: CatchUp,
        reply: RpcReplyPort<Attached>,
    },
    /// A name chosen by the user, kept over any title the program sets;
    /// `None` gives the pane back its program's title.
    Rename(Option<String>, RpcReplyPort<()>),
    /// The user has seen the pane.
    Seen(RpcReplyPort<()>),
    /// `ctl notify` aimed at this pane.
    Notify {
        severity: Severity,
        title: String,
        body: String,
        reply: RpcReplyPort<()>,
    },
    /// An agent hook event, already looked up in its adapter's table.
    Hook {
        kind: AgentKind,
        event: String,
        effect: HookEffect,
        session_id: Option<String>,
        message: Option<String>,
        reply: RpcReplyPort<Result<(), ActorError>>,
    },
    /// Input whose room in the pane's [`InputQueue`] is reserved.
    Input(InputPiece, RpcReplyPort<Result<(), ActorError>>),
    /// The pane's input queue, to reserve room in before sending input.
    InputQueue(RpcReplyPort<InputQueue>),
    Read {
        what: ReadWhat,
        ansi: bool,
        reply: RpcReplyPort<ReadOut>,
    },
    Resize {
        rows: u16,
        cols: u16,
        reply: RpcReplyPort<PtySize>,
    },
    Signal {
        signal: i32,
        group: bool,
        reply: RpcReplyPort<Result<(), ActorError>>,
    },
    /// Run the agent's official resume command in this pane.
    Resume(RpcReplyPort<Result<(), ActorError>>),
    /// Run the saved argv again in the saved cwd.
    Respawn(RpcReplyPort<Result<(), ActorError>>),
    /// Put the agent to sleep (see `hibernate.rs`); answered once it is.
    Hibernate(RpcReplyPort<Result<(), ActorError>>),
    /// Wake a hibernated agent; answered once it is up.
    Wake(RpcReplyPort<Result<(), ActorError>>),
    /// Keep it awake (true: it never hibernates), or let it sleep again.
    Pin(bool, RpcReplyPort<()>),
    /// The agent's session id, learned from a hook or the user.
    ReportSession {
        kind: Option<AgentKind>,
        id: String,
        reply: RpcReplyPort<Result<(), ActorError>>,
    },
    /// Publish the tail now (shutdown), replying once it is sent.
    FlushTail(RpcReplyPort<()>),
    /// The snapshot actor restarted: send the record again.
    Republish,
    /// Fault injection (the server lets it through only with faults
    /// enabled): panic inside this handler.
    #[cfg(any(debug_assertions, feature = "fault-injection"))]
    DebugPanic,
    /// `ctl explain`: the kind, the state and why.
    Explain(RpcReplyPort<aware::Explained>),
    /// `ctl wait`: `met` is answered once the condition holds.
    Wait {
        what: wait::WaitFor,
        met: tokio::sync::oneshot::Sender<wait::WaitMet>,
        reply: RpcReplyPort<Result<(), ActorError>>,
    },
    /// `ctl agent prompt` (see `prompt.rs`).
    Prompt {
        text: String,
        queue: bool,
        reply: RpcReplyPort<Result<prompt::Prompted, ActorError>>,
    },
    /// `ctl send-keys`: the bytes these keys are in the program's modes.
    EncodeKeys(Vec<signaltty_screen::KeyPress>, RpcReplyPort<Vec<u8>>),
    /// Whether a client is attached now (the worktree watcher looks only
    /// at panes someone sees).
    IsWatched(RpcReplyPort<bool>),
    /// What `git status` said of the pane's worktree (see `worktree.rs`).
    WorktreeSeen(worktree::WorktreeSeen),
    /// One of the pane's own messages.
    Internal(Internal),
}

/// What the pane sends itself: its child's events, its timers and the
/// answers of the reads it runs off the actor. The field is private, so
/// nothing outside the pane module can make one: other actors see only
/// the requests they may send.
pub struct Internal(pub(super) SelfMsg);

pub(super) enum SelfMsg {
    Process(ProcessEvent),
    /// Time to offer lagging clients a fresh snapshot.
    CatchUp,
    /// Time to render and publish the tail.
    TailDue,
    /// Time to look at the foreground process's working directory.
    PollCwd,
    /// The reaped child's last output had its time to arrive.
    ExitDrained {
        spawn: u64,
    },
    /// A revived child lived through its grace (see `revive.rs`).
    ReviveSettled {
        spawn: u64,
    },
    /// Type the resume command into the fresh shell of a resumed pane.
    TypeResume {
        spawn: u64,
    },
    /// Time to record the notifications the rate limit held back.
    HeldNotificationsDue,
    /// Time to publish a record change that output caused.
    PublishDue,
    /// Look at the foreground process and the screen (see `aware.rs`).
    Inspect,
    /// What `/proc` said about the foreground process group `pgid`.
    Foreground {
        spawn: u64,
        pgid: i32,
        facts: Option<crate::procfs::Foreground>,
    },
    /// What the agent's own files said about its session.
    Discovered {
        spawn: u64,
        kind: AgentKind,
        found: Option<adapters::Discovered>,
    },
    /// Time to look for the agent's session again.
    Rediscover,
    /// The client of a `ctl wait` stopped waiting (see `wait.rs`).
    WaiterGone(u64),
    /// Time to see whether the screen can be frozen (see `freezer.rs`).
    FreezeCheck,
    /// What else runs among the pane's processes, for a pane falling asleep
    /// (see `hibernate.rs`).
    SleepChecked {
        spawn: u64,
        others: Vec<String>,
    },
    /// The time of a stage of falling asleep is up.
    SleepStep {
        spawn: u64,
    },
    /// The Enter after a prompt's paste.
    SubmitPrompt {
        spawn: u64,
    },
    /// The turn of a delivered prompt should have started by now.
    PromptSettled {
        delivery: u64,
    },
}

impl PaneMsg {
    /// Whether handling this needs a restored pane's saved tail parsed into
    /// its screen: what only publishes, answers from the record or checks
    /// the freezer does not, so a restored pane nobody uses stays cheap.
    pub(super) fn needs_history(&self) -> bool {
        !matches!(
            self,
            PaneMsg::FlushTail(_)
                | PaneMsg::Republish
                | PaneMsg::InputQueue(_)
                | PaneMsg::IsWatched(_)
                | PaneMsg::WorktreeSeen(_)
                | PaneMsg::Internal(Internal(SelfMsg::TailDue | SelfMsg::FreezeCheck))
        )
    }
}

/// The pane's handle on itself, as its parts get it: all it can do is
/// send the pane its own messages.
#[derive(Clone)]
pub(super) struct Myself(pub(super) ActorRef<PaneMsg>);

impl Myself {
    /// Sends `msg` to the pane `after` from now.
    pub(super) fn after(&self, after: Duration, msg: SelfMsg) {
        self.0
            .send_after(after, move || PaneMsg::Internal(Internal(msg)));
    }

    /// Sends `msg` to the pane now; false once the pane is gone.
    pub(super) fn send(&self, msg: SelfMsg) -> bool {
        self.0.cast(PaneMsg::Internal(Internal(msg))).is_ok()
    }
}
