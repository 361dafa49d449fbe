//! Who may use the web app: sessions made by a login with the token, and
//! the limit on failed logins per client address.

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use crate::token::{Token, hex};

/// The session cookie's name.
pub const COOKIE: &str = "signaltty_session";
/// How long a session lasts without a new login.
pub const SESSION_LIFETIME: Duration = Duration::from_secs(30 * 24 * 3600);
/// The most sessions kept; the oldest goes when another logs in.
const MAX_SESSIONS: usize = 256;
/// Failed logins an address may make before it must wait.
pub const FREE_FAILURES: u32 = 5;
/// The first wait after the free failures; each further failure doubles
/// it, up to [`MAX_WAIT`].
const FIRST_WAIT: Duration = Duration::from_secs(2);
const MAX_WAIT: Duration = Duration::from_secs(15 * 60);
/// The most addresses remembered; the one that failed longest ago goes.
const MAX_ADDRESSES: usize = 4096;

struct Session {
    /// The token it logged in with: it ends when the token file no longer
    /// holds it.
    token: Token,
    created: Instant,
}

/// The live sessions, by the random id their cookie carries.
#[derive(Default)]
pub struct Sessions {
    by_id: HashMap<String, Session>,
}

impl Sessions {
    /// A new session for `token`; its id, for the cookie.
    pub fn open(&mut self, token: Token, now: Instant) -> Result<String, getrandom::Error> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes)?;
        let id = hex(&bytes);
        self.by_id
            .retain(|_, s| now.duration_since(s.created) < SESSION_LIFETIME);
        if self.by_id.len() >= MAX_SESSIONS
            && let Some(oldest) = self
                .by_id
                .iter()
                .min_by_key(|(_, s)| s.created)
                .map(|(id, _)| id.clone())
        {
            self.by_id.remove(&oldest);
        }
        self.by_id.insert(
            id.clone(),
            Session {
                token,
                created: now,
            },
        );
        Ok(id)
    }

    /// Whether `id` is a session of the `current` token (`None`: the
    /// token cannot be read, and no session is valid). Sessions of an
    /// older token are forgotten.
    pub fn check(&mut self, id: &str, current: Option<&Token>, now: Instant) -> bool {
        let Some(current) = current else {
            return false;
        };
        self.by_id
            .retain(|_, s| &s.token == current && now.duration_since(s.created) < SESSION_LIFETIME);
        self.by_id.contains_key(id)
    }

    pub fn close(&mut self, id: &str) {
        self.by_id.remove(id);
    }
}

struct Failures {
    count: u32,
    last: Instant,
}

/// Failed logins per client address.
#[derive(Default)]
pub struct LoginLimit {
    by_address: HashMap<IpAddr, Failures>,
}

impl LoginLimit {
    /// How long `address` must still wait before it may try again, if it
    /// must.
    pub fn wait(&self, address: IpAddr, now: Instant) -> Option<Duration> {
        let failures = self.by_address.get(&address)?;
        let excess = failures.count.checked_sub(FREE_FAILURES)?;
        let wait = FIRST_WAIT
            .saturating_mul(1u32 << excess.min(20))
            .min(MAX_WAIT);
        let until = failures.last + wait;
        (until > now).then(|| until - now)
    }

    pub fn failed(&mut self, address: IpAddr, now: Instant) {
        if self.by_address.len() >= MAX_ADDRESSES
            && !self.by_address.contains_key(&address)
            && let Some(stalest) = self
                .by_address
                .iter()
                .min_by_key(|(_, f)| f.last)
                .map(|(a, _)| *a)
        {
            self.by_address.remove(&stalest);
        }
        let failures = self.by_address.entry(address).or_insert(Failures {
            count: 0,
            last: now,
        });
        failures.count = failures.count.saturating_add(1);
        failures.last = now;
    }

    pub fn succeeded(&mut self, address: IpAddr) {
        self.by_address.remove(&address);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(byte: u8) -> Token {
        Token::for_test(hex(&[byte; 32]))
    }

    #[test]
    fn a_session_ends_with_its_token_and_its_lifetime() {
        let mut sessions = Sessions::default();
        let now = Instant::now();
        let old = token(1);
        let id = sessions.open(old.clone(), now).unwrap();
        assert!(sessions.check(&id, Some(&old), now));
        assert!(!sessions.check("nope", Some(&old), now));
        assert!(!sessions.check(&id, None, now), "no token, no session");
        assert!(!sessions.check(&id, Some(&token(2)), now), "rotated");
        assert!(!sessions.check(&id, Some(&old), now), "and forgotten");
        let id = sessions.open(old.clone(), now).unwrap();
        assert!(!sessions.check(&id, Some(&old), now + SESSION_LIFETIME));
        let id = sessions.open(old.clone(), now).unwrap();
        sessions.close(&id);
        assert!(!sessions.check(&id, Some(&old), now));
    }

    #[test]
    fn sessions_are_bounded() {
        let mut sessions = Sessions::default();
        let start = Instant::now();
        let first = sessions.open(token(1), start).unwrap();
        for i in 1..=MAX_SESSIONS as u64 {
            sessions
                .open(token(1), start + Duration::from_millis(i))
                .unwrap();
        }
        assert_eq!(sessions.by_id.len(), MAX_SESSIONS);
        assert!(!sessions.check(&first, Some(&token(1)), start));
    }

    #[test]
    fn failed_logins_wait_longer_and_longer() {
        let mut limit = LoginLimit::default();
        let me: IpAddr = "127.0.0.1".parse().unwrap();
        let other: IpAddr = "127.0.0.2".parse().unwrap();
        let now = Instant::now();
        for _ in 0..FREE_FAILURES {
            assert_eq!(limit.wait(me, now), None, "five tries are free");
            limit.failed(me, now);
        }
        assert_eq!(limit.wait(me, now), Some(FIRST_WAIT));
        assert_eq!(limit.wait(other, now), None, "per address");
        assert_eq!(limit.wait(me, now + FIRST_WAIT), None);
        limit.failed(me, now);
        assert_eq!(limit.wait(me, now), Some(FIRST_WAIT * 2));
        for _ in 0..40 {
            limit.failed(me, now);
        }
        assert_eq!(limit.wait(me, now), Some(MAX_WAIT));
        limit.succeeded(me);
        assert_eq!(limit.wait(me, now), None);
    }
}
