//! The pane actor: one PTY child, its output ring and its screen.
//!
//! A pane is either live (a child runs on its PTY) or a tombstone (restored
//! after a restart, or standing in for an actor that failed): a tombstone
//! keeps its record and shows its saved tail, so the slot in the layout is
//! never a hole. The pane publishes its record to the snapshot actor on
//! every change and a fresh tail at most once per [`TAIL_DEBOUNCE`].

mod attention;
pub mod aware;
mod flood;
mod freezer;
pub mod input;
pub mod process;
pub mod prompt;
pub mod pty;
pub mod reaper;
mod revive;
pub mod ring;
pub mod subscribers;
#[cfg(test)]
mod tests;
mod title;
pub mod wait;
pub mod worktree;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use signaltty_adapters::{self as adapters, AgentKind, HookEffect};
use signaltty_persistence::limits::path_fits;
use signaltty_persistence::{
    AgentRecord, Attention, DEFAULT_TAIL_CAP, Lifecycle, PaneRecord, PtySize, Severity, filter_env,
    looks_secret,
};
use signaltty_screen::{NotifySource, ScreenEvent, Size, Style};
use tracing::{Instrument, info, info_span};

use crate::error::{ActorError, SpawnError};
use crate::model::{PaneState, PaneView};
use crate::procfs::Foreground;
use crate::snapshot::{SnapshotMsg, publish};
use attention::{Axes, Heard};
use flood::OutputGates;
use freezer::PaneScreen;
use input::{InputPiece, InputQueue};
use process::{ProcessEvent, SpawnSpec};
use pty::{NativePty, OpenPty, Pty};
use reaper::Reaper;
use ring::{DEFAULT_RING_BYTES, OutputRing};
use subscribers::{CatchUp, Output, PaneFrame, Revive, Subscribers};

/// How often a pane with new output renders and publishes its tail.
pub const TAIL_DEBOUNCE: Duration = Duration::from_millis(500);
/// How soon after output the foreground process's working directory is
/// looked at. A `cd` always ends in output (the next prompt), so a pane
/// that prints nothing costs nothing.
pub const CWD_POLL: Duration = Duration::from_secs(1);
/// After the child is reaped, how long to wait for its last output.
const EXIT_DRAIN: Duration = Duration::from_millis(500);
/// A resumed or respawned child that fails within this long fails the
/// command, and the pane goes back to being a tombstone.
pub const REVIVE_GRACE: Duration = Duration::from_millis(1500);
/// How soon a lagging client is offered a fresh snapshot again (a frame:
/// the multiplexer gets a picture of a flooding pane this often).
const CATCH_UP: Duration = Duration::from_millis(16);
/// Lines of scrollback the screen keeps, as tmux does by default: the
/// persisted tail needs far fewer, and a longer history costs every pane
/// memory and every flood parse time (a cold grid is a slow grid).
pub const SCROLLBACK_LINES: usize = 2_000;

/// Bounds on a pane's size: a client's wild resize is clamped to these.
pub const MIN_ROWS: u16 = 2;
pub const MAX_ROWS: u16 = 500;
pub const MIN_COLS: u16 = 2;
pub const MAX_COLS: u16 = 1000;

/// What every pane needs from the server around it.
#[derive(Debug, Clone)]
pub struct PaneContext {
    pub socket_path: PathBuf,
    pub reaper: Reaper,
    /// Opens each child's terminal: real PTYs, or a unit test's fake.
    pub ptys: Arc<dyn OpenPty>,
}

impl PaneContext {
    /// Panes whose children run on real PTYs: starts the reaper (on the
    /// current runtime) and the thread that runs every PTY's poll loop.
    pub fn native(socket_path: PathBuf) -> std::io::Result<PaneContext> {
        Ok(PaneContext {
            socket_path,
            reaper: Reaper::start()?,
            ptys: Arc::new(NativePty::start()?),
        })
    }
}

/// How a pane actor comes up.
#[derive(Debug, Clone)]
pub enum PaneStart {
    /// A new pane: the adapters may give an agent a session id at launch.
    Launch,
    /// Come up without a process, showing `tail` if there is one.
    Tombstone {
        state: PaneState,
        tail: Option<String>,
    },
}

#[derive(Debug, Clone)]
pub struct PaneArgs {
    pub record: PaneRecord,
    pub start: PaneStart,
    pub context: PaneContext,
}

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
    pub state: PaneState,
    pub exit_code: Option<i32>,
    pub size: PtySize,
    /// For a pane with no process: what reviving it runs.
    pub revive: Option<Revive>,
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
pub struct Internal(SelfMsg);

