//! Where the state dir is and what lives in it.
//!
//! Finding the directory is a pure function of an explicit path and an
//! environment lookup, so it can be tested without touching the process
//! environment (tests run in parallel threads that share it).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::{PersistError, Result};
use crate::fsutil::{create_private_dir, open_private_append};
use crate::session::{SESSIONS_DIR, SessionName};
use crate::tail::{DEFAULT_TAIL_CAP, TailStore};

/// Overrides the state dir for a whole process tree (tests, CI, a second
/// instance).
pub const STATE_DIR_ENV: &str = "SIGNALTTY_STATE_DIR";

pub(crate) const SNAPSHOT_FILE: &str = "snapshot.json";
pub(crate) const PREV_FILE: &str = "snapshot.prev.json";
pub(crate) const HISTORY_DIR: &str = "history";
pub(crate) const ARCHIVE_DIR: &str = "archive";
pub(crate) const LOG_FILE: &str = "server.log";
/// Prefix of the hard link `save` makes while promoting the current snapshot
/// to `snapshot.prev.json`; only a crash in between leaves one behind.
pub(crate) const PREV_LINK_PREFIX: &str = ".prevlink-";
/// Prefix of the temp dirs atomicwrites makes beside the file it writes.
pub(crate) const ATOMIC_TEMP_PREFIX: &str = ".atomicwrite";

/// Picks the state dir: `explicit` (from `--state-dir`), else the state
/// dir of `session` when one was chosen, else `$SIGNALTTY_STATE_DIR`, else
/// the default session's: `$XDG_STATE_HOME/signaltty`, else
/// `$HOME/.local/state/signaltty`. A named session's is
/// `sessions/NAME/` under the default session's platform directory
/// (`$SIGNALTTY_STATE_DIR` names one server's dir, not a root of many, so a
/// chosen session never goes through it). Empty values count as unset, and
/// the XDG and HOME values must be absolute (the XDG spec says to ignore
/// relative ones; a relative HOME is broken). The result may still be
/// relative when the user gave a relative path; [`StateDir::resolve`] makes
/// it absolute.
pub fn resolve_state_dir_path<F>(
    explicit: Option<PathBuf>,
    session: Option<&SessionName>,
    env: F,
) -> Result<PathBuf>
where
    F: Fn(&str) -> Option<OsString>,
{
    if let Some(path) = explicit.filter(|p| !p.as_os_str().is_empty()) {
        return Ok(path);
    }
    let var = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    match session {
        Some(session) if session.is_default() => platform_state_root(&var),
        Some(session) => Ok(platform_state_root(&var)?
            .join(SESSIONS_DIR)
            .join(session.as_str())),
        None => match var(STATE_DIR_ENV) {
            Some(path) => Ok(path),
            None => platform_state_root(&var),
        },
    }
}

/// Where the named sessions' state dirs are: `sessions/` in the default
/// session's platform directory (see [`resolve_state_dir_path`]).
pub fn sessions_state_root<F>(env: F) -> Result<PathBuf>
where
    F: Fn(&str) -> Option<OsString>,
{
    let var = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    Ok(platform_state_root(&var)?.join(SESSIONS_DIR))
}

/// `$XDG_STATE_HOME/signaltty`, else `$HOME/.local/state/signaltty`.
fn platform_state_root(var: &impl Fn(&str) -> Option<PathBuf>) -> Result<PathBuf> {
    if let Some(xdg) = var("XDG_STATE_HOME").filter(|p| p.is_absolute()) {
        return Ok(xdg.join("signaltty"));
    }
    if let Some(home) = var("HOME").filter(|p| p.is_absolute()) {
        return Ok(home.join(".local").join("state").join("signaltty"));
    }
    Err(PersistError::NoStateDir)
}

/// An opened state dir: it exists, with `history/` and `archive/`, all
/// real directories of this user with mode 0700.
#[derive(Debug, Clone)]
pub struct StateDir {
    root: PathBuf,
    /// What opening it had to fix, for the log.
    warnings: Vec<String>,
    /// Fault injection: added to every fsync step of a save or tail write.
    fsync_delay: Duration,
}

impl StateDir {
    /// Finds the state dir from `explicit`, `session` and the process
    /// environment (see [`resolve_state_dir_path`]) and opens it.
    pub fn resolve(explicit: Option<PathBuf>, session: Option<&SessionName>) -> Result<StateDir> {
        StateDir::open(StateDir::resolve_path(explicit, session)?)
    }

