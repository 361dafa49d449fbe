//! The glue between `vte::ansi::Processor` and alacritty's `Term`.
//!
//! `Term` keeps a few facts private that a faithful replay needs (the
//! scrolling region and which of G0/G1 is shifted in), so every parser
//! callback goes through [`Emu`], which forwards it to the `Term` and mirrors
//! those facts on the way.
//!
//! The `Term` is made without scrollback: rows that scroll off the top of the
//! primary screen would be dropped, so `Emu` copies them into the
//! [`History`] just before each call that scrolls them off. Only
//! `Grid::scroll_up` with a region starting at the top row moves rows into
//! alacritty's history; the callbacks that reach it are line feeds at the
//! region's bottom (and a character or tab that wraps there), `CSI S`,
//! `CSI M` on the top row and erasing the whole primary screen, which
//! alacritty scrolls into history. `history::tests` checks the copies
//! against a `Term` that keeps its own scrollback.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use alacritty_terminal::event::{Event, EventListener};
use alacritty_terminal::grid::{Dimensions, Grid};
use alacritty_terminal::index::{Column, Line, Point};
use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::term::{Term, TermMode};
use alacritty_terminal::vte::ansi::cursor_icon::CursorIcon;
use alacritty_terminal::vte::ansi::{
    Attr, CharsetIndex, ClearMode, CursorShape, CursorStyle, Handler, Hyperlink, KeyboardModes,
    KeyboardModesApplyBehavior, LineClearMode, Mode, ModifyOtherKeys, NamedPrivateMode,
    PrivateMode, Rgb, ScpCharPath, ScpUpdateMode, StandardCharset, TabulationClearMode, Timeout,
};
use unicode_width::UnicodeWidthChar;

use crate::history::History;
use crate::identity;
use crate::keyboard::Keyboard;

/// Collects the `Term`'s events; `Term` owns its listener and offers no way
/// back to it, so the queue is shared with the `Screen`.
#[derive(Clone, Default)]
pub(crate) struct Listener(Arc<Mutex<Vec<Event>>>);

impl Listener {
    /// Moves queued events into `out` (which the caller keeps around so the
    /// hot path does not allocate).
    pub(crate) fn take_into(&self, out: &mut Vec<Event>) {
        let mut queue = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if !queue.is_empty() {
            std::mem::swap(&mut *queue, out);
        }
    }
}

impl EventListener for Listener {
    fn send_event(&self, event: Event) {
        // Redraw hints are meaningless headless; dropping them here keeps the
        // queue (and the lock) out of the way of mode changes.
        match event {
            Event::Title(_)
            | Event::ResetTitle
            | Event::PtyWrite(_)
            | Event::ColorRequest(..)
            | Event::Bell => self
                .0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(event),
            _ => {}
        }
    }
}

/// A synchronized-update timer that never runs.
///
/// vte would otherwise hold back everything between `CSI ? 2026 h` and
/// `l` (up to 2 MiB or 150 ms). A headless model must not lag: an attach in
/// the middle of such an update would replay the old frame while the held
/// bytes were already consumed from the pane, and the client would never see
/// them.
#[derive(Default)]
pub(crate) struct NeverSync;

impl Timeout for NeverSync {
    fn set_timeout(&mut self, _: Duration) {}

    fn clear_timeout(&mut self) {}

    fn pending_timeout(&self) -> bool {
        false
    }
}

/// What `Term` knows but does not expose, mirrored exactly the way `Term`
/// computes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Tracked {
    /// Scrolling region as `Term` stores it: first line, one past the last.
    pub(crate) region: (i32, i32),
    /// Whether SO shifted G1 in (vte only knows SI/SO, so G2/G3 never are).
    pub(crate) g1_active: bool,
    /// Tab stop at each column.
    pub(crate) tabs: Vec<bool>,
}

/// `Term` starts with a tab stop every 8 columns.
const TAB_INTERVAL: usize = 8;

impl Tracked {
    pub(crate) fn new(lines: usize, columns: usize) -> Tracked {
        let mut tracked = Tracked {
            region: (0, lines_i32(lines)),
            g1_active: false,
            tabs: Vec::new(),
        };
        tracked.resize_tabs(columns);
        tracked
    }

    /// `Term::resize` resets the region, but only when the size changed.
    pub(crate) fn reset_region(&mut self, lines: usize) {
        self.region = (0, lines_i32(lines));
    }

