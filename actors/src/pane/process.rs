//! A pane's child process and its PTY.
//!
//! The PTY is blocking, so three plain threads sit around it: a reader that
//! forwards output (taking a credit per chunk, so at most
//! [`CHUNKS_IN_FLIGHT`] chunks wait in the actor's unbounded mailbox and a
//! fast child meets back-pressure), a writer that owns the PTY's input side
//! (a child that does not read its input must never block the actor; what
//! waits for it is bounded by the pane's
//! [`InputQueue`](super::input::InputQueue)), and a waiter that reaps the
//! child. Dropping a [`PaneProcess`] hangs up the child's process group and
//! escalates to SIGKILL if it lingers: ractor does not run `post_stop` after
//! a panic, but it does drop the state.

use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};
use signaltty_persistence::ProcessRecord;
use tracing::{debug, warn};

use super::input::InputPiece;
use crate::error::SpawnError;

/// Output chunks that may be on their way to the actor at once.
pub const CHUNKS_IN_FLIGHT: usize = 4;
/// The reader's buffer: large reads keep the syscall count down on a flood.
const READ_CHUNK: usize = 64 * 1024;
/// How long a hung-up child may linger before it gets SIGKILL.
const HANGUP_GRACE: Duration = Duration::from_secs(2);

/// What the process threads tell the pane actor. `spawn` tells one
/// incarnation of the pane's process from the next, so a late event from a
/// process that was replaced is ignored.
#[derive(Debug)]
pub enum ProcessEvent {
    Output { spawn: u64, bytes: Vec<u8> },
    Eof { spawn: u64 },
    Exited { spawn: u64, code: i32 },
}

/// Delivers a process event; returns false once nobody listens any more.
pub type EventSink = Arc<dyn Fn(ProcessEvent) -> bool + Send + Sync>;

/// Everything needed to start a child on a fresh PTY.
#[derive(Debug, Clone)]
pub struct SpawnSpec {
    pub argv: Vec<String>,
    pub cwd: PathBuf,
    /// Set on top of the server's own environment.
    pub env: Vec<(String, String)>,
    pub rows: u16,
    pub cols: u16,
}

/// Counts children that are not reaped yet, so shutdown can wait for them.
#[derive(Debug, Clone, Default)]
pub struct ReapTracker(Arc<(Mutex<usize>, Condvar)>);

impl ReapTracker {
    fn started(&self) {
        let (count, _) = &*self.0;
        *count.lock().unwrap_or_else(|e| e.into_inner()) += 1;
    }

    fn reaped(&self) {
        let (count, cvar) = &*self.0;
        let mut n = count.lock().unwrap_or_else(|e| e.into_inner());
        *n = n.saturating_sub(1);
        cvar.notify_all();
    }

    /// Blocks until every child is reaped or `timeout` passes; returns how
    /// many are still running.
    pub fn wait_all(&self, timeout: Duration) -> usize {
        let (count, cvar) = &*self.0;
        let guard = count.lock().unwrap_or_else(|e| e.into_inner());
        let (guard, _) = cvar
            .wait_timeout_while(guard, timeout, |n| *n > 0)
            .unwrap_or_else(|e| e.into_inner());
        *guard
    }
}

/// A running (or just ended) child on its PTY.
pub struct PaneProcess {
    master: Box<dyn MasterPty + Send>,
    input: Sender<InputPiece>,
    credits: SyncSender<()>,
    pid: i32,
    /// The child's pid and start time, to be found again after a crash.
    identity: Option<ProcessRecord>,
    /// Receives once the waiter has reaped the child.
    reaped: Option<Receiver<()>>,
}

impl std::fmt::Debug for PaneProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PaneProcess")
            .field("pid", &self.pid)
            .finish()
    }
}

