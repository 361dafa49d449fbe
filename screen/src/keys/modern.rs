//! The two ways a program can ask for keys legacy encoding cannot tell
//! apart (Shift+Enter from Enter, Ctrl+I from Tab, Esc from Alt+…): the
//! kitty keyboard protocol (`CSI code ; mods u`) and xterm's
//! modifyOtherKeys (`CSI 27 ; mods ; code ~`), both ways: encoding a
//! [`KeyPress`] for a program, and decoding what a real terminal sends.
//!
//! Only keys legacy encoding cannot express change; cursor, editing and
//! function keys keep xterm's forms, which both protocols share (kitty
//! adds an event type to them, which decoding understands).

use std::fmt::Write;

use super::{KeyPress, NamedKey};
use crate::keyboard::kitty;

impl KeyPress {
    /// xterm's modifier parameter: 1 + Shift 1 + Alt 2 + Ctrl 4.
    pub(super) fn modifier(&self) -> u8 {
        1 + u8::from(self.shift) + 2 * u8::from(self.alt) + 4 * u8::from(self.ctrl)
    }

    /// The key's code in both protocols, where it has one: the Unicode
    /// code point of the unshifted key.
    fn text_code(&self) -> Option<u32> {
        match self.key {
            NamedKey::Enter => Some(13),
            NamedKey::Escape => Some(27),
            NamedKey::Tab => Some(9),
            NamedKey::Backspace => Some(127),
            NamedKey::Space => Some(32),
            NamedKey::Char(c) => Some(u32::from(c.to_lowercase().next().unwrap_or(c))),
            _ => None,
        }
    }

    /// The kitty protocol's encoding under `flags`, for a key whose legacy
    /// form those flags replace; `None` keeps the legacy form.
    pub(super) fn kitty(&self, flags: u8) -> Option<Vec<u8>> {
        let all = flags & kitty::ALL_KEYS != 0;
        if flags & (kitty::DISAMBIGUATE | kitty::ALL_KEYS) == 0 {
            return None;
        }
        let code = self.text_code()?;
        let modifier = self.modifier();
        let text_key = matches!(self.key, NamedKey::Char(_) | NamedKey::Space);
        let legacy_is_exact = match self.key {
            NamedKey::Escape => false,
            // Text, shifted or not, stays text.
            _ if text_key => !self.ctrl && !self.alt,
            _ => modifier == 1,
        };
        if legacy_is_exact && !all {
            return None;
        }
        let mut out = format!("\x1b[{code}");
        if modifier > 1 {
            let _ = write!(out, ";{modifier}");
        }
        out.push('u');
        Some(out.into_bytes())
    }

    /// modifyOtherKeys' encoding at `level` (1 or 2), for a modified key
    /// legacy encoding would send ambiguously; `None` keeps the legacy form.
    pub(super) fn modify_other_keys(&self, level: u8) -> Option<Vec<u8>> {
        if level == 0 || self.modifier() == 1 {
            return None;
        }
        let code = self.text_code()?;
        let ambiguous = match self.key {
            // Shift+Tab has its own CSI Z.
            NamedKey::Tab => self.ctrl || self.alt,
            NamedKey::Enter | NamedKey::Escape | NamedKey::Backspace => true,
            NamedKey::Space => self.ctrl || self.alt || self.shift,
            // Level 1 keeps what X11 defines (Ctrl+letter as its control
            // code, Alt as ESC before the key); shifted text stays text.
            NamedKey::Char(c) => {
                (level >= 2 && (self.ctrl || self.alt))
                    || (self.ctrl && super::control_code(c).is_none())
            }
            _ => false,
        };
        if !ambiguous {
            return None;
        }
        Some(format!("\x1b[27;{};{code}~", self.modifier()).into_bytes())
    }
}

/// What a key event from a real terminal was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyEvent {
    /// Pressed, or repeating while held.
    Press(KeyPress),
    /// Let go (kitty's event types), or a key that means nothing outside
    /// the protocol (a modifier alone, kitty's keypad, media and lock
    /// keys under its all-keys flag): nothing to act on.
    Inert,
}