enum SelfMsg {
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
    fn needs_history(&self) -> bool {
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
struct Myself(ActorRef<PaneMsg>);

impl Myself {
    /// Sends `msg` to the pane `after` from now.
    fn after(&self, after: Duration, msg: SelfMsg) {
        self.0
            .send_after(after, move || PaneMsg::Internal(Internal(msg)));
    }

    /// Sends `msg` to the pane now; false once the pane is gone.
    fn send(&self, msg: SelfMsg) -> bool {
        self.0.cast(PaneMsg::Internal(Internal(msg))).is_ok()
    }
}

pub struct PaneActor;

pub struct Pane {
    record: PaneRecord,
    state: PaneState,
    process: Option<Box<dyn Pty>>,
    /// Which incarnation of the process the current events belong to.
    spawn: u64,
    /// The reaped child's exit code, while its last output drains.
    exit_pending: Option<i32>,
    eof: bool,
    screen: PaneScreen,
    ring: OutputRing,
    events: Vec<ScreenEvent>,
    tail_due: bool,
    cwd_due: bool,
    /// A restored pane's saved tail, parsed into the screen on first use:
    /// hundreds of panes restore at once, and most are not looked at soon.
    pending_history: Option<String>,
    /// A resume or respawn waiting to see whether its child survives.
    revivals: revive::Revivals,
    subscribers: Subscribers,
    catch_up_due: bool,
    /// The state attached clients were last told about.
    announced: (PaneState, Option<i32>, Option<Revive>),
    /// Bounds what output can cost: notifications and record publishes.
    gates: OutputGates,
    input: InputQueue,
    context: PaneContext,
    aware: aware::Awareness,
    waiters: wait::Waiters,
    prompts: prompt::Prompts,
}

impl Actor for PaneActor {
    type Msg = PaneMsg;
    type State = Pane;
    type Arguments = PaneArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<PaneMsg>,
        args: PaneArgs,
    ) -> Result<Pane, ActorProcessingErr> {
        let size = Size {
            rows: args.record.pty_size.rows.clamp(MIN_ROWS, MAX_ROWS),
            cols: args.record.pty_size.cols.clamp(MIN_COLS, MAX_COLS),
        };
        let mut pane = Pane {
            state: PaneState::Exited,
            record: args.record,
            process: None,
            spawn: 0,
            exit_pending: None,
            eof: false,
            screen: PaneScreen::new(size, SCROLLBACK_LINES),
            ring: OutputRing::new(DEFAULT_RING_BYTES),
            events: Vec::new(),
            tail_due: false,
            cwd_due: false,
            pending_history: None,
            revivals: revive::Revivals::default(),
            subscribers: Subscribers::default(),
            catch_up_due: false,
            announced: (PaneState::Exited, None, None),
            gates: OutputGates::default(),
            input: InputQueue::default(),
            context: args.context,
            aware: aware::Awareness::default(),
            waiters: wait::Waiters::default(),
            prompts: prompt::Prompts::default(),
        };
        pane.record.pty_size = PtySize {
            rows: size.rows,
            cols: size.cols,
        };
        match args.start {
            PaneStart::Launch => {
                pane.plan_launch();
                pane.start_process(&Myself(myself), false)?;
            }
            PaneStart::Tombstone { state, tail } => {
                // An older build may have saved a command with a secret.
                pane.record.argv = without_secrets(&pane.record.argv);
                pane.pending_history = tail;
                // Nothing needs a restored pane's screen until it is used.
                pane.screen.freeze();
                pane.state = state;
                // A restored pane's process did not end on its own: it
                // stays "was running" until it is revived or ends.
                pane.record.running = state != PaneState::Exited;
            }
        }
        pane.refresh_title();
        pane.publish();
        Ok(pane)
    }

    async fn handle(
        &self,
        myself: ActorRef<PaneMsg>,
        msg: PaneMsg,
        pane: &mut Pane,
    ) -> Result<(), ActorProcessingErr> {
        // Instrumented rather than entered: parsing output yields now and
        // then, and no span guard may be held across that.
        let span = info_span!("pane", pane = %pane.record.id);
        pane.on_message(Myself(myself), msg).instrument(span).await;
        Ok(())
    }
}

impl Pane {
    /// Every message the pane handles, then what follows each one.
    async fn on_message(&mut self, myself: Myself, msg: PaneMsg) {
        if msg.needs_history()
            && let Some(tail) = self.pending_history.take()
        {
            self.screen.load_history(&tail);
        }
        match msg {
            PaneMsg::Internal(Internal(msg)) => self.on_internal(&myself, msg).await,
            PaneMsg::Attach {
                size,
                keep_attention,
                catch_up,
                reply,
            } => {
                let _ = reply.send(self.attach(size, keep_attention, catch_up));
            }
            PaneMsg::Rename(name, reply) => {
                title::rename(&mut self.record, name, self.screen.title());
                self.publish();
                let _ = reply.send(());
            }
            PaneMsg::Seen(reply) => {
                self.seen();
                let _ = reply.send(());
            }
            PaneMsg::Notify {
                severity,
                title,
                body,
                reply,
            } => {
                self.notify("ctl", severity, &title, &body);
                let _ = reply.send(());
            }
            PaneMsg::Hook {
                kind,
                event,
                effect,
                session_id,
                message,
                reply,
            } => {
                let heard = self.hook(kind, &event, effect, session_id, message);
                let _ = reply.send(heard);
            }
            PaneMsg::Input(piece, reply) => {
                let _ = reply.send(self.live_process().map(|p| p.write(piece)));
            }
            PaneMsg::InputQueue(reply) => {
                let _ = reply.send(self.input.clone());
            }
            PaneMsg::Read { what, ansi, reply } => {
                let style = if ansi { Style::Ansi } else { Style::Plain };
                let _ = reply.send(self.screen.read(what, style));
            }
            PaneMsg::Resize { rows, cols, reply } => {
                let size = self.resize(rows, cols);
                let _ = reply.send(size);
            }
            PaneMsg::Signal {
                signal,
                group,
                reply,
            } => {
                let _ = reply.send(self.signal(signal, group));
            }
            PaneMsg::Resume(reply) => self.resume(&myself, reply),
            PaneMsg::Respawn(reply) => self.respawn(&myself, reply),
            PaneMsg::ReportSession { kind, id, reply } => {
                let _ = reply.send(self.report_session(kind, &id));
            }
            PaneMsg::FlushTail(reply) => {
                self.publish_due();
                if !self.screen.frozen_with_tail_published() {
                    self.publish_tail();
                }
                let _ = reply.send(());
            }
            PaneMsg::Republish => {
                self.publish();
                self.publish_tail();
            }
            PaneMsg::DebugPanic => panic!("fault injected into pane {}", self.record.id),
            PaneMsg::Explain(reply) => {
                let explained =
                    self.aware
                        .explain(&self.record, &mut self.screen, self.waiters.count());
                let _ = reply.send(explained);
            }
            PaneMsg::Wait { what, met, reply } => {
                let now = wait::Now::of(
                    &self.record,
                    self.process.is_some(),
                    self.prompts.pending(),
                    &mut self.screen,
                );
                let added = self.waiters.add(&myself, &self.record.id, what, met, now);
                let _ = reply.send(added);
            }
            PaneMsg::Prompt { text, queue, reply } => {
                let _ = reply.send(self.prompt(&myself, text, queue));
            }
            PaneMsg::EncodeKeys(keys, reply) => {
                let modes = self.screen.modes();
                let _ = reply.send(keys.iter().flat_map(|k| k.encode(&modes)).collect());
            }
            PaneMsg::IsWatched(reply) => {
                let _ = reply.send(self.subscribers.watching());
            }
            PaneMsg::WorktreeSeen(seen) => {
                if worktree::apply(&mut self.record.worktree, seen) {
                    self.publish();
                }
            }
        }
        self.screen.schedule_check(&myself);
        self.deliver_queued_prompt(&myself);
    }

