//! Bringing a pane without a process back: resume (the agent's official
//! command, built by its adapter from the saved session id) and respawn
//! (the saved argv), and learning the session id that makes a resume
//! possible. A respawned child that fails within [`REVIVE_GRACE`] fails the
//! command, and the pane goes back to the tombstone it was.
//!
//! A resume succeeds only once the agent is up: what it drew since the
//! resume began (not the restored history still on the pane's screen, which
//! may show the old agent's prompt) reads as a state of its kind, or it still
//! runs after [`RESUME_WAIT`]. If it ends first, the command fails with what
//! it drew, and only that. An agent that was
//! found running inside the pane's shell comes back inside a fresh shell:
//! the shell starts in the saved cwd and the resume command is typed into
//! it, so when the agent ends the user is at their prompt again.

use std::time::Duration;

use ractor::RpcReplyPort;
use signaltty_adapters::{self as adapters, AgentKind};
use signaltty_screen::{Screen, Size, Style};
use signaltty_types::{AgentRecord, PaneRecord};
use tracing::{info, warn};

use super::aware;
use super::input::InputQueue;
use super::mailbox::Mailbox;
use super::pty::Pty;
use super::subscribers::Revive;
use crate::error::ActorError;
use crate::model::PaneState;
use signaltty_adapters::AgentFacts;

/// How a resume or respawn is answered.
pub(super) type Reply = RpcReplyPort<Result<(), ActorError>>;

/// The revival in flight, if any: a resume or respawn waiting to see
/// whether its child survives.
#[derive(Default)]
pub(super) struct Revivals {
    current: Option<Revival>,
    /// A wake of a hibernated pane has succeeded since last asked (see
    /// [`Revivals::woke`]).
    woke: bool,
}

/// What to answer, and what to go back to, when a revived child fails.
struct Revival {
    reply: Reply,
    before: Before,
    /// A resume: the agent that must come up.
    resume: Option<Resuming>,
    /// What the revived child drew, on a screen of its own: what says a
    /// resumed agent is up, and what a failed child printed.
    drawn: Screen,
}

/// The pane as it was before a revival: what a failed one goes back to.
pub(super) struct Before {
    record: PaneRecord,
    state: PaneState,
}

/// A revival whose child failed, and how (see [`Failed::undo`]).
pub(super) struct Failed {
    revival: Revival,
    what: String,
}

pub(super) fn not_live(state: PaneState, id: &str, action: &str) -> Result<(), ActorError> {
    if state == PaneState::Live {
        return Err(ActorError::Refused(format!(
            "pane {id} is LIVE; only a pane without a process can be {action}"
        )));
    }
    Ok(())
}

/// What `r` on a pane runs, for clients to say before they do it: the
/// agent's resume when it has a session to resume (even after its process
/// ended: a resumed agent's saved command is its resume anyway), else the
/// saved command. `None` while a process runs.
pub(super) fn offer(state: PaneState, record: &PaneRecord) -> Option<Revive> {
    if state == PaneState::Live {
        return None;
    }
    match resume_command(record) {
        Some(command) => Some(Revive::Resume {
            argv: command.argv,
            dropped: command.dropped,
        }),
        None if record.argv.is_empty() => None,
        None => Some(Revive::Respawn(record.argv.clone())),
    }
}

/// What a saved pane is after a restart: HIBERNATED if its agent was put to
/// sleep and can still be woken, EXITED if its process had ended, RESUMABLE
/// if its agent can be resumed with an official command, else RESTORED.
pub fn restored_state(record: &PaneRecord) -> PaneState {
    let resumable = resume_command(record).is_some();
    if record.hibernated_at.is_some() && resumable {
        PaneState::Hibernated
    } else if !record.running {
        PaneState::Exited
    } else if resumable {
        PaneState::Resumable
    } else {
        PaneState::Restored
    }
}

/// The official resume command for a pane's agent, built by its adapter
/// from the persisted session id and launch command (with what of that
/// command it keeps and drops); `None` when there is no agent, no id, or
/// the id does not pass the adapter's validation.
pub fn resume_command(record: &PaneRecord) -> Option<adapters::ResumeCommand> {
    let agent = record.agent.as_ref()?;
    let kind = agent.kind.known()?;
    let id = adapters::validate_session_id(kind, agent.agent_session_id.as_deref()?).ok()?;
    adapters::resume_argv(kind, &record.argv, &id).ok()
}

