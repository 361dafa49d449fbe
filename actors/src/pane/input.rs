//! A pane's input queue, bounded in bytes.
//!
//! Keystrokes, `ctl send` text and the answers to a program's terminal
//! queries wait here until the PTY takes them. A program that does not read
//! (stopped, busy, or never reading stdin) fills its PTY's small buffer and
//! then this queue, and no further: whoever brings input must first reserve
//! room for it ([`InputQueue::reserve`]), which waits while the queue is
//! full. Room is given back when a piece has been written, or dropped
//! because the process ended.

use std::sync::Arc;
use std::time::Instant;

use tokio::sync::{OwnedSemaphorePermit, Semaphore, TryAcquireError};

/// How many bytes of input may wait for one pane's program.
pub const INPUT_QUEUE_BYTES: usize = 1024 * 1024;
/// The largest piece queued at once: a long text is split, so that it goes
/// in as the program reads it.
pub const PIECE_BYTES: usize = 64 * 1024;
/// What a piece costs beyond its bytes, so that a flood of one-byte pieces
/// is bounded too.
const PIECE_OVERHEAD: usize = 64;

/// The room left in a pane's input queue; cheap to clone.
#[derive(Debug, Clone)]
pub struct InputQueue {
    room: Arc<Semaphore>,
}

/// Bytes with their room in the queue reserved; the room is given back
/// when the piece is dropped (written, or thrown away with its process).
#[derive(Debug)]
pub struct InputPiece {
    bytes: Vec<u8>,
    _room: OwnedSemaphorePermit,
}

/// The queue stayed full until the deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the pane's input queue ({INPUT_QUEUE_BYTES} bytes) is full")]
pub struct QueueFull;

impl Default for InputQueue {
    fn default() -> Self {
        InputQueue {
            room: Arc::new(Semaphore::new(INPUT_QUEUE_BYTES)),
        }
    }
}

impl InputQueue {
    /// Reserves room for `bytes` (at most [`PIECE_BYTES`]; see [`pieces`]),
    /// waiting until the program has read enough, or until `deadline`.
    pub async fn reserve(
        &self,
        bytes: Vec<u8>,
        deadline: Option<Instant>,
    ) -> Result<InputPiece, QueueFull> {
        let cost = cost(&bytes);
        let acquire = self.room.clone().acquire_many_owned(cost);
        let permit = match deadline {
            Some(at) => tokio::time::timeout_at(at.into(), acquire)
                .await
                .map_err(|_| QueueFull)?,
            None => acquire.await,
        };
        // The semaphore is never closed.
        let room = permit.map_err(|_| QueueFull)?;
        Ok(InputPiece { bytes, _room: room })
    }

    /// Reserves room only if there is some now (for answers to terminal
    /// queries: a program that does not read its input needs none).
    pub fn try_reserve(&self, bytes: Vec<u8>) -> Result<InputPiece, QueueFull> {
        match self.room.clone().try_acquire_many_owned(cost(&bytes)) {
            Ok(room) => Ok(InputPiece { bytes, _room: room }),
            Err(TryAcquireError::NoPermits | TryAcquireError::Closed) => Err(QueueFull),
        }
    }

    /// The bytes waiting now, with their overhead.
    pub fn queued(&self) -> usize {
        INPUT_QUEUE_BYTES - self.room.available_permits()
    }
}

impl InputPiece {
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// `bytes` in pieces the queue takes one at a time.
pub fn pieces(bytes: Vec<u8>) -> Vec<Vec<u8>> {
    if bytes.len() <= PIECE_BYTES {
        return vec![bytes];
    }
    bytes.chunks(PIECE_BYTES).map(<[u8]>::to_vec).collect()
}

/// A piece larger than the whole queue (one not split by [`pieces`]) takes
/// all of it, so it still goes in once the queue is empty.
fn cost(bytes: &[u8]) -> u32 {
    let cost = (bytes.len() + PIECE_OVERHEAD).min(INPUT_QUEUE_BYTES);
    u32::try_from(cost).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_full_queue_refuses_at_the_deadline_and_takes_more_once_read() {
        let queue = InputQueue::default();
        let mut held = Vec::new();
        while let Ok(piece) = queue.try_reserve(vec![b'x'; PIECE_BYTES]) {
            held.push(piece);
        }
        assert!(queue.queued() <= INPUT_QUEUE_BYTES);
        assert_eq!(
            held.len(),
            INPUT_QUEUE_BYTES / (PIECE_BYTES + PIECE_OVERHEAD)
        );
        while let Ok(piece) = queue.try_reserve(vec![b'x'; 10]) {
            held.push(piece);
        }
        let soon = Instant::now() + Duration::from_millis(50);
        assert_eq!(
            queue.reserve(vec![b'y'; 10], Some(soon)).await.unwrap_err(),
            QueueFull
        );
        // The program reads a piece: its room comes back.
        drop(held.pop());
        let piece = queue.reserve(vec![b'y'; 10], None).await.unwrap();
        assert_eq!(piece.bytes(), b"y".repeat(10));
    }

    #[test]
    fn one_byte_pieces_are_bounded_too() {
        let queue = InputQueue::default();
        let mut held = Vec::new();
        while let Ok(piece) = queue.try_reserve(vec![b'k']) {
            held.push(piece);
        }
        assert_eq!(held.len(), INPUT_QUEUE_BYTES / (1 + PIECE_OVERHEAD));
    }

    #[test]
    fn long_text_is_split_into_pieces_in_order() {
        let text: Vec<u8> = (0..PIECE_BYTES * 2 + 5).map(|i| i as u8).collect();
        let split = pieces(text.clone());
        assert_eq!(split.len(), 3);
        assert!(split.iter().all(|p| p.len() <= PIECE_BYTES));
        assert_eq!(split.concat(), text);
    }
}