impl PaneProcess {
    pub fn spawn(
        spec: &SpawnSpec,
        spawn: u64,
        sink: EventSink,
        tracker: &ReapTracker,
    ) -> Result<PaneProcess, SpawnError> {
        let program = spec.argv.first().ok_or(SpawnError::EmptyCommand)?;
        // portable-pty silently falls back to $HOME for a bad cwd.
        if !spec.cwd.is_dir() {
            return Err(SpawnError::CwdNotDir(spec.cwd.clone()));
        }
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: spec.rows,
                cols: spec.cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .map_err(|e| SpawnError::Pty(e.to_string()))?;

        let mut cmd = CommandBuilder::new(program);
        cmd.args(&spec.argv[1..]);
        cmd.cwd(&spec.cwd);
        cmd.env("TERM", "xterm-256color");
        for (key, value) in &spec.env {
            cmd.env(key, value);
        }
        let child = pair
            .slave
            .spawn_command(cmd)
            .map_err(|e| SpawnError::Exec {
                program: program.clone(),
                reason: e.to_string(),
            })?;
        // The reader only sees EOF once every slave fd is closed.
        drop(pair.slave);
        let pid = child
            .process_id()
            .and_then(|p| i32::try_from(p).ok())
            .ok_or_else(|| SpawnError::Pty("child has no pid".into()))?;
        tracker.started();
        // Read before anything can reap the child and free its pid.
        let identity = crate::procfs::stat(pid).map(|stat| ProcessRecord {
            session: pid,
            start_ticks: stat.start_ticks,
        });

        let reader = pair
            .master
            .try_clone_reader()
            .map_err(|e| SpawnError::Pty(e.to_string()));
        let writer = pair
            .master
            .take_writer()
            .map_err(|e| SpawnError::Pty(e.to_string()));
        let (reader, writer) = match (reader, writer) {
            (Ok(r), Ok(w)) => (r, w),
            (Err(e), _) | (_, Err(e)) => {
                hang_up(pid);
                spawn_waiter(child, spawn, sink, tracker.clone(), None);
                return Err(e);
            }
        };

        let (credits_tx, credits_rx) = mpsc::sync_channel(CHUNKS_IN_FLIGHT);
        for _ in 0..CHUNKS_IN_FLIGHT {
            // The channel has room for exactly this many credits.
            let _ = credits_tx.try_send(());
        }
        let (input_tx, input_rx) = mpsc::channel();
        let (reaped_tx, reaped_rx) = mpsc::channel();

        spawn_reader(
            reader,
            ready_fd(pair.master.as_ref()),
            credits_rx,
            spawn,
            sink.clone(),
        );
        spawn_writer(writer, input_rx);
        spawn_waiter(child, spawn, sink, tracker.clone(), Some(reaped_tx));
        // Not the argv: it may hold a secret (the pane logs it without).
        debug!(pid, "spawned");
        Ok(PaneProcess {
            master: pair.master,
            input: input_tx,
            credits: credits_tx,
            pid,
            identity,
            reaped: Some(reaped_rx),
        })
    }

    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// The child's pid (its session) and start time, if `/proc` had them.
    pub fn identity(&self) -> Option<ProcessRecord> {
        self.identity
    }

    /// Gives back the credit of one output chunk the actor has processed.
    pub fn return_credit(&self) {
        let _ = self.credits.try_send(());
    }

    /// Queues input for the child; its room in the queue was reserved by
    /// whoever brought it.
    pub fn write(&self, piece: InputPiece) {
        let _ = self.input.send(piece);
    }

    pub fn resize(&self, rows: u16, cols: u16) {
        let size = PtySize {
            rows,
            cols,
            pixel_width: 0,
            pixel_height: 0,
        };
        if let Err(e) = self.master.resize(size) {
            warn!(error = %e, "resize failed");
        }
    }

    /// Sends `signal` to the child, or to its whole process group. The child
    /// leads its own session, so its pid is also its group id.
    pub fn signal(&self, signal: i32, group: bool) -> std::io::Result<()> {
        let target = if group { -self.pid } else { self.pid };
        // SAFETY: kill(2) takes plain integers and touches no memory of ours.
        if unsafe { libc::kill(target, signal) } == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }

    /// The PTY's foreground process group (its leader's pid): one ioctl.
    pub fn foreground_pgid(&self) -> Option<i32> {
        self.master.process_group_leader()
    }

