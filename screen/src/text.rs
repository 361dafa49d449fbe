//! Text out of the grid: the visible screen, the tail, the persisted history.

use alacritty_terminal::grid::{Dimensions, Grid, Row};
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::vte::ansi::{Color, NamedColor};

use crate::Style;
use crate::sanitize::skip_escape;
use crate::sgr::{Pen, write_sgr};

/// Whether a cell shows nothing, for trimming. In `Ansi` a coloured or
/// underlined blank is visible (a status bar's background), in `Plain` not.
fn is_blank(cell: &Cell, style: Style) -> bool {
    let empty_char = matches!(cell.c, ' ' | '\t')
        || cell
            .flags
            .intersects(Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER);
    let no_zerowidth = cell.zerowidth().is_none_or(<[char]>::is_empty);
    match style {
        Style::Plain => (empty_char && no_zerowidth) || cell.flags.contains(Flags::HIDDEN),
        Style::Ansi => {
            empty_char
                && no_zerowidth
                && cell.bg == Color::Named(NamedColor::Background)
                && !cell
                    .flags
                    .intersects(Flags::INVERSE | Flags::ALL_UNDERLINES | Flags::STRIKEOUT)
        }
    }
}

/// Appends one row (or one row's part of a wrapped line). With `trim`, blank
/// cells at the end are dropped. In `Ansi` the segment starts and ends at
/// default attributes, so segments can be cut apart and joined freely.
pub(crate) fn render_row(out: &mut String, row: &Row<Cell>, style: Style, trim: bool) {
    let cells = &row[..];
    let end = if trim {
        cells
            .iter()
            .rposition(|c| !is_blank(c, style))
            .map_or(0, |i| i + 1)
    } else {
        cells.len()
    };
    let mut pen = Pen::default();
    for cell in &cells[..end] {
        if cell
            .flags
            .intersects(Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER)
        {
            continue;
        }
        let hidden_plain = style == Style::Plain && cell.flags.contains(Flags::HIDDEN);
        if style == Style::Ansi {
            let next = Pen::of(cell);
            if next != pen {
                write_sgr(out, &next);
                pen = next;
            }
        }
        if hidden_plain {
            out.push(' ');
            continue;
        }
        out.push(if cell.c == '\t' { ' ' } else { cell.c });
        if let Some(zerowidth) = cell.zerowidth() {
            out.extend(zerowidth);
        }
    }
    if !pen.is_default() {
        out.push_str("\x1b[0m");
    }
}

fn wraps(row: &Row<Cell>) -> bool {
    row.len() > 0 && row[Column(row.len() - 1)].flags.contains(Flags::WRAPLINE)
}

/// The last `count` non-trailing-empty rows of the grid including history.
pub(crate) fn tail_text(grid: &Grid<Cell>, count: usize, style: Style) -> String {
    let top = -(grid.history_size() as i32);
    let mut bottom = grid.screen_lines() as i32; // exclusive
    let mut probe = String::new();
    while bottom > top {
        probe.clear();
        render_row(&mut probe, &grid[Line(bottom - 1)], style, true);
        if !probe.is_empty() {
            break;
        }
        bottom -= 1;
    }
    let count = i32::try_from(count).unwrap_or(i32::MAX);
    let start = bottom.saturating_sub(count).max(top);
    join_rows(grid, start..bottom, style)
}

/// Rows joined by `\n`, trailing empty lines dropped.
pub(crate) fn join_rows(grid: &Grid<Cell>, lines: std::ops::Range<i32>, style: Style) -> String {
    let mut out = String::new();
    let mut kept = 0;
    let mut first = true;
    for line in lines {
        if !first {
            out.push('\n');
        }
        first = false;
        let before = out.len();
        render_row(&mut out, &grid[Line(line)], style, true);
        if out.len() > before {
            kept = out.len();
        }
    }
    out.truncate(kept);
    out
}

/// Renders logical lines (wrapped rows joined) of `lines` from the newest
/// backwards into `out` (newest first), spending at most `*budget` bytes.
/// Returns `false` once the budget is exhausted.
///
/// A logical line too long for what is left is cut at a row boundary, so the
/// oldest kept line may start mid-paragraph but never mid-row or mid-escape.
pub(crate) fn history_lines(
    grid: &Grid<Cell>,
    lines: std::ops::Range<i32>,
    budget: &mut usize,
    skip_trailing_blank: &mut bool,
    out: &mut Vec<String>,
) -> bool {
    let lo = lines.start;
    let mut end = lines.end; // exclusive end of the current logical line
    let mut segments: Vec<String> = Vec::new();
    while end > lo {
        let mut start = end - 1;
        while start > lo && wraps(&grid[Line(start - 1)]) {
            start -= 1;
        }
        // Segments newest first; only the line's last row is trimmed.
        segments.clear();
        let mut size = 1; // the '\n'
        let mut cut = false;
        for line in (start..end).rev() {
            let mut seg = String::new();
            render_row(&mut seg, &grid[Line(line)], Style::Ansi, line == end - 1);
            if size + seg.len() > *budget {
                cut = true;
                break;
            }
            size += seg.len();
            segments.push(seg);
        }
        let blank = !cut && segments.iter().all(String::is_empty);
        if blank && *skip_trailing_blank {
            end = start;
            continue;
        }
        if segments.is_empty() || size > *budget {
            return false;
        }
        *skip_trailing_blank = false;
        let mut text = String::with_capacity(size);
        for seg in segments.iter().rev() {
            text.push_str(seg);
        }
        text.push('\n');
        *budget -= text.len();
        out.push(text);
        if cut {
            return false;
        }
        end = start;
    }
    true
}

/// Turns a persisted tail back into bytes to feed: only text, tabs, line
/// breaks (`\n` becomes `\r\n`: the tail is written without carriage
/// returns, and a stray one would overwrite the line) and SGR survive;
/// anything else is dropped. Ensures the
/// result ends at the start of a new line; empty if there is nothing to show.
pub(crate) fn history_to_feed(tail: &str) -> Vec<u8> {
    let mut out = String::with_capacity(tail.len() + tail.len() / 16);
    let mut visible = false;
    let mut chars = tail.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => out.push_str("\r\n"),
            '\t' => out.push(c),
            '\x1b' => {
                if chars.peek() != Some(&'[') {
                    skip_escape(&mut chars);
                    continue;
                }
                chars.next();
                let mut seq = String::from("\x1b[");
                let mut sgr = true;
                for next in chars.by_ref() {
                    match next {
                        '0'..='9' | ';' | ':' => seq.push(next),
                        'm' if sgr => {
                            seq.push('m');
                            out.push_str(&seq);
                            break;
                        }
                        ' '..='?' => sgr = false,
                        _ => break,
                    }
                }
            }
            c if c.is_control() => {}
            c => {
                if c != ' ' {
                    visible = true;
                }
                out.push(c);
            }
        }
    }
    if !visible {
        return Vec::new();
    }
    if !out.ends_with('\n') {
        out.push_str("\r\n");
    }
    out.push_str("\x1b[0m");
    out.into_bytes()
}
