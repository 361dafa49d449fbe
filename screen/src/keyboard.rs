//! The keyboard protocols a program asked for: the kitty keyboard
//! protocol's flags and xterm's modifyOtherKeys.
//!
//! alacritty_terminal implements the kitty stack itself, but behind a
//! config switch that stays off here: at its depth limit it drops an entry
//! of the *title* stack instead of its own (so the stack grows without
//! bound), and `CSI = flags u` changes the active mode without the stack
//! entry that `CSI ? u` reports. It has no modifyOtherKeys at all. So the
//! parser's callbacks land here instead, with kitty's model: each screen
//! (primary, alternate) has its own stack whose top is the active flags,
//! the bottom entry is always there, and popping past it leaves flags 0.
//!
//! [`KeyboardFollower`] runs the same model over a stream written to a
//! real terminal (`attach`), so the client knows what to undo on the way
//! out.

use std::fmt::Write;

use alacritty_terminal::vte::ansi::{
    Handler, KeyboardModes, KeyboardModesApplyBehavior, ModifyOtherKeys, NamedPrivateMode,
    PrivateMode, Processor,
};

use crate::emu::NeverSync;
use crate::vt_state::VtState;

/// Entries a screen's stack keeps, the bottom one included; a push beyond
/// drops the oldest push (kitty keeps 8 per screen, alacritty 4096; a
/// program nesting deeper is broken).
pub const MAX_KEYBOARD_STACK: usize = 16;

/// The kitty keyboard protocol's flags (`CSI > flags u`).
pub mod kitty {
    /// `ESC`, Alt+key and Ctrl+key arrive as `CSI … u`.
    pub const DISAMBIGUATE: u8 = 1;
    /// Releases and repeats are reported too.
    pub const EVENT_TYPES: u8 = 2;
    /// Shifted and base-layout keys are reported alongside.
    pub const ALTERNATE_KEYS: u8 = 4;
    /// Every key, text keys included, arrives as an escape code.
    pub const ALL_KEYS: u8 = 8;
    /// The text a key produces is reported alongside.
    pub const ASSOCIATED_TEXT: u8 = 16;
    /// Every flag the protocol defines.
    pub const ALL: u8 = 31;
}

/// Which screen's stack is in use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Active {
    #[default]
    Primary,
    Alternate,
}

/// The keyboard state one terminal keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Keyboard {
    primary: Vec<u8>,
    alternate: Vec<u8>,
    active: Active,
    /// xterm's modifyOtherKeys level: 0 off, 1 all but well-known keys, 2 all.
    modify_other_keys: u8,
}

impl Default for Keyboard {
    fn default() -> Keyboard {
        Keyboard {
            primary: vec![0],
            alternate: vec![0],
            active: Active::Primary,
            modify_other_keys: 0,
        }
    }
}

impl Keyboard {
    fn stack(&mut self) -> &mut Vec<u8> {
        match self.active {
            Active::Primary => &mut self.primary,
            Active::Alternate => &mut self.alternate,
        }
    }

    /// The active kitty flags.
    pub(crate) fn flags(&self) -> u8 {
        let stack = match self.active {
            Active::Primary => &self.primary,
            Active::Alternate => &self.alternate,
        };
        stack.last().copied().unwrap_or(0)
    }

    pub(crate) fn modify_other_keys(&self) -> u8 {
        self.modify_other_keys
    }

    pub(crate) fn push(&mut self, flags: u8) {
        let stack = self.stack();
        if stack.len() >= MAX_KEYBOARD_STACK {
            // The oldest push goes; the bottom entry stays.
            stack.remove(1);
        }
        stack.push(flags & kitty::ALL);
    }

    pub(crate) fn pop(&mut self, count: u16) {
        let stack = self.stack();
        let keep = stack.len().saturating_sub(usize::from(count));
        stack.truncate(keep.max(1));
        if keep == 0 {
            stack[0] = 0;
        }
    }

    pub(crate) fn set(&mut self, flags: u8, how: KeyboardModesApplyBehavior) {
        let flags = flags & kitty::ALL;
        let stack = self.stack();
        if let Some(top) = stack.last_mut() {
            *top = match how {
                KeyboardModesApplyBehavior::Replace => flags,
                KeyboardModesApplyBehavior::Union => *top | flags,
                KeyboardModesApplyBehavior::Difference => *top & !flags,
            };
        }
    }

