//! A screen kept as bytes while nobody looks at it.

use signaltty_screen::{Screen, ScreenEvent, Size, Style};

fn feed(screen: &mut Screen, bytes: &[u8]) -> Vec<ScreenEvent> {
    let mut events = Vec::new();
    screen.feed(bytes, &mut events);
    events
}

fn seq(lines: usize) -> String {
    (1..=lines).map(|i| format!("{i}\r\n")).collect()
}

#[test]
fn a_frozen_screen_is_its_replay_and_history() {
    let mut screen = Screen::new(Size { rows: 24, cols: 80 }, 2_000);
    feed(&mut screen, seq(12_000).as_bytes());
    feed(&mut screen, b"\x1b]2;building\x07\x1b[32m$ \x1b[0m");
    let replay = screen.replay();
    let tail = screen.tail_text(5, Style::Plain);
    let live = screen.heap_bytes();

    let frozen = screen.freeze();
    assert_eq!(frozen.replay(), &replay[..]);
    assert_eq!(frozen.title(), "building");
    assert_eq!(frozen.size(), Size { rows: 24, cols: 80 });
    // Both keep the history; the frozen one keeps bytes for the grid.
    assert!(
        frozen.heap_bytes() < live,
        "frozen {} vs live {live}",
        frozen.heap_bytes()
    );

    let screen = frozen.thaw();
    assert_eq!(screen.tail_text(5, Style::Plain), tail);
    assert_eq!(screen.title(), "building");
    assert_eq!(screen.history_rows(), 2_000);
    assert!(
        screen
            .history_for_tail(usize::MAX)
            .starts_with("9978\n9979\n")
    );
}

#[test]
fn output_cut_inside_a_sequence_goes_on_after_a_thaw() {
    let mut screen = Screen::new(Size { rows: 5, cols: 20 }, 10);
    feed(&mut screen, b"plain \x1b[3");
    let mut screen = screen.freeze().thaw();
    feed(&mut screen, b"1mred\x1b[0m \x1b]0;ti");
    let mut screen = screen.freeze().thaw();
    let events = feed(&mut screen, b"tle\x07");
    assert_eq!(events, [ScreenEvent::Title("title".into())]);
    assert_eq!(
        screen.screen_text(Style::Ansi),
        "plain \x1b[0;31mred\x1b[0m"
    );
}

#[test]
fn a_thawed_screen_scrolls_its_history_like_before() {
    let mut screen = Screen::new(Size { rows: 4, cols: 10 }, 100);
    feed(&mut screen, seq(30).as_bytes());
    let before: Vec<_> = (0..30)
        .map(|o| screen.scrolled_rows(o, Style::Plain))
        .collect();
    let screen = screen.freeze().thaw();
    let after: Vec<_> = (0..30)
        .map(|o| screen.scrolled_rows(o, Style::Plain))
        .collect();
    assert_eq!(before, after);
    assert_eq!(after[0], ["28", "29", "30", ""]);
    assert_eq!(after[27], ["1", "2", "3", "4"]);
    assert_eq!(after[29], after[27], "scrolling stops at the oldest row");
}

#[test]
fn a_frozen_screen_can_move_between_threads() {
    fn check<T: Send + Sync>() {}
    check::<signaltty_screen::FrozenScreen>();
}

/// Output a replay alone would not carry through a freeze (the property
/// test `thawing_gives_the_screen_back` found these).
#[test]
fn state_no_replay_carries_survives_a_thaw() {
    let size = Size { rows: 4, cols: 16 };
    let cases: [(&[u8], &[u8], &str); 4] = [
        // A full-screen program saves its cursor, leaves, and later comes
        // back to restore it: alacritty keeps the alternate screen's slot.
        (
            b"\x1b[?1049h\x1b[3;7H\x1b7\x1b[?1049l$ ",
            b"\x1b[?1049h\x1b8here",
            "\n\n      here",
        ),
        // DECSC with a wrap pending: restoring it wraps first.
        (
            b"0123456789abcdef\x1b7\r\n",
            b"\x1b8X",
            "0123456789abcdef\nX",
        ),
        // Entering the alternate screen with a wrap pending, and leaving.
        (
            b"0123456789abcdef\x1b[?1049h",
            b"\x1b[?1049lX",
            "0123456789abcdef\nX",
        ),
        // A wrap pending on a row that soft-wraps already: the wrap stays.
        (
            b"\x1b[2;1H0123456789abcdefg\x1b[1;1H0123456789abcdef\n",
            b"",
            "0123456789abcdef\n0123456789abcdef\ng",
        ),
    ];
    for (before, after, text) in cases {
        let mut live = Screen::new(size, 10);
        feed(&mut live, before);
        let mut thawed = Screen::new(size, 10);
        feed(&mut thawed, before);
        let mut thawed = thawed.freeze().thaw();
        assert_eq!(thawed.replay(), live.replay(), "{before:?}");
        feed(&mut live, after);
        feed(&mut thawed, after);
        assert_eq!(live.screen_text(Style::Plain), text, "{before:?}");
        assert_eq!(thawed.screen_text(Style::Plain), text, "{before:?}");
        assert_eq!(thawed.cursor(), live.cursor(), "{before:?}");
        assert_eq!(
            thawed.history_for_tail(usize::MAX),
            live.history_for_tail(usize::MAX),
            "{before:?}"
        );
    }
}

#[test]
fn a_thaw_keeps_the_count_of_fresh_lines() {
    let mut screen = Screen::new(Size { rows: 5, cols: 20 }, 100);
    feed(&mut screen, seq(12).as_bytes());
    let counted = screen.fresh_lines();
    assert!(counted >= 12, "{counted}");
    let mut thawed = screen.freeze().thaw();
    assert_eq!(thawed.fresh_lines(), counted);
    // Repainting what is on screen is not new; a line scrolled in is.
    feed(&mut thawed, b"\x1b[H\x1b[2K1\r\n");
    assert_eq!(thawed.fresh_lines(), counted);
    feed(&mut thawed, b"\x1b[5;1H\r\nnew line");
    assert_eq!(thawed.fresh_lines(), counted + 1);
}
