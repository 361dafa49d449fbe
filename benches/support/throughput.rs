//! Output throughput, side by side: `cat` of the coloured log into a bare
//! PTY, into a signaltty pane and into a tmux pane, each with no client and
//! with one attached client. A module of the harness (`signaltty.rs`),
//! whose helpers it uses.
//!
//! One run swings widely on a shared machine (the raw PTY alone from 46 to
//! 96 MB/s), so the systems take turns within each round and the report
//! gives each one's median and spread over the rounds, and its ratio to the
//! raw PTY and to tmux round by round.

use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use portable_pty::CommandBuilder;
use serde_json::json;
use signaltty_screen::{Screen, Size};

use super::{
    COLS, ROWS, Report, Scale, Server, Viewer, cpu_seconds, open_pty, time_tmux_flood, tmux,
    tmux_client, wait_file,
};

/// The systems in the order each round runs them.
pub(super) const RAW: &str = "raw PTY";
/// The raw PTY's output copied into a second PTY as it is read: what any
/// client that writes every byte into a terminal (`attach`) costs at least.
pub(super) const RELAYED: &str = "raw PTY, relayed to a 2nd";
/// The raw PTY's output parsed by signaltty's screen on a second thread as
/// it is read: the PTY and the parse with nothing of the server around
/// them, the most a server with this screen could reach here.
pub(super) const PARSED: &str = "raw PTY, parsed on a 2nd thread";
pub(super) const OURS: &str = "signaltty, no client";
pub(super) const TMUX: &str = "tmux, no client";
pub(super) const OURS_CLIENT: &str = "signaltty, one client";
pub(super) const TMUX_CLIENT: &str = "tmux, one client";

pub(super) fn throughput(
    scale: &Scale,
    log: &Path,
    dir: &Path,
    has_tmux: bool,
    report: &mut Report,
) {
    eprintln!(
        "throughput: {} MiB of coloured text, {}x{}, {} alternating rounds",
        scale.log_mib, COLS, ROWS, scale.throughput_rounds
    );
    let bytes = (scale.log_mib << 20) as f64;
    let server = Server::start(dir, "tp");
    let baseline = std::env::var(BASELINE_VAR)
        .ok()
        .map(|bin| Server::start_binary(&bin, dir, "tpbase", true));
    for round in 1..=scale.throughput_rounds {
        eprintln!("throughput round {round}");
        report.throughput(RAW, bytes / raw_pty_cat(log, Consumer::None));
        report.throughput(RELAYED, bytes / raw_pty_cat(log, Consumer::Relay));
        report.throughput(PARSED, bytes / raw_pty_cat(log, Consumer::Parse));
        for attached in [false, true] {
            let (name, tmux_name) = if attached {
                (OURS_CLIENT, TMUX_CLIENT)
            } else {
                (OURS, TMUX)
            };
            let mut systems = vec![(name.to_string(), &server)];
            if let Some(baseline) = &baseline {
                systems.push((format!("{name} ({BASELINE})"), baseline));
            }
            for (name, server) in systems {
                let flood = signaltty_cat(server, log, attached);
                report.throughput(&name, bytes / flood.seconds);
                report.flood_cpu(&name, flood.server_cpu, flood.client_cpu);
            }
            if has_tmux {
                report.throughput(tmux_name, bytes / tmux_cat(log, dir, attached));
            }
        }
    }
}

/// Names another build of signaltty to measure in the same rounds.
pub(super) const BASELINE_VAR: &str = "SIGNALTTY_BENCH_BASELINE";
/// How the baseline's rows are marked.
const BASELINE: &str = "baseline";

/// What is done with the raw PTY's output besides reading it.
#[derive(Clone, Copy)]
enum Consumer {
    None,
    /// Written into a second PTY in raw mode (as `attach` writes into its
    /// terminal); the time runs until a reader has drained all of it.
    Relay,
    /// Fed to a [`Screen`] on a thread of its own, up to four reads behind
    /// (as the server's pane actor takes four chunks in flight); the time
    /// runs until it has parsed all of it.
    Parse,
}

