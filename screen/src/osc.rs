//! The OSC side channel: cwd (7) and notifications (9, 99, 777).
//!
//! alacritty's parser drops OSCs it does not know, so the raw stream is
//! scanned once more here. The scanner mirrors vte's idea of where an OSC
//! starts and ends (ESC `]` from any state; BEL, CAN, SUB or ESC end it; C1
//! bytes mean nothing in UTF-8 mode), so both always agree on the boundaries.
//!
//! The `Screen` does not hand OSC bodies to vte as they arrive: it withholds
//! them until the terminator is seen and then forwards the body whole, or —
//! when it exceeded [`MAX_OSC_BYTES`] — not at all. vte's own OSC buffer is
//! unbounded (`std` feature), so this is what keeps `ESC ]` followed by an
//! endless stream from growing memory.

use crate::sanitize::{MAX_BODY_CHARS, MAX_TITLE_CHARS, base64_decode, percent_decode, sanitize};
use crate::{NotifySource, ScreenEvent};

/// Longest OSC body accepted (after `ESC ]`, before the terminator). Titles,
/// cwds and notifications are far shorter; larger ones (big OSC 52 clipboard
/// pastes) are dropped whole.
pub const MAX_OSC_BYTES: usize = 8 * 1024;

/// Longest path accepted from OSC 7.
const MAX_CWD_BYTES: usize = 4096;

/// Raw text kept per field while a chunked kitty notification accumulates.
const MAX_KITTY_RAW: usize = 4 * MAX_BODY_CHARS;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Ground,
    /// After ESC; vte stays here across C0 controls, DEL and high bytes.
    Escape,
    /// After ESC and an intermediate (`ESC (` …): `]` is a final, not an OSC.
    EscapeIntermediate,
    /// Inside `ESC ]` … collecting the body.
    Osc,
}

/// Where the scanner stopped in the slice it was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// The `]` of an OSC is at this index; it and the body are withheld.
    OscStart(usize),
    /// The terminator is at this index (it is not part of the body); the
    /// body is in [`Scanner::body`].
    OscEnd(usize),
}

/// Streaming OSC boundary finder with a bounded body buffer.
pub(crate) struct Scanner {
    state: State,
    body: Vec<u8>,
    overflow: bool,
}

impl Scanner {
    pub(crate) fn new() -> Scanner {
        Scanner {
            state: State::Ground,
            body: Vec::new(),
            overflow: false,
        }
    }

    /// Whether the end of the last slice was inside an OSC body, i.e. its
    /// tail is withheld in the buffer.
    pub(crate) fn in_osc(&self) -> bool {
        self.state == State::Osc
    }

    /// The completed body, `None` if it was too long and has been dropped.
    pub(crate) fn body(&self) -> Option<&[u8]> {
        (!self.overflow).then_some(self.body.as_slice())
    }

    /// Releases the body buffer unless a body is being collected.
    pub(crate) fn shrink_to_fit(&mut self) {
        if !self.in_osc() {
            self.body = Vec::new();
        }
    }

    /// What a handover carries: the state as a number, the body being
    /// collected (or the last one) and whether it overflowed. The body is
    /// withheld from vte, so the parser's unfinished bytes lack it.
    pub(crate) fn parts(&self) -> (u8, &[u8], bool) {
        let state = match self.state {
            State::Ground => 0,
            State::Escape => 1,
            State::EscapeIntermediate => 2,
            State::Osc => 3,
        };
        (state, &self.body, self.overflow)
    }

    /// The scanner [`Scanner::parts`] described, if they make one.
    pub(crate) fn from_parts(state: u8, body: &[u8], overflow: bool) -> Option<Scanner> {
        let state = match state {
            0 => State::Ground,
            1 => State::Escape,
            2 => State::EscapeIntermediate,
            3 => State::Osc,
            _ => return None,
        };
        (body.len() <= MAX_OSC_BYTES).then(|| Scanner {
            state,
            body: body.to_vec(),
            overflow,
        })
    }

