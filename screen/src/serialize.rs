//! `replay`: the escape sequences that repaint this screen on another
//! terminal.
//!
//! The target may be a real xterm-compatible terminal of the same size that
//! was showing something else (a client switching panes), so every mode is
//! set explicitly rather than assumed at its default, and painting never
//! relies on implicit wrapping except to recreate a soft wrap on purpose.

use std::fmt::Write;

use alacritty_terminal::grid::{Cursor, Dimensions, Grid};
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::cell::{Cell, Flags, Hyperlink};
use alacritty_terminal::term::color::COUNT as COLOR_COUNT;
use alacritty_terminal::term::{Term, TermMode};
use alacritty_terminal::vte::ansi::{
    CharsetIndex, Color, CursorShape, CursorStyle, NamedColor, StandardCharset,
};

use crate::emu::{Listener, Tracked, with_primary};
use crate::sanitize::{MAX_TITLE_CHARS, sanitize};
use crate::sgr::{Pen, write_sgr};

/// Output buffer that knows the target's pen, hyperlink and cursor column so
/// it only emits what changes.
struct Writer {
    out: String,
    pen: Pen,
    link: Option<Hyperlink>,
    /// Column the target's cursor is at after our last write; `columns`
    /// means "pending wrap at the last column".
    col: usize,
}

impl Writer {
    fn pen(&mut self, pen: Pen) {
        if pen != self.pen {
            write_sgr(&mut self.out, &pen);
            self.pen = pen;
        }
    }

    fn link(&mut self, link: Option<Hyperlink>) {
        if link == self.link {
            return;
        }
        match &link {
            Some(link) => {
                let id: String = sanitize(link.id(), 256).chars().filter(|c| !matches!(c, ':' | ';')).collect();
                let uri = sanitize(link.uri(), 4096);
                let _ = write!(self.out, "\x1b]8;id={id};{uri}\x1b\\");
            },
            None => self.out.push_str("\x1b]8;;\x1b\\"),
        }
        self.link = link;
    }

    /// Absolute cursor position, 0-based.
    fn cup(&mut self, line: usize, col: usize) {
        let _ = write!(self.out, "\x1b[{};{}H", line + 1, col + 1);
        self.col = col;
    }

    fn cha(&mut self, col: usize) {
        let _ = write!(self.out, "\x1b[{}G", col + 1);
        self.col = col;
    }

    /// Writes a cell's character with its attributes; returns its width.
    fn cell(&mut self, cell: &Cell, columns: usize) -> usize {
        self.pen(Pen::of(cell));
        self.link(cell.hyperlink());
        let wide = cell.flags.contains(Flags::WIDE_CHAR) && self.col + 1 < columns;
        let spacer = cell.flags.intersects(Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER);
        // A wide char without room, a stray spacer or a tab cell is painted
        // as a blank: writing them literally would move the cursor
        // differently on the target.
        let plain = spacer || cell.c == '\t' || (cell.flags.contains(Flags::WIDE_CHAR) && !wide);
        self.out.push(if plain { ' ' } else { cell.c });
        if let Some(zerowidth) = cell.zerowidth() {
            self.out.extend(zerowidth);
        }
        let width = if wide { 2 } else { 1 };
        self.col += width;
        width
    }
}

