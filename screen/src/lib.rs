//! A headless terminal screen for each pane.
//!
//! This crate owns the VT emulator behind one small type: it parses a pane's
//! output, keeps its scrollback, answers what is on screen or in the
//! scrollback (plain, or with colours), renders the tail that is persisted,
//! serializes the screen into escape sequences that repaint it exactly on
//! an attaching client, freezes a screen nobody looks at into a few KiB
//! (which also cross a process, for a live upgrade), and reports the OSC events signaltty cares about (titles, cwd,
//! notifications, bells). It is pure computation: it must never do I/O,
//! spawn anything, keep time or know about actors.
//!
//! # Why alacritty_terminal
//!
//! The emulator sits on the pane's output path, the product's hot path, so
//! it was picked by measurement (64 MiB coloured log, 200x50, 4 KiB chunks,
//! this machine class): vt100 0.18 parses 62 MiB/s without scrollback but
//! only 28 MiB/s with 10k lines of it; alacritty_terminal 0.26 does 83 and
//! 56 MiB/s, and it reflows wrapped lines on resize, which vt100 does not.
//! (A later re-measurement with the log of `examples/throughput.rs` gave
//! the same picture: vt100 53–62 and 33–34 MiB/s, alacritty 95–99 and
//! 63–68.) What it lacks is a serializer (vt100 has `contents_formatted`),
//! so this crate writes one: see [`Screen::replay`]. `examples/throughput.rs`
//! measures the figure with this crate's overhead included.
//!
//! # How a chunk flows
//!
//! [`Screen::feed`] runs a small streaming scanner over the bytes first (a
//! `memchr` jump from `]` to `]`, looking back for the ESC that makes one an
//! OSC: it was from ESC to ESC, 7% of a coloured log's parse).
//! It finds OSC sequences exactly where vte does, withholds their bodies
//! from the emulator until they are terminated, interprets OSC 7/9/99/777
//! (which alacritty ignores) and then hands the body on, or drops it if it
//! grew beyond [`MAX_OSC_BYTES`]. Everything else goes to the parser
//! (`fast`): `vte::ansi::Processor` driving alacritty's `Term` through a
//! thin handler that also mirrors the few facts `Term` keeps private (the
//! scrolling region, the shifted-in charset, the tab stops) and copies
//! each row that is about to scroll off the top of the primary screen into
//! the history, with runs of printable ASCII and plain SGR sequences
//! taken past vte (below).
//!
//! # The fast path in front of alacritty (issue 19)
//!
//! Measured on main before it (`perf record` of the server around a 64 MiB
//! coloured flood): alacritty's per-character `Term::input` ~24%, vte's
//! dispatch ~23%, capturing rows into history ~19%. Three ways were open:
//! a fast path in front of alacritty_terminal, a fork of its grid, or a
//! screen of our own. The fast path was taken, because it keeps every VT
//! behaviour alacritty has (and the replay, reflow and history built on
//! it) and is tested against it byte for byte, while the other two would
//! re-implement all of that for the same hot-path gain:
//!
//! - `fast` mirrors vte's state machine and, where vte would print from
//!   its ground state, finds the run of printable ASCII (eight bytes at a
//!   time) and writes it into the cursor's row in one loop, as ghostty
//!   handles printable runs in bulk. Plain-number SGR (`ESC[1;31m`) is
//!   applied as vte maps it; REP (`CSI b`) is done there too, since vte no
//!   longer sees every character. Anything else (insert mode, other
//!   charsets, hyperlinks, wide characters in the way, every other
//!   sequence) still goes through vte and `Term::input`.
//! - Each row of the grid holds only the cells written since its last
//!   reset (alacritty_terminal is vendored with that change, see below), as
//!   tmux keeps a used-cell count per line: a row leaving the screen is
//!   trimmed from its last written cell instead of its last column.
//!
//! `Screen::feed` on the coloured log of `examples/throughput.rs` (callgrind,
//! instructions, repeatable): 2.89 G on main, 1.24 G with the fast path and
//! a used-cell count of its own (−57%), the same again (−1%) once the rows
//! themselves knew their written cells. Over its first 4 MiB, 248 M before
//! issue 19's third round and 174 M after (−30%): a row whose cells own
//! nothing is emptied without dropping them one by one once its copy is in
//! the history (`Row::forget_written`), the OSC scanner jumps from `]` to
//! `]` rather than from ESC to ESC, vte is only called with bytes to give
//! it, and the loop that writes a run's cells no longer reads the pen or
//! the closure again for every cell. Keeping rows by
//! moving them out of the grid instead of copying them saved instructions
//! too (−12%) but cost time: the moved rows, 24 bytes a cell with room to
//! their width, are colder memory than the 16-byte copies (the server's
//! CPU per flood went from 0.58 to 0.64 s), so the copy stays.
//!
//! `fast::tests` holds screens with the fast path to screens without it,
//! cell for cell, on arbitrary byte streams in arbitrary chunks. Where the
//! issue left the choice, alacritty's semantics win (what its `Term` would
//! have done is what the fast path does), and where vte's parsing and
//! alacritty's differ from tmux's, vte's stays.
//! Titles, bells and replies come from the emulator's own events, so they
//! agree with what it actually parsed: a BEL that ends an OSC or sits in a
//! DCS never rings.
//!
//! A client that draws panes itself reads them cell by cell
//! ([`Screen::row_cells`], [`Screen::modes`]); named keys are encoded for
//! the modes a program set by [`KeyPress`].
//!
//! Synchronized updates (mode 2026) are applied immediately instead of being
//! buffered: a headless model must always reflect every byte consumed, or a
//! client attaching mid-update would never see the buffered part.
//!
//! # Why the history is not alacritty's
//!
//! alacritty keeps scrollback as full-width rows of 24-byte cells: 2 000
//! lines of `seq` cost 4 MiB at 80x24 and 10 MiB at 200x50 (tmux: 290 and
//! 613 KiB). So the `Term` has none; the history is the persisted tail's
//! own format, logical lines of text with SGR, back to back in one buffer
//! (see `history`), which also reflows at any width. A row leaving the
//! screen is only copied as it goes; it is rendered into text when the
//! history is read or [`Screen::settle`]d (the server does either at least
//! every 500 ms while output flows), so the rows of a flood that newer
//! rows push out of the bound are never rendered at all. A
//! resize lends the newest lines back to the grid, so alacritty reflows and
//! pulls them back exactly as it would its own scrollback.
//!
//! alacritty keeps a full alternate grid all along; entering the
//! alternate screen resets every cell of it, so while the primary screen
//! is active it is kept at 1x2 (`emu::shrink_inactive_alt`) with only its
//! DECSC slot, which outlives a visit.
//!
//! # Why alacritty_terminal is vendored (issue 19)
//!
//! Upstream keeps every row of the grid at full width, 24 bytes a cell:
//! 46 KiB for an idle 80x24 screen and 234 KiB at 200x50 whatever it
//! shows, in every live pane. `vendor/alacritty_terminal` is the published
//! 0.26.0 with rows that hold only the cells written since their last
//! reset and one fill cell for the rest (its README says what else changed
//! and how it is tested against the published crate, cell for cell). An
//! idle shell's live screen costs ~11 KiB at either size, one after
//! `seq 1 12000` with its 2 000 lines of history 43 KiB at 80x24 and 51 KiB
//! at 200x50 (`examples/memory.rs`; 56, 250, 89 and 275 KiB before). The
//! alternatives were cells of our own (tmux's are 8 bytes with attributes
//! in runs): a screen of our own, with every VT behaviour, the replay,
//! reflow and history to rebuild on it, for a saving the lazy rows already
//! make where it counts (untouched cells).
//!
//! A screen nobody looks at can go further: [`Screen::freeze`] keeps only
//! its replay bytes, history and parser state ([`FrozenScreen`]).
//! [`FrozenScreen::encode`] turns that into bytes a new server process
//! decodes after a live upgrade, the parser's state included (as the
//! bytes of the sequence it is in the middle of); the `freeze` module
//! says what crosses and what does not.

