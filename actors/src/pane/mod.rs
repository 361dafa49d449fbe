//! The pane actor: one PTY child, its output ring and its screen.
//!
//! A pane is either live (a child runs on its PTY) or a tombstone (restored
//! after a restart, or standing in for an actor that failed): a tombstone
//! keeps its record and shows its saved tail, so the slot in the layout is
//! never a hole. The pane publishes its record to the snapshot actor on
//! every change and a fresh tail at most once per [`TAIL_DEBOUNCE`].
//!
//! # Layout
//!
//! This file holds the pane's state, the actor and what every part shares
//! (publishing, notifying, the tail, starting a child). The messages are in
//! `messages.rs`, and `route.rs` hands each to the part that handles it:
//! `requests.rs` (what clients and other actors ask) and `events.rs` (the
//! child's events, the pane's timers, the answers of its off-actor reads).
//! The parts own their state and are told only what they read:
//! `revive.rs` (resume and respawn), `aware.rs` (which agent runs and what
//! it is doing), `attention.rs`, `wait.rs` (`ctl wait`), `prompt.rs`
//! (`ctl agent prompt`), `flood.rs` (what output may cost), `freezer.rs`
//! (the screen nobody looks at), `hibernate.rs` (an idle agent put to
//! sleep), `title.rs` and `worktree.rs`. Below them:
//! `process.rs`, `pty.rs` and `reaper.rs` (the child and its terminal),
//! `ring.rs` (recent output), `subscribers.rs` (attached clients) and
//! `input.rs` (keystrokes waiting for the program).

mod attention;
pub mod aware;
mod events;
mod flood;
mod freezer;
pub mod handover;
mod hibernate;
pub mod input;
mod mailbox;
mod messages;
pub mod process;
pub mod prompt;
pub mod pty;
pub mod reaper;
mod requests;
mod revive;
pub mod ring;
mod route;
pub mod server_binary;
pub mod subscribers;
#[cfg(test)]
mod tests;
mod title;
pub mod wait;
pub mod worktree;

use std::os::fd::RawFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use ractor::{Actor, ActorProcessingErr, ActorRef};
use signaltty_adapters::{self as adapters, AgentFacts, AgentKind};
use signaltty_persistence::{DEFAULT_TAIL_CAP, Lifecycle, PtySize, Severity, filter_env};
use signaltty_screen::{KeyTarget, ScreenEvent, Size};
use signaltty_types::{AgentRecord, PaneRecord};
use tracing::{Instrument, info, info_span, warn};

use crate::error::{ActorError, SpawnError};
use crate::model::{PaneState, PaneView};
use crate::snapshot::{SnapshotMsg, publish};
use attention::Axes;
use flood::OutputGates;
use freezer::PaneScreen;
pub use freezer::{ReadOut, ReadWhat, SCROLLBACK_LINES};
use handover::{HandedChild, HandedPane, HandedScreen};
use input::InputQueue;
pub use messages::{Attached, Internal, PaneMsg};
use messages::{Myself, SelfMsg};
use process::SpawnSpec;
use pty::{NativePty, OpenPty, Pty};
use reaper::Reaper;
pub use revive::{REVIVE_GRACE, restored_state, resume_command};
use ring::{DEFAULT_RING_BYTES, OutputRing};
use subscribers::{Output, PaneStatus, Subscribers};

/// How often a pane with new output renders and publishes its tail.
pub const TAIL_DEBOUNCE: Duration = Duration::from_millis(500);
/// How soon after output the foreground process's working directory is
/// looked at. A `cd` always ends in output (the next prompt), so a pane
/// that prints nothing costs nothing.
pub const CWD_POLL: Duration = Duration::from_secs(1);
/// After the child is reaped, how long to wait for its last output.
const EXIT_DRAIN: Duration = Duration::from_millis(500);
/// How soon a lagging client is offered a fresh snapshot again (a frame:
/// the multiplexer gets a picture of a flooding pane this often).
const CATCH_UP: Duration = Duration::from_millis(16);

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
#[derive(Debug)]
pub enum PaneStart {
    /// A new pane: the adapters may give an agent a session id at launch.
    Launch,
    /// Come up without a process, showing `tail` if there is one.
    Tombstone {
        state: PaneState,
        tail: Option<String>,
    },
    /// Come up as the previous server handed the pane over, its child
    /// running on (see `handover.rs`).
    Adopt(Box<handover::HandedPane>),
}

