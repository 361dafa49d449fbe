//! A tab's split layout and the edits the server makes to it.
//!
//! The tree is kept small and strict so that a saved layout can always be
//! drawn: every leaf is a pane id, every split has exactly two children and a
//! ratio inside [`MIN_RATIO`]..=[`MAX_RATIO`], and the depth is bounded by
//! [`MAX_LAYOUT_DEPTH`] because serde_json refuses to parse nesting deeper
//! than 128 — a deeper tree would save fine and then fail to load.

use std::collections::{BTreeSet, HashSet};

use serde::{Deserialize, Deserializer, Serialize};

use crate::error::{Result, TypesError};
use crate::id::validate_id;

/// The smallest share a split gives its first child.
pub const MIN_RATIO: f32 = 0.05;
/// The largest share a split gives its first child.
pub const MAX_RATIO: f32 = 0.95;
/// The ratio used when a saved one is missing, null or NaN.
pub const DEFAULT_RATIO: f32 = 0.5;
/// The deepest layout accepted (a lone pane has depth 1). Far beyond what a
/// screen can show, and well inside what serde_json will parse back.
pub const MAX_LAYOUT_DEPTH: usize = 64;

/// A tab's split layout: a binary tree whose leaves are panes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Layout {
    Pane {
        pane_id: String,
    },
    Split {
        direction: Direction,
        /// The share of the first child, clamped to [`MIN_RATIO`]..=[`MAX_RATIO`].
        /// A missing or `null` ratio (serde_json writes NaN as `null`) reads
        /// as [`DEFAULT_RATIO`] instead of making the whole file corrupt.
        #[serde(default = "default_ratio", deserialize_with = "lenient_ratio")]
        ratio: f32,
        first: Box<Layout>,
        second: Box<Layout>,
    },
}

/// Where the second child of a split sits relative to the first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Right,
    Down,
}

/// One step from a split to one of its children: a path of these from the
/// root names a split (how a client says which border it dragged).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Branch {
    First,
    Second,
}

fn default_ratio() -> f32 {
    DEFAULT_RATIO
}

fn lenient_ratio<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<f32, D::Error> {
    Ok(Option::<f32>::deserialize(d)?.map_or(DEFAULT_RATIO, clamp_ratio))
}

/// Brings any ratio into the drawable range; NaN becomes [`DEFAULT_RATIO`].
pub fn clamp_ratio(ratio: f32) -> f32 {
    if ratio.is_nan() {
        DEFAULT_RATIO
    } else {
        ratio.clamp(MIN_RATIO, MAX_RATIO)
    }
}

/// Why a layout does not match the panes of its tab. Kept structured so
/// [`crate::Snapshot::validate`] can say more (e.g. which tab a foreign pane
/// belongs to) than [`Layout::validate_for`] can on its own.
#[derive(Debug)]
pub enum LayoutIssue {
    BadId(TypesError),
    Duplicate(String),
    Missing(String),
    NotInTab(String),
    TooDeep(usize),
}

impl std::fmt::Display for LayoutIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LayoutIssue::BadId(e) => write!(f, "{e}"),
            LayoutIssue::Duplicate(id) => write!(f, "pane {id:?} appears more than once"),
            LayoutIssue::Missing(id) => write!(f, "pane {id:?} of this tab is missing"),
            LayoutIssue::NotInTab(id) => write!(f, "pane {id:?} is not a pane of this tab"),
            LayoutIssue::TooDeep(d) => {
                write!(f, "nested {d} levels deep (at most {MAX_LAYOUT_DEPTH})")
            }
        }
    }
}

impl Layout {
    /// A layout of one pane.
    pub fn pane(pane_id: impl Into<String>) -> Layout {
        Layout::Pane {
            pane_id: pane_id.into(),
        }
    }

