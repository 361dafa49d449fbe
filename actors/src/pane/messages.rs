//! What a pane is asked, what it answers, and what it sends itself.

use std::time::Duration;

use ractor::{ActorRef, RpcReplyPort};
use signaltty_adapters::{AgentKind, HookEffect};
use signaltty_persistence::{PtySize, Severity};

use super::aware::{self, AwareEvent};
use super::flood::GateTimer;
use super::freezer::{FreezeCheck, ReadOut, ReadWhat};
use super::hibernate::SleepEvent;
use super::input::{InputPiece, InputQueue};
use super::mailbox::{Mailbox, Post};
use super::process::ProcessEvent;
use super::prompt::{self, PromptTimer};
use super::revive::ReviveTimer;
use super::subscribers::{CatchUp, PaneFrame, PaneStatus};
use super::wait::{self, WaiterGone};
use super::worktree;
use crate::error::ActorError;

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
    /// A handover begins (see `handover.rs`): stop reading the terminal;
    /// answered once every chunk read is in the mailbox.
    Pause(RpcReplyPort<()>),
    /// After `Pause`: the pane described for the server that takes over.
    /// It stays paused, and as it is, until the exec or `Unpause`.
    HandOver(RpcReplyPort<super::handover::HandedPane<std::os::fd::RawFd>>),
    /// The handover failed: read the terminal again.
    Unpause,
    /// One of the pane's own messages.
    Internal(Internal),
}

/// What the pane sends itself: its child's events, and each part's own
/// timers and the answers of the reads it runs off the actor. The field is
/// private, so nothing outside the pane module can make one: other actors
/// see only the requests they may send.
pub struct Internal(pub(super) SelfMsg);

/// The pane's own timers.
pub(super) enum PaneTimer {
    /// Time to offer lagging clients a fresh snapshot.
    CatchUp,
    /// Time to render and publish the tail.
    TailDue,
    /// Time to look at the foreground process's working directory.
    PollCwd,
    /// The reaped child's last output had its time to arrive.
    ExitDrained { spawn: u64 },
}

/// Declares [`SelfMsg`], one variant a part, and how each part's events
/// become one.
macro_rules! part_events {
    ($($variant:ident($event:ty),)*) => {
        /// Each part declares its events in its own file and can send only
        /// those (through its [`Mailbox`]), so no part schedules another's
        /// work.
        pub(super) enum SelfMsg {
            $($variant($event),)*
        }

        $(impl From<$event> for SelfMsg {
            fn from(event: $event) -> SelfMsg {
                SelfMsg::$variant(event)
            }
        })*
    };
}

part_events! {
    Process(ProcessEvent),
    Pane(PaneTimer),
    Revive(ReviveTimer),
    Gates(GateTimer),
    Aware(AwareEvent),
    Waiter(WaiterGone),
    Freeze(FreezeCheck),
    Sleep(SleepEvent),
    Prompt(PromptTimer),
}

impl SelfMsg {
    /// The child an event is about, for the events that name one: a late
    /// timer or answer about a child the pane has since replaced is
    /// dropped unread.
    pub(super) fn spawn(&self) -> Option<u64> {
        match self {
            SelfMsg::Pane(PaneTimer::ExitDrained { spawn })
            | SelfMsg::Revive(ReviveTimer::Settled { spawn } | ReviveTimer::TypeResume { spawn })
            | SelfMsg::Aware(
                AwareEvent::Foreground { spawn, .. } | AwareEvent::Discovered { spawn, .. },
            )
            | SelfMsg::Sleep(SleepEvent::Checked { spawn, .. } | SleepEvent::Step { spawn })
            | SelfMsg::Prompt(PromptTimer::Submit { spawn }) => Some(*spawn),
            _ => None,
        }
    }
}

impl PaneMsg {
    /// Whether handling this needs a restored pane's saved tail parsed into
    /// its screen: what only publishes, answers from the record or checks
    /// the freezer does not, so a restored pane nobody uses stays cheap.
    pub(super) fn needs_history(&self) -> bool {
        !matches!(
            self,
            PaneMsg::FlushTail(_)
                | PaneMsg::Pause(_)
                | PaneMsg::HandOver(_)
                | PaneMsg::Unpause
                | PaneMsg::Republish
                | PaneMsg::InputQueue(_)
                | PaneMsg::IsWatched(_)
                | PaneMsg::WorktreeSeen(_)
                | PaneMsg::Internal(Internal(
                    SelfMsg::Pane(PaneTimer::TailDue) | SelfMsg::Freeze(FreezeCheck)
                ))
        )
    }
}

/// The pane's handle on itself: all it can do is send the pane its own
/// messages, or give a part the mailbox for that part's events.
#[derive(Clone)]
pub(super) struct Myself(pub(super) ActorRef<PaneMsg>);

impl Myself {
    /// The mailbox through which a part sends the pane its events `E`.
    pub(super) fn mailbox<E: Into<SelfMsg> + Send + 'static>(&self) -> Mailbox<'_, E> {
        Mailbox::new(&self.0)
    }

    /// Sends `event` to the pane `after` from now.
    pub(super) fn after(&self, after: Duration, event: impl Into<SelfMsg> + Send + 'static) {
        Post::<SelfMsg>::after(&self.0, after, event.into());
    }

    /// Sends `event` to the pane now; false once the pane is gone.
    pub(super) fn send(&self, event: impl Into<SelfMsg>) -> bool {
        Post::<SelfMsg>::send(&self.0, event.into())
    }
}

impl<E: Into<SelfMsg> + Send + 'static> Post<E> for ActorRef<PaneMsg> {
    fn send(&self, event: E) -> bool {
        self.cast(PaneMsg::Internal(Internal(event.into()))).is_ok()
    }

    fn after(&self, after: Duration, event: E) {
        self.send_after(after, move || PaneMsg::Internal(Internal(event.into())));
    }

    fn boxed(&self) -> Box<dyn Post<E>> {
        Box::new(self.clone())
    }
}
