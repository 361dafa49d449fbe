//! What a dead server left running, found and ended at the next start.
//!
//! A SIGKILLed server closes every PTY, and the kernel hangs up each pane's
//! session: most programs end. One that ignores the hang-up (Gemini does)
//! keeps running with nobody to talk to, and resuming its pane would start
//! a second agent on the same conversation. So at start, for every saved
//! pane with a known process, the processes that are still in that
//! process's session, belong to this user and carry the pane's
//! `SIGNALTTY_PANE` and this server's `SIGNALTTY_SOCKET` are sent TERM, and
//! KILL after [`GRACE`]. What left the session on purpose (`setsid`) is
//! never touched. This runs on a thread of its own; start does not wait for
//! it, a resume or respawn (asked for or automatic) does.

use std::collections::HashMap;
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

use signaltty_actors::procfs::{self, ProcStat};
use signaltty_persistence::{ProcessRecord, SavedPane};
use tokio::sync::watch;
use tracing::{info, warn};

/// How long an orphan has to end after TERM before it gets KILL.
pub const GRACE: Duration = Duration::from_secs(2);
/// How long to wait for a KILLed orphan to be gone.
const KILL_WAIT: Duration = Duration::from_secs(1);
/// Rounds of looking again, for what a leftover started meanwhile.
const ROUNDS: usize = 3;
/// How long a resume or respawn waits for the cleanup to finish.
pub const RESUME_WAIT: Duration = Duration::from_secs(5);
const POLL: Duration = Duration::from_millis(20);

/// What the cleanup found and did, for `ctl status`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OrphanReport {
    /// Processes found left over from the previous server.
    pub found: usize,
    /// Of those, ended by TERM.
    pub terminated: usize,
    /// Of those, ended by KILL after the grace.
    pub killed: usize,
    /// Of those, still running after KILL (should not happen).
    pub survived: usize,
    /// The cleanup has finished.
    pub done: bool,
}

/// A process left over from a pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Orphan {
    pub pid: i32,
    pub pane: String,
}

/// Starts the cleanup for `panes` on a thread of its own; the receiver
/// follows its report until `done`.
pub fn end_in_background(panes: &[SavedPane], socket: &Path) -> watch::Receiver<OrphanReport> {
    let (report, follow) = watch::channel(OrphanReport::default());
    let sessions: Vec<(String, ProcessRecord)> = panes
        .iter()
        .filter_map(|p| p.process.map(|process| (p.id.to_string(), process)))
        .collect();
    let socket = socket.display().to_string();
    let started = thread::Builder::new()
        .name("orphan-cleanup".into())
        .spawn(move || {
            let mut tally = OrphanReport::default();
            for _ in 0..ROUNDS {
                let orphans = find(&sessions, &socket);
                if orphans.is_empty() {
                    break;
                }
                end(&orphans, &mut tally, &report);
            }
            if tally.found > 0 {
                info!(
                    found = tally.found,
                    terminated = tally.terminated,
                    killed = tally.killed,
                    survived = tally.survived,
                    "ended the processes left from before the restart"
                );
            }
            tally.done = true;
            report.send_replace(tally);
        });
    if let Err(e) = started {
        warn!(error = %e, "could not start looking for orphans of the previous server");
        return watch::channel(OrphanReport {
            done: true,
            ..OrphanReport::default()
        })
        .1;
    }
    follow
}

/// Waits (at most [`RESUME_WAIT`]) until the cleanup has finished: a pane
/// is resumed only once its previous agent is gone, never beside it.
pub async fn settled(report: &watch::Receiver<OrphanReport>) {
    let mut report = report.clone();
    let done = report.wait_for(|report| report.done);
    let _ = tokio::time::timeout(RESUME_WAIT, done).await;
}

/// The processes of this user that are left over from `sessions`.
fn find(sessions: &[(String, ProcessRecord)], socket: &str) -> Vec<Orphan> {
    if sessions.is_empty() {
        return Vec::new();
    }
    // SAFETY: getuid(2) cannot fail.
    let uid = unsafe { libc::getuid() };
    let table: Vec<ProcStat> = procfs::pids()
        .into_iter()
        .filter(|&pid| procfs::owner(pid) == Some(uid))
        .filter_map(procfs::stat)
        .collect();
    select(sessions, &table, socket, procfs::environ)
}

/// The orphans in the process `table`: in a saved pane's session (one not
/// taken over by a later process with the pane child's pid), and carrying
/// that pane's id and `socket` in their environment.
fn select(
    sessions: &[(String, ProcessRecord)],
    table: &[ProcStat],
    socket: &str,
    environ: impl Fn(i32) -> Option<Vec<String>>,
) -> Vec<Orphan> {
    let by_pid: HashMap<i32, &ProcStat> = table.iter().map(|p| (p.pid, p)).collect();
    let socket_var = format!("SIGNALTTY_SOCKET={socket}");
    let mut orphans = Vec::new();
    for (pane, process) in sessions {
        // The pid of the pane's child now leads another session: the old
        // one, and all in it, are long gone.
        let reused = by_pid.get(&process.session).is_some_and(|leader| {
            leader.session == process.session && leader.start_ticks != process.start_ticks
        });
        if reused {
            continue;
        }
        let pane_var = format!("SIGNALTTY_PANE={pane}");
        for candidate in table {
            if candidate.session != process.session
                || !candidate.running()
                || candidate.start_ticks < process.start_ticks
            {
                continue;
            }
            let carries = environ(candidate.pid)
                .is_some_and(|env| env.contains(&pane_var) && env.contains(&socket_var));
            if carries {
                orphans.push(Orphan {
                    pid: candidate.pid,
                    pane: pane.clone(),
                });
            }
        }
    }
    orphans
}

