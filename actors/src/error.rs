use std::path::PathBuf;

/// Why a child could not be started on a PTY.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SpawnError {
    #[error("no command to run")]
    EmptyCommand,
    #[error("working directory {} is not a directory; pass an existing one with --cwd", .0.display())]
    CwdNotDir(PathBuf),
    #[error("could not open a PTY: {0}")]
    Pty(String),
    #[error("could not start {program}: {reason}")]
    Exec { program: String, reason: String },
}

/// Errors the actors answer requests with. Each maps to one stable wire
/// code in the IPC protocol.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ActorError {
    #[error("no pane {0}; `signaltty ctl ls` lists them")]
    NoSuchPane(String),
    #[error("no tab {0}; `signaltty ctl ls` lists them")]
    NoSuchTab(String),
    #[error("no workspace {0}; `signaltty ctl ls` lists them")]
    NoSuchWorkspace(String),
    #[error("pane {id} is {state}, not LIVE; {hint}")]
    PaneNotLive {
        id: String,
        state: &'static str,
        hint: &'static str,
    },
    #[error("{0}")]
    Spawn(#[from] SpawnError),
    #[error("{0}")]
    ReviveFailed(String),
    #[error("a workspace named {0:?} already exists; pick another name")]
    NameTaken(String),
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Refused(String),
    /// An agent waits at a dialog that input would answer.
    #[error("{0}")]
    Blocked(String),
    /// Try again later: an agent is working, or a queue is full.
    #[error("{0}")]
    Busy(String),
    #[error("the server is busy or shutting down ({0}); try again")]
    Unavailable(String),
    #[error("{0}")]
    Io(String),
}
