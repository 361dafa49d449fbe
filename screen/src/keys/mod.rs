//! Named keys, as scripts write them (`enter`, `shift+tab`, `ctrl+c`,
//! tmux's `C-c`, `^C` and `BTab` too), and the bytes a program reading a
//! terminal gets for each, in the modes it asked for. [`KeyPress::parse`]
//! is signaltty's one reader of key names: `ctl send-keys` sends what it
//! reads, and the multiplexer binds its `[keys]` on it.
//!
//! The encoding is xterm's, which every agent CLI reads, unless the program
//! asked for the kitty keyboard protocol or modifyOtherKeys (`modern`):
//! cursor keys as
//! `ESC [ A`, or `ESC O A` once the program set DECCKM; modified cursor and
//! function keys as `ESC [ 1 ; m A` with xterm's modifier number; Ctrl with
//! a character as its control code; Alt as an ESC before the key.

mod modern;

use std::fmt;

pub use self::modern::{KeyEvent, decode_key};
use crate::Modes;
use signaltty_types::NewlineKey;

/// The longest key name accepted (`shift+pagedown` and the like fit).
pub const MAX_KEY_NAME: usize = 32;

/// A key without modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NamedKey {
    Enter,
    Escape,
    Tab,
    Backspace,
    Space,
    Up,
    Down,
    Left,
    Right,
    Home,
    End,
    PageUp,
    PageDown,
    Insert,
    Delete,
    /// F1 to F12.
    F(u8),
    /// A printable character.
    Char(char),
}

/// A key and the modifiers held with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyPress {
    pub key: NamedKey,
    pub shift: bool,
    pub alt: bool,
    pub ctrl: bool,
}

/// A key name that means nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownKey(pub String);

impl fmt::Display for UnknownKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not a key; use enter, esc, tab, backspace, space, up, down, left, right, \
             home, end, pageup, pagedown, insert, delete, f1-f12 or one character, with \
             ctrl+, alt+ or shift+ before it (tmux's C-x, ^X, M-x and BTab work too)",
            self.0
        )
    }
}

impl std::error::Error for UnknownKey {}

/// The names each key answers to, lowercase (tmux's spellings included).
const NAMES: &[(&str, NamedKey)] = &[
    ("enter", NamedKey::Enter),
    ("return", NamedKey::Enter),
    ("esc", NamedKey::Escape),
    ("escape", NamedKey::Escape),
    ("tab", NamedKey::Tab),
    ("backspace", NamedKey::Backspace),
    ("bspace", NamedKey::Backspace),
    ("space", NamedKey::Space),
    ("up", NamedKey::Up),
    ("down", NamedKey::Down),
    ("left", NamedKey::Left),
    ("right", NamedKey::Right),
    ("home", NamedKey::Home),
    ("end", NamedKey::End),
    ("pageup", NamedKey::PageUp),
    ("pgup", NamedKey::PageUp),
    ("ppage", NamedKey::PageUp),
    ("pagedown", NamedKey::PageDown),
    ("pgdn", NamedKey::PageDown),
    ("npage", NamedKey::PageDown),
    ("insert", NamedKey::Insert),
    ("ic", NamedKey::Insert),
    ("delete", NamedKey::Delete),
    ("del", NamedKey::Delete),
    ("dc", NamedKey::Delete),
];

impl KeyPress {
    /// Parses `name`: a key, after any of `ctrl+`, `alt+`, `shift+` (also
    /// tmux's `C-`, `M-`, `S-`, a leading `^` for Ctrl, and `BTab` for
    /// Shift+Tab). Names are case-insensitive except a single character,
    /// which is itself. This is the one key vocabulary: `ctl send-keys`
    /// and the multiplexer's `[keys]` both read names with it.
    pub fn parse(name: &str) -> Result<KeyPress, UnknownKey> {
        let unknown = || UnknownKey(name.chars().take(MAX_KEY_NAME).collect());
        if name.is_empty() || name.len() > MAX_KEY_NAME {
            return Err(unknown());
        }
        let mut press = KeyPress {
            key: NamedKey::Space,
            shift: false,
            alt: false,
            ctrl: false,
        };
        // tmux's caret notation, `^A` for `C-a`, only ever comes first.
        let mut rest = match name.strip_prefix('^').filter(|after| !after.is_empty()) {
            Some(after) => {
                press.ctrl = true;
                after
            }
            None => name,
        };
        while let Some((modifier, after)) = split_modifier(rest) {
            match modifier {
                Modifier::Ctrl => press.ctrl = true,
                Modifier::Alt => press.alt = true,
                Modifier::Shift => press.shift = true,
            }
            rest = after;
        }
        press.key = base_key(rest).ok_or_else(unknown)?;
        if rest.eq_ignore_ascii_case("btab") {
            press.shift = true;
        }
        Ok(press)
    }

