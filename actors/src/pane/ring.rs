//! A bounded ring of a pane's raw output, addressed by absolute offsets.
//!
//! Every byte a pane ever produced has an offset that only grows, so a
//! client can say "everything from offset N": either the ring still holds
//! it, or the client has fallen behind and must start again from a fresh
//! screen snapshot. The ring always advances; nobody waits for a reader.

use std::collections::VecDeque;

/// The default capacity: enough for a client to ride out a burst.
pub const DEFAULT_RING_BYTES: usize = 1024 * 1024;

#[derive(Debug)]
pub struct OutputRing {
    bytes: VecDeque<u8>,
    capacity: usize,
    /// The absolute offset of `bytes[0]`.
    start: u64,
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
            bytes: VecDeque::with_capacity(capacity.min(64 * 1024)),
            capacity: capacity.max(1),
            start: 0,
        }
    }

    /// The offset just past the newest byte: where the next byte will go.
    pub fn end(&self) -> u64 {
        self.start + self.bytes.len() as u64
    }

    pub fn push(&mut self, chunk: &[u8]) {
        if chunk.len() >= self.capacity {
            let keep = &chunk[chunk.len() - self.capacity..];
            self.start = self.end() + (chunk.len() - keep.len()) as u64;
            self.bytes.clear();
            self.bytes.extend(keep);
            return;
        }
        let overflow = (self.bytes.len() + chunk.len()).saturating_sub(self.capacity);
        if overflow > 0 {
            self.bytes.drain(..overflow);
            self.start += overflow as u64;
        }
        self.bytes.extend(chunk);
    }

    /// Everything from `offset` to the end.
    pub fn read_from(&self, offset: u64) -> Result<Vec<u8>, Lagged> {
        if offset < self.start {
            return Err(Lagged { oldest: self.start });
        }
        let skip = usize::try_from(offset - self.start).unwrap_or(usize::MAX);
        Ok(self.bytes.iter().skip(skip).copied().collect())
    }

    /// Lets go of the bytes held (and their memory), keeping every offset,
    /// for when no client can ask for them: one attaching later starts
    /// from the end.
    pub fn release(&mut self) {
        self.start = self.end();
        self.bytes = VecDeque::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_absolute_and_monotonic() {
        let mut ring = OutputRing::new(8);
        ring.push(b"hello");
        assert_eq!(ring.end(), 5);
        assert_eq!(ring.read_from(0).unwrap(), b"hello");
        ring.push(b" world");
        assert_eq!(ring.end(), 11);
        // Only the last 8 bytes are held.
        assert_eq!(ring.read_from(3).unwrap(), b"lo world");
        assert_eq!(ring.read_from(2), Err(Lagged { oldest: 3 }));
        assert_eq!(ring.read_from(11).unwrap(), b"");
    }

    #[test]
    fn a_chunk_larger_than_the_ring_keeps_its_tail() {
        let mut ring = OutputRing::new(4);
        ring.push(b"ab");
        ring.push(b"0123456789");
        assert_eq!(ring.end(), 12);
        assert_eq!(ring.read_from(8).unwrap(), b"6789");
        assert!(ring.read_from(7).is_err());
    }

    #[test]
    fn a_released_ring_keeps_its_offsets_and_fills_again() {
        let mut ring = OutputRing::new(8);
        ring.push(b"hello");
        ring.release();
        assert_eq!(ring.end(), 5);
        assert_eq!(ring.bytes.capacity(), 0);
        assert_eq!(ring.read_from(4), Err(Lagged { oldest: 5 }));
        ring.push(b"abc");
        assert_eq!(ring.read_from(5).unwrap(), b"abc");
    }

    #[test]
    fn reading_past_the_end_gives_nothing() {
        let mut ring = OutputRing::new(4);
        ring.push(b"ab");
        assert_eq!(ring.read_from(10).unwrap(), b"");
    }
}