    pub(crate) fn set_modify_other_keys(&mut self, mode: ModifyOtherKeys) {
        self.modify_other_keys = match mode {
            ModifyOtherKeys::Reset => 0,
            ModifyOtherKeys::EnableExceptWellDefined => 1,
            ModifyOtherKeys::EnableAll => 2,
        };
    }

    /// The answer to `CSI ? u`.
    pub(crate) fn flags_report(&self) -> String {
        format!("\x1b[?{}u", self.flags())
    }

    /// The answer to `CSI ? 4 m`.
    pub(crate) fn modify_other_keys_report(&self) -> String {
        format!("\x1b[>4;{}m", self.modify_other_keys)
    }

    /// The primary or alternate screen became active; each keeps its
    /// stack across visits, as in kitty and alacritty.
    pub(crate) fn switch_screen(&mut self, alternate: bool) {
        self.active = if alternate {
            Active::Alternate
        } else {
            Active::Primary
        };
    }

    /// RIS: everything as at the start.
    pub(crate) fn reset(&mut self) {
        *self = Keyboard::default();
    }

    /// Sequences that rebuild the primary screen's stack and
    /// modifyOtherKeys on a terminal in its initial keyboard state.
    pub(crate) fn replay_primary(&self, out: &mut String) {
        push_all(&self.primary, out);
        if self.modify_other_keys != 0 {
            out.push_str(&self.modify_other_keys_report());
        }
    }

    /// The alternate stack's pushes, for when the replay is on the
    /// alternate screen.
    pub(crate) fn replay_alternate(&self, out: &mut String) {
        push_all(&self.alternate, out);
    }

    /// What returns a real terminal this state was mirrored onto to where
    /// it was before: the alternate screen's pushes are popped there, the
    /// alternate screen is left, then the primary's pushes are popped.
    fn undo(&self) -> Vec<u8> {
        let mut out = String::new();
        if self.active == Active::Alternate {
            pop_all(&self.alternate, &mut out);
            out.push_str("\x1b[?1049l");
        }
        // Pushes left on an alternate screen not shown now stay with it,
        // as they would after the program's own exit.
        pop_all(&self.primary, &mut out);
        if self.modify_other_keys != 0 {
            out.push_str("\x1b[>4m");
        }
        out.into_bytes()
    }
}

/// Pushes every entry above the bottom one, and sets the bottom one if the
/// program changed it.
fn push_all(stack: &[u8], out: &mut String) {
    let Some((bottom, above)) = stack.split_first() else {
        return;
    };
    if *bottom != 0 {
        let _ = write!(out, "\x1b[={bottom};1u");
    }
    for flags in above {
        let _ = write!(out, "\x1b[>{flags}u");
    }
}

fn pop_all(stack: &[u8], out: &mut String) {
    let depth = stack.len().saturating_sub(1);
    if depth > 0 {
        let _ = write!(out, "\x1b[<{depth}u");
    }
    if stack.first().is_some_and(|&bottom| bottom != 0) {
        out.push_str("\x1b[=0;1u");
    }
}

/// Whether a private mode switches a real terminal between its primary
/// and alternate screens (47, 1047, 1049; alacritty only knows 1049).
fn swaps_screens(mode: &PrivateMode) -> bool {
    matches!(
        mode,
        PrivateMode::Named(NamedPrivateMode::SwapScreenAndSetRestoreCursor)
    ) || matches!(mode, PrivateMode::Unknown(47 | 1047))
}

/// Follows the keyboard protocols a stream of program output sets on the
/// real terminal it is written to, so the client can undo them when it
/// stops writing it (a detach): nothing else of the stream is kept.
///
/// Only escape sequences set keyboard modes, so vte sees a stream's
/// sequences and none of its text: from the ground state the follower
/// jumps to the next ESC, and vte is fed from there until the mirrored
/// state is back in the ground. A client following a flood of text
/// hands vte its few escape sequences instead of every byte.
#[derive(Default)]
pub struct KeyboardFollower {
    parser: Processor<NeverSync>,
    state: VtState,
    keyboard: Keyboard,
}

