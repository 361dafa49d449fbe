//! A pane's child process on a real PTY.
//!
//! No thread waits per pane: the PTY master is non-blocking, and the poll
//! loop of the runtime `io` that [`PaneProcess::spawn`] is given wakes two
//! small tasks on it. The reader forwards output
//! (taking a credit per chunk, so at most [`CHUNKS_IN_FLIGHT`] chunks wait
//! in the actor's unbounded mailbox and a fast child meets back-pressure);
//! the writer owns the PTY's input side (a child that does not read its
//! input must never block the actor; what waits for it is bounded by the
//! pane's [`InputQueue`](super::input::InputQueue)). The server's one
//! [`Reaper`] reaps the child. Dropping a [`PaneProcess`] ends both tasks
//! and hangs up the child's process group, which the reaper kills if it
//! lingers: ractor does not run `post_stop` after a panic, but it does drop
//! the state.

use std::cell::RefCell;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use portable_pty::{CommandBuilder, MasterPty, PtySize, native_pty_system};
use signaltty_persistence::ProcessRecord;
use tokio::io::unix::AsyncFd;
use tokio::runtime::Handle;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tracing::{debug, warn};

use super::handover::HandedChild;
use super::input::InputPiece;
use super::pty::{Paused, Pty};
use super::reaper::Reaper;
use crate::error::SpawnError;

/// Output chunks that may be on their way to the actor at once.
pub const CHUNKS_IN_FLIGHT: usize = 4;
/// The most one read, and so one chunk, takes: a child that writes faster
/// than the actor parses leaves more waiting in the terminal, and large
/// reads then keep the message count down.
const READ_CHUNK: usize = 64 * 1024;

/// What a pane's process tells the pane actor. `spawn` tells one
/// incarnation of the pane's process from the next, so a late event from a
/// process that was replaced is ignored.
#[derive(Debug)]
pub enum ProcessEvent {
    Output { spawn: u64, bytes: bytes::Bytes },
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

/// A running (or just ended) child on its PTY.
pub struct PaneProcess {
    /// The PTY master, non-blocking; shared with the reader and the writer.
    master: Arc<AsyncFd<File>>,
    /// Taken while the process is paused for a handover.
    input: Option<mpsc::UnboundedSender<InputPiece>>,
    credits: mpsc::Sender<()>,
    pid: i32,
    /// The child's pid and start time, to be found again after a crash.
    identity: Option<ProcessRecord>,
    reaper: Reaper,
    /// Taken by a pause, as is `writer`.
    reader: Option<JoinHandle<()>>,
    writer: Option<JoinHandle<()>>,
    /// What a resumed reader needs.
    spawn: u64,
    sink: EventSink,
    io: Handle,
}

impl std::fmt::Debug for PaneProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PaneProcess")
            .field("pid", &self.pid)
            .finish()
    }
}

impl PaneProcess {
    /// Starts the child; its PTY's reader and writer run on `io`.
    pub fn spawn(
        spec: &SpawnSpec,
        spawn: u64,
        sink: EventSink,
        reaper: &Reaper,
        io: &Handle,
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
        // Read before anything can reap the child and free its pid.
        let identity = crate::procfs::stat(pid).map(|stat| ProcessRecord {
            session: pid,
            start_ticks: stat.start_ticks,
        });
        // The reaper waits for it by pid: portable-pty's handle is not
        // needed (dropping it neither waits nor kills).
        drop(child);
        // A descriptor of our own: portable-pty's master is closed with
        // `pair`, which is all it would ever do besides ioctls we make.
        let master = match own_copy(pair.master.as_ref()) {
            Ok(master) => master,
            Err(e) => {
                // Nobody hears of this child: it is only ended and reaped.
                reaper.watch(pid, |_| {});
                reaper.hang_up(pid);
                return Err(e);
            }
        };
        let handed = HandedChild {
            pid,
            master,
            identity,
            exit_code: None,
        };
        PaneProcess::adopt(handed, spawn, sink, reaper, io)
    }

