//! No input may panic the screen, however it is chunked.

use proptest::prelude::*;
use signaltty_screen::{Screen, ScreenEvent, Size, Style};

/// Bytes biased towards what parsers branch on, so short inputs still reach
/// deep states (OSC/DCS/CSI, UTF-8 fragments, C1).
fn byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        3 => any::<u8>(),
        2 => prop::sample::select(b"\x1b[]P\\;:?0123456789mHJKrhl\x07\x18\x1a\x9b\x9d\x9c\xe6\x97\xa5 \r\n\t".to_vec()),
    ]
}

fn exercise(screen: &mut Screen, size: Size) {
    let _ = screen.screen_text(Style::Plain);
    let _ = screen.screen_text(Style::Ansi);
    let _ = screen.tail_text(5, Style::Ansi);
    let tail = screen.history_for_tail(2048);
    assert!(tail.len() <= 2048);
    let replay = screen.replay();
    let mut copy = Screen::new(size, 10);
    let mut events = Vec::new();
    copy.feed(&replay, &mut events);
    let _ = screen.cursor();
    let _ = screen.alt_screen();
    let mut restored = Screen::new(size, 10);
    restored.load_history(&tail);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_in_arbitrary_chunks_never_panic(
        bytes in prop::collection::vec(byte(), 0..3000),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..20),
        rows in 1u16..12,
        cols in 0u16..30,
        resize_to in (0u16..20, 0u16..40),
    ) {
        let size = Size { rows, cols };
        let mut screen = Screen::new(size, 50);
        let mut cuts: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
        cuts.sort_unstable();
        let mut events: Vec<ScreenEvent> = Vec::new();
        let mut start = 0;
        for (n, cut) in cuts.into_iter().chain([bytes.len()]).enumerate() {
            screen.feed(&bytes[start..cut], &mut events);
            start = cut;
            if n == 3 {
                screen.resize(Size { rows: resize_to.0, cols: resize_to.1 });
            }
        }
        for event in &events {
            match event {
                ScreenEvent::Title(t) => prop_assert!(t.chars().count() <= 256 && !t.chars().any(char::is_control)),
                ScreenEvent::Notify { title, body, .. } => {
                    prop_assert!(!title.chars().any(char::is_control) && !body.chars().any(char::is_control));
                },
                _ => {},
            }
        }
        let size = screen.size();
        exercise(&mut screen, size);
    }
}
