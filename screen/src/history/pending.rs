//! Rows that left the screen and are not rendered into text yet.
//!
//! Rendering a row costs about half as much as parsing it did, and in a
//! flood (`cat` of a big log) almost every row is pushed out of the history
//! again before anyone reads it. So a row is only copied here as it leaves,
//! and rendered when output has paused or someone reads the history; rows
//! that newer ones push out of the line bound before that are dropped
//! unrendered.
//!
//! A copy is the row's cells without their extras pointer, 16 bytes each
//! instead of 24 and nothing to drop (a row that has extras, such as
//! combining marks or a hyperlink, is rendered at once instead). Cells live
//! in blocks of [`BLOCK_CELLS`], each one allocation: large enough that the
//! allocator maps it on its own and returns it to the system when freed, so
//! a flood leaves no resident memory behind once its rows are rendered.
//! While the flood lasts, a block whose rows are gone is kept for the next
//! rows rather than freed (fresh pages cost a fault and zeroing each).

use std::collections::VecDeque;

use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::vte::ansi::Color;

/// Cells per block: 1 MiB.
const BLOCK_CELLS: usize = 64 * 1024;

/// A cell as kept here: everything but the extras.
#[derive(Clone, Copy, Debug)]
struct Packed {
    c: char,
    fg: Color,
    bg: Color,
    flags: Flags,
}

/// A kept row: how many cells it has, whether it soft-wraps into the next.
#[derive(Clone, Copy, Debug)]
struct Meta {
    len: u32,
    wraps: bool,
}

/// Copied rows, oldest first.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    blocks: VecDeque<Vec<Packed>>,
    /// Cells at the front of the first block whose rows are gone.
    consumed: usize,
    rows: VecDeque<Meta>,
    /// An emptied block kept for reuse.
    spare: Option<Vec<Packed>>,
    cells: usize,
    /// Rows that end a logical line (do not wrap).
    line_ends: usize,
}

impl Pending {
    /// Keeps a copy of `cells`, a row that left the screen, soft-wrapping
    /// into the next row if `wraps`. Returns `false`, keeping nothing, if
    /// a cell has extras.
    pub(crate) fn push(&mut self, cells: &[Cell], wraps: bool) -> bool {
        if cells.iter().any(|cell| cell.extra.is_some()) {
            return false;
        }
        let block = self.block_with_room(cells.len());
        block.extend(cells.iter().map(|cell| Packed {
            c: cell.c,
            fg: cell.fg,
            bg: cell.bg,
            flags: cell.flags,
        }));
        self.rows.push_back(Meta {
            len: cells.len() as u32,
            wraps,
        });
        self.cells += cells.len();
        self.line_ends += usize::from(!wraps);
        true
    }

    fn block_with_room(&mut self, cells: usize) -> &mut Vec<Packed> {
        let room = self
            .blocks
            .back()
            .is_some_and(|block| block.capacity() - block.len() >= cells);
        if !room {
            let spare = self.spare.take().filter(|block| block.capacity() >= cells);
            let block = spare.unwrap_or_else(|| Vec::with_capacity(BLOCK_CELLS.max(cells)));
            self.blocks.push_back(block);
        }
        let last = self.blocks.len() - 1;
        &mut self.blocks[last]
    }

    /// Forgets the oldest row.
    pub(crate) fn pop(&mut self) {
        let Some(meta) = self.rows.pop_front() else {
            return;
        };
        self.cells -= meta.len as usize;
        self.line_ends -= usize::from(!meta.wraps);
        self.consumed += meta.len as usize;
        if self
            .blocks
            .front()
            .is_some_and(|block| block.len() == self.consumed)
        {
            self.spare = self.blocks.pop_front().map(|mut block| {
                block.clear();
                block
            });
            self.consumed = 0;
        }
    }

    pub(crate) fn rows(&self) -> usize {
        self.rows.len()
    }

    pub(crate) fn cells(&self) -> usize {
        self.cells
    }

    /// Logical lines the rows make, a last one still wrapping included.
    pub(crate) fn lines(&self) -> usize {
        let open = self.rows.back().is_some_and(|meta| meta.wraps);
        self.line_ends + usize::from(open)
    }

    /// Hands every row's cells, oldest first, to `f` and forgets them all
    /// (the blocks are freed).
    pub(crate) fn drain(&mut self, mut f: impl FnMut(&[Cell], bool)) {
        let mut row = Vec::new();
        let mut blocks = self.blocks.iter();
        let mut block: &[Packed] = blocks.next().map_or(&[], |block| &block[self.consumed..]);
        for meta in &self.rows {
            let len = meta.len as usize;
            if block.len() < len {
                block = blocks.next().map_or(&[], |block| &block[..]);
            }
            let (packed, rest) = block.split_at(len.min(block.len()));
            row.clear();
            row.extend(packed.iter().map(|cell| Cell {
                c: cell.c,
                fg: cell.fg,
                bg: cell.bg,
                flags: cell.flags,
                extra: None,
            }));
            f(&row, meta.wraps);
            block = rest;
        }
        *self = Pending::default();
    }

    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.blocks
            .iter()
            .chain(&self.spare)
            .map(|block| block.capacity() * size_of::<Packed>())
            .sum::<usize>()
            + self.rows.capacity() * size_of::<Meta>()
    }
}