    /// Takes over a child on its terminal: one just spawned, or one the
    /// previous server handed over (its output waited in the terminal, and
    /// nobody reaped it meanwhile unless it says its exit code). The reaper
    /// watches it from now on (it reaps at once a child that ended in
    /// between).
    pub fn adopt(
        handed: HandedChild,
        spawn: u64,
        sink: EventSink,
        reaper: &Reaper,
        io: &Handle,
    ) -> Result<PaneProcess, SpawnError> {
        let HandedChild {
            pid,
            master,
            identity,
            exit_code,
        } = handed;
        let pty = match nonblocking(master, io) {
            Ok(pty) => Arc::new(pty),
            Err(e) => {
                reaper.watch(pid, |_| {});
                reaper.hang_up(pid);
                return Err(e);
            }
        };
        // Reaped already by the previous server: told at once instead of
        // waiting for a pid that is not ours any more.
        match exit_code {
            Some(code) => {
                sink(ProcessEvent::Exited { spawn, code });
            }
            None => {
                let exited = sink.clone();
                reaper.watch(pid, move |code| {
                    exited(ProcessEvent::Exited { spawn, code });
                });
            }
        }
        let mut process = PaneProcess {
            master: pty,
            input: None,
            credits: mpsc::channel(1).0,
            pid,
            identity,
            reaper: reaper.clone(),
            reader: None,
            writer: None,
            spawn,
            sink,
            io: io.clone(),
        };
        process.start_tasks();
        // Not the argv: it may hold a secret (the pane logs it without).
        debug!(pid, "running");
        Ok(process)
    }

    /// Starts the reader and the writer.
    fn start_tasks(&mut self) {
        self.start_reader();
        let (input_tx, input_rx) = mpsc::unbounded_channel();
        self.writer = Some(self.io.spawn(write_input(self.master.clone(), input_rx)));
        self.input = Some(input_tx);
    }

    /// Starts the reader: at first, and after a pause.
    fn start_reader(&mut self) {
        let (credits_tx, credits_rx) = mpsc::channel(CHUNKS_IN_FLIGHT);
        for _ in 0..CHUNKS_IN_FLIGHT {
            // The channel has room for exactly this many credits.
            let _ = credits_tx.try_send(());
        }
        let (spawn, sink) = (self.spawn, self.sink.clone());
        let reader = read_output(self.master.clone(), credits_rx, spawn, sink);
        self.reader = Some(self.io.spawn(reader));
        self.credits = credits_tx;
    }
}

impl Pty for PaneProcess {
    fn pid(&self) -> i32 {
        self.pid
    }

    fn identity(&self) -> Option<ProcessRecord> {
        self.identity
    }

    fn return_credit(&self) {
        let _ = self.credits.try_send(());
    }

    fn write(&self, piece: InputPiece) {
        if let Some(input) = &self.input {
            let _ = input.send(piece);
        }
    }

