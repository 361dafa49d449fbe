//! `replay`: the escape sequences that repaint this screen on another
//! terminal.
//!
//! The target may be a real xterm-compatible terminal of the same size that
//! was showing something else (a client switching panes), so every mode is
//! set explicitly rather than assumed at its default, and painting never
//! relies on implicit wrapping except to recreate a soft wrap on purpose.

use std::fmt::Write;

use alacritty_terminal::grid::{Cursor, Dimensions, Grid};
use alacritty_terminal::index::Column;
use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::term::color::COUNT as COLOR_COUNT;
use alacritty_terminal::term::{Term, TermMode};
use alacritty_terminal::vte::ansi::{
    CharsetIndex, CursorShape, CursorStyle, NamedColor, StandardCharset,
};

use crate::emu::{Listener, Tracked, with_primary};
use crate::keyboard::Keyboard;
use crate::paint::{Writer, paint};
use crate::sanitize::{MAX_TITLE_CHARS, sanitize};
use crate::sgr::Pen;

/// Builds the replay. `term` is only mutated temporarily (to read the
/// primary screen while the alternate one is active) and restored.
pub(crate) fn replay(
    term: &mut Term<Listener>,
    tracked: &Tracked,
    keyboard: &Keyboard,
    title: &str,
) -> Vec<u8> {
    let columns = term.columns();
    let lines = term.screen_lines();
    let mode = *term.mode();
    let mut w = Writer {
        out: String::with_capacity(lines * (columns + 16) + 512),
        pen: Pen::default(),
        link: None,
        col: 0,
    };

    // Known starting point: primary screen, default pen, ASCII, full-screen
    // region, absolute addressing, autowrap on, no insert, cursor hidden
    // while painting.
    w.out.push_str("\x1b[?1049l\x1b[0m\x1b]8;;\x1b\\\x1b(B\x1b)B\x1b*B\x1b+B\x0f\x1b[r\x1b[?6l\x1b[?7h\x1b[4l\x1b[?25l\x1b[H\x1b[2J");
    // Keyboard protocols are pushed, not set: a target that shows several
    // panes in turn keeps its own stack, so these assume a fresh one.
    keyboard.replay_primary(&mut w.out);

    if mode.contains(TermMode::ALT_SCREEN) {
        let primary_cursor = with_primary(term, |primary| {
            paint(&mut w, primary);
            primary.cursor.clone()
        });

        // 1049 saves the cursor on the way in (charsets included); make it
        // the primary's, then paint with ASCII again.
        w.cup(
            primary_cursor.point.line.0.max(0) as usize,
            primary_cursor.point.column.0,
        );
        w.pen(Pen::of(&primary_cursor.template));
        designate(&mut w, &primary_cursor.charsets);
        w.out.push_str("\x1b[?1049h\x1b(B\x1b)B\x1b*B\x1b+B");
        keyboard.replay_alternate(&mut w.out);
        w.pen(Pen::default());
        w.link(None);
        w.out.push_str("\x1b[0m\x1b[H\x1b[2J");
        w.pen = Pen::default();
    }
    paint(&mut w, term.grid());
    tab_stops(&mut w, &tracked.tabs);

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
    let region = if partial {
        (top as usize, bottom as usize)
    } else {
        (0, lines)
    };

    cursor(&mut w, grid, columns, origin.then_some(region));

    // Modes that affect what later output does; all explicit.
    let flag = |on: bool| if on { 'h' } else { 'l' };
    let _ = write!(w.out, "\x1b[4{}", flag(mode.contains(TermMode::INSERT)));
    let _ = write!(
        w.out,
        "\x1b[20{}",
        flag(mode.contains(TermMode::LINE_FEED_NEW_LINE))
    );
    let _ = write!(w.out, "\x1b[?7{}", flag(mode.contains(TermMode::LINE_WRAP)));
    let _ = write!(
        w.out,
        "\x1b[?1{}",
        flag(mode.contains(TermMode::APP_CURSOR))
    );
    w.out.push_str(if mode.contains(TermMode::APP_KEYPAD) {
        "\x1b="
    } else {
        "\x1b>"
    });
    w.out
        .push_str("\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l");
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
    let _ = write!(
        w.out,
        "\x1b[?1004{}",
        flag(mode.contains(TermMode::FOCUS_IN_OUT))
    );
    let _ = write!(
        w.out,
        "\x1b[?2004{}",
        flag(mode.contains(TermMode::BRACKETED_PASTE))
    );
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

/// Every tab stop, set afresh: the target may have others.
fn tab_stops(w: &mut Writer, tabs: &[bool]) {
    w.out.push_str("\x1b[3g");
    for (column, _) in tabs.iter().enumerate().filter(|(_, stop)| **stop) {
        w.cha(column);
        w.out.push_str("\x1bH");
    }
}

/// DECSC state of the active screen, if a program saved one.
fn saved_cursor(w: &mut Writer, saved: &Cursor<Cell>, columns: usize) {
    if *saved == Cursor::default() {
        return;
    }
    let point = saved.point;
    w.cup(
        point.line.0.max(0) as usize,
        point.column.0.min(columns - 1),
    );
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
    // that cannot be written, so the position wins. So does a stray spacer
    // or a wide char pushed into the last column by insertion, which
    // rewriting would destroy (neither can be written there).
    let row = &grid[cursor.point.line];
    let last = &row[Column(columns - 1)];
    let col = if last.flags.contains(Flags::WIDE_CHAR_SPACER) {
        columns.checked_sub(2)
    } else {
        columns.checked_sub(1)
    };
    let col = col.filter(|&col| {
        let spacer_alone = last.flags.contains(Flags::WIDE_CHAR_SPACER)
            && !row[Column(col)].flags.contains(Flags::WIDE_CHAR);
        !spacer_alone && !last.flags.contains(Flags::WIDE_CHAR)
    });
    match col {
        Some(col)
            if cursor.input_needs_wrap && reachable && cursor.point.column.0 + 1 == columns =>
        {
            w.cup(row_for_cup, col);
            w.cell(&row[Column(col)], columns);
        }
        _ => w.cup(row_for_cup, cursor.point.column.0),
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
    w.out
        .push_str("\x1b]104\x1b\\\x1b]110\x1b\\\x1b]111\x1b\\\x1b]112\x1b\\");
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
