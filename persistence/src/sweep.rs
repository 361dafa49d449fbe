//! The startup sweep: clearing what crashes and closed panes leave behind.
//!
//! It is best effort by design. Nothing here is needed for the server to
//! start, so every failure becomes a warning in the report instead of an
//! error, and the caller logs it and carries on.
//!
//! Run it once at startup, after loading and before any save or tail write:
//! it removes every atomic-write temp dir it finds, and a write in flight
//! has one.

use std::collections::HashSet;
use std::fs::{self, DirEntry};
use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::fsutil::{CORRUPT_SUFFIX, LINK_SUFFIX, millis};
use crate::snapshot::Millis;
use crate::state_dir::{ATOMIC_TEMP_PREFIX, PREV_LINK_PREFIX, StateDir};
use crate::tail::TAIL_SUFFIX;

/// How many archives of damaged files (corrupt snapshots, links found where
/// a file belongs) survive a sweep: the newest ones. What the user set aside
/// with `--no-restore`, and anything else in `archive/`, is never removed.
pub const ARCHIVE_KEEP: usize = 20;
/// Archives of damaged files older than this are removed whatever their
/// number.
pub const ARCHIVE_MAX_AGE: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// What a sweep removed, and what it could not do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SweepReport {
    /// `.atomicwrite*` dirs left by a crash mid-write.
    pub temp_dirs_removed: usize,
    /// Hard links left by a crash while `save` kept the previous snapshot.
    pub temp_links_removed: usize,
    /// Tails of panes that are not in the live set.
    pub orphan_tails_removed: usize,
    /// Archives of damaged files past the count or age bound.
    pub archive_removed: usize,
    pub warnings: Vec<String>,
}

impl SweepReport {
    fn warn(&mut self, what: &str, path: &Path, e: std::io::Error) {
        self.warnings
            .push(format!("{what} {}: {e}", path.display()));
    }
}

impl StateDir {
    /// Removes crash leftovers, tails whose pane is not in `live_pane_ids`,
    /// and archives of damaged files beyond [`ARCHIVE_KEEP`] or older than
    /// [`ARCHIVE_MAX_AGE`] at `now`. Never fails; see the report.
    pub fn sweep(&self, live_pane_ids: &HashSet<String>, now: SystemTime) -> SweepReport {
        let mut report = SweepReport::default();
        for entry in entries(self.root(), &mut report) {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with(ATOMIC_TEMP_PREFIX) && is_dir(&entry) {
                remove(&entry, &mut report, |r| r.temp_dirs_removed += 1);
            } else if name.starts_with(PREV_LINK_PREFIX) && !is_dir(&entry) {
                remove(&entry, &mut report, |r| r.temp_links_removed += 1);
            }
        }
        for entry in entries(&self.history_dir(), &mut report) {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with(ATOMIC_TEMP_PREFIX) && is_dir(&entry) {
                remove(&entry, &mut report, |r| r.temp_dirs_removed += 1);
            } else if let Some(pane_id) = name.strip_suffix(TAIL_SUFFIX)
                && !is_dir(&entry)
                && !live_pane_ids.contains(pane_id)
            {
                remove(&entry, &mut report, |r| r.orphan_tails_removed += 1);
            }
        }
        self.prune_archive(now, &mut report);
        report
    }

    fn prune_archive(&self, now: SystemTime, report: &mut SweepReport) {
        let now_ms = millis(now);
        let max_age_ms = u64::try_from(ARCHIVE_MAX_AGE.as_millis()).unwrap_or(u64::MAX);
        let mut dated: Vec<(Millis, DirEntry)> = entries(&self.archive_dir(), report)
            .into_iter()
            .filter(is_damage_archive)
            .map(|e| (archived_at(&e), e))
            .collect();
        // Newest first; ties broken by name so the result is deterministic.
        dated
            .sort_by(|(a, ea), (b, eb)| b.cmp(a).then_with(|| eb.file_name().cmp(&ea.file_name())));
        for (rank, (at, entry)) in dated.iter().enumerate() {
            let too_old = now_ms.saturating_sub(*at) > max_age_ms;
            if rank >= ARCHIVE_KEEP || too_old {
                remove(entry, report, |r| r.archive_removed += 1);
            }
        }
    }
}

/// Whether signaltty moved this entry aside because it was damaged (and so
/// may remove it), as opposed to something the user set aside.
fn is_damage_archive(entry: &DirEntry) -> bool {
    let name = entry.file_name();
    let name = name.to_string_lossy();
    name.ends_with(CORRUPT_SUFFIX) || name.ends_with(LINK_SUFFIX)
}

/// When an entry was archived: the time in its name (`<stem>-<millis>[-<n>]
/// <suffix>`, as the archive names it; a rename keeps the file's old mtime),
/// else its mtime.
fn archived_at(entry: &DirEntry) -> Millis {
    // Any time since 2001 has 13 digits; no id segment (at most 12 hex
    // digits, as in a UUID) or collision counter is that large.
    const EARLIEST: Millis = 1_000_000_000_000;
    let name = entry.file_name();
    let name = name.to_string_lossy();
    let stem = [CORRUPT_SUFFIX, LINK_SUFFIX]
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .unwrap_or(&name);
    if let Some(ms) = stem
        .rsplit('-')
        .filter_map(|part| part.parse::<Millis>().ok())
        .find(|ms| *ms >= EARLIEST)
    {
        return ms;
    }
    entry
        .metadata()
        .and_then(|m| m.modified())
        .map(millis)
        .unwrap_or(0)
}

fn entries(dir: &Path, report: &mut SweepReport) -> Vec<DirEntry> {
    match fs::read_dir(dir) {
        Ok(iter) => iter
            .filter_map(|e| match e {
                Ok(e) => Some(e),
                Err(err) => {
                    report.warn("listing", dir, err);
                    None
                }
            })
            .collect(),
        Err(err) => {
            report.warn("listing", dir, err);
            Vec::new()
        }
    }
}

/// Without following symlinks: a link is removed, never what it points to.
fn is_dir(entry: &DirEntry) -> bool {
    entry.file_type().is_ok_and(|t| t.is_dir())
}

fn remove(entry: &DirEntry, report: &mut SweepReport, count: impl FnOnce(&mut SweepReport)) {
    let path = entry.path();
    let result = if is_dir(entry) {
        fs::remove_dir_all(&path)
    } else {
        fs::remove_file(&path)
    };
    match result {
        Ok(()) => count(report),
        Err(e) => report.warn("removing", &path, e),
    }
}