mod cells;
mod emu;
mod fast;
mod freeze;
mod fresh;
mod history;
mod identity;
mod keyboard;
mod keys;
mod osc;
mod paint;
mod reflow;
mod sanitize;
mod serialize;
mod sgr;
#[cfg(test)]
mod tests;
mod text;
mod transcript;
mod vt_state;

use std::fmt;
use std::sync::{Mutex, MutexGuard, PoisonError};

use alacritty_terminal::event::Event;
use alacritty_terminal::grid::{Dimensions, Grid, Row};
use alacritty_terminal::index::Line;
use alacritty_terminal::term::cell::Cell as GridCell;
use alacritty_terminal::term::color::COUNT as COLOR_COUNT;
use alacritty_terminal::term::{Config, Osc52, Term, TermMode};

use crate::emu::{Emu, Listener, Tracked, shrink_inactive_alt, with_primary};
use crate::fast::Parser;
pub use crate::freeze::{DecodeError, FORMAT_VERSION, FrozenScreen};
use crate::history::History;
use crate::keyboard::Keyboard;
pub use crate::keyboard::{KeyboardFollower, MAX_KEYBOARD_STACK, kitty};
pub use crate::keys::{
    KeyEvent, KeyPress, KeyTarget, MAX_KEY_NAME, NamedKey, UnknownKey, decode_key,
};
pub use crate::osc::MAX_OSC_BYTES;
use crate::osc::{Interpreter, Scanner, Step};
pub use crate::transcript::Since;

