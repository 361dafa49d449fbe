//! Bringing a pane without a process back: resume (the agent's official
//! command, built by its adapter from the saved session id) and respawn
//! (the saved argv), and learning the session id that makes a resume
//! possible. A respawned child that fails within [`REVIVE_GRACE`] fails the
//! command, and the pane goes back to the tombstone it was.
//!
//! A resume succeeds only once the agent is up: its screen reads as a known
//! state, or it still runs after [`RESUME_WAIT`]. If it ends first, the
//! command fails with what it printed since the resume. An agent that was
//! found running inside the pane's shell comes back inside a fresh shell:
//! the shell starts in the saved cwd and the resume command is typed into
//! it, so when the agent ends the user is at their prompt again.

use std::time::Duration;

use ractor::RpcReplyPort;
use signaltty_adapters::{self as adapters, AgentKind};
use signaltty_persistence::AgentRecord;
use signaltty_screen::{Screen, Size, Style};
use tracing::{info, warn};

use super::subscribers::Revive;
use super::{Myself, Pane, REVIVE_GRACE, Revival, SelfMsg};
use crate::error::ActorError;
use crate::model::{PaneState, resume_command};
use signaltty_adapters::AgentFacts;

impl Pane {
    pub(super) fn not_live(&self, action: &str) -> Result<(), ActorError> {
        if self.state == PaneState::Live {
            return Err(ActorError::Refused(format!(
                "pane {} is LIVE; only a pane without a process can be {action}",
                self.record.id
            )));
        }
        Ok(())
    }

    /// What `r` on this pane runs, for clients to say before they do it:
    /// the agent's resume when it has a session to resume (even after its
    /// process ended: a resumed agent's saved command is its resume
    /// anyway), else the saved command. `None` while a process runs.
    pub(super) fn revive_offer(&self) -> Option<Revive> {
        if self.state == PaneState::Live {
            return None;
        }
        match resume_command(&self.record) {
            Some(command) => Some(Revive::Resume {
                argv: command.argv,
                dropped: command.dropped,
            }),
            None if self.record.argv.is_empty() => None,
            None => Some(Revive::Respawn(self.record.argv.clone())),
        }
    }

    /// What a resume spawns, and the agent that must come up.
    pub(super) fn resume_plan(&self) -> Result<(Vec<String>, Resuming), ActorError> {
        self.not_live("resumed")?;
        let command = resume_command(&self.record).map(|c| c.argv).ok_or_else(|| {
            ActorError::Refused(format!(
                "pane {} has no agent session id to resume; an agent's hook can report one with \
                 `signaltty ctl report-session {} ID`, or use `signaltty ctl respawn {}`",
                self.record.id, self.record.id, self.record.id
            ))
        })?;
        let kind = self.recorded_kind();
        if is_interactive_shell(&self.record.argv) && adapters::detect(&self.record.argv) != kind {
            let mut typed = shell_words(&command).into_bytes();
            typed.push(b'\r');
            let resuming = Resuming {
                kind,
                typed: Some(typed),
                in_shell: true,
                seen: false,
            };
            return Ok((self.record.argv.clone(), resuming));
        }
        let resuming = Resuming {
            kind,
            typed: None,
            in_shell: false,
            seen: false,
        };
        Ok((command, resuming))
    }

    /// Starts `argv` as a fresh child in this pane, keeping its id, title,
    /// cwd and history. The reply waits [`REVIVE_GRACE`]: a child that
    /// fails by then fails the command and the pane stays a tombstone.
    pub(super) fn revive(
        &mut self,
        myself: &Myself,
        argv: Vec<String>,
        resume: Option<Resuming>,
        reply: RpcReplyPort<Result<(), ActorError>>,
    ) {
        let before = self.record.clone();
        let state_before = self.state;
        self.record.argv = argv;
        if let Some(agent) = self.record.agent.as_mut() {
            agent.ended = false;
        }
        if let Err(e) = self.start_process(myself, true) {
            self.record = before;
            let _ = reply.send(Err(self.revive_error(&e.to_string())));
            return;
        }
        self.publish();
        let wait = if resume.is_some() {
            RESUME_WAIT
        } else {
            REVIVE_GRACE
        };
        if resume.as_ref().is_some_and(|r| r.typed.is_some()) {
            let spawn = self.spawn;
            myself.after(TYPE_FALLBACK, SelfMsg::TypeResume { spawn });
        }
        self.revival = Some(Revival {
            reply,
            before,
            state_before,
            resume,
            output_from: self.ring.end(),
        });
        let spawn = self.spawn;
        myself.after(wait, SelfMsg::ReviveSettled { spawn });
    }

    /// The wait is over and the child still runs: a respawn succeeded, and
    /// so did a resume — unless the shell never started the agent.
    pub(super) fn revival_settled(&mut self) {
        let Some(revival) = self.revival.take() else {
            return;
        };
        if revival
            .resume
            .as_ref()
            .is_some_and(|r| r.in_shell && !r.seen)
        {
            self.fail_revival(revival, "the shell did not start the agent");
            return;
        }
        let _ = revival.reply.send(Ok(()));
    }

    /// The first output of a resumed shell: its prompt is up, so the
    /// resume command can be typed.
    pub(super) fn on_revival_output(&mut self, myself: &Myself) {
        if self
            .revival
            .as_ref()
            .and_then(|r| r.resume.as_ref())
            .is_some_and(|r| r.typed.is_some())
        {
            let spawn = self.spawn;
            myself.after(Duration::from_millis(50), SelfMsg::TypeResume { spawn });
        }
    }

