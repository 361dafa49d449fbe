//! A stand-in server for the client's tests: a Unix socket in a private
//! temporary directory that answers as signaltty would (pid [`PID`], no
//! upgrade yet), until the test hands it over: then it closes every
//! connection, as an upgrade's exec does, and answers the next ones as the
//! same server upgraded, as another one, as another protocol version, or
//! not at all.
//!
//! It speaks just enough: `status`; `pane.attach` (a reply, a snapshot
//! frame, then it reads the client's frames); `subscribe` and `events` (a
//! reply and one line); `pane.wait` and `agent.wait`, which are answered
//! only after a handover (before it they wait, as a long request does);
//! anything else is done. Every request is logged, for tests to wait on.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use signaltty_protocol::{Call, ErrorCode, PROTOCOL, Request, Response, WireError, frame};

use crate::client::Endpoint;

/// The pid the server answers with, before a handover and after an
/// upgrade.
pub const PID: u32 = 4242;

/// How long a test waits for anything before it fails, rather than hangs.
pub const DEADLINE: Duration = Duration::from_secs(10);

/// Who answers after the handover.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Then {
    /// The same pid, one upgrade more.
    Upgraded,
    /// Another pid: the server crashed and another one started.
    Crashed,
    /// A server of another protocol version: `BAD_VERSION` to everything.
    OtherVersion,
    /// No one: the socket is gone.
    Vanished,
}

/// The words a server of another version refuses with.
pub const OTHER_VERSION: &str = "protocol \"9\" is not spoken here";

/// A request the server received, and whether it came after the handover.
#[derive(Debug, Clone)]
pub struct Asked {
    pub after_handover: bool,
    pub call: Call,
}

#[derive(Default)]
struct State {
    then: Option<Then>,
    asked: Vec<Asked>,
    open: Vec<UnixStream>,
    stopped: bool,
}

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

pub struct FakeServer {
    dir: tempfile::TempDir,
    shared: Arc<Shared>,
}

impl FakeServer {
    pub fn start() -> FakeServer {
        let dir = tempfile::tempdir().expect("a temporary directory");
        // Clients talk only through a directory that is theirs alone.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))
            .expect("a private directory");
        let listener = UnixListener::bind(dir.path().join("sock")).expect("a socket");
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
        });
        let for_accept = shared.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let mut state = for_accept.state();
                if state.stopped {
                    return;
                }
                if let Ok(clone) = stream.try_clone() {
                    state.open.push(clone);
                }
                drop(state);
                let for_connection = for_accept.clone();
                std::thread::spawn(move || serve(stream, &for_connection));
            }
        });
        FakeServer { dir, shared }
    }

    pub fn path(&self) -> PathBuf {
        self.dir.path().join("sock")
    }

    pub fn endpoint(&self) -> Endpoint {
        Endpoint::Local(self.path())
    }

    /// Closes every connection, as an upgrade's exec does; the next ones
    /// are answered as `then` says.
    pub fn hand_over(&self, then: Then) {
        let mut state = self.shared.state();
        state.then = Some(then);
        for stream in state.open.drain(..) {
            let _ = stream.shutdown(std::net::Shutdown::Both);
        }
        drop(state);
        if then == Then::Vanished {
            self.stop();
            let _ = std::fs::remove_file(self.path());
        }
    }

    /// Waits until `enough` holds of the requests so far; panics past the
    /// [`DEADLINE`].
    pub fn wait_for(&self, what: &str, enough: impl Fn(&[Asked]) -> bool) -> Vec<Asked> {
        let until = Instant::now() + DEADLINE;
        let mut state = self.shared.state();
        while !enough(&state.asked) {
            let left = until.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "the fake server waited in vain for {what}");
            state = self
                .shared
                .changed
                .wait_timeout(state, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        state.asked.clone()
    }

    /// Waits for a request of `method`, before the handover or after it.
    pub fn wait_for_call(&self, method: &str, after_handover: bool) -> Vec<Asked> {
        self.wait_for(method, |asked| {
            asked
                .iter()
                .any(|a| a.call.name() == method && a.after_handover == after_handover)
        })
    }

    /// Every request so far.
    pub fn asked(&self) -> Vec<Asked> {
        self.shared.state().asked.clone()
    }

    /// No more connections are accepted; the accept loop is woken to see it.
    fn stop(&self) {
        self.shared.state().stopped = true;
        let _ = UnixStream::connect(self.path());
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.stop();
        for stream in self.shared.state().open.drain(..) {
            let _ = stream.shutdown(std::net::Shutdown::Both);
        }
    }
}

