//! One picture of the whole terminal, cell by cell, and the few ways the
//! multiplexer draws on it: pane contents are copied in, its own chrome is
//! written as text.

use signaltty_screen::{Attrs, Cell, Color, CursorShape, Width};
use unicode_width::UnicodeWidthChar;

use super::geometry::Rect;

/// Colours and attributes of text the multiplexer writes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pen {
    pub fg: Color,
    pub bg: Color,
    pub attrs: Attrs,
}

impl Pen {
    pub const fn fg(color: Color) -> Pen {
        Pen {
            fg: color,
            bg: Color::Default,
            attrs: Attrs::empty(),
        }
    }

    pub const fn with(self, attrs: Attrs) -> Pen {
        Pen {
            attrs: self.attrs.union(attrs),
            ..self
        }
    }

    pub const fn on(self, bg: Color) -> Pen {
        Pen { bg, ..self }
    }
}

/// Where the terminal's own cursor goes, and how it looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    pub row: u16,
    pub col: u16,
    pub shape: CursorShape,
    pub blink: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub rows: u16,
    pub cols: u16,
    cells: Vec<Cell>,
    pub cursor: Option<Cursor>,
}

impl Frame {
    pub fn new(rows: u16, cols: u16) -> Frame {
        Frame {
            rows,
            cols,
            cells: vec![Cell::default(); usize::from(rows) * usize::from(cols)],
            cursor: None,
        }
    }

    pub fn row(&self, row: u16) -> &[Cell] {
        let start = usize::from(row) * usize::from(self.cols);
        &self.cells[start..start + usize::from(self.cols)]
    }

    pub fn get(&self, row: u16, col: u16) -> Option<&Cell> {
        (row < self.rows && col < self.cols)
            .then(|| &self.cells[usize::from(row) * usize::from(self.cols) + usize::from(col)])
    }

    pub fn get_mut(&mut self, row: u16, col: u16) -> Option<&mut Cell> {
        (row < self.rows && col < self.cols)
            .then(|| &mut self.cells[usize::from(row) * usize::from(self.cols) + usize::from(col)])
    }

    /// Copies `cells` into row `row` from column `col`, at most `max` cells.
    pub fn copy_row(&mut self, row: u16, col: u16, cells: &[Cell], max: u16) {
        for (i, cell) in cells.iter().take(usize::from(max)).enumerate() {
            if let Some(slot) = self.get_mut(row, col + i as u16) {
                slot.clone_from(cell);
            }
        }
    }

    /// Fills `rect` with `ch` in `pen`.
    pub fn fill(&mut self, rect: Rect, ch: char, pen: Pen) {
        for row in rect.y..rect.bottom() {
            for col in rect.x..rect.right() {
                if let Some(cell) = self.get_mut(row, col) {
                    *cell = styled(ch, pen);
                }
            }
        }
    }

    /// Writes `text` at (`row`, `col`) in `pen`, at most `max` columns wide;
    /// control characters are dropped and a wide character that does not
    /// fit is left out. Returns the columns used.
    pub fn text(&mut self, row: u16, col: u16, max: u16, text: &str, pen: Pen) -> u16 {
        let mut used = 0u16;
        for c in text.chars() {
            let width = match c.width() {
                Some(w @ 1..=2) => w as u16,
                Some(0) if used > 0 => {
                    // A combining mark joins the character before it.
                    if let Some(cell) = self.get_mut(row, col + used - 1) {
                        cell.zerowidth.push(c);
                    }
                    continue;
                }
                _ => continue,
            };
            if used + width > max {
                break;
            }
            if let Some(cell) = self.get_mut(row, col + used) {
                *cell = styled(c, pen);
                if width == 2 {
                    cell.width = Width::Wide;
                }
            }
            if width == 2
                && let Some(cell) = self.get_mut(row, col + used + 1)
            {
                *cell = Cell {
                    width: Width::Spacer,
                    ..styled(' ', pen)
                };
            }
            used += width;
        }
        used
    }

    /// Wide characters and their spacers come in pairs after everything
    /// is drawn; a half left alone by clipping or an overlay becomes blank.
    pub fn fix_wide(&mut self) {
        for row in 0..self.rows {
            for col in 0..self.cols {
                let width = self.get(row, col).map(|c| c.width);
                let next = self.get(row, col + 1).map(|c| c.width);
                let before = col
                    .checked_sub(1)
                    .and_then(|c| self.get(row, c))
                    .map(|c| c.width);
                let lone = match width {
                    Some(Width::Wide) => next != Some(Width::Spacer),
                    Some(Width::Spacer) => before != Some(Width::Wide),
                    _ => false,
                };
                if lone && let Some(cell) = self.get_mut(row, col) {
                    cell.ch = ' ';
                    cell.zerowidth.clear();
                    cell.width = Width::Narrow;
                }
            }
        }
    }
}

pub fn styled(ch: char, pen: Pen) -> Cell {
    Cell {
        ch,
        fg: pen.fg,
        bg: pen.bg,
        attrs: pen.attrs,
        ..Cell::default()
    }
}

/// The width of `text` as [`Frame::text`] would draw it.
pub fn width(text: &str) -> u16 {
    text.chars()
        .map(|c| match c.width() {
            Some(w @ 1..=2) => w as u16,
            _ => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_clipped_and_wide_characters_pair_up() {
        let mut f = Frame::new(2, 6);
        assert_eq!(f.text(0, 0, 6, "a漢b\x07c", Pen::default()), 5);
        assert_eq!(f.row(0)[1].width, Width::Wide);
        assert_eq!(f.row(0)[2].width, Width::Spacer);
        assert_eq!(f.row(0)[4].ch, 'c', "the bell is dropped");
        assert_eq!(
            f.text(1, 4, 2, "x漢", Pen::default()),
            1,
            "no room for the wide one"
        );
        // An overlay over half a pair leaves a blank, not half a glyph.
        f.text(0, 2, 1, "z", Pen::default());
        f.fix_wide();
        assert_eq!((f.row(0)[1].ch, f.row(0)[1].width), (' ', Width::Narrow));
        assert_eq!(f.row(0)[2].ch, 'z');
    }
}
