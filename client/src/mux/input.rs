//! The keyboard and mouse, from raw bytes.
//!
//! Every byte the user types arrives here and leaves as a [`Token`] that
//! carries the exact bytes it was made of, so whatever the multiplexer does
//! not handle itself reaches the pane unchanged. Sequences the multiplexer
//! handles are taken out: SGR mouse reports, bracketed paste markers (the
//! paste inside is passed through in pieces, never buffered whole), focus
//! events and the terminal's answers about its keyboard protocol. Keys in
//! the kitty protocol's or modifyOtherKeys' form are named as their legacy
//! bytes would be, and keep their own. An escape sequence cut by a read waits for the rest; a
//! lone ESC is a key once [`ESCAPE_WAIT`] passes without more.

use std::time::Duration;

use signaltty_screen::{KeyEvent, Modes, decode_key};

use super::geometry::Towards;
use super::keys::Key;

/// How long a lone ESC waits for the rest of a sequence.
pub const ESCAPE_WAIT: Duration = Duration::from_millis(20);

const PASTE_END: &[u8] = b"\x1b[201~";
/// The longest escape sequence held back; anything longer is passed on.
const MAX_SEQUENCE: usize = 64;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    Key {
        key: Key,
        raw: Vec<u8>,
    },
    Mouse(Mouse),
    PasteStart,
    /// A piece of pasted text.
    Paste(Vec<u8>),
    PasteEnd,
    Focus(bool),
    /// A key event that acts on nothing: a key let go, or a modifier
    /// alone (kitty's event types and all-keys flag). Only a pane that
    /// asked for those gets it.
    Inert(Vec<u8>),
    /// The terminal's answer to `CSI ? u`: it speaks the kitty keyboard
    /// protocol, with these flags active.
    KeyboardFlags(u8),
    /// The terminal's answer to `CSI c` (primary device attributes), which
    /// every terminal gives: asked after `CSI ? u`, it ends the wait for
    /// that answer.
    DeviceAttributes,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Button {
    Left,
    Middle,
    Right,
    /// Motion with no button held.
    None,
    WheelUp,
    WheelDown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MouseKind {
    Press,
    Release,
    /// Motion (with `button` held, or [`Button::None`]).
    Drag,
}

/// A mouse report from the outer terminal, 0-based cell coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mouse {
    pub kind: MouseKind,
    pub button: Button,
    pub col: u16,
    pub row: u16,
    /// Shift 4, Meta 8, Control 16, as in the SGR button code.
    pub modifiers: u8,
}

#[derive(Debug, Default)]
pub struct InputParser {
    pending: Vec<u8>,
    in_paste: bool,
}

/// What one attempt at the start of the buffer found.
enum Step {
    Token(Token, usize),
    /// The start of a sequence whose end has not arrived.
    Incomplete,
}

