//! The history's bounds, measured by what the process really allocates.
//! Alone in its binary, and one test, because it counts every allocation
//! of the process.

#[path = "support/counting.rs"]
mod counting;

use signaltty_screen::{Screen, Size, Style};

const SCROLLBACK: usize = 2_000;
/// The history keeps about this many bytes per line of its line bound.
const BYTES_PER_LINE: usize = 512;
/// A logical line longer than this is broken into several.
const MAX_LINE_BYTES: usize = 64 * 1024;

fn feed_in_chunks(screen: &mut Screen, bytes: &[u8]) {
    for chunk in bytes.chunks(64 * 1024) {
        screen.feed(chunk, &mut Vec::new());
    }
    // A prompt; output pauses and the history is rendered.
    screen.feed(b"\r\n$ ", &mut Vec::new());
    screen.settle();
}

/// Heap a screen of `size` holds after `output`, and the screen.
fn held_after(size: Size, output: &[u8]) -> (usize, Screen) {
    let before = counting::live_bytes();
    let mut screen = Screen::new(size, SCROLLBACK);
    feed_in_chunks(&mut screen, output);
    (counting::live_bytes().saturating_sub(before), screen)
}

/// Both grids of 24-byte cells, and the 2 MiB vte reserves for
/// synchronized updates (never touched: the screen applies them at once).
fn fixed_cost(size: Size) -> usize {
    2 * usize::from(size.rows) * usize::from(size.cols) * 24 + 2 * 1024 * 1024
}

#[test]
fn history_stays_within_its_line_and_byte_bounds() {
    let narrow = Size { rows: 24, cols: 80 };
    let wide = Size {
        rows: 50,
        cols: 200,
    };

    // Line bound: `seq 1 12000` keeps its newest 2 000 lines, in little
    // more than their text.
    let seq: String = (1..=12_000).map(|i| format!("{i}\r\n")).collect();
    let (held, screen) = held_after(narrow, seq.as_bytes());
    assert_eq!(screen.history_rows(), SCROLLBACK);
    let tail = screen.history_for_tail(usize::MAX);
    // 12 000 numbers and an empty line above the prompt: 22 rows stay on
    // the screen, 2 000 above them, the 9 979 before are gone.
    assert!(tail.starts_with("9979\n"), "{}", &tail[..20]);
    assert!(
        held < fixed_cost(narrow) + 64 * 1024,
        "seq: {held} bytes held"
    );

    // Byte bound: wide coloured lines are evicted by their bytes before
    // their count reaches the line bound.
    let coloured: String = (0..6_000)
        .map(|i| {
            let cells: String = (0..60)
                .map(|c| {
                    let letter = char::from(b'a' + (c % 26) as u8);
                    format!("\x1b[38;2;{};{c};7m{letter}", i % 256)
                })
                .collect();
            format!("{cells}\x1b[0m {i}\r\n")
        })
        .collect();
    let (held, screen) = held_after(wide, coloured.as_bytes());
    let history = screen.history_for_tail(usize::MAX);
    // About 1.2 KiB a line: the history holds some 870 of them, plus the
    // screen's 50 rows.
    let lines = history.lines().count();
    assert!(lines < SCROLLBACK / 2 && lines > 500, "{lines} lines kept");
    assert!(history.contains(" 5999\n"), "the newest line is kept");
    assert!(!history.contains(" 5000\n"), "the oldest lines are gone");
    let history_bound = SCROLLBACK * BYTES_PER_LINE;
    // The text buffer grows by an eighth and drops its evicted front once
    // that is an eighth of it: at most about 9/7 of the bound.
    let buffer_bound = history_bound * 9 / 7;
    assert!(
        held < fixed_cost(wide) + buffer_bound + 128 * 1024,
        "coloured: {held} bytes held"
    );

    // A huge line (a minified file printed without a newline) is broken,
    // and the pieces obey the byte bound like any line.
    let huge = "0123456789abcdef".repeat(4 * 1024 * 1024 / 16);
    let (held, screen) = held_after(narrow, huge.as_bytes());
    assert!(
        held < fixed_cost(narrow) + buffer_bound + 2 * MAX_LINE_BYTES,
        "huge line: {held} bytes held"
    );
    let tail = screen.history_for_tail(usize::MAX);
    assert!(tail.lines().all(|line| line.len() <= MAX_LINE_BYTES + 80));
    assert!(
        tail.len() <= history_bound + MAX_LINE_BYTES,
        "{}",
        tail.len()
    );
    // The newest part reads back as it was written, row by row: 4 MiB
    // make 52 428 rows of 80 and one of 64, above the prompt.
    let screen_rows = screen.scrolled_rows(0, Style::Plain);
    assert_eq!(screen_rows[22], huge[huge.len() - 64..]);
    let above = screen.scrolled_rows(24, Style::Plain);
    let end = huge.len() - 64 - 22 * 80;
    let expected: Vec<&str> = (0..24)
        .map(|row| &huge[end - (24 - row) * 80..end - (23 - row) * 80])
        .collect();
    assert_eq!(above, expected);
}
