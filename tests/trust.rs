//! What signaltty refuses to trust: a socket another user could be
//! listening on, a link planted in its state dir, a secret on a command
//! line. Tests that need a second user (uid 65534) run only as root, as CI
//! does, and say so when skipped.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;
use support::{BIN, TestServer, mode, short_temp_dir, wait_for};

const OTHER: u32 = 65534;

fn running_as_root() -> bool {
    // SAFETY: getuid(2) cannot fail.
    let root = unsafe { libc::getuid() } == 0;
    if !root {
        eprintln!("skipped: only root can act as a second user here");
    }
    root
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A directory as the other user would make it: theirs, 0700.
fn dir_of_other_user(path: &Path) -> PathBuf {
    std::fs::create_dir(path).unwrap();
    std::os::unix::fs::chown(path, Some(OTHER), Some(OTHER)).unwrap();
    chmod(path, 0o700);
    path.to_path_buf()
}

/// A temp dir the other user can pass through.
fn shared_temp_dir() -> tempfile::TempDir {
    let dir = short_temp_dir();
    chmod(dir.path(), 0o755);
    dir
}

/// A process that is killed when the test ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Not a test of its own: the fake server the tests here run as another
/// user. It listens on `FAKE_SERVER_SOCKET`, appends the first line each
/// client sends to `FAKE_SERVER_CAPTURE`, and hangs up.
#[test]
#[ignore = "a helper the other tests run as another user"]
fn fake_server() {
    let (Some(socket), Some(capture)) = (
        std::env::var_os("FAKE_SERVER_SOCKET"),
        std::env::var_os("FAKE_SERVER_CAPTURE"),
    ) else {
        return;
    };
    std::fs::write(&capture, b"").unwrap();
    let listener = UnixListener::bind(&socket).unwrap();
    for stream in listener.incoming() {
        let mut bytes = Vec::new();
        let _ = BufReader::new(stream.unwrap()).read_until(b'\n', &mut bytes);
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&capture)
            .unwrap();
        file.write_all(&bytes).unwrap();
    }
}

/// Runs [`fake_server`] as the other user on `socket`, capturing into
/// `capture`, and waits until it listens.
fn start_fake_server(socket: &Path, capture: &Path) -> Killed {
    let child = Command::new(std::env::current_exe().unwrap())
        .args(["fake_server", "--exact", "--ignored", "--test-threads=1"])
        .env("FAKE_SERVER_SOCKET", socket)
        .env("FAKE_SERVER_CAPTURE", capture)
        .uid(OTHER)
        .gid(OTHER)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let fake = Killed(child);
    wait_for("the fake server to listen", Duration::from_secs(10), || {
        UnixStream::connect(socket).ok()
    });
    fake
}

/// What the fake server on `socket` captured before now: a probe line is
/// sent last, and the server handles one client at a time, so once the
/// probe is in the capture everything before it is too.
fn captured(socket: &Path, capture: &Path) -> Vec<u8> {
    const PROBE: &[u8] = b"probe\n";
    UnixStream::connect(socket)
        .unwrap()
        .write_all(PROBE)
        .unwrap();
    let mut bytes = wait_for("the probe captured", Duration::from_secs(10), || {
        std::fs::read(capture).ok().filter(|b| b.ends_with(PROBE))
    });
    bytes.truncate(bytes.len() - PROBE.len());
    bytes
}

