//! Keeping what a program prints from turning into unbounded work.
//!
//! A pane's output can carry any number of notifications and title or cwd
//! changes per second (`cat` of the wrong file is enough). Each would be a
//! message to the snapshot actor, whose mailbox is unbounded, so the pane
//! passes them through these two gates first:
//!
//! - [`RateLimit`]: a token bucket for events that each matter on their own
//!   (notifications). A burst passes; beyond it events are counted, and the
//!   count is handed out as one summary once a token is free again.
//! - [`Throttle`]: for a state where only the newest value matters (the
//!   pane's record). The first change goes out at once; changes within the
//!   next interval are folded into one, sent when the interval ends.
//!
//! Both take the current time as an argument, so they are tested without
//! waiting.

use std::time::{Duration, Instant};

/// A token bucket that counts what it refuses.
#[derive(Debug, Clone)]
pub struct RateLimit {
    burst: u32,
    refill: Duration,
    tokens: u32,
    /// When the next token arrives, while the bucket is not full.
    next_token: Option<Instant>,
    held_back: u64,
}

/// What [`RateLimit::admit`] decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admit {
    /// Let it through.
    Pass,
    /// Counted; [`RateLimit::summary`] hands the count out later. `first`
    /// is true for the first event held back since the last summary: the
    /// caller schedules a call to `summary` after `retry`.
    HeldBack { first: bool, retry: Duration },
}

impl RateLimit {
    /// Up to `burst` events at once, then one per `refill`.
    pub fn new(burst: u32, refill: Duration) -> RateLimit {
        RateLimit {
            burst: burst.max(1),
            refill,
            tokens: burst.max(1),
            next_token: None,
            held_back: 0,
        }
    }

    pub fn admit(&mut self, now: Instant) -> Admit {
        self.refill(now);
        // Once something is held back, the summary goes first: otherwise a
        // steady flood would take every token and the summary never come.
        if self.held_back == 0 && self.take(now) {
            return Admit::Pass;
        }
        self.held_back += 1;
        Admit::HeldBack {
            first: self.held_back == 1,
            retry: self.wait(now),
        }
    }

    /// The number of events held back, if a token is free to report them;
    /// otherwise how long to wait before asking again. `Ok(0)` means there
    /// is nothing to report.
    pub fn summary(&mut self, now: Instant) -> Result<u64, Duration> {
        self.refill(now);
        if self.held_back == 0 {
            return Ok(0);
        }
        if self.take(now) {
            return Ok(std::mem::take(&mut self.held_back));
        }
        Err(self.wait(now))
    }

    fn take(&mut self, now: Instant) -> bool {
        if self.tokens == 0 {
            return false;
        }
        self.tokens -= 1;
        if self.next_token.is_none() {
            self.next_token = Some(now + self.refill);
        }
        true
    }

    fn refill(&mut self, now: Instant) {
        while let Some(at) = self.next_token {
            if at > now {
                return;
            }
            self.tokens += 1;
            self.next_token = (self.tokens < self.burst).then(|| at + self.refill);
        }
    }

    fn wait(&self, now: Instant) -> Duration {
        self.next_token
            .map(|at| at.saturating_duration_since(now))
            .unwrap_or_default()
    }
}

/// At most one run per interval, the first one at once.
#[derive(Debug, Clone)]
pub struct Throttle {
    interval: Duration,
    last: Option<Instant>,
    pending: bool,
}

/// What [`Throttle::request`] decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Throttled {
    /// Run now.
    Now,
    /// Schedule a call to [`Throttle::due`] after this long.
    Schedule(Duration),
    /// A run is already scheduled and will include this change.
    Scheduled,
}

impl Throttle {
    pub fn new(interval: Duration) -> Throttle {
        Throttle {
            interval,
            last: None,
            pending: false,
        }
    }

    pub fn request(&mut self, now: Instant) -> Throttled {
        if self.pending {
            return Throttled::Scheduled;
        }
        match self.last {
            Some(last) if now < last + self.interval => {
                self.pending = true;
                Throttled::Schedule(last + self.interval - now)
            }
            _ => {
                self.last = Some(now);
                Throttled::Now
            }
        }
    }

