//! Hibernation: an idle agent gives its memory back, and wakes where it was.
//!
//! An agent may sleep only when bringing it back is certain and nothing is
//! lost by ending it now (see [`refusal`]): its kind has a resume command,
//! its session id is known, it is idle or done, no client shows it,
//! nothing is typed in its input box, and no process of its own is busy
//! (see [`STARTUP`]). It is put to sleep the way it ends a session itself:
//! its exit command typed into its input box (`[exit]` in its data file),
//! then, after [`EXIT_GRACE`], SIGTERM and SIGHUP to its process groups
//! (SIGHUP is what an interactive shell heeds, and an agent typed into a
//! shell leaves the shell behind), and SIGKILL after [`TERM_GRACE`]. Once
//! the pane's process has ended, the pane is HIBERNATED: its screen and
//! scrollback stay, its record says since when, and a restart brings it
//! back as it was. Waking is a resume (see `revive.rs`) whose failure
//! leaves the pane EXITED.

use std::time::Duration;

use signaltty_adapters::{AgentFacts, AgentKind};
use signaltty_persistence::Lifecycle;
use signaltty_types::PaneRecord;

use super::input::InputQueue;
use super::mailbox::Mailbox;
use super::pty::Pty;
use super::revive::resume_command;
use crate::error::ActorError;
use crate::model::PaneState;

/// How a hibernate request is answered.
pub(super) type Reply = ractor::RpcReplyPort<Result<(), ActorError>>;

/// How long the agent has to end its session after its exit command.
pub const EXIT_GRACE: Duration = Duration::from_secs(10);
/// How long its processes have to end after SIGTERM, before SIGKILL.
pub const TERM_GRACE: Duration = Duration::from_secs(5);
/// Processes of the pane that started this soon after the agent are its
/// own servers (MCP servers start with it); any other keeps it awake.
pub const STARTUP: Duration = Duration::from_secs(10);
/// How long the agent's own servers are watched for CPU use before it
/// sleeps: one at work keeps it awake.
pub const BUSY_SAMPLE: Duration = Duration::from_millis(250);
/// Between the exit command and the Enter that submits it, as a person
/// types them (an Enter in the same burst reads as part of a paste).
const SUBMIT_DELAY: Duration = Duration::from_millis(150);

/// What falling asleep sends the pane.
pub(super) enum SleepEvent {
    /// What else runs among the pane's processes (`others`), looked at off
    /// the actor.
    Checked { spawn: u64, others: Vec<String> },
    /// The time of a stage of falling asleep is up.
    Step { spawn: u64 },
}

/// A pane falling asleep, if one is.
#[derive(Default)]
pub(super) struct Hibernation {
    falling: Option<Falling>,
}

struct Falling {
    /// The process being put to sleep.
    spawn: u64,
    stage: Stage,
    /// `None` once answered, or for a sleep nobody waits on.
    reply: Option<Reply>,
}

/// How far a pane is on its way to sleep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Its processes are being looked at (off the actor).
    Checking,
    /// The exit command is typed; Enter is next.
    Typed,
    /// The exit command is submitted; the agent has [`EXIT_GRACE`].
    Exiting,
    /// SIGTERM and SIGHUP are sent; SIGKILL follows after [`TERM_GRACE`].
    Terminated,
    /// SIGKILL is sent; only the reaper is left to hear of it.
    Killed,
}

/// What decides whether a pane may sleep, as the pane sees itself now.
pub(super) struct Look<'a> {
    pub record: &'a PaneRecord,
    pub state: PaneState,
    pub kind: AgentKind,
    /// The screen's text, where the input box is.
    pub screen: &'a str,
    pub watched: bool,
    /// A prompt of `ctl agent prompt` waits to be typed or to start.
    pub prompts_pending: bool,
    /// A resume or respawn is still waiting to see its child up.
    pub reviving: bool,
}