    async fn on_internal(&mut self, myself: &Myself, msg: SelfMsg) {
        match msg {
            SelfMsg::Process(event) => self.on_process_event(myself, event).await,
            SelfMsg::CatchUp => self.catch_up(myself),
            SelfMsg::TailDue => self.publish_tail(),
            SelfMsg::PollCwd => {
                self.cwd_due = false;
                self.poll_cwd();
            }
            SelfMsg::ExitDrained { spawn } if spawn == self.spawn => self.finish_exit(),
            SelfMsg::ReviveSettled { spawn } if spawn == self.spawn => {
                if let Some(failed) = self.revivals.settled() {
                    self.fail_revival(failed);
                }
            }
            SelfMsg::TypeResume { spawn } if spawn == self.spawn => {
                let process = self.process.as_deref();
                self.revivals.type_resume(process, &self.input);
            }
            SelfMsg::HeldNotificationsDue => {
                let held = self.gates.held_notifications(myself);
                self.notify_printed(held);
            }
            SelfMsg::PublishDue => self.publish_due(),
            SelfMsg::Inspect => self.inspect(myself),
            SelfMsg::Foreground { spawn, pgid, facts } if spawn == self.spawn => {
                self.on_foreground(myself, pgid, facts);
            }
            SelfMsg::Discovered { spawn, kind, found } if spawn == self.spawn => {
                if self
                    .aware
                    .on_discovered(myself, &mut self.record, kind, found)
                {
                    self.publish();
                }
            }
            SelfMsg::Rediscover => self.aware.discover(myself, &self.record, self.spawn),
            SelfMsg::WaiterGone(id) => self.waiters.forget(id),
            SelfMsg::FreezeCheck => self.freeze_check(myself),
            SelfMsg::SubmitPrompt { spawn } if spawn == self.spawn => {
                if let Ok(keyboard) = self.keyboard() {
                    keyboard.submit();
                }
            }
            SelfMsg::PromptSettled { delivery } => {
                if self.prompts.settled(delivery) {
                    self.check_waiters(0);
                }
            }
            // A late timer or answer about a process this pane has since
            // replaced.
            SelfMsg::ExitDrained { .. }
            | SelfMsg::ReviveSettled { .. }
            | SelfMsg::TypeResume { .. }
            | SelfMsg::Foreground { .. }
            | SelfMsg::Discovered { .. }
            | SelfMsg::SubmitPrompt { .. } => {}
        }
    }

