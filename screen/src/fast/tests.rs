//! The fast path against vte alone: for arbitrary output in arbitrary
//! chunks, a screen whose parser writes runs itself ends up exactly like
//! one that feeds every byte to vte: every cell of both screens, the
//! cursors, pens and charsets, modes, history, events and replay.

use alacritty_terminal::grid::{Cursor, Dimensions, Grid};
use alacritty_terminal::index::Line;
use alacritty_terminal::term::TermMode;
use alacritty_terminal::term::cell::Cell;
use proptest::prelude::*;

use super::Parser;
use crate::emu::with_primary;
use crate::tests::rich_token;
use crate::{Screen, ScreenEvent, Size, Style};

/// Everything of one grid: its rows' cells and its cursors.
type GridState = (Vec<Vec<Cell>>, Cursor<Cell>, Cursor<Cell>);

fn grid_state(grid: &Grid<Cell>) -> GridState {
    let rows = (0..grid.screen_lines())
        .map(|line| grid[Line(line as i32)].iter().cloned().collect())
        .collect();
    (rows, grid.cursor.clone(), grid.saved_cursor.clone())
}

/// The emulator's whole state and everything read out of the screen.
#[derive(Debug, PartialEq)]
struct State {
    active: GridState,
    primary: GridState,
    mode: TermMode,
    tracked: crate::emu::Tracked,
    title: String,
    fresh: u64,
    tail: String,
    history_rows: usize,
    ansi: String,
    replay: Vec<u8>,
}

fn state(screen: &Screen) -> State {
    let mut term = screen.engine.lock();
    let active = grid_state(term.grid());
    let primary = with_primary(&mut term, grid_state);
    let mode = *term.mode();
    drop(term);
    State {
        active,
        primary,
        mode,
        tracked: screen.engine.tracked.clone(),
        title: screen.title().to_owned(),
        fresh: screen.fresh_lines(),
        tail: screen.history_for_tail(usize::MAX),
        history_rows: screen.history_rows(),
        ansi: screen.tail_text(usize::MAX, Style::Ansi),
        replay: screen.replay(),
    }
}

/// Feeds `chunks` to a screen with the fast path and to one without.
/// (Hyperlinks in the input carry ids: alacritty numbers those without
/// one from a global counter, which two screens cannot share.)
fn both(size: Size, chunks: &[Vec<u8>]) -> ((State, Vec<ScreenEvent>), (State, Vec<ScreenEvent>)) {
    let mut fast = Screen::new(size, 20);
    let mut slow = Screen::new(size, 20);
    slow.engine.parser = Parser::slow();
    let (mut fast_events, mut slow_events) = (Vec::new(), Vec::new());
    for chunk in chunks {
        fast.feed(chunk, &mut fast_events);
        slow.feed(chunk, &mut slow_events);
    }
    ((state(&fast), fast_events), (state(&slow), slow_events))
}

fn assert_alike(size: Size, chunks: &[Vec<u8>]) -> Result<(), TestCaseError> {
    let (fast, slow) = both(size, chunks);
    prop_assert_eq!(fast.1, slow.1, "events");
    prop_assert!(fast.0 == slow.0, "fast:\n{:?}\nslow:\n{:?}", fast.0, slow.0);
    Ok(())
}

/// Output pieces: long printable runs (the fast path's food), text it must
/// decline or hand back (wide, combining, invalid UTF-8, DEL), controls,
/// the escape sequences of full-screen programs, and raw bytes that leave
/// vte in every state (OSC, DCS, SOS, cancelled sequences).
pub(crate) fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        6 => "[ -~]{1,40}".prop_map(String::into_bytes),
        4 => rich_token().prop_map(String::into_bytes),
        1 => prop::sample::select(vec![
            "日本語", "e\u{301}", "\u{7f}", "\u{9b}", "\r\n", "\n", "\t", "\x1b[3b", "\x1b(0", "\x0e",
            "\x1b)0", "\x1b]2;title\x07", "\x1b]8;id=a;http://x\x1b\\", "\x1b]8;;\x1b\\", "\x1b[58;5;3m",
            "\x1bP1$qm\x1b\\", "\x1bXsos\x1b\\", "\x1b[1\x18", "\x1b[?1;2\x1a", "\x1b[2;5r", "\x1b[?7l",
            "\x1b[b", "\x1b[0b", "\x1b[2;3b", "\x1b[1:2b", "\x1b[?3b", "\x1b[ b", "\x1b[65600b",
            "\x1b[1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1b", "\x1b[65567m", "\x1b[38;5;300m", "\x1b[38;2;1;2m", "\x1b[1;;4m", "\x1b[m", "\x1b[;31m",
            "\x1b[1;2;3;4;5;7;8;9;21;22;23;24;25;27;28;29;90;100;59m", "\x1b[44m\x1b[K", "\x1b[42m\n\n", "\x1b[45m\x1b[2S", "\x1b[0m", "\x1b[7m \x1b[27m", "\x1b[3C\u{301}",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
        1 => prop::collection::vec(prop::sample::select(
            b"\x1b[]P\\;:?0123456789mHJKrhlb \x07\x18\x1a\x9b\x9c\xc3\xe6\x97\xa5\r\n\tab".to_vec(),
        ), 1..12),
    ]
}

/// `bytes` cut at arbitrary places.
pub(crate) fn chunked(bytes: &[u8], cuts: &[prop::sample::Index]) -> Vec<Vec<u8>> {
    let mut cuts: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
    cuts.sort_unstable();
    let mut chunks = Vec::new();
    let mut start = 0;
    for cut in cuts.into_iter().chain([bytes.len()]) {
        chunks.push(bytes[start..cut].to_vec());
        start = cut;
    }
    chunks
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn fast_path_matches_vte(
        pieces in prop::collection::vec(piece(), 0..80),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
        rows in 1u16..8,
        cols in 2u16..24,
    ) {
        assert_alike(Size { rows, cols }, &chunked(&pieces.concat(), &cuts))?;
    }
}

#[test]
fn runs_are_written_as_vte_writes_them() {
    let cases: &[&[u8]] = &[
        b"hello world",
        b"a line longer than the screen is wide, twice over, and more",
        b"\x1b[31mred\x1b[0m plain \x1b[1;4mbold\r\nnext line\r\n",
        b"\x1b[65567mwraps to red\x1b[38;5;300m\x1b[48;2;1;2;3mrgb\x1b[58;5;9m\x1b[4:3mcurl\x1b[m",
        b"ab\x1b[3bcd",
        "x\x1b[b \u{65e5}\x1b[2b \x1b[1;32mz\x1b[4b \x1b[?2b\x1b[2\x1bb".as_bytes(),
        b"\x1b[4hinsert\x1b[4l",
        b"\x1b(0lqqk\x1b(B",
        "日本語 over wide: \x1b[Hxxxxxx".as_bytes(),
        b"\x1b[?7lno wrap beyond the right edge of it",
        b"\x1b]8;id=a;http://x\x1b\\link\x1b]8;;\x1b\\",
        "split \u{e9} char".as_bytes(),
    ];
    for case in cases {
        let size = Size { rows: 4, cols: 10 };
        assert_alike(size, &[case.to_vec()]).unwrap();
        // Cut everywhere: through escapes and UTF-8 characters.
        for cut in 0..=case.len() {
            assert_alike(size, &[case[..cut].to_vec(), case[cut..].to_vec()]).unwrap();
        }
    }
}
