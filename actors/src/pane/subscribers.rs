//! The clients attached to a pane, and how a slow one is kept from holding
//! anyone back.
//!
//! Each attached client has a bounded queue of frames and the output offset
//! it has been sent up to. Output is offered to every queue without
//! waiting; a client whose queue is full is marked lagging and gets nothing
//! more until there is room. Then it catches up from the pane's output ring
//! — exactly the bytes it missed — or, if the ring has moved past them, with
//! a fresh snapshot of the screen. The pane never waits for a client, and a
//! client never costs more than its queue.

use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::sync::mpsc::{self, Receiver, Sender, error::TrySendError};

use super::ring::OutputRing;
use signaltty_adapters::NewlineKey;

use crate::model::PaneState;

/// Frames a client's queue holds before it counts as lagging.
pub const QUEUE_FRAMES: usize = 256;
/// The same for a client that catches up with a fresh screen: it lags
/// sooner, so a flood costs it pictures rather than every byte.
pub const SCREEN_QUEUE_FRAMES: usize = 8;
/// A screen client is sent at most this much output per
/// [`PICTURE_EVERY`]; beyond it, it gets a picture once that time is up
/// instead, and pictures alone while the flood goes on: a flood costs it
/// ~60 pictures a second, not every byte.
pub const SCREEN_BURST: usize = 16 * 1024;
pub const PICTURE_EVERY: Duration = Duration::from_millis(16);

/// What a client that falls behind is sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CatchUp {
    /// Exactly the bytes it missed, from the ring (a snapshot only when
    /// the ring has moved past them).
    #[default]
    Exact,
    /// A fresh snapshot at once, and while output pours, at most one
    /// per [`PICTURE_EVERY`] instead of the bytes.
    Screen,
}

/// What bringing back a pane with no process would run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Revive {
    /// The agent's official resume command, and the launch words it leaves
    /// out.
    Resume {
        argv: Vec<String>,
        dropped: Vec<String>,
    },
    /// The pane's saved command.
    Respawn(Vec<String>),
}

/// What an attached client receives. Output and pictures are shared by
/// every client they go to (and output by the ring), not copied.
#[derive(Debug, Clone)]
pub enum PaneFrame {
    /// PTY output, in order, continuing exactly where the last frame ended.
    Output(Bytes),
    /// Escape sequences that repaint the whole screen as it is now, on a
    /// terminal of `rows` x `cols`.
    Snapshot { bytes: Bytes, rows: u16, cols: u16 },
    /// The pane's state changed (it exited, or was resumed), or what its
    /// program reads Shift+Enter as did.
    State(PaneStatus),
}

/// What attached clients are told of the pane besides its screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaneStatus {
    pub state: PaneState,
    pub exit_code: Option<i32>,
    /// For a pane with no process: what reviving it runs.
    pub revive: Option<Revive>,
    /// What a client sends Shift+Enter as (see `KeyTarget`): the key the
    /// agent in the pane reads as a new line.
    pub shift_enter_as: Option<NewlineKey>,
}

#[derive(Debug, Default)]
pub struct Subscribers {
    clients: Vec<Client>,
    /// The screen's size, which every snapshot is painted at.
    size: (u16, u16),
}

#[derive(Debug)]
struct Client {
    queue: Sender<PaneFrame>,
    catch_up: CatchUp,
    /// The output offset the client has been sent up to; `None` when it
    /// needs a whole new picture.
    sent: Option<u64>,
    lagging: bool,
    /// For a screen client: when its current [`PICTURE_EVERY`] began, the
    /// output offered to it since, and how much of that it may be sent as
    /// bytes.
    window: Instant,
    burst: usize,
    budget: usize,
}

/// Where the pane's output stands: the ring, and the screen as it is after
/// everything in it.
pub struct Output<'a, F: FnMut() -> Vec<u8>> {
    pub ring: &'a OutputRing,
    pub snapshot: F,
}

impl Subscribers {
    /// A new client; its first frame is the snapshot it attaches with,
    /// which shows everything up to `offset` on a screen of `size`.
    pub fn add(
        &mut self,
        snapshot: Vec<u8>,
        offset: u64,
        size: (u16, u16),
        catch_up: CatchUp,
    ) -> Receiver<PaneFrame> {
        self.size = size;
        let capacity = match catch_up {
            CatchUp::Exact => QUEUE_FRAMES,
            CatchUp::Screen => SCREEN_QUEUE_FRAMES,
        };
        let (queue, frames) = mpsc::channel(capacity);
        // A fresh channel has room for its first frame.
        let _ = queue.try_send(self.picture(Bytes::from(snapshot)));
        self.clients.push(Client {
            queue,
            catch_up,
            sent: Some(offset),
            lagging: false,
            window: Instant::now(),
            burst: 0,
            budget: SCREEN_BURST,
        });
        frames
    }

