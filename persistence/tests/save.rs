//! Saving: the previous snapshot is kept, files are private, failures leave
//! the old snapshot alone, and secrets never reach the disk.

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::{mode, sample, state_dir, title_of};
use signaltty_persistence::{
    Layout, LoadOutcome, NotificationRecord, PersistError, Severity, Snapshot, StateDir, filter_env,
};

fn read_snapshot(path: &Path) -> Snapshot {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

#[test]
fn save_keeps_the_previous_snapshot() {
    let (_tmp, dir) = state_dir();
    dir.save(&sample("A")).unwrap();
    assert!(!dir.prev_path().exists(), "first save has nothing to keep");
    dir.save(&sample("B")).unwrap();
    assert_eq!(title_of(&read_snapshot(&dir.snapshot_path())), "tab B");
    assert_eq!(title_of(&read_snapshot(&dir.prev_path())), "tab A");
    dir.save(&sample("C")).unwrap();
    assert_eq!(title_of(&read_snapshot(&dir.snapshot_path())), "tab C");
    assert_eq!(title_of(&read_snapshot(&dir.prev_path())), "tab B");
}

#[test]
fn save_leaves_no_temp_files_behind() {
    let (_tmp, dir) = state_dir();
    dir.save(&sample("A")).unwrap();
    dir.save(&sample("B")).unwrap();
    let mut names: Vec<String> = fs::read_dir(dir.root())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["archive", "history", "snapshot.json", "snapshot.prev.json"]
    );
}

#[test]
fn permissions_are_private() {
    let (_tmp, dir) = state_dir();
    dir.save(&sample("A")).unwrap();
    dir.save(&sample("B")).unwrap();
    let tails = dir.tail_store();
    tails.write("p1", "hello\n").unwrap();
    for d in [
        dir.root().to_path_buf(),
        dir.history_dir(),
        dir.archive_dir(),
    ] {
        assert_eq!(mode(&d), 0o700, "{}", d.display());
    }
    for f in [
        dir.snapshot_path(),
        dir.prev_path(),
        tails.path("p1").unwrap(),
    ] {
        assert_eq!(mode(&f), 0o600, "{}", f.display());
    }
}

#[test]
fn a_hand_made_world_readable_snapshot_is_kept_private() {
    let (_tmp, dir) = state_dir();
    dir.save(&sample("A")).unwrap();
    fs::set_permissions(dir.snapshot_path(), fs::Permissions::from_mode(0o644)).unwrap();
    dir.save(&sample("B")).unwrap();
    assert_eq!(mode(&dir.prev_path()), 0o600);
    assert_eq!(mode(&dir.snapshot_path()), 0o600);
}

#[test]
fn invalid_snapshot_is_refused_and_disk_untouched() {
    let (_tmp, dir) = state_dir();
    dir.save(&sample("A")).unwrap();
    let before = fs::read(dir.snapshot_path()).unwrap();
    let mut bad = sample("B");
    bad.tabs[1].layout = Layout::pane("p1");
    let err = dir.save(&bad).unwrap_err();
    assert!(matches!(err, PersistError::Invalid(_)), "{err}");
    assert_eq!(fs::read(dir.snapshot_path()).unwrap(), before);
    assert!(
        !dir.prev_path().exists(),
        "a refused save must not rotate prev"
    );

    let mut wrong_version = sample("C");
    wrong_version.snapshot_version = 7;
    assert!(dir.save(&wrong_version).is_err());
}

#[test]
fn save_normalizes_nan_ratio_so_the_file_loads_back() {
    let (_tmp, dir) = state_dir();
    let mut s = sample("A");
    if let Layout::Split { ratio, .. } = &mut s.tabs[0].layout {
        *ratio = f32::NAN;
    }
    dir.save(&s).unwrap();
    let LoadOutcome::Restored(loaded) = dir.load().unwrap() else {
        panic!("a saved NaN ratio must not make the file corrupt")
    };
    assert!(matches!(loaded.tabs[0].layout, Layout::Split { ratio, .. } if ratio == 0.5));
}

#[test]
fn save_caps_notifications() {
    let (_tmp, dir) = state_dir();
    let mut s = sample("A");
    for i in 0..250u64 {
        s.notifications.push(NotificationRecord {
            id: i,
            pane_id: Some("p1".into()),
            workspace_id: None,
            title: format!("n{i}"),
            body: String::new(),
            severity: Severity::Info,
            source: "ctl".into(),
            created_at: i,
            read_at: None,
        });
    }
    dir.save(&s).unwrap();
    let saved = read_snapshot(&dir.snapshot_path());
    assert_eq!(saved.notifications.len(), 200);
    assert_eq!(saved.notifications[0].id, 50);
}

