//! Every `LoadOutcome`, and what each leaves on disk.

mod common;

use std::fs;

use common::{archive_names, sample, state_dir, title_of, tree};
use signaltty_persistence::{
    Attention, Layout, Lifecycle, LoadOutcome, MAX_RATIO, PtySize, SNAPSHOT_VERSION, Severity,
    WorktreeRecord,
};

#[test]
fn fresh_when_nothing_is_there() {
    let (_tmp, dir) = state_dir();
    assert_eq!(dir.load().unwrap(), LoadOutcome::Fresh);
}

#[test]
fn restored_after_save() {
    let (_tmp, dir) = state_dir();
    let snap = sample("A");
    dir.save(&snap).unwrap();
    match dir.load().unwrap() {
        LoadOutcome::Restored(loaded) => assert_eq!(loaded, snap),
        other => panic!("expected Restored, got {other:?}"),
    }
}

#[test]
fn corrupt_newest_falls_back_to_prev_and_is_archived() {
    let (_tmp, dir) = state_dir();
    dir.save(&sample("A")).unwrap();
    dir.save(&sample("B")).unwrap();
    let garbage = b"{\"snapshot_version\": 1, \"workspaces\": [tru";
    fs::write(dir.snapshot_path(), garbage).unwrap();

    let outcome = dir.load().unwrap();
    let LoadOutcome::Recovered {
        snapshot,
        archived,
        reason,
    } = outcome
    else {
        panic!("expected Recovered, got {outcome:?}")
    };
    assert_eq!(
        title_of(&snapshot),
        "tab A",
        "prev (A) must be what is loaded"
    );
    assert!(reason.contains("snapshot.json"), "{reason}");
    let archived = archived.expect("the corrupt file was archived");
    assert!(archived.starts_with(dir.archive_dir()));
    let name = archived.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with("snapshot-") && name.ends_with("-corrupt.json"),
        "{name}"
    );
    assert_eq!(fs::read(&archived).unwrap(), garbage);
    assert!(
        !dir.snapshot_path().exists(),
        "the corrupt file was moved, not copied"
    );
    assert!(dir.prev_path().exists(), "prev stays where it is");
}

#[test]
fn invalid_but_parseable_newest_is_corrupt_too() {
    let (_tmp, dir) = state_dir();
    dir.save(&sample("A")).unwrap();
    dir.save(&sample("B")).unwrap();
    // Valid JSON, broken reference: the tab's layout names a pane of another tab.
    let text = fs::read_to_string(dir.snapshot_path()).unwrap();
    let broken = text.replacen("\"pane_id\": \"p3\"", "\"pane_id\": \"p1\"", 1);
    assert_ne!(broken, text);
    fs::write(dir.snapshot_path(), broken).unwrap();
    match dir.load().unwrap() {
        LoadOutcome::Recovered {
            snapshot, reason, ..
        } => {
            assert_eq!(title_of(&snapshot), "tab A");
            assert!(reason.contains("t2"), "{reason}");
        }
        other => panic!("expected Recovered, got {other:?}"),
    }
}

#[test]
fn corrupt_without_prev_starts_empty_and_archives() {
    let (_tmp, dir) = state_dir();
    fs::write(dir.snapshot_path(), b"not json at all").unwrap();
    match dir.load().unwrap() {
        LoadOutcome::CorruptNoFallback { archived, reason } => {
            assert_eq!(fs::read(&archived).unwrap(), b"not json at all");
            assert!(!reason.is_empty());
        }
        other => panic!("expected CorruptNoFallback, got {other:?}"),
    }
    assert!(!dir.snapshot_path().exists());
    assert_eq!(dir.load().unwrap(), LoadOutcome::Fresh);
}

#[test]
fn corrupt_with_corrupt_prev_archives_both() {
    let (_tmp, dir) = state_dir();
    fs::write(dir.snapshot_path(), b"{\"snapshot_version\": 0}").unwrap();
    fs::write(dir.prev_path(), b"[]").unwrap();
    match dir.load().unwrap() {
        LoadOutcome::CorruptNoFallback { archived, reason } => {
            assert_eq!(fs::read(&archived).unwrap(), b"{\"snapshot_version\": 0}");
            assert!(reason.contains("snapshot.prev.json"), "{reason}");
        }
        other => panic!("expected CorruptNoFallback, got {other:?}"),
    }
    assert!(!dir.snapshot_path().exists() && !dir.prev_path().exists());
    let names = archive_names(&dir);
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        names.iter().any(|n| n.starts_with("snapshot-prev-")),
        "{names:?}"
    );
}

