//! The persisted tail and restoring it.

use signaltty_screen::{RESTORED_SEPARATOR, Screen, ScreenEvent, Size, Style};

fn screen(rows: u16, cols: u16, input: &str) -> Screen {
    let mut screen = Screen::new(Size { rows, cols }, 10_000);
    let mut events: Vec<ScreenEvent> = Vec::new();
    screen.feed(input.as_bytes(), &mut events);
    screen
}

fn coloured_log(lines: usize) -> String {
    (0..lines)
        .map(|i| format!("\x1b[3{}mline {i:05}\x1b[0m plain tail {i}\r\n", i % 8))
        .collect()
}

/// Every escape sequence is an SGR, and every line returns to default
/// attributes before its newline.
fn assert_valid_sgr(text: &str) {
    for line in text.split_inclusive('\n') {
        assert!(line.ends_with('\n'), "{line:?}");
        let mut rest = line;
        let mut dirty = false;
        while let Some(i) = rest.find('\x1b') {
            let seq = &rest[i..];
            assert!(seq.starts_with("\x1b["), "{line:?}");
            let end = seq[2..]
                .find(|c: char| !(c.is_ascii_digit() || c == ';' || c == ':'))
                .map(|e| e + 2);
            let end = end.unwrap_or_else(|| panic!("unterminated in {line:?}"));
            assert_eq!(&seq[end..=end], "m", "{line:?}");
            dirty = &seq[..=end] != "\x1b[0m";
            rest = &seq[end + 1..];
        }
        assert!(!dirty, "line does not end at default attributes: {line:?}");
    }
}

fn strip_sgr(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find('\x1b') {
        out.push_str(&rest[..i]);
        let m = rest[i..].find('m').map_or(rest.len(), |m| i + m + 1);
        rest = &rest[m..];
    }
    out.push_str(rest);
    out
}

#[test]
fn tail_fits_starts_at_a_line_and_ends_with_the_newest() {
    let s = screen(24, 80, &coloured_log(5000));
    for max in [0, 10, 100, 4096, 64 * 1024] {
        let tail = s.history_for_tail(max);
        assert!(tail.len() <= max, "{} > {max}", tail.len());
        assert_valid_sgr(&tail);
        let plain = strip_sgr(&tail);
        for line in plain.lines() {
            let n: usize = line[5..10]
                .parse()
                .unwrap_or_else(|_| panic!("cut line {line:?}"));
            assert_eq!(line, format!("line {n:05} plain tail {n}"));
        }
        if max >= 100 {
            assert!(plain.ends_with("line 04999 plain tail 4999\n"), "{plain:?}");
        }
    }
    let tail = s.history_for_tail(64 * 1024);
    assert!(tail.len() > 60 * 1024, "budget is used: {}", tail.len());
    assert!(tail.contains("\x1b[0;33mline 04995\x1b[0m plain tail 4995\n"));
}

#[test]
fn trailing_blank_lines_are_dropped() {
    let s = screen(10, 20, "a\r\n\r\nb\r\n\r\n\r\n");
    assert_eq!(s.history_for_tail(1000), "a\n\nb\n");
}

#[test]
fn wrapped_rows_become_one_line_and_wide_chars_stay_whole() {
    let long = "0123456789".repeat(5);
    let s = screen(
        10,
        20,
        &format!("{long}\r\n日本語テキスト日本語テキスト\r\n"),
    );
    assert_eq!(
        s.history_for_tail(1000),
        format!("{long}\n日本語テキスト日本語テキスト\n")
    );
}

#[test]
fn a_line_longer_than_the_budget_is_cut_at_a_row() {
    let long: String = (0..400)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    let s = screen(10, 20, &format!("\x1b[32m{long}\x1b[0m\r\n"));
    let tail = s.history_for_tail(100);
    assert!(!tail.is_empty() && tail.len() <= 100, "{tail:?}");
    assert_valid_sgr(&tail);
    let plain = strip_sgr(&tail);
    let plain = plain.trim_end_matches('\n');
    assert_eq!(plain.len() % 20, 0, "whole rows: {plain:?}");
    assert!(long.ends_with(plain));
}

#[test]
fn alternate_screen_frame_follows_the_primary_history() {
    let s = screen(
        5,
        20,
        "$ agent\r\n\x1b[?1049h\x1b[H\x1b[44m status \x1b[0m\x1b[3;1Hthinking",
    );
    assert_eq!(
        s.history_for_tail(1000),
        "$ agent\n\x1b[0;44m status \x1b[0m\n\nthinking\n"
    );
    // Reading the primary screen left the alternate one intact.
    assert!(s.alt_screen());
    assert_eq!(s.screen_text(Style::Plain), " status\n\nthinking");
}

