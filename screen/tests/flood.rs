//! Hostile output must not grow memory. Alone in its binary because it
//! counts every allocation of the process.

#[path = "support/counting.rs"]
mod counting;

use signaltty_screen::{Screen, ScreenEvent, Size, Style};

#[test]
fn unterminated_osc_flood_is_bounded_and_parsing_recovers() {
    let mut screen = Screen::new(Size { rows: 10, cols: 40 }, 100);
    let mut events: Vec<ScreenEvent> = Vec::new();
    screen.feed(b"before\r\n", &mut events);
    let chunk = vec![b'A'; 4096];
    for kind in [
        &b"\x1b]0;"[..],
        b"\x1b]9;",
        b"\x1b]777;notify;",
        b"\x1b]52;c;",
    ] {
        screen.feed(kind, &mut events);
        // Warm up, then measure: the first chunks may size buffers up to
        // their caps.
        for _ in 0..16 {
            screen.feed(&chunk, &mut events);
        }
        let before = counting::live_bytes();
        for _ in 0..256 {
            screen.feed(&chunk, &mut events); // 1 MiB in total
        }
        let grown = counting::live_bytes().saturating_sub(before);
        assert!(
            grown < 64 * 1024,
            "memory grew by {grown} bytes during a 1 MiB OSC"
        );
        // The terminating BEL ends the (dropped) OSC and does not ring.
        screen.feed(b"\x07after\r\n", &mut events);
    }
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(screen.title(), "");
    assert_eq!(
        screen.screen_text(Style::Plain),
        "before\nafter\nafter\nafter\nafter"
    );
    screen.feed(b"\x1b]2;ok\x07\x07", &mut events);
    assert_eq!(events, [ScreenEvent::Title("ok".into()), ScreenEvent::Bell]);
}
