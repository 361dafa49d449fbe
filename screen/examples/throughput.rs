//! Parse throughput of the pane output path.
//!
//! Generates a deterministic 64 MiB coloured log in memory and feeds it in
//! 4 KiB chunks to a 200x50 `Screen` with 10,000 lines of scrollback, next to
//! bare alacritty_terminal (same parser, no OSC scanner, no event plumbing,
//! and the scrollback kept as alacritty keeps it, in its grid) so the
//! crate's own overhead is visible.
//!
//! `cargo run --release -p signaltty-screen --example throughput [MiB]
//! [screen]`; with `screen` only the `Screen` runs, for a profiler
//! (`perf record`, `valgrind --tool=callgrind`) to see it alone.

use std::hint::black_box;
use std::time::Instant;

use alacritty_terminal::event::VoidListener;
use alacritty_terminal::term::{Config, Term};
use alacritty_terminal::vte::ansi::Processor;
use signaltty_screen::{Screen, ScreenEvent, Size};

const CHUNK: usize = 4096;
const SIZE: Size = Size {
    rows: 50,
    cols: 200,
};
const SCROLLBACK: usize = 10_000;
const ROUNDS: usize = 5;

/// xorshift64*: deterministic and dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Log lines the way build tools and agents print them: timestamp, coloured
/// level, module, message, sometimes 256-colour or truecolor highlights and
/// a long line that wraps.
fn coloured_log(bytes: usize) -> Vec<u8> {
    const WORDS: &[&str] = &[
        "compiling",
        "request",
        "tokens",
        "cache",
        "miss",
        "hit",
        "worker",
        "scheduled",
        "file",
        "src/main.rs",
        "ok",
        "error:",
        "warning:",
        "retrying",
        "connection",
        "established",
        "the",
        "agent",
        "tool_call",
        "finished",
        "in",
        "ms",
        "bytes",
        "written",
        "diff",
        "applied",
    ];
    const LEVELS: &[(&str, &str)] = &[
        ("\x1b[32m", "INFO "),
        ("\x1b[33m", "WARN "),
        ("\x1b[1;31m", "ERROR"),
        ("\x1b[36m", "DEBUG"),
        ("\x1b[2m", "TRACE"),
    ];
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    let mut out = Vec::with_capacity(bytes + 512);
    let mut line = 0u64;
    while out.len() < bytes {
        line += 1;
        let (colour, level) = LEVELS[rng.below(LEVELS.len() as u64) as usize];
        let ms = line * 7 % 1000;
        let secs = line / 13 % 60;
        out.extend_from_slice(
            format!(
                "\x1b[90m2025-01-01T12:{:02}:{secs:02}.{ms:03}Z\x1b[0m {colour}{level}\x1b[0m ",
                line / 780 % 60
            )
            .as_bytes(),
        );
        out.extend_from_slice(format!("\x1b[35mmod{}::sub\x1b[0m: ", rng.below(20)).as_bytes());
        let spread = if rng.below(20) == 0 { 60 } else { 14 };
        let words = 4 + rng.below(spread);
        for _ in 0..words {
            let word = WORDS[rng.below(WORDS.len() as u64) as usize];
            match rng.below(12) {
                0 => out.extend_from_slice(
                    format!("\x1b[38;5;{}m{word}\x1b[39m ", rng.below(256)).as_bytes(),
                ),
                1 => out.extend_from_slice(
                    format!(
                        "\x1b[1;38;2;{};{};{}m{word}\x1b[0m ",
                        rng.below(256),
                        rng.below(256),
                        rng.below(256)
                    )
                    .as_bytes(),
                ),
                2 => out.extend_from_slice(format!("{word}={} ", rng.below(100_000)).as_bytes()),
                _ => {
                    out.extend_from_slice(word.as_bytes());
                    out.push(b' ');
                }
            }
        }
        out.extend_from_slice(b"\r\n");
    }
    out.truncate(bytes);
    out
}

fn mib_per_s(bytes: usize, seconds: f64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0) / seconds
}

fn run_screen(log: &[u8]) -> f64 {
    let mut screen = Screen::new(SIZE, SCROLLBACK);
    let mut events: Vec<ScreenEvent> = Vec::new();
    let start = Instant::now();
    for chunk in log.chunks(CHUNK) {
        screen.feed(chunk, &mut events);
        events.clear();
    }
    let elapsed = start.elapsed().as_secs_f64();
    black_box(screen.cursor());
    elapsed
}

fn run_alacritty(log: &[u8]) -> f64 {
    let config = Config {
        scrolling_history: SCROLLBACK,
        ..Config::default()
    };
    let mut term = Term::new(config, &SIZE_DIMS, VoidListener);
    let mut parser: Processor = Processor::new();
    let start = Instant::now();
    for chunk in log.chunks(CHUNK) {
        parser.advance(&mut term, chunk);
    }
    let elapsed = start.elapsed().as_secs_f64();
    black_box(term.grid().cursor.point);
    elapsed
}

struct Dims;

impl alacritty_terminal::grid::Dimensions for Dims {
    fn total_lines(&self) -> usize {
        SIZE.rows as usize
    }

    fn screen_lines(&self) -> usize {
        SIZE.rows as usize
    }

    fn columns(&self) -> usize {
        SIZE.cols as usize
    }
}

const SIZE_DIMS: Dims = Dims;

fn main() {
    let mib: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(64);
    let log = coloured_log(mib * 1024 * 1024);
    if std::env::args().nth(2).as_deref() == Some("screen") {
        let seconds = run_screen(&log);
        println!(
            "signaltty_screen::Screen : {:6.1} MiB/s",
            mib_per_s(log.len(), seconds)
        );
        return;
    }
    let escapes = log.iter().filter(|&&b| b == 0x1b).count();
    println!(
        "{} MiB coloured log ({} escapes, {:.0} bytes/escape), {}x{} screen, {} lines scrollback, {} KiB chunks",
        mib,
        escapes,
        log.len() as f64 / escapes.max(1) as f64,
        SIZE.cols,
        SIZE.rows,
        SCROLLBACK,
        CHUNK / 1024
    );
    let mut best_screen = f64::MAX;
    let mut best_raw = f64::MAX;
    for _ in 0..ROUNDS {
        best_raw = best_raw.min(run_alacritty(&log));
        best_screen = best_screen.min(run_screen(&log));
    }
    let screen = mib_per_s(log.len(), best_screen);
    let raw = mib_per_s(log.len(), best_raw);
    println!("alacritty_terminal alone : {raw:6.1} MiB/s");
    println!(
        "signaltty_screen::Screen : {screen:6.1} MiB/s  ({:.1}% slower; best of {ROUNDS} interleaved rounds)",
        (1.0 - screen / raw) * 100.0
    );
}
