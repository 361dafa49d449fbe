//! A stored history line back into grid rows at some width.
//!
//! A stored line is what [`crate::text::render_row`] wrote: characters
//! (each followed by its zero-width marks) and SGR sequences from
//! [`crate::sgr::write_sgr`]. Cells are recovered with the character widths
//! alacritty itself uses, and rows are wrapped the way alacritty wraps
//! input: a wide character that does not fit in the last column leaves a
//! spacer there and moves to the next row. Rewrapped at the width the line
//! was printed at, this gives the rows it had on screen.

use alacritty_terminal::grid::Row;
use alacritty_terminal::index::Column;
use alacritty_terminal::term::cell::{Cell, Flags};
use unicode_width::UnicodeWidthChar;

use crate::sgr::{Pen, parse_sgr, write_sgr};

/// One character cell (two for a wide character) of a stored line.
#[derive(Clone, Copy, Debug)]
struct Glyph<'a> {
    /// Where the glyph's bytes start, SGR sequences before it included.
    start: usize,
    /// The pen in effect at `start`, before those sequences.
    pen_before: Pen,
    /// Where its character starts, after them.
    char_start: usize,
    pen: Pen,
    /// The character followed by its zero-width marks.
    text: &'a str,
    width: usize,
}

/// The glyphs of a stored line, in order.
struct Glyphs<'a> {
    line: &'a str,
    pos: usize,
    pen: Pen,
}

impl<'a> Glyphs<'a> {
    fn new(line: &'a str) -> Glyphs<'a> {
        Glyphs {
            line,
            pos: 0,
            pen: Pen::default(),
        }
    }

    /// Applies the SGR sequences at the current position.
    fn skip_sgr(&mut self) {
        while let Some(rest) = self.line[self.pos..].strip_prefix("\x1b[") {
            let end = rest.find('m').unwrap_or(rest.len());
            self.pen = parse_sgr(&rest[..end]);
            self.pos += 2 + (end + 1).min(rest.len());
        }
    }
}

impl<'a> Iterator for Glyphs<'a> {
    type Item = Glyph<'a>;

    fn next(&mut self) -> Option<Glyph<'a>> {
        let start = self.pos;
        let pen_before = self.pen;
        self.skip_sgr();
        let rest = &self.line[self.pos..];
        let mut chars = rest.char_indices();
        let (_, c) = chars.next()?;
        let end = chars
            .find(|&(_, mark)| mark.width() != Some(0))
            .map_or(rest.len(), |(i, _)| i);
        let char_start = self.pos;
        self.pos += end;
        Some(Glyph {
            start,
            pen_before,
            char_start,
            pen: self.pen,
            text: &rest[..end],
            // Only characters that take cells are stored as such; anything
            // else found here takes one, so a damaged line cannot overflow.
            width: if c.width() == Some(2) { 2 } else { 1 },
        })
    }
}

/// Glyphs with the row and column they land on at `columns` (≥ 2).
fn wrapped(line: &str, columns: usize) -> impl Iterator<Item = (usize, usize, Glyph<'_>)> {
    let mut row = 0;
    let mut col = 0;
    Glyphs::new(line).map(move |glyph| {
        if col + glyph.width > columns {
            row += 1;
            col = 0;
        }
        let at = (row, col, glyph);
        col += glyph.width;
        at
    })
}

/// How many rows [`to_rows`] makes of `line` at `columns`.
pub(crate) fn row_count(line: &str, columns: usize, end: End) -> usize {
    let rows = wrapped(line, columns)
        .last()
        .map_or(1, |(row, _, _)| row + 1);
    rows + usize::from(end == End::BlankRow)
}

/// Where a row of a stored line starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RowStart {
    /// Byte offset of the row: after the previous row's last character,
    /// before the SGR sequences that lead to its own first one.
    offset: usize,
    /// The pen in effect at `offset`.
    pen_before: Pen,
    /// Byte offset of its first character.
    first: usize,
    /// The pen of its first character.
    pen: Pen,
}

impl RowStart {
    fn of(glyph: &Glyph) -> RowStart {
        RowStart {
            offset: glyph.start,
            pen_before: glyph.pen_before,
            first: glyph.char_start,
            pen: glyph.pen,
        }
    }
}

