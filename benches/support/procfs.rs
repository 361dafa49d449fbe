//! What `/proc` says of a process: its RSS, read once or once it has
//! settled. Std only: both the harness (`signaltty.rs`) and the screen
//! crate's `memory` example include this file with `#[path]`.

use std::time::Duration;

/// A number from `/proc/<pid>/status` (`VmRSS` in KiB, `Threads`), 0 if
/// it cannot be read.
pub fn proc_status(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0)
}

/// The resident set of `pid` in KiB, 0 if it cannot be read.
pub fn rss_kib(pid: u32) -> u64 {
    proc_status(pid, "VmRSS")
}

/// When [`settled_rss`] takes a process's RSS to have stopped changing.
pub struct Settle {
    /// How long to wait before the first reading.
    pub first: Duration,
    /// How long between readings.
    pub every: Duration,
    /// How many readings after the first, at the most.
    pub readings: u32,
    /// Two readings in a row that differ by at most this percent of the
    /// earlier one count as settled; 0: the same to the KiB.
    pub percent: u64,
}

/// The RSS of `pid` in KiB once it has stopped changing as `settle` says,
/// or the last reading if it never did.
pub fn settled_rss(pid: u32, settle: &Settle) -> u64 {
    std::thread::sleep(settle.first);
    let mut last = rss_kib(pid);
    for _ in 0..settle.readings {
        std::thread::sleep(settle.every);
        let now = rss_kib(pid);
        if now.abs_diff(last) * 100 <= last * settle.percent {
            return now;
        }
        last = now;
    }
    last
}