/// What a resume spawns, and the agent that must come up.
pub(super) fn resume_plan(
    state: PaneState,
    record: &PaneRecord,
) -> Result<(Vec<String>, Resuming), ActorError> {
    not_live(state, &record.id, "resumed")?;
    let command = resume_command(record).map(|c| c.argv).ok_or_else(|| {
        ActorError::Refused(format!(
            "pane {} has no agent session id to resume; an agent's hook can report one with \
             `signaltty ctl report-session {} ID`, or use `signaltty ctl respawn {}`",
            record.id, record.id, record.id
        ))
    })?;
    let kind = record.agent_kind();
    if is_interactive_shell(&record.argv) && adapters::detect(&record.argv) != kind {
        let mut typed = shell_words(&command).into_bytes();
        typed.push(b'\r');
        let resuming = Resuming {
            kind,
            typed: Some(typed),
            in_shell: true,
            seen: false,
            waking: false,
        };
        return Ok((record.argv.clone(), resuming));
    }
    let resuming = Resuming {
        kind,
        typed: None,
        in_shell: false,
        seen: false,
        waking: false,
    };
    Ok((command, resuming))
}

/// Makes `record` run `argv` again (its id, title, cwd and history kept),
/// and says what a failed revival goes back to.
pub(super) fn prepare(record: &mut PaneRecord, state: PaneState, argv: Vec<String>) -> Before {
    let before = Before {
        record: record.clone(),
        state,
    };
    record.argv = argv;
    if let Some(agent) = record.agent.as_mut() {
        agent.ended = false;
    }
    before
}

impl Before {
    /// The child could not even start: the record goes back to what it
    /// was, and the error says why.
    pub(super) fn could_not_start(self, record: &mut PaneRecord, reason: &str) -> ActorError {
        *record = self.record;
        error(record, reason)
    }
}

/// The timers of a revival.
pub(super) enum ReviveTimer {
    /// The revived child `spawn` lived through its grace.
    Settled { spawn: u64 },
    /// Type the resume command into the fresh shell of a resumed pane.
    TypeResume { spawn: u64 },
}

impl Revivals {
    /// A revived child started as `spawn` on a pane of `size`. The reply
    /// waits [`REVIVE_GRACE`] (a resume [`RESUME_WAIT`]): a child that fails
    /// by then fails the command and the pane stays a tombstone.
    pub(super) fn begin(
        &mut self,
        timers: &Mailbox<'_, ReviveTimer>,
        spawn: u64,
        before: Before,
        resume: Option<Resuming>,
        reply: Reply,
        size: Size,
    ) {
        let wait = if resume.is_some() {
            RESUME_WAIT
        } else {
            REVIVE_GRACE
        };
        if resume.as_ref().is_some_and(|r| r.typed.is_some()) {
            timers.after(TYPE_FALLBACK, ReviveTimer::TypeResume { spawn });
        }
        self.current = Some(Revival {
            reply,
            before,
            resume,
            drawn: Screen::new(size, 0),
        });
        timers.after(wait, ReviveTimer::Settled { spawn });
    }

    /// The wait is over and the child still runs: a respawn succeeded, and
    /// so did a resume — unless the shell never started the agent.
    pub(super) fn settled(&mut self) -> Option<Failed> {
        let revival = self.current.take()?;
        if revival
            .resume
            .as_ref()
            .is_some_and(|r| r.in_shell && !r.seen)
        {
            return Some(revival.failed("the shell did not start the agent"));
        }
        self.succeeded(revival);
        None
    }

    /// The revived child exited with `code`: a resumed agent must stay
    /// up; a respawned command may end well.
    pub(super) fn exited(&mut self, code: i32) -> Option<Failed> {
        let revival = self.current.take()?;
        if code != 0 || revival.resume.is_some() {
            return Some(revival.failed(&format!("it exited with code {code}")));
        }
        let _ = revival.reply.send(Ok(()));
        None
    }

    /// The revived child (`spawn`) printed `bytes`. A resumed shell's first
    /// output is its prompt: the resume command can be typed.
    pub(super) fn on_output(
        &mut self,
        timers: &Mailbox<'_, ReviveTimer>,
        spawn: u64,
        bytes: &[u8],
    ) {
        let Some(revival) = self.current.as_mut() else {
            return;
        };
        // Its queries were answered by the pane's own screen.
        revival.drawn.feed(bytes, &mut Vec::new());
        if self.typing().is_some() {
            timers.after(Duration::from_millis(50), ReviveTimer::TypeResume { spawn });
        }
    }

