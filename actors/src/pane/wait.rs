//! `ctl wait`: conditions a client waits for, checked by the pane when
//! something relevant changes (pushed, never polled).

use regex::Regex;
use signaltty_persistence::Lifecycle;
use signaltty_screen::Style;
use tokio::sync::oneshot;

use super::Pane;
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
}

/// How a wait ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitMet {
    Exit(Option<i32>),
    Lifecycle,
    /// The line that matched.
    Text(String),
}

pub(super) struct Waiter {
    what: WaitFor,
    reply: oneshot::Sender<WaitMet>,
}

impl Pane {
    /// Registers a wait; answers at once if the condition already holds.
    pub(super) fn add_waiter(
        &mut self,
        what: WaitFor,
        reply: oneshot::Sender<WaitMet>,
    ) -> Result<(), ActorError> {
        self.waiters.retain(|w| !w.reply.is_closed());
        if self.waiters.len() >= MAX_WAITERS {
            return Err(ActorError::Refused(format!(
                "{MAX_WAITERS} clients already wait on pane {}; try again later",
                self.record.id
            )));
        }
        let lines = usize::from(self.record.pty_size.rows);
        match self.met(&what, lines) {
            Some(met) => {
                let _ = reply.send(met);
            }
            None => self.waiters.push(Waiter { what, reply }),
        }
        Ok(())
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

    fn met(&self, what: &WaitFor, lines: usize) -> Option<WaitMet> {
        match what {
            WaitFor::Exit => self
                .process
                .is_none()
                .then_some(WaitMet::Exit(self.record.exit_code)),
            WaitFor::Lifecycle(want) => {
                (self.record.lifecycle == *want).then_some(WaitMet::Lifecycle)
            }
            WaitFor::Text(pattern) => self
                .screen
                .tail_text(lines.min(super::SCROLLBACK_LINES), Style::Plain)
                .lines()
                .find(|line| pattern.is_match(line))
                .map(|line| WaitMet::Text(line.trim_end().to_string())),
        }
    }
}