/// Builds the replay. `term` is only mutated temporarily (to read the
/// primary screen while the alternate one is active) and restored.
pub(crate) fn replay(term: &mut Term<Listener>, tracked: &Tracked, title: &str) -> Vec<u8> {
    let columns = term.columns();
    let lines = term.screen_lines();
    let mode = *term.mode();
    let mut w = Writer { out: String::with_capacity(lines * (columns + 16) + 512), pen: Pen::default(), link: None, col: 0 };

    // Known starting point: primary screen, default pen, ASCII, full-screen
    // region, absolute addressing, autowrap on, no insert, cursor hidden
    // while painting.
    w.out.push_str("\x1b[?1049l\x1b[0m\x1b]8;;\x1b\\\x1b(B\x1b)B\x1b*B\x1b+B\x0f\x1b[r\x1b[?6l\x1b[?7h\x1b[4l\x1b[?25l\x1b[H\x1b[2J");

    if mode.contains(TermMode::ALT_SCREEN) {
        let primary_cursor = with_primary(term, |primary| {
            paint(&mut w, primary);
            primary.cursor.clone()
        });

        // 1049 saves the cursor on the way in; make it the primary's.
        w.cup(primary_cursor.point.line.0.max(0) as usize, primary_cursor.point.column.0);
        w.pen(Pen::of(&primary_cursor.template));
        w.out.push_str("\x1b[?1049h");
        w.pen(Pen::default());
        w.link(None);
        w.out.push_str("\x1b[0m\x1b[H\x1b[2J");
        w.pen = Pen::default();
    }
    paint(&mut w, term.grid());

    let grid = term.grid();
    saved_cursor(&mut w, &grid.saved_cursor, columns);

    // Region and origin mode both home the cursor, so they go before it.
    let (top, bottom) = tracked.region;
    let partial = (top > 0 || bottom < lines as i32) && top >= 0 && top < bottom;
    if partial {
        let _ = write!(w.out, "\x1b[{};{}r", top + 1, bottom);
    }
    let origin = mode.contains(TermMode::ORIGIN);
    if origin {
        w.out.push_str("\x1b[?6h");
    }
    let region = if partial { (top as usize, bottom as usize) } else { (0, lines) };

    cursor(&mut w, grid, columns, origin.then_some(region));

    // Modes that affect what later output does; all explicit.
    let flag = |on: bool| if on { 'h' } else { 'l' };
    let _ = write!(w.out, "\x1b[4{}", flag(mode.contains(TermMode::INSERT)));
    let _ = write!(w.out, "\x1b[20{}", flag(mode.contains(TermMode::LINE_FEED_NEW_LINE)));
    let _ = write!(w.out, "\x1b[?7{}", flag(mode.contains(TermMode::LINE_WRAP)));
    let _ = write!(w.out, "\x1b[?1{}", flag(mode.contains(TermMode::APP_CURSOR)));
    w.out.push_str(if mode.contains(TermMode::APP_KEYPAD) { "\x1b=" } else { "\x1b>" });
    w.out.push_str("\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l");
    if mode.contains(TermMode::MOUSE_REPORT_CLICK) {
        w.out.push_str("\x1b[?1000h");
    } else if mode.contains(TermMode::MOUSE_DRAG) {
        w.out.push_str("\x1b[?1002h");
    } else if mode.contains(TermMode::MOUSE_MOTION) {
        w.out.push_str("\x1b[?1003h");
    }
    if mode.contains(TermMode::SGR_MOUSE) {
        w.out.push_str("\x1b[?1006h");
    } else if mode.contains(TermMode::UTF8_MOUSE) {
        w.out.push_str("\x1b[?1005h");
    }
    let _ = write!(w.out, "\x1b[?1004{}", flag(mode.contains(TermMode::FOCUS_IN_OUT)));
    let _ = write!(w.out, "\x1b[?2004{}", flag(mode.contains(TermMode::BRACKETED_PASTE)));
    // Alacritty enables alternate scroll by default, xterm does not; only
    // a program's explicit opt-out is worth imposing on a client.
    if !mode.contains(TermMode::ALTERNATE_SCROLL) {
        w.out.push_str("\x1b[?1007l");
    }
    cursor_style(&mut w, term.cursor_style());

    // Charsets after the last painted character, since they remap ASCII.
    designate(&mut w, &grid.cursor.charsets);
    w.out.push(if tracked.g1_active { '\x0e' } else { '\x0f' });

    w.pen(Pen::of(&grid.cursor.template));
    w.link(grid.cursor.template.hyperlink());

    palette(&mut w, term);
    let title = sanitize(title, MAX_TITLE_CHARS);
    let _ = write!(w.out, "\x1b]2;{title}\x1b\\");
    if mode.contains(TermMode::SHOW_CURSOR) {
        w.out.push_str("\x1b[?25h");
    }
    w.out.into_bytes()
}