/// Where each row of `line` starts at `columns`; always at least one row.
fn row_starts(line: &str, columns: usize) -> Vec<RowStart> {
    let mut starts = Vec::new();
    for (row, _, glyph) in wrapped(line, columns) {
        if row == starts.len() {
            starts.push(RowStart::of(&glyph));
        }
    }
    if starts.is_empty() {
        starts.push(RowStart {
            offset: 0,
            pen_before: Pen::default(),
            first: 0,
            pen: Pen::default(),
        });
    }
    starts
}

/// The text of each row of `line` at `columns`, oldest first, each starting
/// from and returning to default attributes like the line itself: what
/// `render_row` makes of the rows [`to_rows`] returns, but for trimming.
pub(crate) fn row_texts(line: &str, columns: usize, end: End) -> Vec<String> {
    let starts = row_starts(line, columns);
    let ends = starts
        .iter()
        .skip(1)
        .map(|next| (next.offset, next.pen_before));
    let ends = ends.chain([(line.len(), Pen::default())]);
    starts
        .iter()
        .zip(ends)
        .map(|(start, (end, end_pen))| {
            let mut text = String::new();
            if !start.pen.is_default() {
                write_sgr(&mut text, &start.pen);
            }
            text.push_str(&line[start.first..end]);
            if !end_pen.is_default() {
                text.push_str("\x1b[0m");
            }
            text
        })
        .chain((end == End::BlankRow).then(String::new))
        .collect()
}

/// How a stored line ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum End {
    /// With its last character.
    Closed,
    /// With a blank row after its last character's (a blank that wrapped).
    BlankRow,
    /// Soft-wrapped into the screen's top row, which starts with a wide
    /// character of this pen (`Some`), or with another one.
    Wrapped(Option<Pen>),
}

impl End {
    /// How a line ends that is `open` above `screen_top`.
    pub(crate) fn above(open: bool, screen_top: &Row<Cell>) -> End {
        if !open {
            return End::Closed;
        }
        let first = &screen_top[Column(0)];
        End::Wrapped(
            first
                .flags
                .contains(Flags::WIDE_CHAR)
                .then(|| Pen::of(first)),
        )
    }
}

/// The rows `line` fills at `columns`, soft-wrapped into each other, the
/// last one too if the line does not `end` there.
pub(crate) fn to_rows(line: &str, columns: usize, end: End) -> Vec<Row<Cell>> {
    let mut rows = vec![Row::new(columns)];
    let mut filled = 0; // columns used in the last row
    for (row, col, glyph) in wrapped(line, columns) {
        if row == rows.len() {
            if let Some(full) = rows.last_mut() {
                end_row(full, filled, glyph.width, glyph.pen);
            }
            rows.push(Row::new(columns));
        }
        if let Some(cells) = rows.last_mut() {
            place(cells, col, &glyph);
        }
        filled = col + glyph.width;
    }
    match (end, rows.last_mut()) {
        (End::Wrapped(next), Some(last)) => {
            let (width, pen) = next.map_or((1, Pen::default()), |pen| (2, pen));
            end_row(last, filled, width, pen);
        }
        (End::BlankRow, Some(last)) => {
            end_row(last, filled, 1, Pen::default());
            rows.push(Row::new(columns));
        }
        _ => {}
    }
    rows
}

/// Marks a row `filled` columns full as wrapping into the next one, which
/// starts with a character `width` wide written with `pen`: a wide one that
/// did not fit in the last column left a spacer there.
fn end_row(row: &mut Row<Cell>, filled: usize, width: usize, pen: Pen) {
    let last = Column(row.len() - 1);
    if width == 2 && filled == last.0 {
        row[last] = cell(pen, ' ', Flags::LEADING_WIDE_CHAR_SPACER);
    }
    row[last].flags.insert(Flags::WRAPLINE);
}

fn place(row: &mut Row<Cell>, col: usize, glyph: &Glyph) {
    let mut chars = glyph.text.chars();
    let Some(c) = chars.next() else { return };
    let wide = if glyph.width == 2 {
        Flags::WIDE_CHAR
    } else {
        Flags::empty()
    };
    row[Column(col)] = cell(glyph.pen, c, wide);
    for mark in chars {
        row[Column(col)].push_zerowidth(mark);
    }
    if glyph.width == 2 {
        row[Column(col + 1)] = cell(glyph.pen, ' ', Flags::WIDE_CHAR_SPACER);
    }
}

fn cell(pen: Pen, c: char, structure: Flags) -> Cell {
    let mut cell = Cell {
        c,
        fg: pen.fg,
        bg: pen.bg,
        flags: pen.flags | structure,
        ..Cell::default()
    };
    cell.set_underline_color(pen.underline);
    cell
}
