//! vte's parser states, mirrored byte by byte.
//!
//! `vte::Parser` keeps its state private, yet two readers of a stream need
//! to know it: the fast path (`fast`), which writes runs of text itself
//! only where vte would print, and the keyboard follower (`keyboard`),
//! which skips text altogether. Both follow vte with [`VtState::after`].

/// vte's parser states (`vte::State`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum VtState {
    #[default]
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

impl VtState {
    /// The state vte's `Parser::advance` moves to over `byte` (its
    /// `advance_ground`, `change_state` and `anywhere`), or `None` where
    /// it stays: text in the ground state, a string's body, a sequence's
    /// parameters.
    #[inline]
    pub(crate) fn after(self, byte: u8) -> Option<VtState> {
        use VtState::*;
        Some(match (self, byte) {
            (Ground, 0x1b) => Escape,
            (Ground, _) => return None,
            (DcsPassthrough, 0x18 | 0x1a | 0x9c) | (OscString, 0x07 | 0x18 | 0x1a) => Ground,
            (DcsPassthrough | OscString, 0x1b) => Escape,
            (DcsPassthrough | OscString, _) => return None,
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
            _ => return None,
        })
    }
}