    fn resize(&self, rows: u16, cols: u16) {
        let size = libc::winsize {
            ws_row: rows,
            ws_col: cols,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: TIOCSWINSZ reads one winsize we own from a descriptor
        // that stays open while `self` lives.
        if unsafe { libc::ioctl(self.master.as_raw_fd(), libc::TIOCSWINSZ, &size) } != 0 {
            warn!(error = %std::io::Error::last_os_error(), "resize failed");
        }
    }

    /// The child leads its own session, so its pid is also its group id.
    fn signal(&self, signal: i32, group: bool) -> std::io::Result<()> {
        let target = if group { -self.pid } else { self.pid };
        // SAFETY: kill(2) takes plain integers and touches no memory of ours.
        if unsafe { libc::kill(target, signal) } == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }

    /// One ioctl.
    fn foreground_pgid(&self) -> Option<i32> {
        // SAFETY: tcgetpgrp(3) on a descriptor that stays open while
        // `self` lives.
        let pgid = unsafe { libc::tcgetpgrp(self.master.as_raw_fd()) };
        (pgid > 0).then_some(pgid)
    }

    /// Where a `cd` in the shell, or a program it started, is working.
    fn foreground_cwd(&self) -> Option<PathBuf> {
        let pid = self.foreground_pgid().unwrap_or(self.pid);
        std::fs::read_link(Path::new("/proc").join(pid.to_string()).join("cwd")).ok()
    }

    /// Only the reader stops: the writer goes on handing the child what is
    /// typed until the exec, into the same terminal the new image adopts,
    /// so keys typed during a handover reach it.
    fn pause(&mut self) -> Paused {
        let reader = self.reader.take();
        if let Some(reader) = &reader {
            reader.abort();
        }
        Box::pin(async move {
            // Once the reader has ended, every chunk it read is in the
            // pane's mailbox.
            if let Some(reader) = reader {
                let _ = reader.await;
            }
        })
    }

    fn resume(&mut self) {
        if self.reader.is_none() {
            self.start_reader();
        }
    }

    fn master_fd(&self) -> Option<std::os::fd::RawFd> {
        Some(self.master.as_raw_fd())
    }
}

impl Drop for PaneProcess {
    fn drop(&mut self) {
        if let Some(reader) = &self.reader {
            reader.abort();
        }
        if let Some(writer) = &self.writer {
            writer.abort();
        }
        self.reaper.hang_up(self.pid);
    }
}

/// A copy of portable-pty's master descriptor, close-on-exec.
fn own_copy(master: &dyn MasterPty) -> Result<OwnedFd, SpawnError> {
    let fd = master
        .as_raw_fd()
        .ok_or_else(|| SpawnError::Pty("the PTY master has no descriptor".into()))?;
    // SAFETY: dup of a descriptor that is open for the duration of the call.
    let copy = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    if copy < 0 {
        return Err(SpawnError::Pty(format!(
            "could not duplicate the PTY master: {}",
            std::io::Error::last_os_error()
        )));
    }
    // SAFETY: a fresh descriptor from fcntl is ours alone.
    Ok(unsafe { OwnedFd::from_raw_fd(copy) })
}

/// The PTY master made non-blocking and close-on-exec (a handed-over one
/// came without), registered with `io`'s poller.
fn nonblocking(master: OwnedFd, io: &Handle) -> Result<AsyncFd<File>, SpawnError> {
    let failed =
        |what: &str| SpawnError::Pty(format!("{what}: {}", std::io::Error::last_os_error()));
    let fd = master.as_raw_fd();
    // SAFETY: fcntl(2) on a descriptor we own, with plain integers.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    // SAFETY: as above.
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(failed("could not make the PTY master non-blocking"));
    }
    // SAFETY: as above.
    if unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) } < 0 {
        return Err(failed("could not mark the PTY master close-on-exec"));
    }
    let _io = io.enter();
    // SAFETY: the `File` owns its descriptor, which stays open and the same
    // until the `AsyncFd` drops it.
    unsafe { AsyncFd::register(File::from(master)) }
        .map_err(|e| SpawnError::Pty(format!("could not poll the PTY: {}", e.into_parts().1)))
}

async fn read_output(
    pty: Arc<AsyncFd<File>>,
    mut credits: mpsc::Receiver<()>,
    spawn: u64,
    sink: EventSink,
) {
    // A credit is taken before each chunk: the actor returns it once the
    // chunk is processed, and the pane is gone once the sending side is
    // dropped.
    while credits.recv().await.is_some() {
        let chunk = next_chunk(&pty).await;
        if let Some(bytes) = chunk.bytes
            && !sink(ProcessEvent::Output { spawn, bytes })
        {
            return;
        }
        if chunk.ended {
            break;
        }
        // Every pane's reads and writes share the PTY thread. A read that
        // emptied the PTY waits on the poller next, which lets the others
        // run. After a full one the next read is ready at once, and while
        // the actor hands credits back as fast as it takes chunks, this
        // loop would keep the thread for tokio's whole budget (128
        // chunks): another pane's keystroke then waited up to 110 ms to be
        // written, and its echo as long to be read (p99 98 ms through
        // `attach`, 6 ms since).
        if !chunk.drained {
            tokio::task::yield_now().await;
        }
    }
    sink(ProcessEvent::Eof { spawn });
}

/// What one wake-up of the reader found.
struct Chunk {
    bytes: Option<bytes::Bytes>,
    /// The child's side is closed: nothing more will come.
    ended: bool,
    /// The PTY was read empty: the poller must be asked again.
    drained: bool,
}

thread_local! {
    /// One read buffer per worker thread, not per pane: an idle pane holds
    /// none. Only borrowed between two awaits.
    static READ_BUFFER: RefCell<Vec<u8>> = RefCell::new(vec![0; READ_CHUNK]);
}