impl InputParser {
    /// Turns `bytes` (after anything held back) into tokens.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<Token>) {
        self.pending.extend_from_slice(bytes);
        let mut at = 0;
        while at < self.pending.len() {
            if self.in_paste {
                at += self.paste(at, out);
                if self.in_paste {
                    break;
                }
                continue;
            }
            match parse(&self.pending[at..]) {
                Step::Token(token, used) => {
                    if token == Token::PasteStart {
                        self.in_paste = true;
                    }
                    out.push(token);
                    at += used;
                }
                Step::Incomplete => break,
            }
        }
        self.pending.drain(..at);
    }

    /// Whether bytes are held back, waiting for the rest of a sequence.
    pub fn waiting(&self) -> bool {
        !self.pending.is_empty()
    }

    /// No more came in time: what is held back is what it looks like (a
    /// lone ESC is the Escape key).
    pub fn flush(&mut self, out: &mut Vec<Token>) {
        let held = std::mem::take(&mut self.pending);
        if held.is_empty() {
            return;
        }
        if self.in_paste {
            out.push(Token::Paste(held));
            return;
        }
        let (first, rest) = held.split_at(1);
        out.push(Token::Key {
            key: Key::from_byte(first[0]),
            raw: first.to_vec(),
        });
        self.feed(rest, out);
        if self.waiting() {
            // The rest is still a fragment: pass it on as it is.
            let held = std::mem::take(&mut self.pending);
            out.push(Token::Key {
                key: Key::Other,
                raw: held,
            });
        }
    }

    /// Passes pasted bytes through up to the end marker; returns how many
    /// bytes of `pending[at..]` it used.
    fn paste(&mut self, at: usize, out: &mut Vec<Token>) -> usize {
        let data = &self.pending[at..];
        if let Some(end) = find(data, PASTE_END) {
            if end > 0 {
                out.push(Token::Paste(data[..end].to_vec()));
            }
            out.push(Token::PasteEnd);
            self.in_paste = false;
            return end + PASTE_END.len();
        }
        // Keep back what could be the start of the end marker.
        let keep = (1..PASTE_END.len())
            .rev()
            .find(|&n| data.len() >= n && data.ends_with(&PASTE_END[..n]))
            .unwrap_or(0);
        let take = data.len() - keep;
        if take > 0 {
            out.push(Token::Paste(data[..take].to_vec()));
        }
        take
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn parse(bytes: &[u8]) -> Step {
    let first = bytes[0];
    if first != 0x1b {
        return plain(bytes);
    }
    match bytes.get(1) {
        None => Step::Incomplete,
        Some(b'[') => csi(bytes),
        Some(b'O') => ss3(bytes),
        Some(0x1b) => Step::Token(key(Key::Escape, &bytes[..1]), 1),
        Some(_) => match plain(&bytes[1..]) {
            Step::Token(Token::Key { key, raw }, used) => {
                let key = match key {
                    Key::Char(c) => Key::Alt(c),
                    Key::Ctrl(c) => Key::Alt(c),
                    _ => Key::Other,
                };
                let mut all = vec![0x1b];
                all.extend_from_slice(&raw);
                Step::Token(Token::Key { key, raw: all }, used + 1)
            }
            other => other,
        },
    }
}

fn key(key: Key, raw: &[u8]) -> Token {
    Token::Key {
        key,
        raw: raw.to_vec(),
    }
}

/// A byte or a UTF-8 character.
fn plain(bytes: &[u8]) -> Step {
    let first = bytes[0];
    let len = match first {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => 1,
    };
    if bytes.len() < len {
        return Step::Incomplete;
    }
    let raw = &bytes[..len];
    let k = if len == 1 {
        Key::from_byte(first)
    } else {
        match std::str::from_utf8(raw).ok().and_then(|s| s.chars().next()) {
            Some(c) => Key::Char(c),
            // Not UTF-8: pass the byte on as it is.
            None => return Step::Token(key(Key::Other, &bytes[..1]), 1),
        }
    };
    Step::Token(key(k, raw), len)
}

fn ss3(bytes: &[u8]) -> Step {
    let Some(&last) = bytes.get(2) else {
        return Step::Incomplete;
    };
    let k = match last {
        b'A' => Key::Up,
        b'B' => Key::Down,
        b'C' => Key::Right,
        b'D' => Key::Left,
        b'H' => Key::Home,
        b'F' => Key::End,
        b'P'..=b'S' => Key::F(last - b'P' + 1),
        _ => Key::Other,
    };
    Step::Token(key(k, &bytes[..3]), 3)
}

fn csi(bytes: &[u8]) -> Step {
    // ESC [ parameters intermediates final
    let mut end = 2;
    loop {
        let Some(&b) = bytes.get(end) else {
            return if bytes.len() > MAX_SEQUENCE {
                Step::Token(key(Key::Other, bytes), bytes.len())
            } else {
                Step::Incomplete
            };
        };
        if (0x40..=0x7e).contains(&b) {
            break;
        }
        if !(0x20..=0x3f).contains(&b) {
            // Not a CSI after all: pass on what came so far.
            return Step::Token(key(Key::Other, &bytes[..end]), end);
        }
        end += 1;
    }
    let params = &bytes[2..end];
    let last = bytes[end];
    let raw = &bytes[..=end];
    let used = end + 1;
    if last == b'M' && params.is_empty() {
        // X10 mouse: three more bytes.
        return match bytes.get(used..used + 3) {
            Some(&[b, x, y]) => Step::Token(x10_mouse(b, x, y), used + 3),
            _ => Step::Incomplete,
        };
    }
    if let (Some(rest), b'M' | b'm') = (params.strip_prefix(b"<"), last)
        && let Some(mouse) = sgr_mouse(rest, last == b'M')
    {
        return Step::Token(Token::Mouse(mouse), used);
    }
    let token = match (params, last) {
        (b"200", b'~') => Token::PasteStart,
        (b"201", b'~') => Token::PasteEnd,
        (b"", b'I') => Token::Focus(true),
        (b"", b'O') => Token::Focus(false),
        ([b'?', flags @ ..], b'u') => match std::str::from_utf8(flags).map(str::parse) {
            Ok(Ok(flags)) => Token::KeyboardFlags(flags),
            _ => key(Key::Other, raw),
        },
        ([b'?', ..], b'c') => Token::DeviceAttributes,
        _ if is_modern_key(params, last) => modern_key(raw),
        _ => key(csi_key(params, last), raw),
    };
    Step::Token(token, used)
}

/// A key as the kitty protocol or modifyOtherKeys sends it: `CSI … u`,
/// `CSI 27 ; m ; code ~`, or any key with kitty's `:event` after its
/// modifiers.
fn is_modern_key(params: &[u8], last: u8) -> bool {
    last == b'u' || (last == b'~' && params.starts_with(b"27;")) || params.contains(&b':')
}

/// A modern key as the multiplexer names it: the key its legacy bytes
/// would be (so `C-b` is the prefix however it came), its own bytes kept.
fn modern_key(raw: &[u8]) -> Token {
    match decode_key(raw) {
        Some(KeyEvent::Press(press)) => {
            let legacy = press.encode(&Modes::default());
            let named = match parse(&legacy) {
                _ if legacy == b"\x1b" => Key::Escape,
                Step::Token(Token::Key { key, .. }, used) if used == legacy.len() => key,
                _ => Key::Other,
            };
            key(named, raw)
        }
        Some(KeyEvent::Inert) => Token::Inert(raw.to_vec()),
        None => key(Key::Other, raw),
    }
}

fn csi_key(params: &[u8], last: u8) -> Key {
    let plain = !params.contains(&b';');
    let arrow = match last {
        b'A' => Some(Towards::Up),
        b'B' => Some(Towards::Down),
        b'C' => Some(Towards::Right),
        b'D' => Some(Towards::Left),
        _ => None,
    };
    // xterm's modified cursor keys: ESC [ 1 ; 3 (Alt) or 5 (Control) X.
    match (arrow, params) {
        (Some(towards), b"1;3") => return Key::AltArrow(towards),
        (Some(towards), b"1;5") => return Key::CtrlArrow(towards),
        _ => {}
    }
    match last {
        b'A' if plain => Key::Up,
        b'B' if plain => Key::Down,
        b'C' if plain => Key::Right,
        b'D' if plain => Key::Left,
        b'H' if plain => Key::Home,
        b'F' if plain => Key::End,
        b'Z' => Key::BackTab,
        b'~' => match params {
            b"1" | b"7" => Key::Home,
            b"2" => Key::Insert,
            b"3" => Key::Delete,
            b"4" | b"8" => Key::End,
            b"5" => Key::PageUp,
            b"6" => Key::PageDown,
            _ => Key::Other,
        },
        _ => Key::Other,
    }
}

fn sgr_mouse(params: &[u8], press: bool) -> Option<Mouse> {
    let text = std::str::from_utf8(params).ok()?;
    let mut fields = text.split(';').map(|f| f.parse::<u16>().ok());
    let (code, col, row) = (fields.next()??, fields.next()??, fields.next()??);
    let mut mouse = decode_button(code)?;
    if !press {
        mouse.kind = MouseKind::Release;
    }
    mouse.col = col.saturating_sub(1);
    mouse.row = row.saturating_sub(1);
    Some(mouse)
}

fn x10_mouse(b: u8, x: u8, y: u8) -> Token {
    let code = u16::from(b.saturating_sub(32));
    let Some(mut mouse) = decode_button(code) else {
        return key(Key::Other, &[0x1b, b'[', b'M', b, x, y]);
    };
    if code & 3 == 3 && code & 96 == 0 {
        mouse.kind = MouseKind::Release;
        mouse.button = Button::Left;
    }
    mouse.col = u16::from(x.saturating_sub(33));
    mouse.row = u16::from(y.saturating_sub(33));
    Token::Mouse(mouse)
}

fn decode_button(code: u16) -> Option<Mouse> {
    let modifiers = u8::try_from(code & 28).ok()?;
    let motion = code & 32 != 0;
    let button = match (code & 64 != 0, code & 3) {
        (true, 0) => Button::WheelUp,
        (true, 1) => Button::WheelDown,
        (true, _) => return None,
        (false, 0) => Button::Left,
        (false, 1) => Button::Middle,
        (false, 2) => Button::Right,
        (false, _) => Button::None,
    };
    Some(Mouse {
        kind: if motion {
            MouseKind::Drag
        } else {
            MouseKind::Press
        },
        button,
        col: 0,
        row: 0,
        modifiers,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(chunks: &[&[u8]]) -> Vec<Token> {
        let mut parser = InputParser::default();
        let mut out = Vec::new();
        for chunk in chunks {
            parser.feed(chunk, &mut out);
        }
        parser.flush(&mut out);
        out
    }

    fn raw(tokens: &[Token]) -> Vec<u8> {
        tokens
            .iter()
            .flat_map(|t| match t {
                Token::Key { raw, .. } | Token::Paste(raw) => raw.clone(),
                _ => Vec::new(),
            })
            .collect()
    }

    #[test]
    fn keys_keep_their_exact_bytes() {
        let typed: &[u8] = "ls -la\r\x02%\x1b[A\x1bOB\x1b[5~é漢\x1bx\x1b[1;3D\x1b[1;5C".as_bytes();
        let out = tokens(&[typed]);
        assert_eq!(raw(&out), typed);
        let keys: Vec<Key> = out
            .iter()
            .filter_map(|t| match t {
                Token::Key { key, .. } => Some(*key),
                _ => None,
            })
            .collect();
        assert!(keys.contains(&Key::Ctrl('b')));
        assert!(keys.contains(&Key::Up) && keys.contains(&Key::Down));
        assert!(keys.contains(&Key::PageUp));
        assert!(keys.contains(&Key::Char('漢')));
        assert!(keys.contains(&Key::Alt('x')));
        assert!(keys.contains(&Key::AltArrow(Towards::Left)));
        assert_eq!(keys.last(), Some(&Key::CtrlArrow(Towards::Right)));
    }

    #[test]
    fn a_sequence_split_across_reads_waits_for_its_end() {
        let mut parser = InputParser::default();
        let mut out = Vec::new();
        parser.feed(b"\x1b[", &mut out);
        assert!(out.is_empty() && parser.waiting());
        parser.feed(b"A", &mut out);
        assert_eq!(out, vec![key(Key::Up, b"\x1b[A")]);
        // A UTF-8 character too.
        out.clear();
        parser.feed(&"é".as_bytes()[..1], &mut out);
        parser.feed(&"é".as_bytes()[1..], &mut out);
        assert_eq!(out, vec![key(Key::Char('é'), "é".as_bytes())]);
    }

    #[test]
    fn a_lone_escape_is_the_escape_key_once_nothing_follows() {
        assert_eq!(tokens(&[b"\x1b"]), vec![key(Key::Escape, b"\x1b")]);
        assert_eq!(
            tokens(&[b"\x1b\x1b[B"]),
            vec![key(Key::Escape, b"\x1b"), key(Key::Down, b"\x1b[B")]
        );
    }

    #[test]
    fn sgr_and_x10_mouse_reports_decode() {
        let out = tokens(&[b"\x1b[<0;10;5M\x1b[<32;11;5M\x1b[<0;11;5m\x1b[<65;3;4M\x1b[M #%"]);
        let mice: Vec<Mouse> = out
            .iter()
            .filter_map(|t| match t {
                Token::Mouse(m) => Some(*m),
                _ => None,
            })
            .collect();
        assert_eq!(mice.len(), 5);
        assert_eq!(
            (mice[0].kind, mice[0].button, mice[0].col, mice[0].row),
            (MouseKind::Press, Button::Left, 9, 4)
        );
        assert_eq!((mice[1].kind, mice[1].col), (MouseKind::Drag, 10));
        assert_eq!(mice[2].kind, MouseKind::Release);
        assert_eq!(mice[3].button, Button::WheelDown);
        assert_eq!(
            (mice[4].button, mice[4].col, mice[4].row),
            (Button::Left, 2, 4)
        );
    }

    #[test]
    fn a_paste_passes_through_in_pieces_with_its_markers_taken_out() {
        let out = tokens(&[b"\x1b[200~one\x02tw", b"o\x1b[2", b"01~x"]);
        assert_eq!(out[0], Token::PasteStart);
        let pasted: Vec<u8> = out
            .iter()
            .flat_map(|t| match t {
                Token::Paste(b) => b.clone(),
                _ => Vec::new(),
            })
            .collect();
        assert_eq!(
            pasted, b"one\x02two",
            "the prefix key inside a paste is text"
        );
        let end = out.iter().position(|t| *t == Token::PasteEnd).unwrap();
        assert_eq!(out[end + 1], key(Key::Char('x'), b"x"));
    }

    #[test]
    fn focus_events_are_tokens() {
        assert_eq!(
            tokens(&[b"\x1b[I\x1b[O"]),
            vec![Token::Focus(true), Token::Focus(false)]
        );
    }

    #[test]
    fn kitty_and_modify_other_keys_keys_are_named_as_their_legacy_bytes() {
        let cases: &[(&[u8], Key)] = &[
            (b"\x1b[98;5u", Key::Ctrl('b')),
            (b"\x1b[98;5:2u", Key::Ctrl('b')),
            (b"\x1b[27;5;98~", Key::Ctrl('b')),
            (b"\x1b[27u", Key::Escape),
            (b"\x1b[13;2u", Key::Enter),
            (b"\x1b[120;3u", Key::Alt('x')),
            (b"\x1b[1;3:1D", Key::AltArrow(Towards::Left)),
            (b"\x1b[97u", Key::Char('a')),
        ];
        for (bytes, want) in cases {
            assert_eq!(tokens(&[bytes]), vec![key(*want, bytes)], "{bytes:?}");
        }
    }

    #[test]
    fn releases_and_the_terminals_answers_are_tokens_of_their_own() {
        assert_eq!(
            tokens(&[b"\x1b[98;5:3u\x1b[57441;2u"]),
            vec![
                Token::Inert(b"\x1b[98;5:3u".to_vec()),
                Token::Inert(b"\x1b[57441;2u".to_vec())
            ]
        );
        assert_eq!(
            tokens(&[b"\x1b[?7u\x1b[?62;22c\x1b[?u"]),
            vec![
                Token::KeyboardFlags(7),
                Token::DeviceAttributes,
                key(Key::Other, b"\x1b[?u")
            ]
        );
    }
}
