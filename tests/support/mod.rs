//! A real `signaltty` server for end-to-end tests: its own temp state dir
//! and socket, killed (SIGKILL) when the test ends. Set
//! `SIGNALTTY_TEST_KEEP=1` to keep the temp dir and the server's log.

#![allow(dead_code)]

pub mod agents;
pub mod browser;
pub mod git;
pub mod procs;
pub mod sshd;
pub mod terminal;

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

pub const BIN: &str = env!("CARGO_BIN_EXE_signaltty");

/// Waits for `condition` to hold, polling, until `timeout`; panics with
/// `what` if it never does.
pub fn wait_for<T>(what: &str, timeout: Duration, mut condition: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(value) = condition() {
            return value;
        }
        if Instant::now() > deadline {
            panic!("timed out after {timeout:?} waiting for {what}");
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// A temp dir with a short path (a Unix socket path must fit in 107 bytes),
/// private (0700) as a socket's directory must be.
pub fn short_temp_dir() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::Builder::new()
        .prefix("stt")
        .tempdir_in("/tmp")
        .expect("temp dir");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))
        .expect("private temp dir");
    dir
}

pub struct TestServer {
    pub dir: tempfile::TempDir,
    pub socket: PathBuf,
    pub state_dir: PathBuf,
    pub child: Option<Child>,
    faults: bool,
    extra_env: Vec<(String, String)>,
}

impl TestServer {
    /// A server with fault injection enabled.
    pub fn start() -> TestServer {
        Self::start_with(true, Vec::new())
    }

    pub fn start_with(faults: bool, extra_env: Vec<(String, String)>) -> TestServer {
        let mut server = Self::prepare(faults, extra_env);
        server.launch();
        server
    }

    /// A test dir and settings, with no server started yet.
    pub fn prepare(faults: bool, extra_env: Vec<(String, String)>) -> TestServer {
        let dir = short_temp_dir();
        let server = TestServer {
            socket: dir.path().join("s.sock"),
            state_dir: dir.path().join("state"),
            dir,
            child: None,
            faults,
            extra_env,
        };
        std::fs::create_dir_all(&server.state_dir).expect("state dir");
        server
    }

    /// One more variable for the server (and so its panes) to start with.
    pub fn extra_env_push(&mut self, key: &str, value: &str) {
        self.extra_env.push((key.to_string(), value.to_string()));
    }