#[derive(Debug)]
pub struct PaneArgs {
    pub record: PaneRecord,
    pub start: PaneStart,
    pub context: PaneContext,
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
    /// What attached clients were last told.
    announced: Option<PaneStatus>,
    /// Bounds what output can cost: notifications and record publishes.
    gates: OutputGates,
    input: InputQueue,
    context: PaneContext,
    aware: aware::Awareness,
    waiters: wait::Waiters,
    prompts: prompt::Prompts,
    hibernation: hibernate::Hibernation,
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
            announced: None,
            gates: OutputGates::default(),
            input: InputQueue::default(),
            context: args.context,
            aware: aware::Awareness::default(),
            waiters: wait::Waiters::default(),
            prompts: prompt::Prompts::default(),
            hibernation: hibernate::Hibernation::default(),
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
            PaneStart::Adopt(handed) => pane.adopt(&Myself(myself), *handed)?,
            PaneStart::Tombstone { state, tail } => {
                // An older build may have saved a command with a secret.
                pane.record.argv = process::without_secrets(&pane.record.argv);
                pane.pending_history = tail;
                // Nothing needs a restored pane's screen until it is used.
                pane.screen.freeze();
                pane.state = state;
                // A restored pane's process did not end on its own: it
                // stays "was running" until it is revived or ends. A
                // hibernated one ended on purpose.
                pane.record.running = matches!(state, PaneState::Restored | PaneState::Resumable);
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
        self.route(&myself, msg).await;
        self.screen.schedule_check(&myself.mailbox());
        self.deliver_queued_prompt(&myself);
    }

    /// The kind of agent whose rules apply now (see `aware.rs`).
    fn current_kind(&self) -> AgentKind {
        self.aware.kind(&self.record)
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
        let now = self.status();
        if self.announced.as_ref() != Some(&now) {
            self.announced = Some(now.clone());
            self.subscribers.state(
                now,
                Output {
                    ring: &self.ring,
                    snapshot: || self.screen.replay(),
                },
            );
        }
    }

    /// What attached clients are told of the pane now.
    fn status(&self) -> PaneStatus {
        PaneStatus {
            state: self.state,
            exit_code: self.record.exit_code,
            revive: revive::offer(self.state, &self.record),
            shift_enter_as: self.current_kind().newline_key(),
        }
    }

    /// What decides the bytes a key becomes for the pane's program.
    fn key_target(&mut self) -> KeyTarget {
        KeyTarget {
            modes: self.screen.modes(),
            shift_enter_as: self.current_kind().newline_key(),
        }
    }

    /// Records a notification from `source` and raises attention to match.
    fn notify(&mut self, source: &str, severity: Severity, title: &str, body: &str) {
        let notification = self.record.notification(source, severity, title, body);
        publish(SnapshotMsg::Notify(notification));
        self.publish();
    }

    /// Answers every wait whose condition holds now (see `wait.rs`).
    fn check_waiters(&mut self, new_lines: usize) {
        let now = wait::Now::of(
            &self.record,
            self.runs(),
            self.prompts.pending(),
            &mut self.screen,
        );
        self.waiters.check(now, new_lines);
    }

