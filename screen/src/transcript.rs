//! Incremental reads: the rows a pane's primary screen has completed since
//! an offset, for a script that reads what an agent wrote without reading
//! anything twice.
//!
//! Rows are numbered from the first row the primary screen ever had: a row
//! that scrolls into the history keeps its number, since the count of rows
//! scrolled away is part of it (as in `fresh.rs`). A row counts as complete
//! once the cursor is below it, so the line being typed on, or the prompt
//! the cursor waits at, is read next time, whole. Rows are read as they are
//! now: a row above the cursor that a program rewrites after it was read is
//! not read again.
//!
//! Limits: the history reflows on a resize, so rows read across a resize
//! may repeat or skip a few; rows older than the history keeps are
//! reported as missed; the alternate screen (a full-screen program) adds
//! nothing to the transcript.

use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::index::Line;
use alacritty_terminal::term::TermMode;

use crate::text::{cells, render_row};
use crate::{Screen, Style};

/// What [`Screen::rows_since`] read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Since {
    /// The rows, each ending in `\n` (empty when there are none).
    pub text: String,
    /// Where the next incremental read starts.
    pub offset: u64,
    /// Rows after the offset asked for that the history no longer holds.
    pub missed: u64,
}

impl Screen {
    /// The offset the primary screen's completed rows end at now.
    pub fn transcript_offset(&self) -> u64 {
        self.rows_since(u64::MAX, Style::Plain).offset
    }

    /// The rows completed since `offset` (see the module doc), and the
    /// offset to read from next. An offset past the end (given by a
    /// screen that was since cleared) reads from the end.
    pub fn rows_since(&self, offset: u64, style: Style) -> Since {
        let term = self.engine.lock();
        let history = self.engine.history();
        let scrolled = history.rows_scrolled();
        if term.mode().contains(TermMode::ALT_SCREEN) {
            // The primary screen's rows wait under the full-screen program.
            return Since {
                text: String::new(),
                offset: offset.min(scrolled),
                missed: 0,
            };
        }
        let grid = term.grid();
        let cursor = u64::try_from(grid.cursor.point.line.0.max(0)).unwrap_or(0);
        let end = scrolled + cursor;
        let from = offset.min(end);
        let render = |cells: &[alacritty_terminal::term::cell::Cell], rows: &mut Vec<String>| {
            let mut text = String::new();
            render_row(&mut text, cells, style, true);
            rows.push(text);
        };
        let mut rows = Vec::new();
        let mut missed = 0;
        if from < scrolled {
            let wanted = usize::try_from(scrolled - from).unwrap_or(usize::MAX);
            for row in history
                .rows_newest_first(grid.columns(), &grid[Line(0)])
                .take(wanted)
            {
                render(&cells(&row), &mut rows);
            }
            missed = (wanted - rows.len()) as u64;
            rows.reverse();
        }
        let first = from.max(scrolled) - scrolled;
        for line in first..cursor {
            let line = i32::try_from(line).unwrap_or(i32::MAX);
            render(&cells(&grid[Line(line)]), &mut rows);
        }
        let mut text = rows.join("\n");
        if !rows.is_empty() {
            text.push('\n');
        }
        Since {
            text,
            offset: end,
            missed,
        }
    }
}
