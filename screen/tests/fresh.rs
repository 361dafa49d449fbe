//! `Screen::fresh_lines`: new lines on the primary screen, and nothing for
//! repainting in place or the alternate screen.

use signaltty_screen::{Screen, Size};

fn screen() -> Screen {
    Screen::new(Size { rows: 10, cols: 40 }, 100)
}

fn feed(screen: &mut Screen, bytes: &[u8]) -> u64 {
    let before = screen.fresh_lines();
    screen.feed(bytes, &mut Vec::new());
    screen.fresh_lines() - before
}

#[test]
fn printed_lines_count_once_and_scrolling_keeps_counting() {
    let mut s = screen();
    assert_eq!(feed(&mut s, b"$ "), 1, "a prompt on an empty screen");
    assert_eq!(feed(&mut s, b"echo hi\r\nhi\r\n$ "), 2);
    let mut many = b"\r\n".to_vec();
    for i in 0..50 {
        many.extend_from_slice(format!("line {i}\r\n").as_bytes());
    }
    assert_eq!(
        feed(&mut s, &many),
        50,
        "scrolling past the bottom still counts"
    );
}

#[test]
fn long_lines_that_wrap_at_the_bottom_count_every_row() {
    let mut s = screen();
    // Fill the screen so that the cursor sits on the last row.
    let mut full = Vec::new();
    for i in 0..9 {
        full.extend_from_slice(format!("line {i}\r\n").as_bytes());
    }
    feed(&mut s, &full);
    // 100 characters on a 40-column screen: three rows, two of them made
    // by auto-wrap scrolling the screen, not by a line feed.
    assert_eq!(feed(&mut s, &[b'x'; 100]), 3);
    assert_eq!(feed(&mut s, b"\r\n"), 0, "the cursor only moved down");
    // Wide characters that do not fit at the end of a row wrap too.
    assert_eq!(feed(&mut s, "界".repeat(45).as_bytes()), 3);
    // Nothing wraps on the alternate screen's account.
    feed(&mut s, b"\r\n\x1b[?1049h\x1b[10;1H");
    assert_eq!(feed(&mut s, &[b'y'; 200]), 0);
    assert_eq!(feed(&mut s, b"\x1b[?1049l"), 0);
}

#[test]
fn spinners_status_lines_and_redraws_do_not_count() {
    let mut s = screen();
    feed(&mut s, b"working\r\n");
    assert_eq!(
        feed(&mut s, b"\r. thinking"),
        1,
        "the spinner's line appears"
    );
    for frame in ["|", "/", "-", "\\"] {
        assert_eq!(feed(&mut s, format!("\r{frame} thinking").as_bytes()), 0);
    }
    // A status line painted at the bottom and the cursor put back.
    assert_eq!(feed(&mut s, b"\x1b7\x1b[10;1Hstatus 12:00\x1b8"), 0);
    // Ink-style: erase the frame, move up, draw it again.
    feed(&mut s, b"\r\nbox top\r\nbox bottom\r\n");
    for _ in 0..3 {
        assert_eq!(
            feed(
                &mut s,
                b"\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K\x1b[1Gbox top\r\nbox bottom\r\n"
            ),
            0
        );
    }
}

#[test]
fn the_alternate_screen_never_counts() {
    let mut s = screen();
    feed(&mut s, b"$ top\r\n");
    assert_eq!(
        feed(&mut s, b"\x1b[?1049h\x1b[H\x1b[2Jtop - 12:00\r\nTasks\r\n"),
        0
    );
    for _ in 0..5 {
        assert_eq!(
            feed(&mut s, b"\x1b[H\x1b[2Jtop - 12:01\r\nTasks\r\nmore\r\n"),
            0
        );
    }
    assert_eq!(
        feed(&mut s, b"\x1b[?1049l"),
        0,
        "leaving it shows nothing new"
    );
}

#[test]
fn a_cleared_or_homed_screen_is_repainted_and_counts_only_once_it_scrolls() {
    let mut s = screen();
    feed(&mut s, b"a\r\nb\r\nc\r\n$ ");
    assert_eq!(
        feed(&mut s, b"\x1b[H\x1b[2Jframe\r\n"),
        0,
        "clear + repaint"
    );
    // A frame longer than the last, drawn from the top: still a repaint.
    let long_frame = b"\x1b[H\x1b[Jone\r\ntwo\r\nthree\r\nfour\r\nfive\r\nsix";
    assert_eq!(feed(&mut s, long_frame), 0, "cursor-home repaint");
    assert_eq!(feed(&mut s, b"\x1b[2J\x1b[1;1Hcleared first"), 0);
    // Output that scrolls past the bottom row is new again.
    let mut scroll = b"\x1b[10;1H".to_vec();
    for i in 0..4 {
        scroll.extend_from_slice(format!("\r\nafter {i}").as_bytes());
    }
    assert_eq!(feed(&mut s, &scroll), 4);
}

/// Claude Code 2.1.197 recorded through tmux's pipe-pane: start, a prompt,
/// a turn with its spinner, the answer.
#[test]
fn claude_code_spinner_repaints_are_not_new_lines() {
    let bytes = include_bytes!("fixtures/claude-turn.bin");
    let find = |needle: &[u8], from: usize| {
        from + bytes[from..]
            .windows(needle.len())
            .position(|w| w == needle)
            .unwrap()
    };
    let prompt = find(b"tell me a story", 0);
    let busy = find(b"esc", prompt);
    let answer = find(b"Hi there", busy);
    let mut s = Screen::new(
        Size {
            rows: 30,
            cols: 100,
        },
        100,
    );
    assert!(
        feed(&mut s, &bytes[..busy + 3]) > 10,
        "the banner and prompt are new"
    );
    // The spinner phase, fed in small chunks as a PTY would deliver it.
    let mut grew = Vec::new();
    for (i, chunk) in bytes[busy + 3..answer].chunks(64).enumerate() {
        if feed(&mut s, chunk) > 0 {
            grew.push(i);
        }
    }
    // The turn's frame grows once (a tip line under the spinner); the
    // repaints after that never count.
    assert!(grew.len() <= 1, "grew at chunks {grew:?}");
    // A one-line answer takes the spinner's place: no new line. The turn
    // that ended is caught by the pane's lifecycle (done), not here.
    feed(&mut s, &bytes[answer..]);
}
