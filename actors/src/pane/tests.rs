//! The pane's own logic — exit drain, revive grace, input back-pressure —
//! driven through a scripted [`Pty`] instead of a real terminal: each test
//! says exactly what the child prints, reads and when it ends.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ractor::{Actor, ActorRef};
use signaltty_persistence::ProcessRecord;
use signaltty_types::PaneRecord;
use tokio::sync::mpsc;

use super::input::{INPUT_QUEUE_BYTES, InputPiece, InputQueue, PIECE_BYTES, QueueFull};
use super::process::{EventSink, ProcessEvent, SpawnSpec};
use super::pty::{OpenPty, Pty};
use super::reaper::Reaper;
use super::subscribers::{CatchUp, PaneFrame};
use super::*;
use crate::error::{ActorError, SpawnError};

const DEADLINE: Duration = Duration::from_secs(10);

/// Opens scripted children and hands each to the test.
#[derive(Debug)]
struct FakePtys {
    opened: mpsc::UnboundedSender<FakeChild>,
    /// The next open fails, as an exec of a missing program does.
    fail_next: AtomicBool,
}

/// The test's end of a scripted child.
struct FakeChild {
    spawn: u64,
    argv: Vec<String>,
    sink: EventSink,
    /// What the pane wrote that the child has not read yet.
    unread: Arc<Mutex<Vec<InputPiece>>>,
    credits: Arc<AtomicUsize>,
}

/// The pane's end of a scripted child.
struct FakePty {
    unread: Arc<Mutex<Vec<InputPiece>>>,
    credits: Arc<AtomicUsize>,
}

impl OpenPty for FakePtys {
    fn open(
        &self,
        spec: &SpawnSpec,
        spawn: u64,
        sink: EventSink,
        _reaper: &Reaper,
    ) -> Result<Box<dyn Pty>, SpawnError> {
        if self.fail_next.swap(false, Ordering::SeqCst) {
            return Err(SpawnError::Exec {
                program: spec.argv[0].clone(),
                reason: "No such file or directory".into(),
            });
        }
        let unread = Arc::new(Mutex::new(Vec::new()));
        let credits = Arc::new(AtomicUsize::new(0));
        let child = FakeChild {
            spawn,
            argv: spec.argv.clone(),
            sink,
            unread: unread.clone(),
            credits: credits.clone(),
        };
        self.opened.send(child).expect("the test listens");
        Ok(Box::new(FakePty { unread, credits }))
    }

    fn adopt(
        &self,
        _handed: crate::pane::handover::HandedChild,
        _spawn: u64,
        _sink: EventSink,
        _reaper: &Reaper,
    ) -> Result<Box<dyn Pty>, SpawnError> {
        Err(SpawnError::Pty(
            "a fake terminal cannot be handed over".into(),
        ))
    }
}

impl Pty for FakePty {
    fn pid(&self) -> i32 {
        1
    }
    fn identity(&self) -> Option<ProcessRecord> {
        None
    }
    fn return_credit(&self) {
        self.credits.fetch_add(1, Ordering::SeqCst);
    }
    fn write(&self, piece: InputPiece) {
        self.unread.lock().unwrap().push(piece);
    }
    fn resize(&self, _rows: u16, _cols: u16) {}
    fn signal(&self, _signal: i32, _group: bool) -> std::io::Result<()> {
        Ok(())
    }
    fn foreground_pgid(&self) -> Option<i32> {
        None
    }
    fn foreground_cwd(&self) -> Option<std::path::PathBuf> {
        None
    }
    fn pause(&mut self) -> crate::pane::pty::Paused {
        Box::pin(async {})
    }
    fn resume(&mut self) {}
    fn master_fd(&self) -> Option<std::os::fd::RawFd> {
        None
    }
}

impl FakeChild {
    fn send(&self, event: ProcessEvent) {
        assert!((self.sink)(event), "the pane listens");
    }
    fn print(&self, text: &str) {
        let bytes = bytes::Bytes::copy_from_slice(text.as_bytes());
        self.send(ProcessEvent::Output {
            spawn: self.spawn,
            bytes,
        });
    }
    fn close_output(&self) {
        self.send(ProcessEvent::Eof { spawn: self.spawn });
    }
    fn exit(&self, code: i32) {
        self.send(ProcessEvent::Exited {
            spawn: self.spawn,
            code,
        });
    }
    /// The child reads everything waiting for it: its room comes back.
    fn read_input(&self) -> Vec<u8> {
        let pieces = std::mem::take(&mut *self.unread.lock().unwrap());
        pieces.iter().flat_map(|p| p.bytes().to_vec()).collect()
    }
}

struct Harness {
    pane: ActorRef<PaneMsg>,
    children: Children,
    ptys: Arc<FakePtys>,
}

