//! What `/proc` says about a process: enough to recognise a pane's
//! processes again after the server that started them died, and to tell
//! which agent a pane's foreground process is.
//!
//! A pane's child leads its own session (its pid is the session id), and
//! everything it starts stays in that session unless it leaves on purpose
//! (`setsid`). The child's start time tells it from a later process that
//! got the same pid.
//!
//! Every read is bounded (see the `MAX_` constants), and blocks: callers on
//! the runtime read on a blocking thread, and only when something changed
//! (a pane's foreground process group), so an idle pane costs nothing.

use std::collections::HashMap;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use signaltty_adapters::{AgentProcess, ProcessFacts, store_env_names};

/// The most of a process's environment that is read.
pub const MAX_ENVIRON: u64 = 256 * 1024;
/// The most bytes read of a command line, and of a stat or children line.
const MAX_CMDLINE: u64 = 64 * 1024;
const MAX_STAT: u64 = 4 * 1024;
const MAX_CHILDREN: usize = 64;
const MAX_THREADS: usize = 256;

/// The fields of `/proc/PID/stat` that matter here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    pub pid: i32,
    /// One letter: `R`, `S`, `T`, `Z` (ended, not yet reaped)…
    pub state: char,
    pub parent: i32,
    pub session: i32,
    /// Clock ticks after boot (field 22).
    pub start_ticks: u64,
    /// Clock ticks of CPU it has used, user and system (fields 14, 15).
    pub cpu_ticks: u64,
}

impl ProcStat {
    /// Still running: present, and not a zombie waiting to be reaped.
    pub fn running(&self) -> bool {
        self.state != 'Z' && self.state != 'X'
    }
}

/// A pane's foreground process group leader, as `/proc` shows it.
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

fn proc_dir(pid: i32) -> PathBuf {
    PathBuf::from(format!("/proc/{pid}"))
}

/// The process's stat, if it exists.
pub fn stat(pid: i32) -> Option<ProcStat> {
    let bytes = read_bounded(&proc_dir(pid).join("stat"), MAX_STAT)?;
    parse_stat(pid, &String::from_utf8_lossy(&bytes))
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
        parent: fields.get(4 - 3)?.parse().ok()?,
        session: fields.get(6 - 3)?.parse().ok()?,
        start_ticks: fields.get(22 - 3)?.parse().ok()?,
        cpu_ticks: fields.get(14 - 3)?.parse::<u64>().ok()?
            + fields.get(15 - 3)?.parse::<u64>().ok()?,
    })
}

/// The uid owning the process (its `/proc` entry).
pub fn owner(pid: i32) -> Option<u32> {
    std::fs::metadata(proc_dir(pid)).ok().map(|m| m.uid())
}

