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
use tokio::sync::oneshot;

use super::{Myself, Pane, SelfMsg};
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

pub(super) struct Waiter {
    id: u64,
    what: WaitFor,
    /// To the relay task that answers the client.
    reply: oneshot::Sender<WaitMet>,
}

impl Pane {
    /// Registers a wait; answers at once if the condition already holds.
    pub(super) fn add_waiter(
        &mut self,
        myself: &Myself,
        what: WaitFor,
        client: oneshot::Sender<WaitMet>,
    ) -> Result<(), ActorError> {
        if self.waiters.len() >= MAX_WAITERS {
            return Err(ActorError::Refused(format!(
                "{MAX_WAITERS} clients already wait on pane {}; try again later",
                self.record.id
            )));
        }
        let lines = usize::from(self.record.pty_size.rows);
        if let Some(met) = self.met(&what, lines) {
            let _ = client.send(met);
            return Ok(());
        }
        self.last_waiter += 1;
        let id = self.last_waiter;
        let (reply, answer) = oneshot::channel();
        tokio::spawn(relay(id, answer, client, myself.clone()));
        self.waiters.push(Waiter { id, what, reply });
        Ok(())
    }

    /// The client of waiter `id` is gone.
    pub(super) fn drop_waiter(&mut self, id: u64) {
        self.waiters.retain(|w| w.id != id);
    }

    /// How many clients wait on this pane (`ctl explain` shows it).
    pub(super) fn waiting(&self) -> usize {
        self.waiters.len()
    }

    /// Answers every wait whose condition holds now. `new_lines` is how
    /// many lines of output arrived since the last check, so text that
    /// scrolled past in one chunk is still seen.
    pub(super) fn check_waiters(&mut self, new_lines: usize) {
        if self.waiters.is_empty() {
            return;
        }
        let lines = usize::from(self.record.pty_size.rows) + new_lines;
        let waiters = std::mem::take(&mut self.waiters);
        for waiter in waiters {
            match self.met(&waiter.what, lines) {
                Some(met) => {
                    let _ = waiter.reply.send(met);
                }
                None if !waiter.reply.is_closed() => self.waiters.push(waiter),
                None => {}
            }
        }
    }

    fn met(&mut self, what: &WaitFor, lines: usize) -> Option<WaitMet> {
        match what {
            WaitFor::Exit => self
                .process
                .is_none()
                .then_some(WaitMet::Exit(self.record.exit_code)),
            WaitFor::Lifecycle(want) => {
                (self.record.lifecycle == *want).then_some(WaitMet::Lifecycle)
            }
            WaitFor::Ready if self.process.is_none() => Some(WaitMet::Exit(self.record.exit_code)),
            WaitFor::Ready => match self.record.lifecycle {
                Lifecycle::Idle | Lifecycle::Done => Some(WaitMet::Ready),
                Lifecycle::Blocked => Some(WaitMet::Blocked),
                _ => None,
            },
            WaitFor::TurnEnd if self.process.is_none() => {
                Some(WaitMet::Exit(self.record.exit_code))
            }
            WaitFor::TurnEnd => match self.record.lifecycle {
                Lifecycle::Idle | Lifecycle::Done if !self.prompts_pending() => {
                    Some(WaitMet::TurnEnded(self.record.lifecycle))
                }
                Lifecycle::Blocked => Some(WaitMet::Blocked),
                _ => None,
            },
            WaitFor::Text(pattern) => self
                .screen
                .tail_text(lines.min(super::SCROLLBACK_LINES), Style::Plain)
                .lines()
                .find(|line| pattern.is_match(line))
                .map(|line| WaitMet::Text(line.trim_end().to_string())),
        }
    }
}

/// Passes the pane's answer to the client, or tells the pane that the
/// client stopped waiting (its receiver was dropped).
async fn relay(
    id: u64,
    answer: oneshot::Receiver<WaitMet>,
    mut client: oneshot::Sender<WaitMet>,
    pane: Myself,
) {
    tokio::select! {
        met = answer => {
            // Err: the pane ended; dropping `client` tells the requester.
            if let Ok(met) = met {
                let _ = client.send(met);
            }
        }
        () = client.closed() => {
            pane.send(SelfMsg::WaiterGone(id));
        }
    }
}
