//! signaltty's benchmarks, side by side with the raw PTY and tmux, in one
//! run on one machine: `cargo bench --bench signaltty` (release build).
//!
//! Figures print as a table with ratios to their anchors and are written,
//! with two SVG plots, to `$SIGNALTTY_BENCH_OUT` (default `target/bench`).
//! `SIGNALTTY_BENCH_QUICK=1` shrinks every measurement for a smoke run;
//! `SIGNALTTY_BENCH_ONLY=server` or `=mux` runs one half; `=throughput`,
//! `=memory`, `=detection`, `=restore`, `=slowdisk`, `=upgrade` or `=web`
//! one section.
//! `SIGNALTTY_BENCH_BASELINE=<path to another signaltty>` adds that build
//! to every throughput round and memory case: a before and after under
//! the same load.
//! These are measurements, not tests: nothing here asserts a time.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use serde_json::{Value, json};
use signaltty_persistence::{
    Layout, SNAPSHOT_VERSION, SavedPane, ServerInfo, Snapshot, StateDir, TabRecord, WorkspaceRecord,
};

const BIN: &str = env!("CARGO_BIN_EXE_signaltty");

#[path = "support/hibernate.rs"]
mod hibernate;
#[path = "support/memory.rs"]
mod memory;
#[path = "support/mux.rs"]
mod mux;
#[path = "support/procfs.rs"]
mod procfs;
#[path = "support/slow_disk.rs"]
mod slow_disk;
#[path = "support/throughput.rs"]
mod throughput;
#[path = "support/tmux.rs"]
mod tmux;
#[path = "support/upgrade.rs"]
mod upgrade;
#[path = "support/web.rs"]
mod web;
const ROWS: u16 = 50;
const COLS: u16 = 200;

