//! Reading the state back, and what to do with a file that cannot be used.
//!
//! The loader never decides policy; it reports one [`LoadOutcome`] and has
//! made only the moves that outcome describes. A bad file is never deleted,
//! only moved into `archive/`, and a file from a newer version is never
//! touched at all: the newer build that wrote it may still want it.

use std::fs;
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use tracing::warn;

use crate::error::{PersistError, Result};
use crate::fsutil::{CORRUPT_SUFFIX, is_symlink_error, move_into_archive, open_for_reading};
use crate::snapshot::{SNAPSHOT_VERSION, Snapshot};
use crate::state_dir::{PREV_FILE, SNAPSHOT_FILE, StateDir};

/// A snapshot file larger than this is treated as corrupt without reading
/// it: 500 panes take well under 1 MiB, so anything this big is not ours.
pub const MAX_SNAPSHOT_BYTES: u64 = 64 * 1024 * 1024;

/// Archive file names start with one of these, then `-<millis>`.
const ARCHIVE_STEM_PREV: &str = "snapshot-prev";
const ARCHIVE_STEM: &str = "snapshot";
/// What `--no-restore` set aside ends with; the sweep never removes it.
const SET_ASIDE_SUFFIX: &str = "-set-aside.json";

/// What [`StateDir::load`] found, and what it did about it.
#[derive(Debug, Clone, PartialEq)]
pub enum LoadOutcome {
    /// Neither `snapshot.json` nor a usable `snapshot.prev.json`: start empty.
    Fresh,
    /// `snapshot.json` was good.
    Restored(Snapshot),
    /// `snapshot.json` was unusable or missing; `snapshot.prev.json` was good
    /// and is what `snapshot` holds. `archived` is where the bad newest file
    /// went (`None` when it was simply missing).
    Recovered {
        snapshot: Snapshot,
        archived: Option<PathBuf>,
        reason: String,
    },
    /// The only snapshot there was is unusable and now sits at `archived`;
    /// start empty and say so loudly.
    CorruptNoFallback { archived: PathBuf, reason: String },
    /// `path` was written by a newer build. Nothing was moved or changed;
    /// the caller should refuse to start.
    FutureVersion {
        path: PathBuf,
        found: u32,
        supported: u32,
    },
}

impl LoadOutcome {
    /// The snapshot to restore, if any.
    pub fn snapshot(&self) -> Option<&Snapshot> {
        match self {
            LoadOutcome::Restored(s) | LoadOutcome::Recovered { snapshot: s, .. } => Some(s),
            _ => None,
        }
    }

    /// One line for the log and `ctl status`; `None` for the quiet outcomes.
    pub fn warning(&self) -> Option<String> {
        match self {
            LoadOutcome::Fresh | LoadOutcome::Restored(_) => None,
            LoadOutcome::Recovered {
                archived, reason, ..
            } => Some(match archived {
                Some(a) => format!(
                    "restored the previous snapshot: {reason} (moved to {})",
                    a.display()
                ),
                None => format!("restored the previous snapshot: {reason}"),
            }),
            LoadOutcome::CorruptNoFallback { archived, reason } => Some(format!(
                "starting empty: {reason} (moved to {})",
                archived.display()
            )),
            LoadOutcome::FutureVersion {
                path,
                found,
                supported,
            } => Some(format!(
                "{} has snapshot_version {found}, but this build reads only up to {supported}; \
                 run a newer signaltty or move the file away",
                path.display()
            )),
        }
    }
}

/// A file's bytes, or why there are none worth parsing.
pub(crate) enum RawFile {
    Missing,
    NotAFile,
    /// A symbolic link: never followed in the state dir.
    Symlink,
    TooLarge(u64),
    Bytes(Vec<u8>),
}

/// Reads at most `cap` bytes, so a huge (or growing) file never lands in
/// memory whole.
pub(crate) fn read_raw(path: &Path, cap: u64) -> Result<RawFile> {
    let file = match open_for_reading(path) {
        Ok(f) => f,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(RawFile::Missing),
        Err(e) if is_symlink_error(&e) => return Ok(RawFile::Symlink),
        Err(e) => return Err(PersistError::io("opening", path, e)),
    };
    let meta = file
        .metadata()
        .map_err(|e| PersistError::io("inspecting", path, e))?;
    if !meta.is_file() {
        return Ok(RawFile::NotAFile);
    }
    if meta.len() > cap {
        return Ok(RawFile::TooLarge(meta.len()));
    }
    let mut bytes = Vec::new();
    file.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| PersistError::io("reading", path, e))?;
    if bytes.len() as u64 > cap {
        return Ok(RawFile::TooLarge(bytes.len() as u64));
    }
    Ok(RawFile::Bytes(bytes))
}