    pub(super) fn type_resume(&mut self) {
        let typed = self
            .revival
            .as_mut()
            .and_then(|r| r.resume.as_mut())
            .and_then(|r| r.typed.take());
        // The shell was just started, so its queue has room for one line;
        // a queue that somehow has none loses the line, and the wait for
        // the agent then reports the resume as failed.
        if let (Some(typed), Some(process)) = (typed, &self.process)
            && let Ok(piece) = self.input.try_reserve(typed)
        {
            process.write(piece);
        }
    }

    /// The screen reads as a state of `kind`: if that is the agent being
    /// resumed, it is up.
    pub(super) fn revival_recognised(&mut self, kind: AgentKind) {
        if self
            .revival
            .as_ref()
            .and_then(|r| r.resume.as_ref())
            .is_some_and(|r| r.kind == kind && r.typed.is_none())
            && let Some(revival) = self.revival.take()
        {
            let _ = revival.reply.send(Ok(()));
        }
    }

    /// The foreground process is `kind` now: in a resumed shell, the agent
    /// came up — or, once it had, it ended.
    pub(super) fn revival_saw(&mut self, kind: AgentKind) {
        let Some(resuming) = self
            .revival
            .as_mut()
            .and_then(|r| r.resume.as_mut())
            .filter(|r| r.in_shell)
        else {
            return;
        };
        if kind == resuming.kind {
            resuming.seen = true;
        } else if kind == AgentKind::Generic
            && resuming.seen
            && let Some(revival) = self.revival.take()
        {
            self.fail_revival(revival, "the agent ended");
        }
    }

    /// The revived child failed: the pane goes back to what it was, and the
    /// command fails with what the child printed since it started.
    pub(super) fn fail_revival(&mut self, revival: Revival, what: &str) {
        let printed = self.printed_since(revival.output_from);
        let reason = if printed.is_empty() {
            what.to_string()
        } else {
            format!("{what} after printing: {printed}")
        };
        warn!(what, "revived child failed; the pane stays a tombstone");
        if self.process.take().is_some() {
            // The shell still runs: hang it up, and ignore its last events.
            self.spawn += 1;
        }
        self.record = revival.before;
        self.state = revival.state_before;
        let _ = revival.reply.send(Err(self.revive_error(&reason)));
        self.publish();
        self.publish_tail();
    }

    /// The last lines the revived child printed (not the restored history).
    fn printed_since(&self, offset: u64) -> String {
        let Ok(bytes) = self.ring.read_from(offset) else {
            return String::new();
        };
        let start = bytes.len().saturating_sub(PRINTED_BYTES);
        let size = self.screen.size();
        let mut scratch = Screen::new(
            Size {
                rows: size.rows,
                cols: size.cols,
            },
            0,
        );
        scratch.feed(&bytes[start..], &mut Vec::new());
        scratch
            .tail_text(PRINTED_LINES, Style::Plain)
            .trim()
            .to_string()
    }

    /// A failed resume or respawn, with the adapter's word on what it ran.
    pub(super) fn revive_error(&self, reason: &str) -> ActorError {
        let program = self.record.argv.first().cloned().unwrap_or_default();
        let agent = self.recorded_kind().program();
        let hint = match agent {
            Some(program) => format!(
                "; the {program} CLI must be installed and on PATH, and the session must still exist"
            ),
            None => String::new(),
        };
        ActorError::ReviveFailed(format!(
            "pane {} ({program}) did not start: {reason}{hint}",
            self.record.id
        ))
    }

    pub(super) fn report_session(
        &mut self,
        kind: Option<AgentKind>,
        id: &str,
    ) -> Result<(), ActorError> {
        let bad = |e: adapters::AdapterError| ActorError::BadRequest(e.to_string());
        let kind = match (kind, &self.record.agent) {
            (Some(kind), _) => kind,
            (None, Some(agent)) => AgentKind::parse(&agent.kind).unwrap_or(AgentKind::Generic),
            (None, None) => adapters::detect(&self.record.argv),
        };
        let id = adapters::validate_session_id(kind, id).map_err(bad)?;
        let agent = self.record.agent.get_or_insert_with(AgentRecord::default);
        if agent.kind != kind.as_str() {
            agent.resume_argv = None;
            agent.model = None;
        }
        agent.kind = kind.as_str().to_string();
        agent.agent_session_id = Some(id.as_str().to_string());
        if self.state == PaneState::Restored && resume_command(&self.record).is_some() {
            self.state = PaneState::Resumable;
        }
        info!(kind = kind.as_str(), "session id reported");
        self.publish();
        Ok(())
    }
}

/// How long a resumed agent has to come up before a resume counts as done.
pub const RESUME_WAIT: Duration = Duration::from_secs(10);
/// A resumed shell that prints nothing gets its command typed after this.
const TYPE_FALLBACK: Duration = Duration::from_secs(2);
/// What a failed revival's error shows of its output, at most.
const PRINTED_LINES: usize = 8;
const PRINTED_BYTES: usize = 64 * 1024;

/// A resume in progress: the agent that must come up.
pub(super) struct Resuming {
    kind: AgentKind,
    /// The command still to type into the fresh shell.
    typed: Option<Vec<u8>>,
    /// The agent comes back inside a shell.
    in_shell: bool,
    /// The agent was seen in the shell's foreground.
    seen: bool,
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
