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
//! The commonest escape sequence in such output, SGR with plain numbers
//! (`ESC [ 1 ; 31 m`), is applied here too ([`Sgr`]), as vte maps it.
//!
//! vte remembers the last character it printed for `CSI b` (REP); with
//! runs bypassing it that memory is stale, so the mirror also follows a
//! CSI sequence's parameters, and a REP vte would carry out is cancelled
//! in vte and repeated here with the last character written
//! ([`Emu::repeat`]). A run that reaches the end of the row leaves its
//! wrap to vte, and so does everything `write_ascii` declines (insert
//! mode, a charset other than ASCII, a pen with a hyperlink or an
//! underline colour, wide characters in the way). `tests` compares the
//! two paths on arbitrary input.
//!
//! vte's own state cannot be read or written, yet a live upgrade must
//! carry a parser cut in the middle of a sequence across processes
//! ([`crate::FrozenScreen::encode`]). So the parser keeps what would
//! recreate it: the bytes since vte last left its ground state (from the
//! ESC that made it leave: every ESC puts vte in its escape state, and
//! only an ESC leaves the ground state), or in the ground state the last
//! non-ASCII bytes (a partial UTF-8 character is at most three). vte's
//! state is a function of those bytes alone: parameters, intermediates
//! and strings are cleared on every ESC, and DCS bodies are not handed
//! on ([`Parser::resumed`] feeds them to a fresh vte whose handler
//! ignores everything). It is looked at once per chunk, not per byte: the
//! last ESC of a chunk that ends inside a sequence is found with `memrchr`.

use alacritty_terminal::vte::ansi::{Attr, Color, Handler, NamedColor, Processor, Rgb};

use crate::emu::{Emu, NeverSync};
use crate::sgr::ANSI_COLORS;
use crate::vt_state::VtState as State;

/// vte's processor and the mirror of its state.
pub(crate) struct Parser {
    vte: Processor<NeverSync>,
    state: State,
    /// Whether the last byte vte took in its ground state was ASCII: then
    /// it holds no partial UTF-8 character.
    ascii: bool,
    /// The CSI sequence being read, as far as `CSI b` needs it.
    csi: Csi,
    /// Off only for tests: everything goes through vte.
    fast: bool,
    /// The bytes that bring a fresh vte to the state this one is in: see
    /// the module doc. Starts with ESC inside a sequence, with a byte from
    /// 0x80 on after text, empty otherwise.
    unfinished: Vec<u8>,
    /// Whether bytes of the unfinished sequence past [`MAX_UNFINISHED`]
    /// were dropped.
    dropped: bool,
}

/// Most bytes of an unfinished sequence kept; the rest are dropped. Only a
/// DCS or SOS/PM/APC string's body (which vte hands nobody) or parameters
/// by the thousand come near it.
pub(crate) const MAX_UNFINISHED: usize = 64 * 1024;

/// Non-ASCII bytes kept from the ground state: the longest partial UTF-8
/// character.
const UTF8_TAIL: usize = 3;

/// Unfinished content kept past this is freed once the sequence ends, so
/// one long DCS does not leave a pane holding its 64 KiB.
const UNFINISHED_KEPT: usize = 4 * 1024;

/// A handler that does nothing: bringing vte to a state again must not
/// repeat what the bytes did the first time (the replay carries that).
struct Discard;

impl Handler for Discard {}

/// What a `CSI Ps b` (REP) that vte would carry out depends on: its first
/// parameter, and whether vte would ignore it (a private marker, or more
/// parameters than vte keeps).
#[derive(Clone, Copy, Debug, Default)]
struct Csi {
    first: u16,
    /// How many `;` and `:` were read; after the first, `first` is
    /// complete.
    separators: u16,
    /// The private marker (`?`, `>`, ...) that came first, if one did.
    marker: Option<u8>,
}

/// vte's `Params` hold this many; a sequence with more is ignored.
const VTE_PARAMS: u16 = 32;

