//! Small file-system helpers shared by the save, tail and sweep code.
//!
//! They exist so that the promises of the state dir — directories 0700,
//! files 0600, a file is either the old or the new version, and a symbolic
//! link is never followed — are kept in one place instead of at every call
//! site.

use std::fs::{self, File, OpenOptions, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use atomicwrites::{AtomicFile, OverwriteBehavior};

use crate::error::{PersistError, Result};
use crate::private_dir::{self, DirError, DirProblem, my_uid};
use crate::snapshot::Millis;

pub(crate) const FILE_MODE: u32 = 0o600;

/// Creates `path` (and missing parents) as 0700, or checks an existing
/// directory: a link, another user's directory or a file is refused, and a
/// directory of ours that others may enter is tightened to 0700. Returns a
/// warning when it tightened one, for the log.
pub(crate) fn create_private_dir(path: &Path) -> Result<Option<String>> {
    match private_dir::create_private_dir(path) {
        Ok(()) => Ok(None),
        Err(DirError {
            problem: DirProblem::Open { mode },
            ..
        }) => {
            private_dir::tighten_private_dir(path)
                .map_err(|e| PersistError::io("setting mode 0700 on", path, e))?;
            Ok(Some(format!(
                "{} had mode {mode:04o}, so other users could enter it; it is now 0700",
                path.display()
            )))
        }
        Err(DirError {
            problem: DirProblem::NotADirectory,
            ..
        }) => Err(PersistError::NotADirectory(path.to_path_buf())),
        Err(e) => Err(PersistError::UnsafeDir(e)),
    }
}

/// Opens `path` for appending as a private (0600) file of ours, creating
/// it if need be, never through a symbolic link: a link is moved into
/// `archive` and a fresh file made. The mode is set through the open
/// descriptor, so it is 0600 from the moment the file has a name.
pub(crate) fn open_private_append(path: &Path, archive: &Path) -> Result<File> {
    let open = || {
        OpenOptions::new()
            .append(true)
            .create(true)
            .mode(FILE_MODE)
            // A FIFO planted here must fail the open, not block it.
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(path)
    };
    let file = match open() {
        Err(e) if is_symlink_error(&e) => {
            let name = file_name(path);
            let moved = move_into_archive(archive, path, &name, LINK_SUFFIX)?;
            tracing::warn!(link = %path.display(), archived = %moved.display(),
                "a symbolic link stood where a file of the state dir belongs; moved it to the archive");
            open()
        }
        other => other,
    }
    .map_err(|e| PersistError::io("opening", path, e))?;
    let meta = file
        .metadata()
        .map_err(|e| PersistError::io("inspecting", path, e))?;
    if !meta.is_file() || meta.uid() != my_uid() {
        return Err(PersistError::io(
            "opening",
            path,
            io::Error::new(
                io::ErrorKind::InvalidData,
                "not a regular file of this user; move it away",
            ),
        ));
    }
    file.set_permissions(Permissions::from_mode(FILE_MODE))
        .map_err(|e| PersistError::io("setting mode 0600 on", path, e))?;
    Ok(file)
}

/// Replaces `path` with `bytes` so that a reader (or a crash) sees either the
/// old file or the new one, never a mix, and the new file is 0600 from the
/// moment it has a name.
pub(crate) fn write_private_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut options = OpenOptions::new();
    options
        .write(true)
        .create(true)
        .truncate(true)
        .mode(FILE_MODE);
    AtomicFile::new(path, OverwriteBehavior::AllowOverwrite)
        .write_with_options(
            |file: &mut File| -> io::Result<()> {
                // The mode above is filtered by the umask; set it exactly.
                file.set_permissions(Permissions::from_mode(FILE_MODE))?;
                file.write_all(bytes)
            },
            options,
        )
        .map_err(|e| PersistError::io("writing", path, e.into()))
}

/// Opens `path` for reading without blocking: a FIFO planted where a
/// snapshot or tail should be would otherwise hang the open until someone
/// writes to it. Callers then check that it is a regular file.
pub(crate) fn open_for_reading(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path)
}

/// Whether an open with `O_NOFOLLOW` failed because the path is a link.
pub(crate) fn is_symlink_error(e: &io::Error) -> bool {
    e.raw_os_error() == Some(libc::ELOOP)
}

/// Archive names of what was moved aside because it was damaged (bounded
/// by the sweep) end with one of these.
pub(crate) const CORRUPT_SUFFIX: &str = "-corrupt.json";
pub(crate) const LINK_SUFFIX: &str = "-link";

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Moves `from` (a link is moved, never followed) to a fresh
/// `<archive>/<stem>-<millis>[-<n>]<suffix>` and returns where it went.
pub(crate) fn move_into_archive(
    archive: &Path,
    from: &Path,
    stem: &str,
    suffix: &str,
) -> Result<PathBuf> {
    let now = millis(SystemTime::now());
    let target = (0..1000u32)
        .map(|n| match n {
            0 => archive.join(format!("{stem}-{now}{suffix}")),
            n => archive.join(format!("{stem}-{now}-{n}{suffix}")),
        })
        .find(|candidate| {
            matches!(fs::symlink_metadata(candidate), Err(e) if e.kind() == io::ErrorKind::NotFound)
        })
        .ok_or_else(|| {
            PersistError::io(
                "finding a free archive name in",
                archive,
                io::Error::from(io::ErrorKind::AlreadyExists),
            )
        })?;
    fs::rename(from, &target).map_err(|e| PersistError::io("archiving", from, e))?;
    fsync_dir(archive)?;
    if let Some(parent) = from.parent() {
        fsync_dir(parent)?;
    }
    Ok(target)
}

/// Fault injection: one fsync step of a disk slower by `delay` (zero, and
/// so nothing, unless a test or benchmark asked for it).
pub(crate) fn slow_disk(delay: std::time::Duration) {
    if !delay.is_zero() {
        std::thread::sleep(delay);
    }
}

/// Makes renames and unlinks inside `dir` durable.
pub(crate) fn fsync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| PersistError::io("syncing directory", dir, e))
}

/// `time` as [`Millis`]; a clock before 1970 counts as 0.
pub(crate) fn millis(time: SystemTime) -> Millis {
    time.duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}