/// What one snapshot file turned out to be.
#[derive(Debug)]
pub(crate) enum Verdict {
    Missing,
    Good(Box<Snapshot>),
    Corrupt(String),
    Future(u32),
}

/// Only the version. Everything else is skipped unparsed into types, so a
/// newer file whose other fields changed shape is still recognised as newer
/// rather than reported as corrupt.
#[derive(Deserialize)]
struct VersionProbe {
    #[serde(default)]
    snapshot_version: Option<u64>,
}

/// Judges the bytes of a snapshot file. Pure, so it can be fuzzed.
pub(crate) fn judge(bytes: &[u8]) -> Verdict {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first != Some(&b'{') {
        return Verdict::Corrupt("not a JSON object".into());
    }
    let version = match serde_json::from_slice::<VersionProbe>(bytes) {
        Ok(probe) => probe.snapshot_version,
        Err(e) => return Verdict::Corrupt(e.to_string()),
    };
    let version = match version {
        None => return Verdict::Corrupt("snapshot_version is missing".into()),
        Some(0) => return Verdict::Corrupt("snapshot_version is 0".into()),
        Some(v) if v > u64::from(SNAPSHOT_VERSION) => {
            return Verdict::Future(u32::try_from(v).unwrap_or(u32::MAX));
        }
        Some(v) => v,
    };
    let mut snapshot: Snapshot = match serde_json::from_slice(bytes) {
        Ok(s) => s,
        Err(e) => return Verdict::Corrupt(format!("version {version}: {e}")),
    };
    snapshot.normalize();
    for cut in snapshot.enforce_limits() {
        warn!("loading a snapshot: {cut}");
    }
    match snapshot.validate() {
        Ok(()) => Verdict::Good(Box::new(snapshot)),
        Err(e) => Verdict::Corrupt(e.to_string()),
    }
}

fn inspect(path: &Path) -> Result<Verdict> {
    Ok(match read_raw(path, MAX_SNAPSHOT_BYTES)? {
        RawFile::Missing => Verdict::Missing,
        RawFile::NotAFile => Verdict::Corrupt("not a regular file".into()),
        RawFile::Symlink => Verdict::Corrupt(
            "a symbolic link, which signaltty never follows in its state dir".into(),
        ),
        RawFile::TooLarge(n) => Verdict::Corrupt(format!(
            "{n} bytes, more than the {MAX_SNAPSHOT_BYTES} a snapshot may have"
        )),
        RawFile::Bytes(bytes) => judge(&bytes),
    })
}

/// What a state dir holds, read without creating, moving or changing
/// anything: for listing sessions that are not running.
#[derive(Debug, Clone, PartialEq)]
pub enum Peek {
    /// No state dir, or no snapshot in it yet.
    Empty,
    /// The snapshot a start would restore (`snapshot.json`, else the
    /// previous one).
    Saved(Box<Snapshot>),
    /// Nothing usable, and why (a start would say the same, louder).
    Unusable(String),
}

/// Reads the snapshot a server started on `root` would restore, with the
/// loader's own rules (no link followed, bounded, validated), but moves
/// nothing: a damaged file is the next start's to archive.
pub fn peek(root: &Path) -> Peek {
    use crate::private_dir::{DirProblem, check_private_dir};
    match check_private_dir(root) {
        Ok(()) => {}
        Err(e) if matches!(e.problem, DirProblem::Missing) => return Peek::Empty,
        Err(e) => return Peek::Unusable(e.to_string()),
    }
    let mut why = Vec::new();
    for name in [SNAPSHOT_FILE, PREV_FILE] {
        match inspect(&root.join(name)) {
            Ok(Verdict::Good(snapshot)) => return Peek::Saved(snapshot),
            Ok(Verdict::Missing) => {}
            Ok(Verdict::Corrupt(reason)) => why.push(format!("{name}: {reason}")),
            Ok(Verdict::Future(found)) => {
                return Peek::Unusable(format!(
                    "{name} has snapshot_version {found}, newer than this signaltty reads"
                ));
            }
            Err(e) => why.push(e.to_string()),
        }
    }
    if why.is_empty() {
        Peek::Empty
    } else {
        Peek::Unusable(why.join("; "))
    }
}

