//! Frozen screens through bytes: what a live upgrade hands the new process.

use proptest::prelude::*;

use super::{assert_same_for_readers, screen_of, thawable_token};
use crate::{DecodeError, FORMAT_VERSION, FrozenScreen, Screen, Size, Style};

/// `screen` through its bytes and back, as the new process gets it.
fn handed_over(screen: Screen) -> Screen {
    let frozen = screen.freeze();
    let bytes = frozen.encode();
    let decoded = FrozenScreen::decode(&bytes).expect("an encoding decodes");
    assert_eq!(decoded.replay(), frozen.replay());
    assert_eq!(decoded.title(), frozen.title());
    assert_eq!(decoded.encode(), bytes, "decoding loses nothing");
    decoded.thaw()
}

/// Output that is cut most interestingly: titles and notifications
/// (withheld by the OSC scanner), strings vte passes nobody, controls
/// inside a sequence's parameters, characters of every UTF-8 length.
fn handover_token() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => thawable_token(),
        2 => prop::sample::select(vec![
            "\x1b]0;héllo wörld\x07", "\x1b]2;日本\x1b\\", "\x1b]7;file://h/tmp/a%20b\x07",
            "\x1b]9;done\x07", "\x1b]99;i=1:d=0:p=title;Build\x1b\\", "\x1b]99;i=1:p=body;ok\x07",
            "\x1b]777;notify;t;b\x07", "\x1b]8;id=x;http://e.x\x1b\\link\x1b]8;;\x1b\\",
            "\x1bP1$qm\x1b\\", "\x1b_apc body\x1b\\", "\x1b^pm\x07\x1b\\", "\x1b[3\n1mred",
            "\x1b[38;2;1;2;3m", "\x1b[58:2::9:8:7m", "\x1b[?2026h\x1b[?2026l", "😀", "é", "日本語",
            "\x1b[?1049h", "\x1b[?1049l", "\x1b7", "\x1b8",
        ])
        .prop_map(str::to_owned),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    /// Output cut anywhere (inside an escape sequence, an OSC title, a
    /// UTF-8 character) and handed over at each cut reads the same as on a
    /// screen that was fed the same chunks and never handed over. (Not
    /// always as one fed it all at once: vte 0.15 completing a character
    /// split across chunks skips the bytes after it when the three it
    /// looks at end in another partial one, as in `ü` cut after its first
    /// byte and followed by `e\u{301}`.)
    #[test]
    fn a_handover_anywhere_in_the_output_changes_nothing(
        tokens in prop::collection::vec(
            prop_oneof![4 => handover_token(), 1 => Just("line\r\n".to_owned())], 0..100),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 1..4),
        split in any::<prop::sample::Index>(),
    ) {
        let size = Size { rows: 8, cols: 16 };
        let output = tokens.concat().into_bytes();
        let mut cuts: Vec<usize> = cuts.iter().map(|cut| cut.index(output.len() + 1)).collect();
        cuts.sort_unstable();
        let (mut kept, mut handed) = (Screen::new(size, 100), Screen::new(size, 100));
        let (mut events, mut handed_events) = (Vec::new(), Vec::new());
        let mut from = 0;
        for cut in cuts {
            // Two chunks between handovers, as output comes.
            let (first, second) = output[from..cut].split_at(split.index(cut - from + 1));
            for chunk in [first, second] {
                kept.feed(chunk, &mut events);
                handed.feed(chunk, &mut handed_events);
            }
            handed = handed_over(handed);
            from = cut;
        }
        kept.feed(&output[from..], &mut events);
        handed.feed(&output[from..], &mut handed_events);
        prop_assert_eq!(handed_events, events);
        assert_same_for_readers(&kept, &handed)?;
    }
}

#[test]
fn a_long_coloured_scrollback_crosses_exactly() {
    let size = Size { rows: 24, cols: 80 };
    let mut output = String::new();
    for i in 0..3_000 {
        output.push_str(&format!(
            "\x1b[3{}m{i:05}\x1b[0m \x1b[48;5;{}m日本語\x1b[0m wide 😀 e\u{301}",
            i % 8,
            i % 256
        ));
        if i % 7 == 0 {
            // Long enough to wrap, with a wide char across the edge.
            output.push_str(&"x".repeat(i % 80 + 60));
            output.push('語');
        }
        output.push_str("\r\n");
    }
    output.push_str("\x1b]2;long\x07\x1b[1;31mprompt$ ");
    let screen = || {
        let mut screen = Screen::new(size, 2_000);
        screen.feed(output.as_bytes(), &mut Vec::new());
        screen
    };
    let (original, handed) = (screen(), handed_over(screen()));
    assert!(original.history_rows() > 2_000);
    assert_eq!(handed.history_rows(), original.history_rows());
    for style in [Style::Plain, Style::Ansi] {
        assert_eq!(
            handed.tail_text(usize::MAX, style),
            original.tail_text(usize::MAX, style)
        );
    }
    for offset in (0..=original.history_rows()).step_by(97) {
        assert_eq!(
            handed.scrolled_rows(offset, Style::Ansi),
            original.scrolled_rows(offset, Style::Ansi),
            "scrolled back {offset} rows"
        );
    }
    assert_eq!(
        handed.history_for_tail(usize::MAX),
        original.history_for_tail(usize::MAX)
    );
    assert_eq!(handed.title(), "long");
    assert_eq!(handed.replay(), original.replay());
}

