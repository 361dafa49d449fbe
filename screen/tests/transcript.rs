//! `Screen::rows_since`: each completed row read once, in order.

use signaltty_screen::{Screen, Size, Style};

fn screen(history: usize) -> Screen {
    Screen::new(Size { rows: 5, cols: 20 }, history)
}

fn feed(screen: &mut Screen, bytes: &[u8]) {
    screen.feed(bytes, &mut Vec::new());
}

#[test]
fn rows_are_read_once_as_the_cursor_leaves_them() {
    let mut s = screen(100);
    feed(&mut s, b"one\r\ntwo\r\n$ ");
    let first = s.rows_since(0, Style::Plain);
    assert_eq!(first.text, "one\ntwo\n");
    assert_eq!(first.offset, 2);
    assert_eq!(first.missed, 0);
    // The prompt's row is complete once the command's output follows it.
    feed(&mut s, b"echo three\r\nthree\r\n$ ");
    let next = s.rows_since(first.offset, Style::Plain);
    assert_eq!(next.text, "$ echo three\nthree\n");
    assert_eq!(s.rows_since(next.offset, Style::Plain).text, "");
    assert_eq!(s.transcript_offset(), next.offset);
}

#[test]
fn rows_that_scrolled_into_history_are_read_from_there() {
    let mut s = screen(100);
    let mut lines = Vec::new();
    for i in 0..30 {
        lines.extend_from_slice(format!("line {i}\r\n").as_bytes());
    }
    feed(&mut s, b"start\r\n");
    let from = s.transcript_offset();
    feed(&mut s, &lines);
    let read = s.rows_since(from, Style::Plain);
    let want: String = (0..30).map(|i| format!("line {i}\n")).collect();
    assert_eq!(read.text, want);
    assert_eq!(read.offset, from + 30);
    // With colours, as the screen has them.
    feed(&mut s, b"\x1b[31mred\x1b[0m\r\n");
    let red = s.rows_since(read.offset, Style::Ansi);
    assert!(red.text.contains("31mred\x1b[0m"), "{:?}", red.text);
}

#[test]
fn rows_the_history_let_go_of_are_counted_as_missed() {
    let mut s = screen(10);
    let mut lines = Vec::new();
    for i in 0..40 {
        lines.extend_from_slice(format!("line {i}\r\n").as_bytes());
    }
    feed(&mut s, &lines);
    let read = s.rows_since(0, Style::Plain);
    assert_eq!(read.offset, 40);
    assert!(read.missed >= 20, "{read:?}");
    assert!(read.text.ends_with("line 39\n"), "{:?}", read.text);
    assert_eq!(read.text.lines().count() as u64 + read.missed, 40);
}

#[test]
fn a_clear_and_the_alternate_screen_neither_repeat_nor_invent_rows() {
    let mut s = screen(100);
    feed(&mut s, b"a\r\nb\r\n");
    let before = s.rows_since(0, Style::Plain);
    assert_eq!(before.text, "a\nb\n");
    feed(&mut s, b"\x1b[H\x1b[2Jafter clear\r\n");
    let after = s.rows_since(before.offset, Style::Plain);
    assert_eq!(after.text, "after clear\n", "{after:?}");
    feed(&mut s, b"\x1b[?1049h\x1b[Hfull screen\r\nprogram\r\n");
    let alt = s.rows_since(after.offset, Style::Plain);
    assert_eq!(alt.text, "");
    feed(&mut s, b"\x1b[?1049lback\r\n");
    assert_eq!(s.rows_since(after.offset, Style::Plain).text, "back\n");
    // An offset from the future reads from now.
    assert_eq!(s.rows_since(u64::MAX - 1, Style::Plain).text, "");
}