/// Answers one connection's requests until it closes.
fn serve(stream: UnixStream, shared: &Shared) {
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let Ok(request) = Request::parse(&line) else {
            return;
        };
        let then = shared.state().then;
        let streams = matches!(
            request.call,
            Call::PaneAttach(_) | Call::Subscribe(_) | Call::Events(_)
        );
        let answered = answer(&request, then, &mut writer);
        // Logged once answered (as far as it is before a handover), so
        // that a test that saw it hands over after the answer, not in it.
        let mut state = shared.state();
        state.asked.push(Asked {
            after_handover: then.is_some(),
            call: request.call,
        });
        shared.changed.notify_all();
        drop(state);
        if answered.is_err() {
            return;
        }
        if streams {
            // Frames from the client, or nothing, until it closes.
            let _ = std::io::copy(&mut reader, &mut std::io::sink());
            return;
        }
    }
}

fn answer(request: &Request, then: Option<Then>, out: &mut UnixStream) -> std::io::Result<()> {
    let id = request.id;
    let (pid, upgrades) = match then {
        None => (PID, 0),
        Some(Then::Upgraded) => (PID, 1),
        Some(Then::Crashed) => (PID + 1, 0),
        Some(Then::OtherVersion) => {
            let refusal = WireError::new(ErrorCode::BadVersion, OTHER_VERSION);
            return send(out, &Response::err(Some(id), refusal));
        }
        // Nothing answers once the socket is gone.
        Some(Then::Vanished) => return Ok(()),
    };
    match &request.call {
        Call::Status(_) => send(out, &Response::ok(id, status(pid, upgrades))),
        Call::PaneAttach(attach) => {
            let reply = json!({
                "pane": attach.pane.to_string(),
                "state": "LIVE",
                "offset": 0,
                "rows": attach.rows.unwrap_or(24),
                "cols": attach.cols.unwrap_or(80),
            });
            send(out, &Response::ok(id, reply))?;
            let picture = format!("picture {upgrades}");
            out.write_all(&frame::encode(frame::SNAPSHOT, picture.as_bytes()))
        }
        Call::Subscribe(_) | Call::Events(_) => {
            send(out, &Response::ok(id, json!({})))?;
            out.write_all(format!("{{\"line\":{upgrades}}}\n").as_bytes())
        }
        // A long request: its reply never comes before the handover.
        Call::PaneWait(_) | Call::AgentWait(_) if then.is_none() => Ok(()),
        Call::PaneWait(_) | Call::AgentWait(_) => send(
            out,
            &Response::ok(id, json!({ "met": "exit", "exit_code": 0 })),
        ),
        _ => send(out, &Response::ok(id, json!({}))),
    }
}

fn status(pid: u32, upgrades: u32) -> Value {
    json!({
        "version": "test",
        "protocol": PROTOCOL,
        "pid": pid,
        "socket": "",
        "state_dir": "",
        "uptime_ms": 0,
        "workspaces": 0,
        "tabs": 0,
        "panes": 0,
        "live_panes": 0,
        "faults_enabled": false,
        "snapshot": { "path": "", "writes": 0 },
        "restore": { "note": "", "degraded": false },
        "upgrades": upgrades,
    })
}

fn send(out: &mut UnixStream, response: &Response) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(response).map_err(std::io::Error::other)?;
    line.push(b'\n');
    out.write_all(&line)
}

/// Runs `work` on a thread of its own and gives its result, or fails the
/// test past the [`DEADLINE`]: a client that never gives up must not hang
/// the suite.
pub fn within<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    let (done, result) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(work());
    });
    result
        .recv_timeout(DEADLINE)
        .expect("the client neither finished nor failed in time")
}
