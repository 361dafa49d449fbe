//! The server's memory per pane, side by side with tmux in the same run:
//! panes with 2 000 lines of history (each ran `seq 1 12000`) and idle
//! shells, at 80x24 and 200x50, and the total for many panes with full
//! history. A module of the harness (`signaltty.rs`), whose helpers it
//! uses. `SIGNALTTY_BENCH_ONLY=memory` runs it alone.
//!
//! Per pane is the marginal cost, alike for both: the server's RSS with
//! N panes less its RSS with one, over N-1. tmux runs one session with N
//! windows of the same size (its default history limit is 2 000 lines,
//! signaltty's too). Each is read twice: [`SOON`] after the last pane's
//! output ended (a user switching between tabs sees this cost), and once
//! RSS has settled after the panes froze (a pane nobody looks at). With
//! `SIGNALTTY_BENCH_BASELINE` another build is measured beside this one.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;

use super::procfs::{Settle, rss_kib, settled_rss};
use super::{Bar, Report, Scale, Server, bar_chart, tmux};

/// When a server's RSS counts as settled: after 8 s, longer than a quiet
/// pane takes to freeze its screen (5 s), so that what is measured is what
/// a pane costs while nobody looks at it; then the first of two readings a
/// second apart that differ by under 1%.
const SETTLE: Settle = Settle {
    first: Duration::from_secs(8),
    every: Duration::from_secs(1),
    readings: 30,
    percent: 1,
};

/// When the first reading is taken after the last pane's output ended:
/// before any screen freezes.
const SOON: Duration = Duration::from_secs(1);

/// One measurement: the panes' size and what runs in them.
#[derive(Clone, Copy)]
struct Case {
    rows: u16,
    cols: u16,
    history: bool,
}

impl Case {
    fn label(self) -> String {
        let what = if self.history {
            "with 2 000 lines of history"
        } else {
            "idle shell"
        };
        format!("{}x{} {what}", self.cols, self.rows)
    }

    /// The command each pane runs: a pane with history prints `seq 1
    /// 12000`, adds a line to `done` and becomes a shell. With `wait`, it
    /// first waits for a line of input, so that it prints at its final
    /// size.
    fn script(self, done: &Done, wait: bool) -> String {
        if !self.history {
            return "exec /bin/sh".to_string();
        }
        let wait = if wait { "read _; " } else { "" };
        format!(
            "{wait}seq 1 12000; echo >> '{}'; exec /bin/sh",
            done.0.display()
        )
    }
}

/// The file a batch of panes with history counts its finished panes in.
struct Done(PathBuf);

impl Done {
    fn new(dir: &Path, name: &str) -> Done {
        let done = Done(dir.join(format!("{name}.done")));
        let _ = std::fs::remove_file(&done.0);
        done
    }

