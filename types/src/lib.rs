//! The records the signaltty server and its clients both read.
//!
//! This crate owns the types that are saved in a snapshot *and* sent over
//! the socket: a tab's split layout, a pane's lifecycle and attention,
//! notifications, the bounds every saved string keeps, the rule for ids,
//! session names and the check that a directory is the user's alone; and
//! a pane's state, which is only sent (a restart derives it anew). Both
//! the persistence crate (the disk) and the protocol crate (the wire)
//! build on it, so neither depends on the other. It must never do I/O
//! beyond checking a directory it is asked about, and never know about
//! actors, sockets or PTYs.
//!
//! # Layout
//!
//! - [`layout`]: a tab's split tree and the edits made to it.
//! - [`pane`]: the live model's records of a pane and its agent, typed;
//!   the snapshot's disk records convert to and from them.
//! - [`records`]: pane state, lifecycle, attention, severity,
//!   notifications;
//!   [`agent`]: the agent kinds, by name; [`keys`]: the key an agent
//!   reads as a new line.
//! - [`bounds`]: the bound of every saved string and list.
//! - [`id`]: the id rule that keeps ids usable as file names.
//! - [`session`]: the names of sessions; [`private_dir`]: the check that a
//!   directory is this user's alone.
//! - [`sleep`]: how long an idle agent stays awake.

pub mod agent;
pub mod bounds;
mod error;
pub mod id;
pub mod keys;
pub mod layout;
pub mod pane;
pub mod private_dir;
pub mod records;
pub mod session;
pub mod sleep;

pub use agent::AgentKind;
pub use error::{Result, TypesError};
pub use keys::NewlineKey;
pub use layout::{Branch, DEFAULT_RATIO, Direction, Layout, MAX_LAYOUT_DEPTH, clamp_ratio};
pub use pane::{AgentRecord, PaneRecord, ProcessRecord, PtySize, RecordedKind, WorktreeRecord};
pub use records::{Attention, Lifecycle, Millis, NotificationRecord, PaneState, Severity};
pub use sleep::SleepAfter;
