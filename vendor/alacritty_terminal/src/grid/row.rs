//! Defines the Row type which makes up lines in the grid.
//!
//! signaltty's fork: a row holds only the cells written since it was last
//! reset, from its left edge; every cell after them is the row's `fill`,
//! the blank its last reset (or erase to the end) left. A fresh row costs
//! no cells, a prompt a few, and resetting a row (every line a scroll
//! brings in) forgets its cells instead of visiting them. Upstream keeps
//! every row at full width: 24 bytes a cell, 46 KiB for an idle 80x24
//! screen and 234 KiB at 200x50.
//!
//! Reading a cell past the written ones gives the fill; writing one writes
//! out the cells before it. A slice of cells can only be borrowed mutably,
//! with [`Row::cells_mut`], which writes the row out as far as the slice
//! goes; read a row cell by cell, with [`Row::iter`], or as
//! [`Row::written`] and [`Row::fill`].

use std::cmp::{max, min};
use std::iter::{Chain, RepeatN};
use std::ops::{Bound, Index, IndexMut, RangeBounds};
use std::{iter, slice};

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use crate::grid::GridCell;
use crate::index::Column;

/// Fewest cells a row allocates room for when it is first written.
const MIN_CELLS: usize = 8;

/// A row in the grid.
#[derive(Default, Clone, Debug)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct Row<T> {
    /// The row's first cells: those written since the last reset, and any
    /// before them.
    inner: Vec<T>,

    /// Every cell from `inner.len()` to `columns`.
    fill: T,

    /// Cells in the row.
    columns: usize,
}

impl<T: PartialEq> PartialEq for Row<T> {
    fn eq(&self, other: &Self) -> bool {
        self.columns == other.columns && self.iter().eq(other.iter())
    }
}

impl<T: Default> Row<T> {
    /// Create a new terminal row.
    pub fn new(columns: usize) -> Row<T> {
        debug_assert!(columns >= 1);

        Row { inner: Vec::new(), fill: T::default(), columns }
    }

    /// A row of `vec`, then default cells up to `columns` (a longer `vec`,
    /// which reflow goes on to wrap, is the whole row).
    #[inline]
    pub fn from_vec(vec: Vec<T>, columns: usize) -> Row<T> {
        Row { columns: columns.max(vec.len()), inner: vec, fill: T::default() }
    }
}

impl<T: Clone + Default + PartialEq> Row<T> {
    /// Increase the number of columns in the row.
    #[inline]
    pub fn grow(&mut self, columns: usize) {
        if self.columns >= columns {
            return;
        }

        // The new cells are default ones, whatever the fill.
        if self.fill != T::default() {
            self.write_out(self.columns);
            self.fill = T::default();
        }
        self.columns = columns;
    }

    /// Reduce the number of columns in the row.
    ///
    /// This will return all non-empty cells that were removed.
    pub fn shrink(&mut self, columns: usize) -> Option<Vec<T>>
    where
        T: GridCell,
    {
        if self.columns <= columns {
            return None;
        }

        // Split off cells for a new row.
        if !self.fill.is_empty() {
            self.write_out(self.columns);
        }
        let mut new_row =
            if self.inner.len() > columns { self.inner.split_off(columns) } else { Vec::new() };
        let index = new_row.iter().rposition(|c| !c.is_empty()).map_or(0, |i| i + 1);
        new_row.truncate(index);

        self.columns = columns;

        if new_row.is_empty() { None } else { Some(new_row) }
    }

    /// Reset all cells in the row to the `template` cell.
    #[inline]
    pub fn reset(&mut self, template: &T)
    where
        T: GridCell,
    {
        debug_assert!(self.columns > 0);

        self.inner.clear();
        self.fill.reset(template);
    }

    /// Forget the written cells, leaving the fill, without visiting them:
    /// for a caller that has just seen that none owns anything, as a row
    /// copied into history while it scrolls off is (`Vec::clear` would
    /// visit each to drop it). A cell that did own something is leaked,
    /// never freed twice.
    #[inline]
    pub fn forget_written(&mut self) {
        // SAFETY: a length of 0 is within the capacity and leaves no cell
        // to be initialised; the cells past it are not dropped.
        unsafe { self.inner.set_len(0) }
    }

