//! OSC side channel, bells and replies, fed whole and split at every byte.

use signaltty_screen::{NotifySource, Screen, ScreenEvent, Size, Style};

fn new_screen() -> Screen {
    Screen::new(Size { rows: 10, cols: 40 }, 100)
}

fn feed(screen: &mut Screen, bytes: &[u8]) -> Vec<ScreenEvent> {
    let mut events = Vec::new();
    screen.feed(bytes, &mut events);
    events
}

/// Events (and screen text) must not depend on how the bytes are chunked:
/// checks every two-way split and byte-at-a-time.
fn events_for_every_split(bytes: &[u8]) -> (Vec<ScreenEvent>, String) {
    let mut whole = new_screen();
    let expected = feed(&mut whole, bytes);
    let text = whole.screen_text(Style::Plain);
    for split in 0..=bytes.len() {
        let mut s = new_screen();
        let mut events = feed(&mut s, &bytes[..split]);
        events.extend(feed(&mut s, &bytes[split..]));
        assert_eq!(
            events,
            expected,
            "split at {split} of {:?}",
            String::from_utf8_lossy(bytes)
        );
        assert_eq!(s.screen_text(Style::Plain), text, "split at {split}");
    }
    let mut s = new_screen();
    let events: Vec<_> = bytes
        .iter()
        .flat_map(|b| feed(&mut s, std::slice::from_ref(b)))
        .collect();
    assert_eq!(events, expected, "byte at a time");
    (expected, text)
}

fn notify(source: NotifySource, title: &str, body: &str) -> ScreenEvent {
    ScreenEvent::Notify {
        source,
        title: title.into(),
        body: body.into(),
    }
}

#[test]
fn title_from_osc_0_and_2_split_anywhere() {
    let (events, text) =
        events_for_every_split(b"a\x1b]0;first title\x07b\x1b]2;second \xe2\x9c\x93\x1b\\c");
    assert_eq!(
        events,
        [
            ScreenEvent::Title("first title".into()),
            ScreenEvent::Title("second ✓".into())
        ]
    );
    assert_eq!(text, "abc");
    let mut s = new_screen();
    feed(&mut s, b"\x1b]2;kept\x07");
    assert_eq!(s.title(), "kept");
}

#[test]
fn title_is_sanitized_capped_and_deduplicated() {
    let mut s = new_screen();
    let long = "x".repeat(1000);
    let events = feed(
        &mut s,
        format!("\x1b]2;\u{9b}31mev\u{202e}il\u{85}\x07\x1b]2;{long}\x07\x1b]2;{long}\x07")
            .as_bytes(),
    );
    assert_eq!(
        events,
        [
            ScreenEvent::Title("evil".into()),
            ScreenEvent::Title("x".repeat(256))
        ]
    );
}

#[test]
fn title_resets_to_empty() {
    let mut s = new_screen();
    feed(&mut s, b"\x1b]2;t\x07");
    assert_eq!(
        feed(&mut s, b"\x1b]2;\x07"),
        [ScreenEvent::Title(String::new())]
    );
    feed(&mut s, b"\x1b]2;t\x07");
    assert_eq!(feed(&mut s, b"\x1bc"), [ScreenEvent::Title(String::new())]);
    assert_eq!(s.title(), "");
    // Title stack: push, change, pop restores.
    feed(&mut s, b"\x1b]2;outer\x07\x1b[22t\x1b]2;inner\x07");
    assert_eq!(
        feed(&mut s, b"\x1b[23t"),
        [ScreenEvent::Title("outer".into())]
    );
}

#[test]
fn cwd_is_percent_decoded() {
    let (events, _) =
        events_for_every_split(b"\x1b]7;file://my-host/home/me/with%20space/%C3%A9\x1b\\");
    assert_eq!(events, [ScreenEvent::Cwd("/home/me/with space/é".into())]);
    let mut s = new_screen();
    assert!(
        feed(
            &mut s,
            b"\x1b]7;file://host/bad%zz\x07\x1b]7;not a url\x07\x1b]7;file://host\x07"
        )
        .is_empty()
    );
}

#[test]
fn osc_9_notification_split_anywhere() {
    let (events, text) =
        events_for_every_split(b"x\x1b]9;Build finished\x01\xe2\x80\xae\t(3 tests)\x07y");
    assert_eq!(
        events,
        [notify(NotifySource::Osc9, "", "Build finished (3 tests)")]
    );
    assert_eq!(text, "xy");
}

#[test]
fn osc_9_subcommands_are_not_notifications() {
    let mut s = new_screen();
    assert!(
        feed(
            &mut s,
            b"\x1b]9;4;1;50\x07\x1b]9;4;0\x1b\\\x1b]9;9;/tmp\x07"
        )
        .is_empty()
    );
}

#[test]
fn osc_777_notification_split_anywhere() {
    let (events, _) =
        events_for_every_split(b"\x1b]777;notify;Agent \xf0\x9f\xa4\x96;needs input; now\x1b\\");
    assert_eq!(
        events,
        [notify(NotifySource::Osc777, "Agent 🤖", "needs input; now")]
    );
    let mut s = new_screen();
    assert!(feed(&mut s, b"\x1b]777;preexec;x\x07").is_empty());
}

#[test]
fn osc_99_notification_split_anywhere() {
    let (events, _) = events_for_every_split(
        b"\x1b]99;i=7:d=0:p=title;Done\x1b\\\x1b]99;i=7:p=body;all \x1b[31mgreen\x07",
    );
    // The ESC ends the OSC (as in any terminal); "[31mgreen" is then CSI
    // text on screen, and the BEL after it is a real bell.
    assert_eq!(
        events,
        [
            notify(NotifySource::Osc99, "Done", "all"),
            ScreenEvent::Bell
        ]
    );
    let (events, _) = events_for_every_split(b"\x1b]99;;plain body\x07\x1b]99;e=1;aGk=\x07");
    assert_eq!(
        events,
        [
            notify(NotifySource::Osc99, "", "plain body"),
            notify(NotifySource::Osc99, "", "hi")
        ]
    );
}

