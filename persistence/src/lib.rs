//! signaltty's durable state on disk.
//!
//! This crate owns the snapshot schema and its versioning, the state-dir
//! layout and its permissions, atomic saves that keep the previous good
//! snapshot, the outcomes of a load, per-pane scrollback tails and the
//! startup sweep. It is plain synchronous code: it must never know about
//! actors, tokio or PTYs, and it never decides policy (what to restore or
//! resume) — it reports what is on disk and the caller decides.
//!
//! # Layout
//!
//! - [`snapshot`]: the serde records, version 1, and their repair.
//! - [`layout`]: a tab's split tree and the edits made to it.
//! - `validate`: the rules a snapshot must meet ([`Snapshot::validate`]).
//! - [`id`]: the id rule that keeps ids usable as file names.
//! - [`state_dir`]: finding and opening the state dir; [`session`]: the
//!   names of sessions, each with a state dir of its own.
//! - `store` / `load`: [`StateDir::save`], [`StateDir::load`] and
//!   [`StateDir::set_aside`].
//! - [`env`](mod@env): which pane environment variables may be persisted.
//! - [`limits`]: the bound of every string and list, and so of a snapshot.
//! - [`private_dir`]: the check that a directory is this user's alone,
//!   shared with the socket's directory.
//! - [`tail`]: scrollback tails and cutting them safely.
//! - [`sweep`]: the startup clean-up.

pub mod env;
pub mod error;
mod fsutil;
pub mod id;
pub mod layout;
pub mod limits;
mod load;
pub mod private_dir;
pub mod session;
pub mod snapshot;
pub mod state_dir;
mod store;
pub mod sweep;
pub mod tail;
mod validate;

pub use env::{filter_env, is_env_allowed, looks_secret};
pub use error::PersistError;
pub use id::{MAX_ID_LEN, is_valid_id, validate_id};
pub use layout::{DEFAULT_RATIO, MAX_LAYOUT_DEPTH, clamp_ratio};
pub use load::{LoadOutcome, MAX_SNAPSHOT_BYTES, Peek, peek};
pub use session::{BadSessionName, SessionName};
pub use snapshot::*;
pub use state_dir::{STATE_DIR_ENV, StateDir, resolve_state_dir_path, sessions_state_root};
pub use sweep::{ARCHIVE_KEEP, ARCHIVE_MAX_AGE, SweepReport};
pub use tail::{
    DEFAULT_TAIL_CAP, TailStore, TailWrite, sanitize_tail_bytes, sanitize_tail_bytes_with_cap,
    trim_open_escape, truncate_tail,
};
