//! Listings while the snapshot is being written to a slow disk: every
//! fsync takes a second (`SIGNALTTY_FAULT_FSYNC_MS`, a fault the server
//! honours only with `SIGNALTTY_ENABLE_FAULTS=1`), changes keep the writer
//! busy, and each `ls` is timed over the socket, from the request's first
//! byte to the reply's last. A module of the harness (`signaltty.rs`).

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Report, Scale, Server, spawn_idle_panes};

/// How many listings are timed.
const LISTINGS: usize = 300;
/// The pause between two listings, and between two changes.
const LISTING_GAP: Duration = Duration::from_millis(10);
const CHANGE_GAP: Duration = Duration::from_millis(50);

pub fn listings(scale: &Scale, dir: &Path, report: &mut Report) {
    let panes = scale.pane_counts.iter().copied().max().unwrap_or(0);
    eprintln!("ls with {panes} panes while saves take 1 s per fsync");
    let server = Server::start_with_env(
        dir,
        "slowdisk",
        true,
        &[
            ("SIGNALTTY_ENABLE_FAULTS", "1"),
            ("SIGNALTTY_FAULT_FSYNC_MS", "1000"),
        ],
    );
    spawn_idle_panes(&server, panes, &["sleep", "100000"]);
    let writes = |server: &Server| {
        server
            .call("status", json!({}))
            .and_then(|s| s["snapshot"]["writes"].as_u64())
            .unwrap_or(0)
    };
    // A save has finished: from here on the writer is never idle for long.
    let deadline = Instant::now() + Duration::from_secs(120);
    while writes(&server) == 0 {
        assert!(Instant::now() < deadline, "no snapshot was ever written");
        std::thread::sleep(Duration::from_millis(100));
    }
    let stop = Arc::new(AtomicBool::new(false));
    let changer = keep_changing(&server, stop.clone());
    // At least LISTINGS, and until two saves have finished: one of them
    // (two seconds of fsync at least) wholly while the listings ran.
    let before = writes(&server);
    let mut samples = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(120);
    while samples.len() < LISTINGS || writes(&server) < before + 2 {
        assert!(Instant::now() < deadline, "the saves never finished");
        samples.extend(time_listings(&server, LISTINGS / 10));
    }
    let saves = writes(&server).saturating_sub(before);
    stop.store(true, Ordering::Relaxed);
    let _ = changer.join();
    let worst = samples.iter().copied().fold(0.0, f64::max);
    report.latency(&format!("ls, {panes} panes, 1 s per fsync"), samples);
    report.lines.push(format!(
        "{:<34} worst {worst:.0} ms; {saves} saves finished meanwhile",
        ""
    ));
}

/// A workspace change every [`CHANGE_GAP`] until `stop`: each asks for a
/// save, so one is always due or under way.
fn keep_changing(server: &Server, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<()> {
    let socket = server.socket.clone();
    let workspace = server.workspace.clone();
    std::thread::spawn(move || {
        let Ok(stream) = UnixStream::connect(&socket) else {
            return;
        };
        let mut connection = Connection::new(stream);
        let mut on = false;
        while !stop.load(Ordering::Relaxed) {
            on = !on;
            let params = json!({"workspace": workspace, "auto_resume": on});
            if !connection.call("workspace.set", params) {
                return;
            }
            std::thread::sleep(CHANGE_GAP);
        }
    })
}

/// Milliseconds of each of `count` `ls` round trips over one connection,
/// one due every [`LISTING_GAP`] and timed from when it was due: a stall
/// counts for every listing it holds back, not only for the one waiting.
fn time_listings(server: &Server, count: usize) -> Vec<f64> {
    let stream = UnixStream::connect(&server.socket).expect("connect");
    let mut connection = Connection::new(stream);
    let start = Instant::now();
    (0..count)
        .map(|i| {
            let due = start + LISTING_GAP * i as u32;
            if let Some(early) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(early);
            }
            assert!(connection.call("ls", json!({})), "ls answered");
            due.elapsed().as_secs_f64() * 1000.0
        })
        .collect()
}

/// One connection carrying request after request.
struct Connection {
    writer: UnixStream,
    reader: BufReader<UnixStream>,
    next_id: u64,
}

impl Connection {
    fn new(stream: UnixStream) -> Connection {
        let reader = BufReader::new(stream.try_clone().expect("clone the socket"));
        Connection {
            writer: stream,
            reader,
            next_id: 1,
        }
    }

    /// Whether the request succeeded. The reply is not parsed: the time
    /// measured is the server's and the socket's, not this client's.
    fn call(&mut self, method: &str, params: Value) -> bool {
        let id = self.next_id;
        self.next_id += 1;
        let request = json!({"v": "signaltty/2", "id": id, "method": method, "params": params});
        let mut line = String::new();
        writeln!(self.writer, "{request}").is_ok()
            && self.reader.read_line(&mut line).is_ok()
            && line.contains("\"result\":")
    }
}
