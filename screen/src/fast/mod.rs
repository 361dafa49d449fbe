//! The parser in front of the emulator: vte, with runs of printable ASCII
//! written straight into the grid.
//!
//! vte hands every printable character to `Term::input` one by one, which
//! measures its width, checks for a pending wrap, insert mode and wide
//! characters, maps it through the charset and writes one cell: a quarter
//! of a coloured flood's parse. Most output is runs of plain ASCII between
//! escape sequences, and within a row such a run needs none of those
//! checks but once. So [`Parser`] mirrors vte's state machine (only its
//! state, byte by byte outside of text, exactly as `vte::Parser` moves
//! between states) and, where vte is in its ground state with no partial
//! UTF-8 character, writes a run of printable ASCII into the cursor's row
//! in one loop ([`Emu::write_ascii`]) instead of feeding it to vte.
//!
//! Every run's last character still goes through vte, so that its own
//! state (the character `CSI b` repeats) stays what it would have been; a
//! run that reaches the end of the row leaves its wrap to vte as well, and
//! so does everything `write_ascii` declines (insert mode, a charset other
//! than ASCII, a pen with a hyperlink or an underline colour, wide
//! characters in the way). `tests::fast_path_matches_vte` compares the two
//! paths on arbitrary input.

use alacritty_terminal::vte::ansi::Processor;

use crate::emu::{Emu, NeverSync};

/// vte's parser states (`vte::State`), which it keeps private.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Ground,
    Escape,
    EscapeIntermediate,
    CsiEntry,
    CsiParam,
    CsiIntermediate,
    CsiIgnore,
    DcsEntry,
    DcsParam,
    DcsIntermediate,
    DcsIgnore,
    DcsPassthrough,
    OscString,
    SosPmApcString,
}

/// vte's processor and the mirror of its state.
pub(crate) struct Parser {
    vte: Processor<NeverSync>,
    state: State,
    /// Whether the last byte vte took in its ground state was ASCII: then
    /// it holds no partial UTF-8 character.
    ascii: bool,
    /// Off only for tests: everything goes through vte.
    fast: bool,
}

impl Parser {
    pub(crate) fn new() -> Parser {
        Parser {
            vte: Processor::new(),
            state: State::Ground,
            ascii: true,
            fast: true,
        }
    }

    /// A parser that feeds every byte to vte: the oracle the fast path is
    /// tested against.
    #[cfg(test)]
    pub(crate) fn slow() -> Parser {
        Parser {
            fast: false,
            ..Parser::new()
        }
    }

    /// Parses `bytes` into `emu`, exactly as `vte::ansi::Processor` would.
    pub(crate) fn advance(&mut self, emu: &mut Emu<'_>, bytes: &[u8]) {
        if !self.fast {
            return self.vte.advance(emu, bytes);
        }
        // bytes[slow..i] are waiting for vte.
        let (mut slow, mut i) = (0, 0);
        while i < bytes.len() {
            let byte = bytes[i];
            if self.state == State::Ground && self.ascii && is_printable(byte) {
                let run = printable_len(&bytes[i..]);
                // The run's last character goes to vte (see the module doc).
                if run > 1 {
                    self.vte.advance(emu, &bytes[slow..i]);
                    slow = i;
                    match emu.write_ascii(&bytes[i..i + run - 1]) {
                        Some(0) => {}
                        Some(written) => {
                            i += written;
                            slow = i;
                            continue;
                        }
                        // Nothing of this run can go fast: all of it to vte.
                        None => {
                            i += run;
                            continue;
                        }
                    }
                }
            }
            self.step(byte);
            i += 1;
        }
        self.vte.advance(emu, &bytes[slow..]);
    }

    /// Moves the mirrored state over `byte` as vte's `Parser::advance`
    /// does (its `advance_ground`, `change_state` and `anywhere`).
    #[inline]
    fn step(&mut self, byte: u8) {
        use State::*;
        let next = match (self.state, byte) {
            (Ground, 0x1b) => Escape,
            (Ground, _) => {
                self.ascii = byte < 0x80;
                return;
            }
            (DcsPassthrough, 0x18 | 0x1a | 0x9c) | (OscString, 0x07 | 0x18 | 0x1a) => Ground,
            (DcsPassthrough | OscString, 0x1b) => Escape,
            (DcsPassthrough | OscString, _) => return,
            // Anywhere else, CAN and SUB cancel and ESC starts over.
            (_, 0x18 | 0x1a) => Ground,
            (_, 0x1b) => Escape,
            (Escape, 0x20..=0x2f) => EscapeIntermediate,
            (Escape, 0x50) => DcsEntry,
            (Escape, 0x58 | 0x5e | 0x5f) => SosPmApcString,
            (Escape, 0x5b) => CsiEntry,
            (Escape, 0x5d) => OscString,
            (Escape | EscapeIntermediate, 0x30..=0x7e) => Ground,
            (CsiEntry | CsiParam, 0x20..=0x2f) => CsiIntermediate,
            (CsiEntry, 0x30..=0x3f) => CsiParam,
            (CsiParam, 0x3c..=0x3f) | (CsiIntermediate, 0x30..=0x3f) => CsiIgnore,
            (CsiEntry | CsiParam | CsiIntermediate | CsiIgnore, 0x40..=0x7e) => Ground,
            (DcsEntry | DcsParam, 0x20..=0x2f) => DcsIntermediate,
            (DcsEntry, 0x30..=0x3f) => DcsParam,
            (DcsParam, 0x3c..=0x3f) | (DcsIntermediate, 0x30..=0x3f) => DcsIgnore,
            (DcsEntry | DcsParam | DcsIntermediate, 0x40..=0x7e) => DcsPassthrough,
            _ => return,
        };
        // Leaving a sequence, vte holds no partial character.
        self.ascii = true;
        self.state = next;
    }
}

/// A byte vte prints as a character of width 1 (DEL it drops).
#[inline]
fn is_printable(byte: u8) -> bool {
    (0x20..0x7f).contains(&byte)
}

/// How many bytes from the start of `bytes` are printable ASCII.
#[inline]
fn printable_len(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .position(|&b| !is_printable(b))
        .unwrap_or(bytes.len())
}

#[cfg(test)]
mod tests;