    /// `Term` keeps the stops it has and gives new columns the initial ones.
    pub(crate) fn resize_tabs(&mut self, columns: usize) {
        let old = self.tabs.len();
        self.tabs.truncate(columns);
        self.tabs
            .extend((old..columns).map(|column| column % TAB_INTERVAL == 0));
    }

    fn set_tab(&mut self, column: usize, stop: bool) {
        if let Some(tab) = self.tabs.get_mut(column) {
            *tab = stop;
        }
    }
}

fn lines_i32(lines: usize) -> i32 {
    i32::try_from(lines).unwrap_or(i32::MAX)
}

/// The handler the parser drives: `Term` plus the mirrored state and the
/// history rows leave into.
pub(crate) struct Emu<'a> {
    pub(crate) term: &'a mut Term<Listener>,
    pub(crate) tracked: &'a mut Tracked,
    pub(crate) fresh: &'a mut crate::fresh::Fresh,
    pub(crate) listener: &'a Listener,
    pub(crate) history: &'a mut History,
    /// The last character written, which `CSI b` repeats (vte's
    /// `preceding_char`, kept here for the fast path).
    pub(crate) printed: &'a mut Option<char>,
    /// The keyboard protocols the program asked for (see `keyboard`).
    pub(crate) keyboard: &'a mut Keyboard,
}