#[test]
fn planted_secrets_never_reach_the_file() {
    let (_tmp, dir) = state_dir();
    let mut s = sample("A");
    s.panes[0].env = filter_env([
        ("TERM", "xterm-256color"),
        ("GITHUB_TOKEN", "ghp_PLANTEDGITHUBTOKEN"),
        ("MY_API_KEY", "PLANTED-API-KEY-VALUE"),
        ("SIGNALTTY_API_KEY", "PLANTED-SIGNALTTY-KEY"),
        ("LC_SECRET", "PLANTED-LC-SECRET"),
        ("PATH", "/planted/path"),
        ("SIGNALTTY_PANE", "p1"),
    ]);
    dir.save(&s).unwrap();
    let text = fs::read_to_string(dir.snapshot_path()).unwrap();
    for planted in [
        "GITHUB_TOKEN",
        "ghp_PLANTEDGITHUBTOKEN",
        "MY_API_KEY",
        "PLANTED-API-KEY-VALUE",
        "PLANTED-SIGNALTTY-KEY",
        "PLANTED-LC-SECRET",
        "/planted/path",
    ] {
        assert!(
            !text.contains(planted),
            "{planted} leaked into snapshot.json"
        );
    }
    assert!(text.contains("xterm-256color") && text.contains("SIGNALTTY_PANE"));
}

/// Whether the current user can write into a 0500 directory (root can).
fn writes_ignore_modes(dir: &Path) -> bool {
    let probe = dir.join("probe");
    let ok = fs::write(&probe, b"x").is_ok();
    let _ = fs::remove_file(&probe);
    ok
}

#[test]
fn failed_save_in_unwritable_dir_keeps_snapshot() {
    let (_tmp, dir) = state_dir();
    dir.save(&sample("A")).unwrap();
    let before = fs::read(dir.snapshot_path()).unwrap();
    fs::set_permissions(dir.root(), fs::Permissions::from_mode(0o500)).unwrap();
    let privileged = writes_ignore_modes(dir.root());
    let result = dir.save(&sample("B"));
    fs::set_permissions(dir.root(), fs::Permissions::from_mode(0o700)).unwrap();
    if privileged {
        eprintln!(
            "note: running with privileges that ignore directory modes (root?); \
             the 0500 case cannot fail here, see failed_save_when_temp_file_cannot_be_created"
        );
        return;
    }
    assert!(result.is_err(), "save into a 0500 dir must fail");
    assert_eq!(fs::read(dir.snapshot_path()).unwrap(), before);
}

/// Works even as root: the state dir path is made so long that
/// `snapshot.json` and the prev link fit in PATH_MAX but atomicwrites'
/// `.atomicwriteXXXXXX/tmpfile.tmp` does not, so the write itself fails.
#[test]
fn failed_save_when_temp_file_cannot_be_created() {
    const PATH_MAX: usize = 4096;
    let tmp = tempfile::TempDir::new().unwrap();
    let mut root = tmp.path().to_path_buf();
    // Aim for a root of exactly 4070 bytes (see the arithmetic below).
    let target = 4070;
    while root.as_os_str().len() < target {
        let room = target - root.as_os_str().len() - 1;
        if room == 0 {
            root.push("x");
            break;
        }
        root.push("d".repeat(room.min(200)));
    }
    let root_len = root.as_os_str().len();
    assert!((4070..=4071).contains(&root_len), "{root_len}");
    // snapshot.json: root + 14; link ".prevlink-<pid≤7>-<n≤3>": root + 22;
    // ".atomicwrite" + 6 + "/tmpfile.tmp": root + 31 > 4095.
    assert!(root_len + 1 + ".prevlink-4194304-999".len() < PATH_MAX);
    assert!(root_len + 1 + ".atomicwriteXXXXXX/tmpfile.tmp".len() >= PATH_MAX);

    let dir = StateDir::open(&root).unwrap();
    // The good snapshot is put in place by hand: no save can succeed here.
    let good = serde_json::to_vec_pretty(&sample("A")).unwrap();
    fs::write(dir.snapshot_path(), &good).unwrap();

    let err = dir.save(&sample("B")).unwrap_err();
    let PersistError::Io { source, .. } = &err else {
        panic!("expected an I/O error, got {err}")
    };
    assert_eq!(source.raw_os_error(), Some(libc::ENAMETOOLONG), "{err}");
    assert_eq!(
        fs::read(dir.snapshot_path()).unwrap(),
        good,
        "snapshot.json intact"
    );
    assert_eq!(
        fs::read(dir.prev_path()).unwrap(),
        good,
        "prev holds the same good snapshot"
    );
    let LoadOutcome::Restored(loaded) = dir.load().unwrap() else {
        panic!("the old snapshot must still load")
    };
    assert_eq!(title_of(&loaded), "tab A");
    // atomicwrites removed its temp dir on the way out.
    let leftovers = fs::read_dir(dir.root())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with(".atomicwrite")
        })
        .count();
    assert_eq!(leftovers, 0);
}

#[test]
fn a_slow_disk_slows_every_save_and_tail_write() {
    let (_tmp, dir) = state_dir();
    let delay = std::time::Duration::from_millis(50);
    let dir = dir.with_fsync_delay(delay);
    let start = std::time::Instant::now();
    dir.save(&sample("A")).unwrap();
    // Two fsync steps: the previous file's link, the new file.
    assert!(start.elapsed() >= delay * 2, "{:?}", start.elapsed());
    let tails = dir.tail_store();
    let start = std::time::Instant::now();
    tails.write("p1", "text").unwrap();
    assert!(start.elapsed() >= delay, "{:?}", start.elapsed());
    assert_eq!(title_of(&read_snapshot(&dir.snapshot_path())), "tab A");
    assert_eq!(tails.read("p1").unwrap().as_deref(), Some("text"));
}