/// Why the pane `look` describes may not sleep now; `None` if it may (its
/// processes are looked at next, see [`STARTUP`]).
pub(super) fn refusal(look: &Look<'_>) -> Option<String> {
    let kind = look.kind;
    if look.state != PaneState::Live {
        return Some(format!("it is {}, not LIVE", look.state));
    }
    if look.record.pinned {
        return Some("it is pinned (`signaltty ctl unpin` lets it sleep)".into());
    }
    if kind == AgentKind::Generic {
        return Some("it runs no agent signaltty knows".into());
    }
    if !kind.has_official_resume() {
        return Some(format!(
            "{} has no official resume command to wake it with",
            kind.as_str()
        ));
    }
    if resume_command(look.record).is_none() {
        return Some(format!(
            "the {} session id is not known yet, so it could not be resumed",
            kind.as_str()
        ));
    }
    let Some(empty) = kind.input_is_empty(look.screen) else {
        return Some(format!(
            "the data file of {} does not say how it ends a session or where its input box is",
            kind.as_str()
        ));
    };
    let lifecycle = look.record.lifecycle;
    if !matches!(lifecycle, Lifecycle::Idle | Lifecycle::Done) {
        return Some(format!(
            "its agent is {}, not idle or done",
            lifecycle_name(lifecycle)
        ));
    }
    if look.watched {
        return Some("a client shows it".into());
    }
    if look.prompts_pending {
        return Some("a prompt sent to it has not started its turn".into());
    }
    if look.reviving {
        return Some("it is still coming up".into());
    }
    if !empty {
        return Some("text is typed in its input box but not sent".into());
    }
    None
}

fn lifecycle_name(lifecycle: Lifecycle) -> &'static str {
    match lifecycle {
        Lifecycle::Working => "working",
        Lifecycle::Blocked => "blocked",
        Lifecycle::Done => "done",
        Lifecycle::Idle => "idle",
        Lifecycle::Failed => "failed",
        Lifecycle::Exited => "exited",
        Lifecycle::Unknown => "in an unknown state",
    }
}

/// The error for pane `id` that may not sleep because of `why`.
pub(super) fn refused(id: &str, why: &str) -> ActorError {
    ActorError::Refused(format!(
        "pane {id} cannot hibernate: {why} (`signaltty ctl explain {id}` says more)"
    ))
}

impl Hibernation {
    /// Whether a pane is on its way to sleep.
    pub(super) fn falling(&self) -> bool {
        self.falling.is_some()
    }

    /// Process `spawn` is to sleep: its processes are looked at first.
    pub(super) fn begin(&mut self, spawn: u64, reply: Option<Reply>) {
        self.falling = Some(Falling {
            spawn,
            stage: Stage::Checking,
            reply,
        });
    }

    /// The pane cannot sleep after all: `error` answers the request.
    pub(super) fn abandon(&mut self, error: ActorError) {
        if let Some(reply) = self.falling.take().and_then(|f| f.reply) {
            let _ = reply.send(Err(error));
        }
    }

    /// The look at its processes found nothing else running: the agent is
    /// asked to end its session (`exit`: its exit command), or, with none,
    /// its processes are told to end.
    pub(super) fn checked(
        &mut self,
        steps: &Mailbox<'_, SleepEvent>,
        process: &dyn Pty,
        input: &InputQueue,
        exit: Option<&str>,
    ) {
        let Some(falling) = self.falling.as_mut() else {
            return;
        };
        let typed = exit.is_some_and(|command| type_bytes(process, input, command.as_bytes()));
        if typed {
            falling.stage = Stage::Typed;
            steps.after(
                SUBMIT_DELAY,
                SleepEvent::Step {
                    spawn: falling.spawn,
                },
            );
        } else {
            self.terminate(steps, process);
        }
    }

    /// The stage's time is up: on to the next.
    pub(super) fn step(
        &mut self,
        steps: &Mailbox<'_, SleepEvent>,
        process: &dyn Pty,
        input: &InputQueue,
    ) {
        let Some(falling) = self.falling.as_mut() else {
            return;
        };
        match falling.stage {
            Stage::Typed => {
                type_bytes(process, input, b"\r");
                falling.stage = Stage::Exiting;
                let spawn = falling.spawn;
                steps.after(EXIT_GRACE, SleepEvent::Step { spawn });
            }
            Stage::Exiting => self.terminate(steps, process),
            Stage::Terminated => {
                signal_all(process, libc::SIGKILL);
                falling.stage = Stage::Killed;
            }
            Stage::Checking | Stage::Killed => {}
        }
    }

    /// The agent left the pane's foreground (its shell is back): the shell
    /// is ended now rather than after the agent's grace.
    pub(super) fn agent_left(&mut self, steps: &Mailbox<'_, SleepEvent>, process: &dyn Pty) {
        if self
            .falling
            .as_ref()
            .is_some_and(|f| matches!(f.stage, Stage::Typed | Stage::Exiting))
        {
            self.terminate(steps, process);
        }
    }