    fn freeze_check(&mut self, myself: &Myself) {
        // A revival's first words are read back from the ring if it
        // fails; nobody else reads what went before an attach.
        if self
            .screen
            .freeze_check(myself, self.subscribers.watching())
            && !self.revivals.in_flight()
        {
            self.ring.release();
        }
    }

    /// A client attaches, at its size; one reply holds the snapshot and
    /// the offset it ends at, taken at the same instant, so the stream
    /// neither repeats nor skips a byte.
    fn attach(
        &mut self,
        size: Option<(u16, u16)>,
        keep_attention: bool,
        catch_up: CatchUp,
    ) -> Attached {
        if let Some((rows, cols)) = size {
            self.resize(rows, cols);
        }
        if !keep_attention {
            self.seen();
        }
        let PtySize { rows, cols } = self.record.pty_size;
        let frames = self.subscribers.add(
            self.screen.replay(),
            self.ring.end(),
            (rows, cols),
            catch_up,
        );
        Attached {
            offset: self.ring.end(),
            input: self.input.clone(),
            state: self.state,
            exit_code: self.record.exit_code,
            size: self.record.pty_size,
            revive: revive::offer(self.state, &self.record),
            frames,
        }
    }

    /// An agent's hook event: its session id first, since a hook refused
    /// for its session id changes nothing else.
    fn hook(
        &mut self,
        kind: AgentKind,
        event: &str,
        effect: HookEffect,
        session_id: Option<String>,
        message: Option<String>,
    ) -> Result<(), ActorError> {
        if let Some(id) = session_id {
            self.report_session(Some(kind), &id)?;
        }
        let source = format!("hook:{}", kind.as_str());
        self.aware.hook_spoke();
        self.apply_hook(&source, event, effect, message.as_deref());
        Ok(())
    }

    fn report_session(&mut self, kind: Option<AgentKind>, id: &str) -> Result<(), ActorError> {
        revive::report_session(&mut self.record, &mut self.state, kind, id)?;
        self.publish();
        Ok(())
    }

    /// Runs the agent's official resume command in this pane.
    fn resume(&mut self, myself: &Myself, reply: revive::Reply) {
        match revive::resume_plan(self.state, &self.record) {
            Ok((argv, resuming)) => self.revive(myself, argv, Some(resuming), reply),
            Err(e) => {
                let _ = reply.send(Err(e));
            }
        }
    }

    /// Runs the saved argv again in the saved cwd.
    fn respawn(&mut self, myself: &Myself, reply: revive::Reply) {
        if let Err(e) = revive::not_live(self.state, &self.record.id, "respawned") {
            let _ = reply.send(Err(e));
            return;
        }
        let argv = self.record.argv.clone();
        self.revive(myself, argv, None, reply);
    }