impl Emu<'_> {
    /// Whether scrolling the region up moves rows into history: the primary
    /// screen with a region that starts at its top row.
    #[inline]
    fn region_feeds_history(&self) -> bool {
        self.tracked.region.0 == 0 && !self.term.mode().contains(TermMode::ALT_SCREEN)
    }

    /// Whether a line feed here scrolls rows into history.
    #[inline]
    fn feed_scrolls_history(&self) -> bool {
        self.feed_scrolls_region() && self.region_feeds_history()
    }

    /// Copies the screen's top `count` rows, which are about to scroll off,
    /// into the history. A row whose cells turned out to own nothing is
    /// emptied without visiting them: the scroll would reset it anyway, and
    /// dropping each cell of each row was a tenth of a flood's parse.
    fn save_top_rows(&mut self, count: usize) {
        let grid = self.term.grid_mut();
        for line in 0..count.min(grid.screen_lines()) {
            let row = &mut grid[Line(line as i32)];
            if self.history.push_row(row) {
                row.forget_written();
            }
        }
    }

    /// Before `Term::input(c)` (or a tab, `None`) with the cursor in the
    /// last column or a wrap pending: saves the top row if that wraps at
    /// the bottom of a region feeding history (`Term` calls `wrapline` for
    /// a pending wrap, a tab included, and for a wide character that does
    /// not fit).
    #[cold]
    fn before_wrap(&mut self, c: Option<char>) {
        let needs_wrap = self.term.grid().cursor.input_needs_wrap;
        let wraps = match c.map(|c| c.width().unwrap_or(0)) {
            None => needs_wrap,
            Some(0) => false,
            Some(width) => needs_wrap || width == 2,
        };
        if wraps && self.term.mode().contains(TermMode::LINE_WRAP) && self.feed_scrolls_history() {
            self.save_wrapping_row();
        }
    }

    /// A character wraps at the bottom of a region feeding history: the top
    /// row leaves. In a one-row region that is the cursor's own row, which
    /// `wrapline` first marks as wrapped (after turning the cursor cell into
    /// a spacer if a wide character does not fit).
    fn save_wrapping_row(&mut self) {
        let cursor = &self.term.grid().cursor;
        if cursor.point.line.0 > 0 {
            return self.save_top_rows(1);
        }
        let mut row = self.term.grid()[Line(0)].clone();
        let cell = &mut row[cursor.point.column];
        if !cursor.input_needs_wrap {
            *cell = cursor.template.clone();
            cell.c = ' ';
            cell.flags.insert(Flags::LEADING_WIDE_CHAR_SPACER);
        }
        cell.flags.insert(Flags::WRAPLINE);
        self.history.push_row(&row);
    }

    /// Before `CSI 2 J` on the primary screen: alacritty scrolls everything
    /// down to the last non-empty row into history (one blank row when all
    /// is empty and the history too).
    fn before_clear_all(&mut self) {
        if self.term.mode().contains(TermMode::ALT_SCREEN) {
            return;
        }
        let grid = self.term.grid();
        let used = (0..grid.screen_lines())
            .rev()
            .find(|&line| !grid[Line(line as i32)].is_clear())
            .map_or(usize::from(self.history.is_empty()), |line| line + 1);
        self.save_top_rows(used);
    }

    /// A line feed on the primary screen counts towards fresh lines.
    #[inline]
    fn count_line_feed(&mut self) {
        if !self.term.mode().contains(TermMode::ALT_SCREEN) {
            let line = self.term.grid().cursor.point.line.0;
            self.fresh.line_feed(line, self.tracked.region.1);
        }
    }

    /// `Term` wraps a full line by itself, scrolling like a line feed when
    /// the cursor is on the region's last row: count that scroll too.
    #[cold]
    fn input_at_line_end(&mut self, c: char) {
        let before = self.term.grid().cursor.point;
        Handler::input(&mut *self.term, c);
        let wrapped = self.term.grid().cursor.point.column < before.column;
        if wrapped && !self.term.mode().contains(TermMode::ALT_SCREEN) {
            self.fresh.line_feed(before.line.0, self.tracked.region.1);
        }
    }

    /// A cursor put on the primary screen's top row starts a repaint (see
    /// `fresh.rs`).
    #[inline]
    fn note_top_row(&mut self) {
        if self.term.grid().cursor.point.line.0 == 0
            && !self.term.mode().contains(TermMode::ALT_SCREEN)
        {
            self.fresh.repaint_from_top(self.term.screen_lines());
        }
    }

    /// Writes `text`, printable ASCII, from the cursor on exactly as
    /// `Term::input` would one character at a time, as far as the cursor's
    /// row (or the first cell of a wide character) goes, and returns how
    /// many characters that was: 0 when a wrap is pending (`input` wraps
    /// first), `None` when `input` would do more than write cells (insert
    /// mode, a charset other than ASCII, a pen with extras, a wide
    /// character to take apart at the cursor).
    #[inline]
    pub(crate) fn write_ascii(&mut self, text: &[u8]) -> Option<usize> {
        let insert = self.term.mode().contains(TermMode::INSERT);
        let columns = self.term.columns();
        let grid = self.term.grid_mut();
        let cursor = &grid.cursor;
        let ascii = |index| cursor.charsets[index] == StandardCharset::Ascii;
        if insert
            || cursor.template.extra.is_some()
            || !ascii(CharsetIndex::G0)
            || !ascii(CharsetIndex::G1)
        {
            return None;
        }
        if cursor.input_needs_wrap {
            return Some(0);
        }
        let Point { line, column } = cursor.point;
        let (fg, bg, flags) = (
            cursor.template.fg,
            cursor.template.bg,
            cursor.template.flags,
        );
        let room = text.len().min(columns.saturating_sub(column.0));
        // The pen is copied into the closure, and the closure itself into
        // the run's iterator below: borrowed, either would be read again
        // for every cell (the row's writes might alias it), 17 instructions
        // a cell instead of 6.5.
        let cell = move |byte: u8| Cell {
            c: char::from(byte),
            fg,
            bg,
            flags,
            extra: None,
        };
        let row = &mut grid[line];
        // The row's written cells are overwritten, up to the first part of
        // a wide character (which `input` takes apart with its other half);
        // after them come fill cells, a blank (never a wide character) the
        // run is appended in place of.
        let end = column.0 + room;
        let held = row.occ().clamp(column.0, end);
        let mut count = 0;
        let wide = Flags::WIDE_CHAR | Flags::WIDE_CHAR_SPACER;
        for (old, &byte) in row.cells_mut(column..Column(held)).iter_mut().zip(text) {
            if old.flags.intersects(wide) {
                break;
            }
            *old = cell(byte);
            count += 1;
        }
        if column.0 + count == held && held < end {
            debug_assert!(!row.fill().flags.intersects(wide));
            row.extend(text[count..room].iter().copied().map(cell));
            count = room;
        }
        if count == 0 {
            return None;
        }
        let end = column.0 + count;
        let cursor = &mut grid.cursor;
        if end < columns {
            cursor.point.column = Column(end);
        } else {
            cursor.point.column = Column(columns - 1);
            cursor.input_needs_wrap = true;
        }
        *self.printed = text.get(count - 1).map(|&byte| char::from(byte));
        Some(count)
    }

    /// `CSI > q` (XTVERSION), which vte does not parse: the fast parser
    /// finds it and asks here.
    pub(crate) fn report_version(&mut self) {
        self.listener
            .send_event(Event::PtyWrite(identity::version_report()));
    }

    /// `CSI count b`: the last character written, `count` times more (at
    /// least once), as vte repeats it; nothing if none was ever written.
    pub(crate) fn repeat(&mut self, count: u16) {
        if let Some(c) = *self.printed {
            for _ in 0..count.max(1) {
                Handler::input(self, c);
            }
        }
    }

    /// Whether a line feed here scrolls the region (into history or not).
    #[inline]
    fn feed_scrolls_region(&self) -> bool {
        self.term.grid().cursor.point.line.0 + 1 == self.tracked.region.1
    }

    fn column_mode_side_effect(&mut self, mode: &PrivateMode) {
        // DECCOLM makes `Term` reset the region internally, bypassing us,
        // and clear the screen.
        if matches!(mode, PrivateMode::Named(NamedPrivateMode::ColumnMode)) {
            self.tracked.reset_region(self.term.screen_lines());
        }
    }

    /// Before a line feed: the row leaving the top goes to history, the
    /// rows of the region move up, and a new line may count as fresh.
    #[inline]
    fn before_line_feed(&mut self) {
        if self.feed_scrolls_history() {
            self.save_top_rows(1);
        }
        self.count_line_feed();
    }
}

