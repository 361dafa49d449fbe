//! The keyboard protocols of the terminal `attach` runs in.
//!
//! The pane's output reaches this terminal as it is, so the keyboard
//! protocols its program pushes (kitty's flags, modifyOtherKeys) are set
//! on this terminal too, and its keys arrive as the program asked. One
//! case needs more: an agent that asked for no protocol but reads another
//! key as a new line (Claude Code: Alt+Enter; see `KeyTarget`). Then
//! attach asks the terminal itself to tell Shift+Enter apart (kitty's
//! disambiguate flag and modifyOtherKeys; a terminal takes the one it
//! speaks), and the keys it sends are encoded again for the program:
//! Shift+Enter as the agent's new line, everything else as a plain
//! terminal sends it.
//!
//! Two followers keep count: one of the program's stream (what it asked
//! for), and, once attach set something of its own, one of everything
//! written to the terminal (what the terminal sends now, and what to pop
//! when attach gives the terminal back).

use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

use signaltty_protocol::NewlineKey;
use signaltty_screen::{KeyEvent, KeyTarget, KeyboardFollower, Modes, decode_key};

use crate::term::KeyboardUndo;

/// What attach sets so that Shift+Enter can be told from Enter.
const TELL_SHIFT_ENTER: &[u8] = b"\x1b[>1u\x1b[>4;2m";

/// How the thread that reads keys sends them on; written by the thread
/// that writes the pane's output.
#[derive(Debug, Default)]
pub(super) struct KeyRoute(Mutex<Route>);

#[derive(Debug, Clone, Copy, Default)]
struct Route {
    target: KeyTarget,
    /// What the terminal was asked to send: kitty flags, modifyOtherKeys.
    terminal: (u8, u8),
}

impl Route {
    fn program(&self) -> (u8, u8) {
        let modes = &self.target.modes;
        (modes.kitty_flags, modes.modify_other_keys)
    }

    /// Whether a key the terminal sent as `sequence` reaches the program
    /// as it is: the protocol that made its form is set on the terminal as
    /// the program asked. (A terminal takes the protocol it speaks of
    /// those it is asked for, so the form tells which.)
    fn passes(&self, sequence: &[u8]) -> bool {
        let ((terminal_flags, terminal_level), (flags, level)) = (self.terminal, self.program());
        if sequence.starts_with(b"\x1b[27;") && sequence.ends_with(b"~") {
            return terminal_level == level;
        }
        terminal_flags == flags
    }
}

impl KeyRoute {
    fn set(&self, route: Route) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = route;
    }

    fn get(&self) -> Route {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `input` as the program asked for it.
    pub(super) fn encode(&self, input: &[u8], paste: &mut bool) -> Vec<u8> {
        let route = self.get();
        if route.terminal == route.program() {
            return input.to_vec();
        }
        encode_again(input, &route, paste)
    }
}

/// The terminal's keyboard modes and attach's own.
pub(super) struct Keyboard {
    /// The program's stream: output and pictures.
    program: KeyboardFollower,
    /// Everything written to the terminal, once attach wrote something of
    /// its own; until then the terminal is where the program is.
    terminal: Option<KeyboardFollower>,
    shift_enter_as: Option<NewlineKey>,
    undo: KeyboardUndo,
    route: Arc<KeyRoute>,
}

impl Keyboard {
    pub(super) fn new(undo: KeyboardUndo) -> Keyboard {
        Keyboard {
            program: KeyboardFollower::default(),
            terminal: None,
            shift_enter_as: None,
            undo,
            route: Arc::default(),
        }
    }

    pub(super) fn route(&self) -> Arc<KeyRoute> {
        self.route.clone()
    }

    /// Writes a picture of the screen. A picture pushes the pane's keyboard
    /// modes as if onto a terminal in its first keyboard state, so what was
    /// pushed before it is popped first: otherwise every picture of a flood
    /// would stack the pane's flags once more, and output that later pops
    /// them would leave this terminal's on.
    pub(super) fn picture(&mut self, out: &mut impl Write, picture: &[u8]) -> std::io::Result<()> {
        out.write_all(&self.terminal().undo())?;
        self.program = KeyboardFollower::default();
        self.terminal = None;
        self.program.feed(picture);
        out.write_all(picture)?;
        self.settle(out)
    }

