//! `ctl agent prompt`: typing a prompt into an agent and submitting it the
//! way a person would, or holding it until the agent's turn ends.
//!
//! A prompt is typed as a paste (bracketed when the agent asked for
//! bracketed paste, as every agent CLI does), then submitted with Enter a
//! moment later: typed at once, the Enter would land inside the paste's
//! burst, which some agents read as a newline in the prompt. An agent at a
//! permission or question prompt is `blocked` and refuses, since the text
//! would answer the dialog; one that is `working` refuses too, unless the
//! prompt is queued — then it is typed when the agent is next idle, one
//! prompt per turn.

use std::collections::VecDeque;
use std::time::Duration;

use signaltty_adapters::AgentKind;
use signaltty_persistence::Lifecycle;

use super::freezer::PaneScreen;
use super::input::{InputPiece, InputQueue, pieces};
use super::mailbox::Mailbox;
use super::pty::Pty;
use crate::error::ActorError;

/// The most prompts one pane holds for later.
pub const MAX_QUEUED_PROMPTS: usize = 16;
/// The most bytes of prompts one pane holds for later.
pub const MAX_QUEUED_BYTES: usize = 1024 * 1024;
/// Between the paste and the Enter that submits it.
const SUBMIT_DELAY: Duration = Duration::from_millis(150);
/// How long a delivered prompt may take to make the agent work before the
/// next queued one is typed anyway (an agent that answers at once may
/// never be seen working).
const TURN_START: Duration = Duration::from_secs(10);

/// What became of a prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prompted {
    /// Typed and submitted.
    Sent,
    /// Held until the agent is idle; its place in the queue, from 1.
    Queued(usize),
}

/// A pane's prompts: the ones held for later, and the one just typed.
#[derive(Debug, Default)]
pub(super) struct Prompts {
    queue: VecDeque<String>,
    queued_bytes: usize,
    /// A prompt was typed and its turn has not been seen to start.
    awaiting_turn: bool,
    /// Which delivery a `PromptSettled` belongs to.
    delivery: u64,
}

/// What to do with a prompt that may be sent.
pub(super) enum Next {
    /// Type it now.
    Type(String),
    /// It was queued; its place in the queue, from 1.
    Queued(usize),
}

impl Prompts {
    /// A prompt was typed whose turn has not been seen to start, or one
    /// waits in the queue: the agent's work is not over.
    pub(super) fn pending(&self) -> bool {
        self.awaiting_turn || !self.queue.is_empty()
    }

    /// What to do with `text` for the `kind` agent in pane `id`, which is
    /// `lifecycle` now: type it at once, or queue it (`queue`) while the
    /// agent works.
    pub(super) fn offer(
        &mut self,
        id: &str,
        kind: AgentKind,
        lifecycle: Lifecycle,
        text: String,
        queue: bool,
    ) -> Result<Next, ActorError> {
        if kind == AgentKind::Generic {
            return Err(ActorError::BadRequest(format!(
                "pane {id} runs no agent signaltty knows; type into it with `ctl send {id} TEXT --enter`"
            )));
        }
        match lifecycle {
            Lifecycle::Blocked => Err(ActorError::Blocked(format!(
                "the agent in pane {id} waits at a permission or question prompt; answer it \
                 (`ctl send-keys {id} …`, or attach) before prompting"
            ))),
            Lifecycle::Working if queue => self.hold(id, text).map(Next::Queued),
            Lifecycle::Working => Err(ActorError::Busy(format!(
                "the agent in pane {id} is working; wait for it (`ctl wait {id} --lifecycle idle`) \
                 or queue the prompt with --queue"
            ))),
            _ if queue && !self.queue.is_empty() => self.hold(id, text).map(Next::Queued),
            _ => Ok(Next::Type(text)),
        }
    }

    /// Holds `text` for later; its place in the queue, from 1.
    pub(super) fn hold(&mut self, pane_id: &str, text: String) -> Result<usize, ActorError> {
        if self.queue.len() >= MAX_QUEUED_PROMPTS
            || self.queued_bytes + text.len() > MAX_QUEUED_BYTES
        {
            return Err(ActorError::Busy(format!(
                "pane {pane_id} already holds {} prompts ({} bytes), the most it keeps; wait for the agent",
                self.queue.len(),
                self.queued_bytes
            )));
        }
        self.queued_bytes += text.len();
        self.queue.push_back(text);
        Ok(self.queue.len())
    }

    /// Whether the next queued prompt is due: the agent (`agent`: the pane
    /// runs one) is idle, being `lifecycle`, and the last prompt's turn has
    /// started. Called after every message.
    pub(super) fn due(&mut self, lifecycle: Lifecycle, agent: bool) -> bool {
        if matches!(lifecycle, Lifecycle::Working | Lifecycle::Blocked) {
            self.awaiting_turn = false;
        }
        let idle = matches!(lifecycle, Lifecycle::Idle | Lifecycle::Done);
        !self.queue.is_empty() && idle && agent && !self.awaiting_turn
    }

    /// Drops every queued prompt (the agent is gone); how many there were.
    pub(super) fn forget(&mut self) -> usize {
        let dropped = self.queue.len();
        self.queue.clear();
        self.queued_bytes = 0;
        dropped
    }

    /// The next queued prompt, out of the queue.
    pub(super) fn next(&mut self) -> Option<String> {
        let text = self.queue.pop_front()?;
        self.queued_bytes -= text.len();
        Some(text)
    }

