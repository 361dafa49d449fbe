//! End to end: the real `signaltty` binary, a temp state dir and socket,
//! real PTYs and real processes.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use serde_json::Value;
use support::{TestServer, all_panes, mode, wait_for};

#[test]
fn workspaces_tabs_and_splits_show_in_the_layout() {
    let server = TestServer::start();
    let ws = server.workspace("layout", &[]);
    let first = server.ctl_ok(&["new", &ws, "--", "sleep", "1000"]);
    let right = server.ctl_ok(&[
        "new",
        &ws,
        "--split",
        &first,
        "--direction",
        "right",
        "--",
        "sleep",
        "1000",
    ]);
    let below = server.ctl_ok(&[
        "new",
        &ws,
        "--split",
        &right,
        "--direction",
        "down",
        "--",
        "sleep",
        "1000",
    ]);
    let tab2 = server.ctl_ok(&[
        "tab", "new", &ws, "--title", "second", "--", "sleep", "1000",
    ]);

    let ls = server.ls();
    let workspaces = ls["workspaces"].as_array().unwrap();
    assert_eq!(workspaces.len(), 1);
    assert_eq!(workspaces[0]["name"], "layout");
    let tabs = workspaces[0]["tabs"].as_array().unwrap();
    assert_eq!(tabs.len(), 2, "{ls}");
    let layout = &tabs[0]["layout"];
    assert_eq!(layout["type"], "split");
    assert_eq!(layout["direction"], "right");
    assert_eq!(layout["first"]["pane_id"], first.as_str());
    assert_eq!(layout["second"]["type"], "split");
    assert_eq!(layout["second"]["direction"], "down");
    assert_eq!(layout["second"]["first"]["pane_id"], right.as_str());
    assert_eq!(layout["second"]["second"]["pane_id"], below.as_str());
    let ids: Vec<&str> = tabs[0]["panes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [first.as_str(), right.as_str(), below.as_str()]);
    assert_eq!(tabs[1]["id"], tab2.as_str());
    assert_eq!(tabs[1]["title"], "second");
    for pane in all_panes(&ls) {
        assert_eq!(pane["state"], "LIVE", "{pane}");
    }

    // Closing the middle pane collapses its split; closing a tab's last
    // pane closes the tab.
    server.ctl_ok(&["close", &right]);
    let ls = server.ls();
    let layout = &ls["workspaces"][0]["tabs"][0]["layout"];
    assert_eq!(layout["first"]["pane_id"], first.as_str());
    assert_eq!(layout["second"]["pane_id"], below.as_str());
    let tab2_pane = ls["workspaces"][0]["tabs"][1]["panes"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    server.ctl_ok(&["close", &tab2_pane]);
    assert_eq!(
        server.ls()["workspaces"][0]["tabs"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // Names are unique.
    let cwd = server.dir.path().display().to_string();
    let dup = server.ctl(&["workspace", "new", "layout", "--cwd", &cwd]);
    assert!(!dup.status.success());
    let err = String::from_utf8_lossy(&dup.stderr);
    assert!(err.contains("already exists"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn commands_run_and_their_output_can_be_read() {
    let server = TestServer::start();
    let ws = server.workspace("run", &[]);
    let pane = server.ctl_ok(&["new", &ws]);
    server.ctl_ok(&["send", &pane, "echo $((40 + 2))-answer", "--enter"]);
    server.wait_output(&pane, "42-answer");

    // Panes are found by a unique prefix of their id too.
    let prefix = &pane[..6];
    server.ctl_ok(&[
        "send",
        prefix,
        // The word is put together by printf, so the echoed command line
        // never satisfies the wait below.
        "printf '\\033[31mr%sd\\033[0m\\n' e",
        "--enter",
    ]);
    server.wait_output(&pane, "red");
    let ansi = server.ctl_ok(&["read", &pane, "--ansi"]);
    assert!(
        ansi.contains("\u{1b}["),
        "colours kept with --ansi: {ansi:?}"
    );
    let plain = server.ctl_ok(&["read", &pane, "--tail", "50"]);
    assert!(!plain.contains('\u{1b}'), "plain by default: {plain:?}");

    let ls = server.ls();
    let listed = all_panes(&ls)
        .into_iter()
        .find(|p| p["id"] == pane.as_str())
        .unwrap();
    assert_eq!(listed["argv"][0], "/bin/sh");
}

#[test]
fn a_killed_process_leaves_an_exited_pane_with_its_exit_code() {
    let server = TestServer::start();
    let ws = server.workspace("exit", &[]);
    let seven = server.new_sh(&ws, "echo bye-now; exit 7");
    let exited = server.wait_pane(&seven, "EXITED", |p| p["state"] == "EXITED");
    assert_eq!(exited["exit_code"], 7);
    assert_eq!(exited["lifecycle"], "failed");
    // Its scrollback is kept.
    server.wait_output(&seven, "bye-now");

    let sleeper = server.ctl_ok(&["new", &ws, "--", "sleep", "1000"]);
    server.ctl_ok(&["kill", &sleeper, "--signal", "KILL"]);
    let killed = server.wait_pane(&sleeper, "EXITED", |p| p["state"] == "EXITED");
    assert_eq!(killed["exit_code"], 128 + 9);

    // A pane that is not live refuses input with a reason.
    let out = server.ctl(&["--json", "send", &sleeper, "x"]);
    assert!(!out.status.success());
    let err: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(err["error"]["code"], "PANE_NOT_LIVE");

    // A signal outside the allowlist is refused.
    let out = server.ctl(&["--json", "kill", &seven, "--signal", "SEGV"]);
    let err: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(err["error"]["code"], "BAD_PARAMS");
}

#[test]
fn a_panicking_pane_becomes_a_tombstone_and_its_siblings_live_on() {
    let server = TestServer::start();
    let ws = server.workspace("faults", &[]);
    let victim = server.new_sh(&ws, "echo victim-marker; sleep 1000");
    let sibling = server.ctl_ok(&["new", &ws, "--split", &victim, "--", "sleep", "1000"]);
    server.wait_output(&victim, "victim-marker");
    // Its tail must have reached disk for the tombstone to show it.
    server.wait_tail(&victim, "victim-marker");
    let layout_before = server.ls()["workspaces"][0]["tabs"][0]["layout"].clone();

    server.ctl_ok(&["debug", "panic", &victim]);
    let tomb = server.wait_pane(&victim, "a tombstone", |p| p["state"] == "EXITED");
    assert_eq!(tomb["id"], victim.as_str());
    let ls = server.ls();
    assert_eq!(ls["workspaces"][0]["tabs"][0]["layout"], layout_before);
    assert_eq!(server.pane(&sibling).unwrap()["state"], "LIVE");
    let text = server.ctl_ok(&["read", &victim]);
    assert!(
        text.contains("victim-marker"),
        "tombstone keeps its tail: {text}"
    );
    // The server keeps serving.
    server.ctl_ok(&["status"]);
    let more = server.ctl_ok(&["new", &ws, "--", "sleep", "1000"]);
    assert_eq!(server.pane(&more).unwrap()["state"], "LIVE");
}

#[test]
fn fault_injection_is_refused_unless_enabled() {
    let server = TestServer::start_with(false, Vec::new());
    let ws = server.workspace("nofaults", &[]);
    let pane = server.ctl_ok(&["new", &ws, "--", "sleep", "1000"]);
    let out = server.ctl(&["--json", "debug", "panic", &pane]);
    assert!(!out.status.success());
    let err: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(err["error"]["code"], "REFUSED");
    assert_eq!(server.pane(&pane).unwrap()["state"], "LIVE");
}

#[test]
fn a_structural_change_reaches_the_snapshot_after_the_debounce() {
    let server = TestServer::start();
    let ws = server.workspace("first", &[]);
    // Let a first write happen, so the next one is held by the 2 s debounce.
    wait_for("a first snapshot", Duration::from_secs(5), || {
        server
            .snapshot()
            .filter(|s| s["workspaces"][0]["id"] == ws.as_str())
    });
    let changed = Instant::now();
    let pane = server.ctl_ok(&["new", &ws, "--", "sleep", "1000"]);
    wait_for("the pane in snapshot.json", Duration::from_secs(30), || {
        server.snapshot().filter(|s| {
            s["panes"]
                .as_array()
                .is_some_and(|p| p.iter().any(|p| p["id"] == pane.as_str()))
        })
    });
    eprintln!("change on disk after {:?}", changed.elapsed());
}

#[test]
fn sigterm_writes_a_final_snapshot_with_panes_live_at_save() {
    let mut server = TestServer::start();
    let ws = server.workspace("term", &[]);
    let pane = server.new_sh(&ws, "echo final-marker; sleep 1000");
    server.wait_output(&pane, "final-marker");
    server.signal(libc::SIGTERM);
    assert_eq!(server.wait_exit(), Some(0), "log:\n{}", server.log());
    let snapshot = server.snapshot().expect("snapshot.json");
    let saved = snapshot["panes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == pane.as_str())
        .cloned()
        .expect("pane saved");
    assert_eq!(saved["running"], true, "{saved}");
    let tail = std::fs::read_to_string(server.tail_path(&pane)).expect("tail");
    assert!(tail.contains("final-marker"), "{tail}");
    assert!(!server.socket.exists(), "socket removed");
}

#[test]
fn ctl_shutdown_stops_the_server_cleanly() {
    let mut server = TestServer::start();
    let ws = server.workspace("bye", &[]);
    server.ctl_ok(&["new", &ws, "--", "sleep", "1000"]);
    server.ctl_ok(&["shutdown"]);
    assert_eq!(server.wait_exit(), Some(0), "log:\n{}", server.log());
    assert!(!server.socket.exists());
}

#[test]
fn a_cd_in_a_shell_reaches_the_snapshot() {
    let server = TestServer::start();
    let ws = server.workspace("cwd", &[]);
    let target = server.dir.path().join("deeper");
    std::fs::create_dir(&target).unwrap();
    let target = target.canonicalize().unwrap().display().to_string();
    let pane = server.ctl_ok(&["new", &ws]);
    server.ctl_ok(&["send", &pane, &format!("cd '{target}'"), "--enter"]);
    wait_for(
        "the new cwd in snapshot.json",
        Duration::from_secs(8),
        || {
            server.snapshot().filter(|s| {
                s["panes"].as_array().is_some_and(|p| {
                    p.iter()
                        .any(|p| p["id"] == pane.as_str() && p["cwd"] == target.as_str())
                })
            })
        },
    );
}

#[test]
fn a_cwd_that_is_not_a_directory_is_an_error() {
    let server = TestServer::start();
    let ws = server.workspace("badcwd", &[]);
    let file = server.dir.path().join("plain-file");
    std::fs::write(&file, "x").unwrap();
    let out = server.ctl(&["--json", "new", &ws, "--cwd", &file.display().to_string()]);
    assert!(!out.status.success());
    let err: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(err["error"]["code"], "SPAWN_FAILED", "{err}");
    assert!(
        err["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not a directory")
    );
    // A missing program is an error too, not a pane that is a hole.
    let out = server.ctl(&["new", &ws, "--", "/nonexistent/program"]);
    assert!(!out.status.success());
    assert!(all_panes(&server.ls()).is_empty());
}

#[test]
fn a_thousand_malformed_lines_leave_the_server_serving() {
    let server = TestServer::start();
    let mut stream = UnixStream::connect(&server.socket).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let bad: [&[u8]; 8] = [
        b"not json",
        b"{",
        b"[]",
        b"{\"v\":\"signaltty/2\"}",
        b"{\"v\":\"signaltty/9\",\"id\":1,\"method\":\"ls\"}",
        b"{\"v\":\"signaltty/2\",\"id\":2,\"method\":\"no.such\"}",
        b"{\"v\":\"signaltty/2\",\"id\":3,\"method\":\"pane.send\",\"params\":{\"pane\":5}}",
        b"\xff\xfe\x00garbage",
    ];
    let mut codes = std::collections::BTreeSet::new();
    for i in 0..1000 {
        stream.write_all(bad[i % bad.len()]).unwrap();
        stream.write_all(b"\n").unwrap();
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let response: Value = serde_json::from_str(&line).unwrap();
        codes.insert(response["error"]["code"].as_str().unwrap().to_string());
    }
    let expected = ["BAD_PARAMS", "BAD_REQUEST", "BAD_VERSION", "UNKNOWN_METHOD"];
    assert_eq!(codes.into_iter().collect::<Vec<_>>(), expected);

    // An oversized line closes only that connection.
    let mut big = UnixStream::connect(&server.socket).unwrap();
    let chunk = vec![b'x'; 1024 * 1024];
    for _ in 0..17 {
        if big.write_all(&chunk).is_err() {
            break;
        }
    }
    let mut reply = String::new();
    let _ = BufReader::new(big).read_line(&mut reply);
    if !reply.is_empty() {
        let response: Value = serde_json::from_str(&reply).unwrap();
        assert_eq!(response["error"]["code"], "LINE_TOO_LONG");
    }
    // The first connection still works, and so does a new client.
    stream
        .write_all(b"{\"v\":\"signaltty/2\",\"id\":9,\"method\":\"status\"}\n")
        .unwrap();
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let response: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(response["id"], 9);
    assert!(response["result"]["pid"].is_u64(), "{response}");
    server.ctl_ok(&["status"]);
}

#[test]
fn socket_dirs_and_files_are_private() {
    let server = TestServer::start();
    let ws = server.workspace("perms", &[]);
    let pane = server.new_sh(&ws, "echo tail-me; sleep 1000");
    server.wait_output(&pane, "tail-me");
    wait_for("snapshot and tail on disk", Duration::from_secs(10), || {
        (server.snapshot_path().exists() && server.tail_path(&pane).exists()).then_some(())
    });
    assert_eq!(mode(&server.socket), 0o600);
    assert_eq!(mode(server.socket.parent().unwrap()), 0o700);
    assert_eq!(mode(&server.state_dir), 0o700);
    assert_eq!(mode(&server.state_dir.join("history")), 0o700);
    assert_eq!(mode(&server.snapshot_path()), 0o600);
    assert_eq!(mode(&server.tail_path(&pane)), 0o600);
}

#[test]
fn one_server_per_socket_and_a_stale_socket_is_taken_over() {
    let mut server = TestServer::start();
    // A second foreground server refuses.
    let out = server
        .command()
        .args(["up", "--foreground"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("already running"), "{err}");
    // `up -d` is content that one runs.
    let out = server.command().args(["up", "-d"]).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("already running"));

    // SIGKILL leaves the socket file behind; the next server takes it over.
    server.kill9();
    assert!(server.socket.exists());
    server.launch();
    server.ctl_ok(&["status"]);
}

#[test]
fn up_detach_starts_a_background_server_that_answers() {
    let dir = support::short_temp_dir();
    let socket = dir.path().join("s.sock");
    let state = dir.path().join("state");
    let run = |args: &[&str]| {
        std::process::Command::new(support::BIN)
            .env("SIGNALTTY_SOCKET", &socket)
            .env("SIGNALTTY_STATE_DIR", &state)
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&["up", "-d"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let status = run(&["--json", "ctl", "status"]);
    assert!(status.status.success());
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert!(state.join("server.log").exists());
    assert_eq!(mode(&state.join("server.log")), 0o600);
    let out = run(&["ctl", "shutdown"]);
    assert!(out.status.success());
    let pid = status["pid"].as_u64().unwrap() as i32;
    wait_for(
        "the background server to stop",
        Duration::from_secs(15),
        || {
            // SAFETY: kill(2) with signal 0 only checks the pid.
            (unsafe { libc::kill(pid, 0) } != 0).then_some(())
        },
    );
}

#[test]
fn a_client_with_no_server_gets_a_clear_error() {
    let dir = support::short_temp_dir();
    let out = std::process::Command::new(support::BIN)
        .env("SIGNALTTY_SOCKET", dir.path().join("none.sock"))
        .args(["ctl", "ls"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no signaltty server is running") && err.contains("up -d"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1);
}

#[test]
fn resize_is_clamped() {
    let server = TestServer::start();
    let ws = server.workspace("size", &[]);
    let pane = server.ctl_ok(&["new", &ws, "--", "sleep", "1000"]);
    assert_eq!(
        server.ctl_ok(&["resize", &pane, "--rows", "0", "--cols", "65535"]),
        "2x1000"
    );
    assert_eq!(
        server.ctl_ok(&["resize", &pane, "--rows", "40", "--cols", "120"]),
        "40x120"
    );
}

#[test]
fn a_failed_tab_or_workspace_comes_back_from_its_record_and_the_rest_runs_on() {
    let server = TestServer::start();
    let ws = server.workspace("contained", &[]);
    let first = server.new_sh(&ws, "echo tab-marker; sleep 1000");
    let second = server.ctl_ok(&["new", &ws, "--split", &first, "--", "sleep", "1000"]);
    let tab = server.ls()["workspaces"][0]["tabs"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let other_tab = server.ctl_ok(&["tab", "new", &ws, "--", "sleep", "1000"]);
    let other_ws = server.workspace("bystander", &[]);
    let bystander = server.ctl_ok(&["new", &other_ws, "--", "sleep", "1000"]);
    server.wait_output(&first, "tab-marker");
    server.wait_tail(&first, "tab-marker");
    let layout = server.ls()["workspaces"][0]["tabs"][0]["layout"].clone();

    server.ctl_ok(&["debug", "panic", &tab]);
    for pane in [&first, &second] {
        server.wait_pane(pane, "a tombstone", |p| p["state"] == "EXITED");
    }
    let ls = server.ls();
    assert_eq!(ls["workspaces"][0]["tabs"][0]["layout"], layout);
    assert!(server.ctl_ok(&["read", &first]).contains("tab-marker"));
    let other_tab_pane = ls["workspaces"][0]["tabs"][1]["panes"][0].clone();
    assert_eq!(other_tab_pane["state"], "LIVE", "the sibling tab runs on");
    assert_eq!(server.pane(&bystander).unwrap()["state"], "LIVE");

    server.ctl_ok(&["debug", "panic", &ws]);
    let id = other_tab_pane["id"].as_str().unwrap().to_string();
    server.wait_pane(&id, "a tombstone", |p| p["state"] == "EXITED");
    let ls = server.ls();
    assert_eq!(ls["workspaces"][0]["tabs"][1]["id"], other_tab.as_str());
    assert_eq!(
        server.pane(&bystander).unwrap()["state"],
        "LIVE",
        "another workspace runs on"
    );
    // The rebuilt workspace still takes new panes.
    let fresh = server.ctl_ok(&["new", &ws, "--", "sleep", "1000"]);
    assert_eq!(server.pane(&fresh).unwrap()["state"], "LIVE");
}

#[test]
fn the_snapshot_actor_and_the_listener_are_restarted() {
    let server = TestServer::start();
    let ws = server.workspace("restarts", &[]);
    let pane = server.ctl_ok(&["new", &ws, "--", "sleep", "1000"]);
    server.ctl_ok(&["debug", "panic", "snapshot"]);
    // Everything published again: the listing and the next save are whole.
    wait_for("the model back", Duration::from_secs(10), || {
        let out = server.ctl(&["--json", "ls"]);
        let ls: Value = serde_json::from_slice(&out.stdout).ok()?;
        let live = all_panes(&ls)
            .iter()
            .any(|p| p["id"] == pane.as_str() && p["state"] == "LIVE");
        (live && ls["workspaces"][0]["name"] == "restarts").then_some(())
    });
    let second = server.workspace("after", &[]);
    wait_for("a save after the restart", Duration::from_secs(5), || {
        server.snapshot().filter(|s| {
            let text = s.to_string();
            text.contains(&second) && text.contains(&pane)
        })
    });

    server.ctl_ok(&["debug", "panic", "listener"]);
    wait_for("the listener back", Duration::from_secs(10), || {
        server.ctl(&["status"]).status.success().then_some(())
    });
}

#[test]
fn a_failing_save_is_shown_keeps_the_previous_file_and_recovers() {
    let server = TestServer::start();
    server.workspace("before", &[]);
    wait_for("the first save", Duration::from_secs(5), || {
        server
            .snapshot()
            .filter(|s| s.to_string().contains("before"))
    });
    // Keeping the previous snapshot means replacing snapshot.prev.json: a
    // directory in its place makes every save fail, root or not.
    let prev = server.state_dir.join("snapshot.prev.json");
    let _ = std::fs::remove_file(&prev);
    std::fs::create_dir(&prev).unwrap();
    std::fs::write(prev.join("blocker"), "x").unwrap();
    let good = std::fs::read(server.snapshot_path()).unwrap();

    server.workspace("during", &[]);
    let status = wait_for("the save error in status", Duration::from_secs(10), || {
        let status = server.ctl_json(&["status"]);
        status["snapshot"]["last_error"]
            .is_string()
            .then_some(status)
    });
    assert!(
        !status["snapshot"]["last_error"]
            .as_str()
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        std::fs::read(server.snapshot_path()).unwrap(),
        good,
        "the previous file is intact"
    );
    assert!(server.ctl_ok(&["status"]).contains("SAVE ERROR"));
    assert!(server.log().contains("SNAPSHOT WRITE FAILED"));

    std::fs::remove_dir_all(&prev).unwrap();
    wait_for("a save that works again", Duration::from_secs(10), || {
        let status = server.ctl_json(&["status"]);
        (status["snapshot"]["last_error"].is_null()
            && server
                .snapshot()
                .is_some_and(|s| s.to_string().contains("during")))
        .then_some(())
    });
}

#[test]
fn a_connection_from_another_user_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    // SAFETY: getuid(2) cannot fail.
    if unsafe { libc::getuid() } != 0 {
        eprintln!("skipped: only root can run a client as another user here");
        return;
    }
    let server = TestServer::start();
    // Open the doors the permissions normally shut: the other user's client
    // still refuses a directory that is not its own, before sending a byte.
    // (The server's own refusal of a foreign peer: tests/trust.rs.)
    for (path, mode) in [(server.dir.path(), 0o755), (server.socket.as_path(), 0o777)] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let out = std::process::Command::new(support::BIN)
        .env("SIGNALTTY_SOCKET", &server.socket)
        .args(["ctl", "status"])
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "nothing answered: {:?}", out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("belongs to uid 0, not to you"), "{err}");
    assert!(
        !server.log().contains("refused a connection"),
        "nothing reached it"
    );
    std::fs::set_permissions(server.dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    server.ctl_ok(&["status"]);
}

#[test]
fn a_failing_tail_write_is_shown_and_retried() {
    let server = TestServer::start();
    let ws = server.workspace("tails", &[]);
    let pane = server.ctl_ok(&["new", &ws, "--", "sh"]);
    server.ctl_ok(&["send", &pane, "echo first-$((1+1))", "--enter"]);
    let tail = server.tail_path(&pane);
    wait_for("the first tail", Duration::from_secs(10), || {
        std::fs::read_to_string(&tail)
            .ok()
            .filter(|t| t.contains("first-2"))
    });
    // A directory where the tail goes makes every write of it fail, root
    // or not.
    std::fs::remove_file(&tail).unwrap();
    std::fs::create_dir(&tail).unwrap();
    std::fs::write(tail.join("blocker"), "x").unwrap();
    server.ctl_ok(&["send", &pane, "echo second-$((1+1))", "--enter"]);
    let error = wait_for("the tail error in status", Duration::from_secs(10), || {
        server.ctl_json(&["status"])["snapshot"]["tail_error"]
            .as_str()
            .map(str::to_string)
    });
    assert!(error.contains(&pane), "{error}");
    assert!(server.ctl_ok(&["status"]).contains("TAIL ERROR"));
    assert!(server.log().contains("TAIL WRITE FAILED"));

    // Nothing new is printed: the failed tail itself is written once it can be.
    std::fs::remove_dir_all(&tail).unwrap();
    wait_for(
        "the tail written and the error gone",
        Duration::from_secs(10),
        || {
            let status = server.ctl_json(&["status"]);
            (status["snapshot"]["tail_error"].is_null()
                && std::fs::read_to_string(&tail).is_ok_and(|t| t.contains("second-2")))
            .then_some(())
        },
    );
}
