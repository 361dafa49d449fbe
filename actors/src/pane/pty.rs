//! The seam between a pane and its child's terminal.
//!
//! The pane's logic (exit drain, revive grace, input back-pressure) talks
//! to its child only through [`Pty`], and starts one only through
//! [`OpenPty`]: the server opens real PTYs ([`NativePty`]); the pane's unit
//! tests put a scripted fake in their place.

use std::path::PathBuf;

use signaltty_persistence::ProcessRecord;
use tokio::runtime::Handle;
use tokio::sync::oneshot;

use super::handover::HandedChild;
use super::input::InputPiece;
use super::process::{EventSink, PaneProcess, SpawnSpec};
use super::reaper::Reaper;
use crate::error::SpawnError;

/// A running (or just ended) child on its terminal. Its output, end of
/// output and exit come as [`ProcessEvent`](super::process::ProcessEvent)s
/// through the sink it was opened with; dropping it hangs the child up.
pub trait Pty: Send {
    fn pid(&self) -> i32;
    /// The child's pid (its session) and start time, if `/proc` had them.
    fn identity(&self) -> Option<ProcessRecord>;
    /// Gives back the credit of one output chunk the pane has processed.
    fn return_credit(&self);
    /// Queues input for the child; its room in the pane's input queue was
    /// reserved by whoever brought it, and comes back once it is written.
    fn write(&self, piece: InputPiece);
    fn resize(&self, rows: u16, cols: u16);
    /// Sends `signal` to the child, or to its whole process group.
    fn signal(&self, signal: i32, group: bool) -> std::io::Result<()>;
    /// The terminal's foreground process group (its leader's pid).
    fn foreground_pgid(&self) -> Option<i32>;
    /// The working directory of the terminal's foreground process.
    fn foreground_cwd(&self) -> Option<PathBuf>;
    /// Stops reading the terminal without hanging the child up (a
    /// handover): what it prints meanwhile waits in the terminal, and what
    /// is typed is still written to it. Resolves once the reader has
    /// ended, so every chunk it read is in the pane's mailbox.
    fn pause(&mut self) -> Paused;
    /// Reads again after a pause (the handover failed).
    fn resume(&mut self);
    /// The terminal's master descriptor, which a handover carries across
    /// `execve`; `None` for a stand-in.
    fn master_fd(&self) -> Option<std::os::fd::RawFd>;
}

/// The end of a [`Pty::pause`].
pub type Paused = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

/// Starts a pane's child on a fresh terminal.
pub trait OpenPty: Send + Sync + std::fmt::Debug {
    /// `spawn` numbers the pane's incarnations; every event the child
    /// sends carries it.
    fn open(
        &self,
        spec: &SpawnSpec,
        spawn: u64,
        sink: EventSink,
        reaper: &Reaper,
    ) -> Result<Box<dyn Pty>, SpawnError>;
    /// Takes over a child the previous server handed over: its events come
    /// as if it had been opened here.
    fn adopt(
        &self,
        handed: HandedChild,
        spawn: u64,
        sink: EventSink,
        reaper: &Reaper,
    ) -> Result<Box<dyn Pty>, SpawnError>;
}

/// Real PTYs, every one of them read and written by one poll loop on a
/// thread of its own.
///
/// Not the actors' runtime: there a flood measured about 30% slower (tokio
/// runs a woken task next on the worker that woke it, where no other
/// worker may steal it, so a reader and the actor parsing its chunks tend
/// to take turns on one core instead of using two). Moving bytes is cheap:
/// one thread keeps up with every pane.
#[derive(Debug)]
pub struct NativePty {
    io: Handle,
    /// Dropping it ends the thread, and with it every PTY's tasks.
    _stop: oneshot::Sender<()>,
}

impl NativePty {
    pub fn start() -> std::io::Result<NativePty> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()?;
        let io = runtime.handle().clone();
        let (stop, stopped) = oneshot::channel::<()>();
        std::thread::Builder::new()
            .name("signaltty-pty".into())
            .spawn(move || {
                runtime.block_on(async {
                    let _ = stopped.await;
                });
            })?;
        Ok(NativePty { io, _stop: stop })
    }
}

impl OpenPty for NativePty {
    fn open(
        &self,
        spec: &SpawnSpec,
        spawn: u64,
        sink: EventSink,
        reaper: &Reaper,
    ) -> Result<Box<dyn Pty>, SpawnError> {
        let process = PaneProcess::spawn(spec, spawn, sink, reaper, &self.io)?;
        Ok(Box::new(process))
    }

    fn adopt(
        &self,
        handed: HandedChild,
        spawn: u64,
        sink: EventSink,
        reaper: &Reaper,
    ) -> Result<Box<dyn Pty>, SpawnError> {
        let process = PaneProcess::adopt(handed, spawn, sink, reaper, &self.io)?;
        Ok(Box::new(process))
    }
}
