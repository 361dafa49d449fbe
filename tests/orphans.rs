//! End to end: what a SIGKILLed server left running in its panes is ended
//! when the next server starts — but never what left the pane's session
//! on purpose.

mod support;

use std::path::Path;
use std::time::Duration;

use support::agents::FakeAgents;
use support::{TestServer, wait_for};

/// Whether `pid` runs (a zombie waiting for its reaper does not).
fn running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let state = stat
            .rfind(')')
            .and_then(|i| stat[i + 1..].split_whitespace().next());
        !matches!(state, Some("Z" | "X"))
    })
}

fn read_pid(path: &Path) -> Option<i32> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// Kills the processes a test started outside any server when the test
/// ends, passed or not.
struct KillOnDrop(Vec<i32>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        for &pid in &self.0 {
            // SAFETY: kill(2) with plain integers.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

/// Waits until the snapshot on disk has the pane (and so what the pane
/// knows of its process: it is in the record from the start).
fn wait_pane_saved(server: &TestServer, pane: &str) {
    server.wait_snapshot("the pane saved", |s| {
        s["panes"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|p| p["id"] == pane)
    });
}

#[test]
fn what_a_killed_server_left_in_a_pane_is_ended_but_not_what_left_on_purpose() {
    let mut server = TestServer::start();
    let ws = server.workspace("orphans", &[]);
    let dir = server.dir.path();
    // The pane's program ignores the hang-up a dying server causes (as
    // Gemini does); the child it started with setsid left the session.
    let script = "setsid sh -c 'echo $$ > left.pid; exec sleep 600' & \
                  echo $$ > stays.pid; trap '' HUP; exec sleep 600";
    let pane = server.new_sh(&ws, script);
    let (stays, left) = wait_for("both pids", Duration::from_secs(10), || {
        Some((
            read_pid(&dir.join("stays.pid"))?,
            read_pid(&dir.join("left.pid"))?,
        ))
    });
    let _cleanup = KillOnDrop(vec![stays, left]);
    wait_pane_saved(&server, &pane);

    server.kill9();
    assert!(
        running(stays),
        "it ignored the hang-up and outlived the server"
    );
    assert!(running(left));

    server.launch();
    wait_for("the leftover to be ended", Duration::from_secs(10), || {
        (!running(stays)).then_some(())
    });
    let status = wait_for("the count in status", Duration::from_secs(10), || {
        let status = server.ctl_json(&["status"]);
        (status["orphans"]["terminated"] == 1).then_some(status)
    });
    assert_eq!(status["orphans"]["found"], 1, "{status}");
    assert!(
        server
            .ctl_ok(&["status"])
            .contains("previous server left running"),
        "{}",
        server.ctl_ok(&["status"])
    );
    assert!(server.log().contains("left from before the restart"));
    assert!(running(left), "what left the session on purpose is kept");

    // The pane itself is a tombstone, as always after a restart.
    server.wait_pane(&pane, "the restored pane", |p| p["state"] == "RESTORED");
}

#[test]
fn a_leftover_that_ignores_term_gets_kill() {
    let mut server = TestServer::start();
    let ws = server.workspace("stubborn", &[]);
    let dir = server.dir.path();
    let script = "echo $$ > stubborn.pid; trap '' HUP TERM; while :; do sleep 1; done";
    let pane = server.new_sh(&ws, script);
    let stubborn = wait_for("the pid", Duration::from_secs(10), || {
        read_pid(&dir.join("stubborn.pid"))
    });
    let _cleanup = KillOnDrop(vec![stubborn]);
    wait_pane_saved(&server, &pane);
    server.kill9();
    assert!(running(stubborn));
    server.launch();
    let status = wait_for("the KILL in status", Duration::from_secs(15), || {
        let status = server.ctl_json(&["status"]);
        (status["orphans"]["killed"].as_u64() >= Some(1)).then_some(status)
    });
    assert!(!running(stubborn), "{status}");
}

#[test]
fn a_resume_right_after_the_restart_waits_for_the_old_agent_to_be_gone() {
    let root = support::short_temp_dir();
    let fake = FakeAgents::new(root.path());
    let mut server = TestServer::start_with(true, vec![fake.path_env()]);
    let ws = server.workspace("agents", &[]);
    let events = server.dir.path().join("events");
    // An agent that outlives the hang-up and takes a second to end on TERM.
    fake.install(&format!(
        "trap '' HUP\n\
         trap 'sleep 1; echo gone >> {events}; exit 0' TERM\n\
         echo \"start $*\" >> {events}\n\
         echo $$ > {events}.pid\n\
         while :; do sleep 0.1; done",
        events = events.display()
    ));
    let pane = server.ctl_ok(&["new", &ws, "--", "claude"]);
    let old = wait_for("the agent's pid", Duration::from_secs(10), || {
        read_pid(&events.with_extension("pid"))
    });
    let _cleanup = KillOnDrop(vec![old]);
    wait_pane_saved(&server, &pane);
    server.kill9();
    assert!(running(old));

    server.launch();
    server.ctl_ok(&["resume", &pane]);
    let new = read_pid(&events.with_extension("pid")).unwrap();
    let _also = KillOnDrop(vec![new]);
    let log = std::fs::read_to_string(&events).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 3, "{log}");
    assert!(lines[0].starts_with("start --session-id"), "{log}");
    assert_eq!(lines[1], "gone", "the old agent ended first: {log}");
    assert!(lines[2].starts_with("start --resume"), "{log}");
}
