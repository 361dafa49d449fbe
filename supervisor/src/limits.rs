//! What all clients together may make the server hold.
//!
//! Each connection costs a task and buffers, and each request line or
//! attach frame is held whole while it arrives and while it is handled. A
//! client is untrusted, and so are a thousand of them: the number of
//! connections is capped at [`MAX_CONNECTIONS`]; each may hold
//! [`SMALL_INPUT`] bytes of one unfinished (or still handled) request, which
//! is all an ordinary request needs, and anything larger draws on one pool
//! of [`MAX_HELD_INPUT`] bytes shared by every connection. A connection over
//! either bound is refused with a `BUSY` error instead of growing the
//! server, and a client hoarding the pool cannot keep others from asking
//! small things.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Connections served at once.
pub const MAX_CONNECTIONS: usize = 1024;
/// Connections over [`MAX_CONNECTIONS`] being told so at once; more are
/// closed without a word.
pub const MAX_REFUSING: usize = 64;
/// What one connection may hold of a request line or attach frame without
/// drawing on the shared pool.
pub const SMALL_INPUT: usize = 16 * 1024;
/// The shared pool for larger request lines and attach frames, over all
/// connections. One line may be up to `MAX_LINE` (16 MiB), so two such
/// lines fit at once.
pub const MAX_HELD_INPUT: usize = 32 * 1024 * 1024;

/// The server's connection and input bounds; clones share them.
#[derive(Debug, Clone)]
pub struct ClientLimits {
    connections: Arc<Semaphore>,
    refusing: Arc<Semaphore>,
    held_input: Arc<Semaphore>,
}

/// A connection's place among [`MAX_CONNECTIONS`] (or [`MAX_REFUSING`]),
/// given back on drop.
#[derive(Debug)]
pub struct ConnectionSlot {
    _place: OwnedSemaphorePermit,
}

/// Bytes of input a connection holds (beyond [`SMALL_INPUT`], from the
/// shared pool), given back on drop.
#[derive(Debug, Default)]
pub struct HeldInput {
    total: usize,
    pooled: Option<OwnedSemaphorePermit>,
}

/// The bound on held input is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "the server already holds {MAX_HELD_INPUT} bytes of unfinished requests from its clients; \
     try again in a moment"
)]
pub struct InputBudgetExhausted;

impl Default for ClientLimits {
    fn default() -> Self {
        ClientLimits {
            connections: Arc::new(Semaphore::new(MAX_CONNECTIONS)),
            refusing: Arc::new(Semaphore::new(MAX_REFUSING)),
            held_input: Arc::new(Semaphore::new(MAX_HELD_INPUT)),
        }
    }
}

impl ClientLimits {
    /// A place for a new connection, unless all are taken.
    pub fn connection(&self) -> Option<ConnectionSlot> {
        slot(&self.connections)
    }

    /// Connections open now (their places taken).
    pub fn open(&self) -> usize {
        MAX_CONNECTIONS - self.connections.available_permits()
    }

    /// A place for telling a connection over the cap why it is refused.
    pub fn refusal(&self) -> Option<ConnectionSlot> {
        slot(&self.refusing)
    }

    /// Lets `held` hold `total` bytes in all, if the pool allows it now.
    pub fn hold(&self, held: &mut HeldInput, total: usize) -> Result<(), InputBudgetExhausted> {
        let from_pool = total.saturating_sub(SMALL_INPUT);
        let more = from_pool.saturating_sub(held.pooled());
        if more > 0 {
            let more = u32::try_from(more).map_err(|_| InputBudgetExhausted)?;
            let permit = self
                .held_input
                .clone()
                .try_acquire_many_owned(more)
                .map_err(|_| InputBudgetExhausted)?;
            match &mut held.pooled {
                Some(existing) => existing.merge(permit),
                None => held.pooled = Some(permit),
            }
        }
        held.total = held.total.max(total);
        Ok(())
    }
}

/// Raises this process's soft limit on open files to its hard limit: the
/// connections allowed, each pane's PTY and the state files must fit, and a
/// default soft limit of 1024 would turn the connection cap into failed
/// accepts instead of a clear refusal. Returns the limit now in force.
pub fn allow_open_files() -> std::io::Result<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit(2) writes into a struct we own.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    if limit.rlim_cur < limit.rlim_max {
        limit.rlim_cur = limit.rlim_max;
        // SAFETY: setrlimit(2) reads a struct we own.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(limit.rlim_cur)
}

fn slot(places: &Arc<Semaphore>) -> Option<ConnectionSlot> {
    places
        .clone()
        .try_acquire_owned()
        .ok()
        .map(|place| ConnectionSlot { _place: place })
}

impl HeldInput {
    /// The bytes it may hold.
    pub fn bytes(&self) -> usize {
        self.total
    }

    fn pooled(&self) -> usize {
        self.pooled
            .as_ref()
            .map_or(0, OwnedSemaphorePermit::num_permits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_input_is_held_up_to_the_pool_and_given_back_on_drop() {
        let limits = ClientLimits::default();
        let mut first = HeldInput::default();
        limits.hold(&mut first, MAX_HELD_INPUT / 2).unwrap();
        limits
            .hold(&mut first, MAX_HELD_INPUT + SMALL_INPUT)
            .unwrap();
        assert_eq!(first.bytes(), MAX_HELD_INPUT + SMALL_INPUT);
        let mut second = HeldInput::default();
        assert_eq!(
            limits.hold(&mut second, SMALL_INPUT + 1),
            Err(InputBudgetExhausted)
        );
        // A small request still goes through while the pool is empty.
        limits.hold(&mut second, SMALL_INPUT).unwrap();
        drop(first);
        limits.hold(&mut second, SMALL_INPUT + 1).unwrap();
    }

    #[test]
    fn connections_are_capped() {
        let limits = ClientLimits::default();
        let slots: Vec<_> = (0..MAX_CONNECTIONS)
            .map(|_| limits.connection().unwrap())
            .collect();
        assert!(limits.connection().is_none());
        drop(slots);
        assert!(limits.connection().is_some());
    }
}