    /// Set every cell from `column` to the end of the row to `blank`.
    #[inline]
    pub fn clear_from(&mut self, column: Column, blank: T) {
        let column = min(column.0, self.columns);
        if self.inner.len() < column && self.fill != blank {
            self.write_out(column);
        }
        self.inner.truncate(column);
        self.fill = blank;
    }

    /// The cells of `range`, written out.
    #[inline]
    pub fn cells_mut(&mut self, range: impl RangeBounds<Column>) -> &mut [T] {
        let start = match range.start_bound() {
            Bound::Included(start) => start.0,
            Bound::Excluded(start) => start.0 + 1,
            Bound::Unbounded => 0,
        };
        let end = match range.end_bound() {
            Bound::Included(end) => end.0 + 1,
            Bound::Excluded(end) => end.0,
            Bound::Unbounded => self.columns,
        };
        self.write_out(end);
        &mut self.inner[start..end]
    }

    /// Write `cells` right after the written ones, in place of as many
    /// fill cells.
    #[inline]
    pub fn extend(&mut self, cells: impl ExactSizeIterator<Item = T>) {
        let end = self.inner.len() + cells.len();
        self.reserve(end);
        self.inner.extend(cells);
    }

    /// Write the row out as far as `end`: the cells before it are in `inner`.
    #[inline]
    fn write_out(&mut self, end: usize) {
        if end <= self.inner.len() {
            return;
        }
        self.reserve(end);
        self.inner.resize(end, self.fill.clone());
    }

    /// Make room for `end` written cells: by doubling, as `Vec` grows, but
    /// never past the row's width.
    #[inline]
    fn reserve(&mut self, end: usize) {
        assert!(end <= self.columns, "column {} of a row of {}", end, self.columns);
        let len = self.inner.len();
        if end > self.inner.capacity() {
            let room = max(max(end, self.inner.capacity() * 2), MIN_CELLS);
            self.inner.reserve_exact(min(room, self.columns) - len);
        }
    }

    #[inline]
    pub fn last_mut(&mut self) -> Option<&mut T> {
        self.write_out(self.columns);
        self.inner.last_mut()
    }

    #[inline]
    pub fn append(&mut self, vec: &mut Vec<T>)
    where
        T: GridCell,
    {
        self.write_out(self.columns);
        self.columns += vec.len();
        self.inner.append(vec);
    }

    #[inline]
    pub fn append_front(&mut self, mut vec: Vec<T>) {
        self.write_out(self.columns);
        self.columns += vec.len();

        vec.append(&mut self.inner);
        self.inner = vec;
    }

    #[inline]
    pub fn front_split_off(&mut self, at: usize) -> Vec<T> {
        self.write_out(self.columns);
        self.columns -= at;

        let mut split = self.inner.split_off(at);
        std::mem::swap(&mut split, &mut self.inner);
        split
    }
}

/// The cells of a row, left to right.
pub type Cells<'a, T> = Chain<slice::Iter<'a, T>, RepeatN<&'a T>>;

#[allow(clippy::len_without_is_empty)]
impl<T> Row<T> {
    #[inline]
    pub fn len(&self) -> usize {
        self.columns
    }

    /// Upper bound on the cells written since the last reset: every cell
    /// from here on is [`Row::fill`].
    #[inline]
    pub fn occ(&self) -> usize {
        self.inner.len()
    }

    /// The cells before [`Row::occ`].
    #[inline]
    pub fn written(&self) -> &[T] {
        &self.inner
    }

    /// What every cell from [`Row::occ`] on holds.
    #[inline]
    pub fn fill(&self) -> &T {
        &self.fill
    }