    /// Starts `argv` as a fresh child in this pane; the reply waits to see
    /// whether it survives (see `revive.rs`).
    fn revive(
        &mut self,
        myself: &Myself,
        argv: Vec<String>,
        resume: Option<revive::Resuming>,
        reply: revive::Reply,
    ) {
        let before = revive::prepare(&mut self.record, self.state, argv);
        if let Err(e) = self.start_process(myself, true) {
            let _ = reply.send(Err(before.could_not_start(&mut self.record, &e.to_string())));
            return;
        }
        self.publish();
        let output_from = self.ring.end();
        self.revivals
            .begin(myself, self.spawn, before, resume, reply, output_from);
    }

    /// The revived child failed: the pane goes back to the tombstone it was.
    fn fail_revival(&mut self, failed: revive::Failed) {
        if self.process.take().is_some() {
            // The shell still runs: hang it up, and ignore its last events.
            self.spawn += 1;
        }
        let size = self.screen.size();
        failed.undo(&self.ring, size, &mut self.record, &mut self.state);
        self.publish();
        self.publish_tail();
    }

    /// The kind of agent whose rules apply now (see `aware.rs`).
    fn current_kind(&self) -> AgentKind {
        self.aware.kind(&self.record)
    }

    /// Time to look at the foreground process and the screen.
    fn inspect(&mut self, myself: &Myself) {
        if self
            .aware
            .inspect(myself, self.spawn, self.process.as_deref())
        {
            self.read_screen(myself);
        }
    }

    /// What `/proc` said of the foreground process group `pgid`.
    fn on_foreground(&mut self, myself: &Myself, pgid: i32, facts: Option<Foreground>) {
        let unwatched = self.subscribers.is_empty();
        let found = self
            .aware
            .on_foreground(pgid, facts, &mut self.record, unwatched);
        if found.arrived || found.left {
            self.publish();
        }
        if found.arrived {
            self.aware.discover(myself, &self.record, self.spawn);
        }
        if found.command_changed {
            self.publish();
        }
        if let Some(failed) = self.revivals.saw(found.kind) {
            self.fail_revival(failed);
        }
        self.read_screen(myself);
    }

    /// Reads the screen against the current kind's rules.
    fn read_screen(&mut self, myself: &Myself) {
        let sight = aware::Sight {
            record: &mut self.record,
            screen: &mut self.screen,
            unwatched: self.subscribers.is_empty(),
            spawn: self.spawn,
        };
        let read = self.aware.read_screen(myself, sight);
        if read.changed {
            self.publish();
        }
        if let Some(kind) = read.recognised {
            self.revivals.recognised(kind);
        }
    }

    /// Records what the program printed as a notification, when the rate
    /// let it (or a summary of those held back) through.
    fn notify_printed(&mut self, printed: Option<flood::Printed>) {
        if let Some(p) = printed {
            self.notify(p.source, Severity::Info, &p.title, &p.body);
        }
    }

    /// Output changed the record: publish it now or soon (see `flood.rs`).
    fn publish_soon(&mut self, myself: &Myself) {
        if self.gates.publish_soon(myself) {
            self.publish();
        }
    }

    /// The throttle held a publish back until now.
    fn publish_due(&mut self) {
        if self.gates.publish_due() {
            self.publish();
        }
    }

    fn signal(&self, signal: i32, group: bool) -> Result<(), ActorError> {
        self.live_process()?
            .signal(signal, group)
            .map_err(|e| ActorError::Io(format!("could not signal the pane: {e}")))
    }

    fn catch_up(&mut self, myself: &Myself) {
        self.catch_up_due = false;
        if self.subscribers.catch_up(Output {
            ring: &self.ring,
            snapshot: || self.screen.replay(),
        }) {
            self.schedule_catch_up(myself);
        }
    }
    pub fn view(&self) -> PaneView {
        PaneView {
            record: self.record.clone(),
            state: self.state,
            watched: self.subscribers.watching(),
            command: self.aware.command(),
        }
    }

    fn publish(&mut self) {
        self.gates.record_published();
        publish(SnapshotMsg::Pane(Box::new(self.view())));
        self.check_waiters(0);
        let now = (
            self.state,
            self.record.exit_code,
            revive::offer(self.state, &self.record),
        );
        if now != self.announced {
            self.announced = now.clone();
            self.subscribers.state(
                now.0,
                now.1,
                now.2,
                Output {
                    ring: &self.ring,
                    snapshot: || self.screen.replay(),
                },
            );
        }
    }

    /// The user has seen the pane: its attention clears and its
    /// notifications are marked read. Lifecycle is left alone.
    fn seen(&mut self) {
        publish(SnapshotMsg::MarkRead(self.record.id.clone()));
        if self.record.seen() {
            self.publish();
        }
    }

