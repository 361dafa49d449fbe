//! A screen nobody looks at, kept as bytes.
//!
//! A live [`Screen`] holds two full grids (primary and alternate) of 24-byte
//! cells: 92 KiB at 80x24, 469 KiB at 200x50. A frozen one holds what
//! [`Screen::replay`] would send an attaching client (a few KiB), the
//! history as it is (already compact text), the title, and the parser's
//! state, so output cut in the middle of an escape sequence still parses
//! the same after [`FrozenScreen::thaw`]. Thawing feeds the replay to a new
//! screen of the same size: the grid, cursor, modes, colours and title come
//! back as an attaching client would see them, so whatever `replay` cannot
//! carry (its documented gaps, such as the title stack) is lost, but for
//! the rows' soft wraps (the bottom row's, and one where a wrap is
//! pending) and what DECSC (or entering the alternate screen) saved: with
//! a pending wrap, or on an inactive alternate screen, which alacritty
//! keeps from one visit to the next. Those are kept aside and put back.
//!
//! # Across a process
//!
//! A live upgrade re-execs the server, so a frozen screen must also live
//! through bytes: [`FrozenScreen::encode`] writes it in a compact binary
//! format with a leading [`FORMAT_VERSION`] (see `wire` for the layout
//! and its bounds) and [`FrozenScreen::decode`] reads it back, refusing
//! another version, damaged bytes and anything out of the crate's bounds.
//! What crosses: the replay, the row ends, both saved cursors (pen,
//! underline colour, link, charsets, pending wrap), the history's settled
//! text and line metas (never cells), the fresh-line counter, the title,
//! the last character printed (for `CSI b`), the OSC scanner's state and
//! the body it withholds, and a chunked kitty notification still
//! arriving. vte's state has no API to be read; in its place go the bytes
//! that bring a fresh vte to it (the unfinished sequence, or a partial
//! UTF-8 character: see `fast`), which decoding reads again without
//! acting on them.
//!
//! What does not cross, beyond what the replay cannot carry anyway (above;
//! a thaw in the same process loses it too): of a sequence unfinished
//! after more than 64 KiB only its first 64 KiB go
//! ([`FrozenScreen::parser_bytes_dropped`]), which is exact for a DCS or
//! SOS/PM/APC string's body (vte hands it nobody) but ends parameters
//! that went on past them; and vte's own memory of the last character it
//! printed, which nothing reads (`fast` carries out `CSI b` itself).

mod wire;

use std::sync::PoisonError;

use alacritty_terminal::grid::{Cursor, Dimensions, Grid};
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::TermMode;
use alacritty_terminal::term::cell::{Cell, Flags};

use crate::emu::{with_inactive_alt, with_primary, with_primary_mut};
use crate::fast::Parser;
use crate::fresh::Fresh;
use crate::history::History;
use crate::osc::{Interpreter, Scanner};
use crate::{Engine, Screen, Size};
pub use wire::{DecodeError, FORMAT_VERSION};

/// A [`Screen`] turned into its replay bytes and its history; see
/// [`Screen::freeze`].
pub struct FrozenScreen {
    size: Size,
    replay: Box<[u8]>,
    /// How each row of the primary and (if active) the alternate screen
    /// ends: a soft wrap, and the spacer a wide character leaves when it
    /// wraps. A replay cannot recreate the bottom row's without scrolling,
    /// nor a wrap on the row of a pending wrap.
    row_ends: [Box<[Flags]>; 2],
    saved_cursors: SavedCursors,
    history: History,
    /// The count of fresh lines, which a replay would start again.
    fresh: Fresh,
    title: String,
    parser: Parser,
    printed: Option<char>,
    scanner: Scanner,
    interpreter: Interpreter,
}

impl std::fmt::Debug for FrozenScreen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrozenScreen")
            .field("size", &self.size)
            .field("title", &self.title)
            .field("replay_bytes", &self.replay.len())
            .finish_non_exhaustive()
    }
}

impl Screen {
    /// Turns the screen into a few KiB for as long as nobody looks at it
    /// or writes to it; [`FrozenScreen::thaw`] makes it a screen again.
    pub fn freeze(self) -> FrozenScreen {
        let replay = self.replay().into_boxed_slice();
        let row_ends = self.row_ends();
        let saved_cursors = self.saved_cursors();
        let Screen {
            engine,
            mut scanner,
            interpreter,
            size,
        } = self;
        let Engine {
            history,
            parser,
            printed,
            title,
            fresh,
            ..
        } = engine;
        let mut history = history.into_inner().unwrap_or_else(PoisonError::into_inner);
        history.settle();
        history.shrink_to_fit();
        scanner.shrink_to_fit();
        FrozenScreen {
            size,
            replay,
            row_ends,
            saved_cursors,
            history,
            fresh,
            title,
            parser,
            printed,
            scanner,
            interpreter,
        }
    }
}

