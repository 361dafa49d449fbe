//! The tail store: round trips, caps, hostile ids, and deletes that stick.

mod common;

use std::fs;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

use common::{mode, state_dir};
use signaltty_persistence::{PersistError, TailStore, TailWrite};
use signaltty_types::TypesError;

#[test]
fn write_then_read_round_trips() {
    let (_tmp, dir) = state_dir();
    let store = dir.tail_store();
    assert_eq!(store.read("p1").unwrap(), None);
    let text = "\x1b[1;32m$\x1b[0m ls\nsrc  Cargo.toml\n";
    assert_eq!(store.write("p1", text).unwrap(), TailWrite::Written);
    assert_eq!(store.read("p1").unwrap().as_deref(), Some(text));
    assert_eq!(mode(&store.path("p1").unwrap()), 0o600);
}

#[test]
fn written_tail_respects_the_cap_and_cuts_at_a_line() {
    let (tmp, _dir) = state_dir();
    let history = tmp.path().join("state").join("history");
    let store = TailStore::new(&history, 100);
    let text: String = (0..50).map(|i| format!("line {i:03}\n")).collect();
    store.write("p1", &text).unwrap();
    let on_disk = fs::read_to_string(store.path("p1").unwrap()).unwrap();
    assert!(on_disk.len() <= 100);
    assert!(text.ends_with(&on_disk));
    assert!(on_disk.starts_with("line "), "{on_disk:?}");
}

#[test]
fn an_escape_open_at_the_end_is_not_written() {
    let (_tmp, dir) = state_dir();
    let store = dir.tail_store();
    store.write("p1", "done\n\x1b]0;half a tit").unwrap();
    assert_eq!(store.read("p1").unwrap().as_deref(), Some("done\n"));
}

#[test]
fn hostile_ids_cannot_escape_the_history_dir() {
    let (tmp, dir) = state_dir();
    let store = dir.tail_store();
    for id in ["../snapshot", "../../x", "a/b", "", ".atomicwrite1", "p\0"] {
        assert!(matches!(
            store.write(id, "x"),
            Err(PersistError::Record(TypesError::BadId { .. }))
        ));
        assert!(store.read(id).is_err());
        assert!(store.delete(id).is_err());
    }
    assert!(!tmp.path().join("state").join("snapshot.tail").exists());
    assert!(!tmp.path().join("x.tail").exists());
}

#[test]
fn garbage_tail_files_read_safely() {
    let (_tmp, dir) = state_dir();
    let store = dir.tail_store();
    fs::write(store.path("p1").unwrap(), b"ok\xff\xfe\n\x1b[38;2;1").unwrap();
    assert_eq!(
        store.read("p1").unwrap().as_deref(),
        Some("ok\u{fffd}\u{fffd}\n")
    );
}

#[test]
fn oversized_tail_file_reads_only_its_end() {
    let (_tmp, dir) = state_dir();
    let store = TailStore::new(dir.history_dir(), 1024);
    let mut big = Vec::new();
    // An OSC opened early and never closed would poison a full read; the
    // window skips it and starts after its first newline.
    big.extend_from_slice(b"\x1b]0;never closed\n");
    for i in 0..10_000 {
        big.extend_from_slice(format!("row {i}\n").as_bytes());
    }
    fs::write(store.path("p1").unwrap(), &big).unwrap();
    let tail = store.read("p1").unwrap().unwrap();
    assert!(tail.len() <= 1024);
    assert!(tail.ends_with("row 9999\n"), "{tail:?}");
    assert!(tail.starts_with("row "), "{tail:?}");
}

#[test]
fn delete_removes_and_blocks_later_writes() {
    let (_tmp, dir) = state_dir();
    let store = dir.tail_store();
    store.write("p1", "hello\n").unwrap();
    store.delete("p1").unwrap();
    assert!(!store.path("p1").unwrap().exists());
    assert!(store.is_closed("p1"));
    assert_eq!(
        store.write("p1", "late\n").unwrap(),
        TailWrite::SkippedClosed
    );
    assert!(!store.path("p1").unwrap().exists());
    assert_eq!(store.read("p1").unwrap(), None);
    // Deleting twice, or a pane that never had a tail, is fine.
    store.delete("p1").unwrap();
    store.delete("p2").unwrap();
    // Other panes are unaffected.
    assert_eq!(store.write("p3", "x\n").unwrap(), TailWrite::Written);
}

/// The failure the seed describes: a capture in flight when the pane is
/// destroyed recreates the file afterwards. Writers hammer one pane from
/// several threads while another thread deletes it mid-way.
#[test]
fn delete_racing_writers_leaves_no_file() {
    for round in 0..20 {
        let (_tmp, dir) = state_dir();
        let store = Arc::new(dir.tail_store());
        let deleted = Arc::new(AtomicBool::new(false));
        let writers: Vec<_> = (0..4)
            .map(|w| {
                let store = Arc::clone(&store);
                let deleted = Arc::clone(&deleted);
                thread::spawn(move || {
                    let mut after_delete = 0;
                    for i in 0..200 {
                        let seen_deleted = deleted.load(Ordering::SeqCst);
                        let r = store.write("p1", &format!("w{w} i{i}\n")).unwrap();
                        if seen_deleted {
                            // Delete had returned before this write began.
                            assert_eq!(r, TailWrite::SkippedClosed);
                            after_delete += 1;
                            if after_delete > 5 {
                                break;
                            }
                        }
                    }
                })
            })
            .collect();
        let deleter = {
            let store = Arc::clone(&store);
            let deleted = Arc::clone(&deleted);
            thread::spawn(move || {
                // Let some writes land first.
                while !store.path("p1").unwrap().exists() {
                    thread::yield_now();
                }
                store.delete("p1").unwrap();
                deleted.store(true, Ordering::SeqCst);
            })
        };
        deleter.join().unwrap();
        for w in writers {
            w.join().unwrap();
        }
        assert!(
            !store.path("p1").unwrap().exists(),
            "round {round}: a write recreated a deleted tail"
        );
        let leftovers: Vec<_> = fs::read_dir(dir.history_dir())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(leftovers.is_empty(), "round {round}: {leftovers:?}");
    }
}

#[test]
fn a_fifo_in_place_of_a_tail_does_not_hang_read() {
    let (_tmp, dir) = state_dir();
    let store = dir.tail_store();
    let path = store.path("p1").unwrap();
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: `c` is a valid NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    assert!(store.read("p1").is_err());
}
