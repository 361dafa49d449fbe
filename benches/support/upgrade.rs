//! Live upgrade's figures: how long the handover takes with 20 and 200
//! panes, and the pause a flooding pane sees across it — the longest its
//! writes stall, side by side with the longest stall in the same flood
//! when nothing is upgraded, in alternating rounds. A module of the
//! harness (`signaltty.rs`), whose helpers it uses.
//!
//! The flood is written in Python so it can time its own `write`s: a
//! pane's program stalls only when the server stops reading its PTY, and
//! that stall is what an agent would notice.

use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::json;

use super::{Report, Server, percentile, spawn_idle_panes};

/// Pane counts the handover is timed at.
const PANE_COUNTS: [usize; 2] = [20, 200];
/// Upgrades (and as many quiet windows) per pane count.
const ROUNDS: usize = 3;
/// How long the flood is watched either side of the moment an upgrade
/// starts, or would.
const MARGIN: Duration = Duration::from_millis(400);

/// Writes 4 KiB lines without end and appends every stall of 1 ms or more
/// to `$GAPS` as "wall-clock start (s) length (ms)".
const FLOOD: &str = r#"#!/usr/bin/env python3
import os, time
gaps = open(os.environ["GAPS"], "a", buffering=1)
line = b"x" * 4095 + b"\n"
last = time.monotonic()
while True:
    os.write(1, line)
    now = time.monotonic()
    if now - last >= 0.001:
        gaps.write("%.6f %.3f\n" % (time.time() - (now - last), (now - last) * 1000))
    last = now
"#;

/// One pane count's figures.
pub(super) struct Upgrades {
    panes: usize,
    /// The server's own count, from the request to the new image's answer.
    server_ms: Vec<f64>,
    /// `upgrade`'s round trip as the caller saw it.
    caller_ms: Vec<f64>,
    /// The flood's longest stall in each window with an upgrade...
    pause_ms: Vec<f64>,
    /// ... and in each window without.
    quiet_ms: Vec<f64>,
}

impl Upgrades {
    pub(super) fn lines(&self) -> Vec<String> {
        let median = |samples: &[f64]| percentile(samples, 0.5);
        vec![
            format!(
                "upgrade, {} panes: handover {:.0} ms median (server's count; {:?}), {:.0} ms as the caller saw it",
                self.panes,
                median(&self.server_ms),
                rounded(&self.server_ms),
                median(&self.caller_ms),
            ),
            format!(
                "upgrade, {} panes: a flooding pane's longest stall {:.0} ms median ({:?}); {:.1} ms without an upgrade ({:?})",
                self.panes,
                median(&self.pause_ms),
                rounded(&self.pause_ms),
                median(&self.quiet_ms),
                rounded(&self.quiet_ms),
            ),
        ]
    }

    pub(super) fn json(&self) -> serde_json::Value {
        json!({
            "handover server ms": self.server_ms,
            "handover caller ms": self.caller_ms,
            "flood stall with upgrade ms": self.pause_ms,
            "flood stall without ms": self.quiet_ms,
        })
    }

    pub(super) fn panes(&self) -> usize {
        self.panes
    }
}

fn rounded(samples: &[f64]) -> Vec<f64> {
    samples.iter().map(|s| (s * 10.0).round() / 10.0).collect()
}

pub(super) fn upgrades(dir: &Path, report: &mut Report) {
    let new_binary = dir.join("new-signaltty");
    std::fs::copy(super::BIN, &new_binary).expect("copy the binary as the new version");
    let flood = dir.join("flood.py");
    std::fs::write(&flood, FLOOD).expect("the flood script");
    for panes in PANE_COUNTS {
        eprintln!("upgrade: {panes} panes, one of them flooding, {ROUNDS} rounds");
        report.upgrades(rounds(dir, panes, &flood, &new_binary));
    }
}

fn rounds(dir: &Path, panes: usize, flood: &Path, new_binary: &Path) -> Upgrades {
    let server = Server::start(dir, &format!("upgrade{panes}"));
    let gaps = dir.join(format!("gaps{panes}.txt"));
    let _ = std::fs::remove_file(&gaps);
    spawn_idle_panes(
        &server,
        panes - 1,
        &["sh", "-c", "seq 1 300; exec sleep 100000"],
    );
    let gaps_env = format!("GAPS={}", gaps.display());
    let flood = flood.display().to_string();
    server.new_pane(&["env", &gaps_env, "python3", &flood]);
    wait_live(&server, panes);
    let mut figures = Upgrades {
        panes,
        server_ms: Vec::new(),
        caller_ms: Vec::new(),
        pause_ms: Vec::new(),
        quiet_ms: Vec::new(),
    };
    for _ in 0..ROUNDS {
        figures.quiet_ms.push(longest_stall(&gaps, || {}));
        figures.pause_ms.push(longest_stall(&gaps, || {
            let start = Instant::now();
            let reply = server
                .call("upgrade", json!({"binary": new_binary}))
                .expect("the copy takes over");
            figures
                .caller_ms
                .push(start.elapsed().as_secs_f64() * 1000.0);
            figures
                .server_ms
                .push(reply["millis"].as_f64().unwrap_or(f64::NAN));
            assert_eq!(reply["live_panes"], panes, "every pane kept its process");
        }));
    }
    figures
}

/// The longest stall of the flood in a window around `during`.
fn longest_stall(gaps: &Path, during: impl FnOnce()) -> f64 {
    let from = wall_seconds();
    std::thread::sleep(MARGIN);
    during();
    std::thread::sleep(MARGIN);
    let to = wall_seconds();
    let logged = std::fs::read_to_string(gaps).unwrap_or_default();
    logged
        .lines()
        .filter_map(|line| {
            let (start, length) = line.split_once(' ')?;
            let start: f64 = start.parse().ok()?;
            (start >= from && start <= to).then(|| length.parse().ok())?
        })
        .fold(0.0, f64::max)
}

fn wall_seconds() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |since| since.as_secs_f64())
}

/// Waits until all `panes` are live and the flood has begun.
fn wait_live(server: &Server, panes: usize) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let live = server
            .call("status", json!({}))
            .and_then(|status| status["live_panes"].as_u64())
            .unwrap_or(0);
        if live as usize >= panes {
            std::thread::sleep(Duration::from_secs(1));
            return;
        }
        assert!(
            Instant::now() < deadline,
            "only {live} of {panes} panes came up"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
