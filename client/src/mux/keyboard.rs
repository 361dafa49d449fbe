//! The user's terminal's keyboard protocol, kept to what the focused pane
//! asked for.
//!
//! A program that enables the kitty keyboard protocol (Claude Code and
//! Codex do, for Shift+Enter) or modifyOtherKeys asked *its* terminal,
//! which here is the pane's screen on the server. For its keys to arrive
//! encoded that way, the user's terminal has to send them so: the
//! multiplexer asks it once whether it speaks the kitty protocol (`CSI ? u`,
//! then `CSI c`, which every terminal answers, so a missing answer to the
//! first is known without a timeout), then pushes the focused pane's flags
//! onto it and pops them when focus moves or the multiplexer exits. A
//! terminal without the kitty protocol gets modifyOtherKeys instead, and
//! its `CSI 27 ; m ; code ~` keys are re-encoded as the pane asked.
//!
//! Keys always go to the focused pane. When what the terminal sends is not
//! what the pane asked for (focus just moved, or the terminal cannot), the
//! key is decoded and encoded again for the pane; a key let go is dropped.
//!
//! A pane whose program asked for no protocol but whose agent reads
//! another key as a new line (Claude Code: Alt+Enter) gets the terminal
//! set to tell Shift+Enter apart all the same (kitty's disambiguate flag,
//! else modifyOtherKeys), and its keys encoded again: Shift+Enter as that
//! key, everything else as a plain terminal sends it.

use std::borrow::Cow;

use signaltty_screen::{KeyEvent, KeyTarget, Modes, decode_key, kitty};

use crate::term::KeyboardUndo;

/// Asked once at start: the kitty flags, then device attributes.
pub const QUERY: &[u8] = b"\x1b[?u\x1b[c";

/// What the user's terminal was found to speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Support {
    /// No answer yet: nothing is changed on it.
    Unknown,
    Kitty,
    /// Answered device attributes but not `CSI ? u`.
    Legacy,
}

/// A keyboard encoding: kitty flags and a modifyOtherKeys level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Encoding {
    kitty_flags: u8,
    modify_other_keys: u8,
}

impl Encoding {
    fn of(modes: &Modes) -> Encoding {
        Encoding {
            kitty_flags: modes.kitty_flags,
            modify_other_keys: modes.modify_other_keys,
        }
    }
}

pub struct OuterKeyboard {
    support: Support,
    /// What the terminal sends now (what this multiplexer set on it).
    set: Encoding,
    undo: KeyboardUndo,
}

impl OuterKeyboard {
    /// `undo` is where the bytes that put the terminal back are kept for
    /// whoever gives the terminal back, however the multiplexer ends.
    pub fn new(undo: KeyboardUndo) -> OuterKeyboard {
        OuterKeyboard {
            support: Support::Unknown,
            set: Encoding::default(),
            undo,
        }
    }

    /// The terminal answered `CSI ? u`.
    pub fn speaks_kitty(&mut self) {
        self.support = Support::Kitty;
    }

    /// The terminal answered `CSI c`; without a kitty answer before it,
    /// it does not speak the protocol.
    pub fn answered_attributes(&mut self) {
        if self.support == Support::Unknown {
            self.support = Support::Legacy;
        }
    }

    /// The encoding to set on the terminal for the pane `target`.
    fn wanted(&self, target: &KeyTarget) -> Encoding {
        let pane = &target.modes;
        let translates = target.translates_shift_enter();
        match self.support {
            Support::Unknown => Encoding::default(),
            Support::Kitty if translates => Encoding {
                kitty_flags: kitty::DISAMBIGUATE,
                modify_other_keys: 0,
            },
            Support::Kitty => Encoding::of(pane),
            Support::Legacy => Encoding {
                kitty_flags: 0,
                modify_other_keys: if translates
                    || pane.kitty_flags & (kitty::DISAMBIGUATE | kitty::ALL_KEYS) != 0
                {
                    2
                } else {
                    pane.modify_other_keys
                },
            },
        }
    }

    /// The bytes that make the terminal send keys as the focused pane
    /// `target` asks (the defaults without a pane); empty when it already
    /// does.
    pub fn follow(&mut self, target: &KeyTarget) -> Vec<u8> {
        let wanted = self.wanted(target);
        if wanted == self.set {
            return Vec::new();
        }
        let mut out = String::new();
        if wanted.kitty_flags != self.set.kitty_flags {
            if self.set.kitty_flags != 0 {
                out.push_str("\x1b[<u");
            }
            if wanted.kitty_flags != 0 {
                out.push_str(&format!("\x1b[>{}u", wanted.kitty_flags));
            }
        }
        if wanted.modify_other_keys != self.set.modify_other_keys {
            match wanted.modify_other_keys {
                0 => out.push_str("\x1b[>4m"),
                level => out.push_str(&format!("\x1b[>4;{level}m")),
            }
        }
        self.set = wanted;
        self.undo.set(self.undo_bytes());
        out.into_bytes()
    }

