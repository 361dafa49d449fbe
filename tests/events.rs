//! End to end: `ctl events`, a line per change pushed as it happens, and
//! readers that cannot keep up dropped without growing the server.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{TestServer, rss_kib, wait_for};

/// `ctl --json events ARGS…`, its lines arriving on a channel with the
/// moment each was read.
struct Follower {
    child: Child,
    lines: mpsc::Receiver<(Instant, Value)>,
}

impl Follower {
    fn start(server: &TestServer, args: &[&str]) -> Follower {
        let mut child = server
            .command()
            .args(["--json", "ctl", "events"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let value = serde_json::from_str(&line).unwrap_or(Value::String(line));
                if tx.send((Instant::now(), value)).is_err() {
                    break;
                }
            }
        });
        Follower { child, lines }
    }

    /// The next event that `matches`, skipping others.
    fn next(&self, what: &str, matches: impl Fn(&Value) -> bool) -> (Instant, Value) {
        self.find_within(Duration::from_secs(20), matches)
            .unwrap_or_else(|| panic!("no {what} event within 20 s"))
    }

    /// The first event that `matches` within `wait`, skipping others.
    fn find_within(
        &self,
        wait: Duration,
        matches: impl Fn(&Value) -> bool,
    ) -> Option<(Instant, Value)> {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((at, event)) if matches(&event) => return Some((at, event)),
                Ok(_) => {}
                Err(_) => return None,
            }
        }
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The follower's stream is open once a change made now reaches it: a
/// probe pane opened before `ctl events` subscribed goes unheard, so open
/// probes until one is.
fn wait_following(server: &TestServer, follower: &Follower, ws: &str) {
    wait_for(
        "the follower to hear a probe",
        Duration::from_secs(30),
        || {
            let probe = server.ctl_ok(&["new", ws, "--", "sleep", "1000"]);
            let heard = follower.find_within(Duration::from_millis(500), |e| {
                e["event"] == "pane_new" && e["pane"] == probe.as_str()
            });
            server.ctl_ok(&["close", &probe]);
            heard.map(drop)
        },
    );
}

#[test]
fn events_tell_of_new_panes_states_attention_exits_and_closed_panes() {
    let server = TestServer::start();
    let ws = server.workspace("watched", &[]);
    let follower = Follower::start(&server, &[]);
    wait_following(&server, &follower, &ws);

    let pane = server.new_sh(&ws, "read line; exit 3");
    let (_, new) = follower.next("pane_new", |e| {
        e["event"] == "pane_new" && e["pane"] == pane.as_str()
    });
    assert_eq!(new["workspace"], ws.as_str());
    assert!(new["tab"].is_string() && new["at"].is_u64(), "{new}");
    assert_eq!(new["argv"][0], "sh");
    server.ctl_ok(&["notify", "--pane", &pane, "--severity", "warning", "look"]);
    let (_, raised) = follower.next("attention", |e| {
        e["event"] == "attention" && e["pane"] == pane.as_str()
    });
    assert_eq!(raised["attention"], "warning");
    assert_eq!(raised["previous"], "none");
    server.ctl_ok(&["send", &pane, "bye", "--enter"]);
    let (_, exit) = follower.next("exit", |e| e["event"] == "exit");
    assert_eq!(exit["exit_code"], 3);
    assert_eq!(exit["pane"], pane.as_str());
    server.ctl_ok(&["close", &pane]);
    follower.next("pane_closed", |e| {
        e["event"] == "pane_closed" && e["pane"] == pane.as_str()
    });

    // A follower of one pane hears only of it.
    let quiet = server.ctl_ok(&["new", &ws, "--", "sleep", "1000"]);
    let noisy = server.ctl_ok(&["new", &ws, "--", "sleep", "1000"]);
    let one = Follower::start(&server, &["--pane", &quiet]);
    // Its stream is open once a change to its pane reaches it.
    wait_for("the pane follower", Duration::from_secs(20), || {
        server.ctl_ok(&["notify", "--pane", &quiet, "ping"]);
        server.ctl_ok(&["seen", &quiet]);
        one.lines
            .recv_timeout(Duration::from_millis(200))
            .ok()
            .filter(|(_, e)| e["event"] == "attention")
    });
    server.ctl_ok(&["notify", "--pane", &noisy, "--severity", "error", "noise"]);
    server.ctl_ok(&["kill", &quiet]);
    let (_, exit) = one.next("the followed pane's exit", |e| e["event"] == "exit");
    assert_eq!(exit["pane"], quiet.as_str());
    while let Ok((_, event)) = one.lines.try_recv() {
        assert_eq!(event["pane"], quiet.as_str(), "{event}");
    }
    // Following a pane that does not exist is refused at once.
    let out = server.ctl(&["events", "--pane", "nope"]);
    assert_eq!(out.status.code(), Some(1));
}

