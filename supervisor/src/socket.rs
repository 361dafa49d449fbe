//! Where the socket lives, and the one-server-per-socket rule.
//!
//! A server holds an exclusive `flock` on `<socket>.lock` for its whole
//! life, so two servers starting at once cannot both win. With the lock
//! held, a socket file that still exists but does not answer was left by a
//! dead server and is taken over.

use std::fs::{File, OpenOptions};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};

use signaltty_persistence::private_dir::{DirError, create_private_dir};
use signaltty_protocol::socket_path::{PathTooLong, check_length, socket_dir};

#[derive(Debug, thiserror::Error)]
pub enum SocketError {
    #[error("a signaltty server is already running on {}", .0.display())]
    AlreadyRunning(PathBuf),
    #[error(transparent)]
    PathTooLong(#[from] PathTooLong),
    #[error(
        "socket directory {0}; refusing it, as it must be yours alone (mode 0700, not a link): \
         fix it or choose another socket with --socket or SIGNALTTY_SOCKET"
    )]
    UnsafeDir(DirError),
    #[error("{what} {}: {source}", .path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

fn io<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> SocketError + 'a {
    move |source| SocketError::Io {
        what,
        path: path.to_path_buf(),
        source,
    }
}

/// The listening socket and the lock that makes it ours.
#[derive(Debug)]
pub struct BoundSocket {
    pub listener: UnixListener,
    pub path: PathBuf,
    _lock: File,
}

impl BoundSocket {
    /// The socket and lock an upgraded server inherited from the image it
    /// replaced (see `handover`): bound and held already.
    ///
    /// # Safety
    /// Both descriptors were inherited across the exec and nothing else
    /// owns them.
    pub unsafe fn inherited(path: &Path, listener: RawFd, lock: RawFd) -> BoundSocket {
        // SAFETY: the caller's promise.
        let (listener, lock) =
            unsafe { (OwnedFd::from_raw_fd(listener), OwnedFd::from_raw_fd(lock)) };
        for fd in [listener.as_raw_fd(), lock.as_raw_fd()] {
            let _ = crate::handover::state::set_inherited(fd, false);
        }
        BoundSocket {
            listener: UnixListener::from(listener),
            path: path.to_path_buf(),
            _lock: File::from(lock),
        }
    }

    /// The lock's descriptor, which an upgrade carries across the exec.
    pub fn lock_fd(&self) -> RawFd {
        self._lock.as_raw_fd()
    }

    /// Removes the socket file (on a clean shutdown).
    pub fn remove(&self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Binds `path` unless another server owns it.
pub fn bind_exclusive(path: &Path) -> Result<BoundSocket, SocketError> {
    check_length(path)?;
    prepare_dir(socket_dir(path))?;

    let lock = open_lock(&path.with_extension("lock"))?;
    // SAFETY: flock(2) on a descriptor we own.
    if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        return Err(SocketError::AlreadyRunning(path.to_path_buf()));
    }
    if path.exists() {
        if UnixStream::connect(path).is_ok() {
            return Err(SocketError::AlreadyRunning(path.to_path_buf()));
        }
        tracing::info!(path = %path.display(), "taking over a stale socket");
        std::fs::remove_file(path).map_err(io("could not remove the stale socket", path))?;
    }
    let listener = UnixListener::bind(path).map_err(io("could not bind", path))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
        .map_err(io("could not restrict the socket", path))?;
    Ok(BoundSocket {
        listener,
        path: path.to_path_buf(),
        _lock: lock,
    })
}

/// Waits for, then holds, `<socket>.start` (until the returned file is
/// dropped): whoever starts a server for this socket holds it until the
/// server answers or fails, so starters that find no server at the same
/// moment (a multiplexer's bridges) queue instead of racing. The server
/// itself only ever holds `<socket>.lock`.
pub fn hold_start_lock(path: &Path) -> Result<File, SocketError> {
    check_length(path)?;
    prepare_dir(socket_dir(path))?;
    let lock_path = path.with_extension("start");
    let lock = open_lock(&lock_path)?;
    // SAFETY: flock(2) on a descriptor we own. It blocks until the starter
    // before us is done, which that starter's own deadline bounds.
    if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Err(io("could not lock", &lock_path)(
            std::io::Error::last_os_error(),
        ));
    }
    Ok(lock)
}

/// Opens a lock file beside the socket: created 0600, never through a link.
fn open_lock(lock_path: &Path) -> Result<File, SocketError> {
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(lock_path)
        .map_err(io("could not open the lock file", lock_path))
}

/// Creates the socket's directory 0700, or checks that an existing one is
/// ours alone: a link, another user's directory or one that others may
/// enter is refused, not repaired — it may be the user's `$HOME` or `/tmp`,
/// and someone else may already be listening in it.
fn prepare_dir(dir: &Path) -> Result<(), SocketError> {
    create_private_dir(dir).map_err(SocketError::UnsafeDir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_path_is_refused_with_a_clear_error() {
        let path = PathBuf::from(format!("/tmp/{}", "x".repeat(120)));
        let err = bind_exclusive(&path).unwrap_err().to_string();
        assert!(err.contains("longer than"), "{err}");
    }

    #[test]
    fn a_directory_that_is_not_ours_alone_is_refused_untouched() {
        use std::os::unix::fs::MetadataExt;
        let tmp = tempfile::tempdir().unwrap();
        let open = tmp.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).unwrap();
        let err = bind_exclusive(&open.join("s.sock"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("mode 0755"), "{err}");
        assert_eq!(std::fs::metadata(&open).unwrap().mode() & 0o777, 0o755);

        let private = tmp.path().join("private");
        std::fs::create_dir(&private).unwrap();
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&private, &link).unwrap();
        let err = bind_exclusive(&link.join("s.sock"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("symbolic link"), "{err}");
        assert!(!private.join("s.sock").exists());
    }

    #[test]
    fn a_second_bind_is_refused_and_a_stale_socket_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        let path = dir.path().join("s.sock");
        let first = bind_exclusive(&path).unwrap();
        assert!(matches!(
            bind_exclusive(&path),
            Err(SocketError::AlreadyRunning(_))
        ));
        use std::os::unix::fs::MetadataExt;
        assert_eq!(std::fs::metadata(&path).unwrap().mode() & 0o777, 0o600);
        assert_eq!(std::fs::metadata(dir.path()).unwrap().mode() & 0o777, 0o700);
        // A dead server leaves its socket file but releases the lock. (A
        // process another test forks in this one holds copies of every
        // descriptor until it execs: the lock and the listener may live on
        // for that moment.)
        drop(first);
        assert!(path.exists());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let second = loop {
            match bind_exclusive(&path) {
                Ok(bound) => break bound,
                Err(SocketError::AlreadyRunning(_)) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Err(e) => panic!("{e}"),
            }
        };
        assert!(UnixStream::connect(&second.path).is_ok());
    }
}
