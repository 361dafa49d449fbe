//! What `/proc` says about a pane's foreground process.
//!
//! Called on a blocking thread (never on an async worker), and only when
//! the foreground process group changed: an idle pane costs nothing. Every
//! read is bounded.

use std::io::Read;
use std::path::Path;

use signaltty_adapters::{AgentProcess, ProcessFacts, store_env_names};

/// The most bytes read of a command line, an environment, a stat line.
const MAX_CMDLINE: u64 = 64 * 1024;
const MAX_ENVIRON: u64 = 256 * 1024;
const MAX_STAT: u64 = 4 * 1024;
const MAX_CHILDREN: usize = 64;
const MAX_THREADS: usize = 256;

/// The foreground process group leader, as `/proc` shows it.
#[derive(Debug, Clone)]
pub struct Foreground {
    pub pid: i32,
    pub exe: Option<String>,
    pub argv: Vec<String>,
    /// `SIGNALTTY_AGENT` from its environment.
    pub agent_env: Option<String>,
    /// `HOME` and the variables that move agents' session stores.
    pub env: Vec<(String, String)>,
    pub cwd: Option<String>,
    pub start_ticks: u64,
    pub started_at_ms: u64,
}

impl Foreground {
    pub fn facts(&self) -> ProcessFacts<'_> {
        ProcessFacts {
            exe: self.exe.as_deref(),
            argv: &self.argv,
            agent_env: self.agent_env.as_deref(),
        }
    }

    /// The process as the adapters' session discovery wants it.
    pub fn agent_process(&self, fallback_cwd: &str) -> AgentProcess {
        AgentProcess {
            pid: self.pid,
            started_at_ms: self.started_at_ms,
            start_ticks: self.start_ticks,
            cwd: self.cwd.clone().unwrap_or_else(|| fallback_cwd.to_string()),
            env: self.env.clone(),
            children: Vec::new(),
        }
    }
}

/// The direct children of `pid`, from each of its threads'
/// `/proc/PID/task/TID/children` — read when a session is looked for,
/// since a loader starts its agent after it became the foreground. At
/// most [`MAX_CHILDREN`], from at most [`MAX_THREADS`] threads.
pub fn children(pid: i32) -> Vec<i32> {
    let Ok(tasks) = std::fs::read_dir(Path::new("/proc").join(pid.to_string()).join("task")) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for task in tasks.take(MAX_THREADS).flatten() {
        let bytes = read_bounded(&task.path().join("children"), MAX_STAT).unwrap_or_default();
        found.extend(
            String::from_utf8_lossy(&bytes)
                .split_whitespace()
                .filter_map(|p| p.parse::<i32>().ok()),
        );
    }
    found.truncate(MAX_CHILDREN);
    found
}

/// Reads what `/proc/PID` says; `None` once the process is gone.
pub fn read(pid: i32) -> Option<Foreground> {
    let dir = Path::new("/proc").join(pid.to_string());
    let argv = split_nul(&read_bounded(&dir.join("cmdline"), MAX_CMDLINE)?);
    let environ = split_nul(&read_bounded(&dir.join("environ"), MAX_ENVIRON).unwrap_or_default());
    let wanted = store_env_names();
    let mut env = Vec::new();
    let mut agent_env = None;
    for entry in environ {
        let Some((name, value)) = entry.split_once('=') else {
            continue;
        };
        if name == "SIGNALTTY_AGENT" {
            agent_env = Some(value.to_string());
        } else if wanted.contains(&name) {
            env.push((name.to_string(), value.to_string()));
        }
    }
    let start_ticks = start_ticks(&read_bounded(&dir.join("stat"), MAX_STAT)?)?;
    Some(Foreground {
        pid,
        exe: std::fs::read_link(dir.join("exe"))
            .ok()
            .map(|p| p.display().to_string()),
        argv,
        agent_env,
        env,
        cwd: std::fs::read_link(dir.join("cwd"))
            .ok()
            .map(|p| p.display().to_string()),
        start_ticks,
        started_at_ms: started_at_ms(start_ticks),
    })
}

fn read_bounded(path: &Path, max: u64) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(max)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(bytes)
}

fn split_nul(bytes: &[u8]) -> Vec<String> {
    bytes
        .split(|b| *b == 0)
        .filter(|part| !part.is_empty())
        .map(|part| String::from_utf8_lossy(part).into_owned())
        .collect()
}

/// Field 22 of `/proc/PID/stat`, counted after the `)` that ends the
/// command name (which may itself hold spaces and parentheses).
fn start_ticks(stat: &[u8]) -> Option<u64> {
    let text = String::from_utf8_lossy(stat);
    let after = &text[text.rfind(')')? + 1..];
    after.split_whitespace().nth(19)?.parse().ok()
}

/// A start time in clock ticks since boot, as milliseconds since the epoch.
fn started_at_ms(ticks: u64) -> u64 {
    // SAFETY: sysconf takes a plain constant.
    let hz = u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) })
        .ok()
        .filter(|hz| *hz > 0)
        .unwrap_or(100);
    let mut boot = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: one timespec we own.
    if unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut boot) } != 0 {
        return 0;
    }
    let since_boot_ms = u64::try_from(boot.tv_sec).unwrap_or(0) * 1000
        + u64::try_from(boot.tv_nsec).unwrap_or(0) / 1_000_000;
    let age_ms = since_boot_ms.saturating_sub(ticks * 1000 / hz);
    crate::now_millis().saturating_sub(age_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_reads_back() {
        let me = read(std::process::id() as i32).unwrap();
        assert!(!me.argv.is_empty());
        let age = crate::now_millis().saturating_sub(me.started_at_ms);
        assert!(age < 10 * 60 * 1000, "started {age} ms ago?");
        assert!(read(i32::MAX).is_none());
    }

    #[test]
    fn children_are_read_from_proc() {
        let mut child = std::process::Command::new("sleep")
            .arg("100")
            .spawn()
            .unwrap();
        let pid = i32::try_from(child.id()).unwrap();
        // Spawned from a test thread: found through that thread's list.
        let found = children(std::process::id() as i32);
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(found.contains(&pid), "{found:?} lacks {pid}");
        assert!(children(i32::MAX).is_empty());
    }

    #[test]
    fn the_start_time_is_read_after_the_command_name() {
        let stat = b"42 (a) b (c) S 1 42 42 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 90964 1 2";
        assert_eq!(start_ticks(stat), Some(90964));
    }
}