    /// Records a notification from `source` and raises attention to match.
    fn notify(&mut self, source: &str, severity: Severity, title: &str, body: &str) {
        let notification = self.record.notification(source, severity, title, body);
        publish(SnapshotMsg::Notify(notification));
        self.publish();
    }

    fn apply_hook(&mut self, source: &str, event: &str, effect: HookEffect, message: Option<&str>) {
        let watched = !self.subscribers.is_empty();
        match self.record.hook(source, event, effect, message, watched) {
            Heard::Nothing => {}
            Heard::Changed => self.publish(),
            Heard::Notify(notification) => {
                publish(SnapshotMsg::Notify(notification));
                self.publish();
            }
        }
    }

    /// Answers every wait whose condition holds now (see `wait.rs`).
    fn check_waiters(&mut self, new_lines: usize) {
        let now = wait::Now::of(
            &self.record,
            self.process.is_some(),
            self.prompts.pending(),
            &mut self.screen,
        );
        self.waiters.check(now, new_lines);
    }

    fn schedule_catch_up(&mut self, myself: &Myself) {
        if !self.catch_up_due {
            self.catch_up_due = true;
            myself.after(CATCH_UP, SelfMsg::CatchUp);
        }
    }

    fn publish_tail(&mut self) {
        self.tail_due = false;
        if self.pending_history.is_some() {
            // Never shown, never changed: the tail on disk is still right.
            return;
        }
        let text = self.screen.history_for_tail(DEFAULT_TAIL_CAP);
        publish(SnapshotMsg::Tail {
            pane_id: self.record.id.clone(),
            text,
        });
    }

    fn live_process(&self) -> Result<&dyn Pty, ActorError> {
        live(self.process.as_deref(), self.state, &self.record.id)
    }

    /// The keyboard of the pane's live process (see `prompt.rs`).
    fn keyboard(&mut self) -> Result<prompt::Keyboard<'_>, ActorError> {
        Ok(prompt::Keyboard {
            process: live(self.process.as_deref(), self.state, &self.record.id)?,
            pane_id: &self.record.id,
            input: &self.input,
            screen: &mut self.screen,
            spawn: self.spawn,
        })
    }

    /// `ctl agent prompt`: types `text` into the agent now, or queues it
    /// (`queue`) while the agent works.
    fn prompt(
        &mut self,
        myself: &Myself,
        text: String,
        queue: bool,
    ) -> Result<prompt::Prompted, ActorError> {
        self.live_process()?;
        let kind = self.current_kind();
        let lifecycle = self.record.lifecycle;
        match self
            .prompts
            .offer(&self.record.id, kind, lifecycle, text, queue)?
        {
            prompt::Next::Queued(place) => Ok(prompt::Prompted::Queued(place)),
            prompt::Next::Type(text) => {
                self.type_prompt(myself, &text)?;
                Ok(prompt::Prompted::Sent)
            }
        }
    }

    /// Types the next queued prompt once the agent is idle and the last
    /// prompt's turn has started; called after every message.
    fn deliver_queued_prompt(&mut self, myself: &Myself) {
        let agent = self.current_kind() != AgentKind::Generic;
        if !self.prompts.due(self.record.lifecycle, agent) || self.live_process().is_err() {
            return;
        }
        let Some(text) = self.prompts.next() else {
            return;
        };
        if let Err(e) = self.type_prompt(myself, &text) {
            tracing::warn!(%e, "a queued prompt could not be typed; dropped");
        }
    }

    /// Pastes `text` into the agent and awaits the turn it starts.
    fn type_prompt(&mut self, myself: &Myself, text: &str) -> Result<(), ActorError> {
        self.keyboard()?.paste(myself, text)?;
        self.prompts.typed(myself);
        Ok(())
    }

    /// A new pane running a known agent gets its session id now, when the
    /// agent lets us choose one, so it is resumable from its first second.
    fn plan_launch(&mut self) {
        if self.record.argv.is_empty() {
            self.record.argv = vec![default_shell()];
        }
        let kind = adapters::detect(&self.record.argv);
        if kind == AgentKind::Generic {
            return;
        }
        let fresh = uuid::Uuid::new_v4().to_string();
        let plan = adapters::plan_launch(&self.record.argv, &fresh);
        self.record.argv = plan.argv;
        self.record.agent = Some(AgentRecord {
            kind: kind.as_str().to_string(),
            agent_session_id: plan.session_id.map(|id| id.as_str().to_string()),
            ..AgentRecord::default()
        });
    }

