//! End to end: nothing a pane prints, nothing typed at a pane that does not
//! read, and nothing a crowd of clients sends can grow the server without
//! bound or keep it from answering.
//!
//! Each flood runs for a few seconds while the test asks `status` over the
//! socket itself (not by starting `ctl`, so the latency measured is the
//! server's) and samples the server's RSS. The bounds: RSS grows by less
//! than 64 MiB, every `status` is answered (its p99 is shown, not
//! asserted: a busy machine decides it; the bench times it), and `ctl
//! kill` of the flooding pane works.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{TestServer, rss_kib, wait_for};

const RSS_GROWTH_LIMIT_KIB: u64 = 64 * 1024;
/// Long enough for any machine under load: past it the server is stuck.
const STATUS_STUCK_AFTER: Duration = Duration::from_secs(10);
const FLOOD_FOR: Duration = Duration::from_secs(3);

/// The floods measure latency on a small machine: one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// A connection that speaks the protocol itself.
struct Conn {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    next_id: u64,
}

impl Conn {
    fn open(server: &TestServer) -> Conn {
        let stream = UnixStream::connect(&server.socket).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        Conn {
            reader: BufReader::new(stream.try_clone().unwrap()),
            writer: stream,
            next_id: 1,
        }
    }

    /// Sends a request and returns the whole response.
    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let request = json!({"v": "signaltty/2", "id": id, "method": method, "params": params});
        let mut line = serde_json::to_vec(&request).unwrap();
        line.push(b'\n');
        self.writer.write_all(&line).unwrap();
        self.response()
    }

    fn response(&mut self) -> Value {
        let mut line = String::new();
        self.reader
            .read_line(&mut line)
            .unwrap_or_else(|e| panic!("no response from the server: {e}"));
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    }
}

/// What the server did while something flooded it.
struct Measured {
    rss_growth_kib: u64,
    status_p99: Duration,
    status_max: Duration,
    samples: usize,
}

impl Measured {
    fn assert_bounded(&self, what: &str) {
        eprintln!(
            "{what}: RSS +{} KiB, status p99 {:?} (max {:?}) over {} requests",
            self.rss_growth_kib, self.status_p99, self.status_max, self.samples
        );
        assert!(
            self.rss_growth_kib < RSS_GROWTH_LIMIT_KIB,
            "{what}: the server grew by {} KiB",
            self.rss_growth_kib
        );
        assert!(
            self.status_max < STATUS_STUCK_AFTER,
            "{what}: a status took {:?}",
            self.status_max
        );
    }
}

/// Asks `status` over and over for `duration`, sampling the server's RSS,
/// against the RSS `baseline` from before the flood.
fn measure(server: &TestServer, baseline: u64, duration: Duration) -> Measured {
    let mut conn = Conn::open(server);
    let mut latencies = Vec::new();
    let mut peak = baseline;
    let end = Instant::now() + duration;
    while Instant::now() < end {
        let asked = Instant::now();
        let response = conn.call("status", json!({}));
        latencies.push(asked.elapsed());
        assert!(response["result"].is_object(), "status failed: {response}");
        peak = peak.max(rss_kib(server.pid()));
        // Paces the samples; nothing waits on it.
        std::thread::sleep(Duration::from_millis(5));
    }
    latencies.sort();
    let p99 = latencies[(latencies.len() * 99).div_ceil(100) - 1];
    Measured {
        rss_growth_kib: peak - baseline,
        status_p99: p99,
        status_max: latencies[latencies.len() - 1],
        samples: latencies.len(),
    }
}

/// A pane printing `script`'s output as fast as it can: bounded, answered,
/// and killed at the end; `flooded` checks that the flood really arrived.
fn output_flood(name: &str, script: &str, flooded: impl Fn(&TestServer, &str) -> bool) {
    output_flood_for(FLOOD_FOR, name, script, flooded);
}

fn output_flood_for(
    duration: Duration,
    name: &str,
    script: &str,
    flooded: impl Fn(&TestServer, &str) -> bool,
) {
    let _one = one_at_a_time();
    let server = TestServer::start();
    let ws = server.workspace(name, &[]);
    let baseline = rss_kib(server.pid());
    let pane = server.new_sh(&ws, script);
    let measured = measure(&server, baseline, duration);
    wait_for(
        &format!("the {name} flood to show"),
        Duration::from_secs(10),
        || flooded(&server, &pane).then_some(()),
    );
    server.ctl_ok(&["kill", &pane, "--signal", "KILL"]);
    server.wait_pane(&pane, "the flooding pane to end", |p| {
        p["state"] == "EXITED"
    });
    measured.assert_bounded(name);
}

