//! End to end: `signaltty upgrade` hands the running server over to a
//! second copy of the binary in place. Every pane's process lives on with
//! its pid, its output goes on without a gap, a child that ends afterwards
//! is reported with its real exit code, and a broken new binary changes
//! nothing.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use support::terminal::Terminal;
use support::{TestServer, agents, all_panes, wait_for};

/// Every pane's script first writes its pid to `$PIDS/<pane's name>`.
const COUNTER: &str = "i=0; while :; do i=$((i+1)); echo count $i; sleep 0.05; done";

/// The binary under test, copied: "the new version".
fn new_binary(server: &TestServer) -> PathBuf {
    let path = server.dir.path().join("new-signaltty");
    std::fs::copy(env!("CARGO_BIN_EXE_signaltty"), &path).expect("copy the binary");
    path
}

fn script(server: &TestServer, name: &str, body: &str) -> PathBuf {
    let path = server.dir.path().join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write a script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

fn upgrade(server: &TestServer, binary: &Path) -> std::process::Output {
    server
        .command()
        .args(["--json", "upgrade", "--binary"])
        .arg(binary)
        .output()
        .expect("run signaltty upgrade")
}

fn status(server: &TestServer) -> Value {
    server.ctl_json(&["status"])
}

/// A pane running `body` after it wrote its pid to `name`'s file.
fn pane(server: &TestServer, ws: &str, name: &str, body: &str) -> (String, i32) {
    let file = server.dir.path().join(format!("{name}.pid"));
    let pane = server.new_sh(ws, &format!("echo $$ > {}; {body}", file.display()));
    let pid = wait_for("the pane's pid", Duration::from_secs(15), || {
        std::fs::read_to_string(&file).ok()?.trim().parse().ok()
    });
    (pane, pid)
}

/// The counts a counter pane printed, oldest first.
fn counts(server: &TestServer, pane: &str) -> Vec<u64> {
    server
        .ctl_ok(&["read", pane, "--all"])
        .lines()
        .filter_map(|line| line.trim().strip_prefix("count ")?.parse().ok())
        .collect()
}

/// Waits until the counter in `pane` has counted `by` more.
fn counter_goes_on(server: &TestServer, pane: &str, by: u64) {
    let last = |server: &TestServer| counts(server, pane).last().copied().unwrap_or(0);
    let from = last(server);
    wait_for("the counter to go on", Duration::from_secs(20), || {
        (last(server) > from + by).then_some(())
    });
}

fn alive(pid: i32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

#[test]
fn an_upgrade_keeps_every_process_its_output_and_its_exit_code() {
    let (server, _root) = agents::server_with_agents(&[("claude", agents::CLAUDE_STAND_IN)]);
    let ws = server.workspace("w", &[]);
    // A stand-in Claude Code, idle, with the session id it was started with.
    let claude = agents::idle_claude(&server, &ws);
    let claude_before = server.pane(&claude).expect("the agent's pane");
    assert!(
        claude_before["agent"]["session_id"].is_string(),
        "{claude_before}"
    );
    let claude_screen = server.ctl_ok(&["read", &claude, "--all", "--ansi"]);
    let mut panes: Vec<(String, i32)> = (0..15)
        .map(|i| pane(&server, &ws, &format!("counter{i}"), COUNTER))
        .collect();
    let counters: Vec<String> = panes.iter().map(|(pane, _)| pane.clone()).collect();
    let full_screen = "printf '\\033[?1049h\\033[2;5Hfull \\033[1mscreen\\033[0m'; sleep 1000";
    let flood = "head -c 30000000 /dev/zero | tr '\\0' x | fold -w 79; sleep 1000";
    for (name, body) in [
        ("full", full_screen),
        ("exits", "read x; exit 7"),
        ("quiet", "echo 'quiet line'; sleep 1000"),
        ("flood", flood),
    ] {
        panes.push(pane(&server, &ws, name, body));
    }
    assert_eq!(panes.len() + 1, 20);
    let [full_screen, exits, quiet] = [15, 16, 17].map(|i| panes[i].0.clone());
    let pids: Vec<i32> = panes.iter().map(|(_, pid)| *pid).collect();
    server.wait_output(&full_screen, "screen");
    let screen_before = server.ctl_ok(&["read", &full_screen, "--ansi"]);
    let quiet_before = server.ctl_ok(&["read", &quiet, "--all", "--ansi"]);
    let before = status(&server);

    let binary = new_binary(&server);
    for _ in 0..2 {
        let out = upgrade(&server, &binary);
        assert!(
            out.status.success(),
            "upgrade failed: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            server.log()
        );
    }
    let after = status(&server);
    assert_eq!(after["pid"], before["pid"], "the same process took over");
    assert_eq!(after["upgrades"], 2);
    assert_eq!(after["live_panes"], 20);
    for pid in &pids {
        assert!(alive(*pid), "pid {pid} lives on");
    }
    assert_eq!(
        server.ctl_ok(&["read", &full_screen, "--ansi"]),
        screen_before
    );
    assert_eq!(
        server.ctl_ok(&["read", &quiet, "--all", "--ansi"]),
        quiet_before
    );
    // The agent is the same agent: kind, session id, lifecycle, screen.
    assert_eq!(
        server.pane(&claude).expect("the agent's pane"),
        claude_before
    );
    assert_eq!(
        server.ctl_ok(&["read", &claude, "--all", "--ansi"]),
        claude_screen
    );

    // The counters go on, each number once and in order.
    counter_goes_on(&server, &counters[0], 20);
    for pane in &counters {
        let seen = counts(&server, pane);
        assert!(
            seen.windows(2).all(|w| w[1] == w[0] + 1),
            "pane {pane} skipped a count: {seen:?}"
        );
    }

    // A child that ends after the upgrade is reaped by the new image.
    server.ctl_ok(&["send", &exits, "go\n"]);
    let pane = server.wait_pane(&exits, "EXITED 7", |p| p["exit_code"] == 7);
    assert_eq!(pane["state"], "EXITED");
}

#[test]
fn a_broken_new_binary_leaves_the_old_server_serving_unchanged() {
    let server = TestServer::start();
    let ws = server.workspace("w", &[]);
    let (counter, pid) = pane(&server, &ws, "counter", COUNTER);
    let before = status(&server);
    let broken = [
        (
            "exits 1",
            script(&server, "exits", "exit 1"),
            "exit status: 1",
        ),
        (
            "panics",
            script(
                &server,
                "panics",
                "echo \"thread 'main' panicked at boom\" >&2; exit 101",
            ),
            "panicked at boom",
        ),
        (
            "hangs",
            script(&server, "hangs", "sleep 600"),
            "did not answer within 10s",
        ),
        (
            "lies",
            script(&server, "lies", "echo ok"),
            "refused the handover",
        ),
    ];
    for (what, binary, said) in broken {
        let out = upgrade(&server, &binary);
        // `--json` says it on stdout, as one JSON line.
        let err = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{what}: {err}");
        assert!(err.contains(said), "{what}: {err}");
        assert!(err.lines().count() <= 1, "{what}: one line, not {err}");
    }
    let after = status(&server);
    assert_eq!(after["pid"], before["pid"]);
    assert_eq!(after["upgrades"], 0);
    assert!(alive(pid));
    counter_goes_on(&server, &counter, 5);
    let panes = all_panes(&server.ls());
    assert_eq!(panes.len(), 1);
    assert_eq!(panes[0]["state"], "LIVE");
    // And a good binary still takes over afterwards.
    assert!(upgrade(&server, &new_binary(&server)).status.success());
    assert!(alive(pid));
}

#[test]
fn an_attached_client_reconnects_by_itself_and_takes_keys_again() {
    let server = TestServer::start();
    let ws = server.workspace("w", &[]);
    let (shell, _) = pane(&server, &ws, "shell", "exec sh");
    let mut command = server.command();
    command.args(["attach", &shell]);
    let mut terminal = Terminal::run(&command, 24, 80);
    terminal.type_bytes(b"echo before-$((6*7))\r");
    terminal.wait_text("the shell's answer", |text| text.contains("before-42"));

    let out = upgrade(&server, &new_binary(&server));
    assert!(out.status.success());
    let reply: Value = serde_json::from_slice(&out.stdout).expect("the reply");
    assert!(
        reply["reconnecting"].as_u64() >= Some(1),
        "attach's: {reply}"
    );
    // The client sees its connection close, finds the same server one
    // upgrade further, and attaches again. Typed once, at once: keys
    // typed while it reconnects wait for the new session (in the
    // terminal, or kept when the closed connection refused them).
    terminal.type_bytes(b"echo after-$((6*7))\r");
    let typed = terminal.wait_text("keys to reach the shell again", |text| {
        text.contains("after-42")
    });
    assert!(typed.contains("before-42"), "the screen came back: {typed}");
    assert_eq!(status(&server)["upgrades"], 1);
}

#[test]
fn the_multiplexer_reconnects_by_itself_and_takes_keys_again() {
    let server = TestServer::start();
    let ws = server.workspace("w", &[]);
    let (_shell, _) = pane(&server, &ws, "shell", "exec sh");
    let mut ui = server.command();
    ui.args(["ui", "w"]);
    let mut terminal = Terminal::run(&ui, 24, 100);
    terminal.wait_text("the multiplexer", |text| text.contains("? help"));
    terminal.type_bytes(b"echo before-$((6*7))\r");
    terminal.wait_text("the shell's answer", |text| text.contains("before-42"));

    assert!(upgrade(&server, &new_binary(&server)).status.success());
    // Typed once, at once: while it reconnects, the keys are kept for the
    // pane's next connection.
    terminal.type_bytes(b"echo after-$((6*7))\r");
    terminal.wait_text("the multiplexer saying so", |text| {
        text.contains("the server was upgraded")
    });
    let typed = terminal.wait_text("keys to reach the shell again", |text| {
        text.contains("after-42")
    });
    assert!(typed.contains("before-42"), "the screen came back: {typed}");
    // Still the multiplexer: its prefix key detaches it.
    terminal.type_bytes(b"\x02d");
    assert_eq!(terminal.wait_exit(), 0);
    assert_eq!(status(&server)["upgrades"], 1);
}

/// Regression: a paused pane dropped what was typed until the exec, so a
/// command sent while the new binary checked the handover never ran.
#[test]
fn what_is_typed_during_the_handover_reaches_the_pane() {
    let server = TestServer::start();
    let ws = server.workspace("w", &[]);
    let (lines, _) = pane(
        &server,
        &ws,
        "lines",
        "while read line; do echo \"got:$line\"; done",
    );
    // The new version, slow to check the handover: every pane is paused
    // while it sleeps.
    let real = new_binary(&server);
    let checking = server.dir.path().join("checking");
    let slow = script(
        &server,
        "slow-to-check",
        &format!(
            "if [ \"$1\" = __handover-check ]; then touch '{}'; sleep 1; fi\nexec '{}' \"$@\"",
            checking.display(),
            real.display()
        ),
    );
    let upgrading = {
        let mut command = server.command();
        command.args(["upgrade", "--binary"]).arg(&slow);
        command.stdout(std::process::Stdio::piped());
        command.spawn().expect("start the upgrade")
    };
    wait_for("the check to begin", Duration::from_secs(20), || {
        checking.exists().then_some(())
    });
    server.ctl_ok(&["send", &lines, "typed-in-the-pause", "--enter"]);
    let out = upgrading.wait_with_output().expect("the upgrade ends");
    assert!(out.status.success(), "{out:?}");
    server.wait_output(&lines, "got:typed-in-the-pause");
    assert_eq!(status(&server)["upgrades"], 1);
}

/// A new version whose takeover fails after the exec (its check passed,
/// then its start panicked) gives everything back to the binary it
/// replaced, which takes over again: the caller is told why, and every
/// pane goes on with its process and without a gap.
#[test]
fn a_takeover_that_panics_after_the_exec_gives_everything_back() {
    let dir = support::short_temp_dir();
    let buggy = dir.path().join("buggy-signaltty");
    std::fs::copy(env!("CARGO_BIN_EXE_signaltty"), &buggy).expect("copy the binary");
    let buggy = buggy.canonicalize().expect("its path");
    let server = TestServer::start_with(
        true,
        vec![(
            "SIGNALTTY_FAULT_TAKEOVER_PANIC".into(),
            buggy.display().to_string(),
        )],
    );
    let ws = server.workspace("w", &[]);
    let (counter, pid) = pane(&server, &ws, "counter", COUNTER);
    let (shell, _) = pane(&server, &ws, "shell", "exec sh");
    let before = status(&server);

    let out = upgrade(&server, &buggy);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("could not take over"), "{said}");
    assert!(said.contains("fault injected into the takeover"), "{said}");
    let after = status(&server);
    assert_eq!(after["pid"], before["pid"]);
    assert_eq!(after["live_panes"], 2);
    assert!(alive(pid));
    // The counter goes on without a gap, and the shell takes a command.
    counter_goes_on(&server, &counter, 5);
    let seen = counts(&server, &counter);
    assert!(seen.windows(2).all(|w| w[1] == w[0] + 1), "{seen:?}");
    server.ctl_ok(&["send", &shell, "echo back-$((6*7))", "--enter"]);
    server.wait_output(&shell, "back-42");
    // A good binary still takes over afterwards.
    assert!(upgrade(&server, &new_binary(&server)).status.success());
    assert!(alive(pid));
}