    #[cfg(test)]
    pub(crate) fn buffer_capacity(&self) -> usize {
        self.body.capacity()
    }

    /// Scans `bytes` from `*pos` to the next OSC boundary.
    #[inline]
    pub(crate) fn next(&mut self, bytes: &[u8], pos: &mut usize) -> Option<Step> {
        let mut i = *pos;
        while i < bytes.len() {
            match self.state {
                State::Ground => {
                    if let Some(at) = osc_start(bytes, i) {
                        self.state = State::Osc;
                        self.body.clear();
                        self.overflow = false;
                        *pos = at + 1;
                        return Some(Step::OscStart(at));
                    }
                    self.state = state_at_end(&bytes[i..]);
                    i = bytes.len();
                }
                State::Escape => {
                    let b = bytes[i];
                    i += 1;
                    match b {
                        b']' => {
                            self.state = State::Osc;
                            self.body.clear();
                            self.overflow = false;
                            *pos = i;
                            return Some(Step::OscStart(i - 1));
                        }
                        0x20..=0x2f => self.state = State::EscapeIntermediate,
                        0x30..=0x7e | 0x18 | 0x1a => self.state = State::Ground,
                        _ => {}
                    }
                }
                State::EscapeIntermediate => {
                    let b = bytes[i];
                    i += 1;
                    match b {
                        0x30..=0x7e | 0x18 | 0x1a => self.state = State::Ground,
                        0x1b => self.state = State::Escape,
                        _ => {}
                    }
                }
                State::Osc => {
                    let rest = &bytes[i..];
                    let end = rest
                        .iter()
                        .position(|&b| matches!(b, 0x07 | 0x18 | 0x1a | 0x1b));
                    let len = end.unwrap_or(rest.len());
                    self.push(&rest[..len]);
                    i += len;
                    if end.is_some() {
                        let at = i;
                        self.state = if bytes[at] == 0x1b {
                            State::Escape
                        } else {
                            State::Ground
                        };
                        *pos = at + 1;
                        return Some(Step::OscEnd(at));
                    }
                }
            }
        }
        *pos = i;
        None
    }

    fn push(&mut self, chunk: &[u8]) {
        if self.overflow || chunk.is_empty() {
            return;
        }
        if self.body.len() + chunk.len() > MAX_OSC_BYTES {
            self.overflow = true;
            self.body.clear();
        } else {
            self.body.extend_from_slice(chunk);
        }
    }
}