#[test]
fn a_string_longer_than_what_is_kept_still_ends_where_it_did() {
    let size = Size { rows: 4, cols: 20 };
    let body = "x".repeat(100 * 1024);
    let before = format!("text \x1bP1;2q{body}");
    let after = format!("{body}\x1b\\after");
    let mut screen = screen_of(size, before.as_bytes());
    let frozen = screen.freeze();
    assert!(frozen.parser_bytes_dropped());
    let decoded = FrozenScreen::decode(&frozen.encode()).expect("decodes");
    assert!(decoded.parser_bytes_dropped());
    screen = decoded.thaw();
    screen.feed(after.as_bytes(), &mut Vec::new());
    assert_eq!(screen.screen_text(Style::Plain), "text after");
    let mut whole = screen_of(size, before.as_bytes());
    whole.feed(after.as_bytes(), &mut Vec::new());
    assert_same_for_readers(&whole, &screen).expect("the same screen");
    let frozen = screen.freeze();
    assert!(!frozen.parser_bytes_dropped(), "the sequence ended");
}

#[test]
fn another_format_version_is_refused() {
    let mut bytes = screen_of(Size { rows: 4, cols: 10 }, b"hi")
        .freeze()
        .encode();
    let version = 8..10; // after the magic
    assert_eq!(bytes[version.clone()], FORMAT_VERSION.to_le_bytes());
    bytes[version].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    let error = FrozenScreen::decode(&bytes).expect_err("a newer format");
    assert_eq!(
        error,
        DecodeError::Version {
            found: FORMAT_VERSION + 1
        }
    );
    assert_eq!(
        error.to_string(),
        format!(
            "frozen screen format version {} is not the version {FORMAT_VERSION} this build reads",
            FORMAT_VERSION + 1
        )
    );
    assert_eq!(
        FrozenScreen::decode(b"{\"rows\": 24}").err(),
        Some(DecodeError::NotFrozen)
    );
}

/// A screen with something in every part of the format: history, the
/// alternate screen, saved cursors with a pen and a link, a title, a
/// kitty notification and an OSC body half read.
fn everything_encoded() -> Vec<u8> {
    let mut screen = Screen::new(Size { rows: 6, cols: 12 }, 50);
    let output = "\x1b[31mred\x1b[0m line\r\n".repeat(20)
        + "\x1b[4:3;58;5;9m\x1b]8;id=a;http://x\x1b\\\x1b7\x1b]2;title\x07"
        + "\x1b]99;i=3:d=0;chunk\x07\x1b[?1049h\x1b[44m\x1b7alt 語\x1b]0;half";
    screen.feed(output.as_bytes(), &mut Vec::new());
    screen.freeze().encode()
}

/// Whatever decodes must make a screen that works: read it every way,
/// write to it, resize it.
fn exercise(frozen: FrozenScreen) {
    let _ = (frozen.size(), frozen.title(), frozen.heap_bytes());
    let mut screen = frozen.thaw();
    let mut events = Vec::new();
    screen.feed(
        b"\x07\x1b\\more \xe6\x97\xa5\x1b8\x1b[?1049l\x1b8\x1b[b\r\n\r\n",
        &mut events,
    );
    for rows in [3, 9] {
        screen.resize(Size { rows, cols: 7 });
        let _ = screen.tail_text(usize::MAX, Style::Ansi);
        let _ = screen.scrolled_rows(screen.history_rows(), Style::Ansi);
        let _ = screen.history_for_tail(usize::MAX);
        let _ = screen.replay();
    }
    let _ = FrozenScreen::decode(&screen.freeze().encode()).map(FrozenScreen::thaw);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random bytes, and a real encoding cut short or with bits flipped,
    /// decode to an error or to a screen that works; never a panic.
    #[test]
    fn damaged_bytes_decode_to_an_error_or_a_working_screen(
        noise in prop::collection::vec(any::<u8>(), 0..400),
        cut in any::<prop::sample::Index>(),
        flips in prop::collection::vec((any::<prop::sample::Index>(), 0u8..8), 1..8),
    ) {
        prop_assert!(FrozenScreen::decode(&noise).is_err());
        let real = everything_encoded();
        // The header and then noise: past the magic, into the parts.
        let mut headed = real[..14].to_vec();
        headed.extend_from_slice(&noise);
        if let Ok(frozen) = FrozenScreen::decode(&headed) {
            exercise(frozen);
        }
        let cut = cut.index(real.len());
        prop_assert!(FrozenScreen::decode(&real[..cut]).is_err(), "cut at {}", cut);
        let mut flipped = real.clone();
        for (at, bit) in &flips {
            flipped[at.index(real.len())] ^= 1 << bit;
        }
        if let Ok(frozen) = FrozenScreen::decode(&flipped) {
            exercise(frozen);
        }
    }
}

#[test]
fn the_damaged_encoding_is_whole_before_damage() {
    // The fuzz property starts from an encoding that decodes.
    let frozen = FrozenScreen::decode(&everything_encoded()).expect("decodes");
    assert_eq!(frozen.title(), "title");
    exercise(frozen);
}