    /// The scheduled time has come: true if a run is still owed.
    pub fn due(&mut self, now: Instant) -> bool {
        let owed = std::mem::take(&mut self.pending);
        if owed {
            self.last = Some(now);
        }
        owed
    }

    /// A run happened by other means (something that cannot wait): what
    /// was pending is included in it.
    pub fn ran(&mut self, now: Instant) {
        self.pending = false;
        self.last = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    #[test]
    fn a_burst_passes_then_the_rest_is_counted_and_summed_up_once() {
        let start = Instant::now();
        let mut limit = RateLimit::new(3, SECOND);
        for _ in 0..3 {
            assert_eq!(limit.admit(start), Admit::Pass);
        }
        assert_eq!(
            limit.admit(start),
            Admit::HeldBack {
                first: true,
                retry: SECOND
            }
        );
        for _ in 0..9_999 {
            assert!(matches!(
                limit.admit(start),
                Admit::HeldBack { first: false, .. }
            ));
        }
        assert_eq!(limit.summary(start), Err(SECOND), "no token yet");
        assert_eq!(limit.summary(start + SECOND), Ok(10_000));
        assert_eq!(limit.summary(start + SECOND), Ok(0), "reported once");
    }

    #[test]
    fn a_steady_flood_gives_one_summary_per_refill() {
        let start = Instant::now();
        let mut limit = RateLimit::new(2, SECOND);
        let mut passed = 0;
        let mut summaries = Vec::new();
        let mut due: Option<Instant> = None;
        // 1000 events a second for ten seconds, one every millisecond.
        for ms in 0..10_000u64 {
            let now = start + Duration::from_millis(ms);
            if due.is_some_and(|at| at <= now) {
                due = None;
                match limit.summary(now) {
                    Ok(n) => summaries.push(n),
                    Err(wait) => due = Some(now + wait),
                }
            }
            match limit.admit(now) {
                Admit::Pass => passed += 1,
                Admit::HeldBack { first: true, retry } => due = Some(now + retry),
                Admit::HeldBack { first: false, .. } => {}
            }
        }
        assert_eq!(passed, 2, "only the burst passes while the flood lasts");
        assert!(
            (9..=10).contains(&summaries.len()),
            "one summary per second: {summaries:?}"
        );
        let still_held = limit.summary(start + Duration::from_secs(60));
        assert_eq!(
            passed + summaries.iter().sum::<u64>() + still_held.unwrap_or(0),
            10_000,
            "every event is either passed or counted in a summary"
        );
    }

    #[test]
    fn a_quiet_bucket_fills_up_again_to_its_burst_and_no_further() {
        let start = Instant::now();
        let mut limit = RateLimit::new(2, SECOND);
        assert_eq!(limit.admit(start), Admit::Pass);
        assert_eq!(limit.admit(start), Admit::Pass);
        let later = start + 10 * SECOND;
        assert_eq!(limit.admit(later), Admit::Pass);
        assert_eq!(limit.admit(later), Admit::Pass);
        assert!(matches!(limit.admit(later), Admit::HeldBack { .. }));
    }

    #[test]
    fn a_throttle_runs_the_first_change_at_once_and_folds_the_rest() {
        let start = Instant::now();
        let interval = Duration::from_millis(100);
        let mut throttle = Throttle::new(interval);
        assert_eq!(throttle.request(start), Throttled::Now);
        let soon = start + Duration::from_millis(30);
        assert_eq!(
            throttle.request(soon),
            Throttled::Schedule(Duration::from_millis(70))
        );
        for _ in 0..1000 {
            assert_eq!(throttle.request(soon), Throttled::Scheduled);
        }
        assert!(throttle.due(start + interval));
        assert!(!throttle.due(start + interval), "owed once");
        // Right after that run, the next change waits its turn again.
        assert!(matches!(
            throttle.request(start + interval),
            Throttled::Schedule(_)
        ));
        throttle.ran(start + interval + Duration::from_millis(5));
        assert!(!throttle.due(start + 2 * interval), "the run included it");
        assert_eq!(throttle.request(start + 10 * interval), Throttled::Now);
    }
}