    /// The bytes `target`'s program gets for this key: as [`Self::encode`]
    /// has it, but Shift+Enter to a program that asked for no protocol
    /// telling it from Enter is the key its agent reads as a new line.
    pub fn encode_for(&self, target: &KeyTarget) -> Vec<u8> {
        match target.shift_enter_as {
            Some(key) if self.is_shift_enter() && !target.tells_shift_enter() => {
                KeyPress::from(key).encode(&target.modes)
            }
            _ => self.encode(&target.modes),
        }
    }

    fn is_shift_enter(&self) -> bool {
        self.key == NamedKey::Enter && self.shift && !self.alt && !self.ctrl
    }

    /// The bytes the program gets for this key in `modes`: the kitty
    /// protocol's or modifyOtherKeys' form if the program asked for one
    /// and the key has one, else xterm's.
    pub fn encode(&self, modes: &Modes) -> Vec<u8> {
        if let Some(bytes) = self.kitty(modes.kitty_flags) {
            return bytes;
        }
        if let Some(bytes) = self.modify_other_keys(modes.modify_other_keys) {
            return bytes;
        }
        let mut out = Vec::new();
        let modifier = self.modifier();
        match self.key {
            NamedKey::Char(c) => self.encode_char(c, &mut out),
            NamedKey::Space => self.encode_char(' ', &mut out),
            NamedKey::Enter => self.legacy(b"\r", &mut out),
            NamedKey::Escape => self.legacy(b"\x1b", &mut out),
            NamedKey::Backspace if self.ctrl => self.legacy(b"\x08", &mut out),
            NamedKey::Backspace => self.legacy(b"\x7f", &mut out),
            NamedKey::Tab if self.shift => {
                let alt = KeyPress {
                    shift: false,
                    ..*self
                };
                alt.legacy(b"\x1b[Z", &mut out);
            }
            NamedKey::Tab => self.legacy(b"\t", &mut out),
            NamedKey::Up => cursor(b'A', modifier, modes, &mut out),
            NamedKey::Down => cursor(b'B', modifier, modes, &mut out),
            NamedKey::Right => cursor(b'C', modifier, modes, &mut out),
            NamedKey::Left => cursor(b'D', modifier, modes, &mut out),
            NamedKey::Home => cursor(b'H', modifier, modes, &mut out),
            NamedKey::End => cursor(b'F', modifier, modes, &mut out),
            NamedKey::Insert => tilde(2, modifier, &mut out),
            NamedKey::Delete => tilde(3, modifier, &mut out),
            NamedKey::PageUp => tilde(5, modifier, &mut out),
            NamedKey::PageDown => tilde(6, modifier, &mut out),
            NamedKey::F(n) => function(n, modifier, &mut out),
        }
        out
    }

    /// A key with no encoding of its own for Shift or Ctrl: Alt is an ESC
    /// before it.
    fn legacy(&self, bytes: &[u8], out: &mut Vec<u8>) {
        if self.alt {
            out.push(0x1b);
        }
        out.extend_from_slice(bytes);
    }