    /// Cells the row has room for without allocating.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.inner.capacity()
    }

    /// Every cell, left to right.
    #[inline]
    pub fn iter(&self) -> Cells<'_, T> {
        self.inner.iter().chain(iter::repeat_n(&self.fill, self.columns - self.inner.len()))
    }

    #[inline]
    pub fn last(&self) -> Option<&T> {
        if self.columns == 0 {
            None
        } else if self.inner.len() == self.columns {
            self.inner.last()
        } else {
            Some(&self.fill)
        }
    }

    /// Check if all cells in the row are empty.
    #[inline]
    pub fn is_clear(&self) -> bool
    where
        T: GridCell,
    {
        self.inner.iter().all(GridCell::is_empty)
            && (self.inner.len() == self.columns || self.fill.is_empty())
    }
}

impl<'a, T> IntoIterator for &'a Row<T> {
    type IntoIter = Cells<'a, T>;
    type Item = &'a T;

    #[inline]
    fn into_iter(self) -> Cells<'a, T> {
        self.iter()
    }
}

impl<'a, T: Clone + Default + PartialEq> IntoIterator for &'a mut Row<T> {
    type IntoIter = slice::IterMut<'a, T>;
    type Item = &'a mut T;

    #[inline]
    fn into_iter(self) -> slice::IterMut<'a, T> {
        self.write_out(self.columns);
        self.inner.iter_mut()
    }
}

impl<T> Index<Column> for Row<T> {
    type Output = T;

    #[inline]
    fn index(&self, index: Column) -> &T {
        match self.inner.get(index.0) {
            Some(cell) => cell,
            None => {
                assert!(index.0 < self.columns, "column {} of a row of {}", index.0, self.columns);
                &self.fill
            },
        }
    }
}