/// The `]` of the first OSC in `bytes[ground..]`, which vte reads from its
/// ground state. In coloured output an ESC comes every twenty bytes or
/// so and a `]` rarely, so this looks for the `]` and then back for the
/// ESC that makes it an OSC: vte reads `]` as one right after an ESC, or
/// after an ESC and bytes that leave its escape state as it is (C0 other
/// than CAN, SUB and ESC; DEL; bytes from 0x80).
fn osc_start(bytes: &[u8], ground: usize) -> Option<usize> {
    let mut from = ground;
    while let Some(offset) = memchr::memchr(b']', &bytes[from..]) {
        let at = from + offset;
        let before = bytes[ground..at].iter().rev().find(|&&b| !keeps_escape(b));
        if before == Some(&0x1b) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// The scanner's state after `bytes`, read from the ground state with no
/// OSC among them: what the last ESC and the bytes after it left.
fn state_at_end(bytes: &[u8]) -> State {
    let mut intermediate = false;
    for &b in bytes.iter().rev() {
        match b {
            0x1b if intermediate => return State::EscapeIntermediate,
            0x1b => return State::Escape,
            0x20..=0x2f => intermediate = true,
            b if keeps_escape(b) => {}
            _ => return State::Ground,
        }
    }
    State::Ground
}

/// Whether vte stays in an escape state (after ESC, or ESC and
/// intermediates) over `byte`: C0 controls other than CAN, SUB and ESC
/// are executed there, DEL and bytes from 0x80 ignored.
fn keeps_escape(byte: u8) -> bool {
    !matches!(byte, 0x18 | 0x1a | 0x1b | 0x20..=0x7e)
}

/// A kitty notification whose chunks (`d=0`) are still arriving.
struct KittyPending {
    id: String,
    title: String,
    body: String,
}

/// Turns completed OSC bodies into events; holds kitty's chunking state.
pub(crate) struct Interpreter {
    kitty: Option<KittyPending>,
}

impl Interpreter {
    pub(crate) fn new() -> Interpreter {
        Interpreter { kitty: None }
    }

    /// The chunked kitty notification still arriving: id, title, body.
    pub(crate) fn pending(&self) -> Option<[&str; 3]> {
        let kitty = self.kitty.as_ref()?;
        Some([&kitty.id, &kitty.title, &kitty.body])
    }

    /// An interpreter waiting for more chunks of `pending` (as
    /// [`Interpreter::pending`] gives it), if its fields are within what
    /// chunks could have made.
    pub(crate) fn with_pending(pending: Option<[String; 3]>) -> Option<Interpreter> {
        let kitty = match pending {
            None => None,
            Some([id, title, body]) => {
                if id.len() > MAX_OSC_BYTES
                    || title.len() > MAX_KITTY_RAW
                    || body.len() > MAX_KITTY_RAW
                {
                    return None;
                }
                Some(KittyPending { id, title, body })
            }
        };
        Some(Interpreter { kitty })
    }

    pub(crate) fn interpret(&mut self, body: &[u8]) -> Option<ScreenEvent> {
        let (code, rest) = match body.iter().position(|&b| b == b';') {
            Some(i) => (&body[..i], &body[i + 1..]),
            None => (body, &[][..]),
        };
        match code {
            b"7" => cwd(&String::from_utf8_lossy(rest)).map(ScreenEvent::Cwd),
            b"9" => osc9(&String::from_utf8_lossy(rest)),
            b"777" => osc777(&String::from_utf8_lossy(rest)),
            b"99" => self.kitty(&String::from_utf8_lossy(rest)),
            _ => None,
        }
    }

    /// OSC 99 `metadata;payload` where metadata is `k=v:k=v`.
    ///
    /// Handled keys: `i` (id; chunks with the same id belong together), `d`
    /// (`0` = more chunks follow, default `1`), `p` (`title` or `body`; other
    /// payload kinds such as icons or buttons are ignored) and `e=1` (payload
    /// is base64). Unlike kitty, a chunk without `p` is taken as *body*, so a
    /// bare `OSC 99 ; ; text` reads the same as `OSC 9 ; text`.
    fn kitty(&mut self, rest: &str) -> Option<ScreenEvent> {
        let (metadata, payload) = rest.split_once(';').unwrap_or((rest, ""));
        let mut id = "";
        let mut done = true;
        let mut kind = Some(false); // Some(true) = title, Some(false) = body, None = ignored
        let mut base64 = false;
        for pair in metadata.split(':') {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            match key {
                "i" => id = value,
                "d" => done = value != "0",
                "e" => base64 = value == "1",
                "p" => {
                    kind = match value {
                        "title" => Some(true),
                        "body" => Some(false),
                        _ => None,
                    }
                }
                _ => {}
            }
        }
        let text = if base64 {
            String::from_utf8_lossy(&base64_decode(payload)?).into_owned()
        } else {
            payload.to_owned()
        };

        let pending = match &mut self.kitty {
            Some(pending) if pending.id == id => pending,
            slot => slot.insert(KittyPending {
                id: id.to_owned(),
                title: String::new(),
                body: String::new(),
            }),
        };
        match kind {
            Some(true) => push_capped(&mut pending.title, &text),
            Some(false) => push_capped(&mut pending.body, &text),
            None => {}
        }
        if !done {
            return None;
        }
        let pending = self.kitty.take()?;
        notify(NotifySource::Osc99, &pending.title, &pending.body)
    }
}

fn push_capped(field: &mut String, text: &str) {
    for c in text.chars() {
        if field.len() + c.len_utf8() > MAX_KITTY_RAW {
            break;
        }
        field.push(c);
    }
}

fn notify(source: NotifySource, title: &str, body: &str) -> Option<ScreenEvent> {
    let title = sanitize(title, MAX_TITLE_CHARS);
    let body = sanitize(body, MAX_BODY_CHARS);
    if title.is_empty() && body.is_empty() {
        return None;
    }
    Some(ScreenEvent::Notify {
        source,
        title,
        body,
    })
}

/// OSC 9 body; ConEmu reuses OSC 9 for `9;<n>;…` subcommands (4 is the
/// progress bar that many CLIs emit constantly), which are not notifications.
fn osc9(rest: &str) -> Option<ScreenEvent> {
    let first = rest.split(';').next().unwrap_or("");
    if !first.is_empty() && first.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    notify(NotifySource::Osc9, "", rest)
}

/// rxvt-unicode style `777;notify;title;body` (the body may contain `;`).
fn osc777(rest: &str) -> Option<ScreenEvent> {
    let text = rest.strip_prefix("notify;")?;
    let (title, body) = text.split_once(';').unwrap_or((text, ""));
    notify(NotifySource::Osc777, title, body)
}

/// OSC 7 `file://host/path` (percent-encoded) or kitty's
/// `kitty-shell-cwd://host/path` (literal). The host is not checked against
/// this machine: that would take I/O, and the caller knows whether the pane
/// runs ssh.
fn cwd(rest: &str) -> Option<String> {
    let (after_scheme, encoded) = if let Some(rest) = strip_prefix_ignore_case(rest, "file://") {
        (rest, true)
    } else {
        (strip_prefix_ignore_case(rest, "kitty-shell-cwd://")?, false)
    };
    let path = &after_scheme[after_scheme.find('/')?..];
    let path = if encoded {
        String::from_utf8(percent_decode(path)?).ok()?
    } else {
        path.to_owned()
    };
    if path.len() > MAX_CWD_BYTES || path.chars().any(char::is_control) {
        return None;
    }
    Some(path)
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan_all(scanner: &mut Scanner, bytes: &[u8]) -> Vec<Step> {
        let mut pos = 0;
        let mut steps = Vec::new();
        while let Some(step) = scanner.next(bytes, &mut pos) {
            steps.push(step);
        }
        steps
    }

    #[test]
    fn boundaries_follow_vte() {
        let mut s = Scanner::new();
        assert_eq!(
            scan_all(&mut s, b"a\x1b]9;x\x07b"),
            [Step::OscStart(2), Step::OscEnd(6)]
        );
        assert_eq!(s.body(), Some(&b"9;x"[..]));
        // ESC ( ] is a charset designation, not an OSC.
        assert_eq!(scan_all(&mut s, b"\x1b(]"), []);
        // C0 between ESC and ] keeps the escape pending, as in vte.
        assert_eq!(
            scan_all(&mut s, b"\x1b\n]7;x\x1b\\"),
            [Step::OscStart(2), Step::OscEnd(6)]
        );
        // The ESC that ended the OSC starts a new escape.
        assert_eq!(
            scan_all(&mut s, b"\x1b]0;a\x1b]0;b\x18"),
            [
                Step::OscStart(1),
                Step::OscEnd(5),
                Step::OscStart(6),
                Step::OscEnd(10),
            ]
        );
    }

    /// What the scanner did before it looked for `]` first: a step per
    /// byte from each ESC, the oracle for the fast one.
    struct ByteScanner(State);

    impl ByteScanner {
        /// The index of each OSC's `]` and terminator in `bytes`.
        fn scan(&mut self, bytes: &[u8]) -> Vec<Step> {
            let mut steps = Vec::new();
            for (at, &b) in bytes.iter().enumerate() {
                self.0 = match (self.0, b) {
                    (State::Osc, 0x07 | 0x18 | 0x1a) => {
                        steps.push(Step::OscEnd(at));
                        State::Ground
                    }
                    (State::Osc, 0x1b) => {
                        steps.push(Step::OscEnd(at));
                        State::Escape
                    }
                    (State::Osc, _) => State::Osc,
                    (State::Escape, b']') => {
                        steps.push(Step::OscStart(at));
                        State::Osc
                    }
                    (_, 0x1b) => State::Escape,
                    (State::Ground, _) => State::Ground,
                    (_, 0x20..=0x2f) => State::EscapeIntermediate,
                    (_, 0x30..=0x7e | 0x18 | 0x1a) => State::Ground,
                    (state, _) => state,
                };
            }
            steps
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// On any bytes, in any chunks, the scanner finds every OSC's
        /// start and end where a scanner stepping byte by byte does.
        #[test]
        fn finds_what_a_byte_by_byte_scan_finds(
            bytes in proptest::collection::vec(
                proptest::sample::select(&b"\x1b]([a ;\\\x07\x18\x1a\n\xc3\x7f"[..]), 0..200),
            cuts in proptest::collection::vec(0usize..200, 0..6),
        ) {
            let mut cuts: Vec<usize> = cuts.into_iter().filter(|&c| c <= bytes.len()).collect();
            cuts.push(0);
            cuts.push(bytes.len());
            cuts.sort_unstable();
            let (mut fast, mut slow) = (Scanner::new(), ByteScanner(State::Ground));
            for chunk in cuts.windows(2).map(|w| &bytes[w[0]..w[1]]) {
                proptest::prop_assert_eq!(scan_all(&mut fast, chunk), slow.scan(chunk));
                proptest::prop_assert_eq!(fast.state, slow.0);
            }
        }
    }

    #[test]
    fn overflow_drops_body_and_keeps_buffer_small() {
        let mut s = Scanner::new();
        let mut pos = 0;
        assert_eq!(s.next(b"\x1b]", &mut pos), Some(Step::OscStart(1)));
        let chunk = vec![b'x'; 4096];
        for _ in 0..256 {
            let mut pos = 0;
            assert_eq!(s.next(&chunk, &mut pos), None);
        }
        assert!(s.buffer_capacity() <= MAX_OSC_BYTES);
        let mut pos = 0;
        assert_eq!(s.next(b"\x07", &mut pos), Some(Step::OscEnd(0)));
        assert_eq!(s.body(), None);
    }

    #[test]
    fn cwd_forms() {
        assert_eq!(cwd("file://host/a%20b").as_deref(), Some("/a b"));
        assert_eq!(cwd("FILE:///tmp").as_deref(), Some("/tmp"));
        assert_eq!(cwd("kitty-shell-cwd://h/x y").as_deref(), Some("/x y"));
        assert_eq!(cwd("file://host"), None);
        assert_eq!(cwd("http://host/x"), None);
        assert_eq!(cwd("file://h/a%0Ab"), None);
        assert_eq!(cwd("file://h/%ff"), None);
    }

    #[test]
    fn osc9_subcommands_ignored() {
        assert!(osc9("4;1;50").is_none());
        assert!(osc9("5").is_none());
        assert!(osc9("").is_none());
        assert!(osc9("42 tests passed").is_some());
    }

    #[test]
    fn kitty_chunks() {
        let mut i = Interpreter::new();
        assert!(i.interpret(b"99;i=1:d=0:p=title;Build").is_none());
        assert!(i.interpret(b"99;i=1:d=0:p=icon;xyz").is_none());
        let ev = i.interpret(b"99;i=1:p=body:e=1;ZG9uZQ==");
        assert_eq!(
            ev,
            Some(ScreenEvent::Notify {
                source: NotifySource::Osc99,
                title: "Build".into(),
                body: "done".into()
            })
        );
        // A different id starts over.
        assert!(i.interpret(b"99;i=2:d=0;a").is_none());
        let ev = i.interpret(b"99;i=3;b");
        assert_eq!(
            ev,
            Some(ScreenEvent::Notify {
                source: NotifySource::Osc99,
                title: String::new(),
                body: "b".into()
            })
        );
    }
}