/// Every method is forwarded; the trait has no-op defaults, so one that is
/// forgotten here would silently disable a feature of the emulator.
impl Handler for Emu<'_> {
    fn set_title(&mut self, title: Option<String>) {
        Handler::set_title(&mut *self.term, title)
    }

    fn set_cursor_style(&mut self, style: Option<CursorStyle>) {
        Handler::set_cursor_style(&mut *self.term, style)
    }

    fn set_cursor_shape(&mut self, shape: CursorShape) {
        Handler::set_cursor_shape(&mut *self.term, shape)
    }

    #[inline]
    fn input(&mut self, c: char) {
        *self.printed = Some(c);
        let cursor = &self.term.grid().cursor;
        let at_line_end =
            cursor.input_needs_wrap || cursor.point.column.0 + 1 >= self.term.columns();
        if at_line_end {
            self.before_wrap(Some(c));
        }
        // A character written after the last column wraps the line (and a
        // wrap on the last row scrolls): one flag test per character (two
        // instructions; +1.2% of `Screen::feed`'s instructions measured),
        // the rest out of line.
        if self.term.grid().cursor.input_needs_wrap {
            self.input_at_line_end(c);
        } else {
            Handler::input(&mut *self.term, c)
        }
    }

    fn goto(&mut self, line: i32, col: usize) {
        Handler::goto(&mut *self.term, line, col);
        self.note_top_row();
    }

    fn goto_line(&mut self, line: i32) {
        Handler::goto_line(&mut *self.term, line);
        self.note_top_row();
    }

    fn goto_col(&mut self, col: usize) {
        Handler::goto_col(&mut *self.term, col)
    }

    fn insert_blank(&mut self, count: usize) {
        Handler::insert_blank(&mut *self.term, count)
    }

    fn move_up(&mut self, rows: usize) {
        Handler::move_up(&mut *self.term, rows)
    }

    fn move_down(&mut self, rows: usize) {
        Handler::move_down(&mut *self.term, rows)
    }

    fn identify_terminal(&mut self, intermediate: Option<char>) {
        if let Some(answer) = identity::device_attributes(intermediate) {
            self.listener.send_event(Event::PtyWrite(answer));
        }
    }

    fn device_status(&mut self, arg: usize) {
        Handler::device_status(&mut *self.term, arg)
    }

    fn move_forward(&mut self, cols: usize) {
        Handler::move_forward(&mut *self.term, cols)
    }

    fn move_backward(&mut self, cols: usize) {
        Handler::move_backward(&mut *self.term, cols)
    }

    fn move_down_and_cr(&mut self, rows: usize) {
        Handler::move_down_and_cr(&mut *self.term, rows)
    }

    fn move_up_and_cr(&mut self, rows: usize) {
        Handler::move_up_and_cr(&mut *self.term, rows)
    }

    fn put_tab(&mut self, count: u16) {
        if self.term.grid().cursor.input_needs_wrap {
            self.before_wrap(None);
        }
        Handler::put_tab(&mut *self.term, count)
    }

    fn backspace(&mut self) {
        Handler::backspace(&mut *self.term)
    }

    #[inline]
    fn carriage_return(&mut self) {
        Handler::carriage_return(&mut *self.term)
    }

    #[inline]
    fn linefeed(&mut self) {
        self.before_line_feed();
        Handler::linefeed(&mut *self.term)
    }

    fn bell(&mut self) {
        Handler::bell(&mut *self.term)
    }

    fn substitute(&mut self) {
        Handler::substitute(&mut *self.term)
    }

    fn newline(&mut self) {
        self.before_line_feed();
        Handler::newline(&mut *self.term)
    }

    fn set_horizontal_tabstop(&mut self) {
        let column = self.term.grid().cursor.point.column.0;
        self.tracked.set_tab(column, true);
        Handler::set_horizontal_tabstop(&mut *self.term)
    }

    fn scroll_up(&mut self, lines: usize) {
        if self.region_feeds_history() {
            self.save_top_rows(lines.min(self.tracked.region.1 as usize));
        }
        Handler::scroll_up(&mut *self.term, lines)
    }

    fn scroll_down(&mut self, lines: usize) {
        Handler::scroll_down(&mut *self.term, lines)
    }

    fn insert_blank_lines(&mut self, lines: usize) {
        Handler::insert_blank_lines(&mut *self.term, lines)
    }

    fn delete_lines(&mut self, lines: usize) {
        // Deleting lines from the top row scrolls the region up from there.
        if self.term.grid().cursor.point.line.0 == 0 && self.region_feeds_history() {
            self.save_top_rows(lines.min(self.tracked.region.1 as usize));
        }
        Handler::delete_lines(&mut *self.term, lines)
    }

    fn erase_chars(&mut self, count: usize) {
        Handler::erase_chars(&mut *self.term, count)
    }

    fn delete_chars(&mut self, count: usize) {
        Handler::delete_chars(&mut *self.term, count)
    }

    fn move_backward_tabs(&mut self, count: u16) {
        Handler::move_backward_tabs(&mut *self.term, count)
    }

    fn move_forward_tabs(&mut self, count: u16) {
        Handler::move_forward_tabs(&mut *self.term, count)
    }

    fn save_cursor_position(&mut self) {
        Handler::save_cursor_position(&mut *self.term)
    }

    fn restore_cursor_position(&mut self) {
        Handler::restore_cursor_position(&mut *self.term)
    }

    fn clear_line(&mut self, mode: LineClearMode) {
        Handler::clear_line(&mut *self.term, mode)
    }

    fn clear_screen(&mut self, mode: ClearMode) {
        let all = matches!(mode, ClearMode::All);
        match mode {
            ClearMode::All => self.before_clear_all(),
            // Like alacritty: only while the primary screen is active.
            ClearMode::Saved if !self.term.mode().contains(TermMode::ALT_SCREEN) => {
                self.history.clear()
            }
            _ => {}
        }
        Handler::clear_screen(&mut *self.term, mode);
        if all && !self.term.mode().contains(TermMode::ALT_SCREEN) {
            self.fresh.repaint_from_top(self.term.screen_lines());
        }
    }

    fn clear_tabs(&mut self, mode: TabulationClearMode) {
        match mode {
            TabulationClearMode::Current => {
                let column = self.term.grid().cursor.point.column.0;
                self.tracked.set_tab(column, false);
            }
            TabulationClearMode::All => self.tracked.tabs.fill(false),
        }
        Handler::clear_tabs(&mut *self.term, mode)
    }

    fn set_tabs(&mut self, interval: u16) {
        Handler::set_tabs(&mut *self.term, interval)
    }

    fn reset_state(&mut self) {
        Handler::reset_state(&mut *self.term);
        shrink_inactive_alt(self.term);
        self.history.clear();
        *self.tracked = Tracked::new(self.term.screen_lines(), self.term.columns());
        self.keyboard.reset();
        // `Term` forgets its title on RIS without telling anyone.
        self.listener.send_event(Event::ResetTitle);
    }

    fn reverse_index(&mut self) {
        Handler::reverse_index(&mut *self.term)
    }

    #[inline]
    fn terminal_attribute(&mut self, attr: Attr) {
        Handler::terminal_attribute(&mut *self.term, attr)
    }

    fn set_mode(&mut self, mode: Mode) {
        Handler::set_mode(&mut *self.term, mode)
    }

    fn unset_mode(&mut self, mode: Mode) {
        Handler::unset_mode(&mut *self.term, mode)
    }

    fn report_mode(&mut self, mode: Mode) {
        Handler::report_mode(&mut *self.term, mode)
    }

    fn set_private_mode(&mut self, mode: PrivateMode) {
        self.column_mode_side_effect(&mode);
        if swaps_screens(&mode) && !self.term.mode().contains(TermMode::ALT_SCREEN) {
            grow_inactive_alt(self.term);
        }
        Handler::set_private_mode(&mut *self.term, mode);
        self.keyboard
            .switch_screen(self.term.mode().contains(TermMode::ALT_SCREEN));
    }

    fn unset_private_mode(&mut self, mode: PrivateMode) {
        self.column_mode_side_effect(&mode);
        let swaps = swaps_screens(&mode);
        Handler::unset_private_mode(&mut *self.term, mode);
        if swaps {
            shrink_inactive_alt(self.term);
        }
        self.keyboard
            .switch_screen(self.term.mode().contains(TermMode::ALT_SCREEN));
    }

    fn report_private_mode(&mut self, mode: PrivateMode) {
        Handler::report_private_mode(&mut *self.term, mode)
    }

    fn set_scrolling_region(&mut self, top: usize, bottom: Option<usize>) {
        // Same arithmetic as `Term::set_scrolling_region`.
        let lines = lines_i32(self.term.screen_lines());
        let end = bottom.map_or(lines, lines_i32);
        let start = lines_i32(top);
        if start < end {
            self.tracked.region = ((start - 1).min(lines), end.min(lines));
        }
        Handler::set_scrolling_region(&mut *self.term, top, bottom)
    }

    fn set_keypad_application_mode(&mut self) {
        Handler::set_keypad_application_mode(&mut *self.term)
    }

    fn unset_keypad_application_mode(&mut self) {
        Handler::unset_keypad_application_mode(&mut *self.term)
    }

    fn set_active_charset(&mut self, index: CharsetIndex) {
        self.tracked.g1_active = index == CharsetIndex::G1;
        Handler::set_active_charset(&mut *self.term, index)
    }

    fn configure_charset(&mut self, index: CharsetIndex, charset: StandardCharset) {
        Handler::configure_charset(&mut *self.term, index, charset)
    }

    fn set_color(&mut self, index: usize, color: Rgb) {
        Handler::set_color(&mut *self.term, index, color)
    }

    fn dynamic_color_sequence(&mut self, prefix: String, index: usize, terminator: &str) {
        Handler::dynamic_color_sequence(&mut *self.term, prefix, index, terminator)
    }

    fn reset_color(&mut self, index: usize) {
        Handler::reset_color(&mut *self.term, index)
    }

    fn clipboard_store(&mut self, clipboard: u8, base64: &[u8]) {
        Handler::clipboard_store(&mut *self.term, clipboard, base64)
    }

    fn clipboard_load(&mut self, clipboard: u8, terminator: &str) {
        Handler::clipboard_load(&mut *self.term, clipboard, terminator)
    }

    fn decaln(&mut self) {
        Handler::decaln(&mut *self.term)
    }

    fn push_title(&mut self) {
        Handler::push_title(&mut *self.term)
    }

    fn pop_title(&mut self) {
        Handler::pop_title(&mut *self.term)
    }

    fn text_area_size_pixels(&mut self) {
        Handler::text_area_size_pixels(&mut *self.term)
    }

    fn text_area_size_chars(&mut self) {
        Handler::text_area_size_chars(&mut *self.term)
    }

    fn set_hyperlink(&mut self, link: Option<Hyperlink>) {
        Handler::set_hyperlink(&mut *self.term, link)
    }

    fn set_mouse_cursor_icon(&mut self, icon: CursorIcon) {
        Handler::set_mouse_cursor_icon(&mut *self.term, icon)
    }

    fn report_keyboard_mode(&mut self) {
        let report = self.keyboard.flags_report();
        self.listener.send_event(Event::PtyWrite(report));
    }

    fn push_keyboard_mode(&mut self, mode: KeyboardModes) {
        self.keyboard.push(mode.bits());
    }

    fn pop_keyboard_modes(&mut self, to_pop: u16) {
        self.keyboard.pop(to_pop);
    }

    fn set_keyboard_mode(&mut self, mode: KeyboardModes, behavior: KeyboardModesApplyBehavior) {
        self.keyboard.set(mode.bits(), behavior);
    }

    fn set_modify_other_keys(&mut self, mode: ModifyOtherKeys) {
        self.keyboard.set_modify_other_keys(mode);
    }

    fn report_modify_other_keys(&mut self) {
        let report = self.keyboard.modify_other_keys_report();
        self.listener.send_event(Event::PtyWrite(report));
    }

    fn set_scp(&mut self, char_path: ScpCharPath, update_mode: ScpUpdateMode) {
        Handler::set_scp(&mut *self.term, char_path, update_mode)
    }
}

