//! Resizing with the history kept off the grid.
//!
//! alacritty reflows soft-wrapped rows on resize; when the primary screen
//! grows it pulls rows back from its scrollback onto the screen, and when
//! it shrinks it pushes rows into it. The grid has no scrollback of its own
//! here, so for the length of `Term::resize` the newest rows of the
//! [`History`] are lent to the primary grid as scrollback, and whatever
//! scrollback the grid has afterwards goes back to the history. The result
//! is what alacritty with its own scrollback would show.
//!
//! Lending goes through `Grid::scroll_up`, the only way to give a grid
//! scrollback, which makes alacritty allocate a cache of 1 000 rows; it is
//! freed again before this returns. Resizes are rare next to output.

use alacritty_terminal::grid::{Dimensions, Grid};
use alacritty_terminal::index::Line;
use alacritty_terminal::term::Term;
use alacritty_terminal::term::cell::Cell;
use alacritty_terminal::vte::ansi::Color;

use crate::emu::{Listener, with_primary_mut};
use crate::history::History;

/// Resizes `term` to `lines` x `columns`, moving rows between its primary
/// grid and `history` as alacritty would between screen and scrollback.
pub(crate) fn resize<S: Dimensions>(term: &mut Term<Listener>, history: &mut History, size: S) {
    let lend = rows_to_lend(term, history, size.screen_lines(), size.columns());
    let new_cells = size.screen_lines() * size.columns();
    with_primary_mut(term, |grid| {
        lend_rows(grid, history, lend);
        // Whatever reflow pushes off the top must be kept until it is
        // copied: an old row becomes at most one row per cell.
        let rows = grid.history_size() + grid.screen_lines();
        grid.update_history(rows * grid.columns() + new_cells);
    });
    term.resize(size);
    with_primary_mut(term, |grid| take_back(grid, history));
}

/// How many rows of history the grid needs to resize to `lines` x
/// `columns` as alacritty would with its own scrollback: when it grows,
/// all it could pull back onto the screen (old rows may join in pairs or
/// more when the columns grow); when the columns change, a line that
/// continues on the screen, which reflows from its first row.
fn rows_to_lend(term: &Term<Listener>, history: &History, lines: usize, columns: usize) -> usize {
    let (old_lines, old_columns) = (term.screen_lines(), term.columns());
    if history.is_empty() {
        0
    } else if lines > old_lines || columns > old_columns {
        lines * columns.div_ceil(old_columns) + 1
    } else {
        usize::from(columns != old_columns && history.is_open())
    }
}

/// Puts the newest history lines, at least `count` rows of them, into the
/// grid's scrollback, under which the screen stays as it is.
fn lend_rows(grid: &mut Grid<Cell>, history: &mut History, count: usize) {
    let rows = history.take_lines(grid.columns(), count, &grid[Line(0)]);
    let lent = rows.len() as i32;
    if lent == 0 {
        return;
    }
    let lines = grid.screen_lines() as i32;
    grid.update_history(rows.len());
    // Makes `lent` rows of scrollback out of the top of the screen...
    grid.scroll_up::<Color>(&(Line(0)..Line(lines)), rows.len());
    // ...moves the screen back down over them...
    for line in (0..lines).rev() {
        let row = std::mem::take(&mut grid[Line(line - lent)]);
        grid[Line(line)] = row;
    }
    // ...and fills the scrollback with the history's rows.
    for (line, row) in (-lent..0).zip(rows) {
        grid[Line(line)] = row;
    }
}

/// Moves the grid's scrollback, oldest row first, to the history and
/// releases the rows alacritty cached for it.
fn take_back(grid: &mut Grid<Cell>, history: &mut History) {
    let top = -(grid.history_size() as i32);
    for line in top..0 {
        history.push_row(&grid[Line(line)]);
    }
    grid.update_history(0);
    grid.truncate();
}