    /// Writes the pane's output.
    pub(super) fn output(&mut self, out: &mut impl Write, output: &[u8]) -> std::io::Result<()> {
        let before = self.sends();
        self.program.feed(output);
        if let Some(terminal) = self.terminal.as_mut() {
            terminal.feed(output);
        }
        out.write_all(output)?;
        // A shell's flood costs one comparison a chunk.
        if self.sends() != before || self.shift_enter_as.is_some() {
            self.settle(out)?;
        }
        Ok(())
    }

    /// A new session: the agent in the pane reads `key` as a new line; the
    /// first picture sets the terminal up.
    pub(super) fn attached(&mut self, key: Option<NewlineKey>) {
        self.shift_enter_as = key;
    }

    /// The agent in the pane reads `key` as a new line now.
    pub(super) fn shift_enter_as(
        &mut self,
        out: &mut impl Write,
        key: Option<NewlineKey>,
    ) -> std::io::Result<()> {
        self.shift_enter_as = key;
        self.settle(out)
    }

    fn terminal(&self) -> &KeyboardFollower {
        self.terminal.as_ref().unwrap_or(&self.program)
    }

    /// What the terminal sends: kitty flags and modifyOtherKeys level.
    fn sends(&self) -> (u8, u8) {
        let terminal = self.terminal();
        (terminal.flags(), terminal.modify_other_keys())
    }

    /// Sets what tells Shift+Enter apart where the program needs it and
    /// the terminal does not have it, and tells the key thread how keys go.
    fn settle(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        let target = KeyTarget {
            modes: Modes {
                kitty_flags: self.program.flags(),
                modify_other_keys: self.program.modify_other_keys(),
                ..Modes::default()
            },
            shift_enter_as: self.shift_enter_as,
        };
        if target.translates_shift_enter() && self.sends() == (0, 0) {
            let forked = match self.terminal.take() {
                Some(terminal) => Some(terminal),
                None => self.program.fork(),
            };
            // Mid-sequence, the next output tries again.
            if let Some(mut terminal) = forked {
                terminal.feed(TELL_SHIFT_ENTER);
                out.write_all(TELL_SHIFT_ENTER)?;
                self.terminal = Some(terminal);
            }
        }
        self.route.set(Route {
            target,
            terminal: self.sends(),
        });
        self.undo.set(self.terminal().undo());
        Ok(())
    }
}

/// Bracketed paste's markers: what lies between them is text, not keys.
const PASTE_START: &[u8] = b"\x1b[200~";
const PASTE_END: &[u8] = b"\x1b[201~";
/// The longest key sequence looked at (kitty's fields fit).
const MAX_KEY_SEQUENCE: usize = 32;

/// `input` with each key the terminal sent as an escape sequence that the
/// program did not ask for encoded as it asked; text, pasted text, and
/// what is no key (mouse and focus reports) pass as they are. A key let
/// go is dropped. `paste` carries an open paste from one read to the next.
fn encode_again(input: &[u8], route: &Route, paste: &mut bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut at = 0;
    while at < input.len() {
        let rest = &input[at..];
        if *paste {
            let end = find(rest, PASTE_END).map_or(rest.len(), |end| end + PASTE_END.len());
            *paste = end == rest.len() && !rest.ends_with(PASTE_END);
            out.extend_from_slice(&rest[..end]);
            at += end;
            continue;
        }
        if rest.starts_with(PASTE_START) {
            *paste = true;
            out.extend_from_slice(PASTE_START);
            at += PASTE_START.len();
            continue;
        }
        let Some(len) = csi_len(rest) else {
            out.push(rest[0]);
            at += 1;
            continue;
        };
        let sequence = &rest[..len];
        match decode_key(sequence) {
            _ if route.passes(sequence) => out.extend_from_slice(sequence),
            Some(KeyEvent::Press(press)) => out.extend_from_slice(&press.encode_for(&route.target)),
            Some(KeyEvent::Inert) => {}
            None => out.extend_from_slice(&rest[..len]),
        }
        at += len;
    }
    out
}

