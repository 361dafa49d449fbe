//! What `/proc` says about a process: enough to recognise a pane's
//! processes again after the server that started them died.
//!
//! A pane's child leads its own session (its pid is the session id), and
//! everything it starts stays in that session unless it leaves on purpose
//! (`setsid`). The child's start time tells it from a later process that
//! got the same pid. Reads are bounded: a process's environment is read up
//! to [`MAX_ENVIRON`] bytes.

use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;

/// The most of a process's environment that is read.
pub const MAX_ENVIRON: u64 = 256 * 1024;

/// The fields of `/proc/PID/stat` that matter here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    pub pid: i32,
    /// One letter: `R`, `S`, `T`, `Z` (ended, not yet reaped)…
    pub state: char,
    pub session: i32,
    /// Clock ticks after boot (field 22).
    pub start_ticks: u64,
}

impl ProcStat {
    /// Still running: present, and not a zombie waiting to be reaped.
    pub fn running(&self) -> bool {
        self.state != 'Z' && self.state != 'X'
    }
}

fn proc_dir(pid: i32) -> PathBuf {
    PathBuf::from(format!("/proc/{pid}"))
}

/// The process's stat, if it exists.
pub fn stat(pid: i32) -> Option<ProcStat> {
    let text = std::fs::read_to_string(proc_dir(pid).join("stat")).ok()?;
    parse_stat(pid, &text)
}

/// Parses `/proc/PID/stat`. The command name (field 2) is in parentheses
/// and may hold anything, spaces and parentheses included, so the fields
/// are counted from the last `)`.
pub fn parse_stat(pid: i32, text: &str) -> Option<ProcStat> {
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // fields[0] is field 3 (state), so field N is fields[N - 3].
    Some(ProcStat {
        pid,
        state: fields.first()?.chars().next()?,
        session: fields.get(6 - 3)?.parse().ok()?,
        start_ticks: fields.get(22 - 3)?.parse().ok()?,
    })
}

/// The uid owning the process (its `/proc` entry).
pub fn owner(pid: i32) -> Option<u32> {
    std::fs::metadata(proc_dir(pid)).ok().map(|m| m.uid())
}

/// The process's environment as it was started, as `NAME=VALUE` entries
/// (at most [`MAX_ENVIRON`] bytes of it).
pub fn environ(pid: i32) -> Option<Vec<String>> {
    let file = std::fs::File::open(proc_dir(pid).join("environ")).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_ENVIRON).read_to_end(&mut bytes).ok()?;
    Some(
        bytes
            .split(|&b| b == 0)
            .filter(|entry| !entry.is_empty())
            .map(|entry| String::from_utf8_lossy(entry).into_owned())
            .collect(),
    )
}

/// Every pid in `/proc` now.
pub fn pids() -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_counted_from_the_last_parenthesis() {
        let line = "4242 (we ird) (name) S 1 4242 4242 34817 4242 4194560 107 0 0 0 0 0 0 0 \
                    20 0 1 0 987654 2555904 190 18446744073709551615 1 1 0 0 0 0 0 4 0 0 0 0 \
                    17 0 0 0 0 0 0";
        let stat = parse_stat(4242, line).unwrap();
        assert_eq!(stat.state, 'S');
        assert_eq!(stat.session, 4242);
        assert_eq!(stat.start_ticks, 987_654);
        assert!(parse_stat(1, "1 (cut").is_none());
    }

    #[test]
    fn this_process_is_found_with_its_own_environment() {
        let me = i32::try_from(std::process::id()).unwrap();
        let stat = stat(me).unwrap();
        assert!(stat.running());
        assert!(pids().contains(&me));
        // SAFETY: getuid(2) cannot fail.
        assert_eq!(owner(me), Some(unsafe { libc::getuid() }));
        let environ = environ(me).unwrap();
        for (name, value) in std::env::vars().take(5) {
            assert!(environ.contains(&format!("{name}={value}")), "{name}");
        }
    }
}