/// `signaltty ARGS` as this user with only `env` set, `stdin` fed to it.
fn client(env: &[(&str, &Path)], args: &[&str], stdin: &[u8]) -> Output {
    let mut command = Command::new(BIN);
    command
        .env_remove("SIGNALTTY_SOCKET")
        .env_remove("XDG_RUNTIME_DIR")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command.spawn().unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

/// Runs a server start that must be refused, and what it said; a server
/// that serves instead fails the test (and is ended).
fn refused_start(command: &mut Command) -> Output {
    let mut server = Killed(
        command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let status = wait_for("the server to refuse", Duration::from_secs(20), || {
        server.0.try_wait().unwrap()
    });
    let mut stderr = Vec::new();
    server
        .0
        .stderr
        .take()
        .unwrap()
        .read_to_end(&mut stderr)
        .unwrap();
    Output {
        status,
        stdout: Vec::new(),
        stderr,
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_socket_dir_another_user_made_first_receives_nothing() {
    if !running_as_root() {
        return;
    }
    // With XDG_RUNTIME_DIR unset, the socket falls back to a per-uid dir
    // under the temp dir, which another user can create first.
    let tmp = shared_temp_dir();
    let trap = dir_of_other_user(&tmp.path().join("signaltty-0"));
    let capture = trap.join("capture");
    let _fake = start_fake_server(&trap.join("signaltty.sock"), &capture);

    let env = [("TMPDIR", tmp.path())];
    let out = client(&env, &["ctl", "send", "p1", "my password", "--enter"], b"");
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("belongs to uid 65534, not to you (uid 0)") && err.contains("--socket"),
        "{err}"
    );
    let hook = br#"{"session_id":"0b6f2c4e-1111-2222-3333-444455556666","message":"secret"}"#;
    let out = client(
        &env,
        &["ctl", "hook", "claude", "Notification", "--pane", "p1"],
        hook,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let out = client(&env, &["attach", "p1"], b"");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));

    let socket = trap.join("signaltty.sock");
    assert_eq!(captured(&socket, &capture), b"", "nothing captured");
}

#[test]
fn a_server_run_by_another_user_is_refused_by_its_peer_uid() {
    if !running_as_root() {
        return;
    }
    let tmp = shared_temp_dir();
    let theirs = dir_of_other_user(&tmp.path().join("u"));
    let capture = theirs.join("capture");
    let _fake = start_fake_server(&theirs.join("s.sock"), &capture);
    // Their socket, moved into a directory of ours that passes every check.
    let ours = tmp.path().join("r");
    std::fs::create_dir(&ours).unwrap();
    chmod(&ours, 0o700);
    let socket = ours.join("s.sock");
    std::fs::rename(theirs.join("s.sock"), &socket).unwrap();

    let out = client(
        &[("SIGNALTTY_SOCKET", &socket)],
        &["ctl", "send", "p1", "my password"],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("runs as uid 65534, not as you (uid 0)") && err.contains("nothing was sent"),
        "{err}"
    );
    assert_eq!(captured(&socket, &capture), b"", "nothing captured");
}

/// A real server, run as the other user in a dir of theirs.
fn start_server_as_other_user(dir: &Path, log: &Path) -> Killed {
    let log = std::fs::File::create(log).unwrap();
    let child = Command::new(BIN)
        .env("SIGNALTTY_SOCKET", dir.join("s.sock"))
        .env("SIGNALTTY_STATE_DIR", dir.join("state"))
        .env("HOME", dir)
        .env_remove("SIGNALTTY_CONFIG")
        .args(["up", "--foreground"])
        .uid(OTHER)
        .gid(OTHER)
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap();
    Killed(child)
}

#[test]
fn another_users_server_says_why_it_refuses_and_denials_are_named() {
    if !running_as_root() {
        return;
    }
    let tmp = shared_temp_dir();
    let theirs = dir_of_other_user(&tmp.path().join("u"));
    let log = tmp.path().join("server.log");
    let _server = start_server_as_other_user(&theirs, &log);
    let socket = theirs.join("s.sock");

    // A raw client of ours (root passes the permissions) gets one line
    // saying why, then the connection closes.
    let stream = wait_for("their server to listen", Duration::from_secs(20), || {
        UnixStream::connect(&socket).ok()
    });
    let mut line = String::new();
    BufReader::new(stream).read_line(&mut line).unwrap();
    let reply: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(reply["error"]["code"], "REFUSED", "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("serves only the user who started it"),
        "{reply}"
    );
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(
        logged.contains("refused a connection from another user"),
        "{logged}"
    );

    // Their own client is served; with the socket closed to it, it is told
    // so, not that no server runs.
    let as_them = || {
        let mut command = Command::new(BIN);
        command
            .env("SIGNALTTY_SOCKET", &socket)
            .args(["ctl", "status"])
            .uid(OTHER)
            .gid(OTHER);
        command
    };
    let out = wait_for("their client served", Duration::from_secs(10), || {
        as_them().output().ok().filter(|o| o.status.success())
    });
    assert!(String::from_utf8_lossy(&out.stdout).contains("signaltty"));
    chmod(&socket, 0o000);
    let out = as_them().output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("Permission denied") && !err.contains("no signaltty server"),
        "{err}"
    );
}

#[test]
fn a_socket_dir_others_can_enter_or_a_link_is_refused() {
    let server = TestServer::start();
    chmod(server.dir.path(), 0o755);
    let out = server.ctl(&["status"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("mode 0755") && err.contains("chmod 700"),
        "{err}"
    );
    chmod(server.dir.path(), 0o700);
    server.ctl_ok(&["status"]);

    let elsewhere = short_temp_dir();
    let link = elsewhere.path().join("link");
    std::os::unix::fs::symlink(server.dir.path(), &link).unwrap();
    let out = client(
        &[("SIGNALTTY_SOCKET", &link.join("s.sock"))],
        &["ctl", "status"],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("is a symbolic link"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_server_refuses_a_socket_dir_behind_a_link_and_changes_nothing() {
    let tmp = short_temp_dir();
    let target = tmp.path().join("target");
    std::fs::create_dir(&target).unwrap();
    chmod(&target, 0o755);
    let link = tmp.path().join("link");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let out = refused_start(
        Command::new(BIN)
            .env("SIGNALTTY_SOCKET", link.join("s.sock"))
            .env("SIGNALTTY_STATE_DIR", tmp.path().join("state"))
            .args(["up", "--foreground"]),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("is a symbolic link"),
        "{}",
        stderr(&out)
    );
    assert_eq!(mode(&target), 0o755, "the link's target is not chmodded");
    assert_eq!(std::fs::read_dir(&target).unwrap().count(), 0);
}

fn archive_names(server: &TestServer) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(server.state_dir.join("archive"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A file outside the state dir that a link will point at.
fn victim(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("victim");
    std::fs::write(&path, text).unwrap();
    chmod(&path, 0o644);
    path
}

#[test]
fn a_tail_that_is_a_link_is_neither_shown_nor_written_through() {
    let mut server = TestServer::start();
    let ws = server.workspace("w", &[]);
    let pane = server.ctl_ok(&["new", &ws]);
    server.ctl_ok(&["send", &pane, "echo mine", "--enter"]);
    server.wait_output(&pane, "mine");
    let tail = server.tail_path(&pane);
    wait_for("the tail on disk", Duration::from_secs(10), || {
        tail.exists().then_some(())
    });
    server.kill9();
    let victim = victim(server.dir.path(), "root:x:0:0:TOP-SECRET\n");
    std::fs::remove_file(&tail).unwrap();
    std::os::unix::fs::symlink(&victim, &tail).unwrap();
    server.launch();

    let shown = server.ctl_ok(&["read", &pane]);
    assert!(!shown.contains("TOP-SECRET"), "{shown}");
    assert!(
        archive_names(&server)
            .iter()
            .any(|n| n.starts_with(&format!("tail-{pane}-")) && n.ends_with("-link")),
        "{:?}",
        archive_names(&server)
    );
    assert!(server.log().contains("a tail was a symbolic link"));
    server.ctl_ok(&["shutdown"]);
    server.wait_exit();
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "root:x:0:0:TOP-SECRET\n"
    );
    assert_eq!(mode(&victim), 0o644);
    let meta = std::fs::symlink_metadata(&tail).unwrap();
    assert!(meta.is_file(), "a regular tail again");
    assert!(
        !std::fs::read_to_string(&tail)
            .unwrap()
            .contains("TOP-SECRET")
    );
}

#[test]
fn a_snapshot_that_is_a_link_is_archived_and_its_target_untouched() {
    let mut server = TestServer::start();
    server.workspace("first", &[]);
    server.wait_snapshot("a first save", |s| s["workspaces"][0]["name"] == "first");
    server.workspace("second", &[]);
    server.wait_snapshot("a second save", |s| s["workspaces"][1]["name"] == "second");
    server.kill9();
    // The newest snapshot now lives elsewhere, readable by all, behind a link.
    let elsewhere = server.dir.path().join("elsewhere.json");
    std::fs::rename(server.snapshot_path(), &elsewhere).unwrap();
    chmod(&elsewhere, 0o644);
    let before = std::fs::read(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, server.snapshot_path()).unwrap();
    server.launch();

    let status = server.ctl_json(&["status"]);
    assert_eq!(status["restore"]["degraded"], true, "{status}");
    assert!(
        status["restore"]["note"]
            .as_str()
            .unwrap()
            .contains("symbolic link"),
        "{status}"
    );
    server.workspace("third", &[]);
    server.wait_snapshot("a save after the restore", |s| {
        s["workspaces"].as_array().is_some_and(|w| w.len() == 2)
    });
    for path in [
        server.snapshot_path(),
        server.state_dir.join("snapshot.prev.json"),
    ] {
        let meta = std::fs::symlink_metadata(&path).unwrap();
        assert!(meta.is_file(), "{} is a regular file", path.display());
        assert_eq!(meta.mode() & 0o777, 0o600);
    }
    assert_eq!(mode(&elsewhere), 0o644, "the target is not chmodded");
    assert_eq!(std::fs::read(&elsewhere).unwrap(), before);
    assert!(
        archive_names(&server)
            .iter()
            .any(|n| n.ends_with("-corrupt.json")),
        "{:?}",
        archive_names(&server)
    );
}

#[test]
fn up_detach_never_writes_its_log_through_a_link() {
    let dir = short_temp_dir();
    let state = dir.path().join("state");
    std::fs::create_dir(&state).unwrap();
    chmod(&state, 0o700);
    let victim = victim(dir.path(), "not yours\n");
    std::os::unix::fs::symlink(&victim, state.join("server.log")).unwrap();
    let socket = dir.path().join("s.sock");
    let env = [
        ("SIGNALTTY_SOCKET", socket.as_path()),
        ("SIGNALTTY_STATE_DIR", &state),
    ];
    let out = client(&env, &["up", "-d"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let out = client(&env, &["ctl", "shutdown"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "not yours\n");
    assert_eq!(mode(&victim), 0o644);
    let log = state.join("server.log");
    assert!(std::fs::symlink_metadata(&log).unwrap().is_file());
    assert_eq!(mode(&log), 0o600);
    wait_for(
        "the server's lines in its own log",
        Duration::from_secs(10),
        || {
            std::fs::read_to_string(&log)
                .ok()
                .filter(|l| l.contains("signaltty server ready"))
        },
    );
}

#[test]
fn a_state_dir_that_is_a_link_or_not_private_is_refused_or_fixed() {
    let dir = short_temp_dir();
    let real = dir.path().join("real");
    std::fs::create_dir(&real).unwrap();
    chmod(&real, 0o755);
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let up = |state: &Path| {
        refused_start(
            Command::new(BIN)
                .env("SIGNALTTY_SOCKET", dir.path().join("s.sock"))
                .env("SIGNALTTY_STATE_DIR", state)
                .args(["up", "--foreground"]),
        )
    };
    let out = up(&link);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("state directory") && err.contains("is a symbolic link"),
        "{err}"
    );
    assert_eq!(mode(&real), 0o755, "the link's target is not chmodded");

    let mut server = TestServer::prepare(true, Vec::new());
    chmod(&server.state_dir, 0o750);
    server.launch();
    assert_eq!(mode(&server.state_dir), 0o700);
    assert!(
        server
            .log()
            .contains("had mode 0750, so other users could enter it"),
        "{}",
        server.log()
    );

    if running_as_root() {
        std::os::unix::fs::chown(&real, Some(OTHER), Some(OTHER)).unwrap();
        let out = up(&real);
        assert_eq!(out.status.code(), Some(1));
        assert!(
            stderr(&out).contains("belongs to uid 65534"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn a_save_that_fails_on_a_full_disk_leaves_no_link_behind() {
    let mut server = TestServer::prepare(true, Vec::new());
    // A file-size limit stands in for a full disk: every write past 16 KiB
    // fails (EFBIG) while creating links and renaming still work.
    let log = std::fs::File::create(server.log_path()).unwrap();
    let mut command = server.command();
    command
        .args(["up", "--foreground"])
        .env("SIGNALTTY_ENABLE_FAULTS", "1")
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log);
    // SAFETY: setrlimit(2) and signal(2) are async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: 16 * 1024,
                rlim_max: 16 * 1024,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    server.child = Some(command.spawn().unwrap());
    wait_for("the server to answer", Duration::from_secs(20), || {
        server.ctl(&["status"]).status.success().then_some(())
    });
    server.workspace("small", &[]);
    server.wait_snapshot("a first save", |s| s["workspaces"][0]["name"] == "small");
    // Too big to write from now on: each save promotes, then fails.
    let cwd = server.dir.path().display().to_string();
    for n in 0..80 {
        let name = format!("{n}{}", "w".repeat(250));
        let reply = server.raw_call(
            "workspace.new",
            serde_json::json!({"name": name, "cwd": cwd}),
        );
        assert!(reply["result"].is_object(), "{reply}");
    }
    wait_for("three failed saves", Duration::from_secs(20), || {
        (server.log().matches("SNAPSHOT WRITE FAILED").count() >= 3).then_some(())
    });
    let leaked: Vec<String> = std::fs::read_dir(&server.state_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".prevlink-"))
        .collect();
    assert!(leaked.is_empty(), "{leaked:?}");
    assert!(
        server
            .snapshot()
            .is_some_and(|s| s["workspaces"][0]["name"] == "small"),
        "the last good snapshot is intact"
    );
}

#[test]
fn what_the_user_set_aside_is_kept_and_only_corrupt_archives_are_bounded() {
    let mut server = TestServer::prepare(true, Vec::new());
    let archive = server.state_dir.join("archive");
    std::fs::create_dir_all(&archive).unwrap();
    let now = 1_800_000_000_000u64;
    for n in 0..25u64 {
        std::fs::write(
            archive.join(format!("snapshot-{}-set-aside.json", now + n)),
            b"{}",
        )
        .unwrap();
        std::fs::write(
            archive.join(format!("snapshot-{}-corrupt.json", now + n)),
            b"x",
        )
        .unwrap();
    }
    server.launch();
    let names = archive_names(&server);
    assert_eq!(
        names
            .iter()
            .filter(|n| n.ends_with("-set-aside.json"))
            .count(),
        25,
        "{names:?}"
    );
    assert_eq!(
        names
            .iter()
            .filter(|n| n.ends_with("-corrupt.json"))
            .count(),
        20
    );
    // And a real --no-restore start adds one more, removing none.
    server.workspace("w", &[]);
    server.wait_snapshot("a save", |s| s["workspaces"][0]["name"] == "w");
    server.kill9();
    let saved = ["snapshot.json", "snapshot.prev.json"]
        .iter()
        .filter(|name| server.state_dir.join(name).exists())
        .count();
    server.launch_with(&["--no-restore"]);
    let names = archive_names(&server);
    assert_eq!(
        names
            .iter()
            .filter(|n| n.ends_with("-set-aside.json"))
            .count(),
        25 + saved,
        "{names:?}"
    );
}

#[test]
fn a_secret_on_the_command_line_is_never_saved_shown_or_logged() {
    let mut server = TestServer::start();
    let ws = server.workspace("w", &[]);
    // The program shows what it got without showing the secrets themselves.
    let script = "echo \"key:${#ANTHROPIC_API_KEY} args:$#\"; exec sleep 600";
    let pane = server.ctl_ok(&[
        "new",
        &ws,
        "--",
        "env",
        "ANTHROPIC_API_KEY=sk-ant-ENVSECRET",
        "LANG=C.UTF-8",
        "sh",
        "-c",
        script,
        "sh",
        "--api-key",
        "FLAGSECRET",
        "--token=EQSECRET",
        "--model",
        "m1",
    ]);
    // The live process ran with every word: a 16-byte key, five arguments.
    server.wait_output(&pane, "key:16 args:5");
    let listed = server.ctl_ok(&["--json", "ls"]);
    let saved = server
        .wait_snapshot("the pane saved", |s| s["panes"][0]["id"] == pane.as_str())
        .to_string();
    let logged = server.log();
    for secret in ["ENVSECRET", "FLAGSECRET", "EQSECRET"] {
        for (what, text) in [
            ("ls --json", &listed),
            ("snapshot.json", &saved),
            ("server.log", &logged),
        ] {
            assert!(!text.contains(secret), "{secret} in {what}: {text}");
        }
    }
    let argv = server.pane(&pane).unwrap()["argv"].clone();
    assert_eq!(
        argv,
        serde_json::json!([
            "env",
            "LANG=C.UTF-8",
            "sh",
            "-c",
            script,
            "sh",
            "--model",
            "m1"
        ])
    );

    // What is respawned after a restart runs without them.
    server.kill9();
    server.launch();
    server.ctl_ok(&["respawn", &pane]);
    server.wait_output(&pane, "key:0 args:2");
}