    fn start_process(&mut self, myself: &Myself, restored: bool) -> Result<(), SpawnError> {
        self.spawn += 1;
        let mut env = vec![
            ("SIGNALTTY_PANE".to_string(), self.record.id.clone()),
            (
                "SIGNALTTY_WORKSPACE".to_string(),
                self.record.workspace_id.clone(),
            ),
            (
                "SIGNALTTY_SOCKET".to_string(),
                self.context.socket_path.display().to_string(),
            ),
        ];
        env.extend(self.record.env.iter().map(|(k, v)| (k.clone(), v.clone())));
        // The screen keeps 24-bit colour, and programs (gemini) ask.
        env.push(("COLORTERM".to_string(), "truecolor".to_string()));
        if restored {
            env.push(("SIGNALTTY_RESTORED".to_string(), "1".to_string()));
        }
        let spec = SpawnSpec {
            argv: self.record.argv.clone(),
            cwd: PathBuf::from(&self.record.cwd),
            env,
            rows: self.record.pty_size.rows,
            cols: self.record.pty_size.cols,
        };
        let pane = myself.clone();
        let sink: process::EventSink = Arc::new(move |event| pane.send(SelfMsg::Process(event)));
        let process = self
            .context
            .ptys
            .open(&spec, self.spawn, sink, &self.context.reaper)?;
        // The child runs with every word it was given; what is saved, shown,
        // logged, resumed or respawned has none that may hold a secret.
        self.record.argv = without_secrets(&spec.argv);
        info!(pid = process.pid(), argv = ?self.record.argv, "pane started");
        // What the child got, minus anything secret, so a respawn can give it
        // the same again.
        let mut seen: Vec<(String, String)> = std::env::vars().collect();
        seen.extend(spec.env);
        seen.push(("TERM".into(), "xterm-256color".into()));
        self.record.env = filter_env(seen);
        self.record.process = process.identity();
        self.process = Some(process);
        self.aware.forget_process();
        // Prompts held for the last process are not for this one.
        self.prompts = prompt::Prompts::default();
        self.state = PaneState::Live;
        self.record.running = true;
        self.record.exit_code = None;
        self.exit_pending = None;
        self.eof = false;
        if self.record.lifecycle == Lifecycle::Exited || self.record.lifecycle == Lifecycle::Failed
        {
            self.record.lifecycle = Lifecycle::Unknown;
        }
        Ok(())
    }

    async fn on_process_event(&mut self, myself: &Myself, event: ProcessEvent) {
        match event {
            ProcessEvent::Output { spawn, bytes } if spawn == self.spawn => {
                if self.on_output(myself, bytes).await {
                    self.schedule_catch_up(myself);
                }
                self.aware.inspect_soon(myself);
                self.revivals.on_output(myself, self.spawn);
                if let Some(process) = &self.process {
                    process.return_credit();
                }
                if !self.tail_due {
                    self.tail_due = true;
                    myself.after(TAIL_DEBOUNCE, SelfMsg::TailDue);
                }
                if !self.cwd_due {
                    self.cwd_due = true;
                    myself.after(CWD_POLL, SelfMsg::PollCwd);
                }
            }
            ProcessEvent::Eof { spawn } if spawn == self.spawn => {
                self.eof = true;
                if self.exit_pending.is_some() {
                    self.finish_exit();
                }
            }
            ProcessEvent::Exited { spawn, code } if spawn == self.spawn => {
                self.exit_pending = Some(code);
                if self.eof {
                    self.finish_exit();
                } else {
                    myself.after(EXIT_DRAIN, SelfMsg::ExitDrained { spawn });
                }
            }
            // An event from a process this pane has since replaced.
            _ => {}
        }
    }

