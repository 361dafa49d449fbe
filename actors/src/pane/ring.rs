//! A bounded ring of a pane's raw output, addressed by absolute offsets.
//!
//! Every byte a pane ever produced has an offset that only grows, so a
//! client can say "everything from offset N": either the ring still holds
//! it, or the client has fallen behind and must start again from a fresh
//! screen snapshot. The ring always advances; nobody waits for a reader.
//!
//! The ring holds the chunks the PTY reader made, shared with every client
//! they were sent to, not a copy of their bytes. Small chunks (an echo, a
//! prompt) are joined into one of at most [`JOIN_BELOW`] bytes, so any two
//! neighbours hold more than that between them: the number of chunks, and
//! what keeping them costs, is bounded by the bytes held. While no client
//! is attached the ring holds nothing ([`OutputRing::pass`]): only an
//! attached client can fall behind, and one attaching later starts from
//! the screen's picture at the end.

use std::collections::VecDeque;

use bytes::{Bytes, BytesMut};

/// The default capacity: enough for a client to ride out a burst.
pub const DEFAULT_RING_BYTES: usize = 1024 * 1024;
/// Chunks are joined while the result stays at most this long.
pub const JOIN_BELOW: usize = 4096;

#[derive(Debug)]
pub struct OutputRing {
    /// The chunks in order, each with the absolute offset of its first
    /// byte.
    chunks: VecDeque<(u64, Bytes)>,
    /// The bytes the chunks hold together.
    held: usize,
    capacity: usize,
    /// The offset just past the newest byte.
    end: u64,
}

/// The ring no longer holds what was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lagged {
    /// The oldest offset still held.
    pub oldest: u64,
}

impl OutputRing {
    pub fn new(capacity: usize) -> OutputRing {
        OutputRing {
            chunks: VecDeque::new(),
            held: 0,
            capacity: capacity.max(1),
            end: 0,
        }
    }

    /// The offset just past the newest byte: where the next byte will go.
    pub fn end(&self) -> u64 {
        self.end
    }

    /// The oldest offset still held.
    fn start(&self) -> u64 {
        self.end - self.held as u64
    }

    pub fn push(&mut self, chunk: Bytes) {
        if chunk.is_empty() {
            return;
        }
        let offset = self.end;
        self.end += chunk.len() as u64;
        self.held += chunk.len();
        match self.chunks.back_mut() {
            Some((_, last)) if last.len() + chunk.len() <= JOIN_BELOW => {
                let mut joined = BytesMut::with_capacity(last.len() + chunk.len());
                joined.extend_from_slice(last);
                joined.extend_from_slice(&chunk);
                *last = joined.freeze();
            }
            _ => self.chunks.push_back((offset, chunk)),
        }
        self.trim();
    }

    /// Drops the oldest bytes beyond the capacity.
    fn trim(&mut self) {
        while self.held > self.capacity {
            let excess = self.held - self.capacity;
            let Some((offset, oldest)) = self.chunks.front_mut() else {
                return;
            };
            if oldest.len() <= excess {
                self.held -= oldest.len();
                self.chunks.pop_front();
            } else {
                *oldest = oldest.slice(excess..);
                *offset += excess as u64;
                self.held -= excess;
            }
        }
    }

    /// Everything from `offset` to the end: a share of the newest chunk
    /// when it holds all of that, else one copy of the chunks' slices.
    pub fn read_from(&self, offset: u64) -> Result<Bytes, Lagged> {
        if offset < self.start() {
            return Err(Lagged {
                oldest: self.start(),
            });
        }
        if offset >= self.end {
            return Ok(Bytes::new());
        }
        let first = self
            .chunks
            .partition_point(|(at, chunk)| at + chunk.len() as u64 <= offset);
        let skip = |(at, chunk): &(u64, Bytes)| {
            let from = usize::try_from(offset.saturating_sub(*at)).unwrap_or(usize::MAX);
            chunk.slice(from.min(chunk.len())..)
        };
        if first + 1 == self.chunks.len() {
            return Ok(skip(&self.chunks[first]));
        }
        let wanted = usize::try_from(self.end - offset).unwrap_or(usize::MAX);
        let mut missed = BytesMut::with_capacity(wanted);
        for piece in self.chunks.range(first..) {
            missed.extend_from_slice(&skip(piece));
        }
        Ok(missed.freeze())
    }

    /// Lets go of the bytes held (and their memory), keeping every offset,
    /// for when no client can ask for them: one attaching later starts
    /// from the end.
    pub fn release(&mut self) {
        self.chunks = VecDeque::new();
        self.held = 0;
    }

