//! The fork against alacritty_terminal 0.26.0 as published: after the same
//! bytes and resizes, every cell of both grids (screen and scrollback), the
//! cursor and the modes agree.
//!
//! The fork changes how a row keeps its cells (only those written, then
//! one fill cell for the rest), so the streams lean on what touches rows
//! wholesale: erasing with a coloured background, inserting and deleting
//! characters and lines, scrolling regions, the alternate screen, resets,
//! wide and combining characters, and resizes that reflow wrapped lines.
//!
//! Upstream has one bug the fork does not copy, so the streams are of two
//! kinds. Upstream resets only a row's first `occ` cells (those written
//! since its last reset) when its last cell already has the new
//! background, trusting that every cell after `occ` equals the last one.
//! A resize that widens a row breaks that: its new cells are default ones
//! while the old ones may hold a background an erase left, which then
//! survives the row's next reset (found here: a line inserted under a red
//! pen, the screen widened, the terminal reset, and the line stays red in
//! upstream). The fork keeps no `occ` to get wrong. So one kind of stream
//! has every colour and never widens the screen, the other widens it but
//! never sets a background; `row::tests` hold widening coloured rows to a
//! plain `Vec` of cells.

use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::test::TermSize;
use alacritty_terminal::vte::ansi::{Processor, StdSyncHandler};
use proptest::prelude::*;

type Fork = alacritty_terminal::Term<alacritty_terminal::event::VoidListener>;
type Upstream = upstream::Term<upstream::event::VoidListener>;

/// What happens to both terminals.
#[derive(Clone, Debug)]
enum Op {
    Bytes(Vec<u8>),
    /// Unless `widens`, never to more columns than now.
    Resize {
        lines: usize,
        columns: usize,
        widens: bool,
    },
}

/// Both terminals and their parsers.
struct Pair {
    fork: Fork,
    fork_parser: Processor<StdSyncHandler>,
    upstream: Upstream,
    upstream_parser: Processor<StdSyncHandler>,
}

impl Pair {
    fn new(lines: usize, columns: usize, history: usize) -> Pair {
        let fork_config =
            alacritty_terminal::term::Config { scrolling_history: history, ..Default::default() };
        let upstream_config =
            upstream::term::Config { scrolling_history: history, ..Default::default() };
        Pair {
            fork: Fork::new(
                fork_config,
                &TermSize::new(columns, lines),
                alacritty_terminal::event::VoidListener,
            ),
            fork_parser: Processor::new(),
            upstream: Upstream::new(
                upstream_config,
                &upstream::term::test::TermSize::new(columns, lines),
                upstream::event::VoidListener,
            ),
            upstream_parser: Processor::new(),
        }
    }

    fn apply(&mut self, op: &Op) {
        match op {
            Op::Bytes(bytes) => {
                self.fork_parser.advance(&mut self.fork, bytes);
                self.upstream_parser.advance(&mut self.upstream, bytes);
            },
            Op::Resize { lines, columns, widens } => {
                let columns = &if *widens { *columns } else { (*columns).min(self.fork.columns()) };
                self.fork.resize(TermSize::new(*columns, *lines));
                self.upstream.resize(upstream::term::test::TermSize::new(*columns, *lines));
            },
        }
    }

    /// Where the two differ first, if anywhere.
    fn difference(&self) -> Option<String> {
        let (fork, upstream) = (self.fork.grid(), self.upstream.grid());
        let sizes = (fork.total_lines(), fork.screen_lines(), fork.columns());
        let upstream_sizes = (
            upstream::grid::Dimensions::total_lines(upstream),
            upstream::grid::Dimensions::screen_lines(upstream),
            upstream::grid::Dimensions::columns(upstream),
        );
        if sizes != upstream_sizes {
            return Some(format!("sizes {sizes:?} against {upstream_sizes:?}"));
        }
        let cursor = (fork.cursor.point.line.0, fork.cursor.point.column.0);
        let upstream_cursor = (upstream.cursor.point.line.0, upstream.cursor.point.column.0);
        if cursor != upstream_cursor
            || fork.cursor.input_needs_wrap != upstream.cursor.input_needs_wrap
        {
            return Some(format!("cursor {cursor:?} against {upstream_cursor:?}"));
        }
        if self.fork.mode().bits() != self.upstream.mode().bits() {
            return Some(format!(
                "modes {:?} against {:?}",
                self.fork.mode(),
                self.upstream.mode()
            ));
        }
        let top = -(fork.history_size() as i32);
        for line in top..fork.screen_lines() as i32 {
            let (row, upstream_row) = (&fork[Line(line)], &upstream[upstream::index::Line(line)]);
            if row.len() != upstream_row.len() {
                return Some(format!(
                    "line {line}: {} cells against {}",
                    row.len(),
                    upstream_row.len()
                ));
            }
            for column in 0..row.len() {
                let cell = describe(&row[Column(column)]);
                let upstream_cell =
                    describe_upstream(&upstream_row[upstream::index::Column(column)]);
                if cell != upstream_cell {
                    return Some(format!(
                        "line {line} column {column}: {cell} against {upstream_cell}"
                    ));
                }
            }
        }
        None
    }
}

fn describe(cell: &alacritty_terminal::term::cell::Cell) -> String {
    format!(
        "{:?} fg {:?} bg {:?} flags {:#x} zerowidth {:?} underline {:?} link {:?}",
        cell.c,
        cell.fg,
        cell.bg,
        cell.flags.bits(),
        cell.zerowidth(),
        cell.underline_color(),
        cell.hyperlink().map(|link| link.uri().to_string()),
    )
}