    /// Waits until `panes` panes of the batch have printed their history.
    fn wait(&self, case: Case, panes: usize) {
        if !case.history {
            return;
        }
        let deadline = Instant::now() + Duration::from_secs(300);
        while count_lines(&self.0) < panes {
            assert!(Instant::now() < deadline, "panes did not finish `seq`");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn count_lines(path: &Path) -> usize {
    std::fs::read(path).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count())
}

/// RSS in KiB with one pane (settled), and with all of them [`SOON`]
/// after their output and settled.
#[derive(Clone, Copy)]
struct Rss {
    one: u64,
    soon: u64,
    settled: u64,
}

impl Rss {
    /// KiB per pane beyond the first: [`SOON`] after output, settled.
    fn per_pane(self, panes: usize) -> [f64; 2] {
        let per = |all: u64| all.saturating_sub(self.one) as f64 / (panes - 1).max(1) as f64;
        [per(self.soon), per(self.settled)]
    }
}

/// One case's KiB per pane ([`SOON`] after output, settled) of each
/// system.
pub(super) struct PerPane {
    pub(super) ours: [f64; 2],
    pub(super) baseline: Option<[f64; 2]>,
    pub(super) tmux: Option<[f64; 2]>,
}

pub(super) fn memory(scale: &Scale, dir: &Path, has_tmux: bool, report: &mut Report) {
    // The harness's pane counts: 100 and 500, or 10 and 50 for a quick run.
    let per_pane = scale.pane_counts[1].max(2);
    let many = scale.pane_counts.last().copied().unwrap_or(per_pane);
    let baseline = std::env::var(super::throughput::BASELINE_VAR).ok();
    for (rows, cols) in [(24, 80), (50, 200)] {
        for history in [true, false] {
            let case = Case {
                rows,
                cols,
                history,
            };
            eprintln!("memory: {per_pane} panes, {}", case.label());
            let tmux = has_tmux.then(|| tmux_rss(dir, case, per_pane));
            let ours = signaltty_rss(super::BIN, dir, case, per_pane);
            let baseline = baseline
                .as_deref()
                .map(|bin| signaltty_rss(bin, dir, case, per_pane));
            let figures = PerPane {
                ours: ours.per_pane(per_pane),
                baseline: baseline.map(|b| b.per_pane(per_pane)),
                tmux: tmux.map(|t| t.per_pane(per_pane)),
            };
            report.memory_per_pane(&case.label(), figures);
        }
    }
    let case = Case {
        rows: 24,
        cols: 80,
        history: true,
    };
    eprintln!("memory: {many} panes, {}", case.label());
    let tmux = has_tmux.then(|| tmux_rss(dir, case, many));
    let ours = signaltty_rss(super::BIN, dir, case, many);
    report.memory_total(&case.label(), many, ours.settled, tmux.map(|t| t.settled));
}

fn signaltty_rss(bin: &str, dir: &Path, case: Case, panes: usize) -> Rss {
    // A baseline build gets servers (and state) of its own.
    let build = if bin == super::BIN { "" } else { "base" };
    let name = format!(
        "mem{build}{panes}x{}x{}{}",
        case.cols, case.rows, case.history
    );
    let server = Server::start_binary(bin, dir, &name, true);
    let first = Done::new(dir, &format!("{name}-1"));
    spawn_sized_panes(&server, case, &first, 0..1);
    first.wait(case, 1);
    let one = settled_rss(server.pid(), &SETTLE);
    let rest = Done::new(dir, &format!("{name}-n"));
    spawn_sized_panes(&server, case, &rest, 1..panes);
    let rss = readings(server.pid(), one, || rest.wait(case, panes - 1));
    eprintln!(
        "memory: {bin} {one} KiB with one pane, {} KiB with {panes} soon after output, {} settled",
        rss.soon, rss.settled
    );
    rss
}

/// Waits for the panes beyond the first with `wait`, then reads the RSS
/// of `pid` [`SOON`] after and once it settled.
fn readings(pid: u32, one: u64, wait: impl FnOnce()) -> Rss {
    wait();
    std::thread::sleep(SOON);
    let soon = rss_kib(pid);
    Rss {
        one,
        soon,
        settled: settled_rss(pid, &SETTLE),
    }
}

/// Panes number `range` of `case`, eight to a tab, each printing as it
/// comes, as tmux's windows do. A tab's first pane comes at the default
/// 80x24: it waits for a line of input until it is resized.
fn spawn_sized_panes(server: &Server, case: Case, done: &Done, range: std::ops::Range<usize>) {
    let (now, resized) = (case.script(done, false), case.script(done, true));
    for i in range {
        if i % 8 != 0 {
            let argv = ["sh", "-c", now.as_str()];
            server.create_pane(json!({"argv": argv, "rows": case.rows, "cols": case.cols}));
            continue;
        }
        let argv = ["sh", "-c", resized.as_str()];
        let tab = server
            .call(
                "tab.new",
                json!({"workspace": server.workspace, "argv": argv}),
            )
            .expect("tab");
        let pane = tab["pane_id"].as_str().unwrap_or_default();
        server.call(
            "pane.resize",
            json!({"pane": pane, "rows": case.rows, "cols": case.cols}),
        );
        if case.history {
            server.call(
                "pane.send",
                json!({"pane": pane, "text": "", "enter": true}),
            );
        }
    }
}

fn tmux_rss(dir: &Path, case: Case, panes: usize) -> Rss {
    let socket = format!("sttmem{}", std::process::id());
    let name = format!("tmux{panes}x{}x{}{}", case.cols, case.rows, case.history);
    let first = Done::new(dir, &format!("{name}-1"));
    let first_script = case.script(&first, false);
    let started = tmux::session(&socket, "m", case.cols, case.rows, &first_script);
    assert!(started, "tmux session");
    first.wait(case, 1);
    let pid = tmux::server_pid(&socket).expect("the tmux server's pid");
    let one = settled_rss(pid, &SETTLE);
    let rest = Done::new(dir, &format!("{name}-n"));
    let script = case.script(&rest, false);
    for _ in 1..panes {
        tmux::new_window(&socket, "m", &script);
    }
    let rss = readings(pid, one, || rest.wait(case, panes - 1));
    eprintln!(
        "memory: tmux {one} KiB with one pane, {} KiB with {panes} soon after output, {} settled",
        rss.soon, rss.settled
    );
    tmux::kill_server(&socket);
    rss
}

impl Report {
    fn memory_per_pane(&mut self, label: &str, figures: PerPane) {
        let moments = [("1 s after output", 0), ("settled, frozen", 1)];
        for (moment, at) in moments {
            let ours = figures.ours[at];
            let versus = figures
                .tmux
                .map(|t| format!("   tmux {:>6.0} KiB   {:.2}x tmux", t[at], ours / t[at]))
                .unwrap_or_default();
            let baseline = figures
                .baseline
                .map(|b| format!("   baseline {:>6.0} KiB", b[at]))
                .unwrap_or_default();
            self.memory_lines.push(format!(
                "per pane, {label:<36} {moment:<17} {ours:>6.0} KiB{versus}{baseline}"
            ));
            let key = format!("memory per pane {label} {moment}");
            self.json.insert(format!("{key} KiB"), json!(ours));
            self.json.insert(
                format!("{key} tmux KiB"),
                json!(figures.tmux.map(|t| t[at])),
            );
            self.json.insert(
                format!("{key} baseline KiB"),
                json!(figures.baseline.map(|b| b[at])),
            );
        }
        self.memory_per_pane.push((label.to_string(), figures));
    }

    /// Each case's KiB per pane: signaltty's bars (1 s after output,
    /// frozen) above tmux's.
    pub(super) fn memory_svg(&self) -> String {
        let bar = |label: String, value: f64| Bar {
            label,
            value,
            range: None,
        };
        let bars: Vec<Bar> = self
            .memory_per_pane
            .iter()
            .flat_map(|(case, figures)| {
                let [soon, frozen] = figures.ours;
                let ours = [
                    bar(format!("signaltty 1 s after, {case}"), soon),
                    bar(format!("signaltty frozen, {case}"), frozen),
                ];
                // tmux does not freeze: its settled reading.
                let tmux = figures.tmux.map(|t| bar(format!("tmux, {case}"), t[1]));
                ours.into_iter().chain(tmux)
            })
            .collect();
        bar_chart("Server RSS per pane (KiB, lower is better)", &bars, "KiB")
    }

    fn memory_total(&mut self, label: &str, panes: usize, ours: u64, tmux: Option<u64>) {
        let mib = |kib: u64| kib as f64 / 1024.0;
        let versus = tmux
            .map(|t| format!("   tmux {:>6.1} MiB", mib(t)))
            .unwrap_or_default();
        self.memory_lines.push(format!(
            "{panes} panes, {label}: {:>6.1} MiB{versus}",
            mib(ours)
        ));
        self.json
            .insert(format!("memory {panes} panes {label} KiB"), json!(ours));
        self.json.insert(
            format!("memory {panes} panes {label} tmux KiB"),
            json!(tmux),
        );
    }
}