    /// The pane ids in drawing order (first child before second).
    pub fn pane_ids(&self) -> Vec<&str> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(node) = stack.pop() {
            match node {
                Layout::Pane { pane_id } => out.push(pane_id.as_str()),
                Layout::Split { first, second, .. } => {
                    stack.push(second);
                    stack.push(first);
                }
            }
        }
        out
    }

    /// Whether `pane_id` is one of the leaves.
    pub fn contains(&self, pane_id: &str) -> bool {
        self.pane_ids().contains(&pane_id)
    }

    /// The number of levels: 1 for a lone pane.
    pub fn depth(&self) -> usize {
        let mut deepest = 0;
        let mut stack = vec![(self, 1usize)];
        while let Some((node, depth)) = stack.pop() {
            deepest = deepest.max(depth);
            if let Layout::Split { first, second, .. } = node {
                stack.push((first, depth + 1));
                stack.push((second, depth + 1));
            }
        }
        deepest
    }

    /// Clamps every ratio into range. Loading calls this, so a hand-edited
    /// or older file with a ratio of 0, 1 or NaN still draws.
    pub fn normalize(&mut self) {
        if let Layout::Split {
            ratio,
            first,
            second,
            ..
        } = self
        {
            *ratio = clamp_ratio(*ratio);
            first.normalize();
            second.normalize();
        }
    }

    /// Checks that the leaves are exactly `pane_ids`, each once, with valid
    /// ids and a bounded depth.
    pub fn validate_for<I, S>(&self, pane_ids: I) -> Result<()>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let owned: Vec<S> = pane_ids.into_iter().collect();
        let expected: Vec<&str> = owned.iter().map(AsRef::as_ref).collect();
        self.check(&expected)
            .map_err(|issue| TypesError::Invalid(format!("layout: {issue}")))
    }

    pub fn check(&self, expected: &[&str]) -> std::result::Result<(), LayoutIssue> {
        let depth = self.depth();
        if depth > MAX_LAYOUT_DEPTH {
            return Err(LayoutIssue::TooDeep(depth));
        }
        let wanted: HashSet<&str> = expected.iter().copied().collect();
        let mut seen = BTreeSet::new();
        for id in self.pane_ids() {
            validate_id("pane", id).map_err(LayoutIssue::BadId)?;
            if !seen.insert(id) {
                return Err(LayoutIssue::Duplicate(id.to_owned()));
            }
            if !wanted.contains(id) {
                return Err(LayoutIssue::NotInTab(id.to_owned()));
            }
        }
        match expected.iter().find(|id| !seen.contains(**id)) {
            Some(missing) => Err(LayoutIssue::Missing((*missing).to_owned())),
            None => Ok(()),
        }
    }

    /// Replaces the leaf `target` with a split whose first child is `target`
    /// and whose second is the new pane, so the existing pane keeps its place
    /// and the new one opens to its right or below.
    pub fn split(
        &mut self,
        target: &str,
        new_pane: &str,
        direction: Direction,
        ratio: f32,
    ) -> Result<()> {
        validate_id("pane", new_pane)?;
        if self.contains(new_pane) {
            return Err(TypesError::Layout(format!(
                "pane {new_pane:?} is already in this layout"
            )));
        }
        let Some((leaf, depth)) = self.find_leaf_mut(target, 1) else {
            return Err(TypesError::Layout(format!(
                "pane {target:?} is not in this layout"
            )));
        };
        if depth >= MAX_LAYOUT_DEPTH {
            return Err(TypesError::Layout(format!(
                "cannot split pane {target:?}: the layout would be deeper than {MAX_LAYOUT_DEPTH} levels"
            )));
        }
        *leaf = Layout::Split {
            direction,
            ratio: clamp_ratio(ratio),
            first: Box::new(Layout::pane(target)),
            second: Box::new(Layout::pane(new_pane)),
        };
        Ok(())
    }

    /// Sets the ratio of the split at `path` (from the root); returns the
    /// ratio as clamped. An error when the path does not lead to a split.
    pub fn set_ratio(&mut self, path: &[Branch], ratio: f32) -> Result<f32> {
        let mut node = self;
        for step in path {
            node = match node {
                Layout::Split { first, second, .. } => match step {
                    Branch::First => first.as_mut(),
                    Branch::Second => second.as_mut(),
                },
                Layout::Pane { .. } => return Err(no_split(path)),
            };
        }
        match node {
            Layout::Split { ratio: slot, .. } => {
                *slot = clamp_ratio(ratio);
                Ok(*slot)
            }
            Layout::Pane { .. } => Err(no_split(path)),
        }
    }

    /// Trades the places of panes `a` and `b`: every split keeps its
    /// direction and ratio, only the two leaves change. With one of them
    /// in this layout, it is replaced by the other (a swap between two
    /// tabs is this, once in each). Returns whether anything changed.
    pub fn swap_leaves(&mut self, a: &str, b: &str) -> bool {
        match self {
            Layout::Pane { pane_id } if pane_id == a => {
                *pane_id = b.to_string();
                true
            }
            Layout::Pane { pane_id } if pane_id == b => {
                *pane_id = a.to_string();
                true
            }
            Layout::Pane { .. } => false,
            Layout::Split { first, second, .. } => {
                let in_first = first.swap_leaves(a, b);
                second.swap_leaves(a, b) || in_first
            }
        }
    }

    fn find_leaf_mut(&mut self, target: &str, depth: usize) -> Option<(&mut Layout, usize)> {
        match self {
            Layout::Pane { pane_id } if pane_id == target => Some((self, depth)),
            Layout::Pane { .. } => None,
            Layout::Split { first, second, .. } => {
                if first.contains(target) {
                    first.find_leaf_mut(target, depth + 1)
                } else {
                    second.find_leaf_mut(target, depth + 1)
                }
            }
        }
    }

    /// The layout without `pane_id`: its parent split collapses into the
    /// sibling, which takes the parent's whole area. `None` when the pane was
    /// the only leaf (the tab has nothing left to show). An id that is not in
    /// the layout gives back an unchanged copy.
    pub fn remove(&self, pane_id: &str) -> Option<Layout> {
        match self {
            Layout::Pane { pane_id: id } if id == pane_id => None,
            Layout::Pane { .. } => Some(self.clone()),
            Layout::Split {
                direction,
                ratio,
                first,
                second,
            } => match (first.remove(pane_id), second.remove(pane_id)) {
                (Some(first), Some(second)) => Some(Layout::Split {
                    direction: *direction,
                    ratio: *ratio,
                    first: Box::new(first),
                    second: Box::new(second),
                }),
                (Some(only), None) | (None, Some(only)) => Some(only),
                (None, None) => None,
            },
        }
    }
}

