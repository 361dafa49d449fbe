//! Where everything goes: a tab's split tree laid out on the cells of the
//! terminal, the borders a mouse can drag, and which pane lies in which
//! direction.
//!
//! Each pane owns a rectangle whose top row is its border (title and
//! badges); the rows below are the program's. Side-by-side panes are
//! separated by a one-column border; a pane below another needs none, its
//! own top border separates them. Tiny areas never panic: a split with no
//! room for its second child gives the first all of it.

use signaltty_protocol::{Branch, Direction, Layout};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rect {
    pub x: u16,
    pub y: u16,
    pub w: u16,
    pub h: u16,
}

impl Rect {
    pub fn contains(&self, col: u16, row: u16) -> bool {
        col >= self.x && col < self.x + self.w && row >= self.y && row < self.y + self.h
    }

    pub fn right(&self) -> u16 {
        self.x + self.w
    }

    pub fn bottom(&self) -> u16 {
        self.y + self.h
    }

    pub fn is_empty(&self) -> bool {
        self.w == 0 || self.h == 0
    }
}

/// A pane's rectangle: its border row, then its content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaneArea {
    pub id: String,
    pub rect: Rect,
}

impl PaneArea {
    pub fn header(&self) -> Rect {
        Rect { h: 1, ..self.rect }
    }

    /// The cells the program draws on: its PTY has exactly this size.
    pub fn content(&self) -> Rect {
        Rect {
            y: self.rect.y + 1,
            h: self.rect.h.saturating_sub(1),
            ..self.rect
        }
    }
}

/// A split, found by its path from the root, with the line that moves it.
#[derive(Debug, Clone, PartialEq)]
pub struct Split {
    pub path: Vec<Branch>,
    pub direction: Direction,
    pub area: Rect,
    /// The separator column (right) or the second child's top row (down).
    pub handle: Rect,
}