impl KeyboardFollower {
    pub fn feed(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            if self.state == VtState::Ground {
                let Some(escape) = memchr::memchr(0x1b, bytes) else {
                    return;
                };
                bytes = &bytes[escape..];
            }
            let from_ground = self.state == VtState::Ground;
            let sequence = self.sequence_len(bytes);
            let (sequence, rest) = bytes.split_at(sequence);
            let whole = from_ground && self.state == VtState::Ground;
            if !(whole && sets_no_keyboard_mode(sequence)) {
                self.parser
                    .advance(&mut Follow(&mut self.keyboard), sequence);
            }
            bytes = rest;
        }
    }

    /// How many of `bytes` it takes to bring the mirrored state back to
    /// the ground (all of them if it does not get there).
    fn sequence_len(&mut self, bytes: &[u8]) -> usize {
        for (at, &byte) in bytes.iter().enumerate() {
            if let Some(next) = self.state.after(byte) {
                self.state = next;
                if next == VtState::Ground {
                    return at + 1;
                }
            }
        }
        bytes.len()
    }

    /// The bytes that take back every keyboard mode the stream set, to be
    /// written before the terminal's other modes are reset (the alternate
    /// screen is left here, after its own pushes are popped).
    pub fn undo(&self) -> Vec<u8> {
        self.keyboard.undo()
    }

    /// The kitty flags the stream has active now.
    pub fn flags(&self) -> u8 {
        self.keyboard.flags()
    }

    /// A follower that starts where this one stands, for a stream that
    /// goes on with more than this one's (a client's own modes on the same
    /// terminal); `None` in the middle of an escape sequence, whose rest
    /// the copy could not read.
    pub fn fork(&self) -> Option<KeyboardFollower> {
        (self.state == VtState::Ground).then(|| KeyboardFollower {
            parser: Processor::default(),
            state: VtState::Ground,
            keyboard: self.keyboard.clone(),
        })
    }

    /// The modifyOtherKeys level the stream set.
    pub fn modify_other_keys(&self) -> u8 {
        self.keyboard.modify_other_keys()
    }
}

/// Whether `sequence`, one whole escape sequence from the ground state
/// back to it, is a CSI none of [`Follow`]'s callbacks can hear (a colour,
/// a cursor move): vte would end in the ground having done nothing, so it
/// is not fed. A flood of coloured text and every picture of a screen are
/// mostly these, and parsing them again on the client cost it 90% of its
/// time (callgrind). Keyboard modes end in `u`, private modes in `h` or
/// `l`, modifyOtherKeys is `CSI > … m`; a second ESC could start any of
/// them (or a reset), so such a sequence is fed whole.
fn sets_no_keyboard_mode(sequence: &[u8]) -> bool {
    let [0x1b, b'[', body @ .., last] = sequence else {
        return false;
    };
    if memchr::memchr(0x1b, body).is_some() {
        return false;
    }
    match last {
        b'u' | b'h' | b'l' => false,
        b'm' => !body.contains(&b'>'),
        _ => true,
    }
}

/// The parser callbacks that matter to [`KeyboardFollower`].
struct Follow<'a>(&'a mut Keyboard);

