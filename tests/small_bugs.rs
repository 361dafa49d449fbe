//! Small bugs found by using signaltty by hand, each pinned by the test
//! named after it.

mod support;

use std::io::Write;
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::Stdio;
use std::time::Duration;

use support::{TestServer, hook, wait_for};

/// A pane that printed once and is then quiet, seen by the user.
fn quiet_seen_pane(server: &TestServer, ws: &str) -> String {
    let pane = server.new_sh(ws, "echo ready; exec sleep 600");
    server.wait_output(&pane, "ready");
    server.ctl_ok(&["seen", &pane]);
    server.wait_pane(&pane, "its attention cleared", |p| p["attention"] == "none");
    pane
}

#[test]
fn a_hook_refused_for_its_session_id_changes_nothing() {
    let server = TestServer::start();
    let ws = server.workspace("w", &[]);
    let pane = quiet_seen_pane(&server, &ws);
    let out = hook(
        &server,
        "claude",
        "Notification",
        &pane,
        br#"{"session_id":"not-a-uuid","message":"look at me"}"#,
    );
    assert_eq!(out.status.code(), Some(1), "the hook is refused");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not-a-uuid"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = server.pane(&pane).unwrap();
    assert_eq!(after["attention"], "none", "{after}");
    assert!(after["last_message"].is_null(), "{after}");
    assert!(after["agent"].is_null(), "{after}");
    let notes = server.ctl_json(&["notifications"]);
    assert!(
        notes["notifications"].as_array().unwrap().is_empty(),
        "{notes}"
    );
}

/// Runs `ctl ARGS` with its stdout a pipe nobody reads: any write to it
/// fails with EPIPE, as when `| head` has already left.
fn ctl_into_a_closed_pipe(server: &TestServer, args: &[&str]) -> std::process::Output {
    let mut fds = [0; 2];
    // SAFETY: pipe(2) fills both descriptors, which we then own.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: both are fresh descriptors owned by nothing else.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read);
    server
        .command()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::from(write))
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

#[test]
fn ctl_into_a_closed_pipe_ends_quietly_and_the_server_lives_on() {
    let server = TestServer::start();
    server.workspace("w", &[]);
    for args in [
        &["ctl", "ls"][..],
        &["--json", "ctl", "ls"],
        &["ctl", "status"],
    ] {
        let out = ctl_into_a_closed_pipe(&server, args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stderr.is_empty(), "{args:?}: {out:?}");
    }
    // A client that sends and leaves without reading: the server's own
    // write fails, and it must shrug that off too.
    for _ in 0..20 {
        let mut stream = std::os::unix::net::UnixStream::connect(&server.socket).unwrap();
        let _ = stream.write_all(
            b"{\"v\":\"signaltty/2\",\"id\":1,\"method\":\"ls\"}\n"
                .repeat(50)
                .as_slice(),
        );
    }
    server.ctl_ok(&["status"]);
}

#[test]
fn ctl_status_says_when_it_last_saved_in_local_time() {
    let server = TestServer::start();
    server.workspace("w", &[]);
    let status = wait_for("a first save", Duration::from_secs(10), || {
        let status = server.ctl_ok(&["status"]);
        status.contains("last saved").then_some(status)
    });
    assert!(!status.contains("ms since epoch"), "{status}");
    let line = status
        .lines()
        .find(|l| l.starts_with("snapshot"))
        .unwrap()
        .to_string();
    // e.g. "last saved 2025-12-01 22:53:07 (1s ago), 1 writes"
    let saved = line.split("last saved ").nth(1).unwrap();
    let date = &saved[..19];
    assert!(
        date.as_bytes()[4] == b'-' && date.as_bytes()[13] == b':',
        "{line}"
    );
    assert!(
        saved[19..].starts_with(" (") && saved.contains("s ago)"),
        "{line}"
    );
}

#[test]
fn plain_ctl_ls_shows_lifecycle_and_attention() {
    let server = TestServer::start();
    let ws = server.workspace("w", &[]);
    let pane = server.new_sh(&ws, "exit 3");
    server.wait_pane(&pane, "the pane to fail", |p| {
        p["state"] == "EXITED" && p["attention"] == "error"
    });
    let ls = server.ctl_ok(&["ls"]);
    let line = ls.lines().find(|l| l.contains(&pane)).unwrap();
    assert!(line.contains("failed"), "{line}");
    assert!(line.contains("!error"), "{line}");
    let ws_line = ls.lines().next().unwrap();
    assert!(ws_line.contains("!error"), "{ws_line}");
}

#[test]
fn children_are_told_the_terminal_has_truecolor() {
    // Whatever the server's own environment says.
    let server = TestServer::start_with(true, vec![("COLORTERM".into(), "8bit".into())]);
    let ws = server.workspace("w", &[]);
    let pane = server.new_sh(&ws, "echo \"colour: $COLORTERM\"; exec sleep 600");
    server.wait_output(&pane, "colour: truecolor");
}