impl StateDir {
    /// Loads `snapshot.json`, falling back to `snapshot.prev.json`.
    ///
    /// An unusable file (unparseable, invalid, version 0 or missing, too
    /// large) is moved to `archive/snapshot[-prev]-<millis>-corrupt.json`.
    /// If either file the loader would use is from a newer version, it
    /// returns [`LoadOutcome::FutureVersion`] for it before moving anything:
    /// archiving the corrupt newest and then starting empty would let the
    /// next saves push the newer file out of `snapshot.prev.json`.
    ///
    /// Errors only when the disk itself fails (a file cannot be opened or
    /// moved); what is in the files never makes this fail.
    pub fn load(&self) -> Result<LoadOutcome> {
        let current = self.snapshot_path();
        let prev = self.prev_path();
        let future = |path: PathBuf, found| LoadOutcome::FutureVersion {
            path,
            found,
            supported: SNAPSHOT_VERSION,
        };
        Ok(match inspect(&current)? {
            Verdict::Good(s) => LoadOutcome::Restored(*s),
            Verdict::Future(found) => future(current, found),
            Verdict::Missing => match inspect(&prev)? {
                Verdict::Missing => LoadOutcome::Fresh,
                Verdict::Good(s) => LoadOutcome::Recovered {
                    snapshot: *s,
                    archived: None,
                    reason: format!("{SNAPSHOT_FILE} missing"),
                },
                Verdict::Future(found) => future(prev, found),
                Verdict::Corrupt(why) => LoadOutcome::CorruptNoFallback {
                    archived: self.archive(&prev, ARCHIVE_STEM_PREV, CORRUPT_SUFFIX)?,
                    reason: format!("{SNAPSHOT_FILE} missing and {PREV_FILE}: {why}"),
                },
            },
            Verdict::Corrupt(why) => {
                let reason = format!("{SNAPSHOT_FILE}: {why}");
                let fallback = inspect(&prev)?;
                if let Verdict::Future(found) = fallback {
                    return Ok(future(prev, found));
                }
                let archived = self.archive(&current, ARCHIVE_STEM, CORRUPT_SUFFIX)?;
                match fallback {
                    Verdict::Good(s) => LoadOutcome::Recovered {
                        snapshot: *s,
                        archived: Some(archived),
                        reason,
                    },
                    Verdict::Corrupt(prev_why) => {
                        self.archive(&prev, ARCHIVE_STEM_PREV, CORRUPT_SUFFIX)?;
                        LoadOutcome::CorruptNoFallback {
                            archived,
                            reason: format!("{reason}; {PREV_FILE}: {prev_why}"),
                        }
                    }
                    Verdict::Missing | Verdict::Future(_) => {
                        LoadOutcome::CorruptNoFallback { archived, reason }
                    }
                }
            }
        })
    }

    /// For `--no-restore`: moves `snapshot.json` (and `snapshot.prev.json`,
    /// so a later fallback cannot bring the old state back either) into
    /// `archive/` with a `-set-aside` name. Returns where `snapshot.json`
    /// went, `None` if there was none. Never deletes anything.
    pub fn set_aside(&self) -> Result<Option<PathBuf>> {
        let moved =
            self.archive_if_present(&self.snapshot_path(), ARCHIVE_STEM, SET_ASIDE_SUFFIX)?;
        self.archive_if_present(&self.prev_path(), ARCHIVE_STEM_PREV, SET_ASIDE_SUFFIX)?;
        Ok(moved)
    }

    fn archive_if_present(&self, from: &Path, stem: &str, suffix: &str) -> Result<Option<PathBuf>> {
        match fs::symlink_metadata(from) {
            Ok(_) => self.archive(from, stem, suffix).map(Some),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(PersistError::io("inspecting", from, e)),
        }
    }

    /// Moves `from` to a fresh `archive/<stem>-<millis>[-<n>]<suffix>`.
    fn archive(&self, from: &Path, stem: &str, suffix: &str) -> Result<PathBuf> {
        move_into_archive(&self.archive_dir(), from, stem, suffix)
    }
}