pub use crate::cells::{
    Attrs, Cell, Color, CursorShape, Modes, MouseEncoding, MouseReporting, Width,
};
pub use crate::sanitize::{MAX_BODY_CHARS, MAX_TITLE_CHARS, sanitize};

/// Default label of the line [`Screen::load_history`] draws under restored
/// history, so a reader can tell old output from new.
pub const RESTORED_SEPARATOR: &str = "── restored ──";

/// Largest accepted number of rows or columns. A bogus size from a client
/// must not make the emulator allocate gigabytes (the grid is 24 bytes per
/// cell, twice while the alternate screen is active).
pub const MAX_DIMENSION: u16 = 1024;

/// A terminal size in character cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Size {
    pub rows: u16,
    pub cols: u16,
}

impl Size {
    /// The size the emulator can actually use: at least 1 row and 2 columns
    /// (a wide character needs two), at most [`MAX_DIMENSION`].
    fn clamped(self) -> Size {
        Size {
            rows: self.rows.clamp(1, MAX_DIMENSION),
            cols: self.cols.clamp(2, MAX_DIMENSION),
        }
    }
}

/// `Size` as alacritty wants it; kept private so alacritty's traits do not
/// become part of this crate's API.
struct TermSize(Size);

impl Dimensions for TermSize {
    fn total_lines(&self) -> usize {
        self.screen_lines()
    }

    fn screen_lines(&self) -> usize {
        usize::from(self.0.rows)
    }

    fn columns(&self) -> usize {
        usize::from(self.0.cols)
    }
}

/// How text is extracted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Style {
    /// Characters only.
    Plain,
    /// Characters with SGR colours and attributes; every line starts from
    /// and returns to default attributes, so lines can be used separately.
    Ansi,
}

/// Something the program in the pane told the terminal that signaltty acts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScreenEvent {
    /// New window title (OSC 0/2, title stack pops), sanitized and at most
    /// [`MAX_TITLE_CHARS`]; `""` when the program resets it (OSC with empty
    /// title, RIS). Only sent when the title actually changes.
    Title(String),
    /// OSC 7 working directory: the percent-decoded absolute path of a
    /// `file://host/path` URL (or kitty's `kitty-shell-cwd://`). The host is
    /// not checked against this machine.
    Cwd(String),
    /// A desktop-notification request; title and body are sanitized and
    /// capped ([`MAX_TITLE_CHARS`], [`MAX_BODY_CHARS`]); never both empty.
    Notify {
        source: NotifySource,
        title: String,
        body: String,
    },
    /// BEL outside of OSC/DCS strings.
    Bell,
    /// Bytes the program expects the terminal to answer with (cursor
    /// position report, device attributes, mode reports, colours it set
    /// itself). Write them to the pane's input.
    Reply(Vec<u8>),
}

