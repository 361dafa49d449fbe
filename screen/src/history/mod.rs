//! The primary screen's history, kept off the emulator's grid.
//!
//! alacritty keeps scrollback as full-width rows of 24-byte cells, so 2 000
//! lines of `seq` output cost 4 MiB at 80 columns. Here the rows that
//! scroll off the top of the primary screen become the text the persisted
//! tail is made of ([`render_row`] in [`Style::Ansi`]): characters with an
//! SGR sequence wherever the attributes change, each row starting from and
//! returning to default attributes. Soft-wrapped rows are joined into one
//! logical line, so the history reflows at any width; an intermediate row
//! keeps its trailing blanks (they fill the row it wrapped from), a line's
//! last row is trimmed.
//!
//! A row is not rendered as it leaves but copied into [`pending`], and
//! rendered by [`History::settle`] (when output has paused, or before the
//! history is read): in a flood most rows are pushed out of the line bound
//! by newer ones first, and then they are never rendered at all.
//!
//! All lines live back to back in one `String` with one length per line:
//! no allocation per line. The store keeps at most `max_lines` lines and
//! about [`BYTES_PER_LINE`] bytes per line of that (the newest line is
//! always kept whole, and a line longer than [`MAX_LINE_BYTES`] is broken);
//! the oldest lines go first.
//!
//! [`rows`] turns a stored line back into grid rows at a given width, for
//! reading history row by row and for handing rows back to the grid when it
//! grows.

pub(crate) mod pending;
pub(crate) mod rows;

use std::collections::VecDeque;

use alacritty_terminal::grid::Row;
use alacritty_terminal::index::Column;
use alacritty_terminal::term::cell::{Cell, Flags};

use crate::Style;
use crate::history::pending::Pending;
use crate::history::rows::End;
use crate::text::{cells, render_row, trimmed_len};

/// Bytes of history allowed per line of the line bound: a coloured log line
/// of a wide terminal takes 100–300, `seq` output 6.
pub(crate) const BYTES_PER_LINE: usize = 512;

/// A logical line longer than this is broken: the rows that follow start a
/// new line (a minified file printed on one line must not make the newest
/// line, which is never evicted, unbounded).
pub(crate) const MAX_LINE_BYTES: usize = 64 * 1024;

/// Cells of copied rows allowed per line of the line bound, 4 KiB (a row
/// of a wide terminal has up to 1 024): a flood on a very wide screen
/// settles early rather than hold more than this.
const PENDING_CELLS_PER_LINE: usize = 256;

/// The buffer grows by at least this, or an eighth of itself: not by
/// doubling, which would leave up to twice the byte bound allocated.
const MIN_GROWTH: usize = 256;

/// A rendered row is built here first, so the buffer grows by exactly what
/// it needs; a scratch buffer grown past this (a very long row) is freed.
const SCRATCH_KEPT: usize = 16 * 1024;

/// Logical lines that left the top of the primary screen, oldest first.
#[derive(Debug)]
pub(crate) struct History {
    /// Every kept line back to back; `text[..head]` was evicted.
    text: String,
    head: usize,
    /// Each kept line in `text[head..]`, oldest first.
    lines: VecDeque<Meta>,
    /// Whether the newest line's last row soft-wrapped: the next row to
    /// leave the screen (today the screen's top row) continues it.
    open: bool,
    /// Rows newer than every line in `text`, not rendered yet.
    pending: Pending,
    /// The row being rendered.
    scratch: String,
    /// Rows that have left the screen so far.
    scrolled: u64,
    max_lines: usize,
    max_bytes: usize,
}

impl History {
    /// An empty history that keeps at most `max_lines` logical lines.
    pub(crate) fn new(max_lines: usize) -> History {
        History {
            text: String::new(),
            head: 0,
            lines: VecDeque::new(),
            open: false,
            pending: Pending::default(),
            scratch: String::new(),
            scrolled: 0,
            max_lines,
            max_bytes: max_lines.saturating_mul(BYTES_PER_LINE),
        }
    }