/// Waits for the PTY to be readable, then reads it once: a flood travels in
/// chunks as large as the terminal holds, and a keystroke's echo is not
/// held back.
async fn next_chunk(pty: &AsyncFd<File>) -> Chunk {
    loop {
        let Ok(mut ready) = pty.readable().await else {
            return Chunk {
                bytes: None,
                ended: true,
                drained: false,
            };
        };
        let mut chunk = READ_BUFFER.with_borrow_mut(|buf| read_chunk(ready.get_inner(), buf));
        if chunk.drained {
            // A hang-up stays reported, so waiting again would not wait;
            // but a short read only emptied what the terminal held then,
            // and the child's last bytes may still be on their way into
            // it: only a read that found nothing ends the output.
            chunk.ended |= chunk.bytes.is_none() && ready.ready().is_read_closed();
            ready.clear_ready();
        }
        if chunk.bytes.is_some() || chunk.ended {
            return chunk;
        }
    }
}

/// One read of the PTY.
///
/// A terminal's read hands over everything it holds up to the room it is
/// given, so a short read leaves it empty, and whatever the child writes
/// next wakes the poller again. Reading on until a read would block cost
/// a flood 6% (a standalone reader, 14 rounds) and the server 15% (16
/// rounds): on Linux that last read first waits for the terminal's flush
/// worker.
fn read_chunk(mut pty: impl Read, buf: &mut [u8]) -> Chunk {
    let (bytes, ended, drained) = loop {
        match pty.read(buf) {
            Ok(0) => break (None, true, false),
            Ok(n) => break (Some(&buf[..n]), false, n < buf.len()),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break (None, false, true),
            // Linux reports EIO once the slave side is closed.
            Err(_) => break (None, true, false),
        }
    };
    Chunk {
        bytes: bytes.map(bytes::Bytes::copy_from_slice),
        ended,
        drained,
    }
}

async fn write_input(pty: Arc<AsyncFd<File>>, mut input: mpsc::UnboundedReceiver<InputPiece>) {
    // Each piece gives its room back once written; what is left when the
    // child has gone is dropped with the channel.
    while let Some(piece) = input.recv().await {
        if write_all(&pty, piece.bytes()).await.is_err() {
            break;
        }
    }
}

/// Writes `bytes` as the child reads them; a child that does not read only
/// keeps this task waiting.
async fn write_all(pty: &AsyncFd<File>, mut bytes: &[u8]) -> std::io::Result<()> {
    while !bytes.is_empty() {
        let mut ready = pty.writable().await?;
        // Every descriptor of the child's side is closed: nobody will read
        // what is left, and the poller will keep saying so.
        let hung_up = ready.ready().is_write_closed();
        match ready.try_io(|pty| {
            let mut file = pty.get_ref();
            file.write(bytes)
        }) {
            Ok(Ok(0)) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(Ok(n)) => bytes = &bytes[n..],
            Ok(Err(e)) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Ok(Err(e)) => return Err(e),
            Err(_) if hung_up => return Err(std::io::ErrorKind::BrokenPipe.into()),
            // Would block: the poller says when there is room.
            Err(_) => {}
        }
    }
    Ok(())
}

