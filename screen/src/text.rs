//! Text out of the grid and its history: the visible screen, the tail, the
//! persisted history.

use std::borrow::Cow;
use std::ops::Range;

use alacritty_terminal::grid::{Dimensions, Grid, Row};
use alacritty_terminal::index::Line;
use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::vte::ansi::{Color, NamedColor};

use crate::Style;
use crate::history::{History, rows, wraps};
use crate::sanitize::skip_escape;
use crate::sgr::{Pen, write_sgr};

/// The cells of `row` a reader of its text needs: those written since its
/// last reset when every cell after them is untouched (a blank with the
/// default background, which every reader trims off a row's end), else a
/// copy of all of them (the rest of the row was erased in a colour).
pub(crate) fn cells(row: &Row<Cell>) -> Cow<'_, [Cell]> {
    if is_untouched(row.fill()) {
        Cow::Borrowed(row.written())
    } else {
        Cow::Owned(row.iter().cloned().collect())
    }
}

/// What a reset with the default background leaves.
#[inline]
fn is_untouched(cell: &Cell) -> bool {
    cell.c == ' '
        && cell.flags.is_empty()
        && cell.extra.is_none()
        && matches!(cell.bg, Color::Named(NamedColor::Background))
}

/// Whether a cell shows nothing, for trimming. In `Ansi` a coloured or
/// underlined blank is visible (a status bar's background), in `Plain` not.
#[inline]
fn is_blank(cell: &Cell, style: Style) -> bool {
    // What a reset leaves, most of a row's end: decided in a few loads.
    is_untouched(cell) || is_blank_slow(cell, style)
}

