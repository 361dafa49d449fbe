//! Painting cells onto a cleared target screen.
//!
//! Most rows are plain: position with CUP, write characters with their SGR.
//! What makes this module long are the states a program can leave behind
//! that no plain write produces (soft wraps, wide characters cut apart by
//! erasing, insertion or deletion); each is recreated by repeating the kind
//! of operation that made it, so the target's grid ends up identical.

use std::fmt::Write as _;

use alacritty_terminal::grid::{Dimensions, Grid, Row};
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::cell::{Cell, Flags, Hyperlink};
use alacritty_terminal::vte::ansi::{Color, NamedColor};

use crate::sanitize::sanitize;
use crate::sgr::{Pen, write_sgr};

/// Output buffer that knows the target's pen, hyperlink and cursor column so
/// it only emits what changes.
pub(crate) struct Writer {
    pub(crate) out: String,
    pub(crate) pen: Pen,
    pub(crate) link: Option<Hyperlink>,
    /// Column the target's cursor is at after our last write; `columns`
    /// means "pending wrap at the last column".
    pub(crate) col: usize,
}

impl Writer {
    pub(crate) fn pen(&mut self, pen: Pen) {
        if pen != self.pen {
            write_sgr(&mut self.out, &pen);
            self.pen = pen;
        }
    }

    pub(crate) fn link(&mut self, link: Option<Hyperlink>) {
        if link == self.link {
            return;
        }
        match &link {
            Some(link) => {
                let id: String = sanitize(link.id(), 256)
                    .chars()
                    .filter(|c| !matches!(c, ':' | ';'))
                    .collect();
                let uri = sanitize(link.uri(), 4096);
                let _ = write!(self.out, "\x1b]8;id={id};{uri}\x1b\\");
            }
            None => self.out.push_str("\x1b]8;;\x1b\\"),
        }
        self.link = link;
    }

    /// Absolute cursor position, 0-based.
    pub(crate) fn cup(&mut self, line: usize, col: usize) {
        let _ = write!(self.out, "\x1b[{};{}H", line + 1, col + 1);
        self.col = col;
    }

    pub(crate) fn cha(&mut self, col: usize) {
        let _ = write!(self.out, "\x1b[{}G", col + 1);
        self.col = col;
    }

