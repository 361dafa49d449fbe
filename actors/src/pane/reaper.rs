//! One reaper for every pane's child.
//!
//! No thread waits per child: one task wakes on SIGCHLD (or when a child is
//! added — it may have ended before anyone watched it) and asks each
//! watched pid, without blocking, whether it has ended. Only the pids it
//! was given are waited for: a child started elsewhere in the server (a
//! notification command) is its owner's to reap. A hung-up child that
//! lingers past [`HANGUP_GRACE`] gets SIGKILL from here too.
//!
//! A pid is only ever signalled while it is watched, under the same lock
//! the reaping happens under: a reaped pid may already belong to someone
//! else.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio::sync::{Notify, watch};
use tokio::time::Instant;
use tracing::warn;

/// How long a hung-up child may linger before it gets SIGKILL.
pub const HANGUP_GRACE: Duration = Duration::from_secs(2);

/// The server's reaper; cheap to clone. It lives as long as the async
/// runtime it was started on.
#[derive(Clone)]
pub struct Reaper {
    shared: Arc<Shared>,
}

struct Shared {
    children: Mutex<HashMap<i32, Watched>>,
    /// Held through a whole sweep, exit callbacks included: once
    /// [`Reaper::hold`] has it, no exit is on its way anywhere.
    sweeping: Mutex<()>,
    /// While set (a handover), nothing is reaped: a child that ends waits,
    /// a zombie, for the server that takes over.
    held: std::sync::atomic::AtomicBool,
    /// Wakes the reaper: a child was added or hung up.
    nudge: Notify,
    /// How many watched children are not reaped yet.
    running: watch::Sender<usize>,
}

/// Told the child's exit code, shell style, once it is reaped.
type OnExit = Box<dyn FnOnce(i32) + Send>;

struct Watched {
    on_exit: OnExit,
    /// When a hung-up child gets SIGKILL.
    kill_at: Option<Instant>,
}

impl std::fmt::Debug for Reaper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reaper")
            .field("running", &*self.shared.running.borrow())
            .finish()
    }
}