/// Which notification protocol a [`ScreenEvent::Notify`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NotifySource {
    /// `OSC 9 ; body` (iTerm2/ConEmu; ConEmu's `9;<n>;…` subcommands such as
    /// progress bars are ignored).
    Osc9,
    /// `OSC 777 ; notify ; title ; body` (rxvt-unicode, foot, wezterm).
    Osc777,
    /// `OSC 99 ; metadata ; payload` (kitty). Chunks with the same `i=` are
    /// joined until one without `d=0`; `p=title` fills the title, `p=body` or
    /// no `p` fills the body, other payload kinds are ignored; `e=1` payloads
    /// are base64.
    Osc99,
}

/// The emulator proper: everything `feed` touches per byte.
struct Engine {
    /// A `Mutex` only so that `&self` methods can temporarily swap screens
    /// (see `emu::with_primary`) while `Screen` stays `Sync`; `feed` uses
    /// `get_mut` and never locks.
    term: Mutex<Term<Listener>>,
    parser: Parser,
    listener: Listener,
    tracked: Tracked,
    fresh: fresh::Fresh,
    title: String,
    /// Reused for draining the listener so the hot path does not allocate.
    scratch: Vec<Event>,
    /// The primary screen's scrollback; the `Term` itself keeps none. A
    /// `Mutex` for the same reason as `term`: reading it settles it.
    history: Mutex<History>,
    /// The last character written, for `CSI b`.
    printed: Option<char>,
    keyboard: Keyboard,
}