#[test]
fn notification_payload_is_sanitized_and_capped() {
    let mut s = new_screen();
    let body = format!("a\x02b\u{9b}1;31mc\u{90}dcs\u{9c}d{}", "z".repeat(5000));
    let events = feed(&mut s, format!("\x1b]9;{body}\x07").as_bytes());
    let [ScreenEvent::Notify { body, .. }] = &events[..] else {
        panic!("{events:?}")
    };
    assert!(body.starts_with("abcdzzz"), "{body}");
    assert_eq!(body.chars().count(), signaltty_screen::MAX_BODY_CHARS);
}

#[test]
fn bel_rings_outside_strings_only() {
    let (events, _) = events_for_every_split(b"a\x07b\x1b]0;t\x07c\x1bPq\x07\x1b\\d\x1b[1\x07m");
    // Plain BEL rings; OSC-terminating BEL does not; BEL inside DCS does not;
    // BEL inside a CSI is executed, as by xterm.
    assert_eq!(
        events,
        [
            ScreenEvent::Bell,
            ScreenEvent::Title("t".into()),
            ScreenEvent::Bell
        ]
    );
}

#[test]
fn cursor_position_report_is_answered() {
    let mut s = new_screen();
    let events = feed(&mut s, b"\x1b[5;12Habc\x1b[6n");
    assert_eq!(events, [ScreenEvent::Reply(b"\x1b[5;15R".to_vec())]);
    assert_eq!(
        feed(&mut s, b"\x1b[5n"),
        [ScreenEvent::Reply(b"\x1b[0n".to_vec())]
    );
}

/// Regression: Claude Code asks XTVERSION and, given no answer, turns on
/// no keyboard protocol; DA2 answered with alacritty's version.
#[test]
fn the_terminal_says_it_is_signaltty() {
    let version = env!("CARGO_PKG_VERSION");
    let xtversion = format!("\x1bP>|signaltty {version}\x1b\\").into_bytes();
    for asked in [&b"\x1b[>0q"[..], b"\x1b[>q"] {
        let (events, screen) = events_for_every_split(&[b"a", asked, b"b"].concat());
        assert_eq!(events, [ScreenEvent::Reply(xtversion.clone())], "{asked:?}");
        assert_eq!(screen, "ab", "{asked:?} leaves nothing on the screen");
    }
    // Not XTVERSION: another parameter, an intermediate, no marker (the
    // last is DECSCUSR's cousin and sets nothing either).
    for other in [&b"\x1b[>1q"[..], b"\x1b[>0 q", b"\x1b[0q", b"\x1b[?0q"] {
        let (events, _) = events_for_every_split(other);
        assert_eq!(events, [], "{other:?}");
    }
    let mut s = new_screen();
    assert_eq!(
        feed(&mut s, b"\x1b[c"),
        [ScreenEvent::Reply(b"\x1b[?62;22c".to_vec())]
    );
    let da2 = feed(&mut s, b"\x1b[>c");
    let [ScreenEvent::Reply(da2)] = &da2[..] else {
        panic!("DA2 unanswered: {da2:?}");
    };
    assert!(
        da2.starts_with(b"\x1b[>1;") && da2.ends_with(b";0c"),
        "{da2:?}"
    );
    assert_eq!(feed(&mut s, b"\x1b[=c"), [], "DA3 is not reported");
}

/// The other questions agents ask at start-up, answered for what the
/// screen does: the kitty keyboard flags in force (`CSI ? u`) and the
/// modes it knows (DECRQM: set, reset, or unknown).
#[test]
fn keyboard_flags_and_modes_are_reported_as_they_are() {
    let mut s = new_screen();
    assert_eq!(
        feed(&mut s, b"\x1b[?u"),
        [ScreenEvent::Reply(b"\x1b[?0u".to_vec())]
    );
    assert_eq!(
        feed(&mut s, b"\x1b[>1u\x1b[?u"),
        [ScreenEvent::Reply(b"\x1b[?1u".to_vec())]
    );
    assert_eq!(
        feed(&mut s, b"\x1b[?2004$p"),
        [ScreenEvent::Reply(b"\x1b[?2004;2$y".to_vec())]
    );
    assert_eq!(
        feed(&mut s, b"\x1b[?2004h\x1b[?2004$p"),
        [ScreenEvent::Reply(b"\x1b[?2004;1$y".to_vec())]
    );
    assert_eq!(
        feed(&mut s, b"\x1b[?31337$p"),
        [ScreenEvent::Reply(b"\x1b[?31337;0$y".to_vec())]
    );
}

#[test]
fn events_keep_stream_order() {
    let mut s = new_screen();
    let events = feed(
        &mut s,
        b"\x07\x1b]9;one\x07\x1b]2;t\x07\x1b]777;notify;two;\x07\x1b[6n",
    );
    assert_eq!(
        events,
        [
            ScreenEvent::Bell,
            notify(NotifySource::Osc9, "", "one"),
            ScreenEvent::Title("t".into()),
            notify(NotifySource::Osc777, "two", ""),
            ScreenEvent::Reply(b"\x1b[1;1R".to_vec()),
        ]
    );
}

#[test]
fn synchronized_updates_apply_immediately() {
    let mut s = new_screen();
    feed(&mut s, b"\x1b[?2026hframe");
    assert_eq!(s.screen_text(Style::Plain), "frame");
}