    /// Where [`StateDir::resolve`] would open the state dir, as an absolute
    /// path, without touching it.
    pub fn resolve_path(
        explicit: Option<PathBuf>,
        session: Option<&SessionName>,
    ) -> Result<PathBuf> {
        let path = resolve_state_dir_path(explicit, session, |name| std::env::var_os(name))?;
        std::path::absolute(&path).map_err(|e| PersistError::io("resolving", &path, e))
    }

    /// Creates the dir and its `history/` and `archive/` subdirectories, or
    /// checks them: a symbolic link or another user's directory is refused,
    /// and one that group or others may enter is set to 0700 (see
    /// [`StateDir::warnings`]).
    pub fn open(path: impl Into<PathBuf>) -> Result<StateDir> {
        let mut dir = StateDir {
            root: path.into(),
            warnings: Vec::new(),
            fsync_delay: Duration::ZERO,
        };
        for path in [dir.root.clone(), dir.history_dir(), dir.archive_dir()] {
            dir.warnings.extend(create_private_dir(&path)?);
        }
        Ok(dir)
    }

    /// Fault injection for tests and benchmarks: every fsync step of a
    /// snapshot save and of a tail write (through [`StateDir::tail_store`])
    /// takes `delay` longer, as on a disk that is slow to make data durable.
    pub fn with_fsync_delay(mut self, delay: Duration) -> StateDir {
        self.fsync_delay = delay;
        self
    }

    /// The delay [`StateDir::with_fsync_delay`] set, zero by default.
    pub fn fsync_delay(&self) -> Duration {
        self.fsync_delay
    }