    /// The working directory of the PTY's foreground process (what a `cd`
    /// in the shell, or a program it started, is working in).
    pub fn foreground_cwd(&self) -> Option<PathBuf> {
        let pid = self.master.process_group_leader().unwrap_or(self.pid);
        std::fs::read_link(Path::new("/proc").join(pid.to_string()).join("cwd")).ok()
    }
}

impl Drop for PaneProcess {
    fn drop(&mut self) {
        let Some(reaped) = self.reaped.take() else {
            return;
        };
        if reaped.try_recv().is_ok() {
            return;
        }
        hang_up(self.pid);
        let pid = self.pid;
        // Escalation waits off the actor's thread; the waiter still reaps.
        let escalate = std::thread::Builder::new()
            .name(format!("pane-hangup-{pid}"))
            .spawn(move || {
                if reaped.recv_timeout(HANGUP_GRACE).is_err() {
                    // SAFETY: kill(2) with plain integers.
                    unsafe { libc::kill(-pid, libc::SIGKILL) };
                }
            });
        if let Err(e) = escalate {
            warn!(pid, error = %e, "could not start the hang-up watchdog");
        }
    }
}

fn hang_up(pid: i32) {
    // SAFETY: kill(2) with plain integers.
    unsafe { libc::kill(-pid, libc::SIGHUP) };
}

fn spawn_reader(
    mut reader: Box<dyn Read + Send>,
    ready: Option<OwnedFd>,
    credits: Receiver<()>,
    spawn: u64,
    sink: EventSink,
) {
    let started = std::thread::Builder::new()
        .name("pane-reader".into())
        .spawn(move || {
            let mut buf = vec![0u8; READ_CHUNK];
            // A credit is taken before each chunk: the actor returns it once
            // the chunk is processed, and the pane is gone once the sending
            // side is dropped.
            'chunks: while credits.recv().is_ok() {
                // Wait for the first bytes, then take what else is already
                // there: a flood travels in large chunks (a PTY read gives at
                // most 4 KiB), and a keystroke's echo is not held back.
                let mut filled = 0;
                let mut ended = false;
                loop {
                    match reader.read(&mut buf[filled..]) {
                        Ok(0) => ended = true,
                        Ok(n) => filled += n,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                        // Linux reports EIO once the slave side is closed.
                        Err(_) => ended = true,
                    }
                    let room = buf.len() - filled >= 4096;
                    if ended || !room || !ready.as_ref().is_some_and(readable_now) {
                        break;
                    }
                }
                if filled > 0 {
                    let bytes = buf[..filled].to_vec();
                    if !sink(ProcessEvent::Output { spawn, bytes }) {
                        return;
                    }
                }
                if ended {
                    break 'chunks;
                }
            }
            sink(ProcessEvent::Eof { spawn });
        });
    if let Err(e) = started {
        warn!(error = %e, "could not start the pane reader");
    }
}

/// Whether a read on `fd` would return at once.
fn readable_now(fd: &OwnedFd) -> bool {
    let mut poll = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one pollfd we own, a zero timeout.
    unsafe { libc::poll(&mut poll, 1, 0) == 1 && poll.revents & libc::POLLIN != 0 }
}

/// A descriptor of our own for the PTY master, to ask whether more output
/// is waiting; it stays valid as long as the reader needs it.
fn ready_fd(master: &dyn MasterPty) -> Option<OwnedFd> {
    let fd = master.as_raw_fd()?;
    // SAFETY: dup of a descriptor that is open for the duration of the call.
    let copy = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    // SAFETY: a fresh descriptor from fcntl is ours alone.
    (copy >= 0).then(|| unsafe { OwnedFd::from_raw_fd(copy) })
}

fn spawn_writer(mut writer: Box<dyn Write + Send>, input: Receiver<InputPiece>) {
    let started = std::thread::Builder::new()
        .name("pane-writer".into())
        .spawn(move || {
            // Each piece gives its room back once written; what is left when
            // the child has gone is dropped with the channel.
            for piece in input {
                if writer
                    .write_all(piece.bytes())
                    .and_then(|()| writer.flush())
                    .is_err()
                {
                    break;
                }
            }
        });
    if let Err(e) = started {
        warn!(error = %e, "could not start the pane writer");
    }
}

