//! The clients attached to a pane, and how a slow one is kept from holding
//! anyone back.
//!
//! Each attached client has a bounded queue of frames. Output is offered to
//! every queue without waiting; a client whose queue is full is marked
//! lagged and gets nothing more until there is room, and then it gets a
//! fresh screen snapshot instead of the bytes it missed. The pane never
//! waits for a client, and a client never costs more than its queue.

use std::sync::Arc;

use tokio::sync::mpsc::{self, Receiver, Sender, error::TrySendError};

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
    lagged: bool,
}

impl Subscribers {
    /// A new client; its first frame is the snapshot it attaches with.
    pub fn add(&mut self, snapshot: Vec<u8>) -> Receiver<PaneFrame> {
        let (queue, frames) = mpsc::channel(QUEUE_FRAMES);
        // A fresh channel has room for its first frame.
        let _ = queue.try_send(PaneFrame::Snapshot(snapshot));
        self.clients.push(Client {
            queue,
            lagged: false,
        });
        frames
    }

    pub fn is_empty(&self) -> bool {
        self.clients.is_empty()
    }

    /// Offers a chunk of output to every client. `snapshot` renders the
    /// screen after this chunk, for clients catching up. Returns whether a
    /// client is still lagging (the caller should retry [`Self::catch_up`]).
    pub fn output(&mut self, bytes: &[u8], snapshot: impl FnMut() -> Vec<u8>) -> bool {
        if self.clients.is_empty() {
            return false;
        }
        self.offer(Some(PaneFrame::Output(Arc::from(bytes))), snapshot)
    }

    /// Sends every client a fresh snapshot: after a resize, a client's own
    /// terminal has reflowed its screen in its own way.
    pub fn repaint(&mut self, snapshot: impl FnMut() -> Vec<u8>) -> bool {
        for client in &mut self.clients {
            client.lagged = true;
        }
        self.offer(None, snapshot)
    }

    /// Gives lagging clients a fresh snapshot if they have room now.
    pub fn catch_up(&mut self, snapshot: impl FnMut() -> Vec<u8>) -> bool {
        self.offer(None, snapshot)
    }

    pub fn state(
        &mut self,
        state: PaneState,
        exit_code: Option<i32>,
        snapshot: impl FnMut() -> Vec<u8>,
    ) -> bool {
        self.offer(Some(PaneFrame::State { state, exit_code }), snapshot)
    }

    fn offer(&mut self, frame: Option<PaneFrame>, mut snapshot: impl FnMut() -> Vec<u8>) -> bool {
        let mut picture: Option<Vec<u8>> = None;
        self.clients.retain_mut(|client| {
            if client.lagged {
                let fresh = picture.get_or_insert_with(&mut snapshot).clone();
                match client.queue.try_send(PaneFrame::Snapshot(fresh)) {
                    Ok(()) => client.lagged = false,
                    Err(TrySendError::Full(_)) => return true,
                    Err(TrySendError::Closed(_)) => return false,
                }
                // The snapshot already shows this output.
                if !matches!(frame, Some(PaneFrame::State { .. })) {
                    return true;
                }
            }
            let Some(frame) = &frame else {
                return true;
            };
            match client.queue.try_send(frame.clone()) {
                Ok(()) => true,
                Err(TrySendError::Full(_)) => {
                    client.lagged = true;
                    true
                }
                Err(TrySendError::Closed(_)) => false,
            }
        });
        self.clients.iter().any(|c| c.lagged)
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

    #[test]
    fn a_slow_client_lags_then_gets_a_fresh_snapshot_and_never_blocks() {
        let mut subs = Subscribers::default();
        let mut fast = subs.add(b"first".to_vec());
        let mut slow = subs.add(b"first".to_vec());
        assert!(matches!(drain(&mut fast)[0], PaneFrame::Snapshot(_)));
        // The slow client reads nothing; the pane goes on regardless.
        let mut lagging = false;
        for i in 0..QUEUE_FRAMES * 2 {
            lagging = subs.output(format!("{i}\n").as_bytes(), || b"now".to_vec());
            assert!(
                drain(&mut fast).len() == 1,
                "the fast client gets every chunk"
            );
        }
        assert!(lagging);
        let frames = drain(&mut slow);
        assert_eq!(frames.len(), QUEUE_FRAMES, "never more than its queue");
        // Once it has room, it catches up with a snapshot, not old bytes.
        assert!(!subs.catch_up(|| b"now".to_vec()));
        match drain(&mut slow).as_slice() {
            [PaneFrame::Snapshot(picture)] => assert_eq!(picture, b"now"),
            other => panic!("{other:?}"),
        }
        subs.output(b"next", || b"later".to_vec());
        assert!(matches!(drain(&mut slow).as_slice(), [PaneFrame::Output(b)] if &b[..] == b"next"));
    }

    #[test]
    fn a_gone_client_is_forgotten() {
        let mut subs = Subscribers::default();
        let frames = subs.add(Vec::new());
        drop(frames);
        subs.output(b"x", Vec::new);
        assert!(subs.is_empty());
    }
}