impl Engine {
    #[inline]
    fn advance(&mut self, bytes: &[u8], events: &mut Vec<ScreenEvent>) {
        if bytes.is_empty() {
            return;
        }
        let term = self.term.get_mut().unwrap_or_else(PoisonError::into_inner);
        let mut emu = Emu {
            term,
            tracked: &mut self.tracked,
            fresh: &mut self.fresh,
            listener: &self.listener,
            history: self
                .history
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner),
            printed: &mut self.printed,
            keyboard: &mut self.keyboard,
        };
        self.parser.advance(&mut emu, bytes);
        self.drain(events);
    }

    fn drain(&mut self, events: &mut Vec<ScreenEvent>) {
        self.listener.take_into(&mut self.scratch);
        if self.scratch.is_empty() {
            return;
        }
        let term = self.term.get_mut().unwrap_or_else(PoisonError::into_inner);
        for event in self.scratch.drain(..) {
            match event {
                Event::Title(title) => {
                    set_title(&mut self.title, sanitize(&title, MAX_TITLE_CHARS), events)
                }
                Event::ResetTitle => set_title(&mut self.title, String::new(), events),
                Event::PtyWrite(text) => events.push(ScreenEvent::Reply(text.into_bytes())),
                // Only colours the program set itself are known; the real
                // defaults belong to whichever terminal the client uses.
                Event::ColorRequest(index, format) if index < COLOR_COUNT => {
                    if let Some(rgb) = term.colors()[index] {
                        events.push(ScreenEvent::Reply(format(rgb).into_bytes()));
                    }
                }
                Event::Bell => events.push(ScreenEvent::Bell),
                _ => {}
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, Term<Listener>> {
        self.term.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The history with every pending row rendered, ready to be read.
    fn history(&self) -> MutexGuard<'_, History> {
        let mut history = self.history.lock().unwrap_or_else(PoisonError::into_inner);
        history.settle();
        history
    }

    fn history_mut(&mut self) -> &mut History {
        self.history
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// Heap bytes `grid`'s visible rows hold: each row, and the room it has
/// for cells (only as many as were written since its last reset).
fn grid_heap_bytes(grid: &Grid<GridCell>) -> usize {
    (0..grid.screen_lines())
        .map(|line| {
            let row = &grid[Line(line as i32)];
            size_of::<Row<GridCell>>() + row.capacity() * size_of::<GridCell>()
        })
        .sum()
}

fn set_title(current: &mut String, title: String, events: &mut Vec<ScreenEvent>) {
    if *current != title {
        current.clone_from(&title);
        events.push(ScreenEvent::Title(title));
    }
}

/// One pane's screen: the emulator, its scrollback and the OSC side channel.
pub struct Screen {
    engine: Engine,
    scanner: Scanner,
    interpreter: Interpreter,
    size: Size,
}

impl fmt::Debug for Screen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Screen")
            .field("size", &self.size)
            .field("title", &self.engine.title)
            .field("alt_screen", &self.alt_screen())
            .finish_non_exhaustive()
    }
}

impl Screen {
    /// A blank screen. `size` is clamped to what the emulator supports (see
    /// [`Screen::size`]); `scrollback_lines` bounds the primary screen's
    /// history (the alternate screen has none, like xterm's).
    pub fn new(size: Size, scrollback_lines: usize) -> Screen {
        let size = size.clamped();
        let config = Config {
            // Rows leaving the screen go to `Engine::history` instead.
            scrolling_history: 0,
            // Clipboard requests would only be dropped; skip decoding them.
            osc52: Osc52::Disabled,
            ..Config::default()
        };
        let listener = Listener::default();
        let mut term = Term::new(config, &TermSize(size), listener.clone());
        shrink_inactive_alt(&mut term);
        Screen {
            engine: Engine {
                term: Mutex::new(term),
                parser: Parser::new(),
                listener,
                tracked: Tracked::new(usize::from(size.rows), usize::from(size.cols)),
                fresh: fresh::Fresh::new(),
                title: String::new(),
                scratch: Vec::new(),
                history: Mutex::new(History::new(scrollback_lines)),
                printed: None,
                keyboard: Keyboard::default(),
            },
            scanner: Scanner::new(),
            interpreter: Interpreter::new(),
            size,
        }
    }

    /// Parses program output. Chunks may be split anywhere, including inside
    /// escape sequences and UTF-8 characters. Events are appended to `events`
    /// in the order their sequences appeared.
    ///
    /// Rows that scroll into the history are only copied; see
    /// [`Screen::settle`].
    pub fn feed(&mut self, bytes: &[u8], events: &mut Vec<ScreenEvent>) {
        self.parse(bytes, events);
    }

    /// Renders the rows that scrolled into the history since it was last
    /// read, and frees their copies; reading the history or freezing does
    /// it too. Cheap when there are none. Call it when output has paused:
    /// the screen keeps no time, and a chunk's size says nothing of whether
    /// more follows (a flood comes a read at a time, often a few hundred
    /// bytes; settling after every chunk that scrolled fewer than 8 rows
    /// unmapped and mapped again the copies' 1 MiB block all through a
    /// flood: 30 000–83 000 page faults for a 64 MiB `cat` into a 200x50
    /// pane, 1 700 since).
    pub fn settle(&mut self) {
        self.engine.history_mut().settle();
    }

    fn parse(&mut self, bytes: &[u8], events: &mut Vec<ScreenEvent>) {
        let mut pos = 0;
        let mut fed = 0; // bytes[..fed] went to the emulator or into the OSC buffer
        while let Some(step) = self.scanner.next(bytes, &mut pos) {
            match step {
                Step::OscStart(at) => {
                    // The emulator gets everything up to the ESC and waits in
                    // its escape state for the `]`, which is withheld.
                    self.engine.advance(&bytes[fed..at], events);
                    fed = at + 1;
                }
                Step::OscEnd(at) => {
                    fed = at; // the terminator itself goes with the normal stream
                    self.engine.advance(b"]", events);
                    if let Some(body) = self.scanner.body() {
                        self.engine.advance(body, events);
                        if let Some(event) = self.interpreter.interpret(body) {
                            events.push(event);
                        }
                    }
                    // A dropped body leaves an empty OSC, which the emulator
                    // ignores when the terminator arrives.
                }
            }
        }
        if !self.scanner.in_osc() {
            self.engine.advance(&bytes[fed..], events);
        }
        let term = self
            .engine
            .term
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        if !term.mode().contains(TermMode::ALT_SCREEN) {
            let cursor = term.grid().cursor.point;
            self.engine.fresh.settle(cursor.line.0, cursor.column.0);
        }
    }

    /// How many lines have reached the primary screen for the first time
    /// since this screen was made: new output to read. Repainting in place
    /// (a spinner, a status line, a UI redrawn by moving the cursor up) and
    /// anything on the alternate screen never count; see `fresh.rs`.
    pub fn fresh_lines(&self) -> u64 {
        self.engine.fresh.lines
    }

    /// Resizes the screen; wrapped lines reflow, the scrolling region resets.
    pub fn resize(&mut self, size: Size) {
        let size = size.clamped();
        if size == self.size {
            return;
        }
        let engine = &mut self.engine;
        let term = engine
            .term
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        let history = engine
            .history
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        history.settle();
        reflow::resize(term, history, TermSize(size));
        shrink_inactive_alt(term);
        engine.tracked.reset_region(usize::from(size.rows));
        engine.tracked.resize_tabs(usize::from(size.cols));
        engine.fresh.reset_at(term.grid().cursor.point.line.0);
        self.size = size;
    }

    /// The size in use (the requested one, clamped to 1..=[`MAX_DIMENSION`]
    /// rows and 2..=[`MAX_DIMENSION`] columns).
    pub fn size(&self) -> Size {
        self.size
    }

    /// The current title, sanitized (`""` if none was set).
    pub fn title(&self) -> &str {
        &self.engine.title
    }

    /// The visible screen, one line per row joined by `\n` (no final `\n`),
    /// trailing blanks of each row and trailing empty rows trimmed. Wide
    /// characters appear once; tabs and hidden text as spaces.
    pub fn screen_text(&self, style: Style) -> String {
        let term = self.engine.lock();
        let grid = term.grid();
        text::join_rows(grid, 0..grid.screen_lines() as i32, style)
    }

    /// The last `lines` rows of scrollback plus screen, trimmed like
    /// [`Screen::screen_text`] (trailing empty rows do not count). On the
    /// alternate screen this is only that screen, which has no scrollback.
    pub fn tail_text(&self, lines: usize, style: Style) -> String {
        let term = self.engine.lock();
        let alt = term.mode().contains(TermMode::ALT_SCREEN);
        let history = self.engine.history();
        text::tail_text(term.grid(), (!alt).then_some(&*history), lines, style)
    }

    /// How many rows of history lie above the primary screen at the
    /// current width (0 while the alternate screen, which has none, is
    /// active): how far [`Screen::scrolled_rows`] can scroll back.
    pub fn history_rows(&self) -> usize {
        let term = self.engine.lock();
        if term.mode().contains(TermMode::ALT_SCREEN) {
            return 0;
        }
        let grid = term.grid();
        self.engine
            .history()
            .row_count(grid.columns(), &grid[Line(0)])
    }

    /// What the screen shows scrolled back `offset` rows into its history
    /// (clamped to [`Screen::history_rows`]; 0 is the screen itself), for
    /// a copy mode: one text per screen row, top first, each trimmed like
    /// a row of [`Screen::screen_text`]. On the alternate screen this is
    /// that screen.
    pub fn scrolled_rows(&self, offset: usize, style: Style) -> Vec<String> {
        let term = self.engine.lock();
        let alt = term.mode().contains(TermMode::ALT_SCREEN);
        let history = self.engine.history();
        let offset = if alt { 0 } else { offset };
        text::scrolled_rows(term.grid(), &history, offset, style)
    }

    /// Heap bytes the screen holds, estimated: both grids' rows and the
    /// room they have for cells, the history and its pending rows.
    pub fn heap_bytes(&self) -> usize {
        let term = self.engine.lock();
        let grids = grid_heap_bytes(term.grid()) + grid_heap_bytes(term.inactive_grid());
        drop(term);
        let history = self
            .engine
            .history
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        grids + history.heap_bytes()
    }

    /// The newest history that fits in `max_bytes`, for persisting.
    ///
    /// Primary scrollback and screen, then the alternate screen if it is
    /// active (the last frame of a full-screen agent is the most useful
    /// thing to see after a restart). Soft-wrapped rows are joined into one
    /// line, so a restore at another width reflows them. Each line carries
    /// its own SGR colours starting from default attributes, returns to them
    /// (`ESC[0m`) before its `\n` if it changed them, and has trailing
    /// blanks trimmed; trailing empty lines are dropped. The result starts
    /// at a line boundary; only a single line longer than `max_bytes` is cut,
    /// and then at a row boundary.
    pub fn history_for_tail(&self, max_bytes: usize) -> String {
        let mut term = self.engine.lock();
        let mut tail = text::Tail::new(max_bytes);
        if term.mode().contains(TermMode::ALT_SCREEN) {
            let grid = term.grid();
            if !tail.grid_lines(grid, 0..grid.screen_lines() as i32) {
                return tail.finish();
            }
            // Blank rows at the bottom of the primary screen sit between its
            // content and the alternate frame; drop them too.
            tail.skip_blank_lines();
        }
        let history = self.engine.history();
        with_primary(&mut term, |grid| tail.primary(grid, &history));
        tail.finish()
    }

    /// Puts saved history back after a restart, followed by a dim
    /// [`RESTORED_SEPARATOR`] line; new output continues below it.
    pub fn load_history(&mut self, tail: &str) {
        self.load_history_with_label(tail, RESTORED_SEPARATOR);
    }

    /// [`Screen::load_history`] with a caller-chosen separator text (e.g.
    /// with the time of the restart, which this crate cannot know). Only
    /// text and SGR of `tail` are used, so a tampered file cannot change
    /// modes, the title or anything else.
    pub fn load_history_with_label(&mut self, tail: &str, label: &str) {
        let mut bytes = text::history_to_feed(tail);
        if bytes.is_empty() {
            return;
        }
        let label = sanitize(label, MAX_TITLE_CHARS);
        bytes.extend_from_slice(format!("\x1b[0;2m{label}\x1b[0m\r\n").as_bytes());
        let mut ignored = Vec::new();
        self.feed(&bytes, &mut ignored);
    }

    /// Escape sequences that make a fresh terminal of the same size (an
    /// xterm-compatible one, or another `Screen`) show exactly this screen.
    ///
    /// They reset what they rely on, paint the primary screen, switch to and
    /// paint the alternate screen if it is active (1049), then restore the
    /// tab stops, DECSC cursor, scrolling region, cursor position (including
    /// a pending wrap), the modes a client's input depends on (DECCKM,
    /// keypad, mouse 1000/1002/1003 + 1005/1006, focus 1004, bracketed
    /// paste, origin, autowrap, insert, newline), cursor style, charsets,
    /// the current SGR pen and hyperlink, palette changes, title and cursor
    /// visibility.
    /// Rows are addressed explicitly so nothing ever scrolls, except that a
    /// soft-wrapped row is continued by writing on, which recreates the wrap.
    ///
    /// Wide characters cut apart by erasing, insertion or deletion are
    /// recreated by repeating such operations. Known gaps, all invisible or
    /// nearly so: tab cells are painted as spaces; the bottom row's
    /// soft-wrap flag cannot be set without scrolling; the title stack is
    /// not transferred; a pending wrap away from the last column, on a row
    /// that already wraps, or on a stray spacer or wide char in the last
    /// column is not recreated, nor is a cursor outside the scrolling
    /// region in origin mode (it lands on the region's edge); a
    /// wide-character fragment next to another one in the last column is
    /// painted blank; a wide char's second half takes the wide char's
    /// colours; while the alternate screen is active, the
    /// primary screen's DECSC slot is its cursor (what entering the
    /// alternate screen saved there, unless a resize moved the cursor);
    /// while the primary screen is active, what DECSC saved on the
    /// alternate screen (alacritty keeps it for the next visit) is not
    /// transferred, nor are the kitty keyboard flags it keeps.
    pub fn replay(&self) -> Vec<u8> {
        let mut term = self.engine.lock();
        let engine = &self.engine;
        serialize::replay(&mut term, &engine.tracked, &engine.keyboard, &engine.title)
    }

    /// Whether the alternate screen (full-screen programs) is active.
    pub fn alt_screen(&self) -> bool {
        self.engine.lock().mode().contains(TermMode::ALT_SCREEN)
    }

    /// Cursor row and column (0-based, on the visible screen) and whether it
    /// is visible (DECTCEM).
    pub fn cursor(&self) -> (u16, u16, bool) {
        let term = self.engine.lock();
        let point = term.grid().cursor.point;
        let row = u16::try_from(point.line.0.max(0)).unwrap_or(u16::MAX);
        let col = u16::try_from(point.column.0).unwrap_or(u16::MAX);
        (row, col, term.mode().contains(TermMode::SHOW_CURSOR))
    }
}