/// The length of the CSI sequence `bytes` starts with, if it does and it
/// ends within reach.
fn csi_len(bytes: &[u8]) -> Option<usize> {
    let params = bytes.strip_prefix(b"\x1b[")?;
    let end = params
        .iter()
        .take(MAX_KEY_SEQUENCE)
        .position(|b| (0x40..=0x7e).contains(b))?;
    Some(2 + end + 1)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claude() -> Route {
        Route {
            target: KeyTarget {
                shift_enter_as: Some(NewlineKey::AltEnter),
                ..KeyTarget::default()
            },
            terminal: (1, 2),
        }
    }

    fn keyboard() -> (Keyboard, KeyboardUndo) {
        let undo = KeyboardUndo::default();
        (Keyboard::new(undo.clone()), undo)
    }

    /// Regression: Claude Code asks for no keyboard protocol, and attach
    /// left the terminal sending Shift+Enter as CR, which submits.
    #[test]
    fn an_agent_that_asked_nothing_gets_shift_enter_told_apart() {
        let (mut keyboard, undo) = keyboard();
        let mut out = Vec::new();
        keyboard.picture(&mut out, b"\x1b[Hprompt").unwrap();
        assert_eq!(out, b"\x1b[Hprompt", "a shell needs nothing");
        out.clear();
        keyboard
            .shift_enter_as(&mut out, Some(NewlineKey::AltEnter))
            .unwrap();
        assert_eq!(out, TELL_SHIFT_ENTER);
        assert_eq!(undo.take(), b"\x1b[<1u\x1b[>4m");
        let route = keyboard.route();
        let mut paste = false;
        assert_eq!(route.encode(b"hi\x1b[13;2u", &mut paste), b"hi\x1b\r");
        assert_eq!(route.encode(b"\x1b[27;2;13~\r", &mut paste), b"\x1b\r\r");
        assert_eq!(route.encode(b"\x1b[99;5u", &mut paste), b"\x03");

        // The program asks for kitty itself: its push lands on top, and its
        // keys go as the terminal sends them.
        out.clear();
        keyboard.output(&mut out, b"\x1b[>7u").unwrap();
        assert_eq!(out, b"\x1b[>7u", "nothing more is written");
        let release = b"\x1b[13;2:3u";
        assert_eq!(route.encode(release, &mut paste), release);
        // A terminal without kitty's protocol sends attach's
        // modifyOtherKeys: those keys become kitty's.
        assert_eq!(route.encode(b"\x1b[27;2;13~", &mut paste), b"\x1b[13;2u");
        // It pops: attach's entry is on top again.
        out.clear();
        keyboard.output(&mut out, b"\x1b[<u").unwrap();
        assert_eq!(out, b"\x1b[<u");
        assert_eq!(route.encode(b"\x1b[13;2u", &mut paste), b"\x1b\r");
        // A new picture starts over, and sets attach's again.
        out.clear();
        keyboard.picture(&mut out, b"\x1b[Hagain").unwrap();
        assert_eq!(
            out,
            [&b"\x1b[<1u\x1b[>4m\x1b[Hagain"[..], TELL_SHIFT_ENTER].concat()
        );
    }

    #[test]
    fn a_shell_gets_keys_as_they_come() {
        let (mut keyboard, _) = keyboard();
        let mut out = Vec::new();
        keyboard.output(&mut out, b"$ ").unwrap();
        let mut paste = false;
        assert_eq!(
            keyboard.route().encode(b"\x1b[13;2u", &mut paste),
            b"\x1b[13;2u"
        );
    }

    #[test]
    fn pastes_mouse_and_focus_reports_pass_unchanged() {
        let mut paste = false;
        let pasted = b"\x1b[200~a\x1b[13;2ub\x1b[201~\x1b[13;2u";
        assert_eq!(
            encode_again(pasted, &claude(), &mut paste),
            b"\x1b[200~a\x1b[13;2ub\x1b[201~\x1b\r"
        );
        assert!(!paste);
        assert_eq!(
            encode_again(b"\x1b[200~half", &claude(), &mut paste),
            b"\x1b[200~half"
        );
        assert!(paste, "the paste goes on in the next read");
        assert_eq!(
            encode_again(b"\x1b[13;2u\x1b[201~x", &claude(), &mut paste),
            b"\x1b[13;2u\x1b[201~x"
        );
        assert!(!paste);
        for report in [&b"\x1b[<0;3;4M"[..], b"\x1b[I", b"\x1b[O"] {
            assert_eq!(encode_again(report, &claude(), &mut paste), report);
        }
        assert_eq!(
            encode_again(b"\x1b[13;2:3u", &claude(), &mut paste),
            b"",
            "a release"
        );
        assert_eq!(encode_again(b"\x1b[", &claude(), &mut paste), b"\x1b[");
    }
}