    /// Writes a cell's character with its attributes; returns its width.
    pub(crate) fn cell(&mut self, cell: &Cell, columns: usize) -> usize {
        self.pen(Pen::of(cell));
        self.link(cell.hyperlink());
        let wide = cell.flags.contains(Flags::WIDE_CHAR) && self.col + 1 < columns;
        let spacer = cell
            .flags
            .intersects(Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER);
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

/// Paints the visible rows of `grid` onto a cleared screen with default pen.
pub(crate) fn paint(w: &mut Writer, grid: &Grid<Cell>) {
    let mut painter = Painter {
        w,
        grid,
        columns: grid.columns(),
        fixups: Vec::new(),
    };
    // Whether the previous row soft-wraps into the current one, with the
    // target's cursor waiting (pending wrap) at its end.
    let mut continuing = false;
    for r in 0..grid.screen_lines() {
        continuing = painter.row(r, continuing);
    }
    painter.apply_fixups();
}

/// What the cell loop does after a special case.
enum Next {
    /// Continue with the cell after this one.
    Cell,
    /// Continue, but the next row must be positioned, not continued.
    CellAndFreshRow,
    /// Paint this cell normally after all.
    Paint,
}

struct Painter<'a> {
    w: &'a mut Writer,
    grid: &'a Grid<Cell>,
    columns: usize,
    /// Cells to erase (and repaint) once everything else is painted.
    fixups: Vec<(usize, usize)>,
}

impl Painter<'_> {
    /// Paints row `r`; returns whether the next row continues it.
    fn row(&mut self, r: usize, continuing: bool) -> bool {
        let grid = self.grid;
        let columns = self.columns;
        let lines = grid.screen_lines();
        let row = &grid[Line(r as i32)];
        let last = Column(columns - 1);
        let wraps = row[last].flags.contains(Flags::WRAPLINE) && r + 1 < lines;

        let mut end = if wraps {
            columns
        } else {
            after_last(row, |c| !is_default(c))
        };
        if continuing {
            // Writing the first cell is what completes the previous wrap.
            end = end.max(1);
        } else if end == 0 {
            return false;
        }

        // A trailing run of erased cells in one background colour is
        // cheaper as EL, which fills with the current background.
        let mut erase_from = None;
        if !wraps && end == columns {
            let tail = erased_bg(&row[last]);
            if tail.is_some() && tail != Some(Color::Named(NamedColor::Background)) {
                let start = after_last(row, |c| erased_bg(c) != tail);
                let start = if continuing { start.max(1) } else { start };
                if columns - start >= 4 {
                    erase_from = Some(start);
                }
            }
        }

        if continuing {
            self.w.col = 0;
        } else {
            self.w.cup(r, 0);
        }
        let mut fresh_next = false;
        let mut c = 0;
        while c < erase_from.unwrap_or(end) {
            let cell = &row[Column(c)];
            let next = if c + 1 == columns
                && cell.flags.contains(Flags::LEADING_WIDE_CHAR_SPACER)
                && wraps
            {
                self.leading_spacer(r, c)
            } else if cell.flags.contains(Flags::WIDE_CHAR_SPACER) {
                self.spacer(r, c, continuing)
            } else if cell.flags.contains(Flags::WIDE_CHAR)
                && c + 1 == columns
                && c > 0
                && !(continuing && c == 1)
            {
                self.wide_in_last_column(r, c)
            } else {
                Next::Paint
            };
            match next {
                Next::Cell => {
                    c += 1;
                    continue;
                }
                Next::CellAndFreshRow => {
                    fresh_next = true;
                    c += 1;
                    continue;
                }
                Next::Paint => {}
            }
            if self.w.col != c && !(continuing && c == 0) {
                self.w.cha(c);
            }
            let width = self.w.cell(cell, columns);
            c += width;
            if width == 2 {
                c = self.erased_spacer(r, c);
            }
        }
        if let Some(start) = erase_from {
            if self.w.col != start {
                self.w.cha(start);
            }
            self.w.pen(Pen::background(row[last].bg));
            self.w.link(None);
            self.w.out.push_str("\x1b[K");
        }
        wraps && !fresh_next
    }

    /// A wide char that did not fit at the end of row `r` left this spacer
    /// and wrapped.
    fn leading_spacer(&mut self, r: usize, c: usize) -> Next {
        let row = &self.grid[Line(r as i32)];
        let next = &self.grid[Line(r as i32 + 1)][Column(0)];
        if next.flags.contains(Flags::WIDE_CHAR) && Pen::of(next) == Pen::of(&row[Column(c)]) {
            // Writing the next row's wide char here makes the target create
            // this spacer (with the wide char's pen) and wrap by itself.
            if self.w.col != c {
                self.w.cha(c);
            }
            return Next::Cell;
        }
        // The wide char is gone from the next row: wrap with a stand-in and
        // erase it; the next row is then painted afresh.
        if self.w.col != c {
            self.w.cha(c);
        }
        self.w.pen(Pen::of(&row[Column(c)]));
        self.w.link(None);
        self.w.out.push('\u{3000}');
        self.w.pen(Pen::default());
        let _ = write!(self.w.out, "\x1b[{};1H\x1b[2X", r + 2);
        self.w.col = 0;
        Next::CellAndFreshRow
    }