fn notifications(server: &TestServer) -> Vec<Value> {
    server.ctl_json(&["notifications"])["notifications"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The flood's notifications were rate-limited: a few passed, the rest was
/// summed up in one that says how many.
fn held_back(server: &TestServer, pane: &str, source: &str) -> bool {
    let list = notifications(server);
    let from_pane: Vec<&Value> = list.iter().filter(|n| n["pane_id"] == pane).collect();
    from_pane.iter().any(|n| {
        n["source"] == source
            && n["body"]
                .as_str()
                .is_some_and(|b| b.contains("more notifications held back"))
    }) && from_pane.len() < 40
}

/// A flood of one kind of notification, `printed` as `printf` writes it.
fn notification_flood(source: &str, printed: &str) {
    let script = format!(r#"yes "$(printf '{printed}')""#);
    output_flood(source, &script, |server, pane| {
        held_back(server, pane, source)
    });
}

#[test]
fn an_osc9_flood_is_rate_limited_and_the_server_stays_bounded() {
    notification_flood("osc9", r"\033]9;hi\007");
}

#[test]
fn an_osc777_flood_is_rate_limited_and_the_server_stays_bounded() {
    notification_flood("osc777", r"\033]777;notify;T;B\007");
}

#[test]
fn an_osc99_flood_is_rate_limited_and_the_server_stays_bounded() {
    notification_flood("osc99", r"\033]99;;hello\033\\");
}

#[test]
fn a_bell_flood_leaves_the_server_bounded() {
    output_flood("bell", r#"yes "$(printf '\007')""#, |server, pane| {
        server
            .pane(pane)
            .is_some_and(|p| p["attention"] == "unread" && p["state"] == "LIVE")
    });
}

#[test]
fn a_title_flood_leaves_the_server_bounded_and_the_title_current() {
    let script = r"seq 1 1000000000 | sed 's/.*/\x1b]0;&\x07/'";
    output_flood("title", script, |server, pane| {
        server.pane(pane).is_some_and(|p| {
            p["title"]
                .as_str()
                .and_then(|t| t.parse::<u64>().ok())
                .is_some_and(|n| n > 10_000)
        })
    });
}

#[test]
fn terminal_queries_from_a_program_that_never_reads_stay_bounded() {
    // Each query is answered through the pane's input, which `yes` never
    // reads; in raw mode the terminal keeps what it is sent instead of
    // dropping it at a full line, so the answers back up into the server.
    // They grow slowly, so this flood lasts longer.
    let script = r#"stty raw -echo; yes "$(printf '\033[6n\033[c')""#;
    output_flood_for(Duration::from_secs(6), "queries", script, |server, pane| {
        server.pane(pane).is_some_and(|p| p["state"] == "LIVE")
    });
}

/// A pane whose program is stopped and so reads nothing: `cat` in raw
/// mode, which would swallow anything once continued.
fn stopped_reader(server: &TestServer, ws: &str) -> String {
    let script = "stty raw -echo; echo reading; exec cat >/dev/null";
    let pane = server.new_sh(ws, script);
    server.wait_output(&pane, "reading");
    server.ctl_ok(&["kill", &pane, "--signal", "STOP"]);
    pane
}

#[test]
fn input_to_a_pane_that_does_not_read_is_bounded_and_send_answers_busy() {
    const TEXT: usize = 256 * 1024;
    let _one = one_at_a_time();
    let server = TestServer::start();
    let ws = server.workspace("input", &[]);
    let baseline = rss_kib(server.pid());
    let pane = stopped_reader(&server, &ws);

    let stop = Arc::new(AtomicBool::new(false));
    let accepted = Arc::new(AtomicU64::new(0));
    let busy = Arc::new(Mutex::new(Vec::<String>::new()));
    let senders: Vec<_> = (0..4)
        .map(|_| {
            let mut conn = Conn::open(&server);
            let (stop, accepted, busy, pane) =
                (stop.clone(), accepted.clone(), busy.clone(), pane.clone());
            std::thread::spawn(move || {
                let text = "x".repeat(TEXT);
                while !stop.load(Ordering::SeqCst) {
                    let response = conn.call("pane.send", json!({"pane": pane, "text": text}));
                    if response["result"].is_object() {
                        accepted.fetch_add(TEXT as u64, Ordering::SeqCst);
                    } else {
                        assert_eq!(response["error"]["code"], "BUSY", "{response}");
                        let message = response["error"]["message"].as_str().unwrap();
                        busy.lock().unwrap().push(message.to_string());
                    }
                }
            })
        })
        .collect();
    // Long enough for the send deadline to pass.
    let measured = measure(&server, baseline, Duration::from_secs(6));
    let message = wait_for("a BUSY answer", Duration::from_secs(15), || {
        busy.lock().unwrap().first().cloned()
    });
    assert!(
        message.contains("not reading its input") && message.contains(&pane),
        "{message}"
    );
    let queued = accepted.load(Ordering::SeqCst);
    assert!(
        queued <= 2 * 1024 * 1024,
        "{queued} bytes were taken for a program that reads nothing"
    );
    measured.assert_bounded("input to a stopped pane");

    // Once the program reads again, so does the server.
    server.ctl_ok(&["kill", &pane, "--signal", "CONT"]);
    wait_for("input taken again", Duration::from_secs(15), || {
        (accepted.load(Ordering::SeqCst) > queued + 4 * TEXT as u64).then_some(())
    });
    stop.store(true, Ordering::SeqCst);
    for sender in senders {
        sender.join().unwrap();
    }
    server.ctl_ok(&["kill", &pane, "--signal", "KILL"]);
    server.wait_pane(&pane, "the pane to end", |p| p["state"] == "EXITED");
}

/// An attached client's end: the attach request answered, everything the
/// server sends after it read and thrown away.
fn attach_raw(server: &TestServer, pane: &str) -> UnixStream {
    let stream = UnixStream::connect(&server.socket).unwrap();
    let mut writer = stream.try_clone().unwrap();
    let request =
        json!({"v": "signaltty/2", "id": 1, "method": "pane.attach", "params": {"pane": pane}});
    writeln!(writer, "{request}").unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut reply = String::new();
    reader.read_line(&mut reply).unwrap();
    assert!(reply.contains("\"result\""), "{reply}");
    std::thread::spawn(move || {
        let mut sink = [0u8; 65536];
        while matches!(reader.read(&mut sink), Ok(n) if n > 0) {}
    });
    stream
}

#[test]
fn an_attached_client_typing_at_a_pane_that_does_not_read_is_held_back() {
    const FRAME: usize = 64 * 1024;
    let _one = one_at_a_time();
    let server = TestServer::start();
    let ws = server.workspace("typing", &[]);
    let baseline = rss_kib(server.pid());
    let pane = stopped_reader(&server, &ws);
    let stream = attach_raw(&server, &pane);

    let written = Arc::new(AtomicU64::new(0));
    let typist = {
        let mut stream = stream.try_clone().unwrap();
        let written = written.clone();
        std::thread::spawn(move || {
            let mut frame = vec![11u8];
            frame.extend_from_slice(&(FRAME as u32).to_be_bytes());
            frame.extend(std::iter::repeat_n(b'k', FRAME));
            // Blocks once the server stops reading; ends when the test
            // shuts the socket.
            while stream.write_all(&frame).is_ok() {
                written.fetch_add(FRAME as u64, Ordering::SeqCst);
            }
        })
    };
    let measured = measure(&server, baseline, FLOOD_FOR);
    let plateau = wait_for(
        "the server to stop reading",
        Duration::from_secs(15),
        || {
            let before = written.load(Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(500));
            let after = written.load(Ordering::SeqCst);
            (before == after).then_some(after)
        },
    );
    // The pane's queue, one frame in hand, and the socket's buffers.
    assert!(
        plateau < 4 * 1024 * 1024,
        "{plateau} bytes were taken for a program that reads nothing"
    );
    measured.assert_bounded("typing at a stopped pane");

    server.ctl_ok(&["kill", &pane, "--signal", "CONT"]);
    wait_for("typing taken again", Duration::from_secs(15), || {
        (written.load(Ordering::SeqCst) > plateau + 8 * 1024 * 1024).then_some(())
    });
    stream.shutdown(std::net::Shutdown::Both).unwrap();
    typist.join().unwrap();
    server.ctl_ok(&["kill", &pane, "--signal", "KILL"]);
    server.wait_pane(&pane, "the pane to end", |p| p["state"] == "EXITED");
}

/// Lets this process open `wanted` descriptors, as far as the hard limit
/// allows; returns whether it does.
fn allow_open_files(wanted: u64) -> bool {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit with a struct we own.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return false;
        }
        if limit.rlim_cur < wanted {
            limit.rlim_cur = limit.rlim_max.min(wanted);
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
    limit.rlim_cur >= wanted
}

#[test]
fn connections_are_capped_and_the_refused_client_is_told_why() {
    const CAP: usize = 1024;
    let _one = one_at_a_time();
    if !allow_open_files(CAP as u64 + 200) {
        eprintln!("skipped: cannot open {CAP} descriptors here");
        return;
    }
    let server = TestServer::start();
    let baseline = rss_kib(server.pid());
    let mut open: Vec<UnixStream> = (0..CAP)
        .map(|_| UnixStream::connect(&server.socket).unwrap())
        .collect();
    let refused = UnixStream::connect(&server.socket).unwrap();
    refused
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut line = String::new();
    BufReader::new(&refused).read_line(&mut line).unwrap();
    let response: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(response["error"]["code"], "BUSY", "{response}");
    assert!(
        response["error"]["message"]
            .as_str()
            .unwrap()
            .contains("1024 connections"),
        "{response}"
    );
    let out = server.ctl(&["status"]);
    assert_eq!(out.status.code(), Some(4), "BUSY: try again later");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("1024 connections"), "{stderr}");
    let grown = rss_kib(server.pid()) - baseline;
    assert!(
        grown < RSS_GROWTH_LIMIT_KIB,
        "{CAP} idle connections took {grown} KiB"
    );

    open.truncate(CAP - 10);
    wait_for("room for a client again", Duration::from_secs(10), || {
        server.ctl(&["status"]).status.success().then_some(())
    });
}

/// Writes `line` bytes without a newline to every stream, from one thread
/// (a thread per client would load the machine, and skew the measure),
/// until each has taken them all or been closed.
fn push_unfinished_lines(streams: &[UnixStream], line: usize) {
    let chunk = vec![b'x'; 64 * 1024];
    let mut sent = vec![0; streams.len()];
    let mut open = vec![true; streams.len()];
    for stream in streams {
        stream.set_nonblocking(true).unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        let mut progress = false;
        for (i, mut stream) in streams.iter().enumerate() {
            if !open[i] || sent[i] >= line {
                continue;
            }
            match stream.write(&chunk) {
                Ok(n) => {
                    sent[i] += n;
                    progress = true;
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(_) => open[i] = false,
            }
        }
        if (0..streams.len()).all(|i| !open[i] || sent[i] >= line) {
            break;
        }
        if !progress {
            // Every socket is full: give the server a moment to read.
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    for stream in streams {
        stream.set_nonblocking(false).unwrap();
    }
}

#[test]
fn unfinished_requests_of_all_clients_together_are_bounded() {
    const LINE: usize = 15 * 1024 * 1024;
    const CLIENTS: usize = 20;
    let _one = one_at_a_time();
    let server = TestServer::start();
    let baseline = rss_kib(server.pid());
    let streams: Vec<UnixStream> = (0..CLIENTS)
        .map(|_| UnixStream::connect(&server.socket).unwrap())
        .collect();
    let writer = {
        let streams: Vec<UnixStream> = streams.iter().map(|s| s.try_clone().unwrap()).collect();
        std::thread::spawn(move || push_unfinished_lines(&streams, LINE))
    };
    let measured = measure(&server, baseline, FLOOD_FOR);
    writer.join().unwrap();
    let mut refused = 0;
    for stream in &streams {
        stream
            .set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        let mut line = String::new();
        if BufReader::new(stream).read_line(&mut line).is_ok() && !line.is_empty() {
            let response: Value = serde_json::from_str(&line).unwrap();
            assert_eq!(response["error"]["code"], "BUSY", "{response}");
            refused += 1;
        }
    }
    // 32 MiB are held for all clients: two such lines at most.
    assert!(
        refused >= CLIENTS - 2,
        "only {refused} of {CLIENTS} refused"
    );
    measured.assert_bounded("unfinished requests");
    // Which flood clients survived is up to the race between them, so the
    // pool is filled again by two known lines: then a large request is
    // refused with the reason, and a small one still goes through.
    drop(streams);
    let holders = hold_the_whole_pool(&server, LINE);
    let large = "x".repeat(64 * 1024);
    let out = server.ctl(&["send", "nopane", &large]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unfinished requests"), "{stderr}");
    server.ctl_ok(&["status"]);
    // Their bytes come back when they go.
    drop(holders);
    wait_for("the pool given back", Duration::from_secs(10), || {
        let out = server.ctl(&["send", "nopane", &large]);
        String::from_utf8_lossy(&out.stderr)
            .contains("no pane")
            .then_some(())
    });
    let mut conn = Conn::open(&server);
    assert!(conn.call("status", json!({}))["result"].is_object());
}

/// Two connections each holding an unfinished `line` bytes long (over 8
/// MiB, so each holds 16 MiB): the whole shared pool. Tried again until
/// neither is refused, as the bytes of clients that just went may not be
/// given back yet.
fn hold_the_whole_pool(server: &TestServer, line: usize) -> Vec<UnixStream> {
    let chunk = vec![b'x'; line];
    wait_for(
        "two lines holding the pool",
        Duration::from_secs(30),
        || {
            let mut holders = Vec::new();
            for _ in 0..2 {
                let mut stream = UnixStream::connect(&server.socket).ok()?;
                stream.write_all(&chunk).ok()?;
                holders.push(stream);
            }
            // A refused holder is told so at once; one holding says nothing.
            let refused = holders.iter().any(|stream| {
                let _ = stream.set_read_timeout(Some(Duration::from_millis(300)));
                let mut line = String::new();
                BufReader::new(stream)
                    .read_line(&mut line)
                    .is_ok_and(|n| n > 0)
            });
            (!refused).then_some(holders)
        },
    )
}