struct Scale {
    log_mib: usize,
    pane_counts: &'static [usize],
    snapshot_changes: usize,
    idle: Duration,
    keystrokes: usize,
    /// Alternating tmux / signaltty rounds of the multiplexer flood.
    mux_rounds: usize,
    /// Rounds of the throughput floods, each running every system once.
    throughput_rounds: usize,
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --all-targets` runs this
    // binary without it, and must not spend minutes measuring.
    if !std::env::args().any(|a| a == "--bench") {
        eprintln!("signaltty benchmarks: run them with `cargo bench --bench signaltty`");
        return;
    }
    let quick = std::env::var_os("SIGNALTTY_BENCH_QUICK").is_some();
    let scale = if quick {
        Scale {
            log_mib: 8,
            pane_counts: &[0, 10, 50],
            snapshot_changes: 4,
            idle: Duration::from_secs(5),
            keystrokes: 50,
            mux_rounds: 1,
            throughput_rounds: 2,
        }
    } else {
        Scale {
            log_mib: 64,
            pane_counts: &[0, 100, 500],
            snapshot_changes: 10,
            idle: Duration::from_secs(60),
            keystrokes: 300,
            mux_rounds: 3,
            throughput_rounds: 5,
        }
    };
    let out_dir = PathBuf::from(
        std::env::var("SIGNALTTY_BENCH_OUT").unwrap_or_else(|_| "target/bench".into()),
    );
    std::fs::create_dir_all(&out_dir).expect("output dir");
    let work = tempfile::Builder::new()
        .prefix("sttb")
        .tempdir_in("/tmp")
        .expect("temp dir");
    // The servers' sockets live here: a socket's directory must be private.
    std::fs::set_permissions(work.path(), std::fs::Permissions::from_mode(0o700))
        .expect("private temp dir");
    let mut report = Report::default();
    let only = std::env::var("SIGNALTTY_BENCH_ONLY").ok();
    let section: Option<fn(&Scale, &Path, &mut Report)> = match only.as_deref() {
        Some("detection") => Some(|scale, dir, report| detection(dir, scale.idle, report)),
        Some("memory") => {
            Some(|scale, dir, report| memory::memory(scale, dir, tmux::installed(), report))
        }
        Some("slowdisk") => Some(slow_disk::listings),
        Some("restore") => Some(restores),
        Some("events") => Some(|_, dir, report| events(dir, report)),
        Some("hibernate") => Some(|_, dir, report| hibernate::hibernation(dir, report)),
        Some("upgrade") => Some(|_, dir, report| upgrade::upgrades(dir, report)),
        _ => None,
    };
    if let Some(section) = section {
        section(&scale, work.path(), &mut report);
        report.write(&out_dir);
        return;
    }
    let log = work.path().join("colored.log");
    write_coloured_log(&log, scale.log_mib << 20);
    let has_tmux = tmux::installed();
    if only.as_deref() == Some("throughput") {
        throughput::throughput(&scale, &log, work.path(), has_tmux, &mut report);
    } else if only.as_deref() == Some("web") {
        web::web(&scale, &log, work.path(), &mut report);
    } else if only.as_deref() != Some("mux") {
        server_figures(&scale, &log, work.path(), has_tmux, &mut report);
        memory::memory(&scale, work.path(), has_tmux, &mut report);
        detection(work.path(), scale.idle, &mut report);
        slow_disk::listings(&scale, work.path(), &mut report);
        hibernate::hibernation(work.path(), &mut report);
        upgrade::upgrades(work.path(), &mut report);
        web::web(&scale, &log, work.path(), &mut report);
    }
    if only.as_deref().is_none_or(|only| only == "mux") {
        mux::multiplexer(&scale, &log, work.path(), has_tmux, &mut report);
    }

    report.write(&out_dir);
}

/// The server's figures: throughput, latency, snapshots, restore, memory,
/// idleness.
fn server_figures(scale: &Scale, log: &Path, dir: &Path, has_tmux: bool, report: &mut Report) {
    throughput::throughput(scale, log, dir, has_tmux, report);

    eprintln!("keystroke round trip through attach");
    let server = Server::start(dir, "keys");
    report.latency("raw PTY keystroke", keystrokes_raw(scale.keystrokes));
    if has_tmux {
        report.latency("tmux keystroke", keystrokes_tmux(scale.keystrokes));
    }
    report.latency(
        "signaltty keystroke",
        keystrokes_signaltty(&server, scale.keystrokes),
    );
    drop(server);

    events(dir, report);

    for &panes in scale.pane_counts.iter().filter(|&&n| n > 0) {
        eprintln!("snapshot: a structural change with {panes} panes");
        let server = Server::start(dir, &format!("snap{panes}"));
        spawn_idle_panes(&server, panes, &["sleep", "100000"]);
        report.latency(
            &format!("change on disk, {panes} panes"),
            change_to_disk(&server, scale.snapshot_changes),
        );
        report.latency(&format!("one write, {panes} panes"), one_write(dir, panes));
    }

    restores(scale, dir, report);

    for &panes in scale.pane_counts {
        eprintln!("memory with {panes} idle shells");
        let server = Server::start(dir, &format!("mem{panes}"));
        spawn_idle_panes(&server, panes, &["/bin/sh"]);
        report.memory(panes, procfs::rss_kib(server.pid()));
        report.threads(panes, procfs::proc_status(server.pid(), "Threads"));
    }

    let idle_panes = scale.pane_counts[1].max(1);
    eprintln!("idle: {idle_panes} idle shells for {:?}", scale.idle);
    let server = Server::start(dir, "idle");
    spawn_idle_panes(&server, idle_panes, &["/bin/sh"]);
    let (cpu, writes) = idle(&server, scale.idle);
    report.idle(idle_panes, scale.idle, cpu, writes);
    drop(server);
}

/// Agent detection's cost: 50 panes repainting a spinner under an agent's
/// name (their screens read against claude's rules) against the same 50
/// under a name no rules apply to, and 100 idle agent panes.
fn detection(dir: &Path, window: Duration, report: &mut Report) {
    let bin = dir.join("agents");
    std::fs::create_dir_all(&bin).expect("agents dir");
    let screen = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("adapters/tests/screens/claude-working-spinner.txt");
    let spinner = format!(
        "sed 's/$/\\r/' '{}'\ni=0\nwhile :; do i=$((i+1)); printf '\\r\\033[2K✻ Warping… %s (esc to interrupt)' $i; sleep 0.1; done\n",
        screen.display()
    );
    let idle_agent = format!("sed 's/$/\\r/' '{}'\nexec sleep 100000\n", screen.display());
    for (name, body) in [
        ("claude", &spinner),
        ("spinner", &spinner),
        ("codex", &idle_agent),
    ] {
        std::fs::write(bin.join(name), body).expect("stand-in");
    }
    let cpu_of = |label: &str, script: &str, panes: usize| {
        let server = Server::start(dir, label);
        let path = bin.join(script).display().to_string();
        spawn_idle_panes(&server, panes, &["sh", &path]);
        let (cpu, _) = idle(&server, window);
        eprintln!("detection: {label}: {cpu:.2}% of one core");
        cpu
    };
    // Alternating rounds, so that a change in the machine's load during
    // the run weighs on both sides alike; the difference is detection's.
    let (mut agents, mut plain) = (Vec::new(), Vec::new());
    for round in 0..DETECTION_ROUNDS {
        agents.push(cpu_of(&format!("spinning agents {round}"), "claude", 50));
        plain.push(cpu_of(
            &format!("spinning, no agent {round}"),
            "spinner",
            50,
        ));
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let idle_agents = cpu_of("idle agents", "codex", 100);
    report.detection(mean(&agents), mean(&plain), idle_agents, window);
}

/// Rounds of each side of the detection benchmark.
const DETECTION_ROUNDS: usize = 2;

/// Deterministic coloured log lines, like a verbose build.
fn write_coloured_log(path: &Path, bytes: usize) {
    let mut out = String::with_capacity(bytes + 256);
    let mut i: u64 = 0;
    while out.len() < bytes {
        let colour = 31 + (i % 7);
        let _ = writeln!(
            out,
            "\x1b[2m{:>8}\x1b[0m \x1b[{colour}mINFO\x1b[0m compiling crate_{:04} v0.{}.{} \x1b[1m({:>5} ms)\x1b[0m step {i}",
            i * 17,
            i % 1000,
            i % 13,
            i % 29,
            i % 99991
        );
        i += 1;
    }
    out.truncate(bytes);
    std::fs::write(path, out).expect("log");
}

/// A fresh PTY pair of the benchmark's size.
fn open_pty() -> portable_pty::PtyPair {
    native_pty_system()
        .openpty(PtySize {
            rows: ROWS,
            cols: COLS,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("pty")
}

/// A tmux client attached to session `name`, in a PTY of its own.
fn tmux_client(socket: &str, name: &str) -> Viewer {
    Viewer::run(
        &[
            "tmux",
            "-L",
            socket,
            "-f",
            "/dev/null",
            "attach",
            "-t",
            name,
        ],
        &[],
    )
}

/// A PTY running `argv`, its output read and thrown away: a client that
/// keeps up. Dropping it ends the program.
struct Viewer {
    child: Box<dyn portable_pty::Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    seen: mpsc::Receiver<Vec<u8>>,
}

impl Viewer {
    fn run(argv: &[&str], env: &[(&str, &str)]) -> Viewer {
        let pair = open_pty();
        let mut cmd = CommandBuilder::new(argv[0]);
        cmd.args(&argv[1..]);
        cmd.env("TERM", "xterm-256color");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let child = pair.slave.spawn_command(cmd).expect("viewer");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("reader");
        let writer = pair.master.take_writer().expect("writer");
        let (tx, seen) = mpsc::channel();
        std::thread::spawn(move || {
            let _master = pair.master;
            let mut buf = vec![0u8; 64 * 1024];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Viewer {
            child,
            writer,
            seen,
        }
    }

    /// Waits until the output contains `needle`.
    fn wait_for(&self, needle: &[u8], timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut tail: Vec<u8> = Vec::new();
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.seen.recv_timeout(left) {
                Ok(chunk) => {
                    tail.extend_from_slice(&chunk);
                    if tail.windows(needle.len()).any(|w| w == needle) {
                        return true;
                    }
                    let keep = tail.len().saturating_sub(needle.len() + 1024);
                    tail.drain(..keep);
                }
                Err(_) => return false,
            }
        }
        false
    }

    fn drain(&self) {
        while self.seen.try_recv().is_ok() {}
    }

    fn pid(&self) -> u32 {
        self.child.process_id().unwrap_or(0)
    }
}

impl Drop for Viewer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Seconds from creating `go` until the tmux session on `socket` says
/// `done`.
fn time_tmux_flood(socket: &str, go: &Path) -> f64 {
    let start = Instant::now();
    std::fs::write(go, "").expect("go");
    tmux::run(socket, &["wait-for", "done"]);
    start.elapsed().as_secs_f64()
}

/// CPU seconds of a server and its client.
type CpuPair = (f64, f64);

/// Seconds of CPU a process has used.
fn cpu_seconds(pid: u32) -> f64 {
    // SAFETY: sysconf takes a plain integer.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    cpu_ticks(pid) as f64 / hz
}

/// A signaltty server of its own.
struct Server {
    child: Child,
    socket: PathBuf,
    state: PathBuf,
    workspace: String,
    /// The signaltty it runs, and its clients should run.
    bin: String,
}

impl Server {
    fn start(dir: &Path, name: &str) -> Server {
        Self::start_with(dir, name, true)
    }

    fn start_with(dir: &Path, name: &str, with_workspace: bool) -> Server {
        Self::launch(BIN, dir, name, with_workspace, &[])
    }

    /// A server run by another build of signaltty at `bin`.
    fn start_binary(bin: &str, dir: &Path, name: &str, with_workspace: bool) -> Server {
        Self::launch(bin, dir, name, with_workspace, &[])
    }

    /// A server started with extra environment variables.
    fn start_with_env(
        dir: &Path,
        name: &str,
        with_workspace: bool,
        env: &[(&str, &str)],
    ) -> Server {
        Self::launch(BIN, dir, name, with_workspace, env)
    }

    fn launch(
        bin: &str,
        dir: &Path,
        name: &str,
        with_workspace: bool,
        env: &[(&str, &str)],
    ) -> Server {
        let socket = dir.join(format!("{name}.sock"));
        let state = dir.join(format!("{name}.state"));
        let child = Command::new(bin)
            .env("SIGNALTTY_SOCKET", &socket)
            .env("SIGNALTTY_STATE_DIR", &state)
            .env("SIGNALTTY_LOG", "warn")
            .env("SHELL", "/bin/sh")
            .envs(env.iter().copied())
            .args(["up", "--foreground"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("server");
        let mut server = Server {
            child,
            socket,
            state,
            workspace: String::new(),
            bin: bin.to_string(),
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        while server.call("status", json!({})).is_none() {
            assert!(Instant::now() < deadline, "server did not start");
            std::thread::sleep(Duration::from_millis(5));
        }
        if with_workspace {
            let created = server
                .call("workspace.new", json!({"name": "bench", "cwd": "/tmp"}))
                .expect("workspace");
            server.workspace = created["id"].as_str().unwrap_or_default().to_string();
        }
        server
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// One request; `None` on any error.
    fn call(&self, method: &str, params: Value) -> Option<Value> {
        let mut stream = UnixStream::connect(&self.socket).ok()?;
        let request = json!({"v": "signaltty/2", "id": 1, "method": method, "params": params});
        writeln!(stream, "{request}").ok()?;
        let mut line = String::new();
        BufReader::new(stream).read_line(&mut line).ok()?;
        let response: Value = serde_json::from_str(&line).ok()?;
        response.get("result").cloned()
    }

    fn new_pane(&self, argv: &[&str]) -> String {
        self.create_pane(json!({"argv": argv, "rows": ROWS, "cols": COLS}))
    }

    /// A pane of the benchmark's workspace, as `params` (a `pane.new`
    /// request without its workspace) say.
    fn create_pane(&self, mut params: Value) -> String {
        params["workspace"] = json!(self.workspace);
        let created = self.call("pane.new", params).expect("a new pane");
        created["id"].as_str().unwrap_or_default().to_string()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn wait_file(path: &Path, timeout: Duration) {
    let deadline = Instant::now() + timeout;
    while !path.exists() {
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Round trips of one keystroke echoed back by `cat` on a PTY.
fn keystrokes(viewer: &mut Viewer, count: usize) -> Vec<f64> {
    let mut samples = Vec::with_capacity(count);
    for i in 0..count {
        let key = [b'a' + (i % 26) as u8];
        viewer.drain();
        let start = Instant::now();
        viewer.writer.write_all(&key).expect("key");
        viewer.writer.flush().expect("flush");
        if viewer.wait_for(&key, Duration::from_secs(5)) {
            samples.push(start.elapsed().as_secs_f64() * 1000.0);
        }
    }
    samples
}

fn keystrokes_raw(count: usize) -> Vec<f64> {
    let mut viewer = Viewer::run(&["cat"], &[]);
    std::thread::sleep(Duration::from_millis(200));
    keystrokes(&mut viewer, count)
}

fn keystrokes_tmux(count: usize) -> Vec<f64> {
    let socket = format!("sttk{}", std::process::id());
    tmux::session(&socket, "k", COLS, ROWS, "cat");
    let mut viewer = tmux_client(&socket, "k");
    std::thread::sleep(Duration::from_millis(500));
    let samples = keystrokes(&mut viewer, count);
    drop(viewer);
    tmux::kill_server(&socket);
    samples
}

fn keystrokes_signaltty(server: &Server, count: usize) -> Vec<f64> {
    let pane = server.new_pane(&["cat"]);
    let socket = server.socket.display().to_string();
    let mut viewer = Viewer::run(
        &[BIN, "attach", &pane],
        &[("SIGNALTTY_SOCKET", socket.as_str())],
    );
    std::thread::sleep(Duration::from_millis(500));
    let samples = keystrokes(&mut viewer, count);
    drop(viewer);
    server.call("pane.close", json!({"pane": pane}));
    samples
}

/// `count` panes running `argv`, eight to a tab (a tab's layout is a tree
/// of bounded depth).
fn spawn_idle_panes(server: &Server, count: usize, argv: &[&str]) {
    for i in 0..count {
        if i % 8 == 0 {
            server
                .call(
                    "tab.new",
                    json!({"workspace": server.workspace, "argv": argv}),
                )
                .expect("tab");
        } else {
            server.new_pane(argv);
        }
    }
}

/// Milliseconds from a structural change to the file that holds it.
fn change_to_disk(server: &Server, changes: usize) -> Vec<f64> {
    let snapshot = server.state.join("snapshot.json");
    let mut samples = Vec::new();
    for i in 0..changes {
        let on = i % 2 == 0;
        let start = Instant::now();
        server.call(
            "workspace.set",
            json!({"workspace": server.workspace, "auto_resume": on}),
        );
        let needle = format!("\"auto_resume\": {on}");
        let deadline = start + Duration::from_secs(10);
        loop {
            let text = std::fs::read_to_string(&snapshot).unwrap_or_default();
            if text.contains(&needle) {
                samples.push(start.elapsed().as_secs_f64() * 1000.0);
                break;
            }
            if Instant::now() > deadline {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    samples
}

fn events(dir: &Path, report: &mut Report) {
    eprintln!("events: a change to its pushed line");
    let server = Server::start(dir, "events");
    report.latency("change to event", change_to_event(&server, 20));
}

/// Milliseconds from a request that changes a pane's attention to the
/// `attention` line an `events` follower reads (the request's own round
/// trip included).
fn change_to_event(server: &Server, changes: usize) -> Vec<f64> {
    let pane = server.new_pane(&["sleep", "100000"]);
    let mut follower = UnixStream::connect(&server.socket).expect("events socket");
    let request = json!({"v": "signaltty/2", "id": 1, "method": "events", "params": {}});
    writeln!(follower, "{request}").expect("events request");
    let mut lines = BufReader::new(follower).lines();
    lines.next().expect("the events answer").expect("a line");
    (0..changes)
        .map(|i| {
            let (method, params, attention) = if i % 2 == 0 {
                (
                    "notify",
                    json!({"pane": pane, "title": "t", "severity": "warning"}),
                    "warning",
                )
            } else {
                ("pane.seen", json!({"pane": pane}), "none")
            };
            let start = Instant::now();
            server.call(method, params).expect("the change");
            lines
                .by_ref()
                .map_while(Result::ok)
                .filter_map(|l| serde_json::from_str::<Value>(&l).ok())
                .find(|e| e["event"] == "attention" && e["attention"] == attention)
                .expect("the attention event");
            start.elapsed().as_secs_f64() * 1000.0
        })
        .collect()
}

fn synthetic_snapshot(panes: usize) -> Snapshot {
    let per_tab = 8;
    let mut snapshot = Snapshot {
        snapshot_version: SNAPSHOT_VERSION,
        server: ServerInfo::default(),
        workspaces: vec![WorkspaceRecord::new("wbench", "bench")],
        tabs: Vec::new(),
        panes: Vec::new(),
        notifications: Vec::new(),
    };
    snapshot.workspaces[0].cwd = "/tmp".into();
    for t in 0..panes.div_ceil(per_tab) {
        let tab_id = format!("t{t:05}");
        let ids: Vec<String> = (t * per_tab..((t + 1) * per_tab).min(panes))
            .map(|p| format!("p{p:05}"))
            .collect();
        let mut layout = Layout::pane(ids[0].clone());
        for id in &ids[1..] {
            let last = layout
                .pane_ids()
                .last()
                .map(|s| s.to_string())
                .unwrap_or_default();
            let _ = layout.split(&last, id, signaltty_persistence::Direction::Right, 0.5);
        }
        let mut tab = TabRecord::new(tab_id.clone(), "wbench", ids[0].clone());
        tab.layout = layout;
        snapshot.workspaces[0]
            .tabs
            .push(signaltty_types::id::TabId::trusted(tab_id.clone()));
        snapshot.tabs.push(tab);
        for id in ids {
            let mut pane = SavedPane::new(id, "wbench", tab_id.clone());
            pane.argv = vec!["/bin/sh".into()];
            pane.cwd = "/tmp".into();
            pane.running = true;
            snapshot.panes.push(pane);
        }
    }
    snapshot
}

/// Milliseconds for one atomic save of a snapshot with `panes` panes.
fn one_write(dir: &Path, panes: usize) -> Vec<f64> {
    let state = StateDir::open(dir.join(format!("write{panes}"))).expect("state dir");
    let snapshot = synthetic_snapshot(panes);
    (0..10)
        .map(|_| {
            let start = Instant::now();
            state.save(&snapshot).expect("save");
            start.elapsed().as_secs_f64() * 1000.0
        })
        .collect()
}

fn restores(scale: &Scale, dir: &Path, report: &mut Report) {
    for &panes in scale.pane_counts {
        eprintln!("restore with {panes} panes and 64 KiB tails");
        report.restore(panes, restore_time(dir, panes));
    }
}

/// Seconds from start to the first answered `ls`, restoring `panes` panes
/// with 64 KiB tails.
fn restore_time(dir: &Path, panes: usize) -> f64 {
    let name = format!("restore{panes}");
    let state = StateDir::open(dir.join(format!("{name}.state"))).expect("state dir");
    let snapshot = synthetic_snapshot(panes);
    state.save(&snapshot).expect("save");
    let tails = state.tail_store();
    let line = "\x1b[32mok\x1b[0m some restored history line with a little colour in it\n";
    let tail: String = line.repeat(64 * 1024 / line.len());
    for pane in &snapshot.panes {
        tails.write(&pane.id, &tail).expect("tail");
    }
    let start = Instant::now();
    let server = Server::start_with(dir, &name, false);
    let ls = server.call("ls", json!({}));
    let seconds = start.elapsed().as_secs_f64();
    let restored = ls
        .as_ref()
        .and_then(|l| {
            l["workspaces"][0]["tabs"].as_array().map(|t| {
                t.iter()
                    .map(|t| t["panes"].as_array().map_or(0, Vec::len))
                    .sum::<usize>()
            })
        })
        .unwrap_or(0);
    assert_eq!(restored, panes, "every pane restored");
    seconds
}

fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name, which is in parentheses.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = fields.get(11).and_then(|v| v.parse().ok()).unwrap_or(0);
    let stime: u64 = fields.get(12).and_then(|v| v.parse().ok()).unwrap_or(0);
    utime + stime
}

/// CPU percent of the server and the snapshot writes while idle.
fn idle(server: &Server, window: Duration) -> (f64, u64) {
    std::thread::sleep(Duration::from_secs(3));
    let writes = |s: &Server| {
        s.call("status", json!({}))
            .and_then(|v| v["snapshot"]["writes"].as_u64())
            .unwrap_or(0)
    };
    let (ticks, before) = (cpu_ticks(server.pid()), writes(server));
    std::thread::sleep(window);
    let (ticks_after, after) = (cpu_ticks(server.pid()), writes(server));
    // SAFETY: sysconf takes a plain integer.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let cpu = (ticks_after - ticks) as f64 / hz / window.as_secs_f64() * 100.0;
    (cpu, after.saturating_sub(before))
}

fn percentile(samples: &[f64], p: f64) -> f64 {
    if samples.is_empty() {
        return f64::NAN;
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let index = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[index]
}

#[derive(Default)]
struct Report {
    lines: Vec<String>,
    /// MB/s of each system, one sample per round, in round order.
    throughputs: Vec<(String, Vec<f64>)>,
    /// CPU seconds per flood of each signaltty system: server, client.
    flood_cpu: Vec<(String, Vec<f64>, Vec<f64>)>,
    restores: Vec<(usize, f64)>,
    memory: Vec<(usize, u64)>,
    /// Memory per pane and in total, side by side with tmux.
    memory_lines: Vec<String>,
    /// KiB per pane of each case.
    memory_per_pane: Vec<(String, memory::PerPane)>,
    json: serde_json::Map<String, Value>,
}

impl Report {
    /// One round's throughput of `system`.
    fn throughput(&mut self, system: &str, bytes_per_second: f64) {
        let mb = bytes_per_second / 1e6;
        match self.throughputs.iter_mut().find(|(s, _)| s == system) {
            Some((_, samples)) => samples.push(mb),
            None => self.throughputs.push((system.to_string(), vec![mb])),
        }
    }

    /// One round's CPU seconds for a flood through signaltty.
    fn flood_cpu(&mut self, system: &str, server: f64, client: Option<f64>) {
        let at = match self.flood_cpu.iter().position(|(s, _, _)| s == system) {
            Some(at) => at,
            None => {
                self.flood_cpu
                    .push((system.to_string(), Vec::new(), Vec::new()));
                self.flood_cpu.len() - 1
            }
        };
        let (_, servers, clients) = &mut self.flood_cpu[at];
        servers.push(server);
        clients.extend(client);
    }

    fn throughput_samples(&self, system: &str) -> Option<&[f64]> {
        self.throughputs
            .iter()
            .find(|(s, _)| s == system)
            .map(|(_, samples)| samples.as_slice())
    }

    /// `system`'s throughput over `anchor`'s, round by round.
    fn ratios(&self, system: &str, anchor: &str) -> Vec<f64> {
        let (Some(ours), Some(theirs)) = (
            self.throughput_samples(system),
            self.throughput_samples(anchor),
        ) else {
            return Vec::new();
        };
        ours.iter()
            .zip(theirs)
            .map(|(o, t)| o / t)
            .filter(|r| r.is_finite())
            .collect()
    }

    /// Throughput medians, spreads and ratios, into the table and the JSON.
    fn throughput_table(&mut self, out: &mut String) {
        let _ = writeln!(
            out,
            "median MB/s of {} rounds (min-max); ratios are round by round",
            self.throughputs.first().map_or(0, |(_, s)| s.len())
        );
        let mut json = serde_json::Map::new();
        for (system, samples) in &self.throughputs {
            // Like with like: a client costs tmux too.
            let tmux = if system.contains("one client") {
                throughput::TMUX_CLIENT
            } else {
                throughput::TMUX
            };
            let mut line = format!("{system:<34} {:>18}", spread(samples, 1));
            let raw = self.ratios(system, throughput::RAW);
            let vs_tmux = self.ratios(system, tmux);
            if system != throughput::RAW {
                let _ = write!(line, "   {:>17} raw", spread(&raw, 2));
            }
            if system.starts_with("signaltty") && !vs_tmux.is_empty() {
                let _ = write!(line, "   {:>17} tmux", spread(&vs_tmux, 2));
            }
            let relayed = self.ratios(system, throughput::RELAYED);
            if system.contains("one client") && !relayed.is_empty() {
                let _ = write!(line, "   {:>17} relayed", spread(&relayed, 2));
            }
            let _ = writeln!(out, "{line}");
            json.insert(
                system.clone(),
                json!({
                    "MB/s median": percentile(samples, 0.5),
                    "MB/s rounds": samples,
                    "vs raw median": percentile(&raw, 0.5),
                    "vs tmux median": percentile(&vs_tmux, 0.5),
                    "vs relayed median": percentile(&relayed, 0.5),
                }),
            );
        }
        for (system, servers, clients) in &self.flood_cpu {
            let client = if clients.is_empty() {
                String::new()
            } else {
                format!(", client {} s", spread(clients, 2))
            };
            let _ = writeln!(
                out,
                "{system:<34} CPU per flood: server {} s{client}",
                spread(servers, 2)
            );
            json.insert(
                format!("{system} cpu s (server, client)"),
                json!([servers, clients]),
            );
        }
        self.json.insert("throughput".into(), json.into());
    }

    fn latency(&mut self, what: &str, samples_ms: Vec<f64>) {
        let (p50, p99) = (percentile(&samples_ms, 0.5), percentile(&samples_ms, 0.99));
        self.lines.push(format!(
            "{what:<34} p50 {p50:>8.2} ms   p99 {p99:>8.2} ms   ({} samples)",
            samples_ms.len()
        ));
        self.json.insert(format!("{what} p50 ms"), json!(p50));
        self.json.insert(format!("{what} p99 ms"), json!(p99));
    }

    /// Flood-pane throughput of each round, MB/s: tmux's (if any), ours.
    fn mux_rounds(&mut self, rounds: &[(Option<f64>, f64)]) {
        let mut ratios = Vec::new();
        for (i, (tmux, ours)) in rounds.iter().enumerate() {
            let versus = match tmux {
                Some(tmux) => {
                    ratios.push(ours / tmux);
                    format!(
                        "tmux 4 panes + client {tmux:>6.1} MB/s   {:.2}x tmux",
                        ours / tmux
                    )
                }
                None => String::new(),
            };
            self.lines.push(format!(
                "mux flood, round {}: signaltty {ours:>6.1} MB/s   {versus}",
                i + 1
            ));
        }
        let ours: Vec<f64> = rounds.iter().map(|(_, o)| *o).collect();
        let tmux: Vec<f64> = rounds.iter().filter_map(|(t, _)| *t).collect();
        self.json
            .insert("mux flood signaltty MB/s".into(), json!(ours));
        self.json.insert("mux flood tmux MB/s".into(), json!(tmux));
        self.json.insert(
            "mux flood ratio median".into(),
            json!(percentile(&ratios, 0.5)),
        );
    }

    /// CPU seconds (server, client) during one flood of each round:
    /// tmux's (if any), ours.
    fn mux_profile(&mut self, rounds: &[(Option<CpuPair>, CpuPair)]) {
        for (i, (tmux, ours)) in rounds.iter().enumerate() {
            let tmux = tmux
                .map(|(server, client)| format!("tmux server {server:.2} s, client {client:.2} s"))
                .unwrap_or_default();
            self.lines.push(format!(
                "mux flood CPU, round {}: signaltty server {:.2} s, client {:.2} s   {tmux}",
                i + 1,
                ours.0,
                ours.1
            ));
        }
        self.json
            .insert("mux flood cpu s (server, client)".into(), json!(rounds));
    }

    fn mux_idle(&mut self, window: Duration, client: f64, server: f64) {
        self.lines.push(format!(
            "idle multiplexer, 4 panes, {:>3}s: client CPU {client:.2}%, server {server:.2}% of one core",
            window.as_secs()
        ));
        self.json
            .insert("idle mux client cpu %".into(), json!(client));
        self.json
            .insert("idle mux server cpu %".into(), json!(server));
    }

    fn restore(&mut self, panes: usize, seconds: f64) {
        self.restores.push((panes, seconds));
        self.json
            .insert(format!("restore {panes} panes s"), json!(seconds));
    }

    fn memory(&mut self, panes: usize, rss_kib: u64) {
        self.memory.push((panes, rss_kib));
        self.json
            .insert(format!("rss {panes} panes KiB"), json!(rss_kib));
    }

    /// The server's OS threads with `panes` idle shells (design §11: at
    /// most one per pane).
    fn threads(&mut self, panes: usize, threads: u64) {
        self.lines.push(format!(
            "threads, {panes} idle shells: {threads} in the server"
        ));
        self.json
            .insert(format!("threads {panes} panes"), json!(threads));
    }

    fn idle(&mut self, panes: usize, window: Duration, cpu: f64, writes: u64) {
        self.lines.push(format!(
            "idle, {panes} shells, {:>3}s: CPU {cpu:.2}% of one core, {writes} snapshot writes",
            window.as_secs()
        ));
        self.json
            .insert(format!("idle {panes} panes cpu %"), json!(cpu));
        self.json.insert(
            format!("idle {panes} panes writes in {}s", window.as_secs()),
            json!(writes),
        );
    }

    fn upgrades(&mut self, figures: upgrade::Upgrades) {
        self.lines.extend(figures.lines());
        self.json
            .insert(format!("upgrade {} panes", figures.panes()), figures.json());
    }

    fn hibernation(&mut self, figures: hibernate::Hibernated) {
        self.lines.extend(figures.lines());
        let freed = 1.0 - figures.trees_after as f64 / figures.trees_before.max(1) as f64;
        self.json
            .insert("hibernation freed %".into(), json!(freed * 100.0));
        self.json.insert(
            "hibernation server KiB before/after".into(),
            json!([figures.server_before, figures.server_after]),
        );
        self.json
            .insert("hibernation sleep ms".into(), json!(figures.sleep_ms));
        self.json
            .insert("hibernation wake ms".into(), json!(figures.wake_ms));
    }

    /// A flood's MB/s of each round with no client and with a web viewer,
    /// and the bytes the viewer was sent per flood.
    fn web_flood(&mut self, none: &[f64], watched: &[f64], received: usize) {
        let ratios: Vec<f64> = watched.iter().zip(none).map(|(w, n)| w / n).collect();
        self.lines.push(format!(
            "flood with a web viewer vs none     {} (rounds: {})",
            spread(&ratios, 2),
            ratios
                .iter()
                .map(|r| format!("{r:.2}×"))
                .collect::<Vec<_>>()
                .join(" ")
        ));
        self.lines.push(format!(
            "  MB/s with no client {}, with a web viewer {} (sent {:.1} MiB a flood)",
            spread(none, 1),
            spread(watched, 1),
            received as f64 / (1 << 20) as f64
        ));
        self.json.insert("web flood ratio".into(), json!(ratios));
    }

    fn web_rss(&mut self, panes: usize, rss_kib: u64) {
        self.lines.push(format!(
            "web process RSS, {panes} panes listed  {:.1} MiB",
            rss_kib as f64 / 1024.0
        ));
        self.json.insert("web RSS KiB".into(), json!(rss_kib));
    }

    /// `cpu`: the whole server's; `look`: the hibernator's look alone.
    fn hibernation_check(&mut self, panes: usize, window: Duration, cpu: f64, look: f64) {
        self.lines.push(format!(
            "hibernation's idle check, {panes} idle agent panes, {}s: server CPU {cpu:.3}% of one \
             core, of which the look itself {look:.4}%",
            window.as_secs()
        ));
        self.json
            .insert(format!("idle {panes} agent panes cpu %"), json!(cpu));
        self.json
            .insert(format!("hibernator look {panes} panes cpu %"), json!(look));
    }

    fn detection(&mut self, agents: f64, plain: f64, idle: f64, window: Duration) {
        self.lines.push(format!(
            "detection, {DETECTION_ROUNDS}x{:>3}s: 50 spinning agent panes {agents:.2}% of one \
             core, the same without an agent {plain:.2}% (detection {:.2}%); 100 idle agent \
             panes {idle:.2}%",
            window.as_secs(),
            agents - plain
        ));
        self.json
            .insert("spinning agents cpu %".into(), json!(agents));
        self.json
            .insert("spinning non-agents cpu %".into(), json!(plain));
        self.json.insert("idle agents cpu %".into(), json!(idle));
    }

    fn table(&mut self) -> String {
        let mut out = String::from("\n== throughput (cat of coloured text) ==\n");
        self.throughput_table(&mut out);
        out.push_str("\n== latency ==\n");
        for line in &self.lines {
            let _ = writeln!(out, "{line}");
        }
        out.push_str("\n== restore (start to first answered ls) ==\n");
        for (panes, seconds) in &self.restores {
            let _ = writeln!(out, "{panes:>5} panes: {:>8.1} ms", seconds * 1000.0);
        }
        out.push_str("\n== memory (server RSS) ==\n");
        let base = self.memory.first().map(|(_, kib)| *kib).unwrap_or(0);
        for (panes, kib) in &self.memory {
            let per = if *panes > 0 {
                format!(
                    "   {:.0} KiB per pane",
                    (kib.saturating_sub(base)) as f64 / *panes as f64
                )
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "{panes:>5} panes: {:>8.1} MiB{per}",
                *kib as f64 / 1024.0
            );
        }
        if !self.memory_lines.is_empty() {
            out.push_str("\n== memory per pane, side by side with tmux ==\n");
            for line in &self.memory_lines {
                let _ = writeln!(out, "{line}");
            }
        }
        out
    }

    /// Prints the table and writes `results.json` and the plots of what
    /// was measured to `out_dir`.
    fn write(&mut self, out_dir: &Path) {
        print!("{}", self.table());
        let json = serde_json::to_string_pretty(&self.json).unwrap_or_default();
        std::fs::write(out_dir.join("results.json"), json).expect("results.json");
        let plots = [
            (
                "throughput.svg",
                !self.throughputs.is_empty(),
                Self::throughput_svg as fn(&Self) -> String,
            ),
            ("restore.svg", !self.restores.is_empty(), Self::restore_svg),
            (
                "memory.svg",
                !self.memory_per_pane.is_empty(),
                Self::memory_svg,
            ),
        ];
        for (name, measured, plot) in plots {
            if measured {
                std::fs::write(out_dir.join(name), plot(self)).expect("svg");
            }
        }
        eprintln!("wrote {}", out_dir.display());
    }

    fn throughput_svg(&self) -> String {
        let bars: Vec<Bar> = self
            .throughputs
            .iter()
            .map(|(system, samples)| Bar {
                label: system.clone(),
                value: percentile(samples, 0.5),
                range: range(samples),
            })
            .collect();
        bar_chart(
            "Output throughput, cat of coloured text (median MB/s and min-max, higher is better)",
            &bars,
            "MB/s",
        )
    }

    fn restore_svg(&self) -> String {
        let bars: Vec<Bar> = self
            .restores
            .iter()
            .map(|(n, s)| Bar {
                label: format!("{n} panes"),
                value: s * 1000.0,
                range: None,
            })
            .collect();
        bar_chart(
            "Restore: start to first answered ls (ms, lower is better)",
            &bars,
            "ms",
        )
    }
}

/// The smallest and the largest sample.
fn range(samples: &[f64]) -> Option<(f64, f64)> {
    let finite = samples.iter().copied().filter(|v| v.is_finite());
    let min = finite.clone().reduce(f64::min)?;
    let max = finite.reduce(f64::max)?;
    Some((min, max))
}

/// "median (min-max)" of `samples`, with `digits` decimals.
fn spread(samples: &[f64], digits: usize) -> String {
    match range(samples) {
        Some((min, max)) => format!(
            "{:.digits$} ({min:.digits$}-{max:.digits$})",
            percentile(samples, 0.5)
        ),
        None => "-".to_string(),
    }
}

/// One bar of a chart, with the spread it stands for, if any.
struct Bar {
    label: String,
    value: f64,
    range: Option<(f64, f64)>,
}

/// A plain horizontal bar chart; a bar with a range gets a whisker.
fn bar_chart(title: &str, bars: &[Bar], unit: &str) -> String {
    let max = bars
        .iter()
        .flat_map(|b| [b.value, b.range.map_or(0.0, |(_, max)| max)])
        .filter(|v| v.is_finite())
        .fold(0.0_f64, f64::max)
        .max(1e-9);
    // Room for the longest label at about 7 px a character.
    let longest = bars
        .iter()
        .map(|b| b.label.chars().count())
        .max()
        .unwrap_or(0);
    let (left, width, row) = ((longest as f64 * 7.0 + 20.0).max(250.0), 380.0, 28.0);
    let (height, total) = (50.0 + row * bars.len() as f64, left + width + 120.0);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{total}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"13\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"10\" y=\"22\" font-size=\"15\">{title}</text>\n"
    );
    let scale = |v: f64| if v.is_finite() { v / max * width } else { 0.0 };
    for (i, bar) in bars.iter().enumerate() {
        let y = 40.0 + row * i as f64;
        let (label, value) = (&bar.label, bar.value);
        let w = scale(value);
        let mut end = left + w;
        let _ = write!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{label}</text>\
             <rect x=\"{left}\" y=\"{y}\" width=\"{w:.1}\" height=\"18\" fill=\"#4a7ab5\"/>",
            left - 8.0,
            y + 14.0,
        );
        if let Some((min, max)) = bar.range {
            let (x0, x1, mid) = (left + scale(min), left + scale(max), y + 9.0);
            end = end.max(x1);
            let _ = write!(
                svg,
                "<line x1=\"{x0:.1}\" y1=\"{mid}\" x2=\"{x1:.1}\" y2=\"{mid}\" stroke=\"black\"/>\
                 <line x1=\"{x0:.1}\" y1=\"{}\" x2=\"{x0:.1}\" y2=\"{}\" stroke=\"black\"/>\
                 <line x1=\"{x1:.1}\" y1=\"{}\" x2=\"{x1:.1}\" y2=\"{}\" stroke=\"black\"/>",
                y + 4.0,
                y + 14.0,
                y + 4.0,
                y + 14.0,
            );
        }
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"{}\">{value:.1} {unit}</text>",
            end + 6.0,
            y + 14.0
        );
    }
    svg.push_str("</svg>\n");
    svg
}