impl Split {
    /// The ratio that puts the border at (`col`, `row`).
    pub fn ratio_at(&self, col: u16, row: u16) -> f32 {
        let (pos, start, len) = match self.direction {
            Direction::Right => (col, self.area.x, self.area.w.saturating_sub(1)),
            Direction::Down => (row, self.area.y, self.area.h),
        };
        f32::from(pos.saturating_sub(start)) / f32::from(len.max(1))
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Geometry {
    /// Visible panes, in layout order.
    pub panes: Vec<PaneArea>,
    pub splits: Vec<Split>,
}

impl Geometry {
    /// Lays `layout` out on `area`.
    pub fn of(layout: &Layout, area: Rect) -> Geometry {
        let mut geometry = Geometry::default();
        let mut path = Vec::new();
        geometry.place(layout, area, &mut path);
        geometry
    }

    /// One pane on the whole of `area` (zoom).
    pub fn single(id: &str, area: Rect) -> Geometry {
        Geometry {
            panes: vec![PaneArea {
                id: id.to_string(),
                rect: area,
            }],
            splits: Vec::new(),
        }
    }

    pub fn pane(&self, id: &str) -> Option<&PaneArea> {
        self.panes.iter().find(|p| p.id == id)
    }

    pub fn pane_at(&self, col: u16, row: u16) -> Option<&PaneArea> {
        self.panes.iter().find(|p| p.rect.contains(col, row))
    }

    /// The split whose border is at (`col`, `row`).
    pub fn split_at(&self, col: u16, row: u16) -> Option<&Split> {
        self.splits.iter().find(|s| s.handle.contains(col, row))
    }

    fn place(&mut self, node: &Layout, area: Rect, path: &mut Vec<Branch>) {
        if area.is_empty() {
            return;
        }
        match node {
            Layout::Pane { pane_id } => self.panes.push(PaneArea {
                id: pane_id.clone(),
                rect: area,
            }),
            Layout::Split {
                direction,
                ratio,
                first,
                second,
            } => {
                let (a, b, handle) = divide(area, *direction, *ratio);
                if !b.is_empty() {
                    self.splits.push(Split {
                        path: path.clone(),
                        direction: *direction,
                        area,
                        handle,
                    });
                }
                path.push(Branch::First);
                self.place(first, a, path);
                path.pop();
                path.push(Branch::Second);
                self.place(second, b, path);
                path.pop();
            }
        }
    }

    /// The border a resize of pane `id` along `towards` moves, as tmux's
    /// resize-pane picks it: of the splits across that axis around the
    /// pane, the nearest with the pane before its border (so the border
    /// after the pane), else the nearest with the pane after it.
    pub fn border_for(&self, id: &str, towards: Towards) -> Option<&Split> {
        let pane = self.pane(id)?.rect;
        let direction = match towards {
            Towards::Left | Towards::Right => Direction::Right,
            Towards::Up | Towards::Down => Direction::Down,
        };
        let around = || {
            self.splits.iter().filter(move |s| {
                s.direction == direction
                    && s.area.contains(pane.x, pane.y)
                    && s.area.contains(pane.right() - 1, pane.bottom() - 1)
            })
        };
        let before = |s: &Split| match direction {
            Direction::Right => pane.x < s.handle.x,
            Direction::Down => pane.y < s.handle.y,
        };
        around()
            .filter(|s| before(s))
            .max_by_key(|s| s.path.len())
            .or_else(|| around().filter(|s| !before(s)).max_by_key(|s| s.path.len()))
    }

    /// The panes next to `id` in `towards`: the nearest on that side that
    /// overlap it across, in screen order (top to bottom, left to right).
    pub fn neighbours(&self, id: &str, towards: Towards) -> Vec<&str> {
        let Some(from) = self.pane(id).map(|p| p.rect) else {
            return Vec::new();
        };
        let found: Vec<(u16, &PaneArea)> = self
            .panes
            .iter()
            .filter(|p| p.id != id)
            .filter_map(|p| {
                let r = p.rect;
                let (gap, overlap) = match towards {
                    Towards::Left => (
                        from.x.checked_sub(r.right())?,
                        span(from.y, from.h, r.y, r.h),
                    ),
                    Towards::Right => (
                        r.x.checked_sub(from.right())?,
                        span(from.y, from.h, r.y, r.h),
                    ),
                    Towards::Up => (
                        from.y.checked_sub(r.bottom())?,
                        span(from.x, from.w, r.x, r.w),
                    ),
                    Towards::Down => (
                        r.y.checked_sub(from.bottom())?,
                        span(from.x, from.w, r.x, r.w),
                    ),
                };
                (overlap > 0).then_some((gap, p))
            })
            .collect();
        let nearest = found.iter().map(|(gap, _)| *gap).min();
        let mut panes: Vec<&PaneArea> = found
            .into_iter()
            .filter(|(gap, _)| Some(*gap) == nearest)
            .map(|(_, p)| p)
            .collect();
        panes.sort_by_key(|p| (p.rect.y, p.rect.x));
        panes.into_iter().map(|p| p.id.as_str()).collect()
    }
}

/// A direction to move focus, or a border, in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Towards {
    Left,
    Right,
    Up,
    Down,
}

fn span(a: u16, a_len: u16, b: u16, b_len: u16) -> u16 {
    (a + a_len).min(b + b_len).saturating_sub(a.max(b))
}

/// The two children's areas and the border between them.
fn divide(area: Rect, direction: Direction, ratio: f32) -> (Rect, Rect, Rect) {
    match direction {
        Direction::Right => {
            let usable = area.w.saturating_sub(1);
            if usable < 2 {
                return (area, Rect::default(), Rect::default());
            }
            let first = share(usable, ratio, 1);
            let a = Rect { w: first, ..area };
            let handle = Rect {
                x: area.x + first,
                w: 1,
                ..area
            };
            let b = Rect {
                x: area.x + first + 1,
                w: usable - first,
                ..area
            };
            (a, b, handle)
        }
        Direction::Down => {
            if area.h < 4 {
                return (area, Rect::default(), Rect::default());
            }
            let first = share(area.h, ratio, 2);
            let a = Rect { h: first, ..area };
            let b = Rect {
                y: area.y + first,
                h: area.h - first,
                ..area
            };
            (a, b, Rect { h: 1, ..b })
        }
    }
}

/// `len * ratio`, rounded, leaving each side at least `min`.
fn share(len: u16, ratio: f32, min: u16) -> u16 {
    let ratio = if ratio.is_finite() {
        ratio.clamp(0.0, 1.0)
    } else {
        0.5
    };
    let first = (f32::from(len) * ratio).round() as u16;
    first.clamp(min, len - min)
}

/// The size a pane gets when `area` (a pane's whole rectangle) is split
/// in `direction`: what the new pane's PTY starts at.
pub fn half(area: Rect, direction: Direction) -> (u16, u16) {
    let (_, second, _) = divide(area, direction, 0.5);
    let second = if second.is_empty() { area } else { second };
    (second.h.saturating_sub(1).max(1), second.w.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> Layout {
        // a | (b / c)
        let mut l = Layout::pane("a");
        l.split("a", "b", Direction::Right, 0.5).unwrap();
        l.split("b", "c", Direction::Down, 0.5).unwrap();
        l
    }

    #[test]
    fn ratios_give_columns_and_rows() {
        let area = Rect {
            x: 0,
            y: 1,
            w: 81,
            h: 22,
        };
        let g = Geometry::of(&layout(), area);
        let rect = |id: &str| g.pane(id).unwrap().rect;
        assert_eq!(
            rect("a"),
            Rect {
                x: 0,
                y: 1,
                w: 40,
                h: 22
            }
        );
        assert_eq!(
            rect("b"),
            Rect {
                x: 41,
                y: 1,
                w: 40,
                h: 11
            }
        );
        assert_eq!(
            rect("c"),
            Rect {
                x: 41,
                y: 12,
                w: 40,
                h: 11
            }
        );
        assert_eq!(
            g.pane("a").unwrap().content(),
            Rect {
                x: 0,
                y: 2,
                w: 40,
                h: 21
            }
        );
        assert_eq!(g.splits.len(), 2);
        assert_eq!(
            g.splits[0].handle,
            Rect {
                x: 40,
                y: 1,
                w: 1,
                h: 22
            }
        );
        assert_eq!(g.splits[1].path, vec![Branch::Second]);
        assert_eq!(
            g.splits[1].handle,
            Rect {
                x: 41,
                y: 12,
                w: 40,
                h: 1
            }
        );
        assert_eq!(g.split_at(40, 5).unwrap().path, Vec::<Branch>::new());
        assert_eq!(g.pane_at(50, 13).unwrap().id, "c");
    }

    #[test]
    fn dragging_a_border_gives_the_ratio_it_lands_on() {
        let g = Geometry::of(
            &layout(),
            Rect {
                x: 0,
                y: 0,
                w: 101,
                h: 20,
            },
        );
        let root = &g.splits[0];
        assert_eq!(root.ratio_at(25, 3), 0.25);
        let mut moved = layout();
        moved.set_ratio(&root.path, root.ratio_at(25, 3)).unwrap();
        let again = Geometry::of(
            &moved,
            Rect {
                x: 0,
                y: 0,
                w: 101,
                h: 20,
            },
        );
        assert_eq!(again.splits[0].handle.x, 25);
    }

    #[test]
    fn neighbours_are_found_by_direction() {
        let g = Geometry::of(
            &layout(),
            Rect {
                x: 0,
                y: 0,
                w: 81,
                h: 22,
            },
        );
        assert_eq!(g.neighbours("a", Towards::Right), ["b", "c"]);
        assert_eq!(g.neighbours("b", Towards::Down), ["c"]);
        assert_eq!(g.neighbours("c", Towards::Up), ["b"]);
        assert_eq!(g.neighbours("c", Towards::Left), ["a"]);
        assert!(g.neighbours("a", Towards::Left).is_empty());
    }

    #[test]
    fn a_resize_moves_the_border_after_the_pane_else_the_one_before() {
        let g = Geometry::of(
            &layout(),
            Rect {
                x: 0,
                y: 0,
                w: 81,
                h: 22,
            },
        );
        let path = |id: &str, towards| g.border_for(id, towards).map(|s| s.path.clone());
        assert_eq!(path("a", Towards::Left), Some(vec![]));
        assert_eq!(path("b", Towards::Right), Some(vec![]), "b is last: before");
        assert_eq!(path("b", Towards::Down), Some(vec![Branch::Second]));
        assert_eq!(path("c", Towards::Up), Some(vec![Branch::Second]));
        assert_eq!(path("a", Towards::Up), None, "a spans the height");
    }

    #[test]
    fn tiny_areas_never_panic_and_hide_what_does_not_fit() {
        let mut deep = Layout::pane("p0");
        for i in 1..20 {
            deep.split(
                &format!("p{}", i - 1),
                &format!("p{i}"),
                Direction::Right,
                0.9,
            )
            .unwrap();
        }
        for w in 0..12 {
            for h in 0..5 {
                let g = Geometry::of(&deep, Rect { x: 0, y: 0, w, h });
                let cells: u32 = g
                    .panes
                    .iter()
                    .map(|p| u32::from(p.rect.w) * u32::from(p.rect.h))
                    .sum();
                assert!(cells <= u32::from(w) * u32::from(h));
                assert!(g.panes.iter().all(|p| !p.rect.is_empty()));
            }
        }
    }
}