    pub fn log_path(&self) -> PathBuf {
        self.dir.path().join("server.log")
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.log_path()).unwrap_or_default()
    }

    /// Starts (again) a server on the same socket and state dir.
    pub fn launch(&mut self) {
        self.launch_with(&[]);
    }

    /// Starts a server with extra `up` flags (e.g. `--no-restore`).
    pub fn launch_with(&mut self, flags: &[&str]) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.log_path())
            .expect("log file");
        let mut command = self.command();
        command
            .args(["up", "--foreground"])
            .args(flags)
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log"))
            .stderr(log);
        if self.faults {
            command.env("SIGNALTTY_ENABLE_FAULTS", "1");
        }
        self.child = Some(command.spawn().expect("start signaltty"));
        let socket = self.socket.clone();
        wait_for("the server to answer", Duration::from_secs(20), || {
            if let Some(child) = self.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                panic!("server exited at start ({status}):\n{}", self.log());
            }
            let up = UnixStream::connect(&socket).is_ok() && self.ctl(&["status"]).status.success();
            up.then_some(())
        });
    }

    /// A `signaltty` command aimed at this server.
    pub fn command(&self) -> Command {
        let mut command = Command::new(BIN);
        command
            .env("SIGNALTTY_SOCKET", &self.socket)
            .env("SIGNALTTY_STATE_DIR", &self.state_dir)
            .env("SHELL", "/bin/sh")
            .env_remove("SIGNALTTY_CONFIG")
            .env_remove("SIGNALTTY_ENABLE_FAULTS");
        // A developer's own choice of session or machine must not steer a
        // test's commands elsewhere.
        for var in [
            "SIGNALTTY_SESSION",
            "SIGNALTTY_HOST",
            "SIGNALTTY_REMOTE_BIN",
            "SIGNALTTY_SSH_COMMAND",
        ] {
            command.env_remove(var);
        }
        for (key, value) in &self.extra_env {
            command.env(key, value);
        }
        command
    }

    pub fn ctl(&self, args: &[&str]) -> Output {
        self.command()
            .arg("ctl")
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("run signaltty ctl")
    }

    /// Runs `ctl ARGS`, asserting success; returns trimmed stdout.
    pub fn ctl_ok(&self, args: &[&str]) -> String {
        let out = self.ctl(args);
        assert!(
            out.status.success(),
            "ctl {args:?} failed: {}\nserver log:\n{}",
            String::from_utf8_lossy(&out.stderr),
            self.log()
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Runs `ctl --json ARGS`, asserting success; returns the JSON.
    pub fn ctl_json(&self, args: &[&str]) -> Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let text = self.ctl_ok(&all);
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("ctl {args:?}: {e}: {text}"))
    }

    /// A new workspace in the test dir, with extra `workspace new` flags;
    /// returns its id.
    pub fn workspace(&self, name: &str, flags: &[&str]) -> String {
        let cwd = self.dir.path().display().to_string();
        let mut args = vec!["workspace", "new", name, "--cwd", &cwd];
        args.extend_from_slice(flags);
        self.ctl_ok(&args)
    }

    /// A new pane in `workspace` running `sh -c script`; returns its id.
    pub fn new_sh(&self, workspace: &str, script: &str) -> String {
        self.ctl_ok(&["new", workspace, "--", "sh", "-c", script])
    }

    /// One request on the socket: its `result`, or its `error`.
    pub fn call(&self, method: &str, params: Value) -> Result<Value, Value> {
        let response = self.raw_call(method, params);
        match response.get("error") {
            Some(error) => Err(error.clone()),
            None => Ok(response["result"].clone()),
        }
    }

    /// Sends one request over a connection of its own, as any client
    /// could, and returns the response line as JSON (`result` or `error`).
    pub fn raw_call(&self, method: &str, params: Value) -> Value {
        raw_call(&self.socket, method, params)
    }

    pub fn ls(&self) -> Value {
        self.ctl_json(&["ls"])
    }

    /// The pane with `id` in `ls --json`.
    pub fn pane(&self, id: &str) -> Option<Value> {
        let ls = self.ls();
        all_panes(&ls).into_iter().find(|p| p["id"] == id)
    }

    pub fn wait_pane(&self, id: &str, what: &str, check: impl Fn(&Value) -> bool) -> Value {
        wait_for(what, Duration::from_secs(15), || {
            self.pane(id).filter(|p| check(p))
        })
    }

    /// Waits until `ctl read PANE` shows `needle`.
    pub fn wait_output(&self, pane: &str, needle: &str) -> String {
        wait_for(
            &format!("{needle:?} in pane {pane}"),
            Duration::from_secs(15),
            || {
                let out = self.ctl(&["read", pane]);
                let text = String::from_utf8_lossy(&out.stdout).to_string();
                text.contains(needle).then_some(text)
            },
        )
    }

    pub fn snapshot_path(&self) -> PathBuf {
        self.state_dir.join("snapshot.json")
    }

    /// The snapshot on disk, if it parses.
    pub fn snapshot(&self) -> Option<Value> {
        let text = std::fs::read_to_string(self.snapshot_path()).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Waits until the snapshot on disk passes `check`.
    pub fn wait_snapshot(&self, what: &str, check: impl Fn(&Value) -> bool) -> Value {
        wait_for(what, Duration::from_secs(30), || {
            self.snapshot().filter(|s| check(s))
        })
    }

    /// Waits until `pane`'s tail on disk holds `needle`.
    pub fn wait_tail(&self, pane: &str, needle: &str) -> String {
        wait_for(
            &format!("{pane}'s tail on disk to hold {needle:?}"),
            Duration::from_secs(30),
            || {
                std::fs::read_to_string(self.tail_path(pane))
                    .ok()
                    .filter(|t| t.contains(needle))
            },
        )
    }

    pub fn tail_path(&self, pane: &str) -> PathBuf {
        self.state_dir.join("history").join(format!("{pane}.tail"))
    }

    pub fn pid(&self) -> i32 {
        self.child
            .as_ref()
            .map(|c| c.id() as i32)
            .expect("server running")
    }

    pub fn signal(&self, signal: i32) {
        // SAFETY: kill(2) with plain integers.
        unsafe { libc::kill(self.pid(), signal) };
    }

    /// Waits for the server process to end; returns its exit code.
    pub fn wait_exit(&mut self) -> Option<i32> {
        let mut child = self.child.take().expect("server running");
        let status = wait_for("the server to exit", Duration::from_secs(20), || {
            child.try_wait().ok().flatten()
        });
        status.code()
    }

    pub fn kill9(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.kill9();
        if std::env::var_os("SIGNALTTY_TEST_KEEP").is_some() {
            let path = std::mem::replace(&mut self.dir, tempfile::tempdir().expect("temp"));
            eprintln!("kept test dir {}", path.keep().display());
        }
    }
}

/// `ctl hook AGENT EVENT --pane PANE` with `payload` on its stdin.
pub fn hook(server: &TestServer, agent: &str, event: &str, pane: &str, payload: &[u8]) -> Output {
    let mut child = server
        .command()
        .args(["ctl", "hook", agent, event, "--pane", pane])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // A refused payload may close the pipe early.
    let _ = stdin.write_all(payload);
    drop(stdin);
    child.wait_with_output().unwrap()
}

/// One request on a fresh connection to `socket`; the response as JSON.
pub fn raw_call(socket: &Path, method: &str, params: Value) -> Value {
    use std::io::{BufRead, BufReader, Write};
    let mut stream = UnixStream::connect(socket).expect("connect");
    let request =
        serde_json::json!({"v": "signaltty/2", "id": 1, "method": method, "params": params});
    let mut line = serde_json::to_vec(&request).expect("request");
    line.push(b'\n');
    stream.write_all(&line).expect("send");
    let mut reply = String::new();
    BufReader::new(stream).read_line(&mut reply).expect("reply");
    serde_json::from_str(&reply).unwrap_or_else(|e| panic!("{e}: {reply:?}"))
}

pub fn all_panes(ls: &Value) -> Vec<Value> {
    let mut panes = Vec::new();
    for ws in ls["workspaces"].as_array().into_iter().flatten() {
        for tab in ws["tabs"].as_array().into_iter().flatten() {
            panes.extend(tab["panes"].as_array().into_iter().flatten().cloned());
        }
    }
    panes
}

/// The resident memory of process `pid`, in KiB.
pub fn rss_kib(pid: i32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

pub fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}