    /// Keeps a row that is leaving the top of the screen: a copy of it goes
    /// to the pending rows. Once those make more lines than the bound, the
    /// oldest go, and every rendered line with them; once their cells
    /// exceed [`PENDING_CELLS_PER_LINE`] per line of the bound, or a row
    /// cannot be copied, they are rendered.
    /// Only the cells written since the row's last reset are looked at
    /// (see [`crate::text::cells`]). Returns whether they were copied and
    /// own nothing, so the grid may forget them without visiting them
    /// ([`Row::forget_written`]).
    pub(crate) fn push_row(&mut self, row: &Row<Cell>) -> bool {
        self.scrolled = self.scrolled.wrapping_add(1);
        if self.max_lines == 0 {
            return false;
        }
        let wraps = wraps(row);
        let cells = cells(row);
        // A wrapping row is kept whole (its trailing blanks are part of the
        // line; it is written to its last cell, which holds the wrap), another
        // one without its trailing blanks.
        let used = if wraps {
            cells.len()
        } else {
            trimmed_len(&cells, Style::Ansi)
        };
        if !self.pending.push(&cells[..used], wraps) {
            self.settle();
            self.render(&cells, wraps);
            return false;
        }
        let max_cells = self.max_lines.saturating_mul(PENDING_CELLS_PER_LINE);
        if self.pending.cells() > max_cells {
            self.settle();
        } else if self.pending.lines() > self.max_lines {
            self.clear_text();
            while self.pending.lines() > self.max_lines {
                self.pending.pop();
            }
        }
        // The copy saw no extras in the cells it took; the trailing blanks
        // it left out (a log line's last space) are looked at here.
        let written = row.written();
        written.len() <= used || written[used..].iter().all(|cell| cell.extra.is_none())
    }

    /// Renders the pending rows into lines, skipping those the newer ones
    /// would push out of the line bound right away.
    pub(crate) fn settle(&mut self) {
        // The first pending row may continue the newest line.
        let continues = self.open && self.pending.rows() > 0;
        let new_lines = self.pending.lines() - usize::from(continues);
        if new_lines >= self.max_lines {
            self.clear_text();
            while self.pending.lines() > self.max_lines {
                self.pending.pop();
            }
        }
        let mut pending = std::mem::take(&mut self.pending);
        pending.drain(|cells, wraps| self.render(cells, wraps));
    }

    /// Appends the rendered row `cells` to the lines.
    fn render(&mut self, cells: &[Cell], wraps: bool) {
        self.scratch.clear();
        render_row(&mut self.scratch, cells, Style::Ansi, !wraps);
        self.make_room(self.scratch.len());
        let before = self.text.len();
        self.text.push_str(&self.scratch);
        if self.scratch.capacity() > SCRATCH_KEPT {
            self.scratch = String::new();
        }
        self.append(before, wraps);
    }

    /// Makes room for `bytes` more text: by dropping the evicted front of
    /// the buffer once that is an eighth of it (each compaction copies at
    /// most seven bytes per byte it frees), otherwise by growing it by an
    /// eighth. So the buffer holds at most about 9/7 of the byte bound.
    fn make_room(&mut self, bytes: usize) {
        if self.text.capacity() - self.text.len() >= bytes {
            return;
        }
        if self.head > 0 && self.head >= self.text.len() / 8 {
            self.text.drain(..self.head);
            self.head = 0;
        }
        if self.text.capacity() - self.text.len() < bytes {
            let growth = (self.text.len() / 8).max(MIN_GROWTH);
            self.text.reserve_exact(bytes.max(growth));
        }
    }

    /// Accounts for the row `text[before..]`, just written: it continues
    /// the newest line if that one is open, or starts a new line.
    fn append(&mut self, before: usize, wraps: bool) {
        let added = self.text.len() - before;
        let newest = match self.lines.back_mut() {
            Some(line) if self.open => {
                // A blank last row leaves no text, but it is a row.
                *line = Meta::new(line.len() + added, added == 0 && !wraps);
                *line
            }
            _ => {
                self.lines.push_back(Meta::new(added, false));
                Meta::new(added, false)
            }
        };
        self.open = wraps && newest.len() <= self.max_line_bytes();
        self.evict();
    }

