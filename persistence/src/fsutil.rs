//! Small file-system helpers shared by the save, tail and sweep code.
//!
//! They exist so that the two promises of the state dir — directories 0700,
//! files 0600, and a file is either the old or the new version — are kept in
//! one place instead of at every call site.

use std::fs::{self, DirBuilder, File, OpenOptions, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use atomicwrites::{AtomicFile, OverwriteBehavior};

use crate::error::{PersistError, Result};
use crate::snapshot::Millis;

pub(crate) const DIR_MODE: u32 = 0o700;
pub(crate) const FILE_MODE: u32 = 0o600;

/// Creates `path` (and missing parents) as 0700 and tightens an existing
/// directory to 0700, so a state dir created by an older build or by hand
/// does not stay readable by other users.
pub(crate) fn create_private_dir(path: &Path) -> Result<()> {
    DirBuilder::new()
        .recursive(true)
        .mode(DIR_MODE)
        .create(path)
        .map_err(|e| PersistError::io("creating directory", path, e))?;
    let meta = fs::metadata(path).map_err(|e| PersistError::io("inspecting", path, e))?;
    if !meta.is_dir() {
        return Err(PersistError::NotADirectory(path.to_path_buf()));
    }
    if meta.permissions().mode() & 0o7777 != DIR_MODE {
        fs::set_permissions(path, Permissions::from_mode(DIR_MODE))
            .map_err(|e| PersistError::io("setting mode 0700 on", path, e))?;
    }
    Ok(())
}

/// Makes `path` a private (0600) file, creating it empty if it does not
/// exist. The server calls this on `server.log` before pointing its output
/// there, so a log never exists world-readable, not even briefly.
pub fn ensure_private_file(path: &Path) -> Result<()> {
    let file = OpenOptions::new()
        .append(true)
        .create(true)
        .mode(FILE_MODE)
        .open(path)
        .map_err(|e| PersistError::io("opening", path, e))?;
    file.set_permissions(Permissions::from_mode(FILE_MODE))
        .map_err(|e| PersistError::io("setting mode 0600 on", path, e))
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
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
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