#[test]
fn missing_version_is_corrupt() {
    let (_tmp, dir) = state_dir();
    fs::write(dir.snapshot_path(), b"{\"workspaces\": []}").unwrap();
    assert!(matches!(
        dir.load().unwrap(),
        LoadOutcome::CorruptNoFallback { reason, .. } if reason.contains("missing")
    ));
}

#[test]
fn missing_newest_with_good_prev_is_recovered() {
    let (_tmp, dir) = state_dir();
    dir.save(&sample("A")).unwrap();
    dir.save(&sample("B")).unwrap();
    fs::remove_file(dir.snapshot_path()).unwrap();
    match dir.load().unwrap() {
        LoadOutcome::Recovered {
            snapshot,
            archived,
            reason,
        } => {
            assert_eq!(title_of(&snapshot), "tab A");
            assert_eq!(archived, None);
            assert_eq!(reason, "snapshot.json missing");
        }
        other => panic!("expected Recovered, got {other:?}"),
    }
}

#[test]
fn oversized_file_is_corrupt_without_being_read() {
    let (_tmp, dir) = state_dir();
    let file = fs::File::create(dir.snapshot_path()).unwrap();
    // Sparse: large on paper, nothing on disk.
    file.set_len(signaltty_persistence::MAX_SNAPSHOT_BYTES + 1)
        .unwrap();
    match dir.load().unwrap() {
        LoadOutcome::CorruptNoFallback { reason, .. } => {
            assert!(reason.contains("bytes"), "{reason}")
        }
        other => panic!("expected CorruptNoFallback, got {other:?}"),
    }
}

#[test]
fn a_directory_named_snapshot_json_is_corrupt() {
    let (_tmp, dir) = state_dir();
    fs::create_dir(dir.snapshot_path()).unwrap();
    assert!(matches!(
        dir.load().unwrap(),
        LoadOutcome::CorruptNoFallback { .. }
    ));
}

fn future_file() -> Vec<u8> {
    // A newer format whose fields changed shape: must still read as "newer",
    // not as corrupt.
    format!(
        "{{\"workspaces\": \"now a string\", \"snapshot_version\": {}, \"panes\": 7}}",
        SNAPSHOT_VERSION + 1
    )
    .into_bytes()
}

#[test]
fn future_version_touches_nothing() {
    let (_tmp, dir) = state_dir();
    dir.save(&sample("A")).unwrap();
    fs::write(dir.snapshot_path(), future_file()).unwrap();
    fs::write(dir.history_dir().join("p1.tail"), b"tail").unwrap();
    let before = tree(dir.root());

    match dir.load().unwrap() {
        LoadOutcome::FutureVersion {
            path,
            found,
            supported,
        } => {
            assert_eq!(path, dir.snapshot_path());
            assert_eq!(found, SNAPSHOT_VERSION + 1);
            assert_eq!(supported, SNAPSHOT_VERSION);
        }
        other => panic!("expected FutureVersion, got {other:?}"),
    }
    assert_eq!(
        tree(dir.root()),
        before,
        "every file byte-identical and in place"
    );
    assert!(archive_names(&dir).is_empty());
}

#[test]
fn future_prev_behind_corrupt_newest_touches_nothing() {
    let (_tmp, dir) = state_dir();
    fs::write(dir.snapshot_path(), b"{broken").unwrap();
    fs::write(dir.prev_path(), future_file()).unwrap();
    let before = tree(dir.root());
    match dir.load().unwrap() {
        LoadOutcome::FutureVersion { path, .. } => assert_eq!(path, dir.prev_path()),
        other => panic!("expected FutureVersion, got {other:?}"),
    }
    assert_eq!(tree(dir.root()), before);
}

#[test]
fn huge_version_number_is_future_not_corrupt() {
    let (_tmp, dir) = state_dir();
    fs::write(dir.snapshot_path(), b"{\"snapshot_version\": 99999999999}").unwrap();
    assert!(matches!(
        dir.load().unwrap(),
        LoadOutcome::FutureVersion {
            found: u32::MAX,
            ..
        }
    ));
}