    /// Types the resume command into the fresh shell, once.
    pub(super) fn type_resume(&mut self, process: Option<&dyn Pty>, input: &InputQueue) {
        let typed = self
            .current
            .as_mut()
            .and_then(|r| r.resume.as_mut())
            .and_then(|r| r.typed.take());
        // The shell was just started, so its queue has room for one line;
        // a queue that somehow has none loses the line, and the wait for
        // the agent then reports the resume as failed.
        if let (Some(typed), Some(process)) = (typed, process)
            && let Ok(piece) = input.try_reserve(typed)
        {
            process.write(piece);
        }
    }

    /// Time for a look: a resumed agent that is up makes the resume done.
    pub(super) fn look(&mut self) {
        if self.current.as_ref().is_some_and(Revival::is_up)
            && let Some(revival) = self.current.take()
        {
            self.succeeded(revival);
        }
    }

    fn succeeded(&mut self, revival: Revival) {
        self.woke |= revival.resume.as_ref().is_some_and(Resuming::is_waking);
        let _ = revival.reply.send(Ok(()));
    }

    /// Whether a wake succeeded since the last call: the pane is LIVE again
    /// only once its agent is up.
    pub(super) fn woke(&mut self) -> bool {
        std::mem::take(&mut self.woke)
    }

    /// The foreground process is `kind` now: in a resumed shell, the agent
    /// came up — or, once it had, it ended.
    pub(super) fn saw(&mut self, kind: AgentKind) -> Option<Failed> {
        let resuming = self
            .current
            .as_mut()
            .and_then(|r| r.resume.as_mut())
            .filter(|r| r.in_shell)?;
        if kind == resuming.kind {
            resuming.seen = true;
        } else if kind == AgentKind::Generic && resuming.seen {
            return self.current.take().map(|r| r.failed("the agent ended"));
        }
        None
    }

    /// Whether a revival still waits to see its child up.
    pub(super) fn in_flight(&self) -> bool {
        self.current.is_some()
    }

    /// The resume command still to type into the fresh shell.
    fn typing(&self) -> Option<&[u8]> {
        self.current
            .as_ref()
            .and_then(|r| r.resume.as_ref())
            .and_then(|r| r.typed.as_deref())
    }
}

impl Revival {
    /// A resumed agent is up once its own drawing reads as a state of its
    /// kind; in a shell, only once the shell runs it (the shell's prompt may
    /// read as the agent's).
    fn is_up(&self) -> bool {
        self.resume.as_ref().is_some_and(|r| {
            r.typed.is_none() && (!r.in_shell || r.seen) && aware::shows_state(r.kind, &self.drawn)
        })
    }

    fn failed(self, what: &str) -> Failed {
        Failed {
            revival: self,
            what: what.to_string(),
        }
    }
}

impl Failed {
    /// Whether the failed resume was to wake a hibernated pane.
    pub(super) fn was_waking(&self) -> bool {
        self.revival
            .resume
            .as_ref()
            .is_some_and(Resuming::is_waking)
    }

    /// The pane's `record` and `state` go back to what they were, and the
    /// command fails with what the child printed since it started.
    pub(super) fn undo(self, record: &mut PaneRecord, state: &mut PaneState) {
        let Failed { revival, what } = self;
        let printed = revival
            .drawn
            .tail_text(PRINTED_LINES, Style::Plain)
            .trim()
            .to_string();
        let reason = if printed.is_empty() {
            what.clone()
        } else {
            format!("{what} after printing: {printed}")
        };
        warn!(
            what = what.as_str(),
            "revived child failed; the pane stays a tombstone"
        );
        *record = revival.before.record;
        *state = revival.before.state;
        let _ = revival.reply.send(Err(error(record, &reason)));
    }
}

/// A failed resume or respawn of the pane `record` describes, with the
/// adapter's word on what it ran.
fn error(record: &PaneRecord, reason: &str) -> ActorError {
    let program = record.argv.first().cloned().unwrap_or_default();
    let agent = record.agent_kind().program();
    let hint = match agent {
        Some(program) => format!(
            "; the {program} CLI must be installed and on PATH, and the session must still exist"
        ),
        None => String::new(),
    };
    ActorError::ReviveFailed(format!(
        "pane {} ({program}) did not start: {reason}{hint}",
        record.id
    ))
}