    /// What [`StateDir::open`] fixed (a directory others could enter), one
    /// line each, for the server to log.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn snapshot_path(&self) -> PathBuf {
        self.root.join(SNAPSHOT_FILE)
    }

    pub fn prev_path(&self) -> PathBuf {
        self.root.join(PREV_FILE)
    }

    pub fn history_dir(&self) -> PathBuf {
        self.root.join(HISTORY_DIR)
    }

    pub fn archive_dir(&self) -> PathBuf {
        self.root.join(ARCHIVE_DIR)
    }

    /// Where a background server sends its output.
    pub fn log_path(&self) -> PathBuf {
        self.root.join(LOG_FILE)
    }

    /// Opens `server.log` for appending: a 0600 file of ours from the moment
    /// it exists, never reached through a symbolic link (a link found there
    /// is moved into `archive/`).
    pub fn open_log(&self) -> Result<std::fs::File> {
        open_private_append(&self.log_path(), &self.archive_dir())
    }

    /// A tail store over this dir's `history/` with the default cap; a tail
    /// found to be a symbolic link is moved into `archive/`.
    pub fn tail_store(&self) -> TailStore {
        TailStore::new(self.history_dir(), DEFAULT_TAIL_CAP)
            .with_archive(self.archive_dir())
            .with_fsync_delay(self.fsync_delay)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn lookup(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let map: HashMap<String, OsString> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), OsString::from(v)))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn resolution_order() {
        let all = [
            ("SIGNALTTY_STATE_DIR", "/s"),
            ("XDG_STATE_HOME", "/x"),
            ("HOME", "/h"),
        ];
        let p = |explicit: Option<&str>, vars: &[(&str, &str)]| {
            resolve_state_dir_path(explicit.map(PathBuf::from), None, lookup(vars)).ok()
        };
        assert_eq!(p(Some("/e"), &all), Some("/e".into()));
        assert_eq!(p(None, &all), Some("/s".into()));
        assert_eq!(p(None, &all[1..]), Some("/x/signaltty".into()));
        assert_eq!(p(None, &all[2..]), Some("/h/.local/state/signaltty".into()));
        assert_eq!(p(None, &[]), None);
    }

    #[test]
    fn empty_and_relative_values_are_skipped() {
        let vars = [
            ("SIGNALTTY_STATE_DIR", ""),
            ("XDG_STATE_HOME", "relative/state"),
            ("HOME", "/h"),
        ];
        assert_eq!(
            resolve_state_dir_path(Some(PathBuf::new()), None, lookup(&vars)).unwrap(),
            PathBuf::from("/h/.local/state/signaltty")
        );
        let err = resolve_state_dir_path(None, None, lookup(&[("HOME", "")])).unwrap_err();
        assert!(matches!(err, PersistError::NoStateDir));
    }

    #[test]
    fn a_chosen_session_has_a_dir_of_its_own_beside_the_default() {
        let all = [
            ("SIGNALTTY_STATE_DIR", "/s"),
            ("XDG_STATE_HOME", "/x"),
            ("HOME", "/h"),
        ];
        let work = SessionName::parse("work").unwrap();
        let default = SessionName::default_session();
        let p = |explicit: Option<&str>, session, vars: &[(&str, &str)]| {
            resolve_state_dir_path(explicit.map(PathBuf::from), session, lookup(vars)).ok()
        };
        // --state-dir still wins; a session never goes through the env
        // override of one server's dir.
        assert_eq!(p(Some("/e"), Some(&work), &all), Some("/e".into()));
        assert_eq!(
            p(None, Some(&work), &all),
            Some("/x/signaltty/sessions/work".into())
        );
        assert_eq!(
            p(None, Some(&work), &all[2..]),
            Some("/h/.local/state/signaltty/sessions/work".into())
        );
        assert_eq!(p(None, Some(&default), &all), Some("/x/signaltty".into()));
        assert_eq!(p(None, None, &all), Some("/s".into()));
        assert_eq!(p(None, Some(&work), &[]), None);
        assert_eq!(
            sessions_state_root(lookup(&all)).unwrap(),
            PathBuf::from("/x/signaltty/sessions")
        );
    }

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn open_creates_private_dirs_and_tightens_existing() {
        let tmp = tempfile::TempDir::new().unwrap();
        let root = tmp.path().join("a").join("signaltty");
        let dir = StateDir::open(&root).unwrap();
        for p in [
            dir.root().to_path_buf(),
            dir.history_dir(),
            dir.archive_dir(),
        ] {
            assert!(p.is_dir());
            assert_eq!(mode(&p), 0o700, "{}", p.display());
        }
        std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(dir.history_dir(), std::fs::Permissions::from_mode(0o777))
            .unwrap();
        StateDir::open(&root).unwrap();
        assert_eq!(mode(&root), 0o700);
        assert_eq!(mode(&dir.history_dir()), 0o700);
    }

    #[test]
    fn open_refuses_a_file() {
        let tmp = tempfile::TempDir::new().unwrap();
        let file = tmp.path().join("f");
        std::fs::write(&file, b"x").unwrap();
        assert!(StateDir::open(&file).is_err());
    }

    #[test]
    fn open_log_creates_and_tightens_and_never_follows_a_link() {
        use std::io::Write;
        let tmp = tempfile::TempDir::new().unwrap();
        let dir = StateDir::open(tmp.path().join("s")).unwrap();
        let log = dir.log_path();
        dir.open_log().unwrap();
        assert_eq!(mode(&log), 0o600);
        std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::write(&log, b"kept").unwrap();
        dir.open_log().unwrap().write_all(b" more").unwrap();
        assert_eq!(mode(&log), 0o600);
        assert_eq!(std::fs::read(&log).unwrap(), b"kept more");

        let target = tmp.path().join("elsewhere");
        std::fs::write(&target, b"theirs").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::remove_file(&log).unwrap();
        std::os::unix::fs::symlink(&target, &log).unwrap();
        dir.open_log().unwrap().write_all(b"ours").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"theirs");
        assert_eq!(mode(&target), 0o644);
        assert_eq!(std::fs::read(&log).unwrap(), b"ours");
        let archived: Vec<_> = std::fs::read_dir(dir.archive_dir()).unwrap().collect();
        assert_eq!(archived.len(), 1, "the link is kept in the archive");
    }

    #[test]
    fn open_refuses_a_link_and_reports_what_it_tightened() {
        let tmp = tempfile::TempDir::new().unwrap();
        let real = tmp.path().join("real");
        let dir = StateDir::open(&real).unwrap();
        assert!(dir.warnings().is_empty());
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let err = StateDir::open(&link).unwrap_err().to_string();
        assert!(err.contains("symbolic link"), "{err}");
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o750)).unwrap();
        let dir = StateDir::open(&real).unwrap();
        assert_eq!(dir.warnings().len(), 1);
        assert!(dir.warnings()[0].contains("0750"), "{:?}", dir.warnings());
    }
}
