//! The startup sweep removes crash leftovers, orphan tails and old or
//! excess archives of damaged files, and nothing else: what the user set
//! aside stays.

mod common;

use std::collections::HashSet;
use std::fs;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{archive_names, sample, state_dir};
use signaltty_persistence::{ARCHIVE_KEEP, ARCHIVE_MAX_AGE};

const DAY_MS: u64 = 24 * 60 * 60 * 1000;

#[test]
fn sweep_removes_leftovers_and_orphans_and_keeps_live_tails() {
    let (_tmp, dir) = state_dir();
    dir.save(&sample("A")).unwrap();
    dir.save(&sample("B")).unwrap();
    // Crash leftovers of atomicwrites (with a half-written file inside) and
    // of save's prev link.
    for parent in [dir.root().to_path_buf(), dir.history_dir()] {
        let t = parent.join(".atomicwriteXYZ123");
        fs::create_dir(&t).unwrap();
        fs::write(t.join("tmpfile.tmp"), b"half").unwrap();
    }
    fs::write(dir.root().join(".prevlink-123-0"), b"{}").unwrap();
    let tails = dir.tail_store();
    tails.write("p1", "live\n").unwrap();
    tails.write("p3", "live too\n").unwrap();
    tails.write("gone", "orphan\n").unwrap();
    fs::write(dir.history_dir().join("notes.txt"), b"not a tail").unwrap();

    let live: HashSet<String> = sample("B").pane_ids();
    let report = dir.sweep(&live, SystemTime::now());

    assert_eq!(report.temp_dirs_removed, 2, "{report:?}");
    assert_eq!(report.temp_links_removed, 1, "{report:?}");
    assert_eq!(report.orphan_tails_removed, 1, "{report:?}");
    assert!(report.warnings.is_empty(), "{report:?}");
    assert!(!dir.root().join(".atomicwriteXYZ123").exists());
    assert!(!dir.history_dir().join(".atomicwriteXYZ123").exists());
    assert!(!dir.root().join(".prevlink-123-0").exists());
    assert!(!tails.path("gone").unwrap().exists());
    assert_eq!(tails.read("p1").unwrap().as_deref(), Some("live\n"));
    assert_eq!(tails.read("p3").unwrap().as_deref(), Some("live too\n"));
    assert!(dir.history_dir().join("notes.txt").exists());
    // The snapshots themselves are never swept.
    assert!(dir.snapshot_path().exists() && dir.prev_path().exists());
}

#[test]
fn sweep_prunes_archive_by_count_and_age() {
    let (_tmp, dir) = state_dir();
    let now = SystemTime::now();
    let now_ms = u64::try_from(now.duration_since(UNIX_EPOCH).unwrap().as_millis()).unwrap();
    let archive = dir.archive_dir();
    // 25 recent entries, one per minute, newest last.
    for i in 0..25u64 {
        let at = now_ms - (25 - i) * 60_000;
        fs::write(archive.join(format!("snapshot-{at}-corrupt.json")), b"x").unwrap();
    }
    // Two entries older than the age bound.
    let old = now_ms - 31 * DAY_MS;
    fs::write(archive.join(format!("snapshot-{old}-set-aside.json")), b"x").unwrap();
    fs::write(
        archive.join(format!("snapshot-prev-{old}-corrupt.json")),
        b"x",
    )
    .unwrap();

    // A link found where a tail belonged is a damaged file too.
    fs::write(archive.join(format!("tail-p1-{old}-link")), b"x").unwrap();

    let report = dir.sweep(&HashSet::new(), now);
    assert_eq!(report.archive_removed, 7, "{report:?}");
    let mut left = archive_names(&dir);
    let set_aside = format!("snapshot-{old}-set-aside.json");
    assert!(left.contains(&set_aside), "what the user set aside stays");
    left.retain(|name| *name != set_aside);
    assert_eq!(left.len(), ARCHIVE_KEEP);
    let oldest_kept = now_ms - 20 * 60_000;
    for name in &left {
        let at: u64 = name
            .trim_start_matches("snapshot-")
            .split('-')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(at >= oldest_kept, "{name} should have been pruned");
    }
}

#[test]
fn sweep_drops_old_archive_entries_even_under_the_count() {
    let (_tmp, dir) = state_dir();
    let now = SystemTime::now();
    let now_ms = u64::try_from(now.duration_since(UNIX_EPOCH).unwrap().as_millis()).unwrap();
    let fresh = dir
        .archive_dir()
        .join(format!("snapshot-{}-corrupt.json", now_ms - DAY_MS));
    let stale = dir.archive_dir().join(format!(
        "snapshot-{}-corrupt.json",
        now_ms - u64::try_from(ARCHIVE_MAX_AGE.as_millis()).unwrap() - 1
    ));
    fs::write(&fresh, b"x").unwrap();
    fs::write(&stale, b"x").unwrap();
    // A damaged file's archive whose name carries no time is dated by its
    // mtime (now); one put there by hand is never touched.
    let undated = dir.archive_dir().join("server.log-link");
    fs::write(&undated, b"x").unwrap();
    fs::write(dir.archive_dir().join("by-hand.json"), b"x").unwrap();
    let report = dir.sweep(&HashSet::new(), now);
    assert_eq!(report.archive_removed, 1, "{report:?}");
    assert!(fresh.exists() && !stale.exists() && undated.exists());
    assert!(dir.archive_dir().join("by-hand.json").exists());
    // Seen from 40 days later, the undated one is old too.
    let later = now + Duration::from_secs(40 * 24 * 60 * 60);
    let report = dir.sweep(&HashSet::new(), later);
    assert_eq!(report.archive_removed, 2, "{report:?}");
    assert_eq!(archive_names(&dir), vec!["by-hand.json".to_string()]);
}

#[test]
fn sweep_of_a_damaged_state_dir_warns_instead_of_failing() {
    let (_tmp, dir) = state_dir();
    fs::remove_dir(dir.archive_dir()).unwrap();
    fs::remove_dir(dir.history_dir()).unwrap();
    let report = dir.sweep(&HashSet::new(), SystemTime::now());
    assert_eq!(report.warnings.len(), 2, "{report:?}");
    assert!(report.warnings.iter().any(|w| w.contains("archive")));
}
