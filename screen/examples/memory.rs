//! Memory per pane screen, next to tmux's per-pane cost in the same run.
//!
//! For each size (80x24, 200x50) it makes `panes` screens with 2 000 lines
//! of scrollback, feeds each the output of `seq 1 12000` and a prompt, and
//! reports per screen the heap they hold (a counting allocator; it counts
//! capacity, such as the 2 MiB vte reserves for synchronized updates and,
//! with `NeverSync`, never touches) and the growth of RSS, each kind in a
//! process of its own: live, frozen, for an idle shell (a prompt and
//! nothing else), and for a bare alacritty `Term` with its own 2 000-line
//! scrollback, which is what a screen cost before its history moved off the
//! grid. Then, if tmux is installed, it starts a private tmux server, opens
//! `panes` windows of each size running `seq 1 12000; cat` (and `cat` alone
//! for idle), and reports the growth of the server's RSS per window.
//!
//! `cargo run --release -p signaltty-screen --example memory [panes]`

#[path = "../tests/support/counting.rs"]
mod counting;
// Driving tmux and reading RSS, as the server's benchmark does: one copy,
// in the benchmark's support.
#[path = "../../benches/support/procfs.rs"]
mod procfs;
#[path = "../../benches/support/tmux.rs"]
mod tmux;

use std::hint::black_box;
use std::process::Command;
use std::time::Duration;

use alacritty_terminal::event::VoidListener;
use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::term::{Config, Term};
use alacritty_terminal::vte::ansi::Processor;
use procfs::{Settle, rss_kib, settled_rss};
use signaltty_screen::{Screen, Size};

const SCROLLBACK: usize = 2_000;
const SIZES: [Size; 2] = [
    Size { rows: 24, cols: 80 },
    Size {
        rows: 50,
        cols: 200,
    },
];
const PROMPT: &[u8] =
    b"\x1b]0;user@host: ~/src\x07\x1b[01;32muser@host\x1b[00m:\x1b[01;34m~/src\x1b[00m$ ";

/// Heap and RSS held per item, in KiB.
#[derive(Clone, Copy)]
struct Cost {
    heap: f64,
    rss: f64,
}

/// The heap and RSS at some moment, to measure growth from.
struct Mark {
    heap: usize,
    rss: u64,
}

impl Mark {
    fn now() -> Mark {
        Mark {
            heap: counting::live_bytes(),
            rss: own_rss_kib(),
        }
    }

    /// Growth since the mark, per one of `count` items.
    fn cost(&self, count: usize) -> Cost {
        let heap = counting::live_bytes().saturating_sub(self.heap);
        Cost {
            heap: heap as f64 / 1024.0 / count as f64,
            rss: own_rss_kib().saturating_sub(self.rss) as f64 / count as f64,
        }
    }
}

/// What one of `count` things made by `make` holds: measured in a process
/// of its own (see `main`), so memory freed by an earlier measurement does
/// not hide the RSS of a later one.
fn measure<T>(count: usize, make: impl Fn() -> T) -> Cost {
    let mark = Mark::now();
    let items: Vec<T> = (0..count).map(|_| make()).collect();
    let cost = mark.cost(count);
    drop(black_box(items));
    cost
}

fn seq_output() -> Vec<u8> {
    (1..=12_000)
        .map(|i| format!("{i}\r\n"))
        .collect::<String>()
        .into_bytes()
}

fn screen_after(size: Size, output: &[u8]) -> Screen {
    let mut screen = Screen::new(size, SCROLLBACK);
    let mut events = Vec::new();
    // In 64 KiB chunks, as a pane's reader hands them over.
    for chunk in output.chunks(64 * 1024) {
        screen.feed(chunk, &mut events);
    }
    screen.feed(PROMPT, &mut events);
    // Output paused: the pane renders the history it copied.
    screen.settle();
    screen
}

struct Dims(Size);

impl Dimensions for Dims {
    fn total_lines(&self) -> usize {
        self.screen_lines()
    }

    fn screen_lines(&self) -> usize {
        usize::from(self.0.rows)
    }

    fn columns(&self) -> usize {
        usize::from(self.0.cols)
    }
}

/// What a screen was before its history moved off the grid: alacritty
/// keeping the scrollback itself.
fn term_after(size: Size, output: &[u8]) -> Term<VoidListener> {
    let config = Config {
        scrolling_history: SCROLLBACK,
        ..Config::default()
    };
    let mut term = Term::new(config, &Dims(size), VoidListener);
    let mut parser: Processor = Processor::new();
    parser.advance(&mut term, output);
    parser.advance(&mut term, PROMPT);
    term
}

fn own_rss_kib() -> u64 {
    rss_kib(std::process::id())
}

fn row(what: &str, size: Size, cost: Cost, tmux: Option<f64>) {
    let versus = tmux.map_or(String::new(), |t| {
        format!(
            "  heap {:>5.2}x, rss {:>5.2}x tmux's",
            cost.heap / t,
            cost.rss / t
        )
    });
    println!(
        "{what:<28} {:>3}x{:<3} heap {:>8.1} KiB  rss {:>7.1} KiB{versus}",
        size.cols, size.rows, cost.heap, cost.rss
    );
}

