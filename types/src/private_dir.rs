//! Directories only their owner may enter: the state dir and the socket's.
//!
//! Whoever can write in such a directory can plant a link that redirects a
//! write, or a socket that captures what a client sends. So the directory
//! itself is checked without following a symbolic link: it must be a real
//! directory, owned by this user, with no access for group or others. The
//! server and the clients share this one check.

use std::fs::{DirBuilder, OpenOptions, Permissions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The mode of every private directory.
pub const PRIVATE_DIR_MODE: u32 = 0o700;

/// This process's (effective) uid: the owner of what it creates, and what
/// a peer's credentials are compared with.
pub fn my_uid() -> u32 {
    // SAFETY: geteuid(2) cannot fail.
    unsafe { libc::geteuid() }
}

/// What is wrong with a directory that should be private.
#[derive(Debug, thiserror::Error)]
pub enum DirProblem {
    #[error("does not exist")]
    Missing,
    #[error("is not a directory")]
    NotADirectory,
    #[error("is a symbolic link")]
    Symlink,
    #[error("belongs to uid {owner}, not to you (uid {me})")]
    Foreign { owner: u32, me: u32 },
    #[error("has mode {mode:04o}, so other users can enter it (it must be 0700)")]
    Open { mode: u32 },
    #[error("cannot be inspected: {0}")]
    Io(io::Error),
}

/// A directory that is not private, and why.
#[derive(Debug, thiserror::Error)]
#[error("{} {problem}", path.display())]
pub struct DirError {
    pub path: PathBuf,
    pub problem: DirProblem,
}

/// Checks that `path` is a private directory of this user, without
/// following a symbolic link.
pub fn check_private_dir(path: &Path) -> Result<(), DirError> {
    let problem = |problem| DirError {
        path: path.to_path_buf(),
        problem,
    };
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(problem(DirProblem::Missing)),
        Err(e) => return Err(problem(DirProblem::Io(e))),
    };
    if meta.file_type().is_symlink() {
        return Err(problem(DirProblem::Symlink));
    }
    if !meta.is_dir() {
        return Err(problem(DirProblem::NotADirectory));
    }
    let me = my_uid();
    if meta.uid() != me {
        return Err(problem(DirProblem::Foreign {
            owner: meta.uid(),
            me,
        }));
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o077 != 0 {
        return Err(problem(DirProblem::Open { mode }));
    }
    Ok(())
}

/// Creates `path` (and missing parents) with mode 0700 unless it exists,
/// then checks it with [`check_private_dir`].
pub fn create_private_dir(path: &Path) -> Result<(), DirError> {
    DirBuilder::new()
        .recursive(true)
        .mode(PRIVATE_DIR_MODE)
        .create(path)
        .map_err(|e| DirError {
            path: path.to_path_buf(),
            problem: DirProblem::Io(e),
        })?;
    check_private_dir(path)
}

/// Sets a directory of ours that others may enter to 0700, through a
/// descriptor opened without following a link, so that a link swapped in
/// since the check is not followed either.
pub fn tighten_private_dir(path: &Path) -> io::Result<()> {
    let dir = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW)
        .open(path)?;
    if dir.metadata()?.uid() != my_uid() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "it belongs to another user",
        ));
    }
    dir.set_permissions(Permissions::from_mode(PRIVATE_DIR_MODE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_private_dir_passes_and_others_are_named() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("d");
        create_private_dir(&dir).unwrap();
        assert_eq!(
            std::fs::metadata(&dir).unwrap().mode() & 0o777,
            PRIVATE_DIR_MODE
        );

        std::fs::set_permissions(&dir, Permissions::from_mode(0o755)).unwrap();
        let err = check_private_dir(&dir).unwrap_err();
        assert!(matches!(err.problem, DirProblem::Open { mode: 0o755 }));
        assert!(err.to_string().contains("mode 0755"), "{err}");
        tighten_private_dir(&dir).unwrap();
        check_private_dir(&dir).unwrap();

        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&dir, &link).unwrap();
        let err = create_private_dir(&link).unwrap_err();
        assert!(matches!(err.problem, DirProblem::Symlink), "{err}");
        assert!(tighten_private_dir(&link).is_err(), "never through a link");

        let file = tmp.path().join("f");
        std::fs::write(&file, b"").unwrap();
        assert!(matches!(
            check_private_dir(&file).unwrap_err().problem,
            DirProblem::NotADirectory
        ));
        assert!(matches!(
            check_private_dir(&tmp.path().join("none"))
                .unwrap_err()
                .problem,
            DirProblem::Missing
        ));
    }
}