/// Paints the visible rows of `grid` onto a cleared screen with default pen.
fn paint(w: &mut Writer, grid: &Grid<Cell>) {
    let columns = grid.columns();
    let lines = grid.screen_lines();
    let last = Column(columns - 1);
    // The previous row soft-wraps into this one and the target's cursor is
    // waiting (pending wrap) at its end: the next character continues here.
    let mut continuing = false;
    // Cells to erase (and repaint) once everything else is painted.
    let mut fixups = Vec::new();
    for r in 0..lines {
        let row = &grid[Line(r as i32)];
        let wraps = row[last].flags.contains(Flags::WRAPLINE) && r + 1 < lines;
        // The target creates a leading spacer (with the wide char's pen) by
        // itself when the next row's wide char is written at our last column.
        let next_starts_wide = wraps && {
            let next = &grid[Line(r as i32 + 1)][Column(0)];
            next.flags.contains(Flags::WIDE_CHAR) && Pen::of(next) == Pen::of(&row[last])
        };

        let mut end = if wraps {
            columns
        } else {
            row[..].iter().rposition(|c| !is_default(c)).map_or(0, |i| i + 1)
        };
        if continuing {
            end = end.max(1);
        } else if end == 0 {
            continue;
        }

        // A trailing run of erased cells in one background colour is
        // cheaper as EL, which fills with the current background.
        let mut erase_from = None;
        if !wraps && end == columns {
            let tail = erased_bg(&row[last]);
            if tail.is_some() && tail != Some(Color::Named(NamedColor::Background)) {
                let start = row[..].iter().rposition(|c| erased_bg(c) != tail).map_or(0, |i| i + 1);
                // A continued row must write its first cell to complete the wrap.
                let start = if continuing { start.max(1) } else { start };
                if columns - start >= 4 {
                    erase_from = Some(start);
                }
            }
        }
        let paint_end = erase_from.unwrap_or(end);
        let mut fresh_next = false;

        if !continuing {
            w.cup(r, 0);
        } else {
            w.col = 0;
        }
        let mut c = 0;
        while c < paint_end {
            let cell = &row[Column(c)];
            let leading_spacer =
                wraps && cell.flags.contains(Flags::LEADING_WIDE_CHAR_SPACER) && c == columns - 1;
            if leading_spacer && next_starts_wide {
                // Writing the next row's wide char here makes the target
                // insert this spacer and wrap by itself.
                if w.col != c {
                    w.cha(c);
                }
                c += 1;
                continue;
            }
            if leading_spacer {
                // The wide char that once wrapped is gone from the next row.
                // Recreate spacer and wrap with a stand-in wide char, then
                // erase the stand-in; the next row is painted afresh.
                w.pen(Pen::of(cell));
                w.link(None);
                w.out.push('\u{3000}');
                w.pen(Pen::default());
                let _ = write!(w.out, "\x1b[{};1H\x1b[2X", r + 2);
                w.col = 0;
                fresh_next = true;
                c += 1;
                continue;
            }
            if cell.flags.contains(Flags::WIDE_CHAR_SPACER) {
                let prev = (c > 0).then(|| &row[Column(c - 1)]);
                if prev.is_some_and(|prev| prev.flags.contains(Flags::WIDE_CHAR)) {
                    // Written together with the wide char before it.
                    c += 1;
                    continue;
                }
                // An orphan: its wide char was erased or shifted away.
                if c + 1 < columns {
                    // Paint a stand-in pair here and delete its first half:
                    // the spacer slides into place, and the cells it drags
                    // along are not painted yet.
                    if w.col != c && !(continuing && c == 0) {
                        w.cha(c);
                    }
                    w.pen(Pen::of(cell));
                    w.link(None);
                    w.out.push('\u{3000}');
                    w.cha(c);
                    w.pen(Pen::default());
                    w.out.push_str("\x1b[P");
                    c += 1;
                    continue;
                }
                if prev.is_some_and(|prev| {
                    !prev.flags.intersects(Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER)
                }) {
                    // In the last column there is nothing to slide; paint the
                    // pair over the cell before (keeping the flow, wraps
                    // included) and erase that half once all is painted,
                    // which leaves the spacer alone.
                    w.cha(c - 1);
                    w.pen(Pen::of(cell));
                    w.link(None);
                    w.out.push('\u{3000}');
                    w.col = c + 1;
                    fixups.push((r, c - 1));
                    c += 1;
                    continue;
                }
            }
            if cell.flags.contains(Flags::WIDE_CHAR) && c + 1 == columns && c > 0 && !(continuing && c == 1) {
                let prev = &row[Column(c - 1)];
                if !prev.flags.intersects(Flags::WIDE_CHAR | Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER) {
                    // Insertion pushed this wide char into the last column
                    // and its spacer off the screen: do the same.
                    w.cha(c - 1);
                    w.cell(cell, columns);
                    w.cha(c - 1);
                    w.pen(Pen::background(erased_bg(prev).unwrap_or(Color::Named(NamedColor::Background))));
                    w.link(None);
                    w.out.push_str("\x1b[@");
                    if erased_bg(prev).is_none() {
                        w.cell(prev, columns);
                    }
                    // The cursor is not waiting at the end of the row, so a
                    // soft wrap cannot be continued from here.
                    fresh_next = true;
                    c += 1;
                    continue;
                }
            }
            if w.col != c && !(continuing && c == 0) {
                w.cha(c);
            }
            let width = w.cell(cell, columns);
            c += width;
            if width == 2 && !row[Column(c - 1)].flags.contains(Flags::WIDE_CHAR_SPACER) {
                // The spacer was erased after the wide char was written;
                // erasing it again is the only way to get there. What is
                // there besides the background (a wrap flag) is then written
                // over the erased cell, which no longer belongs to the pair.
                let next = &row[Column(c - 1)];
                w.cha(c - 1);
                w.pen(Pen::background(next.bg));
                w.link(None);
                w.out.push_str("\x1b[X");
                if erased_bg(next) != Some(next.bg) {
                    c -= 1;
                }
            }
        }
        if let Some(start) = erase_from {
            if w.col != start {
                w.cha(start);
            }
            w.pen(Pen::background(row[last].bg));
            w.link(None);
            w.out.push_str("\x1b[K");
        }
        continuing = wraps && !fresh_next;
    }
    for (r, c) in fixups {
        let cell = &grid[Line(r as i32)][Column(c)];
        w.cup(r, c);
        w.pen(Pen::background(erased_bg(cell).unwrap_or(Color::Named(NamedColor::Background))));
        w.link(None);
        w.out.push_str("\x1b[X");
        if erased_bg(cell).is_none() {
            w.cell(cell, columns);
        }
    }
}

