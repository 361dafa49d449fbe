//! Servers on other machines, through a real OpenSSH server on 127.0.0.1
//! that each test starts itself (see `support::sshd`): `ctl`, `attach`, the
//! multiplexer, `sessions` and `up` with `--host`, the bridge on its own,
//! and ssh's own errors shown as they are.
//!
//! The "remote" server is a `TestServer` on this machine: sshd hands every
//! session its socket and state dir, so what runs behind ssh is exactly
//! what a remote user's login would run.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;
use support::sshd::{self, Sshd};
use support::terminal::Terminal;
use support::{BIN, TestServer, procs, wait_for};

const DETACH: &[u8] = b"\x1d";

/// An sshd whose sessions see `server`'s socket and state dir.
fn sshd_for(server: &TestServer) -> Sshd {
    let socket = server.socket.display().to_string();
    let state = server.state_dir.display().to_string();
    Sshd::start(&[
        ("SIGNALTTY_SOCKET", &socket),
        ("SIGNALTTY_STATE_DIR", &state),
        ("SHELL", "/bin/sh"),
    ])
}

/// `signaltty --host DEST --remote-bin BIN ARGS`, with nothing on this
/// side that could point it at a local server.
fn remote(sshd: &Sshd, dest: &str, args: &[&str]) -> Command {
    remote_with(sshd, dest, BIN, args)
}

fn remote_with(sshd: &Sshd, dest: &str, remote_bin: &str, args: &[&str]) -> Command {
    let mut command = Command::new(BIN);
    command
        .env("SIGNALTTY_SSH_COMMAND", sshd.ssh_command())
        .env("SIGNALTTY_SOCKET", "/nonexistent/local.sock")
        .env_remove("SIGNALTTY_STATE_DIR")
        .env_remove("SIGNALTTY_SESSION")
        .env_remove("SIGNALTTY_HOST")
        .env_remove("SIGNALTTY_REMOTE_BIN")
        .arg(format!("--host={dest}"))
        .args(["--remote-bin", remote_bin])
        .args(args)
        .stdin(Stdio::null());
    command
}

fn run(mut command: Command) -> Output {
    command.output().expect("run signaltty")
}