/// `argv` without the words that may hold a secret, by the rule that keeps
/// secrets out of the saved environment.
pub(super) fn without_secrets(argv: &[String]) -> Vec<String> {
    signaltty_adapters::without_secrets(argv, signaltty_persistence::looks_secret)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::sync::mpsc::UnboundedReceiver;

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

    fn collect() -> (EventSink, UnboundedReceiver<ProcessEvent>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let sink: EventSink = Arc::new(move |event| tx.send(event).is_ok());
        (sink, rx)
    }

    /// `sh -c script` on a PTY driven by the test's runtime, and its events.
    fn start(script: &str, reaper: &Reaper) -> (PaneProcess, UnboundedReceiver<ProcessEvent>) {
        let (sink, rx) = collect();
        let process = PaneProcess::spawn(&spec(script), 1, sink, reaper, &Handle::current());
        (process.unwrap(), rx)
    }

    async fn next(rx: &mut UnboundedReceiver<ProcessEvent>) -> ProcessEvent {
        tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .expect("an event in time")
            .expect("an event")
    }

    async fn exit_code(rx: &mut UnboundedReceiver<ProcessEvent>) -> i32 {
        loop {
            if let ProcessEvent::Exited { code, .. } = next(rx).await {
                return code;
            }
        }
    }

    #[tokio::test]
    async fn a_fast_child_is_held_back_until_chunks_are_processed() {
        let reaper = Reaper::start().unwrap();
        let (process, mut rx) = start("yes", &reaper);
        for _ in 0..CHUNKS_IN_FLIGHT {
            let event = next(&mut rx).await;
            assert!(matches!(event, ProcessEvent::Output { spawn: 1, .. }));
        }
        // No credit came back, so no further chunk may come.
        let more = tokio::time::timeout(Duration::from_millis(300), rx.recv()).await;
        assert!(more.is_err(), "{more:?}");
        process.return_credit();
        let event = next(&mut rx).await;
        assert!(
            matches!(&event, ProcessEvent::Output { bytes, .. } if bytes.len() <= READ_CHUNK),
            "{event:?}"
        );
        drop(process);
        assert_eq!(
            reaper.wait_all(Duration::from_secs(10)).await,
            0,
            "the child is reaped"
        );
    }

    /// A flooding pane's reader lets the PTY thread's other tasks (other
    /// panes' reads and writes) run after each chunk, not only when it
    /// runs out of credits: fed from a pipe that is never empty, as a PTY
    /// under a flood is not while the actor hands credits back at once.
    #[tokio::test]
    async fn a_flood_takes_turns_with_the_other_panes() {
        const CHUNKS: usize = 16;
        let (read, write) = full_pipe(CHUNKS * READ_CHUNK);
        // SAFETY: the `File` owns its descriptor until the `AsyncFd` drops it.
        let pty = Arc::new(unsafe { AsyncFd::register(read) }.unwrap());
        let (credits, credits_rx) = mpsc::channel(CHUNKS_IN_FLIGHT);
        for _ in 0..CHUNKS_IN_FLIGHT {
            credits.try_send(()).unwrap();
        }
        let (sink, mut rx) = collect();
        let reader = tokio::spawn(read_output(pty, credits_rx, 1, sink));
        let turns = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = turns.clone();
        let other = tokio::spawn(async move {
            loop {
                counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                tokio::task::yield_now().await;
            }
        });
        let mut read_bytes = 0;
        while read_bytes < (CHUNKS - 1) * READ_CHUNK {
            match next(&mut rx).await {
                ProcessEvent::Output { bytes, .. } => read_bytes += bytes.len(),
                other => panic!("{other:?}"),
            }
            let _ = credits.try_send(());
        }
        let turns = turns.load(std::sync::atomic::Ordering::Relaxed);
        other.abort();
        reader.abort();
        drop(write);
        // Held back only by its credits, the reader would let the other
        // task in once every CHUNKS_IN_FLIGHT chunks.
        assert!(turns >= CHUNKS - 2, "{turns} turns in {CHUNKS} chunks");
    }

    /// Reads as a terminal does: each read takes the next of `reads`, as
    /// much of it as fits; once they are used up, it would block.
    struct Terminal {
        reads: std::collections::VecDeque<Vec<u8>>,
        calls: usize,
    }

    impl Read for Terminal {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.calls += 1;
            let Some(mut next) = self.reads.pop_front() else {
                return Err(std::io::ErrorKind::WouldBlock.into());
            };
            let n = next.len().min(buf.len());
            buf[..n].copy_from_slice(&next[..n]);
            if n < next.len() {
                self.reads.push_front(next.split_off(n));
            }
            Ok(n)
        }
    }

    #[test]
    fn a_short_read_ends_the_chunk_without_another_read() {
        let mut tty = Terminal {
            reads: [vec![b'a'; 100], vec![b'b'; 100]].into(),
            calls: 0,
        };
        let mut buf = vec![0; READ_CHUNK];
        let chunk = read_chunk(&mut tty, &mut buf);
        assert_eq!(chunk.bytes.as_deref(), Some(&[b'a'; 100][..]));
        assert!(chunk.drained && !chunk.ended);
        assert_eq!(tty.calls, 1, "a short read empties a terminal");
    }

    #[test]
    fn a_full_read_asks_to_be_read_again() {
        let mut tty = Terminal {
            reads: [vec![b'y'; READ_CHUNK + 1]].into(),
            calls: 0,
        };
        let mut buf = vec![0; READ_CHUNK];
        let chunk = read_chunk(&mut tty, &mut buf);
        assert_eq!(chunk.bytes.map(|b| b.len()), Some(READ_CHUNK));
        assert!(
            !chunk.drained && !chunk.ended,
            "the poller may not wake again"
        );
        let chunk = read_chunk(&mut tty, &mut buf);
        assert_eq!(chunk.bytes.as_deref(), Some(&b"y"[..]));
        assert!(chunk.drained);
        let chunk = read_chunk(&mut tty, &mut buf);
        assert!(chunk.bytes.is_none() && chunk.drained && !chunk.ended);
    }

    /// A non-blocking pipe already holding `bytes`, and its write end.
    fn full_pipe(bytes: usize) -> (File, File) {
        let mut fds = [0; 2];
        // SAFETY: pipe2 fills the two descriptors it is given.
        assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
        // SAFETY: fresh descriptors, ours alone.
        let (read, mut write) = unsafe { (File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])) };
        let size = i32::try_from(bytes).unwrap();
        // SAFETY: fcntl(2) on a descriptor we own, with plain integers.
        assert!(unsafe { libc::fcntl(write.as_raw_fd(), libc::F_SETPIPE_SZ, size) } >= size);
        std::io::Write::write_all(&mut write, &vec![b'y'; bytes]).unwrap();
        // SAFETY: as above.
        let flags = unsafe { libc::fcntl(read.as_raw_fd(), libc::F_GETFL) };
        // SAFETY: as above.
        assert_eq!(
            unsafe { libc::fcntl(read.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK) },
            0
        );
        (read, write)
    }

    #[tokio::test]
    async fn the_last_output_comes_before_the_end_of_output() {
        let reaper = Reaper::start().unwrap();
        let (_process, mut rx) = start("echo bye; exit 4", &reaper);
        let mut output = Vec::new();
        let mut code = None;
        loop {
            match next(&mut rx).await {
                ProcessEvent::Output { bytes, .. } => output.extend(bytes),
                ProcessEvent::Exited { code: c, .. } => code = Some(c),
                ProcessEvent::Eof { .. } => break,
            }
        }
        assert_eq!(String::from_utf8_lossy(&output).trim(), "bye");
        let code = match code {
            Some(code) => code,
            None => exit_code(&mut rx).await,
        };
        assert_eq!(code, 4);
    }

    #[tokio::test]
    async fn exit_codes_are_kept_shell_style() {
        let reaper = Reaper::start().unwrap();
        let (_five, mut rx) = start("exit 5", &reaper);
        assert_eq!(exit_code(&mut rx).await, 5);
        let (_killed, mut rx) = start("kill -9 $$", &reaper);
        assert_eq!(exit_code(&mut rx).await, 128 + 9);
    }

    #[tokio::test]
    async fn input_reaches_the_child_and_a_stopped_child_blocks_nothing() {
        let reaper = Reaper::start().unwrap();
        // Raw, so the terminal holds what it cannot pass on instead of
        // dropping it as a full line does; then it stops itself.
        let script = "stty raw -echo; kill -STOP $$; head -c 3; echo";
        let (process, mut rx) = start(script, &reaper);
        let queue = super::super::input::InputQueue::default();
        let stat = format!("/proc/{}/stat", process.pid());
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !std::fs::read_to_string(&stat).unwrap().contains(") T ") {
            assert!(std::time::Instant::now() < deadline, "never stopped");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        // Far more than the PTY holds: the writer waits, nothing else does.
        for _ in 0..4 {
            let piece = queue.try_reserve(vec![b'x'; 64 * 1024]).unwrap();
            process.write(piece);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(queue.queued() > 64 * 1024, "the stopped child took it all");
        process.resize(30, 100);
        process.signal(libc::SIGCONT, true).unwrap();
        let mut output = Vec::new();
        while !String::from_utf8_lossy(&output).contains("xxx") {
            match next(&mut rx).await {
                ProcessEvent::Output { bytes, .. } => {
                    output.extend(bytes);
                    process.return_credit();
                }
                other => panic!("{other:?} before the input came back"),
            }
        }
        assert_eq!(exit_code(&mut rx).await, 0);
        // What the child never read is dropped with its room.
        drop(process);
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while queue.queued() > 0 {
            assert!(std::time::Instant::now() < deadline, "room never came back");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    #[tokio::test]
    async fn a_cwd_that_is_not_a_directory_is_refused() {
        let reaper = Reaper::start().unwrap();
        let (sink, _rx) = collect();
        let mut bad = spec("true");
        bad.cwd = PathBuf::from("/etc/passwd");
        let err = PaneProcess::spawn(&bad, 1, sink, &reaper, &Handle::current()).unwrap_err();
        assert!(matches!(err, SpawnError::CwdNotDir(_)), "{err}");
    }
}