    fn encode_char(&self, c: char, out: &mut Vec<u8>) {
        if self.alt {
            out.push(0x1b);
        }
        let c = if self.shift { shifted(c) } else { c };
        match control_code(c).filter(|_| self.ctrl) {
            Some(code) => out.push(code),
            None => {
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
}

/// What decides the bytes a key becomes for one pane's program: the
/// modes it asked for, and the key its agent reads as a new line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeyTarget {
    pub modes: Modes,
    /// What Shift+Enter is sent as while the program asked for no
    /// protocol that tells it from Enter (`None`: as Enter).
    pub shift_enter_as: Option<NewlineKey>,
}

impl KeyTarget {
    /// Whether the program asked for a protocol in which Shift+Enter has
    /// an encoding of its own.
    pub fn tells_shift_enter(&self) -> bool {
        let press = KeyPress {
            key: NamedKey::Enter,
            shift: true,
            alt: false,
            ctrl: false,
        };
        press.kitty(self.modes.kitty_flags).is_some()
            || press
                .modify_other_keys(self.modes.modify_other_keys)
                .is_some()
    }

    /// Whether Shift+Enter is sent as a key other than itself: the program
    /// asked for nothing that tells it apart, and its agent reads another
    /// key as a new line.
    pub fn translates_shift_enter(&self) -> bool {
        self.shift_enter_as.is_some() && !self.tells_shift_enter()
    }

    /// One line on how keys reach the program, for `ctl explain`.
    pub fn describe(&self) -> String {
        let shift_enter = KeyPress {
            key: NamedKey::Enter,
            shift: true,
            alt: false,
            ctrl: false,
        };
        let protocol = if self.modes.kitty_flags
            & (crate::kitty::DISAMBIGUATE | crate::kitty::ALL_KEYS)
            != 0
        {
            format!(
                "the kitty keyboard protocol (flags {})",
                self.modes.kitty_flags
            )
        } else if self.modes.modify_other_keys != 0 {
            format!("modifyOtherKeys level {}", self.modes.modify_other_keys)
        } else {
            "xterm's legacy keys (it asked for no keyboard protocol)".to_string()
        };
        let bytes = escaped(&shift_enter.encode_for(self));
        match self.shift_enter_as {
            Some(key) if self.translates_shift_enter() => format!(
                "{protocol}; Shift+Enter is sent as {} ({bytes}), which its agent reads as a new line",
                key.as_str()
            ),
            _ => format!("{protocol}; Shift+Enter is sent as {bytes}"),
        }
    }
}

impl From<NewlineKey> for KeyPress {
    fn from(key: NewlineKey) -> KeyPress {
        let (key, alt, ctrl) = match key {
            NewlineKey::AltEnter => (NamedKey::Enter, true, false),
            NewlineKey::CtrlJ => (NamedKey::Char('j'), false, true),
        };
        KeyPress {
            key,
            shift: false,
            alt,
            ctrl,
        }
    }
}

/// Bytes as a person reads them: `ESC [13;2u`, `ESC CR`, `CR`.
fn escaped(bytes: &[u8]) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut text = String::new();
    for &byte in bytes {
        let control = match byte {
            0x1b => "ESC",
            b'\r' => "CR",
            b'\n' => "LF",
            0x20..0x7f => {
                text.push(char::from(byte));
                continue;
            }
            _ => "?",
        };
        words.extend((!text.is_empty()).then(|| std::mem::take(&mut text)));
        words.push(control.to_string());
    }
    words.extend((!text.is_empty()).then_some(text));
    words.join(" ")
}

enum Modifier {
    Ctrl,
    Alt,
    Shift,
}

/// `ctrl+x` / `C-x` and friends: the modifier and what follows it. The
/// first `+` or `-` ends the modifier, so `M-+` is Alt with `+`; a lone
/// `+` or `-` is a character, not a modifier.
fn split_modifier(name: &str) -> Option<(Modifier, &str)> {
    let (head, rest) = name
        .split_once(['+', '-'])
        .filter(|(_, rest)| !rest.is_empty())?;
    let modifier = match head.to_ascii_lowercase().as_str() {
        "ctrl" | "control" | "c" => Modifier::Ctrl,
        "alt" | "meta" | "m" => Modifier::Alt,
        "shift" | "s" => Modifier::Shift,
        _ => return None,
    };
    Some((modifier, rest))
}

fn base_key(name: &str) -> Option<NamedKey> {
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return (!c.is_control()).then_some(NamedKey::Char(c));
    }
    let lower = name.to_ascii_lowercase();
    if lower == "btab" {
        return Some(NamedKey::Tab);
    }
    if let Some(n) = lower.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()) {
        return (1..=12).contains(&n).then_some(NamedKey::F(n));
    }
    NAMES
        .iter()
        .find(|(known, _)| *known == lower)
        .map(|(_, key)| *key)
}

/// What Ctrl makes of a character: `ctrl+c` is 0x03, `ctrl+[` ESC,
/// `ctrl+space` NUL; `None` when Ctrl changes nothing.
fn control_code(c: char) -> Option<u8> {
    match c {
        'a'..='z' => Some(c as u8 - b'a' + 1),
        'A'..='Z' => Some(c as u8 - b'A' + 1),
        ' ' | '@' | '2' => Some(0),
        '[' | '3' => Some(0x1b),
        '\\' | '4' => Some(0x1c),
        ']' | '5' => Some(0x1d),
        '^' | '6' => Some(0x1e),
        '_' | '/' | '7' => Some(0x1f),
        '?' | '8' => Some(0x7f),
        _ => None,
    }
}

fn shifted(c: char) -> char {
    c.to_uppercase()
        .next()
        .filter(|_| c.is_lowercase())
        .unwrap_or(c)
}