/// What a measuring process is asked to make.
const STAGES: [&str; 5] = ["before", "live", "frozen", "idle", "idle-frozen"];

fn stage(name: &str, size: Size, panes: usize) -> Option<Cost> {
    let output = seq_output();
    Some(match name {
        "before" => measure(panes, || term_after(size, &output)),
        "live" => measure(panes, || screen_after(size, &output)),
        // Frozen one after the other, as a server would over time: each
        // live screen's grids are freed before the next one is made.
        "frozen" => measure(panes, || screen_after(size, &output).freeze()),
        "idle" => measure(panes, || screen_after(size, b"")),
        "idle-frozen" => measure(panes, || screen_after(size, b"").freeze()),
        _ => return None,
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, name, cols, rows, panes] = &args[..]
        && flag == "--stage"
    {
        let size = Size {
            cols: cols.parse().unwrap_or(80),
            rows: rows.parse().unwrap_or(24),
        };
        if let Some(cost) = stage(name, size, panes.parse().unwrap_or(1)) {
            println!("{} {}", cost.heap, cost.rss);
        }
        return;
    }
    let panes: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(50);
    println!(
        "{panes} of each in a process of their own; {SCROLLBACK} lines of scrollback; \
         \"seq\" = after `seq 1 12000` and a prompt, \"idle\" = a prompt only; \
         heap counts the 2 MiB vte reserves per parser and never touches"
    );
    let has_tmux = tmux::installed();
    for size in SIZES {
        let tmux = tmux_per_window(size, panes, has_tmux);
        for name in STAGES {
            let Some(cost) = run_stage(name, size, panes) else {
                continue;
            };
            let versus = if name.starts_with("idle") {
                tmux.idle
            } else {
                tmux.full
            };
            row(label(name), size, cost, versus);
        }
        if let (Some(full), Some(idle)) = (tmux.full, tmux.idle) {
            println!(
                "{:<28} {:>3}x{:<3} rss {full:>7.1} KiB per window after seq, {idle:.1} idle",
                "tmux server", size.cols, size.rows
            );
        }
    }
}

fn label(stage: &str) -> &'static str {
    match stage {
        "before" => "seq, alacritty's scrollback",
        "live" => "seq, Screen",
        "frozen" => "seq, FrozenScreen",
        "idle" => "idle, Screen",
        _ => "idle, FrozenScreen",
    }
}

fn run_stage(name: &str, size: Size, panes: usize) -> Option<Cost> {
    let out = Command::new(std::env::current_exe().ok()?)
        .args(["--stage", name])
        .args([
            size.cols.to_string(),
            size.rows.to_string(),
            panes.to_string(),
        ])
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let mut numbers = text.split_whitespace().map(|n| n.parse::<f64>().ok());
    Some(Cost {
        heap: numbers.next()??,
        rss: numbers.next()??,
    })
}

/// tmux server RSS growth per window, with `seq 1 12000` output and idle.
struct TmuxCost {
    full: Option<f64>,
    idle: Option<f64>,
}

fn tmux_per_window(size: Size, windows: usize, has_tmux: bool) -> TmuxCost {
    let measure = |label, script| has_tmux.then(|| tmux_windows(label, size, windows, script))?;
    TmuxCost {
        full: measure(
            "seq",
            "seq 1 12000; tmux -L $SOCKET wait-for -S $DONE; exec cat",
        ),
        idle: measure("idle", "tmux -L $SOCKET wait-for -S $DONE; exec cat"),
    }
}

/// A tmux server's RSS counts as settled once it stops changing (it parses
/// asynchronously): two readings 100 ms apart the same, or after 5 s.
const SETTLE: Settle = Settle {
    first: Duration::ZERO,
    every: Duration::from_millis(100),
    readings: 50,
    percent: 0,
};

/// Starts a private tmux server with one window of `size`, measures its
/// RSS, opens `windows` more running `script` (which signals when done),
/// and returns the RSS growth per window in KiB.
fn tmux_windows(label: &str, size: Size, windows: usize, script: &str) -> Option<f64> {
    let socket = format!("screenmem-{}-{label}-{}", std::process::id(), size.cols);
    if !tmux::session(&socket, "m", size.cols, size.rows, "exec cat") {
        return None;
    }
    let growth = windows_growth(&socket, windows, script);
    tmux::kill_server(&socket);
    growth
}

fn windows_growth(socket: &str, windows: usize, script: &str) -> Option<f64> {
    let pid = tmux::server_pid(socket)?;
    let before = settled_rss(pid, &SETTLE);
    for window in 0..windows {
        let done = format!("done{window}");
        let script = script.replace("$SOCKET", socket).replace("$DONE", &done);
        if !(tmux::new_window(socket, "m", &script) && tmux::run(socket, &["wait-for", &done])) {
            return None;
        }
    }
    let after = settled_rss(pid, &SETTLE);
    Some(after.saturating_sub(before) as f64 / windows as f64)
}