impl<T: Clone + Default + PartialEq> IndexMut<Column> for Row<T> {
    #[inline]
    fn index_mut(&mut self, index: Column) -> &mut T {
        self.write_out(index.0 + 1);
        &mut self.inner[index.0]
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::Row;
    use crate::grid::GridCell;
    use crate::index::Column;
    use crate::term::cell::{Cell, Flags};
    use crate::vte::ansi::{Color, NamedColor};

    /// What is done to a row and to the plain `Vec` of cells it must equal.
    #[derive(Clone, Debug)]
    enum Op {
        Write { column: usize, cell: Cell },
        Reset { template: Cell },
        ClearFrom { column: usize, blank: Cell },
        FillRange { start: usize, end: usize, cell: Cell },
        Extend { cells: Vec<Cell> },
        Grow { columns: usize },
        Shrink { columns: usize },
        Append { cells: Vec<Cell> },
        AppendFront { cells: Vec<Cell> },
        FrontSplitOff { at: usize },
        WrapLast,
        ForgetWritten,
    }

    fn cell() -> impl Strategy<Value = Cell> {
        (
            prop::sample::select(vec![' ', 'a', '\t']),
            prop::sample::select(vec![
                Color::Named(NamedColor::Background),
                Color::Named(NamedColor::Red),
                Color::Indexed(7),
            ]),
            any::<bool>(),
        )
            .prop_map(|(c, bg, wide)| {
                let flags = if wide { Flags::WIDE_CHAR } else { Flags::empty() };
                Cell { c, bg, flags, ..Cell::default() }
            })
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0usize..40, cell()).prop_map(|(column, cell)| Op::Write { column, cell }),
            2 => cell().prop_map(|template| Op::Reset { template }),
            2 => (0usize..40, cell()).prop_map(|(column, blank)| Op::ClearFrom { column, blank }),
            2 => (0usize..40, 0usize..40, cell())
                .prop_map(|(start, end, cell)| Op::FillRange { start, end, cell }),
            2 => prop::collection::vec(cell(), 0..12).prop_map(|cells| Op::Extend { cells }),
            1 => (1usize..40).prop_map(|columns| Op::Grow { columns }),
            1 => (1usize..40).prop_map(|columns| Op::Shrink { columns }),
            1 => prop::collection::vec(cell(), 0..5).prop_map(|cells| Op::Append { cells }),
            1 => prop::collection::vec(cell(), 0..5).prop_map(|cells| Op::AppendFront { cells }),
            1 => (0usize..40).prop_map(|at| Op::FrontSplitOff { at }),
            1 => Just(Op::WrapLast),
            1 => Just(Op::ForgetWritten),
        ]
    }

    /// Applies `op` to both, as far as it fits the row's width.
    fn apply(row: &mut Row<Cell>, model: &mut Vec<Cell>, op: &Op) -> Option<Vec<Cell>> {
        let width = model.len();
        match op.clone() {
            Op::Write { column, cell } if column < width => {
                row[Column(column)] = cell.clone();
                model[column] = cell;
            },
            Op::Reset { template } => {
                row.reset(&template);
                model.iter_mut().for_each(|cell| cell.reset(&template));
            },
            Op::ClearFrom { column, blank } => {
                row.clear_from(Column(column), blank.clone());
                model.iter_mut().skip(column).for_each(|cell| *cell = blank.clone());
            },
            Op::FillRange { start, end, cell } if start <= end && end <= width => {
                row.cells_mut(Column(start)..Column(end)).fill(cell.clone());
                model[start..end].fill(cell);
            },
            Op::Extend { cells } if row.occ() + cells.len() <= width => {
                let start = row.occ();
                model.splice(start..start + cells.len(), cells.iter().cloned());
                row.extend(cells.into_iter());
            },
            Op::Grow { columns } => {
                row.grow(columns);
                if width < columns {
                    model.resize(columns, Cell::default());
                }
            },
            Op::Shrink { columns } => {
                let removed = row.shrink(columns);
                if width <= columns {
                    return removed;
                }
                let mut expected = model.split_off(columns);
                let end = expected.iter().rposition(|c| !c.is_empty()).map_or(0, |i| i + 1);
                expected.truncate(end);
                assert_eq!(removed.unwrap_or_default(), expected, "cells shrink removed");
            },
            Op::Append { mut cells } => {
                model.extend(cells.iter().cloned());
                row.append(&mut cells);
            },
            Op::AppendFront { cells } => {
                model.splice(0..0, cells.iter().cloned());
                row.append_front(cells);
            },
            Op::FrontSplitOff { at } if at < width => {
                let split = row.front_split_off(at);
                let expected: Vec<Cell> = model.drain(..at).collect();
                assert_eq!(split, expected, "cells front_split_off took");
            },
            Op::WrapLast => {
                if let Some(cell) = row.last_mut() {
                    cell.flags.insert(Flags::WRAPLINE);
                }
                if let Some(cell) = model.last_mut() {
                    cell.flags.insert(Flags::WRAPLINE);
                }
            },
            // What is left is the fill, everywhere (these cells own nothing).
            Op::ForgetWritten => {
                let fill = row.fill().clone();
                row.forget_written();
                model.iter_mut().for_each(|cell| *cell = fill.clone());
            },
            _ => {},
        }
        None
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 1024,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        #[test]
        fn a_row_holds_what_a_full_vec_of_cells_holds(
            columns in 1usize..30,
            ops in prop::collection::vec(op(), 1..60),
        ) {
            let mut row = Row::<Cell>::new(columns);
            let mut model = vec![Cell::default(); columns];
            for (at, op) in ops.iter().enumerate() {
                apply(&mut row, &mut model, op);
                let cells: Vec<Cell> = row.iter().cloned().collect();
                prop_assert_eq!(&cells, &model, "after op {} ({:?})", at, op);
                prop_assert_eq!(row.len(), model.len());
                for (column, expected) in model.iter().enumerate() {
                    prop_assert_eq!(&row[Column(column)], expected);
                }
                prop_assert_eq!(row.is_clear(), model.iter().all(GridCell::is_empty));
                prop_assert_eq!(row.last(), model.last());
                prop_assert!(row.occ() <= row.len());
                prop_assert!(row.written().len() == row.occ());
            }
        }
    }

    #[test]
    fn a_fresh_or_reset_row_holds_no_cells() {
        let mut row = Row::<Cell>::new(200);
        assert_eq!(row.written().len(), 0);
        row[Column(3)].c = 'x';
        assert_eq!(row.written().len(), 4);
        assert!(row.written().len() <= row.inner.capacity());
        assert!(row.inner.capacity() < 200, "a short write reserved the whole row");
        row.reset(&Cell::default());
        assert_eq!(row.written().len(), 0);
        assert_eq!(row[Column(199)], Cell::default());
    }
}