/// The background of a cell that shows nothing but a background, i.e. what
/// an erase leaves (tab cells included: a tab over a blank shows as blank).
fn erased_bg(cell: &Cell) -> Option<Color> {
    let blank = matches!(cell.c, ' ' | '\t')
        && cell.fg == Color::Named(NamedColor::Foreground)
        && cell.flags.is_empty()
        && cell.zerowidth().is_none_or(<[char]>::is_empty)
        && cell.underline_color().is_none()
        && cell.hyperlink().is_none();
    blank.then_some(cell.bg)
}

/// A cell that a cleared screen already shows.
fn is_default(cell: &Cell) -> bool {
    erased_bg(cell) == Some(Color::Named(NamedColor::Background))
}

/// DECSC state of the active screen, if a program saved one.
fn saved_cursor(w: &mut Writer, saved: &Cursor<Cell>, columns: usize) {
    if *saved == Cursor::default() {
        return;
    }
    let point = saved.point;
    w.cup(point.line.0.max(0) as usize, point.column.0.min(columns - 1));
    w.pen(Pen::of(&saved.template));
    designate(w, &saved.charsets);
    w.out.push_str("\x1b7");
    // Back to ASCII for the cursor step, which may rewrite a character.
    w.out.push_str("\x1b(B\x1b)B\x1b*B\x1b+B");
}