/// Pushed, not polled: each change reaches the follower as its own line.
/// The time it takes is shown, not asserted: a busy machine decides it.
#[test]
fn every_change_reaches_the_follower_as_it_happens() {
    let server = TestServer::start();
    let ws = server.workspace("fast", &[]);
    let pane = server.ctl_ok(&["new", &ws, "--", "sleep", "1000"]);
    let follower = Follower::start(&server, &["--pane", &pane]);
    wait_for("the follower", Duration::from_secs(20), || {
        server.ctl_ok(&["notify", "--pane", &pane, "ping"]);
        server.ctl_ok(&["seen", &pane]);
        follower.lines.recv_timeout(Duration::from_millis(200)).ok()
    });
    std::thread::sleep(Duration::from_millis(300));
    while follower.lines.try_recv().is_ok() {}
    let mut delays = Vec::new();
    for round in 0..20 {
        let (method, params, attention) = if round % 2 == 0 {
            (
                "notify",
                json!({"pane": pane, "title": "t", "severity": "warning"}),
                "warning",
            )
        } else {
            ("pane.seen", json!({"pane": pane}), "none")
        };
        let asked = Instant::now();
        let answer = server.raw_call(method, params);
        assert!(answer["error"].is_null(), "{answer}");
        let (at, _) = follower.next("attention", |e| {
            e["event"] == "attention" && e["attention"] == attention
        });
        delays.push(at.duration_since(asked));
    }
    delays.sort();
    let median = delays[delays.len() / 2];
    eprintln!(
        "change to event: median {median:?}, worst {:?}",
        delays[delays.len() - 1]
    );
}

/// A connection that asks for events on a socket of its own.
fn raw_events(server: &TestServer) -> UnixStream {
    let mut stream = UnixStream::connect(&server.socket).unwrap();
    let request = json!({"v": "signaltty/2", "id": 1, "method": "events", "params": {}});
    let mut line = serde_json::to_vec(&request).unwrap();
    line.push(b'\n');
    stream.write_all(&line).unwrap();
    stream
}

/// Many attention changes, fast: requests pipelined on one connection.
fn churn(server: &TestServer, pane: &str, changes: usize) {
    let stream = UnixStream::connect(&server.socket).unwrap();
    let mut writer = stream.try_clone().unwrap();
    let pane = pane.to_string();
    let sender = std::thread::spawn(move || {
        for i in 0..changes {
            let (method, params) = if i % 2 == 0 {
                (
                    "notify",
                    json!({"pane": pane, "title": "x", "severity": "warning"}),
                )
            } else {
                ("pane.seen", json!({"pane": pane}))
            };
            let request = json!({"v": "signaltty/2", "id": i, "method": method, "params": params});
            let mut line = serde_json::to_vec(&request).unwrap();
            line.push(b'\n');
            writer.write_all(&line).unwrap();
        }
    });
    let mut replies = BufReader::new(stream);
    for _ in 0..changes {
        let mut reply = String::new();
        replies.read_line(&mut reply).unwrap();
        assert!(!reply.contains("\"error\""), "{reply}");
    }
    sender.join().unwrap();
}

/// The server closed its end of `stream` (whatever is still unread).
fn hung_up(stream: &UnixStream) -> bool {
    use std::os::fd::AsRawFd;
    let mut fd = libc::pollfd {
        fd: stream.as_raw_fd(),
        events: libc::POLLRDHUP,
        revents: 0,
    };
    // SAFETY: poll(2) on one descriptor this test owns, no waiting.
    let ready = unsafe { libc::poll(&mut fd, 1, 0) };
    ready > 0 && fd.revents & (libc::POLLHUP | libc::POLLRDHUP) != 0
}

#[test]
fn a_reader_that_falls_behind_is_dropped_with_a_last_line_and_one_that_never_reads_is_closed() {
    let server = TestServer::start();
    let ws = server.workspace("flood", &[]);
    let pane = server.ctl_ok(&["new", &ws, "--", "sleep", "1000"]);
    let before = rss_kib(server.pid());
    // One reader that never reads, one that reads only after the flood.
    let never = raw_events(&server);
    let late = raw_events(&server);
    let follower = Follower::start(&server, &[]);
    wait_following(&server, &follower, &ws);
    churn(&server, &pane, 6_000);
    let grown = rss_kib(server.pid()).saturating_sub(before);
    eprintln!("server RSS grew {grown} KiB over 6 000 changes");
    assert!(grown < 64 * 1024, "the server grew {grown} KiB");

    // The late reader gets what fitted, then the reason, then the end.
    let mut lines = BufReader::new(late).lines();
    assert!(lines.next().unwrap().unwrap().contains("\"result\""));
    let last = lines.map_while(Result::ok).last().unwrap();
    let dropped: Value = serde_json::from_str(&last).unwrap();
    assert_eq!(dropped["event"], "dropped", "{last}");
    assert!(dropped["reason"].as_str().unwrap().contains("behind"));

    // The reader that never reads is closed once its socket has stayed
    // full for the write stall, seen without reading a byte from it.
    let since = Instant::now();
    wait_for("the silent reader closed", Duration::from_secs(60), || {
        hung_up(&never).then_some(())
    });
    eprintln!(
        "the silent reader was closed {:?} after the flood",
        since.elapsed()
    );

    // The server still serves, and a fresh follower hears the next change.
    let fresh = Follower::start(&server, &[]);
    wait_following(&server, &fresh, &ws);
    drop(follower);
}
