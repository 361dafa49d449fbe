//! What the screen shows, as text.

use signaltty_screen::{Screen, ScreenEvent, Size, Style};

fn screen(rows: u16, cols: u16, scrollback: usize, input: &str) -> Screen {
    let mut screen = Screen::new(Size { rows, cols }, scrollback);
    let mut events: Vec<ScreenEvent> = Vec::new();
    screen.feed(input.as_bytes(), &mut events);
    screen
}

#[test]
fn plain_text_is_trimmed_per_row_and_at_the_bottom() {
    let s = screen(10, 20, 100, "hello   \r\n\r\n  world\r\n\r\n");
    assert_eq!(s.screen_text(Style::Plain), "hello\n\n  world");
    assert_eq!(s.size(), Size { rows: 10, cols: 20 });
}

#[test]
fn empty_screen_is_empty_text() {
    let s = screen(5, 10, 0, "");
    assert_eq!(s.screen_text(Style::Plain), "");
    assert_eq!(s.screen_text(Style::Ansi), "");
    assert_eq!(s.tail_text(10, Style::Plain), "");
}

#[test]
fn colours_survive_in_ansi_style_only() {
    let s = screen(
        5,
        40,
        0,
        "\x1b[31mred\x1b[0m plain \x1b[1;38;5;208mbold\x1b[0m\r\n\x1b[48;2;1;2;3mbg\x1b[0m",
    );
    assert_eq!(s.screen_text(Style::Plain), "red plain bold\nbg");
    assert_eq!(
        s.screen_text(Style::Ansi),
        "\x1b[0;31mred\x1b[0m plain \x1b[0;1;38;5;208mbold\x1b[0m\n\x1b[0;48;2;1;2;3mbg\x1b[0m"
    );
}

#[test]
fn ansi_keeps_visible_coloured_blanks_plain_drops_them() {
    let s = screen(3, 10, 0, "ab\x1b[44m   \x1b[0m   ");
    assert_eq!(s.screen_text(Style::Plain), "ab");
    assert_eq!(s.screen_text(Style::Ansi), "ab\x1b[0;44m   \x1b[0m");
}

#[test]
fn wide_chars_and_combining_marks_appear_once() {
    let s = screen(3, 10, 0, "日本語x e\u{301}");
    assert_eq!(s.screen_text(Style::Plain), "日本語x e\u{301}");
}

#[test]
fn hidden_text_and_tabs_read_as_blanks() {
    let s = screen(3, 20, 0, "a\tb \x1b[8msecret\x1b[28m!");
    assert_eq!(s.screen_text(Style::Plain), "a       b       !");
}

#[test]
fn tail_includes_scrollback_and_ignores_trailing_empty_rows() {
    let mut input = String::new();
    for i in 0..30 {
        input += &format!("line {i}\r\n");
    }
    let s = screen(5, 20, 100, &input);
    // The screen holds lines 26..=29 and an empty cursor row.
    assert_eq!(
        s.screen_text(Style::Plain),
        "line 26\nline 27\nline 28\nline 29"
    );
    assert_eq!(s.tail_text(3, Style::Plain), "line 27\nline 28\nline 29");
    assert_eq!(s.tail_text(8, Style::Plain).lines().next(), Some("line 22"));
    assert_eq!(s.tail_text(1000, Style::Plain).lines().count(), 30);
    assert_eq!(s.tail_text(0, Style::Plain), "");
    let ansi = screen(5, 20, 100, "\x1b[32mgreen\x1b[0m\r\nx\r\n");
    assert_eq!(ansi.tail_text(2, Style::Ansi), "\x1b[0;32mgreen\x1b[0m\nx");
}

#[test]
fn alt_screen_and_cursor_are_reported() {
    let mut s = screen(5, 20, 100, "shell\x1b[?1049h\x1b[3;4Hvim");
    assert!(s.alt_screen());
    assert_eq!(s.cursor(), (2, 6, true));
    assert_eq!(s.screen_text(Style::Plain), "\n\n   vim");
    let mut events = Vec::new();
    s.feed(b"\x1b[?25l\x1b[?1049l", &mut events);
    assert!(!s.alt_screen());
    assert_eq!(s.cursor(), (0, 5, false));
    assert_eq!(s.screen_text(Style::Plain), "shell");
}

#[test]
fn resize_reflows_and_clamps() {
    let mut s = screen(4, 10, 100, "0123456789abcdef");
    assert_eq!(s.screen_text(Style::Plain), "0123456789\nabcdef");
    s.resize(Size { rows: 4, cols: 20 });
    assert_eq!(s.screen_text(Style::Plain), "0123456789abcdef");
    s.resize(Size { rows: 0, cols: 0 });
    assert_eq!(s.size(), Size { rows: 1, cols: 2 });
    s.resize(Size {
        rows: u16::MAX,
        cols: u16::MAX,
    });
    assert_eq!(
        s.size(),
        Size {
            rows: signaltty_screen::MAX_DIMENSION,
            cols: signaltty_screen::MAX_DIMENSION
        }
    );
}

#[test]
fn screen_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Screen>();
}
