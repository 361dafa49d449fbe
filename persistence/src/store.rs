//! Saving a snapshot without ever leaving the state dir without a good one.
//!
//! The order matters. First the current `snapshot.json` is hard-linked to a
//! temp name and that link is renamed over `snapshot.prev.json`: at every
//! instant `snapshot.prev.json` is either the older good file or the current
//! one, and `snapshot.json` is untouched. Only then is the new snapshot
//! written through atomicwrites (temp file, fsync, rename, fsync of the
//! dirs). A crash or a failure at any step leaves `snapshot.json` as it was,
//! or replaced whole.

use std::fs;
use std::io::ErrorKind;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::sync::atomic::{AtomicU64, Ordering};

use tracing::warn;

use crate::error::{PersistError, Result};
use crate::fsutil::{
    FILE_MODE, fsync_dir, is_symlink_error, open_for_reading, slow_disk, write_private_atomic,
};
use crate::load::{MAX_SNAPSHOT_BYTES, RawFile, read_raw};
use crate::snapshot::{SNAPSHOT_VERSION, Snapshot};
use crate::state_dir::{PREV_LINK_PREFIX, StateDir};

/// Makes link names unique between saves of one process.
static LINK_COUNTER: AtomicU64 = AtomicU64::new(0);

impl StateDir {
    /// Writes `snapshot` as the new `snapshot.json`, keeping the old one as
    /// `snapshot.prev.json`.
    ///
    /// The snapshot is normalized and validated first and refused if invalid
    /// or too large to load back: writing it would push the last good
    /// snapshot into `snapshot.prev.json`, and one more save would lose it.
    /// On any error `snapshot.json` is left as it was.
    ///
    /// Assumes one saver per state dir at a time (the server holds a
    /// singleton lock and saves from one place).
    pub fn save(&self, snapshot: &Snapshot) -> Result<()> {
        if snapshot.snapshot_version != SNAPSHOT_VERSION {
            return Err(PersistError::Invalid(format!(
                "refusing to save snapshot_version {} (this build writes {SNAPSHOT_VERSION})",
                snapshot.snapshot_version
            )));
        }
        let mut snapshot = snapshot.clone();
        snapshot.normalize();
        // Every way in is bounded already; this is the last line of defence
        // that keeps a snapshot saveable whatever slipped through.
        for cut in snapshot.enforce_limits() {
            warn!("saving a snapshot: {cut}");
        }
        snapshot.validate()?;
        let mut bytes = serde_json::to_vec_pretty(&snapshot)?;
        bytes.push(b'\n');
        if bytes.len() as u64 > MAX_SNAPSHOT_BYTES {
            return Err(PersistError::Invalid(format!(
                "snapshot is {} bytes, more than the {MAX_SNAPSHOT_BYTES} a load accepts",
                bytes.len()
            )));
        }
        self.promote_current_to_prev()?;
        slow_disk(self.fsync_delay());
        write_private_atomic(&self.snapshot_path(), &bytes)?;
        slow_disk(self.fsync_delay());
        Ok(())
    }

    /// Makes `snapshot.prev.json` a copy of the current `snapshot.json`, if
    /// there is one. `snapshot.json` is trusted as good here because only
    /// `save` writes it and `load` moves anything bad out of the way — but
    /// a symbolic link planted there since is neither followed nor kept.
    fn promote_current_to_prev(&self) -> Result<()> {
        let current = self.snapshot_path();
        let prev = self.prev_path();
        let file = match open_for_reading(&current) {
            Ok(file) => file,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
            Err(e) if is_symlink_error(&e) => {
                warn!(path = %current.display(), "a symbolic link is not kept as the previous snapshot");
                return Ok(());
            }
            Err(e) => return Err(PersistError::io("opening", &current, e)),
        };
        let meta = file
            .metadata()
            .map_err(|e| PersistError::io("inspecting", &current, e))?;
        if !meta.is_file() {
            return Ok(());
        }
        // A save that failed after this step left both names on one file.
        // Linking again would leave the link behind: a rename between two
        // names of the same file does nothing.
        if fs::symlink_metadata(&prev).is_ok_and(|p| p.dev() == meta.dev() && p.ino() == meta.ino())
        {
            return Ok(());
        }
        // A snapshot.json made by hand may be readable by others; the copy
        // we keep is not. Through the descriptor, so never through a link;
        // failing that is no reason to fail the save.
        let _ = file.set_permissions(fs::Permissions::from_mode(FILE_MODE));
        let n = LINK_COUNTER.fetch_add(1, Ordering::Relaxed);
        let link = self
            .root()
            .join(format!("{PREV_LINK_PREFIX}{}-{n}", std::process::id()));
        // A crash of an earlier process with the same pid can leave this
        // exact name behind; it is ours to reuse.
        let _ = fs::remove_file(&link);
        match fs::hard_link(&current, &link) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
            Err(e) if links_unsupported(&e) => return self.copy_current_to_prev(),
            Err(e) => return Err(PersistError::io("linking", &current, e)),
        }
        let renamed = fs::rename(&link, &prev);
        // Gone after a rename that worked; still there after one that failed.
        let _ = fs::remove_file(&link);
        renamed.map_err(|e| PersistError::io("renaming", &prev, e))?;
        fsync_dir(self.root())
    }

    /// For file systems without hard links: the same promise, by copying the
    /// bytes through an atomic write.
    fn copy_current_to_prev(&self) -> Result<()> {
        let current = self.snapshot_path();
        match read_raw(&current, MAX_SNAPSHOT_BYTES)? {
            RawFile::Bytes(bytes) => write_private_atomic(&self.prev_path(), &bytes),
            // Nothing there, or nothing that could be a good snapshot.
            RawFile::Missing | RawFile::TooLarge(_) | RawFile::NotAFile | RawFile::Symlink => {
                Ok(())
            }
        }
    }
}

fn links_unsupported(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EPERM | libc::EOPNOTSUPP | libc::ENOSYS | libc::EMLINK | libc::EXDEV)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names_in(dir: &std::path::Path) -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn a_save_that_failed_after_promoting_leaves_no_link_behind() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir::open(tmp.path().join("s")).unwrap();
        dir.save(&Snapshot::empty()).unwrap();
        // What a save whose write failed leaves: both names on one file.
        dir.promote_current_to_prev().unwrap();
        for _ in 0..3 {
            dir.promote_current_to_prev().unwrap();
        }
        let names = names_in(dir.root());
        assert!(
            !names.iter().any(|n| n.starts_with(PREV_LINK_PREFIX)),
            "{names:?}"
        );
    }

    #[test]
    fn a_linked_snapshot_is_neither_kept_nor_chmodded() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir::open(tmp.path().join("s")).unwrap();
        let target = tmp.path().join("elsewhere.json");
        fs::write(&target, b"{}").unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o644)).unwrap();
        std::os::unix::fs::symlink(&target, dir.snapshot_path()).unwrap();
        dir.save(&Snapshot::empty()).unwrap();
        assert_eq!(fs::metadata(&target).unwrap().mode() & 0o777, 0o644);
        assert_eq!(fs::read(&target).unwrap(), b"{}");
        assert!(fs::symlink_metadata(dir.prev_path()).is_err());
        assert!(fs::symlink_metadata(dir.snapshot_path()).unwrap().is_file());
    }
}