/// Final cursor position, recreating a pending wrap by rewriting the last
/// cell of the row (the write leaves the cursor waiting there without
/// scrolling anything). `origin` is the scrolling region (first line, one
/// past the last) when origin mode makes CUP relative to it; a cursor outside
/// it cannot be addressed and lands on its nearest edge.
fn cursor(w: &mut Writer, grid: &Grid<Cell>, columns: usize, origin: Option<(usize, usize)>) {
    let cursor = &grid.cursor;
    let line = cursor.point.line.0.max(0) as usize;
    let (row_for_cup, reachable) = match origin {
        Some((top, bottom)) => (line.saturating_sub(top), (top..bottom).contains(&line)),
        None => (line, true),
    };
    // Tab movement can leave the wrap pending away from the last column;
    // that cannot be written, so the position wins.
    if cursor.input_needs_wrap && reachable && cursor.point.column.0 + 1 == columns {
        let row = &grid[cursor.point.line];
        let last = &row[Column(columns - 1)];
        let col = if last.flags.contains(Flags::WIDE_CHAR_SPACER) && columns >= 2 { columns - 2 } else { columns - 1 };
        w.cup(row_for_cup, col);
        w.cell(&row[Column(col)], columns);
    } else {
        w.cup(row_for_cup, cursor.point.column.0);
    }
}

fn designate(w: &mut Writer, charsets: &alacritty_terminal::grid::Charsets) {
    for (index, intermediate) in [
        (CharsetIndex::G0, '('),
        (CharsetIndex::G1, ')'),
        (CharsetIndex::G2, '*'),
        (CharsetIndex::G3, '+'),
    ] {
        let last = match charsets[index] {
            StandardCharset::Ascii => 'B',
            StandardCharset::SpecialCharacterAndLineDrawing => '0',
        };
        let _ = write!(w.out, "\x1b{intermediate}{last}");
    }
}

fn cursor_style(w: &mut Writer, style: CursorStyle) {
    // `Term` only reports the effective style; the default means "whatever
    // the client's terminal is configured to", i.e. DECSCUSR 0.
    let code = if style == CursorStyle::default() {
        0
    } else {
        let base = match style.shape {
            CursorShape::Block | CursorShape::HollowBlock | CursorShape::Hidden => 1,
            CursorShape::Underline => 3,
            CursorShape::Beam => 5,
        };
        if style.blinking { base } else { base + 1 }
    };
    let _ = write!(w.out, "\x1b[{code} q");
}

/// Palette changes a program made (OSC 4/10/11/12), after resetting the
/// target's, so a pane that changed nothing does not inherit another's.
fn palette(w: &mut Writer, term: &Term<Listener>) {
    w.out.push_str("\x1b]104\x1b\\\x1b]110\x1b\\\x1b]111\x1b\\\x1b]112\x1b\\");
    let colors = term.colors();
    for index in 0..COLOR_COUNT.min(NamedColor::Cursor as usize + 1) {
        let Some(rgb) = colors[index] else { continue };
        let spec = format!("rgb:{:02x}/{:02x}/{:02x}", rgb.r, rgb.g, rgb.b);
        if index < 256 {
            let _ = write!(w.out, "\x1b]4;{index};{spec}\x1b\\");
        } else {
            let code = 10 + (index - NamedColor::Foreground as usize);
            let _ = write!(w.out, "\x1b]{code};{spec}\x1b\\");
        }
    }
}