    /// Whether the pane's program runs, for a wait: a hibernated agent has
    /// not ended, and is as idle as it was when it fell asleep.
    fn runs(&self) -> bool {
        self.process.is_some() || self.state == PaneState::Hibernated
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
            agent_session_id: plan.session_id.map(|id| id.as_str().to_string()),
            ..AgentRecord::of(kind)
        });
    }

    fn start_process(&mut self, myself: &Myself, restored: bool) -> Result<(), SpawnError> {
        self.spawn += 1;
        let spec = SpawnSpec {
            argv: self.record.argv.clone(),
            cwd: PathBuf::from(&self.record.cwd),
            env: child_env(&self.record, &self.context.socket_path, restored),
            rows: self.record.pty_size.rows,
            cols: self.record.pty_size.cols,
        };
        let process = self.context.ptys.open(
            &spec,
            self.spawn,
            self.event_sink(myself),
            &self.context.reaper,
        )?;
        // The child runs with every word it was given; what is saved, shown,
        // logged, resumed or respawned has none that may hold a secret.
        self.record.argv = process::without_secrets(&spec.argv);
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

    /// Takes the pane over as the previous server described it.
    fn adopt(&mut self, myself: &Myself, handed: HandedPane) -> Result<(), SpawnError> {
        let HandedPane {
            record,
            state,
            spawn,
            screen,
            process,
        } = handed;
        self.record = record;
        self.state = state;
        self.spawn = spawn;
        match screen {
            HandedScreen::Encoded(bytes) => match handover::decode_screen(&bytes) {
                Ok(frozen) => self.screen = PaneScreen::thawing_later(frozen),
                Err(e) => warn!(error = %e, "the pane's screen was not carried over"),
            },
            HandedScreen::Tail(tail) => {
                self.pending_history = Some(tail);
                self.screen.freeze();
            }
        }
        let Some(child) = process else {
            return Ok(());
        };
        let process =
            self.context
                .ptys
                .adopt(child, spawn, self.event_sink(myself), &self.context.reaper)?;
        info!(pid = process.pid(), "pane taken over");
        self.process = Some(process);
        Ok(())
    }

    /// The pane described for the server that takes over (see
    /// `handover.rs`), its process paused.
    fn hand_over(&mut self) -> HandedPane<RawFd> {
        let screen = match &self.pending_history {
            Some(tail) => HandedScreen::Tail(tail.clone()),
            None => HandedScreen::Encoded(handover::encode_screen(self.screen.frozen())),
        };
        let process = self.process.as_deref().and_then(|process| {
            Some(HandedChild {
                pid: process.pid(),
                master: process.master_fd()?,
                identity: process.identity(),
                exit_code: self.exit_pending,
            })
        });
        HandedPane {
            record: self.record.clone(),
            state: self.state,
            spawn: self.spawn,
            screen,
            process,
        }
    }

    /// Where the pane's process sends its events.
    fn event_sink(&self, myself: &Myself) -> process::EventSink {
        let pane = myself.clone();
        Arc::new(move |event| pane.send(SelfMsg::Process(event)))
    }

    /// Recomputes the shown title (see `title.rs`); true when it changed.
    fn refresh_title(&mut self) -> bool {
        title::refresh(&mut self.record, self.screen.title())
    }
}

/// What a child of the pane `record` describes gets on top of the
/// server's environment: its pane and workspace, how to reach the server
/// (`socket`) and which binary it runs (for agent hooks, see
/// `server_binary.rs`), the pane's saved variables, and whether it was
/// `restored`.
fn child_env(record: &PaneRecord, socket: &Path, restored: bool) -> Vec<(String, String)> {
    let mut env = vec![
        ("SIGNALTTY_PANE".to_string(), record.id.to_string()),
        (
            "SIGNALTTY_WORKSPACE".to_string(),
            record.workspace_id.to_string(),
        ),
        ("SIGNALTTY_SOCKET".to_string(), socket.display().to_string()),
    ];
    if let Some(binary) = server_binary::current() {
        env.push(("SIGNALTTY_BIN".to_string(), binary.display().to_string()));
    }
    env.extend(record.env.iter().map(|(k, v)| (k.clone(), v.clone())));
    // The screen keeps 24-bit colour, and programs (gemini) ask.
    env.push(("COLORTERM".to_string(), "truecolor".to_string()));
    if restored {
        env.push(("SIGNALTTY_RESTORED".to_string(), "1".to_string()));
    }
    env
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
        (_, PaneState::Hibernated) => Err(ActorError::PaneNotLive {
            id: id.to_string(),
            state: state.as_str(),
            hint: "wake it first (`signaltty ctl wake`, or `ctl agent prompt`, which wakes it)",
        }),
        _ => Err(ActorError::PaneNotLive {
            id: id.to_string(),
            state: state.as_str(),
            hint: "resume or respawn it first",
        }),
    }
}