    fn terminate(&mut self, steps: &Mailbox<'_, SleepEvent>, process: &dyn Pty) {
        let Some(falling) = self.falling.as_mut() else {
            return;
        };
        signal_all(process, libc::SIGTERM);
        signal_all(process, libc::SIGHUP);
        falling.stage = Stage::Terminated;
        let spawn = falling.spawn;
        steps.after(TERM_GRACE, SleepEvent::Step { spawn });
    }

    /// Process `spawn` ended: whether it was falling asleep (and is asleep
    /// now: the request is answered).
    pub(super) fn ended(&mut self, spawn: u64) -> bool {
        match self.falling.take() {
            Some(falling) if falling.spawn == spawn && falling.stage != Stage::Checking => {
                if let Some(reply) = falling.reply {
                    let _ = reply.send(Ok(()));
                }
                true
            }
            other => {
                self.falling = other;
                false
            }
        }
    }
}

/// Types `bytes` into the program as keys (never as a paste); false when
/// its input queue has no room.
fn type_bytes(process: &dyn Pty, input: &InputQueue, bytes: &[u8]) -> bool {
    match input.try_reserve(bytes.to_vec()) {
        Ok(piece) => {
            process.write(piece);
            true
        }
        Err(_) => false,
    }
}

/// Sends `signal` to the pane's foreground group (the agent, inside a
/// shell) and to the group its child leads.
fn signal_all(process: &dyn Pty, signal: i32) {
    if let Some(foreground) = process.foreground_pgid().filter(|g| *g != process.pid()) {
        // SAFETY: kill(2) takes plain integers.
        unsafe { libc::kill(-foreground, signal) };
    }
    let _ = process.signal(signal, true);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn look<'a>(record: &'a PaneRecord, screen: &'a str) -> Look<'a> {
        Look {
            record,
            state: PaneState::Live,
            kind: AgentKind::Claude,
            screen,
            watched: false,
            prompts_pending: false,
            reviving: false,
        }
    }

    fn idle_claude() -> PaneRecord {
        let mut record = PaneRecord::new("p", "w", "t");
        record.argv = vec!["claude".into()];
        record.lifecycle = Lifecycle::Idle;
        record.agent = Some(signaltty_types::AgentRecord {
            agent_session_id: Some("5b0e3c1a-7d2f-4e8b-9a6c-1f2e3d4c5b6a".into()),
            ..signaltty_types::AgentRecord::of(AgentKind::Claude)
        });
        record
    }

    #[test]
    fn an_idle_agent_with_a_known_session_and_an_empty_box_may_sleep() {
        let record = idle_claude();
        assert_eq!(refusal(&look(&record, "❯ \n")), None);
    }

    #[test]
    fn each_condition_keeps_an_agent_awake_on_its_own() {
        let record = idle_claude();
        let empty = "❯ \n";
        let cases: Vec<(Look<'_>, &str)> = vec![
            (
                Look {
                    state: PaneState::Exited,
                    ..look(&record, empty)
                },
                "EXITED",
            ),
            (
                Look {
                    kind: AgentKind::Generic,
                    ..look(&record, empty)
                },
                "no agent",
            ),
            (
                Look {
                    watched: true,
                    ..look(&record, empty)
                },
                "a client shows it",
            ),
            (
                Look {
                    prompts_pending: true,
                    ..look(&record, empty)
                },
                "a prompt",
            ),
            (
                Look {
                    reviving: true,
                    ..look(&record, empty)
                },
                "coming up",
            ),
            (
                look(&record, "❯ half a thought\n"),
                "typed in its input box",
            ),
            (
                Look {
                    kind: AgentKind::Gemini,
                    ..look(&record, empty)
                },
                "does not say",
            ),
        ];
        for (look, why) in cases {
            let said = refusal(&look).unwrap_or_default();
            assert!(said.contains(why), "{said:?} should say {why:?}");
        }
        for lifecycle in [Lifecycle::Working, Lifecycle::Blocked, Lifecycle::Unknown] {
            let mut record = idle_claude();
            record.lifecycle = lifecycle;
            let said = refusal(&look(&record, empty)).unwrap_or_default();
            assert!(said.contains("not idle or done"), "{lifecycle:?}: {said}");
        }
        let mut record = idle_claude();
        record.pinned = true;
        let said = refusal(&look(&record, empty)).unwrap_or_default();
        assert!(said.contains("pinned"), "{said}");
        let mut record = idle_claude();
        record.agent.as_mut().unwrap().agent_session_id = None;
        let said = refusal(&look(&record, empty)).unwrap_or_default();
        assert!(said.contains("session id is not known"), "{said}");
    }
}