fn spawn_waiter(
    child: Box<dyn Child + Send + Sync>,
    spawn: u64,
    sink: EventSink,
    tracker: ReapTracker,
    reaped: Option<Sender<()>>,
) {
    let mut child = child;
    let started = std::thread::Builder::new()
        .name("pane-waiter".into())
        .spawn(move || {
            let code = wait_for_exit_code(child.as_mut());
            tracker.reaped();
            if let Some(reaped) = reaped {
                let _ = reaped.send(());
            }
            sink(ProcessEvent::Exited { spawn, code });
        });
    if let Err(e) = started {
        warn!(error = %e, "could not start the pane waiter; the child will not be reaped");
    }
}

/// Reaps the child and returns its exit code, shell style: 128 + the signal
/// number when a signal ended it.
fn wait_for_exit_code(child: &mut (dyn Child + Send + Sync)) -> i32 {
    let child: &mut dyn Child = child;
    if let Some(std_child) = child.as_any_mut().downcast_mut::<std::process::Child>() {
        use std::os::unix::process::ExitStatusExt;
        return match std_child.wait() {
            Ok(status) => status
                .code()
                .or_else(|| status.signal().map(|s| 128 + s))
                .unwrap_or(1),
            Err(e) => {
                warn!(error = %e, "wait failed");
                1
            }
        };
    }
    match child.wait() {
        Ok(status) => i32::try_from(status.exit_code()).unwrap_or(1),
        Err(e) => {
            warn!(error = %e, "wait failed");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(script: &str) -> SpawnSpec {
        SpawnSpec {
            argv: vec!["sh".into(), "-c".into(), script.into()],
            cwd: PathBuf::from("/"),
            env: Vec::new(),
            rows: 24,
            cols: 80,
        }
    }

    fn collect() -> (EventSink, Receiver<ProcessEvent>) {
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        let sink: EventSink =
            Arc::new(move |event| tx.lock().map(|tx| tx.send(event).is_ok()).unwrap_or(false));
        (sink, rx)
    }

    fn exit_code(rx: &Receiver<ProcessEvent>) -> i32 {
        loop {
            match rx.recv_timeout(Duration::from_secs(10)).expect("an exit") {
                ProcessEvent::Exited { code, .. } => return code,
                _ => continue,
            }
        }
    }

    #[test]
    fn a_fast_child_is_held_back_until_chunks_are_processed() {
        let (sink, rx) = collect();
        let tracker = ReapTracker::default();
        let process = PaneProcess::spawn(&spec("yes"), 1, sink, &tracker).unwrap();
        for _ in 0..CHUNKS_IN_FLIGHT {
            let event = rx.recv_timeout(Duration::from_secs(10)).expect("output");
            assert!(matches!(event, ProcessEvent::Output { spawn: 1, .. }));
        }
        // No credit came back, so no further chunk may come.
        assert!(rx.recv_timeout(Duration::from_millis(300)).is_err());
        process.return_credit();
        let event = rx.recv_timeout(Duration::from_secs(10)).expect("output");
        assert!(matches!(event, ProcessEvent::Output { .. }));
        drop(process);
        assert_eq!(
            tracker.wait_all(Duration::from_secs(10)),
            0,
            "the child is reaped"
        );
    }

    #[test]
    fn exit_codes_are_kept_shell_style() {
        let tracker = ReapTracker::default();
        let (sink, rx) = collect();
        let _five = PaneProcess::spawn(&spec("exit 5"), 1, sink, &tracker).unwrap();
        assert_eq!(exit_code(&rx), 5);
        let (sink, rx) = collect();
        let _killed = PaneProcess::spawn(&spec("kill -9 $$"), 1, sink, &tracker).unwrap();
        assert_eq!(exit_code(&rx), 128 + 9);
    }

    #[test]
    fn a_cwd_that_is_not_a_directory_is_refused() {
        let (sink, _rx) = collect();
        let mut bad = spec("true");
        bad.cwd = PathBuf::from("/etc/passwd");
        let err = PaneProcess::spawn(&bad, 1, sink, &ReapTracker::default()).unwrap_err();
        assert!(matches!(err, SpawnError::CwdNotDir(_)), "{err}");
    }
}
