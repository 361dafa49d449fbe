//! Where the socket lives, and the one-server-per-socket rule.
//!
//! A server holds an exclusive `flock` on `<socket>.lock` for its whole
//! life, so two servers starting at once cannot both win. With the lock
//! held, a socket file that still exists but does not answer was left by a
//! dead server and is taken over.

use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};

use signaltty_protocol::socket_path::{PathTooLong, check_length};

#[derive(Debug, thiserror::Error)]
pub enum SocketError {
    #[error("a signaltty server is already running on {}", .0.display())]
    AlreadyRunning(PathBuf),
    #[error(transparent)]
    PathTooLong(#[from] PathTooLong),
    #[error("socket directory {} belongs to another user; choose another with --socket", .0.display())]
    ForeignDir(PathBuf),
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
    /// Removes the socket file (on a clean shutdown).
    pub fn remove(&self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Binds `path` unless another server owns it.
pub fn bind_exclusive(path: &Path) -> Result<BoundSocket, SocketError> {
    check_length(path)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    prepare_dir(dir)?;

    let lock_path = path.with_extension("lock");
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(&lock_path)
        .map_err(io("could not open the lock file", &lock_path))?;
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

/// Creates the socket's directory 0700, or checks an existing one is ours
/// and makes it 0700.
fn prepare_dir(dir: &Path) -> Result<(), SocketError> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(io("could not create the socket directory", dir))?;
    let meta = std::fs::metadata(dir).map_err(io("could not inspect", dir))?;
    // SAFETY: getuid(2) cannot fail.
    if meta.uid() != unsafe { libc::getuid() } {
        return Err(SocketError::ForeignDir(dir.to_path_buf()));
    }
    if meta.mode() & 0o777 != 0o700 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(io("could not restrict the socket directory", dir))?;
    }
    Ok(())
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
    fn a_second_bind_is_refused_and_a_stale_socket_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sock");
        let first = bind_exclusive(&path).unwrap();
        assert!(matches!(
            bind_exclusive(&path),
            Err(SocketError::AlreadyRunning(_))
        ));
        assert_eq!(std::fs::metadata(&path).unwrap().mode() & 0o777, 0o600);
        assert_eq!(std::fs::metadata(dir.path()).unwrap().mode() & 0o777, 0o700);
        // A dead server leaves its socket file but releases the lock.
        drop(first);
        assert!(path.exists());
        let second = bind_exclusive(&path).unwrap();
        assert!(UnixStream::connect(&second.path).is_ok());
    }
}
