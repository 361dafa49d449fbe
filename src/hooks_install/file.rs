//! Reading an agent's config file safely and replacing it atomically.
//!
//! Only regular files are read (a FIFO or a device is refused before it is
//! opened, and opened without blocking in case it was swapped in since),
//! and at most [`MAX_CONFIG_BYTES`] of them. A config file that is a
//! symlink — dotfile managers make them — is followed: the file it points
//! to is the one read and replaced, so the link stays a link. A new version
//! is written beside the file, given the file's mode, synced and renamed
//! over it; if the file changed on disk since it was read (the agent wrote
//! its settings meanwhile), nothing is replaced.

use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::InstallError;

/// The largest config file read: settings files are a few kilobytes.
pub const MAX_CONFIG_BYTES: u64 = 4 * 1024 * 1024;

/// A config file as it was read.
#[derive(Debug)]
pub struct Current {
    /// The path asked for.
    pub path: PathBuf,
    /// The file read and replaced: `path`, or where its symlink points.
    pub target: PathBuf,
    /// Its text; `None` when there is no file yet.
    pub text: Option<String>,
    /// Its mode, device, inode, length and modification time, to keep the
    /// mode and to see whether it changed before it is replaced.
    stamp: Option<Stamp>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    mode: u32,
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
}

impl Stamp {
    fn of(meta: &std::fs::Metadata) -> Stamp {
        Stamp {
            mode: meta.mode() & 0o7777,
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
        }
    }
}

impl Current {
    /// `path` as it reads through its symlink, for messages.
    pub fn shown(&self) -> String {
        if self.target == self.path {
            self.path.display().to_string()
        } else {
            format!("{} (-> {})", self.path.display(), self.target.display())
        }
    }
}

/// Reads `path`, following a symlink to a regular file.
pub fn read(path: &Path) -> Result<Current, InstallError> {
    let io = |what: &'static str| {
        move |source: std::io::Error| InstallError::Io {
            path: path.to_path_buf(),
            what,
            source,
        }
    };
    let link = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Current {
                path: path.to_path_buf(),
                target: path.to_path_buf(),
                text: None,
                stamp: None,
            });
        }
        Err(e) => return Err(io("look at")(e)),
    };
    let target = if link.file_type().is_symlink() {
        std::fs::canonicalize(path).map_err(|_| InstallError::DanglingLink(path.to_path_buf()))?
    } else {
        path.to_path_buf()
    };
    if !std::fs::metadata(&target).map_err(io("look at"))?.is_file() {
        return Err(InstallError::NotRegular(target));
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(&target)
        .map_err(io("open"))?;
    let meta = file.metadata().map_err(io("look at"))?;
    if !meta.is_file() {
        return Err(InstallError::NotRegular(target));
    }
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io("read"))?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(InstallError::TooLarge(target, MAX_CONFIG_BYTES));
    }
    let text = String::from_utf8(bytes).map_err(|_| InstallError::NotText(target.clone()))?;
    Ok(Current {
        path: path.to_path_buf(),
        target,
        text: Some(text),
        stamp: Some(Stamp::of(&meta)),
    })
}

/// Replaces `current` with `text`: the file's own mode, or `new_mode` for a
/// new file (whose missing directories are made with `dir_mode`).
pub fn write(
    current: &Current,
    text: &str,
    new_mode: u32,
    dir_mode: u32,
) -> Result<(), InstallError> {
    let target = &current.target;
    let io = |what: &'static str| {
        move |source: std::io::Error| InstallError::Io {
            path: target.clone(),
            what,
            source,
        }
    };
    let dir = target.parent().unwrap_or(Path::new("."));
    if current.stamp.is_none() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(dir_mode)
            .create(dir)
            .map_err(io("make the directory of"))?;
    }
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.signaltty-{}", std::process::id()));
    let mode = current.stamp.map_or(new_mode, |s| s.mode);
    let result = write_temp(&temp, text, mode)
        .map_err(io("write beside"))
        .and_then(|()| unchanged_since_read(current))
        .and_then(|()| std::fs::rename(&temp, target).map_err(io("replace")));
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

fn write_temp(temp: &Path, text: &str, mode: u32) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(temp)?;
    file.write_all(text.as_bytes())?;
    // The mode asked for at creation is cut by the umask.
    file.set_permissions(std::fs::Permissions::from_mode(mode))?;
    file.sync_all()
}

/// Removes `current`'s file (one of signaltty's own that holds nothing any
/// more).
pub fn remove(current: &Current) -> Result<(), InstallError> {
    unchanged_since_read(current)?;
    std::fs::remove_file(&current.target).map_err(|source| InstallError::Io {
        path: current.target.clone(),
        what: "remove",
        source,
    })
}

fn unchanged_since_read(current: &Current) -> Result<(), InstallError> {
    let now = match std::fs::metadata(&current.target) {
        Ok(meta) => Some(Stamp::of(&meta)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => {
            return Err(InstallError::Io {
                path: current.target.clone(),
                what: "look at",
                source,
            });
        }
    };
    if now != current.stamp {
        return Err(InstallError::ChangedMeanwhile(current.target.clone()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symlinked_file_is_edited_where_it_points_and_stays_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("dotfiles-settings.json");
        std::fs::write(&real, "{}").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("settings.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let current = read(&link).unwrap();
        assert_eq!(current.target, std::fs::canonicalize(&real).unwrap());
        write(&current, "{\"a\": 1}\n", 0o600, 0o700).unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "{\"a\": 1}\n");
        let mode = std::fs::metadata(&real).unwrap().mode() & 0o7777;
        assert_eq!(mode, 0o640, "the file keeps its mode");
    }

    #[test]
    fn what_is_not_a_small_regular_text_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(matches!(read(&fifo), Err(InstallError::NotRegular(_))));
        assert!(matches!(read(dir.path()), Err(InstallError::NotRegular(_))));
        let big = dir.path().join("big.json");
        std::fs::write(&big, vec![b' '; MAX_CONFIG_BYTES as usize + 1]).unwrap();
        assert!(matches!(read(&big), Err(InstallError::TooLarge(..))));
        let binary = dir.path().join("bin.json");
        std::fs::write(&binary, [0xff, 0xfe]).unwrap();
        assert!(matches!(read(&binary), Err(InstallError::NotText(_))));
        let dangling = dir.path().join("dangling.json");
        std::os::unix::fs::symlink(dir.path().join("gone"), &dangling).unwrap();
        assert!(matches!(
            read(&dangling),
            Err(InstallError::DanglingLink(_))
        ));
    }

    #[test]
    fn a_file_changed_since_it_was_read_is_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, "{}").unwrap();
        let current = read(&path).unwrap();
        std::fs::write(&path, "{\"theirs\": true}").unwrap();
        let err = write(&current, "{\"ours\": true}\n", 0o600, 0o700).unwrap_err();
        assert!(matches!(err, InstallError::ChangedMeanwhile(_)), "{err}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"theirs\": true}"
        );
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 1, "no temp file is left behind");
    }

    #[test]
    fn a_new_file_gets_its_directories_and_a_private_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/settings.json");
        let current = read(&path).unwrap();
        assert!(current.text.is_none());
        write(&current, "{}\n", 0o600, 0o700).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().mode() & 0o7777, 0o600);
        let made = std::fs::metadata(dir.path().join("a")).unwrap().mode() & 0o7777;
        assert_eq!(made & 0o077, 0, "{made:o}");
    }
}