fn is_blank_slow(cell: &Cell, style: Style) -> bool {
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

/// How many of `cells` are left with blank ones at the end trimmed.
pub(crate) fn trimmed_len(cells: &[Cell], style: Style) -> usize {
    // A plain loop: `rposition` compiles to about three times the work,
    // and every non-wrapping row that scrolls into history is trimmed.
    let mut end = cells.len();
    while let Some(cell) = end.checked_sub(1).and_then(|last| cells.get(last)) {
        if !is_blank(cell, style) {
            break;
        }
        end -= 1;
    }
    end
}

/// Appends one row (or one row's part of a wrapped line). With `trim`, blank
/// cells at the end are dropped. In `Ansi` the segment starts and ends at
/// default attributes, so segments can be cut apart and joined freely.
///
/// Every row that scrolls into history goes through here, so the loop is
/// kept tight: a cell with the same attributes as the one before and no
/// extras only adds its character.
pub(crate) fn render_row(out: &mut String, cells: &[Cell], style: Style, trim: bool) {
    let end = if trim {
        trimmed_len(cells, style)
    } else {
        cells.len()
    };
    out.reserve(end + 16);
    let mut pen = Pen::default();
    // The attributes of the last cell written if it had no extras; with
    // all flags set (no cell has them) nothing matches.
    let (mut same_colors, mut same_flags) = (colors_key(pen.fg, pen.bg), Flags::empty());
    for cell in &cells[..end] {
        if cell.flags == same_flags
            && cell.extra.is_none()
            && colors_key(cell.fg, cell.bg) == same_colors
        {
            out.push(if cell.c == '\t' { ' ' } else { cell.c });
            continue;
        }
        if cell
            .flags
            .intersects(Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER)
        {
            continue;
        }
        let hidden = style == Style::Plain && cell.flags.contains(Flags::HIDDEN);
        same_colors = colors_key(cell.fg, cell.bg);
        same_flags = if cell.extra.is_some() || hidden {
            Flags::all()
        } else {
            cell.flags
        };
        if hidden {
            out.push(' ');
            continue;
        }
        let next = Pen::of(cell);
        if style == Style::Ansi && next != pen {
            write_sgr(out, &next);
            pen = next;
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

/// A cell's two colours as one number, equal exactly when both are: the
/// derived comparison of `Color` costs a jump table per colour.
#[inline(always)]
fn colors_key(fg: Color, bg: Color) -> u64 {
    fn key(color: Color) -> u64 {
        match color {
            Color::Named(named) => named as u64,
            Color::Indexed(index) => 0x1_0000 | u64::from(index),
            Color::Spec(rgb) => {
                0x100_0000 | u64::from(rgb.r) << 16 | u64::from(rgb.g) << 8 | u64::from(rgb.b)
            }
        }
    }
    key(fg) << 32 | key(bg)
}

/// The last `count` non-trailing-empty rows of `history` (at the grid's
/// width) followed by the grid's screen.
pub(crate) fn tail_text(
    grid: &Grid<Cell>,
    history: Option<&History>,
    count: usize,
    style: Style,
) -> String {
    let mut rows: Vec<String> = Vec::new(); // newest first
    let mut add = |row: &Row<Cell>| {
        if rows.len() == count {
            return false;
        }
        let mut text = String::new();
        render_row(&mut text, &cells(row), style, true);
        if !(rows.is_empty() && text.is_empty()) {
            rows.push(text);
        }
        true
    };
    let more = (0..grid.screen_lines() as i32)
        .rev()
        .all(|line| add(&grid[Line(line)]));
    if more && let Some(history) = history {
        for row in history.rows_newest_first(grid.columns(), &grid[Line(0)]) {
            if !add(&row) {
                break;
            }
        }
    }
    rows.reverse();
    rows.join("\n")
}

/// The screen scrolled back `offset` rows into `history` (at the grid's
/// width; at most all of it): one text per row, top first, each trimmed.
pub(crate) fn scrolled_rows(
    grid: &Grid<Cell>,
    history: &History,
    offset: usize,
    style: Style,
) -> Vec<String> {
    let lines = grid.screen_lines();
    let top = &grid[Line(0)];
    let offset = offset.min(history.row_count(grid.columns(), top));
    let render = |row: &Row<Cell>| {
        let mut text = String::new();
        render_row(&mut text, &cells(row), style, true);
        text
    };
    let mut rows: Vec<String> = history
        .rows_newest_first(grid.columns(), top)
        .take(offset)
        .skip(offset.saturating_sub(lines))
        .map(|row| render(&row))
        .collect();
    rows.reverse();
    let screen = lines - rows.len().min(lines);
    rows.extend((0..screen as i32).map(|line| render(&grid[Line(line)])));
    rows
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
        render_row(&mut out, &cells(&grid[Line(line)]), style, true);
        if out.len() > before {
            kept = out.len();
        }
    }
    out.truncate(kept);
    out
}

/// The persisted tail being collected: logical lines (wrapped rows joined)
/// from the newest backwards, within a byte budget.
///
/// A logical line too long for what is left is cut at a row boundary, so
/// the oldest kept line may start mid-paragraph but never mid-row or
/// mid-escape. Blank lines are dropped until the first non-blank one (the
/// trailing blank lines of the output).
pub(crate) struct Tail {
    budget: usize,
    skip_blank: bool,
    /// Newest first, each ending in `\n`.
    lines: Vec<String>,
}

impl Tail {
    pub(crate) fn new(max_bytes: usize) -> Tail {
        Tail {
            budget: max_bytes,
            skip_blank: true,
            lines: Vec::new(),
        }
    }

    /// The tail, oldest line first.
    pub(crate) fn finish(mut self) -> String {
        self.lines.reverse();
        self.lines.concat()
    }

    /// Drops blank lines again until the next non-blank one.
    pub(crate) fn skip_blank_lines(&mut self) {
        self.skip_blank = true;
    }

    /// Adds the logical lines of grid rows `rows`, newest first. Returns
    /// `false` once the budget is exhausted.
    pub(crate) fn grid_lines(&mut self, grid: &Grid<Cell>, rows: Range<i32>) -> bool {
        let mut end = rows.end;
        while end > rows.start {
            let start = line_start(grid, rows.start, end);
            if !self.line(grid_segments(grid, start..end)) {
                return false;
            }
            end = start;
        }
        true
    }

    /// Adds the primary screen and then its history. A history line that
    /// soft-wraps into the screen is joined with the screen's first line.
    pub(crate) fn primary(&mut self, grid: &Grid<Cell>, history: &History) -> bool {
        let lines = grid.screen_lines() as i32;
        let continued = if history.is_open() {
            line_end(grid, 0)
        } else {
            0
        };
        if !self.grid_lines(grid, continued..lines) {
            return false;
        }
        let columns = grid.columns();
        let mut stored = history.ends_newest_first(&grid[Line(0)]);
        if continued > 0 {
            let mut segments = grid_segments(grid, 0..continued);
            if let Some((line, end)) = stored.next() {
                segments.extend(rows::row_texts(line, columns, end).into_iter().rev());
            }
            if !self.line(segments) {
                return false;
            }
        }
        stored.all(|(line, end)| self.stored_line(line, columns, end))
    }

    /// Adds a history line, split into its rows at `columns` only if it
    /// does not fit whole.
    fn stored_line(&mut self, line: &str, columns: usize, end: rows::End) -> bool {
        if line.len() < self.budget {
            return self.line([line.to_owned()]);
        }
        self.line(rows::row_texts(line, columns, end).into_iter().rev())
    }

    /// Adds one logical line given as its rows' texts, newest first.
    /// Returns `false` once the budget is exhausted.
    fn line(&mut self, segments: impl IntoIterator<Item = String>) -> bool {
        let mut kept = Vec::new();
        let mut size = 1; // the '\n'
        let mut cut = false;
        for segment in segments {
            if size + segment.len() > self.budget {
                cut = true;
                break;
            }
            size += segment.len();
            kept.push(segment);
        }
        let blank = !cut && kept.iter().all(String::is_empty);
        if blank && self.skip_blank {
            return true;
        }
        if kept.is_empty() {
            return false;
        }
        self.skip_blank = false;
        let mut text = String::with_capacity(size);
        for segment in kept.iter().rev() {
            text.push_str(segment);
        }
        text.push('\n');
        self.budget -= text.len();
        self.lines.push(text);
        !cut
    }
}

/// First row of the logical line whose last row is `end - 1`, not above `top`.
fn line_start(grid: &Grid<Cell>, top: i32, end: i32) -> i32 {
    let mut start = end - 1;
    while start > top && wraps(&grid[Line(start - 1)]) {
        start -= 1;
    }
    start
}

/// One past the last row of the logical line starting at row `start`.
fn line_end(grid: &Grid<Cell>, start: i32) -> i32 {
    let lines = grid.screen_lines() as i32;
    let mut end = start + 1;
    while end < lines && wraps(&grid[Line(end - 1)]) {
        end += 1;
    }
    end
}

/// The texts of grid rows `rows` in `Ansi`, newest first; only the last
/// row is trimmed (the others end where they wrapped).
fn grid_segments(grid: &Grid<Cell>, rows: Range<i32>) -> Vec<String> {
    let last = rows.end - 1;
    rows.rev()
        .map(|line| {
            let mut segment = String::new();
            render_row(
                &mut segment,
                &cells(&grid[Line(line)]),
                Style::Ansi,
                line == last,
            );
            segment
        })
        .collect()
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
