//! `ctl wait`: conditions a client waits for, checked by the pane when
//! something relevant changes (pushed, never polled).
//!
//! Each waiter answers its client through a small relay task, which also
//! notices the client going away (its reply port closing: the connection
//! ended, or the request timed out) and tells the pane at once, so a
//! waiter never outlives the client that asked — even on a pane that
//! prints nothing.

use regex::Regex;
use signaltty_persistence::Lifecycle;
use signaltty_screen::Style;
use signaltty_types::PaneRecord;
use tokio::sync::oneshot;

use super::freezer::PaneScreen;
use super::mailbox::{KeptMailbox, Mailbox};
use crate::error::ActorError;

/// The most clients that may wait on one pane at once.
pub const MAX_WAITERS: usize = 32;

/// What to wait for.
#[derive(Debug, Clone)]
pub enum WaitFor {
    /// The pane's process to end (at once if it has).
    Exit,
    Lifecycle(Lifecycle),
    /// A line of the screen (or of new output) to match.
    Text(Regex),
    /// An agent's input prompt: answered once it is idle, or blocked at a
    /// dialog, or its process ended.
    Ready,
    /// The end of an agent's work: idle or done with no prompt of
    /// `ctl agent prompt` still to start a turn, or blocked, or exited.
    TurnEnd,
}

/// How a wait ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitMet {
    Exit(Option<i32>),
    Lifecycle,
    /// The line that matched.
    Text(String),
    /// The agent is idle at its prompt.
    Ready,
    /// The agent waits at a dialog.
    Blocked,
    /// The agent's turn is over: it is idle or done.
    TurnEnded(Lifecycle),
}

struct Waiter {
    id: u64,
    what: WaitFor,
    /// To the relay task that answers the client.
    reply: oneshot::Sender<WaitMet>,
}

/// The clients waiting on one pane.
#[derive(Default)]
pub(super) struct Waiters {
    waiting: Vec<Waiter>,
    /// The id of the last waiter registered.
    last_id: u64,
}

/// The pane as a wait's condition is checked against it.
pub(super) struct Now<'a> {
    running: bool,
    exit_code: Option<i32>,
    lifecycle: Lifecycle,
    /// A prompt of `ctl agent prompt` is still to start a turn.
    prompts_pending: bool,
    /// How many lines of the screen a text wait reads, before new output.
    rows: usize,
    screen: &'a mut PaneScreen,
}

impl<'a> Now<'a> {
    pub(super) fn of(
        record: &PaneRecord,
        running: bool,
        prompts_pending: bool,
        screen: &'a mut PaneScreen,
    ) -> Now<'a> {
        Now {
            running,
            exit_code: record.exit_code,
            lifecycle: record.lifecycle,
            prompts_pending,
            rows: usize::from(record.pty_size.rows),
            screen,
        }
    }

    fn met(&mut self, what: &WaitFor, lines: usize) -> Option<WaitMet> {
        let exited = Some(WaitMet::Exit(self.exit_code));
        match what {
            WaitFor::Exit => exited.filter(|_| !self.running),
            WaitFor::Lifecycle(want) => (self.lifecycle == *want).then_some(WaitMet::Lifecycle),
            WaitFor::Ready | WaitFor::TurnEnd if !self.running => exited,
            WaitFor::Ready => match self.lifecycle {
                Lifecycle::Idle | Lifecycle::Done => Some(WaitMet::Ready),
                Lifecycle::Blocked => Some(WaitMet::Blocked),
                _ => None,
            },
            WaitFor::TurnEnd => match self.lifecycle {
                Lifecycle::Idle | Lifecycle::Done if !self.prompts_pending => {
                    Some(WaitMet::TurnEnded(self.lifecycle))
                }
                Lifecycle::Blocked => Some(WaitMet::Blocked),
                _ => None,
            },
            WaitFor::Text(pattern) => self
                .screen
                .tail_text(lines.min(super::freezer::SCROLLBACK_LINES), Style::Plain)
                .lines()
                .find(|line| pattern.is_match(line))
                .map(|line| WaitMet::Text(line.trim_end().to_string())),
        }
    }
}

/// The client of waiter `.0` stopped waiting.
pub(super) struct WaiterGone(pub(super) u64);

impl Waiters {
    /// Registers a wait on pane `pane_id`; answers at once if the
    /// condition already holds.
    pub(super) fn add(
        &mut self,
        gone: &Mailbox<'_, WaiterGone>,
        pane_id: &str,
        what: WaitFor,
        client: oneshot::Sender<WaitMet>,
        mut now: Now<'_>,
    ) -> Result<(), ActorError> {
        if self.waiting.len() >= MAX_WAITERS {
            return Err(ActorError::Refused(format!(
                "{MAX_WAITERS} clients already wait on pane {pane_id}; try again later"
            )));
        }
        let lines = now.rows;
        if let Some(met) = now.met(&what, lines) {
            let _ = client.send(met);
            return Ok(());
        }
        self.last_id += 1;
        let id = self.last_id;
        let (reply, answer) = oneshot::channel();
        tokio::spawn(relay(id, answer, client, gone.keep()));
        self.waiting.push(Waiter { id, what, reply });
        Ok(())
    }

    /// The client of waiter `id` is gone.
    pub(super) fn forget(&mut self, id: u64) {
        self.waiting.retain(|w| w.id != id);
    }

    /// How many clients wait (`ctl explain` shows it).
    pub(super) fn count(&self) -> usize {
        self.waiting.len()
    }

    /// Answers every wait whose condition holds now. `new_lines` is how
    /// many lines of output arrived since the last check, so text that
    /// scrolled past in one chunk is still seen.
    pub(super) fn check(&mut self, mut now: Now<'_>, new_lines: usize) {
        if self.waiting.is_empty() {
            return;
        }
        let lines = now.rows + new_lines;
        for waiter in std::mem::take(&mut self.waiting) {
            match now.met(&waiter.what, lines) {
                Some(met) => {
                    let _ = waiter.reply.send(met);
                }
                None if !waiter.reply.is_closed() => self.waiting.push(waiter),
                None => {}
            }
        }
    }
}

/// Passes the pane's answer to the client, or tells the pane that the
/// client stopped waiting (its receiver was dropped).
async fn relay(
    id: u64,
    answer: oneshot::Receiver<WaitMet>,
    mut client: oneshot::Sender<WaitMet>,
    gone: KeptMailbox<WaiterGone>,
) {
    tokio::select! {
        met = answer => {
            // Err: the pane ended; dropping `client` tells the requester.
            if let Ok(met) = met {
                let _ = client.send(met);
            }
        }
        () = client.closed() => {
            gone.send(WaiterGone(id));
        }
    }
}