impl Screen {
    /// The row ends of the primary screen and, if it is active, of the
    /// alternate screen.
    fn row_ends(&self) -> [Box<[Flags]>; 2] {
        let mut term = self.engine.lock();
        let alt = term.mode().contains(TermMode::ALT_SCREEN);
        let primary = with_primary(&mut term, row_ends);
        let alt = if alt {
            row_ends(term.grid())
        } else {
            Box::default()
        };
        [primary, alt]
    }

    fn set_row_ends(&mut self, [primary, alt]: &[Box<[Flags]>; 2]) {
        let term = self
            .engine
            .term
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        if term.mode().contains(TermMode::ALT_SCREEN) {
            set_row_ends(term.grid_mut(), alt);
        }
        with_primary_mut(term, |grid| set_row_ends(grid, primary));
    }
}

/// The flags of a row's last cell that say how it ends.
const ROW_END: Flags = Flags::WRAPLINE.union(Flags::LEADING_WIDE_CHAR_SPACER);

/// How each row of `grid` ends, top first.
fn row_ends(grid: &Grid<Cell>) -> Box<[Flags]> {
    let last = Column(grid.columns() - 1);
    (0..grid.screen_lines())
        .map(|line| grid[Line(line as i32)][last].flags & ROW_END)
        .collect()
}

fn set_row_ends(grid: &mut Grid<Cell>, ends: &[Flags]) {
    let last = Column(grid.columns() - 1);
    for (line, &end) in ends.iter().enumerate().take(grid.screen_lines()) {
        let row = &mut grid[Line(line as i32)];
        // Writing the last cell writes the whole row out: only where the
        // replay left another end.
        if row[last].flags & ROW_END != end {
            let flags = &mut row[last].flags;
            flags.remove(ROW_END);
            flags.insert(end);
        }
    }
}

/// What DECSC saved, exactly: a replay restores the slots without a
/// pending wrap, and cannot reach the alternate screen's while the primary
/// one is active.
struct SavedCursors {
    /// The active screen's slot.
    active: Cursor<Cell>,
    /// The inactive screen's: the alternate screen's slot, or the primary
    /// screen's cursor, which is its slot as well (see `with_primary`;
    /// the replay was made that way before this is read).
    inactive: Cursor<Cell>,
}

impl Screen {
    fn saved_cursors(&self) -> SavedCursors {
        let mut term = self.engine.lock();
        let active = term.grid().saved_cursor.clone();
        let inactive = if term.mode().contains(TermMode::ALT_SCREEN) {
            with_primary(&mut term, |grid| grid.cursor.clone())
        } else {
            with_inactive_alt(&mut term, |grid| grid.saved_cursor.clone())
        };
        SavedCursors { active, inactive }
    }

    fn set_saved_cursors(&mut self, saved: SavedCursors) {
        let term = self
            .engine
            .term
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        term.grid_mut().saved_cursor = saved.active;
        if term.mode().contains(TermMode::ALT_SCREEN) {
            // Swapping back makes the primary's slot its cursor.
            with_primary_mut(term, |grid| grid.cursor = saved.inactive);
        } else {
            with_inactive_alt(term, |grid| grid.saved_cursor = saved.inactive);
        }
    }
}

impl FrozenScreen {
    /// A live screen again, showing what this one showed, with its history
    /// and its parser's state.
    pub fn thaw(self) -> Screen {
        let mut screen = Screen::new(self.size, self.history.max_lines());
        // The replay never scrolls, so nothing reaches the new history.
        screen.feed(&self.replay, &mut Vec::new());
        screen.set_row_ends(&self.row_ends);
        screen.set_saved_cursors(self.saved_cursors);
        *screen.engine.history_mut() = self.history;
        screen.engine.fresh = self.fresh;
        screen.engine.parser = self.parser;
        screen.engine.printed = self.printed;
        screen.scanner = self.scanner;
        screen.interpreter = self.interpreter;
        screen
    }

    /// The size the screen had.
    pub fn size(&self) -> Size {
        self.size
    }

    /// The title the screen had.
    pub fn title(&self) -> &str {
        &self.title
    }

    /// Exactly what [`Screen::replay`] gave when the screen was frozen:
    /// an attach can be served without thawing.
    pub fn replay(&self) -> &[u8] {
        &self.replay
    }

    /// Whether the screen was frozen inside a sequence longer than 64 KiB
    /// (a DCS or SOS/PM/APC string, in practice), of which only the first
    /// 64 KiB cross a process: [`FrozenScreen::decode`] gives a parser
    /// that read only those. Exact for a string's body, which nobody is
    /// handed; a CSI whose parameters went on past them ends where they
    /// end. Worth a log line, no more.
    pub fn parser_bytes_dropped(&self) -> bool {
        self.parser.unfinished().1
    }

    /// Heap bytes held (history, replay, parser buffers), for accounting.
    pub fn heap_bytes(&self) -> usize {
        self.replay.len()
            + self.history.heap_bytes()
            + self.title.capacity()
            + self.parser.unfinished().0.len()
    }
}
