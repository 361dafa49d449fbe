//! The path of the running server's binary, which every pane gets as
//! `SIGNALTTY_BIN` so that agent hooks reach signaltty whatever `PATH` the
//! agent has (a server started by systemd has systemd's, without
//! `~/.cargo/bin`).
//!
//! It is read at each spawn, not once: after an upgrade replaced the file,
//! Linux names the old one `PATH (deleted)`, and the new binary at `PATH`
//! is the one a hook should run.

use std::path::{Path, PathBuf};

/// The server binary's path now, if the system says.
pub fn current() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let exe = replaced(&exe).unwrap_or(exe);
    Some(exe.canonicalize().unwrap_or(exe))
}

/// The path of a binary that was replaced while it ran: Linux shows it as
/// `PATH (deleted)`.
fn replaced(exe: &Path) -> Option<PathBuf> {
    let text = exe.to_str()?;
    text.strip_suffix(" (deleted)").map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replaced_binary_is_named_by_its_path() {
        assert_eq!(
            replaced(Path::new("/home/me/.cargo/bin/signaltty (deleted)")),
            Some(PathBuf::from("/home/me/.cargo/bin/signaltty"))
        );
        assert_eq!(replaced(Path::new("/usr/bin/signaltty")), None);
    }

    #[test]
    fn the_running_binary_is_found() {
        let found = current().expect("the test binary's path");
        assert!(found.is_absolute() && found.exists(), "{found:?}");
    }
}