    fn picture(&self, bytes: Bytes) -> PaneFrame {
        PaneFrame::Snapshot {
            bytes,
            rows: self.size.0,
            cols: self.size.1,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.clients.is_empty()
    }

    /// Whether a client is attached now: one that went away is only
    /// forgotten at the next offer, but its queue is already closed.
    pub fn watching(&self) -> bool {
        self.clients.iter().any(|c| !c.queue.is_closed())
    }

    /// Whether a client may ask for output back from the ring: one that
    /// catches up exactly. A screen client catches up with a picture, so
    /// while only those watch, the ring holds nothing: in a flood it would
    /// churn a megabyte of chunks through the cache for no one.
    pub fn reads_ring(&self) -> bool {
        self.clients
            .iter()
            .any(|c| c.catch_up == CatchUp::Exact && !c.queue.is_closed())
    }

    /// Offers the newest output (the ring's end) to every client. Returns
    /// whether a client is still lagging: the caller retries
    /// [`Self::catch_up`] a little later.
    pub fn output(&mut self, chunk: &Bytes, now: Output<'_, impl FnMut() -> Vec<u8>>) -> bool {
        if self.clients.is_empty() {
            return false;
        }
        self.offer(Some(PaneFrame::Output(chunk.clone())), now)
    }

    /// Lets lagging clients catch up, if they have room now.
    pub fn catch_up(&mut self, now: Output<'_, impl FnMut() -> Vec<u8>>) -> bool {
        self.offer(None, now)
    }

    /// Sends every client a fresh snapshot at the new `size`: after a
    /// resize, a client's own terminal has reflowed its screen in its own
    /// way.
    pub fn repaint(&mut self, size: (u16, u16), now: Output<'_, impl FnMut() -> Vec<u8>>) -> bool {
        self.size = size;
        for client in &mut self.clients {
            client.lagging = true;
            client.sent = None;
        }
        self.offer(None, now)
    }

    pub fn state(&mut self, status: PaneStatus, now: Output<'_, impl FnMut() -> Vec<u8>>) -> bool {
        self.offer(Some(PaneFrame::State(status)), now)
    }

    fn offer(
        &mut self,
        frame: Option<PaneFrame>,
        mut now: Output<'_, impl FnMut() -> Vec<u8>>,
    ) -> bool {
        let end = now.ring.end();
        let (rows, cols) = self.size;
        let at = Instant::now();
        let state = matches!(frame, Some(PaneFrame::State(_)));
        let mut picture: Option<Bytes> = None;
        self.clients.retain_mut(|client| {
            let paced = client.catch_up == CatchUp::Screen;
            if paced && at.duration_since(client.window) >= PICTURE_EVERY {
                // While a flood goes on, its bytes would only be painted
                // over by the next picture: the client gets pictures
                // alone until a frame passes under the burst.
                client.budget = if client.burst > SCREEN_BURST {
                    0
                } else {
                    SCREEN_BURST
                };
                client.window = at;
                client.burst = 0;
            }
            let offered = match &frame {
                Some(PaneFrame::Output(bytes)) if paced => bytes.len(),
                _ => 0,
            };
            // A paced client that went over its burst waits for the next
            // window; the picture it gets then holds everything.
            if client.lagging && (!paced || client.burst == 0) {
                let exact = match (client.catch_up, client.sent) {
                    (CatchUp::Exact, Some(sent)) => now.ring.read_from(sent).ok(),
                    _ => None,
                };
                let missed = match exact {
                    Some(bytes) => PaneFrame::Output(bytes),
                    None => PaneFrame::Snapshot {
                        bytes: picture
                            .get_or_insert_with(|| Bytes::from((now.snapshot)()))
                            .clone(),
                        rows,
                        cols,
                    },
                };
                match client.queue.try_send(missed) {
                    Ok(()) => {
                        client.lagging = false;
                        client.sent = Some(end);
                    }
                    Err(TrySendError::Full(_)) => {
                        client.burst += offered;
                        return true;
                    }
                    Err(TrySendError::Closed(_)) => return false,
                }
                client.burst += offered;
                // What was missed already holds this output.
                if !state {
                    return true;
                }
            }
            let Some(frame) = &frame else {
                return true;
            };
            client.burst += offered;
            if client.lagging && !state {
                return true;
            }
            if paced && client.burst > client.budget {
                client.lagging = true;
                return true;
            }
            match client.queue.try_send(frame.clone()) {
                Ok(()) => {
                    if !state {
                        client.sent = Some(end);
                    }
                    true
                }
                Err(TrySendError::Full(_)) => {
                    client.lagging = true;
                    true
                }
                Err(TrySendError::Closed(_)) => false,
            }
        });
        self.clients.iter().any(|c| c.lagging)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(frames: &mut Receiver<PaneFrame>) -> Vec<PaneFrame> {
        let mut out = Vec::new();
        while let Ok(frame) = frames.try_recv() {
            out.push(frame);
        }
        out
    }

    fn now(ring: &OutputRing) -> Output<'_, impl FnMut() -> Vec<u8>> {
        Output {
            ring,
            snapshot: || b"picture".to_vec(),
        }
    }

    fn push(ring: &mut OutputRing, subs: &mut Subscribers, chunk: &[u8]) -> bool {
        let chunk = Bytes::copy_from_slice(chunk);
        ring.push(chunk.clone());
        subs.output(&chunk, now(ring))
    }

    #[test]
    fn a_slow_client_lags_then_catches_up_with_exactly_what_it_missed() {
        let mut ring = OutputRing::new(1 << 20);
        let mut subs = Subscribers::default();
        let mut fast = subs.add(Vec::new(), 0, (24, 80), CatchUp::Exact);
        let mut slow = subs.add(Vec::new(), 0, (24, 80), CatchUp::Exact);
        drain(&mut fast);
        let mut lagging = false;
        for i in 0..QUEUE_FRAMES * 2 {
            lagging = push(&mut ring, &mut subs, format!("{i}\n").as_bytes());
            assert_eq!(
                drain(&mut fast).len(),
                1,
                "the fast client gets every chunk"
            );
        }
        assert!(lagging);
        let frames = drain(&mut slow);
        assert_eq!(frames.len(), QUEUE_FRAMES, "never more than its queue");
        // The snapshot and the chunks that fit in the queue.
        let mut seen: Vec<u8> = Vec::new();
        for frame in &frames[1..] {
            if let PaneFrame::Output(bytes) = frame {
                seen.extend_from_slice(bytes);
            }
        }
        assert!(!subs.catch_up(now(&ring)));
        match drain(&mut slow).as_slice() {
            [PaneFrame::Output(missed)] => seen.extend_from_slice(missed),
            other => panic!("{other:?}"),
        }
        let all: String = (0..QUEUE_FRAMES * 2).map(|i| format!("{i}\n")).collect();
        assert_eq!(
            String::from_utf8(seen).unwrap(),
            all,
            "nothing doubled, nothing lost"
        );
    }

    #[test]
    fn a_client_the_ring_has_left_behind_gets_a_snapshot() {
        let mut ring = OutputRing::new(64);
        let mut subs = Subscribers::default();
        let mut slow = subs.add(Vec::new(), 0, (24, 80), CatchUp::Exact);
        for _ in 0..QUEUE_FRAMES + 10 {
            push(&mut ring, &mut subs, b"0123456789");
        }
        drain(&mut slow);
        subs.catch_up(now(&ring));
        match drain(&mut slow).as_slice() {
            [PaneFrame::Snapshot { bytes, rows, cols }] => {
                assert_eq!(&bytes[..], b"picture");
                assert_eq!((*rows, *cols), (24, 80));
            }
            other => panic!("{other:?}"),
        }
        push(&mut ring, &mut subs, b"next");
        assert!(matches!(drain(&mut slow).as_slice(), [PaneFrame::Output(b)] if &b[..] == b"next"));
    }

    #[test]
    fn a_screen_client_lags_after_a_short_queue_and_gets_a_picture_not_the_bytes() {
        let mut ring = OutputRing::new(1 << 20);
        let mut subs = Subscribers::default();
        let mut screen = subs.add(Vec::new(), 0, (10, 40), CatchUp::Screen);
        let mut lagging = false;
        for _ in 0..SCREEN_QUEUE_FRAMES * 4 {
            lagging = push(&mut ring, &mut subs, b"0123456789");
        }
        assert!(lagging);
        assert_eq!(drain(&mut screen).len(), SCREEN_QUEUE_FRAMES);
        // Its picture comes when the frame it lagged in is over.
        std::thread::sleep(PICTURE_EVERY);
        assert!(!subs.catch_up(now(&ring)));
        match drain(&mut screen).as_slice() {
            [PaneFrame::Snapshot { bytes, rows, cols }] => {
                assert_eq!(
                    &bytes[..],
                    b"picture",
                    "the ring still holds the bytes, yet a picture"
                );
                assert_eq!((*rows, *cols), (10, 40));
            }
            other => panic!("{other:?}"),
        }
        // A resize repaints at the new size.
        subs.repaint((20, 50), now(&ring));
        assert!(matches!(
            drain(&mut screen).as_slice(),
            [PaneFrame::Snapshot {
                rows: 20,
                cols: 50,
                ..
            }]
        ));
    }

    #[test]
    fn a_flood_costs_a_screen_client_a_picture_per_frame_not_every_byte() {
        let mut ring = OutputRing::new(1 << 20);
        let mut subs = Subscribers::default();
        let mut screen = subs.add(Vec::new(), 0, (10, 40), CatchUp::Screen);
        drain(&mut screen);
        // As a terminal hands a flood over.
        let chunk = vec![b'x'; 4 * 1024];
        let start = Instant::now();
        let mut sent_bytes = 0;
        let mut pictures = 0;
        while start.elapsed() < PICTURE_EVERY * 5 {
            push(&mut ring, &mut subs, &chunk);
            for frame in drain(&mut screen) {
                match frame {
                    PaneFrame::Output(bytes) => sent_bytes += bytes.len(),
                    PaneFrame::Snapshot { .. } => pictures += 1,
                    PaneFrame::State(_) => {}
                }
            }
        }
        let elapsed = start.elapsed();
        let windows = (elapsed.as_millis() / PICTURE_EVERY.as_millis() + 1) as usize;
        assert!(
            sent_bytes <= SCREEN_BURST,
            "{sent_bytes} bytes in {windows} windows: only the first frame's burst, \
             then pictures alone"
        );
        assert!(
            pictures >= 1 && pictures <= windows,
            "{pictures} pictures in {windows} windows"
        );
        // The flood's last picture (unless its last chunk went in one), a
        // frame later.
        std::thread::sleep(PICTURE_EVERY);
        subs.catch_up(now(&ring));
        let last = drain(&mut screen);
        assert!(
            last.len() <= 1 && last.iter().all(|f| matches!(f, PaneFrame::Snapshot { .. })),
            "{last:?}"
        );
        // A quiet frame later, a keystroke's echo goes straight through.
        std::thread::sleep(PICTURE_EVERY);
        subs.catch_up(now(&ring));
        assert!(drain(&mut screen).is_empty(), "nothing new to paint");
        push(&mut ring, &mut subs, b"k");
        assert!(matches!(drain(&mut screen).as_slice(), [PaneFrame::Output(b)] if &b[..] == b"k"));
    }

    #[test]
    fn every_client_and_the_ring_share_one_chunk() {
        let mut ring = OutputRing::new(1 << 20);
        let mut subs = Subscribers::default();
        let mut first = subs.add(Vec::new(), 0, (24, 80), CatchUp::Exact);
        let mut second = subs.add(Vec::new(), 0, (24, 80), CatchUp::Exact);
        drain(&mut first);
        drain(&mut second);
        let chunk = Bytes::from(vec![b'x'; 64 * 1024]);
        ring.push(chunk.clone());
        subs.output(&chunk, now(&ring));
        for frames in [&mut first, &mut second] {
            match drain(frames).as_slice() {
                [PaneFrame::Output(sent)] => assert_eq!(sent.as_ptr(), chunk.as_ptr()),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(ring.read_from(0).unwrap().as_ptr(), chunk.as_ptr());
    }

    #[test]
    fn only_an_exact_client_needs_the_ring() {
        let mut subs = Subscribers::default();
        let screen = subs.add(Vec::new(), 0, (24, 80), CatchUp::Screen);
        assert!(
            !subs.reads_ring(),
            "a screen client catches up with a picture"
        );
        let exact = subs.add(Vec::new(), 0, (24, 80), CatchUp::Exact);
        assert!(subs.reads_ring());
        drop(exact);
        assert!(!subs.reads_ring(), "a gone client reads nothing back");
        drop(screen);
    }

    #[test]
    fn a_gone_client_is_forgotten() {
        let mut ring = OutputRing::new(64);
        let mut subs = Subscribers::default();
        let frames = subs.add(Vec::new(), 0, (24, 80), CatchUp::Exact);
        assert!(subs.watching());
        drop(frames);
        // Not looking any more, even before the next offer forgets it.
        assert!(!subs.watching());
        push(&mut ring, &mut subs, b"x");
        assert!(subs.is_empty());
    }
}