impl Handler for Follow<'_> {
    fn push_keyboard_mode(&mut self, mode: KeyboardModes) {
        self.0.push(mode.bits());
    }

    fn pop_keyboard_modes(&mut self, to_pop: u16) {
        self.0.pop(to_pop);
    }

    fn set_keyboard_mode(&mut self, mode: KeyboardModes, behavior: KeyboardModesApplyBehavior) {
        self.0.set(mode.bits(), behavior);
    }

    fn set_modify_other_keys(&mut self, mode: ModifyOtherKeys) {
        self.0.set_modify_other_keys(mode);
    }

    fn set_private_mode(&mut self, mode: PrivateMode) {
        if swaps_screens(&mode) {
            self.0.switch_screen(true);
        }
    }

    fn unset_private_mode(&mut self, mode: PrivateMode) {
        if swaps_screens(&mode) {
            self.0.switch_screen(false);
        }
    }

    fn reset_state(&mut self) {
        self.0.reset();
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::fast::tests::{chunked, piece};

    /// Output that sets keyboard modes, or seems to from inside a string.
    fn keyboard_piece() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            3 => piece(),
            2 => prop::sample::select(vec![
                "\x1b[>1u", "\x1b[>5u", "\x1b[<u", "\x1b[<3u", "\x1b[=9;2u", "\x1b[=2;3u", "\x1b[>4;2m",
                "\x1b[>4m", "\x1b[?1049h", "\x1b[?1049l", "\x1b[?47h", "\x1bc", "\x1b]0;\x1b[>3u\x07",
                "\x1bP\x1b[>7u", "\x1b[>\x1b[>2u", "\x1b[>2\x18u", "\u{e9}\x1b[>6u",
                // What the follower does not feed vte, and near misses.
                "\x1b[0m", "\x1b[1;31m", "\x1b[12;1H", "\x1b[2K", "\x1b[3\x1bc",
                "\x1b[?25\x1b[m", "\x1b[1\x18\x1b[>1u", "\x1b[4\x1b[?1049h",
            ])
            .prop_map(|s| s.as_bytes().to_vec()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

        /// Skipping text follows exactly what vte over every byte follows.
        #[test]
        fn skipping_text_follows_what_vte_follows(
            pieces in prop::collection::vec(keyboard_piece(), 0..60),
            cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
        ) {
            let (mut skipping, mut every_byte) = (KeyboardFollower::default(), Keyboard::default());
            let mut vte = Processor::<NeverSync>::new();
            for chunk in chunked(&pieces.concat(), &cuts) {
                skipping.feed(&chunk);
                vte.advance(&mut Follow(&mut every_byte), &chunk);
                prop_assert_eq!(&skipping.keyboard, &every_byte);
            }
        }
    }

    fn followed(bytes: &[u8]) -> KeyboardFollower {
        let mut follower = KeyboardFollower::default();
        follower.feed(bytes);
        follower
    }

    #[test]
    fn the_top_of_the_stack_is_the_active_flags() {
        let f = followed(b"\x1b[>1u\x1b[>3u");
        assert_eq!(f.flags(), 3);
        let f = followed(b"\x1b[>1u\x1b[>3u\x1b[<u");
        assert_eq!(f.flags(), 1);
        let f = followed(b"\x1b[>1u\x1b[<5u");
        assert_eq!(f.flags(), 0, "popping past the bottom leaves flags 0");
        let f = followed(b"\x1b[>1u\x1b[=4;2u");
        assert_eq!(f.flags(), 5, "union");
        let f = followed(b"\x1b[>7u\x1b[=2;3u");
        assert_eq!(f.flags(), 5, "difference");
        let f = followed(b"\x1b[>7u\x1b[=8u");
        assert_eq!(f.flags(), 8, "replace");
        let f = followed(b"\x1b[>255u");
        assert_eq!(f.flags(), kitty::ALL, "unknown bits are dropped");
    }

    #[test]
    fn each_screen_has_its_own_stack() {
        let f = followed(b"\x1b[>1u\x1b[?1049h");
        assert_eq!(f.flags(), 0, "the alternate screen starts without flags");
        let f = followed(b"\x1b[>1u\x1b[?1049h\x1b[>3u\x1b[?1049l");
        assert_eq!(f.flags(), 1);
        let f = followed(b"\x1b[>1u\x1b[?1049h\x1b[>3u\x1b[?1049l\x1b[?1049h");
        assert_eq!(f.flags(), 3, "and keeps its own across visits");
        let f = followed(b"\x1b[>1u\x1b[>4;2m\x1bc");
        assert_eq!((f.flags(), f.modify_other_keys()), (0, 0), "RIS resets");
    }

    #[test]
    fn the_stack_is_bounded() {
        let mut f = KeyboardFollower::default();
        for _ in 0..10_000 {
            f.feed(b"\x1b[>1u");
        }
        assert_eq!(f.keyboard.primary.len(), MAX_KEYBOARD_STACK);
        assert_eq!(
            f.undo(),
            format!("\x1b[<{}u", MAX_KEYBOARD_STACK - 1).as_bytes()
        );
    }

    #[test]
    fn undo_pops_what_was_pushed_and_resets_modify_other_keys() {
        assert_eq!(followed(b"plain text").undo(), b"");
        assert_eq!(followed(b"\x1b[>1u\x1b[>3u").undo(), b"\x1b[<2u");
        assert_eq!(followed(b"\x1b[>4;2m").undo(), b"\x1b[>4m");
        assert_eq!(followed(b"\x1b[>4;2m\x1b[>4m").undo(), b"");
        assert_eq!(
            followed(b"\x1b[>1u\x1b[?1049h\x1b[>3u").undo(),
            b"\x1b[<1u\x1b[?1049l\x1b[<1u"
        );
        assert_eq!(followed(b"\x1b[=1u").undo(), b"\x1b[=0;1u");
    }

    #[test]
    fn a_sequence_split_across_feeds_is_followed() {
        let mut f = KeyboardFollower::default();
        f.feed(b"\x1b[>");
        f.feed(b"1");
        f.feed(b"u");
        assert_eq!(f.flags(), 1);
    }

    #[test]
    fn a_fork_goes_on_from_where_it_was_made() {
        let mut f = followed(b"\x1b[>3u\x1b[>4;1m");
        let mut fork = f.fork().expect("in the ground state");
        fork.feed(b"\x1b[>1u");
        assert_eq!((fork.flags(), fork.modify_other_keys()), (1, 1));
        fork.feed(b"\x1b[<u");
        assert_eq!(fork.flags(), 3, "the original's push is below");
        f.feed(b"\x1b[>");
        assert!(f.fork().is_none(), "mid-sequence");
    }

    #[test]
    fn the_reports_answer_what_is_set() {
        let mut k = Keyboard::default();
        assert_eq!(k.flags_report(), "\x1b[?0u");
        k.push(5);
        assert_eq!(k.flags_report(), "\x1b[?5u");
        k.set_modify_other_keys(ModifyOtherKeys::EnableAll);
        assert_eq!(k.modify_other_keys_report(), "\x1b[>4;2m");
    }

    fn screen_fed(bytes: &[u8]) -> (crate::Screen, Vec<crate::ScreenEvent>) {
        let mut screen = crate::Screen::new(crate::Size { rows: 5, cols: 20 }, 100);
        let mut events = Vec::new();
        screen.feed(bytes, &mut events);
        (screen, events)
    }

    #[test]
    fn a_screen_answers_and_replays_what_its_program_asked_for() {
        let (screen, events) = screen_fed(b"\x1b[>1u\x1b[?u\x1b[>4;2m\x1b[?4m");
        let modes = screen.modes();
        assert_eq!((modes.kitty_flags, modes.modify_other_keys), (1, 2));
        let replies = [
            crate::ScreenEvent::Reply(b"\x1b[?1u".to_vec()),
            crate::ScreenEvent::Reply(b"\x1b[>4;2m".to_vec()),
        ];
        assert_eq!(events, replies);
        let (copy, _) = screen_fed(&screen.replay());
        assert_eq!(copy.modes(), modes);
        assert_eq!(
            screen.freeze().thaw().modes(),
            modes,
            "a frozen pane keeps them"
        );
        let (alt, _) = screen_fed(b"\x1b[>1u\x1b[?1049h\x1b[>5u");
        assert_eq!(alt.modes().kitty_flags, 5);
        let (copy, _) = screen_fed(&alt.replay());
        assert_eq!(copy.modes(), alt.modes());
        let (back, _) = screen_fed(&[alt.replay(), b"\x1b[?1049l".to_vec()].concat());
        assert_eq!(back.modes().kitty_flags, 1);
    }

    #[test]
    fn the_replay_rebuilds_the_state() {
        let source = followed(b"\x1b[=2u\x1b[>1u\x1b[>4;1m\x1b[?1049h\x1b[>9u");
        let mut bytes = String::new();
        source.keyboard.replay_primary(&mut bytes);
        bytes.push_str("\x1b[?1049h");
        source.keyboard.replay_alternate(&mut bytes);
        assert_eq!(followed(bytes.as_bytes()).keyboard, source.keyboard);
    }
}