/// The agent's session id, learned from a hook or the user: it makes a
/// restored pane resumable.
pub(super) fn report_session(
    record: &mut PaneRecord,
    state: &mut PaneState,
    kind: Option<AgentKind>,
    id: &str,
) -> Result<(), ActorError> {
    let bad = |e: adapters::AdapterError| ActorError::BadRequest(e.to_string());
    let kind = match (kind, &record.agent) {
        (Some(kind), _) => kind,
        (None, Some(agent)) => agent.kind.or_generic(),
        (None, None) => adapters::detect(&record.argv),
    };
    let id = adapters::validate_session_id(kind, id).map_err(bad)?;
    let agent = record.agent.get_or_insert_with(AgentRecord::default);
    if agent.kind != kind {
        agent.resume_argv = None;
        agent.model = None;
    }
    agent.kind = kind.into();
    agent.agent_session_id = Some(id.as_str().to_string());
    if *state == PaneState::Restored && resume_command(record).is_some() {
        *state = PaneState::Resumable;
    }
    info!(kind = kind.as_str(), "session id reported");
    Ok(())
}

/// A resumed or respawned child that fails within this long fails the
/// command, and the pane goes back to being a tombstone.
pub const REVIVE_GRACE: Duration = Duration::from_millis(1500);
/// How long a resumed agent has to come up before a resume counts as done.
pub const RESUME_WAIT: Duration = Duration::from_secs(10);
/// A resumed shell that prints nothing gets its command typed after this.
const TYPE_FALLBACK: Duration = Duration::from_secs(2);
/// What a failed revival's error shows of its output, at most.
const PRINTED_LINES: usize = 8;

/// A resume in progress: the agent that must come up.
pub(super) struct Resuming {
    kind: AgentKind,
    /// The command still to type into the fresh shell.
    typed: Option<Vec<u8>>,
    /// The agent comes back inside a shell.
    in_shell: bool,
    /// The agent was seen in the shell's foreground.
    seen: bool,
    /// It wakes a hibernated pane: a failure leaves the pane EXITED, not
    /// asleep, so looking at it does not try again and again.
    waking: bool,
}

impl Resuming {
    pub(super) fn is_waking(&self) -> bool {
        self.waking
    }

    /// The resume wakes a hibernated pane.
    pub(super) fn waking(self) -> Resuming {
        Resuming {
            waking: true,
            ..self
        }
    }
}

/// Whether `argv` starts an interactive shell (no `-c`, no script).
fn is_interactive_shell(argv: &[String]) -> bool {
    const SHELLS: &[&str] = &[
        "sh", "bash", "dash", "zsh", "fish", "ksh", "mksh", "tcsh", "csh", "nu", "elvish", "xonsh",
    ];
    let Some(program) = argv.first() else {
        return false;
    };
    let name = program.rsplit('/').next().unwrap_or(program);
    let name = name.strip_prefix('-').unwrap_or(name);
    SHELLS.contains(&name) && argv[1..].iter().all(|a| a.starts_with('-') && a != "-c")
}

/// `argv` as a POSIX shell would read it back, word for word.
fn shell_words(argv: &[String]) -> String {
    argv.iter()
        .map(|word| {
            let plain = !word.is_empty()
                && word
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_./=:,@%+-".contains(&b));
            if plain {
                word.clone()
            } else {
                format!("'{}'", word.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_string()).collect()
    }

    #[test]
    fn every_variable_that_moves_a_session_store_is_saved_with_the_pane() {
        // A resumed agent must look where it wrote its session.
        for name in adapters::store_env_names() {
            assert!(
                name == "HOME" || signaltty_persistence::is_env_allowed(name),
                "{name} moves an agent's session store but is not saved"
            );
        }
    }

    #[test]
    fn interactive_shells_are_told_from_commands() {
        assert!(is_interactive_shell(&v(&["/bin/bash"])));
        assert!(is_interactive_shell(&v(&["zsh", "-l"])));
        assert!(!is_interactive_shell(&v(&["sh", "-c", "claude"])));
        assert!(!is_interactive_shell(&v(&["bash", "script.sh"])));
        assert!(!is_interactive_shell(&v(&["claude"])));
    }

    #[test]
    fn words_are_quoted_for_a_shell() {
        assert_eq!(
            shell_words(&v(&[
                "claude",
                "--resume",
                "0b6f2c4e-1111-2222-3333-444455556666"
            ])),
            "claude --resume 0b6f2c4e-1111-2222-3333-444455556666"
        );
        assert_eq!(
            shell_words(&v(&["env", "A=it's", "x y"])),
            "env 'A=it'\\''s' 'x y'"
        );
    }
}
