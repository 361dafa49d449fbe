//! Named sessions: each a server of its own, with its own socket and state
//! dir under the usual defaults, and `signaltty sessions` listing every
//! one, running or only saved.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;
use support::{BIN, procs, wait_for};

/// A user's platform dirs in a temp dir: `XDG_RUNTIME_DIR` and
/// `XDG_STATE_HOME`, and none of the variables that pick a server.
struct Home {
    root: tempfile::TempDir,
    /// Servers this test started, killed if it fails half-way.
    pids: std::cell::RefCell<Vec<i32>>,
}

impl Home {
    fn new() -> Home {
        let root = support::short_temp_dir();
        let runtime = root.path().join("run");
        std::fs::create_dir(&runtime).unwrap();
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
        Home {
            root,
            pids: Default::default(),
        }
    }

    fn runtime(&self) -> PathBuf {
        self.root.path().join("run")
    }

    fn state(&self) -> PathBuf {
        self.root.path().join("state")
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(BIN);
        command
            .env("XDG_RUNTIME_DIR", self.runtime())
            .env("XDG_STATE_HOME", self.state())
            .env("SHELL", "/bin/sh");
        for var in [
            "SIGNALTTY_SOCKET",
            "SIGNALTTY_STATE_DIR",
            "SIGNALTTY_SESSION",
            "SIGNALTTY_HOST",
            "SIGNALTTY_CONFIG",
        ] {
            command.env_remove(var);
        }
        command.args(args).stdin(Stdio::null());
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    fn json(&self, args: &[&str]) -> Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        serde_json::from_str(&self.ok(&all)).unwrap()
    }

    /// Starts a session's server in the background; returns its pid.
    fn up(&self, session: Option<&str>) -> i32 {
        let mut args = Vec::new();
        if let Some(session) = session {
            args.extend(["--session", session]);
        }
        args.extend(["up", "-d"]);
        self.ok(&args);
        let mut status = args[..args.len() - 2].to_vec();
        status.extend(["ctl", "status"]);
        let pid = self.json(&status)["pid"].as_i64().unwrap() as i32;
        self.pids.borrow_mut().push(pid);
        pid
    }

    fn sessions(&self) -> Vec<Value> {
        self.json(&["sessions"])["sessions"]
            .as_array()
            .unwrap()
            .clone()
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        for pid in self.pids.borrow().iter() {
            // SAFETY: kill(2) on servers this test started.
            unsafe { libc::kill(*pid, libc::SIGKILL) };
        }
    }
}

fn session<'a>(list: &'a [Value], name: &str) -> &'a Value {
    list.iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no session {name} in {list:?}"))
}

fn kill9(pid: i32) {
    // SAFETY: kill(2) on a server this test started.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    wait_for("the server to die", Duration::from_secs(10), || {
        (!procs::alive(pid)).then_some(())
    });
}

#[test]
fn named_sessions_are_separate_servers_listed_running_or_saved_with_counts() {
    let home = Home::new();
    assert!(home.ok(&["sessions"]).contains("no sessions yet"));
    let default_pid = home.up(None);
    let work_pid = home.up(Some("work"));
    assert_ne!(default_pid, work_pid);
    let cwd = home.root.path().display().to_string();
    let ws = home.ok(&[
        "--session",
        "work",
        "ctl",
        "workspace",
        "new",
        "w",
        "--cwd",
        &cwd,
    ]);
    // SIGNALTTY_SESSION picks the same server as --session.
    let pane = {
        let out = home
            .command(&["ctl", "new", &ws, "--", "sleep", "600"])
            .env("SIGNALTTY_SESSION", "work")
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    // Its own socket and state dir, under the usual defaults.
    let work_socket = home
        .runtime()
        .join("signaltty/sessions/work/signaltty.sock");
    let work_state = home.state().join("signaltty/sessions/work");
    assert!(work_socket.exists());
    assert!(work_state.is_dir());
    // The default session knows nothing of it.
    assert!(home.ok(&["ctl", "ls"]).contains("no workspaces"));

    let list = home.sessions();
    assert_eq!(list.len(), 2, "{list:?}");
    assert_eq!(list[0]["name"], "default", "the default session first");
    let work = session(&list, "work");
    assert_eq!(work["running"], true);
    assert_eq!(work["pid"], work_pid);
    assert_eq!(work["socket"], work_socket.display().to_string());
    assert_eq!(work["state_dir"], work_state.display().to_string());
    assert_eq!(
        (
            &work["workspaces"],
            &work["tabs"],
            &work["panes"],
            &work["live_panes"]
        ),
        (&1.into(), &1.into(), &1.into(), &1.into())
    );
    let table = home.ok(&["sessions"]);
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("work") && l.contains("running")),
        "{table}"
    );

    // Killed: the session is still listed, from what it saved.
    let snapshot = work_state.join("snapshot.json");
    wait_for("the session's snapshot", Duration::from_secs(10), || {
        std::fs::read_to_string(&snapshot)
            .ok()
            .filter(|s| s.contains(&pane))
    });
    kill9(work_pid);
    let list = home.sessions();
    let work = session(&list, "work");
    assert_eq!(work["running"], false, "{work}");
    assert_eq!(
        (&work["workspaces"], &work["panes"], &work["live_panes"]),
        (&1.into(), &1.into(), &0.into())
    );
    assert!(work["last_saved_at"].as_u64().is_some());
    let table = home.ok(&["sessions"]);
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("work") && l.contains("saved")),
        "{table}"
    );

    // Started again, it restores its own state, not the default's.
    home.up(Some("work"));
    let ls = home.json(&["--session", "work", "ctl", "ls"]);
    let panes = support::all_panes(&ls);
    assert_eq!(panes.len(), 1, "{ls}");
    assert_eq!(panes[0]["id"], pane.as_str());
    assert_eq!(panes[0]["state"], "RESTORED");
    for args in [
        vec!["--session", "work", "ctl", "shutdown"],
        vec!["ctl", "shutdown"],
    ] {
        home.ok(&args);
    }
}

#[test]
fn a_session_name_that_is_not_a_name_is_refused_saying_the_rule() {
    let home = Home::new();
    let out = home
        .command(&["ctl", "ls"])
        .env("SIGNALTTY_SESSION", "../escape")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("SIGNALTTY_SESSION") && err.contains("letters, digits"),
        "{err}"
    );
    let out = home.run(&["--session", "a/b", "up", "-d"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("letters, digits"));
    assert!(!Path::new(&home.state()).exists(), "nothing was created");
    // An empty value is no choice at all: the default session.
    let out = home
        .command(&["ctl", "ls"])
        .env("SIGNALTTY_SESSION", "")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            &home
                .runtime()
                .join("signaltty/signaltty.sock")
                .display()
                .to_string()
        ),
        "{err}"
    );
}