    fn max_line_bytes(&self) -> usize {
        MAX_LINE_BYTES.min(self.max_bytes / 2)
    }

    /// Drops the oldest lines until both bounds hold again.
    fn evict(&mut self) {
        while self.lines.len() > self.max_lines
            || (self.lines.len() > 1 && self.bytes() > self.max_bytes)
        {
            let Some(line) = self.lines.pop_front() else {
                break;
            };
            self.head += line.len();
        }
    }

    /// Rows that have left the screen so far (wrapping).
    pub(crate) fn rows_scrolled(&self) -> u64 {
        self.scrolled
    }

    /// Forgets everything (ED 3, RIS).
    pub(crate) fn clear(&mut self) {
        self.pending = Pending::default();
        self.clear_text();
    }

    /// Forgets the rendered lines (older than every pending row).
    fn clear_text(&mut self) {
        self.text = String::new();
        self.head = 0;
        self.lines = VecDeque::new();
        self.open = false;
    }

    /// Number of logical lines kept (after [`History::settle`]).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether nothing is kept, rendered or not.
    pub(crate) fn is_empty(&self) -> bool {
        self.lines.is_empty() && self.pending.rows() == 0
    }

    /// Whether the newest line continues on the screen's top row.
    pub(crate) fn is_open(&self) -> bool {
        self.open
    }

    /// Bytes of text kept.
    pub(crate) fn bytes(&self) -> usize {
        self.text.len() - self.head
    }