    /// Returns whether an attached client is lagging. The chunk is shared
    /// by the ring and every client, not copied.
    async fn on_output(&mut self, myself: &Myself, bytes: bytes::Bytes) -> bool {
        // Only attached clients and a revival read the ring back.
        if self.subscribers.watching() || self.revivals.in_flight() {
            self.ring.push(bytes.clone());
        } else {
            self.ring.pass(bytes.len());
        }
        let fresh_before = self.screen.fresh_lines();
        let mut events = std::mem::take(&mut self.events);
        flood::feed(&mut self.screen, &bytes, &mut events).await;
        let mut changed = false;
        for event in events.drain(..) {
            match event {
                ScreenEvent::Title(_) => changed |= self.refresh_title(),
                ScreenEvent::Cwd(cwd) => {
                    if cwd != self.record.cwd && path_fits(&cwd) {
                        self.record.cwd = cwd;
                        changed = true;
                    }
                }
                ScreenEvent::Reply(answer) => {
                    // A program that does not read its input gets no more
                    // answers than the queue holds.
                    if let (Some(process), Ok(piece)) =
                        (&self.process, self.input.try_reserve(answer))
                    {
                        process.write(piece);
                    }
                }
                ScreenEvent::Bell => changed |= self.record.raise(Attention::Unread),
                ScreenEvent::Notify {
                    source,
                    title,
                    body,
                } => {
                    let source = match source {
                        NotifySource::Osc9 => "osc9",
                        NotifySource::Osc777 => "osc777",
                        NotifySource::Osc99 => "osc99",
                    };
                    let printed = flood::Printed {
                        source,
                        title,
                        body,
                    };
                    let now = self.gates.notification(myself, printed);
                    self.notify_printed(now);
                }
            }
        }
        self.events = events;
        // New lines nobody is looking at are something to read; a spinner
        // or a full-screen redraw is not. An agent's output while it works
        // is not news either: its attention comes from its state (a turn
        // that ends, a prompt; see `aware.rs`).
        let fresh = self.screen.fresh_lines() - fresh_before;
        if fresh > 0 && self.subscribers.is_empty() && self.current_kind() == AgentKind::Generic {
            changed |= self.record.raise(Attention::Unread);
        }
        self.check_waiters(usize::try_from(fresh).unwrap_or(usize::MAX));
        if changed {
            self.publish_soon(myself);
        }
        self.subscribers.output(
            &bytes,
            Output {
                ring: &self.ring,
                snapshot: || self.screen.replay(),
            },
        )
    }

    /// Recomputes the shown title (see `title.rs`); true when it changed.
    fn refresh_title(&mut self) -> bool {
        title::refresh(&mut self.record, self.screen.title())
    }

    fn finish_exit(&mut self) {
        let Some(code) = self.exit_pending.take() else {
            return;
        };
        info!(code, "pane exited");
        self.process = None;
        if let Some(failed) = self.revivals.exited(code) {
            self.fail_revival(failed);
            return;
        }
        self.state = PaneState::Exited;
        self.record.running = false;
        self.record.exit_code = Some(code);
        self.record.set_lifecycle(if code == 0 {
            Lifecycle::Exited
        } else {
            Lifecycle::Failed
        });
        self.record.raise(if code == 0 {
            Attention::Unread
        } else {
            Attention::Error
        });
        self.publish();
        self.publish_tail();
    }

    fn resize(&mut self, rows: u16, cols: u16) -> PtySize {
        let size = PtySize {
            rows: rows.clamp(MIN_ROWS, MAX_ROWS),
            cols: cols.clamp(MIN_COLS, MAX_COLS),
        };
        if size != self.record.pty_size {
            self.screen.resize(Size {
                rows: size.rows,
                cols: size.cols,
            });
            if let Some(process) = &self.process {
                process.resize(size.rows, size.cols);
            }
            self.record.pty_size = size;
            self.publish();
            self.subscribers.repaint(
                (size.rows, size.cols),
                Output {
                    ring: &self.ring,
                    snapshot: || self.screen.replay(),
                },
            );
        }
        size
    }

    fn poll_cwd(&mut self) {
        let Some(process) = &self.process else {
            return;
        };
        let Some(cwd) = process.foreground_cwd() else {
            return;
        };
        let cwd = cwd.display().to_string();
        if cwd != self.record.cwd && path_fits(&cwd) {
            self.record.cwd = cwd;
            self.publish();
        }
    }
}

/// `argv` without the words that may hold a secret, by the rule that keeps
/// secrets out of the saved environment.
fn without_secrets(argv: &[String]) -> Vec<String> {
    adapters::without_secrets(argv, looks_secret)
}

fn default_shell() -> String {
    std::env::var("SHELL")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "/bin/sh".to_string())
}

/// `process` while the pane (`id`, `state`) is live.
fn live<'a>(
    process: Option<&'a dyn Pty>,
    state: PaneState,
    id: &str,
) -> Result<&'a dyn Pty, ActorError> {
    match (process, state) {
        (Some(process), PaneState::Live) => Ok(process),
        _ => Err(ActorError::PaneNotLive {
            id: id.to_string(),
            state: state.as_str(),
            hint: "resume or respawn it first",
        }),
    }
}
