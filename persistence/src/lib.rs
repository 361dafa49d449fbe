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
//! - [`snapshot`]: the serde records, version 1, and their repair; the
//!   records the wire shares (layouts, lifecycle, attention, notifications,
//!   ids, session names, the private-dir check) are `signaltty-types`',
//!   re-exported here.
//! - `validate`: the rules a snapshot must meet ([`Snapshot::validate`]).
//! - [`state_dir`]: finding and opening the state dir.
//! - `store` / `load`: [`StateDir::save`], [`StateDir::load`] and
//!   [`StateDir::set_aside`].
//! - [`env`](mod@env): which pane environment variables may be persisted.
//! - [`limits`]: the bound of every string and list, and so of a snapshot.
//! - [`tail`]: scrollback tails and cutting them safely.
//! - [`sweep`]: the startup clean-up.

pub mod env;
pub mod error;
mod fsutil;
pub mod limits;
mod load;
pub mod snapshot;
pub mod state_dir;
mod store;
pub mod sweep;
pub mod tail;
mod validate;

pub use env::{filter_env, is_env_allowed, looks_secret};
pub use error::PersistError;
pub use load::{LoadOutcome, MAX_SNAPSHOT_BYTES, Peek, peek};
pub use signaltty_types::id::{MAX_ID_LEN, is_valid_id, validate_id};
pub use signaltty_types::layout::{DEFAULT_RATIO, MAX_LAYOUT_DEPTH, clamp_ratio};
pub use signaltty_types::session::{BadSessionName, SessionName};
pub use signaltty_types::{id, layout, private_dir, session};
pub use snapshot::*;
pub use state_dir::{STATE_DIR_ENV, StateDir, resolve_state_dir_path, sessions_state_root};
pub use sweep::{ARCHIVE_KEEP, ARCHIVE_MAX_AGE, SweepReport};
pub use tail::{
    DEFAULT_TAIL_CAP, TailStore, TailWrite, sanitize_tail_bytes, sanitize_tail_bytes_with_cap,
    trim_open_escape, truncate_tail,
};
