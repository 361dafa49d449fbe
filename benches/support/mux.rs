//! The multiplexer's figures, side by side with tmux: four panes on
//! screen, one of them `cat`ting the coloured log. A module of the
//! harness (`signaltty.rs`), whose helpers it uses.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;

use super::{
    BIN, COLS, ROWS, Report, Scale, Server, Viewer, cpu_seconds, cpu_ticks, time_tmux_flood, tmux,
    tmux_client, wait_file,
};

/// A tmux window of four panes (`flood`, cat, two idle) with a client on
/// it, the `cat` pane focused.
fn tmux_four_panes(socket: &str, flood: &str) -> Viewer {
    assert!(
        tmux::session(socket, "m", COLS, ROWS, flood),
        "tmux session"
    );
    for args in [
        &["split-window", "-h", "-t", "m:0.0", "cat"][..],
        &["split-window", "-v", "-t", "m:0.0", "sleep 100000"],
        &["split-window", "-v", "-t", "m:0.2", "sleep 100000"],
        &["select-pane", "-t", "m:0.2"],
    ] {
        tmux::run(socket, args);
    }
    tmux_client(socket, "m")
}

/// A script that waits for `go`, cats the log, then runs `then`.
fn flood_script(log: &Path, go: &Path, then: &str) -> String {
    format!(
        "while [ ! -e '{}' ]; do sleep 0.01; done; cat '{}'; {then}; sleep 100000",
        go.display(),
        log.display()
    )
}

/// A signaltty server with one tab of four panes (flood, cat, two idle)
/// and the multiplexer on it, the `cat` pane focused.
fn signaltty_four_panes(server: &Server, flood: &str) -> Viewer {
    let flood_pane = server.new_pane(&["sh", "-c", flood]);
    let cat = server.split(&flood_pane, "right", &["cat"]);
    server.split(&flood_pane, "down", &["sleep", "100000"]);
    server.split(&cat, "down", &["sleep", "100000"]);
    server.call("focus", json!({"target": cat, "kind": "pane"}));
    let socket = server.socket.display().to_string();
    let viewer = Viewer::run(
        &[BIN, "ui", "bench"],
        &[
            ("SIGNALTTY_SOCKET", socket.as_str()),
            ("SIGNALTTY_CONFIG", "/dev/null"),
        ],
    );
    assert!(
        viewer.wait_for(b"? help", Duration::from_secs(30)),
        "the multiplexer started"
    );
    viewer
}

impl Server {
    fn split(&self, pane: &str, direction: &str, argv: &[&str]) -> String {
        self.create_pane(json!({"split": pane, "direction": direction, "argv": argv}))
    }
}

pub(super) fn multiplexer(
    scale: &Scale,
    log: &Path,
    dir: &Path,
    has_tmux: bool,
    report: &mut Report,
) {
    let bytes = (scale.log_mib << 20) as f64;
    eprintln!(
        "multiplexer: four panes, one cat-ting {} MiB",
        scale.log_mib
    );
    let mut rounds = Vec::new();
    let mut cpu = Vec::new();
    for round in 0..scale.mux_rounds {
        let tmux = has_tmux.then(|| tmux_mux_flood(log, dir, round));
        let ours = signaltty_mux_flood(log, dir, round);
        rounds.push((
            tmux.map(|t| bytes / t.seconds / 1e6),
            bytes / ours.seconds / 1e6,
        ));
        cpu.push((tmux.map(|t| t.cpu), ours.cpu));
    }
    report.mux_rounds(&rounds);
    report.mux_profile(&cpu);
    eprintln!("multiplexer: keystroke echo in another pane during the flood");
    if has_tmux {
        report.latency(
            "tmux echo during a flood",
            tmux_echo_during_flood(log, dir, scale.keystrokes),
        );
    }
    report.latency(
        "signaltty mux echo during a flood",
        signaltty_echo_during_flood(log, dir, scale.keystrokes),
    );
    eprintln!("multiplexer: idle for {:?}", scale.idle);
    let (client, server) = idle_mux(dir, scale.idle);
    report.mux_idle(scale.idle, client, server);
}

/// One flood: how long it took, and the CPU seconds the server and the
/// client used meanwhile.
#[derive(Clone, Copy)]
struct Flood {
    seconds: f64,
    cpu: (f64, f64),
}

fn tmux_mux_flood(log: &Path, dir: &Path, round: usize) -> Flood {
    let go = dir.join(format!("tmux-mux-go-{round}"));
    let socket = format!("sttm{}", std::process::id());
    let flood = flood_script(log, &go, &format!("tmux -L {socket} wait-for -S done"));
    let viewer = tmux_four_panes(&socket, &flood);
    std::thread::sleep(Duration::from_millis(500));
    let tmux_pid = tmux::server_pid(&socket).expect("the tmux server's pid");
    let pids = (tmux_pid, viewer.pid());
    let before = (cpu_seconds(pids.0), cpu_seconds(pids.1));
    let seconds = time_tmux_flood(&socket, &go);
    let cpu = (
        cpu_seconds(pids.0) - before.0,
        cpu_seconds(pids.1) - before.1,
    );
    drop(viewer);
    tmux::kill_server(&socket);
    Flood { seconds, cpu }
}