/// The children the pane opens, in order.
struct Children(mpsc::UnboundedReceiver<FakeChild>);

impl Children {
    async fn next(&mut self) -> FakeChild {
        tokio::time::timeout(DEADLINE, self.0.recv())
            .await
            .expect("a child in time")
            .expect("a child")
    }
}

impl Harness {
    async fn start(start: PaneStart) -> Harness {
        let (opened, children) = mpsc::unbounded_channel();
        let ptys = Arc::new(FakePtys {
            opened,
            fail_next: AtomicBool::new(false),
        });
        let mut record = PaneRecord::new("p-test", "w-test", "t-test");
        record.argv = vec!["agent-x".into(), "--flag".into()];
        record.cwd = "/".into();
        let args = PaneArgs {
            record,
            start,
            context: PaneContext {
                socket_path: "/nonexistent/test.sock".into(),
                reaper: Reaper::start().unwrap(),
                ptys: ptys.clone(),
            },
        };
        let (pane, _) = Actor::spawn(None, PaneActor, args).await.unwrap();
        Harness {
            pane,
            children: Children(children),
            ptys,
        }
    }

    async fn live() -> (Harness, FakeChild) {
        let mut harness = Harness::start(PaneStart::Launch).await;
        let child = harness.children.next().await;
        (harness, child)
    }

    async fn tombstone() -> Harness {
        let start = PaneStart::Tombstone {
            state: PaneState::Exited,
            tail: None,
        };
        Harness::start(start).await
    }

    async fn attach(&self) -> Attached {
        ractor::call_t!(
            self.pane,
            |reply| PaneMsg::Attach {
                size: None,
                keep_attention: true,
                catch_up: CatchUp::Exact,
                reply,
            },
            10_000
        )
        .unwrap()
    }

    /// The pane's state and exit code, as an attaching client is told.
    async fn state(&self) -> (PaneState, Option<i32>) {
        let attached = self.attach().await;
        (attached.status.state, attached.status.exit_code)
    }

    async fn screen(&self) -> String {
        ractor::call_t!(
            self.pane,
            |reply| PaneMsg::Read {
                what: ReadWhat::Screen,
                ansi: false,
                reply,
            },
            10_000
        )
        .unwrap()
        .text
    }

    async fn input_queue(&self) -> InputQueue {
        ractor::call_t!(self.pane, PaneMsg::InputQueue, 10_000).unwrap()
    }

    async fn input(&self, piece: InputPiece) -> Result<(), ActorError> {
        ractor::call_t!(self.pane, |reply| PaneMsg::Input(piece, reply), 10_000).unwrap()
    }
}

/// `ctl respawn`: answered once the revived child survived its grace.
async fn respawn(pane: &ActorRef<PaneMsg>) -> Result<(), ActorError> {
    ractor::call_t!(pane, PaneMsg::Respawn, 30_000).unwrap()
}

impl Drop for Harness {
    fn drop(&mut self) {
        self.pane.stop(None);
    }
}

/// The next state the pane tells its attached clients about.
async fn next_state(attached: &mut Attached) -> (PaneState, Option<i32>) {
    loop {
        let frame = tokio::time::timeout(DEADLINE, attached.frames.recv())
            .await
            .expect("a frame in time")
            .expect("a frame");
        if let PaneFrame::State(status) = frame {
            return (status.state, status.exit_code);
        }
    }
}

#[tokio::test]
async fn output_after_the_exit_is_drained_before_the_pane_ends() {
    let (harness, child) = Harness::live().await;
    child.print("working\r\n");
    child.exit(3);
    // Reaped, but its last words are still on their way.
    assert_eq!(harness.state().await.0, PaneState::Live);
    child.print("last words\r\n");
    child.close_output();
    assert_eq!(harness.state().await, (PaneState::Exited, Some(3)));
    let screen = harness.screen().await;
    assert!(
        screen.contains("working") && screen.contains("last words"),
        "{screen}"
    );
}

#[tokio::test]
async fn an_exit_whose_output_never_closes_ends_after_the_drain() {
    let (harness, child) = Harness::live().await;
    let mut attached = harness.attach().await;
    let exited = Instant::now();
    child.exit(0);
    // A grandchild keeps the terminal open: the pane ends anyway.
    assert_eq!(
        next_state(&mut attached).await,
        (PaneState::Exited, Some(0))
    );
    assert!(exited.elapsed() >= EXIT_DRAIN, "{:?}", exited.elapsed());
}

#[tokio::test]
async fn every_output_chunk_gives_its_credit_back() {
    let (harness, child) = Harness::live().await;
    for i in 0..10 {
        child.print(&format!("line {i}\r\n"));
    }
    // Processed in order: by the answer, every chunk was.
    assert!(harness.screen().await.contains("line 9"));
    assert_eq!(child.credits.load(Ordering::SeqCst), 10);
}

