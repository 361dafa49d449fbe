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
//! the bottom rows' soft wraps, which are kept aside and put back.

use std::sync::PoisonError;

use alacritty_terminal::grid::{Dimensions, Grid};
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::TermMode;
use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::vte::ansi::Processor;

use crate::emu::{NeverSync, with_primary, with_primary_mut};
use crate::history::History;
use crate::osc::{Interpreter, Scanner};
use crate::{Engine, Screen, Size};

/// A [`Screen`] turned into its replay bytes and its history; see
/// [`Screen::freeze`].
pub struct FrozenScreen {
    size: Size,
    replay: Box<[u8]>,
    /// How the bottom row of the primary and of the alternate screen end:
    /// a soft wrap (and the spacer a wide character leaves when it wraps),
    /// which a replay cannot recreate without scrolling.
    bottom_ends: [Flags; 2],
    history: History,
    title: String,
    processor: Processor<NeverSync>,
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
        let bottom_ends = self.bottom_ends();
        let Screen {
            engine,
            mut scanner,
            interpreter,
            size,
        } = self;
        let Engine {
            history,
            processor,
            title,
            ..
        } = engine;
        let mut history = history.into_inner().unwrap_or_else(PoisonError::into_inner);
        history.settle();
        history.shrink_to_fit();
        scanner.shrink_to_fit();
        FrozenScreen {
            size,
            replay,
            bottom_ends,
            history,
            title,
            processor,
            scanner,
            interpreter,
        }
    }
}

impl Screen {
    fn bottom_ends(&self) -> [Flags; 2] {
        let mut term = self.engine.lock();
        let alt = term.mode().contains(TermMode::ALT_SCREEN);
        let primary = with_primary(&mut term, bottom_end);
        let alt = if alt {
            bottom_end(term.grid())
        } else {
            Flags::empty()
        };
        [primary, alt]
    }

    fn set_bottom_ends(&mut self, [primary, alt]: [Flags; 2]) {
        let term = self
            .engine
            .term
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        set_bottom_end(term.grid_mut(), alt);
        with_primary_mut(term, |grid| set_bottom_end(grid, primary));
    }
}

/// The row-ending flags of the bottom row's last cell.
const ROW_END: Flags = Flags::WRAPLINE.union(Flags::LEADING_WIDE_CHAR_SPACER);

fn bottom_end(grid: &Grid<Cell>) -> Flags {
    let bottom = Line(grid.screen_lines() as i32 - 1);
    grid[bottom][Column(grid.columns() - 1)].flags & ROW_END
}

fn set_bottom_end(grid: &mut Grid<Cell>, end: Flags) {
    let bottom = Line(grid.screen_lines() as i32 - 1);
    let last = Column(grid.columns() - 1);
    grid[bottom][last].flags.insert(end);
}

impl FrozenScreen {
    /// A live screen again, showing what this one showed, with its history
    /// and its parser's state.
    pub fn thaw(self) -> Screen {
        let mut screen = Screen::new(self.size, self.history.max_lines());
        // The replay never scrolls, so nothing reaches the new history.
        screen.feed(&self.replay, &mut Vec::new());
        screen.set_bottom_ends(self.bottom_ends);
        *screen.engine.history_mut() = self.history;
        screen.engine.processor = self.processor;
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

    /// Heap bytes held (history, replay, parser buffers), for accounting.
    pub fn heap_bytes(&self) -> usize {
        self.replay.len() + self.history.heap_bytes() + self.title.capacity()
    }
}
