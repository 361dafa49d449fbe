//! The crate's one error type.
//!
//! Callers mostly log these, so every variant carries enough context (a path,
//! an id, the rule broken) to be useful in one line without a backtrace.

use std::io;
use std::path::PathBuf;

/// Everything that can go wrong in this crate.
#[derive(Debug, thiserror::Error)]
pub enum PersistError {
    /// A file-system call failed; `action` says what we were doing.
    #[error("{action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    /// The snapshot breaks one of the rules in [`crate::Snapshot::validate`].
    #[error("invalid snapshot: {0}")]
    Invalid(String),

    /// A record broke a rule of its own: a bad id, a layout edit that
    /// would break the tree, an invalid record.
    #[error(transparent)]
    Record(#[from] signaltty_types::TypesError),

    /// The snapshot could not be turned into JSON.
    #[error("cannot encode snapshot: {0}")]
    Encode(#[from] serde_json::Error),

    /// None of the places a state dir can come from is set.
    #[error(
        "cannot find a state directory: pass --state-dir or set SIGNALTTY_STATE_DIR, XDG_STATE_HOME or HOME"
    )]
    NoStateDir,

    /// A directory of the state dir is a link, or belongs to another user.
    #[error(
        "state directory {0}; refusing it: use a directory of your own (--state-dir or SIGNALTTY_STATE_DIR)"
    )]
    UnsafeDir(#[from] signaltty_types::private_dir::DirError),

    /// The state dir path exists but is not a directory.
    #[error("state directory {} exists and is not a directory", .0.display())]
    NotADirectory(PathBuf),
}

impl PersistError {
    pub(crate) fn io(action: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Self {
        PersistError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

pub(crate) type Result<T, E = PersistError> = std::result::Result<T, E>;