    /// What takes back what this multiplexer set.
    fn undo_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        if self.set.kitty_flags != 0 {
            out.extend_from_slice(b"\x1b[<u");
        }
        if self.set.modify_other_keys != 0 {
            out.extend_from_slice(b"\x1b[>4m");
        }
        out
    }

    /// A key's bytes as the pane `target` asked for them; they pass
    /// unchanged when the terminal sends what the pane asked for. A pane
    /// that asked for nothing gets legacy bytes whatever arrives.
    pub fn for_pane<'a>(&self, raw: &'a [u8], target: &KeyTarget) -> Cow<'a, [u8]> {
        let asked = Encoding::of(&target.modes);
        if asked == self.set && asked != Encoding::default() {
            return Cow::Borrowed(raw);
        }
        match decode_key(raw) {
            Some(KeyEvent::Press(press)) => Cow::Owned(press.encode_for(target)),
            Some(KeyEvent::Inert) => Cow::Borrowed(&[]),
            // Legacy bytes: what the terminal sent is all there is.
            None => Cow::Borrowed(raw),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use signaltty_protocol::NewlineKey;

    fn pane(kitty_flags: u8, modify_other_keys: u8) -> KeyTarget {
        KeyTarget {
            modes: Modes {
                kitty_flags,
                modify_other_keys,
                ..Modes::default()
            },
            shift_enter_as: None,
        }
    }

    fn claude() -> KeyTarget {
        KeyTarget {
            shift_enter_as: Some(NewlineKey::AltEnter),
            ..pane(0, 0)
        }
    }

    /// Regression: Claude Code asks for no keyboard protocol, and its
    /// Shift+Enter arrived as CR, which submits.
    #[test]
    fn an_agent_that_asked_nothing_gets_its_new_line_for_shift_enter() {
        let (mut outer, undo) = kitty_terminal();
        assert_eq!(
            outer.follow(&claude()),
            b"\x1b[>1u",
            "the terminal tells it apart"
        );
        assert_eq!(undo.take(), b"\x1b[<u");
        assert_eq!(outer.for_pane(b"\x1b[13;2u", &claude()).as_ref(), b"\x1b\r");
        assert_eq!(outer.for_pane(b"\r", &claude()).as_ref(), b"\r");
        assert_eq!(outer.for_pane(b"\x1b[99;5u", &claude()).as_ref(), b"\x03");
        assert_eq!(outer.for_pane(b"\x1b[27u", &claude()).as_ref(), b"\x1b");
        assert_eq!(outer.follow(&pane(0, 0)), b"\x1b[<u", "a shell needs none");

        let mut xterm = OuterKeyboard::new(KeyboardUndo::default());
        xterm.answered_attributes();
        assert_eq!(xterm.follow(&claude()), b"\x1b[>4;2m");
        assert_eq!(
            xterm.for_pane(b"\x1b[27;2;13~", &claude()).as_ref(),
            b"\x1b\r"
        );
    }

    fn kitty_terminal() -> (OuterKeyboard, KeyboardUndo) {
        let undo = KeyboardUndo::default();
        let mut outer = OuterKeyboard::new(undo.clone());
        outer.speaks_kitty();
        outer.answered_attributes();
        (outer, undo)
    }

    #[test]
    fn nothing_changes_before_the_terminal_answers() {
        let mut outer = OuterKeyboard::new(KeyboardUndo::default());
        assert_eq!(outer.follow(&pane(1, 0)), b"");
    }

    #[test]
    fn a_kitty_terminal_follows_the_focused_pane_and_is_put_back() {
        let (mut outer, undo) = kitty_terminal();
        assert_eq!(outer.follow(&pane(0, 0)), b"");
        assert_eq!(outer.follow(&pane(1, 0)), b"\x1b[>1u");
        assert_eq!(undo.take(), b"\x1b[<u");
        assert_eq!(outer.follow(&pane(1, 0)), b"", "already so");
        assert_eq!(outer.follow(&pane(7, 0)), b"\x1b[<u\x1b[>7u");
        assert_eq!(outer.follow(&KeyTarget::default()), b"\x1b[<u");
        assert_eq!(undo.take(), b"");
    }

    #[test]
    fn a_terminal_without_kitty_gets_modify_other_keys() {
        let undo = KeyboardUndo::default();
        let mut outer = OuterKeyboard::new(undo.clone());
        outer.answered_attributes();
        assert_eq!(outer.follow(&pane(1, 0)), b"\x1b[>4;2m");
        assert_eq!(undo.take(), b"\x1b[>4m");
        // Its Shift+Enter reaches the kitty pane as kitty's.
        assert_eq!(
            outer.for_pane(b"\x1b[27;2;13~", &pane(1, 0)).as_ref(),
            b"\x1b[13;2u"
        );
        assert_eq!(outer.follow(&pane(0, 0)), b"\x1b[>4m");
    }

    #[test]
    fn keys_are_encoded_again_only_for_a_pane_that_asked_otherwise() {
        let (mut outer, _) = kitty_terminal();
        outer.follow(&pane(3, 0));
        assert_eq!(outer.set.kitty_flags, 3);
        let release = b"\x1b[13;2:3u";
        assert_eq!(outer.for_pane(release, &pane(3, 0)).as_ref(), release);
        assert_eq!(outer.for_pane(release, &pane(0, 0)).as_ref(), b"");
        assert_eq!(outer.for_pane(b"\x1b[99;5u", &pane(0, 0)).as_ref(), b"\x03");
        assert_eq!(outer.for_pane(b"\x1b[13;2u", &pane(0, 0)).as_ref(), b"\r");
        assert_eq!(outer.for_pane(b"ls", &pane(0, 0)).as_ref(), b"ls");
    }
}