impl Reaper {
    /// Starts the reaper on the current async runtime.
    pub fn start() -> std::io::Result<Reaper> {
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(std::io::Error::other("the reaper needs an async runtime"));
        }
        let sigchld = signal(SignalKind::child())?;
        let shared = Arc::new(Shared {
            children: Mutex::new(HashMap::new()),
            sweeping: Mutex::new(()),
            held: std::sync::atomic::AtomicBool::new(false),
            nudge: Notify::new(),
            running: watch::Sender::new(0),
        });
        tokio::spawn(reap(shared.clone(), sigchld));
        Ok(Reaper { shared })
    }

    /// Reaps `pid` (a child of this process) when it ends, then calls
    /// `on_exit` with its exit code.
    pub fn watch(&self, pid: i32, on_exit: impl FnOnce(i32) + Send + 'static) {
        let mut children = self.shared.lock();
        children.insert(
            pid,
            Watched {
                on_exit: Box::new(on_exit),
                kill_at: None,
            },
        );
        self.shared.running.send_replace(children.len());
        drop(children);
        self.shared.nudge.notify_one();
    }

    /// Hangs up `pid`'s process group unless `pid` is reaped already, and
    /// kills the group if its leader outlives [`HANGUP_GRACE`].
    pub fn hang_up(&self, pid: i32) {
        let mut children = self.shared.lock();
        let Some(watched) = children.get_mut(&pid) else {
            return;
        };
        signal_group(pid, libc::SIGHUP);
        watched.kill_at = Some(Instant::now() + HANGUP_GRACE);
        drop(children);
        self.shared.nudge.notify_one();
    }

    /// Stops reaping (a handover is under way). When this returns, every
    /// child reaped before has had its exit told.
    pub fn hold(&self) {
        let _sweep = self.shared.sweeping();
        self.shared
            .held
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Reaps again after [`Reaper::hold`] (the handover failed).
    pub fn release(&self) {
        self.shared
            .held
            .store(false, std::sync::atomic::Ordering::SeqCst);
        self.shared.nudge.notify_one();
    }

    /// Waits until every watched child is reaped or `timeout` passes;
    /// returns how many still run.
    pub async fn wait_all(&self, timeout: Duration) -> usize {
        let mut running = self.shared.running.subscribe();
        let _ = tokio::time::timeout(timeout, running.wait_for(|n| *n == 0)).await;
        *running.borrow()
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, HashMap<i32, Watched>> {
        // Nothing panics while holding it, and the map stays whole if so.
        self.children.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn sweeping(&self) -> MutexGuard<'_, ()> {
        self.sweeping.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reaps every watched child that has ended, kills the hung-up ones
    /// that are overdue, and returns when it next has to look.
    fn sweep(&self) -> Option<Instant> {
        let _sweep = self.sweeping();
        if self.held.load(std::sync::atomic::Ordering::SeqCst) {
            return None;
        }
        let mut ended = Vec::new();
        let mut children = self.lock();
        let pids: Vec<i32> = children.keys().copied().collect();
        for pid in pids {
            if let Some(code) = try_reap(pid)
                && let Some(watched) = children.remove(&pid)
            {
                ended.push((watched.on_exit, code));
            }
        }
        let now = Instant::now();
        for (&pid, watched) in children.iter_mut() {
            if watched.kill_at.is_some_and(|at| at <= now) {
                signal_group(pid, libc::SIGKILL);
                watched.kill_at = None;
            }
        }
        let next = children.values().filter_map(|w| w.kill_at).min();
        self.running.send_replace(children.len());
        drop(children);
        for (on_exit, code) in ended {
            on_exit(code);
        }
        next
    }
}

async fn reap(shared: Arc<Shared>, mut sigchld: Signal) {
    let mut next_kill = None;
    loop {
        let kill_due = async {
            match next_kill {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = sigchld.recv() => {}
            () = shared.nudge.notified() => {}
            () = kill_due => {}
        }
        next_kill = shared.sweep();
    }
}

/// `pid`'s exit code, shell style (128 + the signal that ended it), if it
/// has ended; never blocks.
fn try_reap(pid: i32) -> Option<i32> {
    loop {
        let mut status = 0;
        // SAFETY: waitpid(2) writes one int we own.
        let reaped = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if reaped == pid {
            return Some(exit_code(status));
        }
        if reaped == 0 {
            return None;
        }
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::Interrupted {
            // Not our child (any more): nothing will ever be reaped.
            warn!(pid, error = %error, "wait failed");
            return Some(1);
        }
    }
}

fn exit_code(status: i32) -> i32 {
    if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else if libc::WIFSIGNALED(status) {
        128 + libc::WTERMSIG(status)
    } else {
        1
    }
}

fn signal_group(pid: i32, signal: i32) {
    // SAFETY: kill(2) with plain integers; `pid` is unreaped, so still ours.
    unsafe { libc::kill(-pid, signal) };
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::CommandExt;
    use std::process::Command;

    use tokio::sync::oneshot;

    use super::*;

    /// `sh -c script` leading its own process group, as a pane's child
    /// leads its session.
    #[allow(clippy::zombie_processes, reason = "the reaper under test waits")]
    fn child(script: &str) -> i32 {
        let child = Command::new("sh")
            .args(["-c", script])
            .process_group(0)
            .spawn()
            .unwrap();
        i32::try_from(child.id()).unwrap()
    }

    fn watch(reaper: &Reaper, pid: i32) -> oneshot::Receiver<i32> {
        let (tx, rx) = oneshot::channel();
        reaper.watch(pid, move |code| {
            let _ = tx.send(code);
        });
        rx
    }

    async fn code(rx: oneshot::Receiver<i32>) -> i32 {
        tokio::time::timeout(Duration::from_secs(10), rx)
            .await
            .expect("reaped in time")
            .expect("an exit code")
    }

    #[tokio::test]
    async fn exit_codes_are_kept_shell_style() {
        let reaper = Reaper::start().unwrap();
        let five = watch(&reaper, child("exit 5"));
        let killed = watch(&reaper, child("kill -9 $$"));
        assert_eq!(code(five).await, 5);
        assert_eq!(code(killed).await, 128 + 9);
        assert_eq!(reaper.wait_all(Duration::from_secs(1)).await, 0);
    }

    #[tokio::test]
    async fn a_child_that_ended_before_it_was_watched_is_reaped() {
        let reaper = Reaper::start().unwrap();
        let pid = child("exit 3");
        // Its SIGCHLD came and went before anyone watched it.
        let zombie = format!("/proc/{pid}/stat");
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !std::fs::read_to_string(&zombie).unwrap().contains(") Z ") {
            assert!(std::time::Instant::now() < deadline, "never ended");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(code(watch(&reaper, pid)).await, 3);
    }

    #[tokio::test]
    async fn a_hung_up_child_that_ignores_it_is_killed_after_the_grace() {
        let reaper = Reaper::start().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let ready = dir.path().join("ready");
        let pid = child(&format!(
            "trap '' HUP; touch '{}'; while :; do sleep 0.05; done",
            ready.display()
        ));
        let exited = watch(&reaper, pid);
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !ready.exists() {
            assert!(std::time::Instant::now() < deadline, "never started");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        // A stopped child neither blocks the reaper nor counts as ended.
        // SAFETY: kill(2) on our own child.
        unsafe { libc::kill(pid, libc::SIGSTOP) };
        assert_eq!(reaper.wait_all(Duration::from_millis(200)).await, 1);
        // SAFETY: as above.
        unsafe { libc::kill(pid, libc::SIGCONT) };
        let started = std::time::Instant::now();
        reaper.hang_up(pid);
        assert_eq!(code(exited).await, 128 + libc::SIGKILL);
        assert!(
            started.elapsed() >= HANGUP_GRACE,
            "killed only after the grace"
        );
        // Reaped: a second hang-up signals nothing (the pid may be reused).
        reaper.hang_up(pid);
        assert_eq!(reaper.wait_all(Duration::from_secs(1)).await, 0);
    }

    #[tokio::test]
    async fn only_watched_children_are_reaped() {
        let reaper = Reaper::start().unwrap();
        let mut other = Command::new("sh").args(["-c", "exit 7"]).spawn().unwrap();
        let watched = watch(&reaper, child("exit 0"));
        assert_eq!(code(watched).await, 0);
        // The other child's owner still gets its status.
        assert_eq!(other.wait().unwrap().code(), Some(7));
    }
}