fn describe_upstream(cell: &upstream::term::cell::Cell) -> String {
    format!(
        "{:?} fg {:?} bg {:?} flags {:#x} zerowidth {:?} underline {:?} link {:?}",
        cell.c,
        cell.fg,
        cell.bg,
        cell.flags.bits(),
        cell.zerowidth(),
        cell.underline_color(),
        cell.hyperlink().map(|link| link.uri().to_string()),
    )
}

/// Text: ASCII, a wide character, a combining one, box drawing.
fn text() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop::sample::select(vec!['a', 'b', 'z', ' ', '~', 'é', '中', '\u{301}', '─', '🙂']),
        1..40,
    )
    .prop_map(|chars| chars.into_iter().collect::<String>().into_bytes())
}

/// `CSI a ; b f` with any of the finals that move, erase, insert, delete,
/// scroll, repeat or set a region, and small or missing parameters.
fn csi() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::option::of(0u16..30),
        prop::option::of(0u16..30),
        prop::sample::select(b"@ABCDEFGHIJKLMPSTXZ`abdefgr".to_vec()),
    )
        .prop_map(|(first, second, last)| {
            let param = |p: Option<u16>| p.map(|p| p.to_string()).unwrap_or_default();
            let mut seq = format!("\x1b[{}", param(first));
            if second.is_some() {
                seq.push(';');
                seq.push_str(&param(second));
            }
            seq.push(char::from(last));
            seq.into_bytes()
        })
}

/// Pens, with backgrounds if `backgrounds` (an erase leaves cells of the
/// pen's background, which the fork keeps as a row's fill).
fn sgr(backgrounds: bool) -> impl Strategy<Value = Vec<u8>> {
    let mut pens =
        vec!["\x1b[0m", "\x1b[1;32m", "\x1b[7m", "\x1b[4:3m", "\x1b[58;5;9m", "\x1b[59m"];
    if backgrounds {
        pens.extend(["\x1b[41m", "\x1b[44m", "\x1b[49m", "\x1b[48;5;200m", "\x1b[48;2;1;2;3m"]);
    }
    prop::sample::select(pens).prop_map(|seq| seq.as_bytes().to_vec())
}

/// Controls, modes, charsets, saves, resets, tabs and hyperlinks.
fn other() -> impl Strategy<Value = Vec<u8>> {
    prop::sample::select(vec![
        "\r",
        "\n",
        "\x08",
        "\t",
        "\x0b",
        "\x0c",
        "\x0e",
        "\x0f",
        "\x1b7",
        "\x1b8",
        "\x1b#8",
        "\x1bc",
        "\x1bD",
        "\x1bE",
        "\x1bM",
        "\x1bH",
        "\x1b[3g",
        "\x1b(0",
        "\x1b(B",
        "\x1b)0",
        "\x1b[?1049h",
        "\x1b[?1049l",
        "\x1b[?47h",
        "\x1b[?47l",
        "\x1b[?1047h",
        "\x1b[?1047l",
        "\x1b[?1048h",
        "\x1b[?1048l",
        "\x1b[?6h",
        "\x1b[?6l",
        "\x1b[?7h",
        "\x1b[?7l",
        "\x1b[4h",
        "\x1b[4l",
        "\x1b[?3h",
        "\x1b[?3l",
        "\x1b[?69h",
        "\x1b[?69l",
        "\x1b[2;5s",
        "\x1b[s",
        "\x1b[u",
        "\x1b[!p",
        "\x1b]8;;http://a\x07",
        "\x1b]8;id=x;http://b\x1b\\",
        "\x1b]8;;\x07",
        "\x1b[2J",
        "\x1b[3J",
        "\x1b[1K",
        "\x1b[2K",
        "\x1b[5;10r",
        "\x1b[r",
    ])
    .prop_map(|seq| seq.as_bytes().to_vec())
}

/// Ops of the first kind (every colour, resizes that never widen) if
/// `backgrounds`, else of the second (no backgrounds, any resize).
fn op(backgrounds: bool) -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => text().prop_map(Op::Bytes),
        3 => csi().prop_map(Op::Bytes),
        2 => sgr(backgrounds).prop_map(Op::Bytes),
        3 => other().prop_map(Op::Bytes),
        1 => (1usize..25, 2usize..50)
            .prop_map(move |(lines, columns)| Op::Resize { lines, columns, widens: !backgrounds }),
    ]
}

/// Applies `ops` to both, failing at the first op after which they differ.
fn agree(mut pair: Pair, ops: &[Op]) -> Result<(), TestCaseError> {
    for (at, op) in ops.iter().enumerate() {
        pair.apply(op);
        if let Some(difference) = pair.difference() {
            return Err(TestCaseError::fail(format!("after op {at} ({op:?}): {difference}")));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn the_fork_draws_what_upstream_draws_in_colour(
        lines in 1usize..20,
        columns in 2usize..40,
        history in prop::sample::select(vec![0usize, 50]),
        ops in prop::collection::vec(op(true), 1..120),
    ) {
        agree(Pair::new(lines, columns, history), &ops)?;
    }

    #[test]
    fn the_fork_reflows_what_upstream_reflows(
        lines in 1usize..20,
        columns in 2usize..40,
        history in prop::sample::select(vec![0usize, 50]),
        ops in prop::collection::vec(op(false), 1..120),
    ) {
        agree(Pair::new(lines, columns, history), &ops)?;
    }
}