/// Decodes one whole escape sequence a terminal sent for a key under the
/// kitty protocol or modifyOtherKeys (`CSI … u`, `CSI 27 ; m ; code ~`,
/// and xterm's `CSI 1 ; m X` forms with kitty's event type); `None` for
/// anything else, legacy bytes included.
pub fn decode_key(raw: &[u8]) -> Option<KeyEvent> {
    let body = raw.strip_prefix(b"\x1b[")?;
    let (&last, params) = body.split_last()?;
    let params = std::str::from_utf8(params).ok()?;
    if params.starts_with(['?', '>', '<', '=']) {
        return None;
    }
    let mut fields = params.split(';');
    let first = fields.next().unwrap_or("");
    let (modifier, release) = modifier_field(fields.next())?;
    let key = match last {
        b'u' => key_of_code(first.split(':').next()?.parse().ok()?)?,
        b'~' if first == "27" => key_of_code(fields.next()?.parse().ok()?)?,
        b'~' => tilde_key(first.parse().ok()?)?,
        b'A'..=b'Z' if matches!(first, "" | "1") => letter_key(last)?,
        _ => return None,
    };
    if release {
        return Some(KeyEvent::Inert);
    }
    let modifier = modifier.saturating_sub(1);
    let press = KeyPress {
        key,
        shift: modifier & 1 != 0,
        alt: modifier & 2 != 0,
        ctrl: modifier & 4 != 0,
    };
    Some(match press.key {
        NamedKey::Char(c) if is_functional_code(c) => KeyEvent::Inert,
        _ => KeyEvent::Press(press),
    })
}

/// `mods[:event]`: the modifier number and whether it is a release.
fn modifier_field(field: Option<&str>) -> Option<(u8, bool)> {
    let Some(field) = field.filter(|f| !f.is_empty()) else {
        return Some((1, false));
    };
    let mut parts = field.split(':');
    let modifier: u8 = parts.next()?.parse().ok()?;
    let release = match parts.next() {
        None | Some("1" | "2") => false,
        Some("3") => true,
        Some(_) => return None,
    };
    Some((modifier, release))
}

fn key_of_code(code: u32) -> Option<NamedKey> {
    Some(match code {
        13 => NamedKey::Enter,
        27 => NamedKey::Escape,
        9 => NamedKey::Tab,
        127 | 8 => NamedKey::Backspace,
        32 => NamedKey::Space,
        _ => NamedKey::Char(char::from_u32(code).filter(|c| !c.is_control())?),
    })
}

fn tilde_key(number: u8) -> Option<NamedKey> {
    const F_KEYS: [(u8, u8); 8] = [
        (15, 5),
        (17, 6),
        (18, 7),
        (19, 8),
        (20, 9),
        (21, 10),
        (23, 11),
        (24, 12),
    ];
    Some(match number {
        1 | 7 => NamedKey::Home,
        2 => NamedKey::Insert,
        3 => NamedKey::Delete,
        4 | 8 => NamedKey::End,
        5 => NamedKey::PageUp,
        6 => NamedKey::PageDown,
        13 => NamedKey::F(3),
        _ => NamedKey::F(F_KEYS.iter().find(|(n, _)| *n == number)?.1),
    })
}

fn letter_key(last: u8) -> Option<NamedKey> {
    Some(match last {
        b'A' => NamedKey::Up,
        b'B' => NamedKey::Down,
        b'C' => NamedKey::Right,
        b'D' => NamedKey::Left,
        b'H' => NamedKey::Home,
        b'F' => NamedKey::End,
        b'P'..=b'S' => NamedKey::F(last - b'P' + 1),
        _ => return None,
    })
}