#[test]
fn older_file_with_only_required_fields_loads_with_defaults() {
    let (_tmp, dir) = state_dir();
    let old = r#"{
        "snapshot_version": 1,
        "workspaces": [{"id": "w1", "name": "api", "tabs": ["t1"]}],
        "tabs": [{"id": "t1", "workspace_id": "w1",
                  "layout": {"type": "split", "direction": "down", "ratio": 1.0,
                             "first": {"type": "pane", "pane_id": "p1"},
                             "second": {"type": "pane", "pane_id": "p2"}}}],
        "panes": [{"id": "p1", "workspace_id": "w1", "tab_id": "t1"},
                  {"id": "p2", "workspace_id": "w1", "tab_id": "t1"}]
    }"#;
    fs::write(dir.snapshot_path(), old).unwrap();
    let LoadOutcome::Restored(s) = dir.load().unwrap() else {
        panic!("expected Restored")
    };
    let p = &s.panes[0];
    assert_eq!(p.pty_size, PtySize { rows: 24, cols: 80 });
    assert_eq!(p.lifecycle, Lifecycle::Unknown);
    assert_eq!(p.attention, Attention::None);
    assert!(p.env.is_empty() && p.argv.is_empty() && p.agent.is_none());
    assert!(p.process.is_none(), "no process known from before");
    assert!(p.worktree.is_none() && s.workspaces[0].worktree.is_none());
    assert!(!s.workspaces[0].auto_resume);
    // Repaired on load: the ratio is clamped and the active ids filled in.
    assert!(matches!(s.tabs[0].layout, Layout::Split { ratio, .. } if ratio == MAX_RATIO));
    assert_eq!(s.tabs[0].active_pane_id.as_deref(), Some("p1"));
    assert_eq!(s.workspaces[0].active_tab_id.as_deref(), Some("t1"));
}

#[test]
fn a_pane_s_worktree_is_saved_and_a_damaged_one_still_loads() {
    let (_tmp, dir) = state_dir();
    let mut snapshot = sample("A");
    let worktree = WorktreeRecord {
        path: "/src/app.worktrees/fix".into(),
        branch: "fix".into(),
        repo: "/src/app".into(),
        dirty: true,
        gone: false,
    };
    snapshot.panes[0].worktree = Some(worktree.clone());
    dir.save(&snapshot).unwrap();
    let LoadOutcome::Restored(back) = dir.load().unwrap() else {
        panic!("expected Restored")
    };
    assert_eq!(back.panes[0].worktree, Some(worktree));

    // Fields missing from a hand-edited record take their defaults; one
    // with no path says nothing and is dropped rather than failing the file.
    let edited = r#"{
        "snapshot_version": 1,
        "workspaces": [{"id": "w1", "name": "api", "tabs": ["t1"],
                        "worktree": {"branch": "x"}}],
        "tabs": [{"id": "t1", "workspace_id": "w1",
                  "layout": {"type": "pane", "pane_id": "p1"}}],
        "panes": [{"id": "p1", "workspace_id": "w1", "tab_id": "t1",
                   "worktree": {"path": "/w/x"}}]
    }"#;
    fs::write(dir.snapshot_path(), edited).unwrap();
    let LoadOutcome::Restored(s) = dir.load().unwrap() else {
        panic!("expected Restored")
    };
    assert!(s.workspaces[0].worktree.is_none());
    let kept = s.panes[0].worktree.as_ref().unwrap();
    assert_eq!((kept.path.as_str(), kept.branch.as_str()), ("/w/x", ""));
    assert!(!kept.dirty && !kept.gone);
}