#[test]
fn restore_shows_history_then_separator_then_new_output() {
    let old = screen(24, 80, &coloured_log(100));
    let tail = old.history_for_tail(64 * 1024);

    let mut restored = Screen::new(Size { rows: 6, cols: 40 }, 1000);
    restored.load_history(&tail);
    let text = restored.screen_text(Style::Plain);
    assert_eq!(
        text,
        format!(
            "line 00096 plain tail 96\nline 00097 plain tail 97\nline 00098 plain tail 98\nline 00099 plain tail 99\n{RESTORED_SEPARATOR}"
        )
    );
    assert_eq!(restored.cursor(), (5, 0, true));
    // History scrolled into the scrollback, colours intact.
    let all = restored.tail_text(1000, Style::Ansi);
    assert!(
        all.starts_with("\x1b[0;30mline 00000\x1b[0m plain tail 0\n"),
        "{all:?}"
    );
    assert!(all.contains(&format!("\x1b[0;2m{RESTORED_SEPARATOR}\x1b[0m")));

    let mut events = Vec::new();
    restored.feed(b"$ new prompt", &mut events);
    let text = restored.screen_text(Style::Plain);
    assert!(
        text.ends_with(&format!(
            "line 00099 plain tail 99\n{RESTORED_SEPARATOR}\n$ new prompt"
        )),
        "{text}"
    );
}

#[test]
fn restore_with_custom_label_and_empty_tail() {
    let mut s = Screen::new(Size { rows: 5, cols: 40 }, 100);
    s.load_history("");
    s.load_history("  \n\n");
    assert_eq!(s.screen_text(Style::Plain), "");
    s.load_history_with_label("one\ntwo", "── restored 12:00 ──");
    assert_eq!(
        s.screen_text(Style::Plain),
        "one\ntwo\n── restored 12:00 ──"
    );
}

#[test]
fn restore_ignores_everything_but_text_and_colour() {
    let mut s = Screen::new(Size { rows: 5, cols: 40 }, 100);
    s.load_history("\x1b]2;pwned\x07\x1b[?1049h\x1b[2J\x1b[31mred\x1b[0m\x07\x1b[10;10Hx\n");
    assert_eq!(s.title(), "");
    assert!(!s.alt_screen());
    assert_eq!(
        s.screen_text(Style::Ansi),
        format!("\x1b[0;31mred\x1b[0mx\n\x1b[0;2m{RESTORED_SEPARATOR}\x1b[0m")
    );
}

#[test]
fn wide_characters_in_history_stay_whole_through_resizes() {
    let wide = "日本語テキスト".repeat(2);
    let mut s = Screen::new(Size { rows: 4, cols: 9 }, 100);
    // 9 columns hold four wide characters and a spacer: the line wraps
    // with a spacer at the end of each row, then scrolls into history.
    s.feed(
        format!("{wide}\r\n{}", "x\r\n".repeat(6)).as_bytes(),
        &mut Vec::new(),
    );
    let before = s.history_for_tail(usize::MAX);
    assert!(before.starts_with(&format!("{wide}\n")), "{before:?}");
    let chars: Vec<char> = wide.chars().collect();
    for cols in [10, 7, 2, 9, 80] {
        s.resize(Size { rows: 4, cols });
        assert_eq!(s.history_for_tail(usize::MAX), before, "at {cols} columns");
        // Scrolled to the top, the rows hold as many whole wide
        // characters as fit.
        let top = s.scrolled_rows(s.history_rows(), Style::Plain);
        let expected: Vec<String> = chars
            .chunks(usize::from(cols) / 2)
            .map(|row| row.iter().collect())
            .take(top.len())
            .collect();
        assert_eq!(top[..expected.len()], expected[..], "at {cols} columns");
    }
}

#[test]
fn resizing_back_and_forth_keeps_every_history_line() {
    let size = Size { rows: 24, cols: 80 };
    // Room for every line: at the bound, rows a narrower screen pushes
    // into history would evict the oldest lines.
    let mut s = Screen::new(size, 10_000);
    let log: String = (0..3_000)
        .map(|i| {
            let words = "lorem ipsum dolor ".repeat(i % 9);
            format!("\x1b[3{}m{i:04}\x1b[0m {words}\r\n", i % 8)
        })
        .collect();
    s.feed(log.as_bytes(), &mut Vec::new());
    s.feed(b"$ ", &mut Vec::new());
    let tail = s.history_for_tail(usize::MAX);
    let rows = s.history_rows();
    for cols in [30, 200, 13, 80] {
        s.resize(Size { rows: 24, cols });
        assert_eq!(s.history_for_tail(usize::MAX), tail, "at {cols} columns");
    }
    assert_eq!(s.history_rows(), rows);
    assert_eq!(s.screen_text(Style::Plain).lines().last(), Some("$"));
    // Narrower, the same lines take more rows; wider, fewer.
    s.resize(Size { rows: 24, cols: 40 });
    assert!(s.history_rows() > rows);
    s.resize(Size {
        rows: 24,
        cols: 160,
    });
    assert!(s.history_rows() < rows);
}
