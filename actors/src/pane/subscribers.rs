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

use std::sync::Arc;

use tokio::sync::mpsc::{self, Receiver, Sender, error::TrySendError};

use super::ring::OutputRing;
use crate::model::PaneState;

/// Frames a client's queue holds before it counts as lagging.
pub const QUEUE_FRAMES: usize = 256;

/// What an attached client receives.
#[derive(Debug, Clone)]
pub enum PaneFrame {
    /// PTY output, in order, continuing exactly where the last frame ended.
    Output(Arc<[u8]>),
    /// Escape sequences that repaint the whole screen as it is now.
    Snapshot(Vec<u8>),
    /// The pane's state changed (it exited, or was resumed).
    State {
        state: PaneState,
        exit_code: Option<i32>,
    },
}

#[derive(Debug, Default)]
pub struct Subscribers {
    clients: Vec<Client>,
}

#[derive(Debug)]
struct Client {
    queue: Sender<PaneFrame>,
    /// The output offset the client has been sent up to; `None` when it
    /// needs a whole new picture.
    sent: Option<u64>,
    lagging: bool,
}

/// Where the pane's output stands: the ring, and the screen as it is after
/// everything in it.
pub struct Output<'a, F: FnMut() -> Vec<u8>> {
    pub ring: &'a OutputRing,
    pub snapshot: F,
}

impl Subscribers {
    /// A new client; its first frame is the snapshot it attaches with,
    /// which shows everything up to `offset`.
    pub fn add(&mut self, snapshot: Vec<u8>, offset: u64) -> Receiver<PaneFrame> {
        let (queue, frames) = mpsc::channel(QUEUE_FRAMES);
        // A fresh channel has room for its first frame.
        let _ = queue.try_send(PaneFrame::Snapshot(snapshot));
        self.clients.push(Client {
            queue,
            sent: Some(offset),
            lagging: false,
        });
        frames
    }

    pub fn is_empty(&self) -> bool {
        self.clients.is_empty()
    }

    /// Whether a client is attached now: one that went away is only
    /// forgotten at the next offer, but its queue is already closed.
    pub fn watching(&self) -> bool {
        self.clients.iter().any(|c| !c.queue.is_closed())
    }

    /// Offers the newest output (the ring's end) to every client. Returns
    /// whether a client is still lagging: the caller retries
    /// [`Self::catch_up`] a little later.
    pub fn output(&mut self, chunk: &[u8], now: Output<'_, impl FnMut() -> Vec<u8>>) -> bool {
        if self.clients.is_empty() {
            return false;
        }
        let frame = PaneFrame::Output(Arc::from(chunk));
        self.offer(Some(frame), now)
    }

    /// Lets lagging clients catch up, if they have room now.
    pub fn catch_up(&mut self, now: Output<'_, impl FnMut() -> Vec<u8>>) -> bool {
        self.offer(None, now)
    }

    /// Sends every client a fresh snapshot: after a resize, a client's own
    /// terminal has reflowed its screen in its own way.
    pub fn repaint(&mut self, now: Output<'_, impl FnMut() -> Vec<u8>>) -> bool {
        for client in &mut self.clients {
            client.lagging = true;
            client.sent = None;
        }
        self.offer(None, now)
    }

    pub fn state(
        &mut self,
        state: PaneState,
        exit_code: Option<i32>,
        now: Output<'_, impl FnMut() -> Vec<u8>>,
    ) -> bool {
        self.offer(Some(PaneFrame::State { state, exit_code }), now)
    }

    fn offer(
        &mut self,
        frame: Option<PaneFrame>,
        mut now: Output<'_, impl FnMut() -> Vec<u8>>,
    ) -> bool {
        let end = now.ring.end();
        let mut picture: Option<Vec<u8>> = None;
        self.clients.retain_mut(|client| {
            if client.lagging {
                let missed = match client.sent.map(|sent| now.ring.read_from(sent)) {
                    Some(Ok(bytes)) => PaneFrame::Output(Arc::from(bytes)),
                    _ => PaneFrame::Snapshot(picture.get_or_insert_with(&mut now.snapshot).clone()),
                };
                match client.queue.try_send(missed) {
                    Ok(()) => {
                        client.lagging = false;
                        client.sent = Some(end);
                    }
                    Err(TrySendError::Full(_)) => return true,
                    Err(TrySendError::Closed(_)) => return false,
                }
                // What was missed already holds this output.
                if !matches!(frame, Some(PaneFrame::State { .. })) {
                    return true;
                }
            }
            let Some(frame) = &frame else {
                return true;
            };
            match client.queue.try_send(frame.clone()) {
                Ok(()) => {
                    client.sent = Some(end);
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
        ring.push(chunk);
        subs.output(chunk, now(ring))
    }

    #[test]
    fn a_slow_client_lags_then_catches_up_with_exactly_what_it_missed() {
        let mut ring = OutputRing::new(1 << 20);
        let mut subs = Subscribers::default();
        let mut fast = subs.add(Vec::new(), 0);
        let mut slow = subs.add(Vec::new(), 0);
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
        let mut slow = subs.add(Vec::new(), 0);
        for _ in 0..QUEUE_FRAMES + 10 {
            push(&mut ring, &mut subs, b"0123456789");
        }
        drain(&mut slow);
        subs.catch_up(now(&ring));
        match drain(&mut slow).as_slice() {
            [PaneFrame::Snapshot(picture)] => assert_eq!(picture, b"picture"),
            other => panic!("{other:?}"),
        }
        push(&mut ring, &mut subs, b"next");
        assert!(matches!(drain(&mut slow).as_slice(), [PaneFrame::Output(b)] if &b[..] == b"next"));
    }

    #[test]
    fn a_gone_client_is_forgotten() {
        let mut ring = OutputRing::new(64);
        let mut subs = Subscribers::default();
        let frames = subs.add(Vec::new(), 0);
        assert!(subs.watching());
        drop(frames);
        // Not looking any more, even before the next offer forgets it.
        assert!(!subs.watching());
        push(&mut ring, &mut subs, b"x");
        assert!(subs.is_empty());
    }
}
