//! What a pane's output may cost the rest of the server.
//!
//! Output can carry thousands of notifications, titles or cwd changes a
//! second. Each would otherwise be a message to the snapshot actor (whose
//! mailbox is unbounded) and a `changed` event for every following client,
//! so a flood grew the server without bound and starved every request.
//! Here output-driven changes pass through two gates (see [`crate::rate`]):
//! notifications through a [`RateLimit`] whose held-back rest is folded into
//! one "N more" notification, and record publishes through a [`Throttle`].
//! Changes a client asks for (`ctl notify`, hooks, `seen`) are bounded by
//! the client's own round trips and are published at once. And the parse
//! itself yields now and then, so that no request waits behind a long one.

use std::time::{Duration, Instant};

use signaltty_screen::ScreenEvent;

use super::freezer::PaneScreen;
use super::mailbox::Mailbox;
use crate::rate::{Admit, RateLimit, Throttle, Throttled};

/// The gates' timers.
pub(super) enum GateTimer {
    /// Time to record the notifications the rate limit held back.
    HeldNotifications,
    /// Time to publish a record change that output caused.
    Publish,
}

/// Notifications from output that pass at once before the rest is held.
pub const NOTIFY_BURST: u32 = 3;
/// Beyond the burst, one notification (or one summary of those held back)
/// per this long.
pub const NOTIFY_REFILL: Duration = Duration::from_secs(1);
/// The least time between two publishes of a pane's record that output
/// caused (a title, a cwd, attention).
pub const RECORD_THROTTLE: Duration = Duration::from_millis(100);
/// How much output the screen parses between two looks at the clock.
pub const FEED_SLICE: usize = 8 * 1024;
/// How long the screen may parse before other tasks get a turn.
pub const FEED_TURN: Duration = Duration::from_millis(5);

/// The gates of one pane.
#[derive(Debug)]
pub(super) struct OutputGates {
    notifications: RateLimit,
    /// The newest notification held back, shown in the summary.
    last_held: Option<Printed>,
    record: Throttle,
}

/// A notification the program printed.
#[derive(Debug)]
pub(super) struct Printed {
    pub(super) source: &'static str,
    pub(super) title: String,
    pub(super) body: String,
}

impl Default for OutputGates {
    fn default() -> Self {
        OutputGates {
            notifications: RateLimit::new(NOTIFY_BURST, NOTIFY_REFILL),
            last_held: None,
            record: Throttle::new(RECORD_THROTTLE),
        }
    }
}

impl OutputGates {
    /// The record was just published by other means.
    pub(super) fn record_published(&mut self) {
        self.record.ran(Instant::now());
    }

    /// A notification the program printed: back to be recorded now if the
    /// rate allows, else counted for the next summary.
    pub(super) fn notification(
        &mut self,
        timers: &Mailbox<'_, GateTimer>,
        printed: Printed,
    ) -> Option<Printed> {
        match self.notifications.admit(Instant::now()) {
            Admit::Pass => Some(printed),
            Admit::HeldBack { first, retry } => {
                self.last_held = Some(printed);
                if first {
                    timers.after(retry, GateTimer::HeldNotifications);
                }
                None
            }
        }
    }

    /// One notification standing for all those held back, once the rate
    /// allows it.
    pub(super) fn held_notifications(
        &mut self,
        timers: &Mailbox<'_, GateTimer>,
    ) -> Option<Printed> {
        match self.notifications.summary(Instant::now()) {
            Ok(0) => None,
            Ok(count) => {
                let last = self.last_held.take()?;
                let said = if last.body.is_empty() {
                    &last.title
                } else {
                    &last.body
                };
                let body = format!("{count} more notifications held back; the last: {said}");
                Some(Printed { body, ..last })
            }
            Err(wait) => {
                timers.after(wait, GateTimer::HeldNotifications);
                None
            }
        }
    }

    /// Output changed the record: true to publish it now, else it is
    /// folded into one publish at the end of the throttle's interval.
    pub(super) fn publish_soon(&mut self, timers: &Mailbox<'_, GateTimer>) -> bool {
        match self.record.request(Instant::now()) {
            Throttled::Now => true,
            Throttled::Schedule(after) => {
                timers.after(after, GateTimer::Publish);
                false
            }
            Throttled::Scheduled => false,
        }
    }

    /// The throttle's interval has ended: true to publish what it held.
    pub(super) fn publish_due(&mut self) -> bool {
        self.record.due(Instant::now())
    }
}

/// Parses `bytes` into `screen` a slice at a time, letting the worker
/// thread run other tasks every [`FEED_TURN`]: a 64 KiB chunk of
/// escape-heavy output can take long to parse (a debug build, a slow
/// machine), and a request must not wait behind it. The actor handles
/// nothing else meanwhile, so the pane's state stays consistent.
pub(super) async fn feed(screen: &mut PaneScreen, bytes: &[u8], events: &mut Vec<ScreenEvent>) {
    let mut turn = Instant::now();
    let mut slices = bytes.chunks(FEED_SLICE).peekable();
    while let Some(slice) = slices.next() {
        screen.feed(slice, events);
        if slices.peek().is_some() && turn.elapsed() >= FEED_TURN {
            tokio::task::yield_now().await;
            turn = Instant::now();
        }
    }
}