/// TERM, a grace, KILL, counted into `tally`; the report follows.
fn end(orphans: &[Orphan], tally: &mut OrphanReport, report: &watch::Sender<OrphanReport>) {
    tally.found += orphans.len();
    for orphan in orphans {
        warn!(pane = %orphan.pane, pid = orphan.pid, "a process left from before the restart is still running in its pane's session; ending it (TERM)");
        signal(orphan.pid, libc::SIGTERM);
    }
    report.send_replace(*tally);
    let pids: Vec<i32> = orphans.iter().map(|o| o.pid).collect();
    let lingering = wait_gone(&pids, GRACE);
    tally.terminated += orphans.len() - lingering.len();
    for &pid in &lingering {
        warn!(pid, "a leftover process ignored TERM; sending KILL");
        signal(pid, libc::SIGKILL);
    }
    let survivors = wait_gone(&lingering, KILL_WAIT);
    tally.killed += lingering.len() - survivors.len();
    tally.survived += survivors.len();
    report.send_replace(*tally);
}

fn signal(pid: i32, signal: i32) {
    // SAFETY: kill(2) with plain integers.
    unsafe { libc::kill(pid, signal) };
}

/// Waits until none of `pids` runs, or `timeout`; returns those that still do.
fn wait_gone(pids: &[i32], timeout: Duration) -> Vec<i32> {
    let deadline = Instant::now() + timeout;
    loop {
        let running: Vec<i32> = pids
            .iter()
            .copied()
            .filter(|&pid| procfs::stat(pid).is_some_and(|s| s.running()))
            .collect();
        if running.is_empty() || Instant::now() >= deadline {
            return running;
        }
        thread::sleep(POLL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOCKET: &str = "/run/user/1000/signaltty/signaltty.sock";

    fn proc(pid: i32, session: i32, start_ticks: u64) -> ProcStat {
        ProcStat {
            pid,
            state: 'S',
            parent: 1,
            session,
            start_ticks,
            cpu_ticks: 0,
        }
    }

    fn env_of(pane: &str, socket: &str) -> Vec<String> {
        vec![
            "HOME=/home/u".into(),
            format!("SIGNALTTY_PANE={pane}"),
            format!("SIGNALTTY_SOCKET={socket}"),
        ]
    }

    fn saved(pane: &str, session: i32, start_ticks: u64) -> (String, ProcessRecord) {
        (
            pane.to_string(),
            ProcessRecord {
                session,
                start_ticks,
            },
        )
    }

    #[test]
    fn the_survivors_of_a_panes_session_carrying_its_id_and_socket_are_orphans() {
        let table = [
            proc(100, 100, 5000), // the pane's child, which ignored the hang-up
            proc(101, 100, 5100), // its child, still in the session
            proc(102, 102, 5200), // left the session with setsid
            proc(103, 100, 5300), // in the session, from another server
            proc(104, 100, 5400), // a zombie
            proc(200, 200, 100),  // anything else
        ];
        let environ = |pid: i32| {
            Some(match pid {
                103 => env_of("pane-a", "/tmp/other.sock"),
                200 => vec!["HOME=/home/u".into()],
                _ => env_of("pane-a", SOCKET),
            })
        };
        let mut table = table.to_vec();
        table[4].state = 'Z';
        let orphans = select(&[saved("pane-a", 100, 5000)], &table, SOCKET, environ);
        let pids: Vec<i32> = orphans.iter().map(|o| o.pid).collect();
        assert_eq!(pids, [100, 101]);
        assert!(orphans.iter().all(|o| o.pane == "pane-a"));
    }

    #[test]
    fn a_session_whose_leader_pid_was_reused_is_left_alone() {
        // The saved child (pid 100, started at 5000) is gone; a newer
        // process got pid 100 and leads a session of its own.
        let table = [proc(100, 100, 9000), proc(101, 100, 9100)];
        let environ = |_| Some(env_of("pane-a", SOCKET));
        assert!(select(&[saved("pane-a", 100, 5000)], &table, SOCKET, environ).is_empty());
    }

    #[test]
    fn only_the_panes_own_id_counts() {
        let table = [proc(100, 100, 5000)];
        let environ = |_| Some(env_of("pane-b", SOCKET));
        assert!(select(&[saved("pane-a", 100, 5000)], &table, SOCKET, environ).is_empty());
        let unreadable = |_| None;
        assert!(select(&[saved("pane-a", 100, 5000)], &table, SOCKET, unreadable).is_empty());
    }

    #[test]
    fn a_real_orphan_is_ended_and_counted() {
        let mut child = std::process::Command::new("sleep")
            .arg("60")
            .spawn()
            .unwrap();
        let pid = i32::try_from(child.id()).unwrap();
        let (report, follow) = watch::channel(OrphanReport::default());
        let mut tally = OrphanReport::default();
        let orphan = Orphan {
            pid,
            pane: "p".into(),
        };
        end(&[orphan], &mut tally, &report);
        // Reaped here, since this test is its parent.
        child.wait().unwrap();
        assert_eq!((tally.found, tally.terminated, tally.killed), (1, 1, 0));
        assert_eq!(*follow.borrow(), tally);
    }
}