/// Seconds for `cat` of the log into a bare PTY read with 64 KiB reads,
/// and whatever `consumer` does with them.
fn raw_pty_cat(log: &Path, consumer: Consumer) -> f64 {
    let pair = open_pty();
    let mut relay = matches!(consumer, Consumer::Relay).then(Relay::open);
    let parser = matches!(consumer, Consumer::Parse).then(Parser::start);
    let mut cmd = CommandBuilder::new("cat");
    cmd.arg(log);
    let start = Instant::now();
    let mut child = pair.slave.spawn_command(cmd).expect("cat");
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().expect("reader");
    let mut buf = vec![0u8; 64 * 1024];
    while let Ok(n @ 1..) = reader.read(&mut buf) {
        if let Some(relay) = &mut relay {
            relay.write(&buf[..n]);
        }
        if let Some(parser) = &parser {
            parser.feed(&buf[..n]);
        }
    }
    if let Some(relay) = &relay {
        relay.wait_drained();
    }
    if let Some(parser) = parser {
        parser.finish();
    }
    let seconds = start.elapsed().as_secs_f64();
    let _ = child.wait();
    seconds
}

/// A [`Screen`] the size of the benchmark's panes, with the server's
/// scrollback, parsing on a thread of its own.
struct Parser {
    chunks: std::sync::mpsc::SyncSender<Vec<u8>>,
    thread: std::thread::JoinHandle<()>,
}

impl Parser {
    fn start() -> Parser {
        let (chunks, received) = std::sync::mpsc::sync_channel::<Vec<u8>>(4);
        let thread = std::thread::spawn(move || {
            let size = Size {
                rows: ROWS,
                cols: COLS,
            };
            // The server's scrollback (`SCROLLBACK_LINES`).
            let mut screen = Screen::new(size, 2_000);
            let mut events = Vec::new();
            for chunk in received {
                screen.feed(&chunk, &mut events);
                events.clear();
            }
        });
        Parser { chunks, thread }
    }

    fn feed(&self, bytes: &[u8]) {
        self.chunks.send(bytes.to_vec()).expect("the parser");
    }

    fn finish(self) {
        drop(self.chunks);
        self.thread.join().expect("the parser");
    }
}

/// A second PTY in raw mode, drained by a thread of its own.
struct Relay {
    terminal: std::fs::File,
    written: usize,
    drained: Arc<AtomicUsize>,
    _pty: portable_pty::PtyPair,
}

impl Relay {
    fn open() -> Relay {
        let pty = open_pty();
        let tty = pty.master.tty_name().expect("the second PTY's name");
        let terminal = std::fs::OpenOptions::new()
            .write(true)
            .open(tty)
            .expect("the second PTY");
        raw_mode(&terminal);
        let drained = Arc::new(AtomicUsize::new(0));
        let mut drain = pty.master.try_clone_reader().expect("reader");
        let counter = drained.clone();
        std::thread::spawn(move || {
            let mut buf = vec![0u8; 64 * 1024];
            while let Ok(n @ 1..) = drain.read(&mut buf) {
                counter.fetch_add(n, Ordering::SeqCst);
            }
        });
        Relay {
            terminal,
            written: 0,
            drained,
            _pty: pty,
        }
    }

    fn write(&mut self, bytes: &[u8]) {
        self.terminal.write_all(bytes).expect("relay");
        self.written += bytes.len();
    }

    fn wait_drained(&self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while self.drained.load(Ordering::SeqCst) < self.written {
            assert!(
                Instant::now() < deadline,
                "the second PTY gave back {} of {} bytes",
                self.drained.load(Ordering::SeqCst),
                self.written
            );
            std::thread::sleep(Duration::from_micros(100));
        }
    }
}