fn no_split(path: &[Branch]) -> TypesError {
    TypesError::Layout(format!(
        "no split at {path:?} in this layout; it may have changed, so look again"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_ratio_follows_the_path_and_clamps() {
        let mut l = three();
        assert_eq!(l.set_ratio(&[], 0.25).unwrap(), 0.25);
        assert_eq!(l.set_ratio(&[Branch::Second], 2.0).unwrap(), MAX_RATIO);
        let Layout::Split { ratio, second, .. } = &l else {
            panic!()
        };
        assert_eq!(*ratio, 0.25);
        assert!(matches!(**second, Layout::Split { ratio, .. } if ratio == MAX_RATIO));
        let before = l.clone();
        assert!(l.set_ratio(&[Branch::First], 0.5).is_err(), "a is a pane");
        assert!(
            l.set_ratio(&[Branch::Second, Branch::Second, Branch::First], 0.5)
                .is_err()
        );
        assert_eq!(l, before, "a refused change changes nothing");
    }

    fn three() -> Layout {
        let mut l = Layout::pane("a");
        l.split("a", "b", Direction::Right, 0.5).unwrap();
        l.split("b", "c", Direction::Down, 0.3).unwrap();
        l
    }

    #[test]
    fn split_puts_target_first_and_new_second() {
        let l = three();
        assert_eq!(l.pane_ids(), ["a", "b", "c"]);
        let Layout::Split { second, .. } = &l else {
            panic!("root must be a split")
        };
        let Layout::Split {
            direction,
            ratio,
            first,
            second,
        } = second.as_ref()
        else {
            panic!("b must have been split")
        };
        assert_eq!(*direction, Direction::Down);
        assert_eq!(*ratio, 0.3);
        assert_eq!(**first, Layout::pane("b"));
        assert_eq!(**second, Layout::pane("c"));
    }

    #[test]
    fn split_refuses_unknown_target_duplicate_and_bad_id() {
        let mut l = three();
        let before = l.clone();
        assert!(l.split("zz", "d", Direction::Right, 0.5).is_err());
        assert!(l.split("a", "c", Direction::Right, 0.5).is_err());
        assert!(l.split("a", "../x", Direction::Right, 0.5).is_err());
        assert_eq!(l, before, "a refused split must not change the layout");
    }

    #[test]
    fn split_clamps_its_ratio() {
        let mut l = Layout::pane("a");
        l.split("a", "b", Direction::Right, 7.0).unwrap();
        assert!(matches!(l, Layout::Split { ratio, .. } if ratio == MAX_RATIO));
    }

    #[test]
    fn split_stops_at_max_depth() {
        let mut l = Layout::pane("p0");
        for i in 1..MAX_LAYOUT_DEPTH {
            l.split(
                &format!("p{}", i - 1),
                &format!("p{i}"),
                Direction::Down,
                0.5,
            )
            .unwrap();
        }
        assert_eq!(l.depth(), MAX_LAYOUT_DEPTH);
        let last = format!("p{}", MAX_LAYOUT_DEPTH - 1);
        let err = l
            .split(&last, "one-more", Direction::Down, 0.5)
            .unwrap_err();
        assert!(err.to_string().contains("deeper"), "{err}");
        // A layout at the bound still survives a JSON round trip.
        let json = serde_json::to_string(&l).unwrap();
        assert_eq!(serde_json::from_str::<Layout>(&json).unwrap(), l);
    }

    #[test]
    fn swapping_leaves_keeps_every_split_and_ratio() {
        let mut l = three();
        assert!(l.swap_leaves("a", "c"));
        assert_eq!(l.pane_ids(), ["c", "b", "a"]);
        let mut back = l.clone();
        assert!(back.swap_leaves("c", "a"));
        assert_eq!(back, three(), "the splits and ratios did not move");
        assert!(l.swap_leaves("b", "elsewhere"), "one of them: replaced");
        assert_eq!(l.pane_ids(), ["c", "elsewhere", "a"]);
        assert!(!l.swap_leaves("x", "y"));
    }

    #[test]
    fn remove_collapses_parent_into_sibling() {
        let l = three();
        let without_b = l.remove("b").unwrap();
        assert_eq!(without_b.pane_ids(), ["a", "c"]);
        assert_eq!(
            without_b.depth(),
            2,
            "the split of b and c collapsed into c"
        );
        let only_c = without_b.remove("a").unwrap();
        assert_eq!(only_c, Layout::pane("c"));
        assert_eq!(only_c.remove("c"), None);
        assert_eq!(l.remove("nope").as_ref(), Some(&l));
    }

    #[test]
    fn ratios_clamp_and_nan_becomes_half() {
        assert_eq!(clamp_ratio(0.0), MIN_RATIO);
        assert_eq!(clamp_ratio(1.0), MAX_RATIO);
        assert_eq!(clamp_ratio(f32::NAN), DEFAULT_RATIO);
        assert_eq!(clamp_ratio(f32::INFINITY), MAX_RATIO);
        assert_eq!(clamp_ratio(0.4), 0.4);
        let mut l = Layout::Split {
            direction: Direction::Right,
            ratio: f32::NAN,
            first: Box::new(Layout::pane("a")),
            second: Box::new(Layout::Split {
                direction: Direction::Down,
                ratio: 0.0,
                first: Box::new(Layout::pane("b")),
                second: Box::new(Layout::pane("c")),
            }),
        };
        l.normalize();
        let Layout::Split { ratio, second, .. } = &l else {
            panic!()
        };
        assert_eq!(*ratio, DEFAULT_RATIO);
        assert!(matches!(**second, Layout::Split { ratio, .. } if ratio == MIN_RATIO));
    }

    #[test]
    fn null_missing_and_extreme_ratios_load() {
        let json = r#"{"type":"split","direction":"down","ratio":null,
            "first":{"type":"pane","pane_id":"a"},
            "second":{"type":"split","direction":"right","ratio":1e30,
                "first":{"type":"pane","pane_id":"b"},
                "second":{"type":"split","direction":"right",
                    "first":{"type":"pane","pane_id":"c"},
                    "second":{"type":"pane","pane_id":"d"}}}}"#;
        let l: Layout = serde_json::from_str(json).unwrap();
        let mut ratios = Vec::new();
        let mut node = &l;
        while let Layout::Split { ratio, second, .. } = node {
            ratios.push(*ratio);
            node = second;
        }
        assert_eq!(ratios, [DEFAULT_RATIO, MAX_RATIO, DEFAULT_RATIO]);
    }

    fn message(l: &Layout, ids: &[&str]) -> String {
        l.validate_for(ids.iter().copied()).unwrap_err().to_string()
    }

    #[test]
    fn validate_for_names_each_problem() {
        let l = three();
        assert!(l.validate_for(["a", "b", "c"]).is_ok());
        let m = message(&l, &["a", "b", "c", "d"]);
        assert!(m.contains("\"d\"") && m.contains("missing"), "{m}");
        let m = message(&l, &["a", "b"]);
        assert!(
            m.contains("\"c\"") && m.contains("not a pane of this tab"),
            "{m}"
        );
        let dup = Layout::Split {
            direction: Direction::Right,
            ratio: 0.5,
            first: Box::new(Layout::pane("a")),
            second: Box::new(Layout::pane("a")),
        };
        let m = message(&dup, &["a"]);
        assert!(m.contains("\"a\"") && m.contains("more than once"), "{m}");
        let m = message(&Layout::pane("a/b"), &["a/b"]);
        assert!(m.contains("a/b") && m.contains("allowed"), "{m}");
    }
}