impl Parser {
    pub(crate) fn new() -> Parser {
        Parser {
            vte: Processor::new(),
            state: State::Ground,
            ascii: true,
            csi: Csi::default(),
            fast: true,
            unfinished: Vec::new(),
            dropped: false,
        }
    }

    /// A parser in the state the bytes [`Parser::unfinished`] gave bring
    /// one to, without acting on them.
    pub(crate) fn resumed(unfinished: &[u8], dropped: bool) -> Parser {
        let mut parser = Parser::new();
        parser.vte.advance(&mut Discard, unfinished);
        for &byte in unfinished {
            parser.step(byte);
        }
        parser.unfinished = unfinished.to_vec();
        parser.dropped = dropped;
        parser
    }

    /// The bytes that bring a fresh parser to this one's state, and
    /// whether some past [`MAX_UNFINISHED`] were dropped from them.
    pub(crate) fn unfinished(&self) -> (&[u8], bool) {
        (&self.unfinished, self.dropped)
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
            if self.state == State::Ground
                && self.ascii
                && byte == 0x1b
                && let Some(sgr) = Sgr::parse(&bytes[i..])
            {
                self.hand_to_vte(emu, &bytes[slow..i]);
                sgr.apply(emu);
                i += sgr.len;
                slow = i;
                continue;
            }
            if self.state == State::Ground && self.ascii && is_printable(byte) {
                let run = printable_len(&bytes[i..]);
                self.hand_to_vte(emu, &bytes[slow..i]);
                slow = i;
                match emu.write_ascii(&bytes[i..i + run]) {
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
            if byte == b'q' && self.asks_version() {
                // vte has no XTVERSION: the sequence is cancelled there as
                // REP's is, and answered here.
                self.hand_to_vte(emu, &bytes[slow..i]);
                self.vte.advance(emu, b"\x18");
                self.state = State::Ground;
                emu.report_version();
                i += 1;
                slow = i;
                continue;
            }
            if byte == b'b' && self.repeats() {
                // vte's own idea of the character to repeat is stale once
                // runs bypass it: it is cancelled (CAN does nothing else
                // there) and the repeat done here.
                self.hand_to_vte(emu, &bytes[slow..i]);
                self.vte.advance(emu, b"\x18");
                self.state = State::Ground;
                emu.repeat(self.csi.first);
                i += 1;
                slow = i;
                continue;
            }
            self.step(byte);
            i += 1;
        }
        self.hand_to_vte(emu, &bytes[slow..]);
        if self.state != State::Ground || !self.ascii || !self.unfinished.is_empty() {
            self.remember(bytes);
        }
    }

    /// Updates [`Parser::unfinished`] after `bytes`, the whole of a call.
    fn remember(&mut self, bytes: &[u8]) {
        if self.state == State::Ground && self.ascii {
            if self.unfinished.capacity() > UNFINISHED_KEPT {
                self.unfinished = Vec::new();
            }
            self.unfinished.clear();
            self.dropped = false;
            return;
        }
        if self.state == State::Ground {
            // After text that ends with bytes from 0x80 on. Extra ones
            // before a partial character are harmless: each is a C1
            // control or an invalid byte to vte, ignored by `Discard`.
            let high = bytes
                .iter()
                .rev()
                .take(UTF8_TAIL)
                .take_while(|&&byte| byte >= 0x80)
                .count();
            let tail = &bytes[bytes.len() - high..];
            if high < bytes.len() || self.unfinished.first().is_none_or(|&byte| byte < 0x80) {
                self.unfinished.clear();
            }
            self.unfinished.extend_from_slice(tail);
            let excess = self.unfinished.len().saturating_sub(UTF8_TAIL);
            self.unfinished.drain(..excess);
            self.dropped = false;
            return;
        }
        // Inside a sequence: it started at this call's last ESC, or
        // before this call if there is none.
        let mut bytes = bytes;
        if let Some(at) = memchr::memrchr(0x1b, bytes) {
            self.unfinished.clear();
            self.dropped = false;
            bytes = &bytes[at..];
        }
        let room = MAX_UNFINISHED - self.unfinished.len();
        if bytes.len() > room {
            self.dropped = true;
        }
        self.unfinished
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// Hands `bytes` to vte; nothing, not even a call, when there are none
    /// (a run or an SGR right after another costs a call otherwise).
    #[inline]
    fn hand_to_vte(&mut self, emu: &mut Emu<'_>, bytes: &[u8]) {
        if !bytes.is_empty() {
            self.vte.advance(emu, bytes);
        }
    }

    /// Whether a `b` now ends a CSI sequence that vte would carry out as
    /// REP.
    #[inline]
    fn repeats(&self) -> bool {
        matches!(self.state, State::CsiEntry | State::CsiParam)
            && self.csi.marker.is_none()
            && self.csi.separators < VTE_PARAMS
    }

    /// Whether a `q` now ends `CSI > q` or `CSI > 0 q` (XTVERSION): no
    /// intermediates (those move the state on), one parameter at most.
    #[inline]
    fn asks_version(&self) -> bool {
        matches!(self.state, State::CsiEntry | State::CsiParam)
            && self.csi.marker == Some(b'>')
            && self.csi.separators == 0
            && self.csi.first == 0
    }

    /// Follows a CSI sequence's parameters as vte reads them.
    #[inline]
    fn csi_param(&mut self, byte: u8) {
        let csi = &mut self.csi;
        match byte {
            b'0'..=b'9' if csi.separators == 0 => {
                csi.first = csi
                    .first
                    .saturating_mul(10)
                    .saturating_add(u16::from(byte - b'0'))
            }
            b':' | b';' => csi.separators = csi.separators.saturating_add(1),
            0x3c..=0x3f if self.state == State::CsiEntry => csi.marker = Some(byte),
            _ => {}
        }
    }

    /// Moves the mirrored state over `byte` as vte does.
    #[inline]
    fn step(&mut self, byte: u8) {
        if matches!(self.state, State::CsiEntry | State::CsiParam) {
            self.csi_param(byte);
        }
        match self.state.after(byte) {
            Some(next) => {
                if next == State::CsiEntry {
                    self.csi = Csi::default();
                }
                // Leaving a sequence, vte holds no partial character.
                self.ascii = true;
                self.state = next;
            }
            None if self.state == State::Ground => self.ascii = byte < 0x80,
            None => {}
        }
    }
}

/// Most parameters a [`Sgr`] handles itself; vte takes 32.
const SGR_PARAMS: usize = 16;

/// `CSI Ps ; Ps ... m` with plain numbers (no sub-parameters, private
/// marker or intermediates): the colours of a coloured log, applied as
/// vte's `attrs_from_sgr_parameters` applies them.
struct Sgr {
    params: [u16; SGR_PARAMS],
    count: usize,
    /// Bytes of the sequence, ESC to `m`.
    len: usize,
}

impl Sgr {
    /// The sequence `bytes` starts with, if it is such an SGR and ends
    /// within `bytes`.
    #[inline]
    fn parse(bytes: &[u8]) -> Option<Sgr> {
        if bytes.get(1) != Some(&b'[') {
            return None;
        }
        let mut sgr = Sgr {
            params: [0; SGR_PARAMS],
            count: 0,
            len: 0,
        };
        // vte's arithmetic: a missing parameter is 0, digits saturate.
        let mut param: u16 = 0;
        for (at, &byte) in bytes.iter().enumerate().skip(2) {
            match byte {
                b'0'..=b'9' => {
                    param = param
                        .saturating_mul(10)
                        .saturating_add(u16::from(byte - b'0'))
                }
                b';' | b'm' => {
                    *sgr.params.get_mut(sgr.count)? = param;
                    sgr.count += 1;
                    param = 0;
                    if byte == b'm' {
                        sgr.len = at + 1;
                        return Some(sgr);
                    }
                }
                _ => return None,
            }
        }
        None
    }

    /// Sets the pen as vte would for these parameters.
    fn apply(&self, emu: &mut Emu<'_>) {
        let mut params = self.params[..self.count].iter().copied();
        while let Some(param) = params.next() {
            let attr = match param {
                38 => sgr_color(&mut params).map(Attr::Foreground),
                48 => sgr_color(&mut params).map(Attr::Background),
                58 => sgr_color(&mut params).map(|color| Attr::UnderlineColor(Some(color))),
                param => simple_attr(param),
            };
            if let Some(attr) = attr {
                Handler::terminal_attribute(emu, attr);
            }
        }
    }
}

/// vte's `parse_sgr_color`: `5;n` or `2;r;g;b`, consuming what it reads.
fn sgr_color(params: &mut impl Iterator<Item = u16>) -> Option<Color> {
    match params.next() {
        Some(2) => Some(Color::Spec(Rgb {
            r: u8::try_from(params.next()?).ok()?,
            g: u8::try_from(params.next()?).ok()?,
            b: u8::try_from(params.next()?).ok()?,
        })),
        Some(5) => Some(Color::Indexed(u8::try_from(params.next()?).ok()?)),
        _ => None,
    }
}

/// The attribute of a one-number SGR parameter, as vte maps it.
fn simple_attr(param: u16) -> Option<Attr> {
    // The standard colours, then the bright ones, as SGR numbers them.
    let named = |index: u16| Color::Named(ANSI_COLORS[usize::from(index)]);
    Some(match param {
        0 => Attr::Reset,
        1 => Attr::Bold,
        2 => Attr::Dim,
        3 => Attr::Italic,
        4 => Attr::Underline,
        5 => Attr::BlinkSlow,
        6 => Attr::BlinkFast,
        7 => Attr::Reverse,
        8 => Attr::Hidden,
        9 => Attr::Strike,
        21 => Attr::CancelBold,
        22 => Attr::CancelBoldDim,
        23 => Attr::CancelItalic,
        24 => Attr::CancelUnderline,
        25 => Attr::CancelBlink,
        27 => Attr::CancelReverse,
        28 => Attr::CancelHidden,
        29 => Attr::CancelStrike,
        30..=37 => Attr::Foreground(named(param - 30)),
        39 => Attr::Foreground(Color::Named(NamedColor::Foreground)),
        40..=47 => Attr::Background(named(param - 40)),
        49 => Attr::Background(Color::Named(NamedColor::Background)),
        59 => Attr::UnderlineColor(None),
        90..=97 => Attr::Foreground(named(param - 90 + 8)),
        100..=107 => Attr::Background(named(param - 100 + 8)),
        _ => return None,
    })
}

/// A byte vte prints as a character of width 1 (DEL it drops).
#[inline]
fn is_printable(byte: u8) -> bool {
    (0x20..0x7f).contains(&byte)
}

/// How many bytes from the start of `bytes` are printable ASCII: eight
/// at a time while all eight are, then one by one.
#[inline]
fn printable_len(bytes: &[u8]) -> usize {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let mut start = 0;
    for chunk in bytes.chunks_exact(8) {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_ne_bytes(word);
        // Some byte below 0x20, or some byte from 0x7f on (the classic
        // "has less" and "has more" tests; exact as yes-or-no answers).
        let below = x.wrapping_sub(ONES * 0x20) & !x & HIGH;
        let above = (x.wrapping_add(ONES) | x) & HIGH;
        if below | above != 0 {
            break;
        }
        start += 8;
    }
    start
        + bytes[start..]
            .iter()
            .position(|&b| !is_printable(b))
            .unwrap_or(bytes.len() - start)
}

#[cfg(test)]
pub(crate) mod tests;

#[cfg(test)]
#[test]
fn printable_len_stops_at_the_first_other_byte() {
    for other in (0..0x20).chain(0x7f..=0xff) {
        for at in 0..20 {
            let mut bytes = vec![b'a'; 20];
            bytes[at] = other;
            assert_eq!(printable_len(&bytes), at, "{other:#x} at {at}");
        }
    }
    assert_eq!(printable_len(b" ~~~~~~~~~~~~~~~~~~ "), 20);
    assert_eq!(printable_len(b""), 0);
}