/// Runs `f` on the primary grid even while the alternate screen is active.
///
/// `Term` keeps the inactive grid private, so this swaps the screens, and
/// swaps back restoring a copy of the alternate grid (entering the alternate
/// screen clears it). Only the primary's DECSC slot is touched: it is set to
/// the primary cursor, which is what entering the alternate screen had
/// stored there anyway (they can differ only after a resize while in it).
pub(crate) fn with_primary<R>(term: &mut Term<Listener>, f: impl FnOnce(&Grid<Cell>) -> R) -> R {
    with_primary_mut(term, |grid| f(grid))
}

/// [`with_primary`] with the grid mutable.
pub(crate) fn with_primary_mut<R>(
    term: &mut Term<Listener>,
    f: impl FnOnce(&mut Grid<Cell>) -> R,
) -> R {
    if !term.mode().contains(TermMode::ALT_SCREEN) {
        return f(term.grid_mut());
    }
    let alt = term.grid().clone();
    term.swap_alt();
    let result = f(term.grid_mut());
    term.swap_alt();
    *term.grid_mut() = alt;
    result
}

/// Runs `f` on the alternate grid while the primary screen is active.
/// `Term` keeps the inactive grid private, so this swaps the screens and
/// back, and undoes what swapping changes: the primary's DECSC slot, which
/// entering the alternate screen overwrites. (It also clears the alternate
/// grid, which entering it does anyway.)
pub(crate) fn with_inactive_alt<R>(
    term: &mut Term<Listener>,
    f: impl FnOnce(&mut Grid<Cell>) -> R,
) -> R {
    debug_assert!(!term.mode().contains(TermMode::ALT_SCREEN));
    let primary_saved = term.grid().saved_cursor.clone();
    term.swap_alt();
    let result = f(term.grid_mut());
    term.swap_alt();
    term.grid_mut().saved_cursor = primary_saved;
    result
}