    /// A prompt was typed: its turn is awaited, for at most [`TURN_START`].
    pub(super) fn typed(&mut self, timers: &Mailbox<'_, PromptTimer>) {
        self.awaiting_turn = true;
        self.delivery += 1;
        let delivery = self.delivery;
        timers.after(TURN_START, PromptTimer::Settled { delivery });
    }

    /// The turn a delivered prompt should have started: the queue moves on.
    /// True when that ended the agent's work (for waiters to see).
    pub(super) fn settled(&mut self, delivery: u64) -> bool {
        if delivery == self.delivery && self.awaiting_turn {
            self.awaiting_turn = false;
            return true;
        }
        false
    }
}

/// The timers of a prompt's delivery.
pub(super) enum PromptTimer {
    /// The Enter after a prompt's paste.
    Submit { spawn: u64 },
    /// The turn of a delivered prompt should have started by now.
    Settled { delivery: u64 },
}

/// The pane's live process, as a prompt is typed into it.
pub(super) struct Keyboard<'a> {
    pub(super) pane_id: &'a str,
    pub(super) process: &'a dyn Pty,
    pub(super) input: &'a InputQueue,
    /// Says whether the program asked for bracketed paste.
    pub(super) screen: &'a mut PaneScreen,
    pub(super) spawn: u64,
}

impl Keyboard<'_> {
    /// Pastes `text` and schedules the Enter that submits it.
    pub(super) fn paste(
        &mut self,
        timers: &Mailbox<'_, PromptTimer>,
        text: &str,
    ) -> Result<(), ActorError> {
        let paste = paste_bytes(text, self.screen.modes().bracketed_paste);
        for piece in self.reserve(paste)? {
            self.process.write(piece);
        }
        let spawn = self.spawn;
        timers.after(SUBMIT_DELAY, PromptTimer::Submit { spawn });
        Ok(())
    }

    /// The Enter after a prompt's paste.
    pub(super) fn submit(&self) {
        if let Ok(mut pieces) = self.reserve(b"\r".to_vec())
            && let Some(piece) = pieces.pop()
        {
            self.process.write(piece);
        }
    }

    /// Room in the input queue for all of `bytes`, or for none of it.
    fn reserve(&self, bytes: Vec<u8>) -> Result<Vec<InputPiece>, ActorError> {
        pieces(bytes)
            .into_iter()
            .map(|piece| self.input.try_reserve(piece))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|full| {
                ActorError::Busy(format!(
                    "{full}: the program in pane {} is not reading its input",
                    self.pane_id
                ))
            })
    }
}

/// A prompt as a terminal pastes it: newlines as carriage returns, and
/// between `ESC [ 200 ~` and `ESC [ 201 ~` when the program asked, with
/// any end marker inside the text taken out so it cannot end the paste.
fn paste_bytes(text: &str, bracketed: bool) -> Vec<u8> {
    let text = text
        .replace("\x1b[201~", "")
        .replace("\r\n", "\r")
        .replace('\n', "\r");
    if !bracketed {
        return text.into_bytes();
    }
    let mut bytes = b"\x1b[200~".to_vec();
    bytes.extend_from_slice(text.as_bytes());
    bytes.extend_from_slice(b"\x1b[201~");
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offer(prompts: &mut Prompts, lifecycle: Lifecycle, queue: bool) -> Result<Next, ActorError> {
        prompts.offer("p", AgentKind::Claude, lifecycle, "fix it".into(), queue)
    }

    #[test]
    fn a_working_agent_queues_prompts_only_when_asked_and_gets_them_when_idle() {
        let mut prompts = Prompts::default();
        assert!(matches!(
            offer(&mut prompts, Lifecycle::Working, false),
            Err(ActorError::Busy(_))
        ));
        assert!(matches!(
            offer(&mut prompts, Lifecycle::Blocked, true),
            Err(ActorError::Blocked(_))
        ));
        assert!(matches!(
            offer(&mut prompts, Lifecycle::Working, true),
            Ok(Next::Queued(1))
        ));
        // Behind a queued prompt, an idle agent's queued prompt waits too.
        assert!(matches!(
            offer(&mut prompts, Lifecycle::Idle, true),
            Ok(Next::Queued(2))
        ));
        assert!(prompts.pending());
        assert!(!prompts.due(Lifecycle::Working, true));
        assert!(!prompts.due(Lifecycle::Idle, false));
        assert!(prompts.due(Lifecycle::Idle, true));
        assert_eq!(prompts.next().as_deref(), Some("fix it"));
        assert_eq!(prompts.next().as_deref(), Some("fix it"));
        assert_eq!(prompts.next(), None);
        assert!(!prompts.pending());
    }

    #[test]
    fn a_program_that_is_no_agent_is_not_prompted() {
        let mut prompts = Prompts::default();
        let offered = prompts.offer("p", AgentKind::Generic, Lifecycle::Idle, "x".into(), false);
        assert!(matches!(offered, Err(ActorError::BadRequest(_))));
    }

    #[test]
    fn a_paste_is_bracketed_when_asked_and_cannot_be_ended_by_its_text() {
        assert_eq!(paste_bytes("fix\nit", false), b"fix\rit");
        assert_eq!(
            paste_bytes("a\r\nb\x1b[201~rm -rf", true),
            b"\x1b[200~a\rbrm -rf\x1b[201~"
        );
    }
}