/// A cursor key: `ESC [ A`, `ESC O A` under DECCKM, `ESC [ 1 ; m A`
/// with modifiers (which DECCKM does not change).
fn cursor(final_byte: u8, modifier: u8, modes: &Modes, out: &mut Vec<u8>) {
    if modifier > 1 {
        out.extend_from_slice(format!("\x1b[1;{modifier}").as_bytes());
    } else if modes.app_cursor {
        out.extend_from_slice(b"\x1bO");
    } else {
        out.extend_from_slice(b"\x1b[");
    }
    out.push(final_byte);
}

/// `ESC [ n ~`, or `ESC [ n ; m ~` with modifiers.
fn tilde(number: u8, modifier: u8, out: &mut Vec<u8>) {
    let text = if modifier > 1 {
        format!("\x1b[{number};{modifier}~")
    } else {
        format!("\x1b[{number}~")
    };
    out.extend_from_slice(text.as_bytes());
}

/// F1–F4 are SS3 `P`–`S` (CSI with modifiers), F5–F12 tilde keys.
fn function(n: u8, modifier: u8, out: &mut Vec<u8>) {
    const TILDE: [u8; 8] = [15, 17, 18, 19, 20, 21, 23, 24];
    match n {
        1..=4 => {
            let final_byte = b'P' + (n - 1);
            if modifier > 1 {
                out.extend_from_slice(format!("\x1b[1;{modifier}").as_bytes());
            } else {
                out.extend_from_slice(b"\x1bO");
            }
            out.push(final_byte);
        }
        _ => tilde(TILDE[usize::from(n - 5).min(7)], modifier, out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(name: &str) -> Vec<u8> {
        KeyPress::parse(name).unwrap().encode(&Modes::default())
    }

    fn target(kitty_flags: u8, modify_other_keys: u8, key: Option<NewlineKey>) -> KeyTarget {
        KeyTarget {
            modes: Modes {
                kitty_flags,
                modify_other_keys,
                ..Modes::default()
            },
            shift_enter_as: key,
        }
    }

    /// Regression: Claude Code asks for no keyboard protocol, so Shift+Enter
    /// went out as CR and submitted the prompt.
    #[test]
    fn shift_enter_is_the_agents_new_line_where_nothing_tells_it_apart() {
        let shift_enter = KeyPress::parse("shift+enter").unwrap();
        let claude = target(0, 0, Some(NewlineKey::AltEnter));
        assert_eq!(shift_enter.encode_for(&claude), b"\x1b\r");
        let ctrl_j = target(0, 0, Some(NewlineKey::CtrlJ));
        assert_eq!(shift_enter.encode_for(&ctrl_j), b"\n");
        assert_eq!(shift_enter.encode_for(&target(0, 0, None)), b"\r");
        // A program that asked for a protocol gets Shift+Enter itself.
        let kitty = target(1, 0, Some(NewlineKey::AltEnter));
        assert_eq!(shift_enter.encode_for(&kitty), b"\x1b[13;2u");
        let other_keys = target(0, 1, Some(NewlineKey::AltEnter));
        assert_eq!(shift_enter.encode_for(&other_keys), b"\x1b[27;2;13~");
        // Flags that do not change Enter leave it to the fallback.
        let releases_only = target(2, 0, Some(NewlineKey::AltEnter));
        assert_eq!(shift_enter.encode_for(&releases_only), b"\x1b\r");
        // Every other key is as `encode` has it.
        for name in ["enter", "ctrl+enter", "alt+enter", "shift+tab", "a"] {
            let press = KeyPress::parse(name).unwrap();
            assert_eq!(
                press.encode_for(&claude),
                press.encode(&claude.modes),
                "{name}"
            );
        }
    }

    #[test]
    fn how_keys_reach_a_program_is_said_in_one_line() {
        let claude = target(0, 0, Some(NewlineKey::AltEnter)).describe();
        assert!(claude.contains("legacy keys"), "{claude}");
        assert!(claude.contains("sent as alt+enter (ESC CR)"), "{claude}");
        let shell = target(0, 0, None).describe();
        assert!(shell.ends_with("Shift+Enter is sent as CR"), "{shell}");
        let codex = target(7, 0, Some(NewlineKey::AltEnter)).describe();
        assert!(
            codex.starts_with("the kitty keyboard protocol (flags 7)"),
            "{codex}"
        );
        assert!(codex.ends_with("sent as ESC [13;2u"), "{codex}");
        let xterm = target(0, 2, None).describe();
        assert!(xterm.contains("modifyOtherKeys level 2"), "{xterm}");
    }

    #[test]
    fn named_keys_encode_as_xterm_does() {
        let cases: &[(&str, &[u8])] = &[
            ("enter", b"\r"),
            ("Enter", b"\r"),
            ("esc", b"\x1b"),
            ("tab", b"\t"),
            ("shift+tab", b"\x1b[Z"),
            ("BTab", b"\x1b[Z"),
            ("S-Tab", b"\x1b[Z"),
            ("backspace", b"\x7f"),
            ("space", b" "),
            ("up", b"\x1b[A"),
            ("left", b"\x1b[D"),
            ("shift+up", b"\x1b[1;2A"),
            ("ctrl+right", b"\x1b[1;5C"),
            ("alt+left", b"\x1b[1;3D"),
            ("home", b"\x1b[H"),
            ("end", b"\x1b[F"),
            ("pageup", b"\x1b[5~"),
            ("pagedown", b"\x1b[6~"),
            ("delete", b"\x1b[3~"),
            ("ctrl+delete", b"\x1b[3;5~"),
            ("f1", b"\x1bOP"),
            ("F4", b"\x1bOS"),
            ("f5", b"\x1b[15~"),
            ("f12", b"\x1b[24~"),
            ("shift+f1", b"\x1b[1;2P"),
            ("ctrl+c", b"\x03"),
            ("C-c", b"\x03"),
            ("ctrl+C", b"\x03"),
            ("ctrl+[", b"\x1b"),
            ("ctrl+space", b"\x00"),
            ("alt+x", b"\x1bx"),
            ("M-x", b"\x1bx"),
            ("alt+enter", b"\x1b\r"),
            ("ctrl+alt+d", b"\x1b\x04"),
            ("y", b"y"),
            ("Y", b"Y"),
            ("shift+y", b"Y"),
            ("+", b"+"),
            ("-", b"-"),
            ("ctrl++", b"+"),
            ("^c", b"\x03"),
            ("^C", b"\x03"),
            ("^", b"^"),
            ("^^", b"\x1e"),
            ("M-+", b"\x1b+"),
            ("M--", b"\x1b-"),
            ("é", "é".as_bytes()),
        ];
        for (name, want) in cases {
            assert_eq!(bytes(name), *want, "{name}");
        }
    }

    /// `ctl send-keys` and the multiplexer's `[keys]` read names with this
    /// one parser: tmux's spellings and the long ones are the same press.
    #[test]
    fn tmux_names_and_long_names_are_the_same_press() {
        let same = [
            ("C-a", "ctrl+a"),
            ("^a", "control+a"),
            ("^A", "C-A"),
            ("^[", "ctrl+["),
            ("M-x", "alt+x"),
            ("M-x", "meta+x"),
            ("M-+", "alt++"),
            ("M--", "alt+-"),
            ("C-Left", "ctrl+left"),
            ("M-Left", "alt+left"),
            ("BTab", "shift+tab"),
            ("BTab", "btab"),
            ("S-Tab", "shift+tab"),
            ("PageUp", "ppage"),
            ("PageUp", "pgup"),
            ("PageDown", "npage"),
            ("PageDown", "pgdn"),
            ("Insert", "ic"),
            ("Delete", "dc"),
            ("Delete", "del"),
            ("Backspace", "bspace"),
            ("Escape", "esc"),
            ("Enter", "return"),
            ("Space", "space"),
            ("F5", "f5"),
        ];
        for (tmux, long) in same {
            let press = KeyPress::parse(tmux);
            assert!(press.is_ok(), "{tmux}");
            assert_eq!(press, KeyPress::parse(long), "{tmux} = {long}");
        }
    }

    #[test]
    fn cursor_keys_follow_decckm() {
        let modes = Modes {
            app_cursor: true,
            ..Modes::default()
        };
        let up = KeyPress::parse("up").unwrap();
        assert_eq!(up.encode(&modes), b"\x1bOA");
        let shifted = KeyPress::parse("shift+up").unwrap();
        assert_eq!(shifted.encode(&modes), b"\x1b[1;2A");
    }

    #[test]
    fn unknown_names_are_refused_with_the_list() {
        for name in ["", "shfit+tab", "f13", "f0", "ctrl+", "enterr", "\x07"] {
            let err = KeyPress::parse(name).unwrap_err();
            assert!(err.to_string().contains("is not a key"), "{name}: {err}");
        }
        let long = "x".repeat(1000);
        let err = KeyPress::parse(&long).unwrap_err();
        assert!(err.to_string().len() < 400, "the name is cut: {err}");
    }
}