/// Keeps `Term`'s inactive alternate grid at the smallest size while the
/// primary screen is active: entering the alternate screen resets every
/// cell of it, so a full grid there (46 KiB at 80x24, 234 KiB at 200x50)
/// held nothing anyone could see. Only its DECSC slot, which survives
/// between visits, is kept. Call it wherever `Term` may have made the
/// inactive grid full-size: a new `Term`, a resize, RIS, leaving the
/// alternate screen.
pub(crate) fn shrink_inactive_alt(term: &mut Term<Listener>) {
    if term.mode().contains(TermMode::ALT_SCREEN) {
        return;
    }
    with_inactive_alt(term, |grid| {
        if grid.screen_lines() > 1 || grid.columns() > 2 {
            replace_grid(grid, 1, 2);
        }
    });
}

/// Gives the inactive alternate grid the screen's size again, just before
/// `Term` enters it.
fn grow_inactive_alt(term: &mut Term<Listener>) {
    let (lines, columns) = (term.screen_lines(), term.columns());
    with_inactive_alt(term, |grid| replace_grid(grid, lines, columns));
}

/// A blank grid of `lines` x `columns` in place of `grid`, with its DECSC
/// slot.
fn replace_grid(grid: &mut Grid<Cell>, lines: usize, columns: usize) {
    let saved = grid.saved_cursor.clone();
    *grid = Grid::new(lines, columns, 0);
    grid.saved_cursor = saved;
}

/// The mode that swaps `Term`'s screens.
fn swaps_screens(mode: &PrivateMode) -> bool {
    matches!(
        mode,
        PrivateMode::Named(NamedPrivateMode::SwapScreenAndSetRestoreCursor)
    )
}