    /// Counts `len` bytes of output that nobody can ask for (no client is
    /// attached): the end moves on, nothing is held, and what was held
    /// goes. The screen and its history have the text already.
    pub fn pass(&mut self, len: usize) {
        self.release();
        self.end += len as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push(ring: &mut OutputRing, bytes: &[u8]) {
        ring.push(Bytes::copy_from_slice(bytes));
    }

    #[test]
    fn offsets_are_absolute_and_monotonic() {
        let mut ring = OutputRing::new(8);
        push(&mut ring, b"hello");
        assert_eq!(ring.end(), 5);
        assert_eq!(ring.read_from(0).unwrap(), &b"hello"[..]);
        push(&mut ring, b" world");
        assert_eq!(ring.end(), 11);
        // Only the last 8 bytes are held.
        assert_eq!(ring.read_from(3).unwrap(), &b"lo world"[..]);
        assert_eq!(ring.read_from(2), Err(Lagged { oldest: 3 }));
        assert_eq!(ring.read_from(11).unwrap(), &b""[..]);
    }

    #[test]
    fn passed_output_moves_the_end_and_holds_nothing() {
        let mut ring = OutputRing::new(64);
        push(&mut ring, b"seen by a client");
        ring.pass(10);
        assert_eq!(ring.end(), 26);
        assert_eq!(ring.held, 0);
        assert_eq!(ring.read_from(16), Err(Lagged { oldest: 26 }));
        assert_eq!(ring.read_from(26).unwrap(), &b""[..]);
        push(&mut ring, b"next");
        assert_eq!(ring.read_from(26).unwrap(), &b"next"[..]);
    }

    #[test]
    fn a_chunk_larger_than_the_ring_keeps_its_tail() {
        let mut ring = OutputRing::new(4);
        push(&mut ring, b"ab");
        push(&mut ring, b"0123456789");
        assert_eq!(ring.end(), 12);
        assert_eq!(ring.read_from(8).unwrap(), &b"6789"[..]);
        assert!(ring.read_from(7).is_err());
    }

    #[test]
    fn a_released_ring_keeps_its_offsets_and_fills_again() {
        let mut ring = OutputRing::new(8);
        push(&mut ring, b"hello");
        ring.release();
        assert_eq!(ring.end(), 5);
        assert_eq!(ring.chunks.capacity(), 0);
        assert_eq!(ring.read_from(4), Err(Lagged { oldest: 5 }));
        push(&mut ring, b"abc");
        assert_eq!(ring.read_from(5).unwrap(), &b"abc"[..]);
    }

    #[test]
    fn reading_past_the_end_gives_nothing() {
        let mut ring = OutputRing::new(4);
        push(&mut ring, b"ab");
        assert_eq!(ring.read_from(10).unwrap(), &b""[..]);
    }

    #[test]
    fn the_newest_chunk_is_shared_not_copied() {
        let mut ring = OutputRing::new(1 << 20);
        let chunk = Bytes::from(vec![b'x'; 2 * JOIN_BELOW]);
        ring.push(chunk.clone());
        let missed = ring.read_from(10).unwrap();
        assert_eq!(missed.len(), chunk.len() - 10);
        assert_eq!(
            missed.as_ptr(),
            chunk[10..].as_ptr(),
            "a share of the chunk"
        );
    }

    #[test]
    fn what_spans_chunks_comes_back_whole_and_in_order() {
        let mut ring = OutputRing::new(1 << 20);
        let mut all = Vec::new();
        for i in 0..40u8 {
            // Big and small chunks, some joined, some not.
            let len = if i % 3 == 0 {
                JOIN_BELOW + 7
            } else {
                100 + i as usize
            };
            let chunk = vec![i; len];
            all.extend_from_slice(&chunk);
            ring.push(Bytes::from(chunk));
        }
        for from in [0, 1, 4103, 4200, all.len() as u64 - 1] {
            let missed = ring.read_from(from).unwrap();
            assert_eq!(&missed[..], &all[from as usize..], "from {from}");
        }
    }

    #[test]
    fn a_byte_at_a_time_costs_chunks_in_proportion_to_the_bytes_held() {
        let capacity = 16 * 1024;
        let mut ring = OutputRing::new(capacity);
        let mut all = Vec::new();
        for i in 0..3 * capacity {
            let byte = [(i % 251) as u8];
            all.push(byte[0]);
            push(&mut ring, &byte);
            // Alternate with chunks just too big to join, the worst case.
            if i % 1000 == 0 {
                let big = vec![7u8; JOIN_BELOW];
                all.extend_from_slice(&big);
                ring.push(Bytes::from(big));
            }
        }
        assert!(ring.held <= capacity);
        assert!(
            ring.chunks.len() <= 2 * capacity / JOIN_BELOW + 2,
            "{} chunks",
            ring.chunks.len()
        );
        let oldest = ring.end() - capacity as u64;
        let kept = ring.read_from(oldest).unwrap();
        assert_eq!(&kept[..], &all[all.len() - capacity..]);
        assert!(ring.read_from(oldest - 1).is_err());
    }
}