/// The process's environment as it was started, as `NAME=VALUE` entries
/// (at most [`MAX_ENVIRON`] bytes of it).
pub fn environ(pid: i32) -> Option<Vec<String>> {
    read_bounded(&proc_dir(pid).join("environ"), MAX_ENVIRON).map(|bytes| split_nul(&bytes))
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

/// Reads what `/proc/PID` says of a foreground process; `None` once the
/// process is gone.
pub fn foreground(pid: i32) -> Option<Foreground> {
    let dir = proc_dir(pid);
    let argv = split_nul(&read_bounded(&dir.join("cmdline"), MAX_CMDLINE)?);
    let (agent_env, env) = store_env(environ(pid).unwrap_or_default());
    let start_ticks = stat(pid)?.start_ticks;
    Some(Foreground {
        pid,
        exe: link(&dir.join("exe")),
        argv,
        agent_env,
        env,
        cwd: link(&dir.join("cwd")),
        start_ticks,
        started_at_ms: started_at_ms(start_ticks),
    })
}

/// `SIGNALTTY_AGENT`, and the variables that say where agents keep their
/// sessions, out of an environment.
fn store_env(environ: Vec<String>) -> (Option<String>, Vec<(String, String)>) {
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
    (agent_env, env)
}

/// The direct children of `pid`, from each of its threads'
/// `/proc/PID/task/TID/children` — read when a session is looked for,
/// since a loader starts its agent after it became the foreground. At
/// most [`MAX_CHILDREN`], from at most [`MAX_THREADS`] threads.
pub fn children(pid: i32) -> Vec<i32> {
    let Ok(tasks) = std::fs::read_dir(proc_dir(pid).join("task")) else {
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

fn link(path: &Path) -> Option<String> {
    std::fs::read_link(path)
        .ok()
        .map(|p| p.display().to_string())
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

/// A start time in clock ticks since boot, as milliseconds since the epoch.
/// The clock ticks of `/proc` start times per second.
fn ticks_per_second() -> u64 {
    // SAFETY: sysconf takes a plain constant.
    u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) })
        .ok()
        .filter(|hz| *hz > 0)
        .unwrap_or(100)
}

/// The processes of the session led by `leader` (a pane's child) other
/// than the leader, `agent`, and what `agent` started within `startup` of
/// its own start (the servers an agent starts with it, MCP servers) while
/// they are idle: what else runs there — a build, a background job, a
/// server of the agent's that used CPU over `sample` — as `name (pid N)`.
/// At most [`MAX_CHILDREN`]. A blocking walk of `/proc`, which sleeps out
/// `sample`.
pub fn others_in_session(
    leader: i32,
    agent: i32,
    startup: std::time::Duration,
    sample: std::time::Duration,
) -> Vec<String> {
    let Some(agent_start) = stat(agent).map(|s| s.start_ticks) else {
        return Vec::new();
    };
    let members: HashMap<i32, ProcStat> = pids()
        .into_iter()
        .filter_map(stat)
        .filter(|s| s.session == leader && s.running())
        .map(|s| (s.pid, s))
        .collect();
    let window = agent_start..=agent_start + startup.as_secs() * ticks_per_second();
    let (own, mut others): (Vec<&ProcStat>, Vec<&ProcStat>) = members
        .values()
        .filter(|m| m.pid != leader && m.pid != agent)
        .partition(|m| window.contains(&m.start_ticks) && descends_from(m, agent, &members));
    std::thread::sleep(sample);
    let busy =
        |m: &&ProcStat| stat(m.pid).is_some_and(|now| now.cpu_ticks > m.cpu_ticks + BUSY_TICKS);
    let own_busy: Vec<&ProcStat> = own.into_iter().filter(busy).collect();
    others.extend(own_busy);
    let mut others: Vec<String> = others
        .into_iter()
        .map(|m| format!("{} (pid {})", name(m.pid), m.pid))
        .collect();
    others.sort();
    others.truncate(MAX_CHILDREN);
    others
}

/// More CPU than this, in clock ticks over a sample, is a server at work.
const BUSY_TICKS: u64 = 2;

/// Whether `member`'s parents, within `members`, lead to `ancestor`.
fn descends_from(member: &ProcStat, ancestor: i32, members: &HashMap<i32, ProcStat>) -> bool {
    let mut parent = member.parent;
    // A session's parent chain is short; the bound only stops a cycle that
    // pids reused mid-walk could make.
    for _ in 0..members.len() {
        if parent == ancestor {
            return true;
        }
        match members.get(&parent) {
            Some(next) => parent = next.parent,
            None => return false,
        }
    }
    false
}

/// A process's command name (`/proc/PID/comm`).
fn name(pid: i32) -> String {
    read_bounded(&proc_dir(pid).join("comm"), 64)
        .map(|bytes| String::from_utf8_lossy(&bytes).trim().to_string())
        .unwrap_or_default()
}

fn started_at_ms(ticks: u64) -> u64 {
    let hz = ticks_per_second();
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
    fn only_what_the_agent_started_counts_as_its_own() {
        let member = |pid, parent| ProcStat {
            pid,
            state: 'S',
            parent,
            session: 10,
            start_ticks: 0,
            cpu_ticks: 0,
        };
        // 10 the shell, 20 the agent, 21 its server, 22 that server's
        // child, 30 a job of the shell.
        let members: HashMap<i32, ProcStat> = [(10, 1), (20, 10), (21, 20), (22, 21), (30, 10)]
            .into_iter()
            .map(|(pid, parent)| (pid, member(pid, parent)))
            .collect();
        assert!(descends_from(&members[&21], 20, &members));
        assert!(descends_from(&members[&22], 20, &members));
        assert!(!descends_from(&members[&30], 20, &members));
        assert!(!descends_from(&members[&10], 20, &members));
    }

    #[test]
    fn stat_fields_are_counted_from_the_last_parenthesis() {
        let line = "4242 (we ird) (name) S 1 4242 4242 34817 4242 4194560 107 0 0 0 0 0 0 0 \
                    20 0 1 0 987654 2555904 190 18446744073709551615 1 1 0 0 0 0 0 4 0 0 0 0 \
                    17 0 0 0 0 0 0";
        let stat = parse_stat(4242, line).unwrap();
        assert_eq!(stat.state, 'S');
        assert_eq!(stat.parent, 1);
        assert_eq!(stat.session, 4242);
        assert_eq!(stat.start_ticks, 987_654);
        assert_eq!(stat.cpu_ticks, 0);
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

    #[test]
    fn this_process_reads_back() {
        let me = foreground(std::process::id() as i32).unwrap();
        assert!(!me.argv.is_empty());
        let age = crate::now_millis().saturating_sub(me.started_at_ms);
        assert!(age < 10 * 60 * 1000, "started {age} ms ago?");
        assert!(foreground(i32::MAX).is_none());
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
        let stat = "42 (a) b (c) S 1 42 42 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 90964 1 2";
        assert_eq!(parse_stat(42, stat).map(|s| s.start_ticks), Some(90964));
    }
}