    /// A spacer: either the second half of the wide char before it, or an
    /// orphan whose wide char was erased or shifted away.
    fn spacer(&mut self, r: usize, c: usize, continuing: bool) -> Next {
        let row = &self.grid[Line(r as i32)];
        let cell = &row[Column(c)];
        let prev = (c > 0).then(|| &row[Column(c - 1)]);
        if prev.is_some_and(|prev| prev.flags.contains(Flags::WIDE_CHAR)) {
            // Written together with its wide char.
            return Next::Cell;
        }
        if c + 1 < self.columns {
            // Paint a stand-in pair here and delete its first half: the
            // spacer slides into place, and the cells dragged along are not
            // painted yet.
            if self.w.col != c && !(continuing && c == 0) {
                self.w.cha(c);
            }
            self.w.pen(Pen::of(cell));
            self.w.link(None);
            self.w.out.push('\u{3000}');
            self.w.cha(c);
            self.w.pen(Pen::default());
            self.w.out.push_str("\x1b[P");
            return Next::Cell;
        }
        let Some(prev) = prev else { return Next::Paint };
        if prev
            .flags
            .intersects(Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER)
        {
            // Next to another fragment there is no room for a stand-in.
            return Next::Paint;
        }
        // In the last column nothing can slide; paint the pair over the cell
        // before (keeping the flow, wraps included) and erase that half once
        // all is painted, which leaves the spacer alone.
        self.w.cha(c - 1);
        self.w.pen(Pen::of(cell));
        self.w.link(None);
        self.w.out.push('\u{3000}');
        self.w.col = c + 1;
        self.fixups.push((r, c - 1));
        Next::Cell
    }

    /// Insertion pushed a wide char into the last column and its spacer off
    /// the screen: do the same.
    fn wide_in_last_column(&mut self, r: usize, c: usize) -> Next {
        let row = &self.grid[Line(r as i32)];
        let prev = &row[Column(c - 1)];
        let fragment = Flags::WIDE_CHAR | Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER;
        if prev.flags.intersects(fragment) {
            return Next::Paint;
        }
        self.w.cha(c - 1);
        self.w.cell(&row[Column(c)], self.columns);
        self.w.cha(c - 1);
        self.w.pen(Pen::background(
            erased_bg(prev).unwrap_or(Color::Named(NamedColor::Background)),
        ));
        self.w.link(None);
        self.w.out.push_str("\x1b[@");
        if erased_bg(prev).is_none() {
            self.w.cell(prev, self.columns);
        }
        // The cursor is not waiting at the end of the row, so a soft wrap
        // cannot be continued from here.
        Next::CellAndFreshRow
    }

    /// After writing the wide char ending before `c`: if its spacer was
    /// erased since, erase it again (the only way to get there). Whatever
    /// else that cell holds (a wrap flag) is then written over the erased
    /// cell, which no longer belongs to the pair. Returns the next column.
    fn erased_spacer(&mut self, r: usize, c: usize) -> usize {
        let next = &self.grid[Line(r as i32)][Column(c - 1)];
        if next.flags.contains(Flags::WIDE_CHAR_SPACER) {
            return c;
        }
        self.w.cha(c - 1);
        self.w.pen(Pen::background(next.bg));
        self.w.link(None);
        self.w.out.push_str("\x1b[X");
        if erased_bg(next) == Some(next.bg) {
            c
        } else {
            c - 1
        }
    }

    fn apply_fixups(&mut self) {
        for (r, c) in std::mem::take(&mut self.fixups) {
            let cell = &self.grid[Line(r as i32)][Column(c)];
            self.w.cup(r, c);
            self.w.pen(Pen::background(
                erased_bg(cell).unwrap_or(Color::Named(NamedColor::Background)),
            ));
            self.w.link(None);
            self.w.out.push_str("\x1b[X");
            if erased_bg(cell).is_none() {
                self.w.cell(cell, self.columns);
            }
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

/// The column after the last cell of `row` that is `wanted`, 0 if none is:
/// read in place, as painting a picture of a coloured screen should not
/// copy its rows. The cells past what was written are all the row's fill,
/// so one look at it stands for them: a line of a log leaves most of a
/// wide row unwritten, and checking each of those cells was a third of a
/// picture's cost.
fn after_last(row: &Row<Cell>, wanted: impl Fn(&Cell) -> bool) -> usize {
    if row.occ() < row.len() && wanted(row.fill()) {
        return row.len();
    }
    row.written()
        .iter()
        .rposition(wanted)
        .map_or(0, |at| at + 1)
}

/// A cell that a cleared screen already shows.
fn is_default(cell: &Cell) -> bool {
    erased_bg(cell) == Some(Color::Named(NamedColor::Background))
}