    /// Heap bytes held, buffers' spare capacity included.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.text.capacity()
            + self.scratch.capacity()
            + self.lines.capacity() * size_of::<Meta>()
            + self.pending.heap_bytes()
    }

    /// The line bound this history was made with.
    pub(crate) fn max_lines(&self) -> usize {
        self.max_lines
    }

    /// The kept lines, newest first, each without a line break.
    #[cfg(test)]
    pub(crate) fn newest_first(&self) -> impl Iterator<Item = &str> {
        self.entries().map(|(line, _)| line)
    }

    /// The kept lines, newest first, with how each ends above a screen
    /// whose top row is `screen_top`.
    pub(crate) fn ends_newest_first<'a>(
        &'a self,
        screen_top: &Row<Cell>,
    ) -> impl Iterator<Item = (&'a str, End)> + 'a {
        let newest = End::above(self.open, screen_top);
        self.entries().enumerate().map(move |(i, (line, meta))| {
            let end = match (i, meta.blank_last_row()) {
                (0, false) => newest,
                (_, true) => End::BlankRow,
                _ => End::Closed,
            };
            (line, end)
        })
    }

    fn entries(&self) -> impl Iterator<Item = (&str, Meta)> {
        debug_assert_eq!(self.pending.rows(), 0, "read before settling");
        let mut end = self.text.len();
        self.lines.iter().rev().map(move |&meta| {
            let start = end - meta.len();
            let line = &self.text[start..end];
            end = start;
            (line, meta)
        })
    }

    /// The rows of history at `columns`, newest first, above a screen
    /// whose top row is `screen_top`.
    pub(crate) fn rows_newest_first<'a>(
        &'a self,
        columns: usize,
        screen_top: &Row<Cell>,
    ) -> impl Iterator<Item = Row<Cell>> + 'a {
        self.ends_newest_first(screen_top)
            .flat_map(move |(line, end)| rows::to_rows(line, columns, end).into_iter().rev())
    }

    /// How many rows the history makes at `columns` above a screen whose
    /// top row is `screen_top`.
    pub(crate) fn row_count(&self, columns: usize, screen_top: &Row<Cell>) -> usize {
        self.ends_newest_first(screen_top)
            .map(|(line, end)| rows::row_count(line, columns, end))
            .sum()
    }

    /// Takes the newest whole lines, at least `rows` rows of them at
    /// `columns` if there are that many, out of the history as grid rows,
    /// oldest first, to hand them back to a grid whose top row is
    /// `screen_top`. Lines go whole because alacritty reflows a line from
    /// its first row.
    pub(crate) fn take_lines(
        &mut self,
        columns: usize,
        rows: usize,
        screen_top: &Row<Cell>,
    ) -> Vec<Row<Cell>> {
        let mut taken: Vec<Row<Cell>> = Vec::new();
        while taken.len() < rows {
            let Some((line, end)) = self.ends_newest_first(screen_top).next() else {
                break;
            };
            let mut line_rows = rows::to_rows(line, columns, end);
            let len = self.lines.pop_back().map_or(0, Meta::len);
            self.text.truncate(self.text.len() - len);
            self.open = false;
            line_rows.append(&mut taken);
            taken = line_rows;
        }
        taken
    }

    /// The kept lines back to back, and each one's length and whether it
    /// ends in a blank row (as one number, see `Meta`), oldest first: with
    /// [`History::rows_scrolled`], [`History::is_open`] and
    /// [`History::max_lines`], all a handover needs of a settled history.
    pub(crate) fn settled_parts(&self) -> (&str, impl ExactSizeIterator<Item = u32> + '_) {
        debug_assert_eq!(self.pending.rows(), 0, "read before settling");
        (
            &self.text[self.head..],
            self.lines.iter().map(|meta| meta.0),
        )
    }

    /// The history [`History::settled_parts`] described, if the parts
    /// keep the bounds one builds up to (no more than `max_lines` lines,
    /// nor more than its byte bound unless it is one line, which only
    /// rows of many combining marks make long) and cut `text` at
    /// character boundaries; else why not.
    pub(crate) fn from_settled_parts(
        max_lines: usize,
        scrolled: u64,
        open: bool,
        text: String,
        lines: Vec<u32>,
    ) -> Result<History, &'static str> {
        let mut history = History::new(max_lines);
        if lines.len() > max_lines {
            return Err("more history lines than its bound");
        }
        if lines.len() > 1 && text.len() > history.max_bytes {
            return Err("more history text than its bound");
        }
        let mut end = 0usize;
        for &meta in &lines {
            end = end
                .checked_add(Meta(meta).len())
                .filter(|&end| text.is_char_boundary(end))
                .ok_or("a history line ends outside its text")?;
        }
        if end != text.len() {
            return Err("history text beyond its lines");
        }
        if open && lines.is_empty() {
            return Err("an open history line that is not there");
        }
        history.text = text;
        history.lines = lines.into_iter().map(Meta).collect();
        history.open = open;
        history.scrolled = scrolled;
        Ok(history)
    }

    /// Releases spare capacity (before a screen is frozen).
    pub(crate) fn shrink_to_fit(&mut self) {
        self.text.drain(..self.head);
        self.head = 0;
        self.text.shrink_to_fit();
        self.scratch = String::new();
        self.lines.shrink_to_fit();
    }
}

/// A kept line: its byte length, and in the top bit whether it ends in a
/// blank row after a soft wrap (a row that leaves no text, so the line's
/// rows could not otherwise be told from one row fewer).
#[derive(Clone, Copy, Debug)]
struct Meta(u32);

impl Meta {
    const BLANK_LAST_ROW: u32 = 1 << 31;

    /// `len` is below 2 GiB: lines are broken at [`MAX_LINE_BYTES`].
    fn new(len: usize, blank_last_row: bool) -> Meta {
        let flag = if blank_last_row {
            Meta::BLANK_LAST_ROW
        } else {
            0
        };
        Meta(len as u32 & !Meta::BLANK_LAST_ROW | flag)
    }

    fn len(self) -> usize {
        (self.0 & !Meta::BLANK_LAST_ROW) as usize
    }

    fn blank_last_row(self) -> bool {
        self.0 & Meta::BLANK_LAST_ROW != 0
    }
}

/// Whether a row soft-wraps into the next one.
pub(crate) fn wraps(row: &Row<Cell>) -> bool {
    row.len() > 0 && row[Column(row.len() - 1)].flags.contains(Flags::WRAPLINE)
}

#[cfg(test)]
mod tests;
