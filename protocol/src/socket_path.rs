//! Where the server's socket is: the one fact every client and the server
//! must agree on before they can speak at all — and whether what listens
//! there can be trusted with anything.
//!
//! The socket's directory must be this user's alone (see
//! [`signaltty_types::private_dir`]): otherwise another user may have
//! made it first, under the temp dir, and be listening in it. And the peer
//! of a connection must run as this user ([`peer_uid`]).

use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

pub use signaltty_types::private_dir::{DirError, DirProblem, my_uid};
pub use signaltty_types::session::{BadSessionName, SESSION_ENV, SESSIONS_DIR, SessionName};

/// `sun_path` holds 108 bytes including the terminating NUL.
pub const MAX_SOCKET_PATH: usize = 107;

/// A socket path no Unix socket can have.
#[derive(Debug, thiserror::Error)]
#[error(
    "socket path {} is {len} bytes, longer than the {MAX_SOCKET_PATH} a Unix socket allows; \
     set SIGNALTTY_SOCKET or --socket to a shorter path",
    .path.display()
)]
pub struct PathTooLong {
    pub path: PathBuf,
    pub len: usize,
}

/// The socket's file name in its directory.
const SOCKET_FILE: &str = "signaltty.sock";

/// The socket path: `explicit`, else the socket of `session` when one was
/// chosen, else `$SIGNALTTY_SOCKET`, else the default session's:
/// `$XDG_RUNTIME_DIR/signaltty/signaltty.sock`, else a per-user directory
/// under the temp dir. A named session's is `sessions/NAME/signaltty.sock`
/// in the default session's platform directory: `$SIGNALTTY_SOCKET` is set
/// in every pane, naming that pane's server, so it must not decide where
/// another session is.
pub fn resolve(explicit: Option<PathBuf>, session: Option<&SessionName>) -> PathBuf {
    resolve_with(explicit, session, |name| std::env::var_os(name))
}

/// Where the named sessions' sockets are: `sessions/` in the default
/// session's platform directory.
pub fn sessions_root() -> PathBuf {
    platform_dir(|name| std::env::var_os(name)).join(SESSIONS_DIR)
}

fn resolve_with(
    explicit: Option<PathBuf>,
    session: Option<&SessionName>,
    env: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> PathBuf {
    if let Some(path) = explicit {
        return path;
    }
    match session {
        Some(session) if session.is_default() => platform_dir(env).join(SOCKET_FILE),
        Some(session) => platform_dir(env)
            .join(SESSIONS_DIR)
            .join(session.as_str())
            .join(SOCKET_FILE),
        None => match env("SIGNALTTY_SOCKET").filter(|p| !p.is_empty()) {
            Some(path) => PathBuf::from(path),
            None => platform_dir(env).join(SOCKET_FILE),
        },
    }
}

/// `$XDG_RUNTIME_DIR/signaltty`, else `signaltty-<uid>` in the temp dir.
fn platform_dir(env: impl Fn(&str) -> Option<std::ffi::OsString>) -> PathBuf {
    if let Some(runtime) = env("XDG_RUNTIME_DIR").filter(|p| !p.is_empty()) {
        return PathBuf::from(runtime).join("signaltty");
    }
    std::env::temp_dir().join(format!("signaltty-{}", my_uid()))
}

/// Refuses a path longer than a Unix socket address can hold.
pub fn check_length(path: &Path) -> Result<(), PathTooLong> {
    let len = path.as_os_str().len();
    if len > MAX_SOCKET_PATH {
        return Err(PathTooLong {
            path: path.to_path_buf(),
            len,
        });
    }
    Ok(())
}

/// The directory the socket at `path` lives in.
pub fn socket_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Checks, without following a link, that the socket's directory is a
/// directory of this user that nobody else may enter.
pub fn check_socket_dir(path: &Path) -> Result<(), DirError> {
    signaltty_types::private_dir::check_private_dir(socket_dir(path))
}

/// The (effective) uid the process at the other end of `stream` had when
/// it connected or listened (`SO_PEERCRED`).
pub fn peer_uid(stream: &impl AsRawFd) -> std::io::Result<u32> {
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: getsockopt(2) writes at most `len` bytes into `cred`, which
    // is a ucred as SO_PEERCRED expects.
    let rc = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&raw mut cred).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(cred.uid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    #[test]
    fn resolution_order() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                vars.iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| OsString::from(v))
            }
        };
        assert_eq!(
            resolve_with(
                Some("/x/s".into()),
                None,
                env(&[("SIGNALTTY_SOCKET", "/y")])
            ),
            PathBuf::from("/x/s")
        );
        assert_eq!(
            resolve_with(
                None,
                None,
                env(&[("SIGNALTTY_SOCKET", "/y"), ("XDG_RUNTIME_DIR", "/r")])
            ),
            PathBuf::from("/y")
        );
        assert_eq!(
            resolve_with(None, None, env(&[("XDG_RUNTIME_DIR", "/r")])),
            PathBuf::from("/r/signaltty/signaltty.sock")
        );
        let fallback = resolve_with(None, None, env(&[]));
        assert!(fallback.starts_with(std::env::temp_dir()), "{fallback:?}");
    }

    #[test]
    fn a_chosen_session_has_a_socket_of_its_own_whatever_the_pane_says() {
        let vars = |name: &str| match name {
            // Set in every pane: it names that pane's server.
            "SIGNALTTY_SOCKET" => Some(OsString::from("/y/signaltty.sock")),
            "XDG_RUNTIME_DIR" => Some(OsString::from("/r")),
            _ => None,
        };
        let work = SessionName::parse("work").unwrap();
        assert_eq!(
            resolve_with(None, Some(&work), vars),
            PathBuf::from("/r/signaltty/sessions/work/signaltty.sock")
        );
        assert_eq!(
            resolve_with(None, Some(&SessionName::default_session()), vars),
            PathBuf::from("/r/signaltty/signaltty.sock")
        );
        assert_eq!(
            resolve_with(Some("/x/s".into()), Some(&work), vars),
            PathBuf::from("/x/s"),
            "--socket still wins"
        );
        let fallback = resolve_with(None, Some(&work), |_| None);
        assert!(
            fallback.starts_with(std::env::temp_dir())
                && fallback.ends_with("sessions/work/signaltty.sock"),
            "{fallback:?}"
        );
        // The longest name fits a socket address under a usual runtime dir.
        let longest = SessionName::parse(&"n".repeat(32)).unwrap();
        let path = resolve_with(None, Some(&longest), |name| {
            (name == "XDG_RUNTIME_DIR").then(|| OsString::from("/run/user/4294967294"))
        });
        check_length(&path).unwrap();
    }

    #[test]
    fn a_peer_of_our_own_is_our_uid() {
        let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
        assert_eq!(peer_uid(&a).unwrap(), my_uid());
    }

    #[test]
    fn a_long_path_is_refused_with_a_clear_error() {
        let path = PathBuf::from(format!("/tmp/{}", "x".repeat(120)));
        let err = check_length(&path).unwrap_err().to_string();
        assert!(err.contains("longer than"), "{err}");
    }
}