/// kitty gives keys without a character (modifiers, keypad, media, lock
/// keys) codes in the private use area from 57344.
fn is_functional_code(c: char) -> bool {
    ('\u{e000}'..='\u{f8ff}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Modes;

    fn press(name: &str) -> KeyPress {
        KeyPress::parse(name).unwrap()
    }

    fn kitty_modes(flags: u8) -> Modes {
        Modes {
            kitty_flags: flags,
            ..Modes::default()
        }
    }

    #[test]
    fn kitty_flags_1_disambiguates_what_legacy_cannot() {
        let modes = kitty_modes(kitty::DISAMBIGUATE);
        let cases: &[(&str, &[u8])] = &[
            ("shift+enter", b"\x1b[13;2u"),
            ("ctrl+enter", b"\x1b[13;5u"),
            ("alt+enter", b"\x1b[13;3u"),
            ("enter", b"\r"),
            ("esc", b"\x1b[27u"),
            ("tab", b"\t"),
            ("ctrl+tab", b"\x1b[9;5u"),
            ("backspace", b"\x7f"),
            ("ctrl+c", b"\x1b[99;5u"),
            ("ctrl+shift+c", b"\x1b[99;6u"),
            ("alt+x", b"\x1b[120;3u"),
            ("a", b"a"),
            ("shift+a", b"A"),
            ("up", b"\x1b[A"),
            ("shift+up", b"\x1b[1;2A"),
            ("f5", b"\x1b[15~"),
        ];
        for (name, want) in cases {
            assert_eq!(press(name).encode(&modes), *want, "{name}");
        }
    }

    #[test]
    fn kitty_all_keys_sends_text_keys_as_codes_too() {
        let modes = kitty_modes(kitty::DISAMBIGUATE | kitty::ALL_KEYS);
        assert_eq!(press("a").encode(&modes), b"\x1b[97u");
        assert_eq!(press("enter").encode(&modes), b"\x1b[13u");
        assert_eq!(press("shift+a").encode(&modes), b"\x1b[97;2u");
    }

    #[test]
    fn modify_other_keys_marks_modified_keys() {
        let level = |n| Modes {
            modify_other_keys: n,
            ..Modes::default()
        };
        let cases: &[(&str, u8, &[u8])] = &[
            ("shift+enter", 1, b"\x1b[27;2;13~"),
            ("ctrl+enter", 2, b"\x1b[27;5;13~"),
            ("ctrl+c", 1, b"\x03"),
            ("ctrl+c", 2, b"\x1b[27;5;99~"),
            ("alt+x", 1, b"\x1bx"),
            ("alt+x", 2, b"\x1b[27;3;120~"),
            ("ctrl+1", 1, b"\x1b[27;5;49~"),
            ("shift+tab", 2, b"\x1b[Z"),
            ("enter", 2, b"\r"),
            ("a", 2, b"a"),
            ("shift+a", 2, b"A"),
        ];
        for (name, n, want) in cases {
            assert_eq!(press(name).encode(&level(*n)), *want, "{name} at {n}");
        }
    }

    #[test]
    fn what_a_terminal_sends_decodes_to_the_key() {
        let cases: &[(&[u8], &str)] = &[
            (b"\x1b[13;2u", "shift+enter"),
            (b"\x1b[98;5u", "ctrl+b"),
            (b"\x1b[98;5:1u", "ctrl+b"),
            (b"\x1b[98;5:2u", "ctrl+b"),
            (b"\x1b[97:65;2u", "shift+a"),
            (b"\x1b[97;1;97u", "a"),
            (b"\x1b[27u", "esc"),
            (b"\x1b[27;5;98~", "ctrl+b"),
            (b"\x1b[27;2;13~", "shift+enter"),
            (b"\x1b[1;5A", "ctrl+up"),
            (b"\x1b[1;3:2D", "alt+left"),
            (b"\x1b[5;5~", "ctrl+pageup"),
            (b"\x1b[24~", "f12"),
        ];
        for (raw, name) in cases {
            assert_eq!(
                decode_key(raw),
                Some(KeyEvent::Press(press(name))),
                "{}",
                String::from_utf8_lossy(raw)
            );
        }
    }

    #[test]
    fn releases_and_keys_without_text_are_inert() {
        assert_eq!(decode_key(b"\x1b[98;5:3u"), Some(KeyEvent::Inert));
        assert_eq!(decode_key(b"\x1b[1;1:3A"), Some(KeyEvent::Inert));
        assert_eq!(decode_key(b"\x1b[57442;5u"), Some(KeyEvent::Inert));
    }

    #[test]
    fn other_sequences_are_not_keys() {
        for raw in [
            &b"\x1b[?1u"[..],
            b"\x1b[?62;22c",
            b"\x1b[200~",
            b"\x1b[<0;1;1M",
            b"\x1b[0u\x1b",
            b"abc",
            b"\x1b[99999999999u",
            b"\x1b[1;5:9u",
        ] {
            assert_eq!(decode_key(raw), None, "{}", String::from_utf8_lossy(raw));
        }
    }

    #[test]
    fn encoding_then_decoding_gives_the_key_back() {
        let modes = kitty_modes(kitty::DISAMBIGUATE | kitty::ALL_KEYS);
        for name in ["shift+enter", "ctrl+c", "alt+x", "esc", "ctrl+alt+d", "tab"] {
            let bytes = press(name).encode(&modes);
            assert_eq!(
                decode_key(&bytes),
                Some(KeyEvent::Press(press(name))),
                "{name}"
            );
        }
    }
}