#[test]
fn unknown_fields_and_enum_values_are_tolerated() {
    let (_tmp, dir) = state_dir();
    let newer_minor = r#"{
        "snapshot_version": 1,
        "from_the_future": {"anything": [1, 2, 3]},
        "workspaces": [{"id": "w1", "name": "api", "tabs": ["t1"], "colour": "red"}],
        "tabs": [{"id": "t1", "workspace_id": "w1", "pinned": true,
                  "layout": {"type": "pane", "pane_id": "p1", "zoomed": false}}],
        "panes": [{"id": "p1", "workspace_id": "w1", "tab_id": "t1",
                   "lifecycle": "hibernating", "attention": "something_new",
                   "gpu": "none"}],
        "notifications": [{"id": 1, "severity": "catastrophic", "extra": 1}]
    }"#;
    fs::write(dir.snapshot_path(), newer_minor).unwrap();
    let LoadOutcome::Restored(s) = dir.load().unwrap() else {
        panic!("expected Restored")
    };
    assert_eq!(s.panes[0].lifecycle, Lifecycle::Unknown);
    assert_eq!(s.panes[0].attention, Attention::Unread);
    assert_eq!(s.notifications[0].severity, Severity::Info);
}

#[test]
fn set_aside_moves_both_files_and_deletes_nothing() {
    let (_tmp, dir) = state_dir();
    assert_eq!(dir.set_aside().unwrap(), None);
    dir.save(&sample("A")).unwrap();
    dir.save(&sample("B")).unwrap();
    let newest = fs::read(dir.snapshot_path()).unwrap();
    let moved = dir.set_aside().unwrap().expect("snapshot.json moved");
    assert!(
        moved
            .file_name()
            .unwrap()
            .to_string_lossy()
            .ends_with("-set-aside.json")
    );
    assert_eq!(fs::read(&moved).unwrap(), newest);
    assert!(!dir.snapshot_path().exists() && !dir.prev_path().exists());
    assert_eq!(archive_names(&dir).len(), 2);
    assert_eq!(dir.load().unwrap(), LoadOutcome::Fresh);
}

#[test]
fn archive_names_stay_unique_within_one_millisecond() {
    let (_tmp, dir) = state_dir();
    for _ in 0..5 {
        fs::write(dir.snapshot_path(), b"junk").unwrap();
        assert!(matches!(
            dir.load().unwrap(),
            LoadOutcome::CorruptNoFallback { .. }
        ));
    }
    assert_eq!(archive_names(&dir).len(), 5);
}

#[test]
fn warnings_name_the_file() {
    let (_tmp, dir) = state_dir();
    fs::write(dir.snapshot_path(), future_file()).unwrap();
    let outcome = dir.load().unwrap();
    let warning = outcome.warning().unwrap();
    assert!(
        warning.contains("snapshot.json") && warning.contains('2'),
        "{warning}"
    );
    assert_eq!(LoadOutcome::Fresh.warning(), None);
}

#[test]
fn a_fifo_named_snapshot_json_does_not_hang_load() {
    let (_tmp, dir) = state_dir();
    let path = dir.snapshot_path();
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: `c` is a valid NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    assert!(matches!(
        dir.load().unwrap(),
        LoadOutcome::CorruptNoFallback { reason, .. } if reason.contains("regular file")
    ));
}

#[test]
fn peek_reads_what_a_start_would_restore_and_moves_nothing() {
    use signaltty_persistence::{Peek, peek};
    let (tmp, dir) = state_dir();
    assert_eq!(peek(&tmp.path().join("none")), Peek::Empty);
    assert_eq!(peek(dir.root()), Peek::Empty);
    dir.save(&sample("A")).unwrap();
    dir.save(&sample("B")).unwrap();
    match peek(dir.root()) {
        Peek::Saved(snapshot) => assert_eq!(title_of(&snapshot), "tab B"),
        other => panic!("expected Saved, got {other:?}"),
    }
    // A damaged newest: the previous one is read, and nothing is moved.
    fs::write(dir.snapshot_path(), b"{\"snapshot_version\": 1, [").unwrap();
    let before = tree(dir.root());
    match peek(dir.root()) {
        Peek::Saved(snapshot) => assert_eq!(title_of(&snapshot), "tab A"),
        other => panic!("expected Saved, got {other:?}"),
    }
    fs::write(dir.prev_path(), b"not json").unwrap();
    let before_both = tree(dir.root());
    assert_ne!(before, before_both);
    match peek(dir.root()) {
        Peek::Unusable(why) => assert!(why.contains("snapshot.prev.json"), "{why}"),
        other => panic!("expected Unusable, got {other:?}"),
    }
    assert_eq!(tree(dir.root()), before_both, "peek never moves a file");
}