fn signaltty_mux_flood(log: &Path, dir: &Path, round: usize) -> Flood {
    let server = Server::start(dir, &format!("mux{round}"));
    let go = dir.join(format!("stt-mux-go-{round}"));
    let done = dir.join(format!("stt-mux-done-{round}"));
    let flood = flood_script(log, &go, &format!("touch '{}'", done.display()));
    let viewer = signaltty_four_panes(&server, &flood);
    std::thread::sleep(Duration::from_millis(500));
    let pids = (server.pid(), viewer.pid());
    let before = (cpu_seconds(pids.0), cpu_seconds(pids.1));
    let start = Instant::now();
    std::fs::write(&go, "").expect("go");
    wait_file(&done, Duration::from_secs(600));
    let seconds = start.elapsed().as_secs_f64();
    let cpu = (
        cpu_seconds(pids.0) - before.0,
        cpu_seconds(pids.1) - before.1,
    );
    drop(viewer);
    Flood { seconds, cpu }
}

/// Characters that never occur in the log: each sample types two of them,
/// a pair no earlier sample used, so its echo cannot be mistaken.
fn token(i: usize) -> String {
    let letters: Vec<char> = ('Α'..='Ω')
        .filter(|c| *c != '\u{3a2}')
        .chain('α'..='ω')
        .collect();
    let n = letters.len();
    format!("{}{}", letters[(i / n) % n], letters[i % n])
}

/// Milliseconds from typing into the focused `cat` pane to its echo on the
/// client's screen, while another pane floods.
fn echo_samples(viewer: &mut Viewer, count: usize) -> Vec<f64> {
    let mut samples = Vec::with_capacity(count);
    for i in 0..count {
        if i % 30 == 29 {
            // A fresh line before the first one wraps.
            viewer.writer.write_all(b"\r").expect("enter");
            std::thread::sleep(Duration::from_millis(20));
        }
        let token = token(i);
        viewer.drain();
        let start = Instant::now();
        viewer.writer.write_all(token.as_bytes()).expect("key");
        viewer.writer.flush().expect("flush");
        if viewer.wait_for(token.as_bytes(), Duration::from_secs(5)) {
            samples.push(start.elapsed().as_secs_f64() * 1000.0);
        }
    }
    samples
}

/// A flood that lasts until `stop` exists.
fn endless_flood(log: &Path, stop: &Path) -> String {
    format!(
        "while [ ! -e '{}' ]; do cat '{}'; done; sleep 100000",
        stop.display(),
        log.display()
    )
}

fn tmux_echo_during_flood(log: &Path, dir: &Path, count: usize) -> Vec<f64> {
    let stop = dir.join("tmux-echo-stop");
    let socket = format!("stte{}", std::process::id());
    let mut viewer = tmux_four_panes(&socket, &endless_flood(log, &stop));
    std::thread::sleep(Duration::from_millis(800));
    let samples = echo_samples(&mut viewer, count);
    let _ = std::fs::write(&stop, "");
    drop(viewer);
    tmux::kill_server(&socket);
    samples
}

fn signaltty_echo_during_flood(log: &Path, dir: &Path, count: usize) -> Vec<f64> {
    let stop = dir.join("stt-echo-stop");
    let server = Server::start(dir, "echo");
    let mut viewer = signaltty_four_panes(&server, &endless_flood(log, &stop));
    std::thread::sleep(Duration::from_millis(800));
    let samples = echo_samples(&mut viewer, count);
    let _ = std::fs::write(&stop, "");
    drop(viewer);
    samples
}

/// CPU percent of one core used by the multiplexer client and by the
/// server while four idle panes are on screen.
fn idle_mux(dir: &Path, window: Duration) -> (f64, f64) {
    let server = Server::start(dir, "muxidle");
    let viewer = signaltty_four_panes(&server, "sleep 100000");
    std::thread::sleep(Duration::from_secs(2));
    let (client, before_client, before_server) = (
        viewer.pid(),
        cpu_ticks(viewer.pid()),
        cpu_ticks(server.pid()),
    );
    std::thread::sleep(window);
    // SAFETY: sysconf takes a plain integer.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let percent = |ticks: u64| ticks as f64 / hz / window.as_secs_f64() * 100.0;
    let client_cpu = percent(cpu_ticks(client) - before_client);
    let server_cpu = percent(cpu_ticks(server.pid()) - before_server);
    drop(viewer);
    (client_cpu, server_cpu)
}