#[tokio::test]
async fn a_respawned_child_that_fails_within_the_grace_leaves_the_tombstone() {
    let mut harness = Harness::tombstone().await;
    let children = &mut harness.children;
    let respawn = respawn(&harness.pane);
    let opened = async {
        let child = children.next().await;
        assert_eq!(child.argv, ["agent-x", "--flag"]);
        child.print("agent-x: bad flag\r\n");
        child.exit(2);
        child.close_output();
    };
    let (result, ()) = tokio::join!(respawn, opened);
    let error = result.unwrap_err().to_string();
    assert!(error.contains("exited with code 2"), "{error}");
    assert!(error.contains("bad flag"), "says what it printed: {error}");
    let state = harness.state().await;
    assert_eq!(state, (PaneState::Exited, None), "back to the tombstone");
}

#[tokio::test]
async fn a_respawned_child_that_survives_the_grace_succeeds() {
    let mut harness = Harness::tombstone().await;
    let asked = Instant::now();
    let children = &mut harness.children;
    let (result, child) = tokio::join!(respawn(&harness.pane), async {
        let child = children.next().await;
        child.print("$ ");
        child
    });
    result.unwrap();
    assert!(asked.elapsed() >= REVIVE_GRACE, "{:?}", asked.elapsed());
    assert_eq!(harness.state().await.0, PaneState::Live);
    // Its end is the pane's end, no longer the command's.
    child.exit(1);
    child.close_output();
    assert_eq!(harness.state().await, (PaneState::Exited, Some(1)));
}

#[tokio::test]
async fn a_respawned_command_may_end_well_within_the_grace() {
    let mut harness = Harness::tombstone().await;
    let children = &mut harness.children;
    let (result, ()) = tokio::join!(respawn(&harness.pane), async {
        let child = children.next().await;
        child.exit(0);
        child.close_output();
    });
    result.unwrap();
    assert_eq!(harness.state().await, (PaneState::Exited, Some(0)));
}

#[tokio::test]
async fn a_respawn_that_cannot_start_changes_nothing() {
    let harness = Harness::tombstone().await;
    harness.ptys.fail_next.store(true, Ordering::SeqCst);
    let error = respawn(&harness.pane).await.unwrap_err().to_string();
    assert!(error.contains("No such file or directory"), "{error}");
    assert_eq!(harness.state().await.0, PaneState::Exited);
}

#[tokio::test]
async fn input_waits_in_a_bounded_queue_until_the_child_reads_it() {
    let (harness, child) = Harness::live().await;
    let queue = harness.input_queue().await;
    let mut sent = Vec::new();
    // The child reads nothing: the queue fills, and no further.
    let mut n = 0u8;
    while let Ok(piece) = queue.try_reserve(vec![n; PIECE_BYTES]) {
        harness.input(piece).await.unwrap();
        sent.extend(vec![n; PIECE_BYTES]);
        n += 1;
    }
    while let Ok(piece) = queue.try_reserve(vec![b'k']) {
        harness.input(piece).await.unwrap();
        sent.push(b'k');
    }
    assert!(queue.queued() <= INPUT_QUEUE_BYTES);
    assert!(
        sent.len() > INPUT_QUEUE_BYTES * 9 / 10,
        "{} bytes",
        sent.len()
    );
    // `ctl send` waits for room until its deadline, then answers BUSY.
    let soon = Instant::now() + Duration::from_millis(50);
    let refused = queue.reserve(b"more".to_vec(), Some(soon)).await;
    assert_eq!(refused.unwrap_err(), QueueFull);
    // A terminal query's answer is dropped rather than waited for.
    child.print("\x1b[6n");
    harness.screen().await;
    // The child reads: everything, in order, and the room comes back.
    assert_eq!(child.read_input(), sent);
    assert_eq!(queue.queued(), 0);
    let piece = queue.reserve(b"more".to_vec(), Some(soon)).await.unwrap();
    harness.input(piece).await.unwrap();
    assert_eq!(child.read_input(), b"more");
}

#[tokio::test]
async fn a_terminal_query_is_answered_through_the_input_queue() {
    let (harness, child) = Harness::live().await;
    child.print("\x1b[6n");
    harness.screen().await;
    assert_eq!(child.read_input(), b"\x1b[1;1R");
}

#[tokio::test]
async fn input_for_an_ended_pane_is_refused_and_its_room_given_back() {
    let (harness, child) = Harness::live().await;
    child.exit(0);
    child.close_output();
    let queue = harness.input_queue().await;
    let piece = queue.try_reserve(b"late".to_vec()).unwrap();
    let error = harness.input(piece).await.unwrap_err();
    assert!(matches!(error, ActorError::PaneNotLive { .. }), "{error}");
    assert_eq!(queue.queued(), 0);
}