/// No line discipline on output, as a client in raw mode has it.
fn raw_mode(terminal: &std::fs::File) {
    // SAFETY: a termios filled by tcgetattr for an open descriptor.
    unsafe {
        let mut termios: libc::termios = std::mem::zeroed();
        assert_eq!(libc::tcgetattr(terminal.as_raw_fd(), &mut termios), 0);
        libc::cfmakeraw(&mut termios);
        assert_eq!(
            libc::tcsetattr(terminal.as_raw_fd(), libc::TCSANOW, &termios),
            0
        );
    }
}

fn tmux_cat(log: &Path, dir: &Path, attached: bool) -> f64 {
    let socket = format!("sttb{}", std::process::id());
    let go = dir.join("tmux.go");
    let _ = std::fs::remove_file(&go);
    let script = format!(
        "while [ ! -e '{}' ]; do sleep 0.01; done; cat '{}'; tmux -L {socket} wait-for -S done",
        go.display(),
        log.display()
    );
    if !tmux::session(&socket, "b", COLS, ROWS, &script) {
        return f64::NAN;
    }
    let viewer = attached.then(|| {
        let viewer = tmux_client(&socket, "b");
        std::thread::sleep(Duration::from_millis(300));
        viewer
    });
    let seconds = time_tmux_flood(&socket, &go);
    drop(viewer);
    tmux::kill_server(&socket);
    seconds
}

/// One flood through signaltty: its time, and the CPU the server and the
/// attached client (if any) spent on it.
pub(super) struct Flood {
    pub(super) seconds: f64,
    pub(super) server_cpu: f64,
    pub(super) client_cpu: Option<f64>,
}

fn signaltty_cat(server: &Server, log: &Path, attached: bool) -> Flood {
    flood_watched(server, log, &format!("attached-{attached}"), |pane| {
        attached.then(|| {
            let socket = server.socket.display().to_string();
            let viewer = Viewer::run(
                &[&server.bin, "attach", pane],
                &[("SIGNALTTY_SOCKET", socket.as_str())],
            );
            std::thread::sleep(Duration::from_millis(300));
            let pid = viewer.pid();
            (viewer, pid)
        })
    })
}

/// `cat` of `log` in a new pane, timed, while what `watch` starts on the
/// pane (if anything: a client and its pid) watches it; `tag` keeps its
/// marker files apart from another flood's.
pub(super) fn flood_watched<W>(
    server: &Server,
    log: &Path,
    tag: &str,
    watch: impl FnOnce(&str) -> Option<(W, u32)>,
) -> Flood {
    let dir = server.socket.parent().unwrap_or(Path::new("/tmp"));
    let go = dir.join(format!("stt-go-{tag}"));
    let done = dir.join(format!("stt-done-{tag}"));
    let _ = std::fs::remove_file(&go);
    let _ = std::fs::remove_file(&done);
    let script = format!(
        "while [ ! -e '{}' ]; do sleep 0.01; done; cat '{}'; touch '{}'; sleep 100000",
        go.display(),
        log.display(),
        done.display()
    );
    let pane = server.new_pane(&["sh", "-c", &script]);
    let watcher = watch(&pane);
    let server_before = cpu_seconds(server.pid());
    let client_before = watcher.as_ref().map(|(_, pid)| cpu_seconds(*pid));
    let start = Instant::now();
    std::fs::write(&go, "").expect("go");
    wait_file(&done, Duration::from_secs(600));
    let seconds = start.elapsed().as_secs_f64();
    let client_cpu = watcher
        .as_ref()
        .zip(client_before)
        .map(|((_, pid), before)| cpu_seconds(*pid) - before);
    let flood = Flood {
        seconds,
        server_cpu: cpu_seconds(server.pid()) - server_before,
        client_cpu,
    };
    drop(watcher);
    server.call("pane.close", json!({"pane": pane}));
    flood
}
