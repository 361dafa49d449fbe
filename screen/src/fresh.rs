//! Counting lines that reach the primary screen for the first time.
//!
//! "Something new to read" must not be raised by a spinner or a status line
//! repainting in place, nor by a full-screen program redrawing the
//! alternate screen. So this keeps a frontier: the lowest row, counted from
//! the first row the primary screen ever had, that has held output. A line
//! feed that scrolls the primary screen moves every row up by one (so the
//! count of rows scrolled away is part of a row's number), and at the end of
//! each chunk the cursor's row — if the cursor stands on a row it has
//! written to — is compared with the frontier. Moving up and rewriting
//! (Ink's `eraseLines`, `\r` spinners) never passes it.
//!
//! A long line that auto-wraps on the last row scrolls inside `Term`; the
//! emulator glue sees the cursor jump back to the start of the row and
//! counts that scroll as well (`Emu::input_at_line_end`).
//!
//! A full redraw is a repaint, not news: clearing the primary screen or
//! putting the cursor on its top row (clear + repaint, a cursor-home
//! repaint, a frame a few rows longer than the last) moves the frontier to
//! the screen's bottom row, so what is drawn on the screen from there on
//! counts only once it scrolls past that row. The price: a short answer
//! printed right after `clear` is not counted either.
//!
//! Limits, chosen for cost: a wide character that does not fit in the
//! last column wraps without the flag test seeing it (a row at most, and
//! only for CJK or emoji text meeting the edge exactly), and text written
//! away from the cursor's final row is only noticed when the cursor
//! reaches past it.

/// The counter; see the module doc.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Fresh {
    /// Rows scrolled off the top of the primary screen by line feeds and
    /// auto-wraps.
    scrolled: i64,
    /// The highest row number (scrolled + line) known to hold output; -1
    /// before anything was written.
    frontier: i64,
    /// Lines that reached the frontier so far.
    pub(crate) lines: u64,
}

impl Fresh {
    pub(crate) fn new() -> Fresh {
        Fresh {
            scrolled: 0,
            frontier: -1,
            lines: 0,
        }
    }

    /// A line feed (or an auto-wrap) at `line` on the primary screen whose
    /// scrolling region ends (exclusive) at `region_end`.
    #[inline]
    pub(crate) fn line_feed(&mut self, line: i32, region_end: i32) {
        if line + 1 == region_end {
            self.scrolled += 1;
        }
    }

    /// The primary screen was cleared, or the cursor put on its top row:
    /// what is drawn on its `screen_lines` rows next is a repaint.
    pub(crate) fn repaint_from_top(&mut self, screen_lines: usize) {
        let bottom = self.scrolled + i64::try_from(screen_lines).unwrap_or(i64::MAX) - 1;
        self.frontier = self.frontier.max(bottom);
    }

    /// After a chunk: the cursor stands at `line`, `column` of the primary
    /// screen.
    pub(crate) fn settle(&mut self, line: i32, column: usize) {
        let row = self.scrolled + i64::from(line);
        // A cursor at the start of a row has not written to it yet.
        let reached = if column > 0 { row } else { row - 1 };
        if reached > self.frontier {
            self.lines += u64::try_from(reached - self.frontier).unwrap_or(0);
            self.frontier = reached;
        }
    }

    /// What a handover carries: rows scrolled, the frontier, lines counted.
    pub(crate) fn parts(&self) -> (i64, i64, u64) {
        (self.scrolled, self.frontier, self.lines)
    }

    /// The counter [`Fresh::parts`] described, if its row numbers are ones
    /// a pane could reach (far from overflowing the arithmetic above).
    pub(crate) fn from_parts(scrolled: i64, frontier: i64, lines: u64) -> Option<Fresh> {
        const MAX_ROW: i64 = 1 << 62;
        ((0..=MAX_ROW).contains(&scrolled) && (-1..=MAX_ROW).contains(&frontier)).then_some(Fresh {
            scrolled,
            frontier,
            lines,
        })
    }

    /// After a resize the rows are renumbered: start again from the cursor.
    pub(crate) fn reset_at(&mut self, line: i32) {
        self.frontier = self.frontier.max(self.scrolled + i64::from(line));
    }
}
