//! The actors that own signaltty's live state.
//!
//! Workspace, tab and pane actors each own their piece of state and publish
//! their durable record to the snapshot actor whenever it changes; the pane
//! actor owns its PTY, child, output ring and screen model. This crate must
//! never parse CLI arguments or talk to sockets.
//!
//! # Layout
//!
//! - [`snapshot`]: the snapshot actor, which holds the latest record of
//!   everything ([`model`]) and debounces it into atomic writes; its
//!   writer turns the live records into the saved ones, and [`restored`]
//!   turns a loaded snapshot back into live records — the only two places
//!   that see the disk's records;
//! - [`workspace`], [`tab`], [`pane`]: the tree of live actors; each
//!   supervises its children and replaces a failed one from its last record;
//!   `pane::revive` is where what a saved pane comes back as and how its
//!   agent resumes are decided;
//! - [`names`]: ids, and the registry names actors are reached by;
//! - [`procfs`]: what `/proc` says about a process, to recognise a pane's
//!   processes after a crash and to tell which agent runs in a pane;
//! - [`rate`]: the rate limit and throttle that keep a pane's output from
//!   turning into unbounded work for the snapshot actor;
//! - [`notifier`]: runs the user's notification command when a pane nobody
//!   watches becomes blocked, finishes or fails;
//! - [`allocator`]: keeps large blocks out of the allocator's arenas and
//!   gives freed memory back to the system.

pub mod allocator;
pub mod error;
pub mod model;
pub mod names;
pub mod notifier;
pub mod pane;
pub mod procfs;
pub mod rate;
pub mod restored;
pub mod snapshot;
pub mod supervision;
pub mod tab;
pub mod workspace;

pub use error::{ActorError, SpawnError};
pub use model::{Model, PaneState, PaneView};

/// Milliseconds since the Unix epoch, the unit of every persisted time.
pub fn now_millis() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}
