//! How far each row of the active grid may have been written.
//!
//! A row that leaves the top of the primary screen is trimmed of its blank
//! end before it is kept ([`crate::history::History::push_row`]). Found
//! cell by cell from the right, that end cost a fifth of a flood's parse
//! on a wide screen: a log line of 80 characters leaves 120 blank cells of
//! a 200-column row to look at. tmux keeps a used-cell count per line for
//! the same reason; alacritty keeps one too, but private. So [`Used`]
//! keeps, for each visible row, a column from which on every cell is
//! known to be untouched (a space with default background, no flags, no
//! extras: what a new row or an erase with the default pen leaves).
//!
//! It is an upper bound, kept exactly only where that is cheap: a run the
//! fast path writes, a character vte writes, a line feed that scrolls.
//! Everything else that may change cells out of sight (erasing, inserting,
//! deleting, scrolling by other means, switching screens, resizing, RIS)
//! makes the rows it touches, or every row, unknown: scanned in full as
//! before. `fast::tests` compares screens with and without it.

/// For each visible row of the active grid, the column from which on its
/// cells are untouched.
#[derive(Debug)]
pub(crate) struct Used {
    ends: Vec<u16>,
    columns: u16,
    /// Off only for tests: every row is scanned in full.
    on: bool,
}

impl Used {
    /// A blank grid of `lines` x `columns`: nothing written.
    pub(crate) fn new(lines: usize, columns: usize) -> Used {
        Used {
            ends: vec![0; lines],
            columns: u16::try_from(columns).unwrap_or(u16::MAX),
            on: true,
        }
    }

    /// One that knows nothing: the oracle it is tested against.
    #[cfg(test)]
    pub(crate) fn off(lines: usize, columns: usize) -> Used {
        Used {
            on: false,
            ..Used::new(lines, columns)
        }
    }

    /// Where the untouched cells of visible row `line` begin (the row's
    /// length when unknown).
    #[inline]
    pub(crate) fn end(&self, line: i32) -> usize {
        match self.slot(line) {
            Some(&end) if self.on => usize::from(end),
            _ => usize::from(self.columns),
        }
    }

    /// Cells up to `end` of row `line` may have been written.
    #[inline]
    pub(crate) fn wrote(&mut self, line: i32, end: usize) {
        let end = u16::try_from(end).unwrap_or(u16::MAX).min(self.columns);
        if let Some(slot) = self.slot_mut(line) {
            *slot = (*slot).max(end);
        }
    }

    /// Anything in row `line` may have changed.
    pub(crate) fn unknown(&mut self, line: i32) {
        let columns = self.columns;
        if let Some(slot) = self.slot_mut(line) {
            *slot = columns;
        }
    }

    /// Anything anywhere may have changed.
    pub(crate) fn forget(&mut self) {
        self.ends.fill(self.columns);
    }

    /// The rows of the region `top..bottom` moved up by `count`, and the
    /// rows that came in at its bottom are blank if `blank` (reset with the
    /// default background), otherwise unknown.
    pub(crate) fn scroll_up(&mut self, (top, bottom): (i32, i32), count: usize, blank: bool) {
        let (Ok(top), Ok(bottom)) = (usize::try_from(top), usize::try_from(bottom)) else {
            return self.forget();
        };
        let bottom = bottom.min(self.ends.len());
        let columns = self.columns;
        let Some(region) = self.ends.get_mut(top..bottom) else {
            return self.forget();
        };
        let count = count.min(region.len());
        region.rotate_left(count);
        let start = region.len() - count;
        region[start..].fill(if blank { 0 } else { columns });
    }

    fn slot(&self, line: i32) -> Option<&u16> {
        usize::try_from(line)
            .ok()
            .and_then(|line| self.ends.get(line))
    }

    fn slot_mut(&mut self, line: i32) -> Option<&mut u16> {
        usize::try_from(line)
            .ok()
            .and_then(|line| self.ends.get_mut(line))
    }
}