fn ok(sshd: &Sshd, out: Output) -> String {
    assert!(
        out.status.success(),
        "failed: {}\nsshd log:\n{}",
        String::from_utf8_lossy(&out.stderr),
        sshd.log()
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn remote_ok(sshd: &Sshd, args: &[&str]) -> String {
    ok(sshd, run(remote(sshd, sshd::HOST, args)))
}

/// Waits until no bridge serves `server` any more: each ends with its
/// connection.
fn wait_bridges_gone(server: &TestServer) {
    wait_for("the bridges to end", Duration::from_secs(10), || {
        procs::bridges_serving(&server.socket)
            .is_empty()
            .then_some(())
    });
}

#[test]
fn ctl_new_ls_and_read_work_on_a_remote_server() {
    let server = TestServer::start();
    let sshd = sshd_for(&server);
    let cwd = server.dir.path().display().to_string();
    let ws = remote_ok(&sshd, &["ctl", "workspace", "new", "far", "--cwd", &cwd]);
    let pane = remote_ok(
        &sshd,
        &[
            "ctl",
            "new",
            &ws,
            "--",
            "sh",
            "-c",
            "echo far-$((20+22)); exec sleep 600",
        ],
    );
    // The pane runs in the remote server, and the remote server says so.
    server.wait_output(&pane, "far-42");
    let ls: Value = serde_json::from_str(&remote_ok(&sshd, &["--json", "ctl", "ls"])).unwrap();
    let panes = support::all_panes(&ls);
    assert_eq!(panes.len(), 1, "{ls}");
    assert_eq!(panes[0]["id"], pane.as_str());
    assert_eq!(panes[0]["state"], "LIVE");
    // This machine's directory means nothing there.
    let out = run(remote(
        &sshd,
        sshd::HOST,
        &["ctl", "workspace", "new", "rel", "--cwd", "src"],
    ));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("--cwd src is relative"), "{err}");
    // The URL form of the destination reaches the same server.
    let read = ok(
        &sshd,
        run(remote(&sshd, &sshd.url(), &["ctl", "read", &pane])),
    );
    assert!(read.contains("far-42"), "{read}");
    // Nothing is left behind: every bridge ended with its connection.
    wait_bridges_gone(&server);
}

#[test]
fn the_bridge_starts_the_remote_server_when_none_runs() {
    let mut server = TestServer::prepare(false, Vec::new());
    let sshd = sshd_for(&server);
    // Several connections at once (as a multiplexer opens them) start one
    // server between them.
    let clients: Vec<_> = (0..3)
        .map(|_| {
            remote(&sshd, sshd::HOST, &["--json", "ctl", "status"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let pids: Vec<Value> = clients
        .into_iter()
        .map(|c| {
            let text = ok(&sshd, c.wait_with_output().unwrap());
            serde_json::from_str::<Value>(&text).unwrap()["pid"].clone()
        })
        .collect();
    assert!(pids.iter().all(|p| *p == pids[0]), "one server: {pids:?}");
    let pid = pids[0].as_i64().unwrap() as i32;
    // It runs on, detached from the ssh sessions that started it.
    assert!(procs::alive(pid));
    let status = server.ctl_json(&["status"]);
    assert_eq!(status["pid"], pids[0]);
    server.ctl_ok(&["shutdown"]);
    wait_for("the server to stop", Duration::from_secs(20), || {
        (!procs::alive(pid)).then_some(())
    });
    server.kill9();
}

#[test]
fn attach_works_through_ssh_and_a_dropped_connection_stops_nothing_there() {
    let server = TestServer::start();
    let sshd = sshd_for(&server);
    let ws = server.workspace("far", &[]);
    let pane = server.ctl_ok(&["new", &ws]);
    server.ctl_ok(&["send", &pane, "echo before-attach", "--enter"]);
    server.wait_output(&pane, "before-attach");

    let mut terminal = Terminal::run(&remote(&sshd, sshd::HOST, &["attach", &pane]), 24, 80);
    terminal.wait_text("the pane's history", |t| t.contains("before-attach"));
    terminal.type_bytes(b"echo typed-$((6*7))\r");
    terminal.wait_text("the typed command's output", |t| t.contains("typed-42"));
    server.wait_output(&pane, "typed-42");
    // A flood comes through ssh as pictures too, not as its 7.9 MB.
    let before = terminal.received_count();
    terminal.type_bytes(b"seq 1 1000000; echo flood-$((1+1))-over\r");
    terminal.wait_text("the flood's end", |t| t.contains("flood-2-over"));
    let received = terminal.received_count() - before;
    assert!(received < 7_888_896 / 4, "{received} bytes of the flood");
    terminal.type_bytes(DETACH);
    assert_eq!(terminal.wait_exit(), 0);
    assert_eq!(server.pane(&pane).unwrap()["state"], "LIVE");

    // Again, and this time the connection drops under it.
    let mut terminal = Terminal::run(&remote(&sshd, sshd::HOST, &["attach", &pane]), 24, 80);
    terminal.wait_text("the pane again", |t| t.contains("flood-2-over"));
    let ssh = wait_for("attach's ssh", Duration::from_secs(10), || {
        procs::children_named(terminal.pid(), "ssh")
            .first()
            .copied()
    });
    // SAFETY: kill(2) on the ssh this test's client started.
    unsafe { libc::kill(ssh, libc::SIGKILL) };
    let said = terminal.wait_text("the dropped connection", |t| t.contains("dropped"));
    assert!(said.contains("nothing there stopped"), "{said}");
    assert_eq!(terminal.wait_exit(), 1);
    // The remote pane runs on and still answers.
    server.ctl_ok(&["send", &pane, "echo still-$((1+1))", "--enter"]);
    server.wait_output(&pane, "still-2");
    assert_eq!(server.pane(&pane).unwrap()["state"], "LIVE");
    wait_bridges_gone(&server);
}

#[test]
fn the_multiplexer_works_through_ssh_names_the_host_and_reconnects_after_a_drop() {
    let server = TestServer::start();
    let sshd = sshd_for(&server);
    let ws = server.workspace("far", &[]);
    let left = server.ctl_ok(&["new", &ws]);
    let right = server.ctl_ok(&["new", &ws, "--split", &left, "--direction", "right"]);
    for (pane, word) in [(&left, "left"), (&right, "right")] {
        server.ctl_ok(&["send", pane, &format!("echo {word}-$((20+1))"), "--enter"]);
        server.wait_output(pane, &format!("{word}-21"));
    }

    let mut command = remote(&sshd, sshd::HOST, &["ui", "far"]);
    // This machine's own config must not change the keys under test.
    command.env("SIGNALTTY_CONFIG", server.dir.path().join("none.toml"));
    let mut terminal = Terminal::run(&command, 30, 120);
    let shown = terminal.wait_text("both panes, and the host in the status line", |t| {
        t.contains("left-21") && t.contains("right-21") && t.contains("? help")
    });
    assert!(shown.contains(&format!("{}: far", sshd::HOST)), "{shown}");
    terminal.type_bytes(b"echo typed-$((6*7))\r");
    terminal.wait_text("the typed command's output", |t| t.contains("typed-42"));

    // Every ssh the multiplexer holds dies: it says so and offers more.
    let ssh = procs::children_named(terminal.pid(), "ssh");
    assert!(
        ssh.len() >= 3,
        "events, requests and a link per pane: {ssh:?}"
    );
    for pid in ssh {
        // SAFETY: kill(2) on an ssh this test's client started.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    let said = terminal.wait_text("the dropped connection", |t| t.contains("r reconnect"));
    assert!(said.contains("nothing there stopped"), "{said}");
    for pane in [&left, &right] {
        assert_eq!(server.pane(pane).unwrap()["state"], "LIVE");
    }
    // Keys typed while it is away reach no pane.
    terminal.type_bytes(b"x");
    server.ctl_ok(&["send", &left, "echo while-away", "--enter"]);
    server.wait_output(&left, "while-away");

    terminal.type_bytes(b"r");
    terminal.wait_text("the panes again, with what happened meanwhile", |t| {
        t.contains("while-away") && t.contains("right-21") && !t.contains("r reconnect")
    });
    terminal.type_bytes(b"echo back-$((50+5))\r");
    terminal.wait_text("typing works again", |t| t.contains("back-55"));
    terminal.type_bytes(b"\x02d");
    assert_eq!(terminal.wait_exit(), 0);
    wait_bridges_gone(&server);
}

#[test]
fn upgrade_with_host_hands_the_far_server_over_and_its_panes_live_on() {
    let server = TestServer::start();
    let sshd = sshd_for(&server);
    let ws = server.workspace("far", &[]);
    let shell = server.new_sh(&ws, "echo before-$((20+22)); exec sh");
    server.wait_output(&shell, "before-42");
    // "The new version", on the far machine.
    let new_binary = server.dir.path().join("new-signaltty");
    std::fs::copy(BIN, &new_binary).expect("copy the binary");
    let new_binary = new_binary.display().to_string();

    let reply = remote_ok(&sshd, &["--json", "upgrade", "--binary", &new_binary]);
    let reply: Value = serde_json::from_str(&reply).expect("the upgrade's reply");
    assert_eq!(reply["pid"], server.pid(), "{reply}");
    assert_eq!(reply["upgrades"], 1, "{reply}");
    assert_eq!(reply["binary"], new_binary.as_str(), "{reply}");
    assert_eq!(reply["live_panes"], 1, "{reply}");
    // The far server's shell is the one from before, and takes a command.
    server.ctl_ok(&["send", &shell, "echo after-$((20+22))", "--enter"]);
    let screen = server.wait_output(&shell, "after-42");
    assert!(screen.contains("before-42"), "{screen}");
    wait_bridges_gone(&server);
}

#[test]
fn sessions_and_up_reach_the_remote_machine() {
    let server = TestServer::start();
    let sshd = sshd_for(&server);
    server.workspace("there", &[]);
    let listed: Value = serde_json::from_str(&remote_ok(&sshd, &["--json", "sessions"])).unwrap();
    let sessions = listed["sessions"].as_array().unwrap();
    let default = sessions.iter().find(|s| s["name"] == "default").unwrap();
    assert_eq!(default["running"], true, "{listed}");
    assert_eq!(default["workspaces"], 1, "{listed}");
    assert_eq!(default["socket"], server.socket.display().to_string());
    let text = remote_ok(&sshd, &["sessions"]);
    assert!(
        text.contains("default") && text.contains("running"),
        "{text}"
    );
    let up = remote_ok(&sshd, &["up", "-d"]);
    assert!(
        up.starts_with(&format!("{}: ", sshd::HOST)) && up.contains("already running"),
        "{up}"
    );
}

#[test]
fn ssh_errors_are_shown_as_they_are_with_a_hint() {
    let server = TestServer::start();
    let sshd = sshd_for(&server);

    // The remote binary is missing.
    let out = run(remote_with(
        &sshd,
        sshd::HOST,
        "/nonexistent/signaltty",
        &["ctl", "ls"],
    ));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success());
    assert!(
        err.contains("/nonexistent/signaltty: No such file"),
        "{err}"
    );
    assert!(err.contains("--remote-bin"), "{err}");
    assert_eq!(
        err.lines().last().map(|l| l.starts_with("signaltty: ")),
        Some(true),
        "the hint is one line of ours after ssh's: {err}"
    );

    // A host key that is not the server's (the client's own will do).
    let other_key = std::fs::read_to_string(sshd.dir.path().join("client_key.pub")).unwrap();
    std::fs::write(
        sshd.known_hosts(),
        format!("[127.0.0.1]:{} {other_key}", sshd.port),
    )
    .unwrap();
    let out = run(remote(&sshd, sshd::HOST, &["ctl", "ls"]));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success());
    assert!(err.contains("Host key verification failed."), "{err}");
    assert!(
        err.contains(&format!(
            "`{} {} true` works",
            sshd.ssh_command(),
            sshd::HOST
        )),
        "{err}"
    );

    // Nothing listens there.
    let closed = format!("ssh://{}@127.0.0.1:1", sshd::user_name());
    let out = run(remote(&sshd, &closed, &["--json", "ctl", "ls"]));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let error: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(error["error"]["code"], "SSH", "{text}");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(message.contains("Connection refused"), "{message}");

    // A destination ssh would read as an option never reaches ssh.
    let out = run(remote(&sshd, "-oProxyCommand=touch /tmp/x", &["ctl", "ls"]));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(err.contains("not an ssh destination"), "{err}");
}

#[test]
fn a_named_session_on_the_remote_machine_is_its_own_server() {
    // The remote user's platform dirs, so a session lands under them.
    let root = support::short_temp_dir();
    let runtime = root.path().join("run");
    let state = root.path().join("state");
    std::fs::create_dir(&runtime).unwrap();
    std::fs::set_permissions(
        &runtime,
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let (runtime_s, state_s) = (runtime.display().to_string(), state.display().to_string());
    let sshd = Sshd::start(&[
        ("XDG_RUNTIME_DIR", &runtime_s),
        ("XDG_STATE_HOME", &state_s),
        ("SHELL", "/bin/sh"),
    ]);
    let cwd = root.path().display().to_string();
    remote_ok(
        &sshd,
        &[
            "--session",
            "work",
            "ctl",
            "workspace",
            "new",
            "w",
            "--cwd",
            &cwd,
        ],
    );
    let socket = runtime.join("signaltty/sessions/work/signaltty.sock");
    assert!(socket.exists(), "the session's own socket");
    assert!(state.join("signaltty/sessions/work").is_dir());
    let listed: Value = serde_json::from_str(&remote_ok(&sshd, &["--json", "sessions"])).unwrap();
    let names: Vec<&str> = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["work"], "{listed}");
    remote_ok(&sshd, &["--session", "work", "ctl", "shutdown"]);
    wait_for(
        "the session's server to stop",
        Duration::from_secs(20),
        || (!socket.exists()).then_some(()),
    );
}

/// The bridge on its own: the protocol over stdin and stdout.
fn bridge(server: &TestServer) -> std::process::Child {
    server
        .command()
        .arg("bridge")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn request(id: u64, method: &str) -> Vec<u8> {
    let mut line = serde_json::to_vec(
        &serde_json::json!({"v": "signaltty/2", "id": id, "method": method, "params": {}}),
    )
    .unwrap();
    line.push(b'\n');
    line
}

fn wait_exit(child: &mut std::process::Child) -> std::process::ExitStatus {
    wait_for("the bridge to end", Duration::from_secs(10), || {
        child.try_wait().ok().flatten()
    })
}

#[test]
fn the_bridge_pipes_the_protocol_and_ends_when_the_client_closes() {
    let server = TestServer::start();
    let mut child = bridge(&server);
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    for id in 1..=2 {
        stdin.write_all(&request(id, "status")).unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let reply: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(reply["id"], id);
        assert_eq!(
            reply["result"]["socket"],
            server.socket.display().to_string()
        );
    }
    drop(stdin);
    assert!(wait_exit(&mut child).success());
}

#[test]
fn the_bridge_ends_when_the_server_goes() {
    let mut server = TestServer::start();
    let mut child = bridge(&server);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&request(1, "shutdown")).unwrap();
    // stdin stays open: the server's end alone ends the bridge.
    assert!(wait_exit(&mut child).success());
    server.wait_exit();
    drop(stdin);
}

#[test]
fn a_bridge_that_cannot_reach_a_server_says_why_in_the_protocol_and_on_stderr() {
    let server = TestServer::prepare(false, Vec::new());
    // A socket dir others may enter: no server may be started or trusted.
    let dir = server.dir.path().join("open");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    let mut command = server.command();
    command.env("SIGNALTTY_SOCKET", dir.join("s.sock"));
    let out = command.arg("bridge").stdin(Stdio::null()).output().unwrap();
    assert!(!out.status.success());
    let reply: Value = serde_json::from_slice(&out.stdout).unwrap();
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("signaltty on "), "{message}");
    assert!(message.contains("0777"), "{message}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("0777"), "{err}");
    assert!(!Path::new(&dir.join("s.sock")).exists());
}
