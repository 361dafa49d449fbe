//! SGR (colours and attributes) as emitted by this crate.
//!
//! Every change is written as a full `ESC [ 0 ; … m` rather than a delta:
//! it costs a few bytes per attribute run but cannot drift, which matters
//! because the output is parsed by terminals we have never seen.

use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::vte::ansi::{Color, NamedColor, Rgb};

/// The cell flags SGR can express; the rest (wrap, wide-char bookkeeping)
/// are structural.
pub(crate) const SGR_FLAGS: Flags = Flags::BOLD
    .union(Flags::DIM)
    .union(Flags::ITALIC)
    .union(Flags::ALL_UNDERLINES)
    .union(Flags::INVERSE)
    .union(Flags::HIDDEN)
    .union(Flags::STRIKEOUT);

/// The graphic rendition of a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pen {
    pub(crate) fg: Color,
    pub(crate) bg: Color,
    pub(crate) flags: Flags,
    pub(crate) underline: Option<Color>,
}

impl Default for Pen {
    fn default() -> Pen {
        Pen {
            fg: Color::Named(NamedColor::Foreground),
            bg: Color::Named(NamedColor::Background),
            flags: Flags::empty(),
            underline: None,
        }
    }
}

impl Pen {
    pub(crate) fn of(cell: &Cell) -> Pen {
        Pen {
            fg: cell.fg,
            bg: cell.bg,
            flags: cell.flags & SGR_FLAGS,
            underline: cell.underline_color(),
        }
    }

    /// Only a background: what an erase (EL/ED) leaves behind.
    pub(crate) fn background(bg: Color) -> Pen {
        Pen {
            bg,
            ..Pen::default()
        }
    }

    pub(crate) fn is_default(&self) -> bool {
        *self == Pen::default()
    }
}

/// The SGR parameter of each attribute flag.
const SGR_CODES: [(Flags, &str); 11] = [
    (Flags::BOLD, "1"),
    (Flags::DIM, "2"),
    (Flags::ITALIC, "3"),
    (Flags::UNDERLINE, "4"),
    (Flags::DOUBLE_UNDERLINE, "4:2"),
    (Flags::UNDERCURL, "4:3"),
    (Flags::DOTTED_UNDERLINE, "4:4"),
    (Flags::DASHED_UNDERLINE, "4:5"),
    (Flags::INVERSE, "7"),
    (Flags::HIDDEN, "8"),
    (Flags::STRIKEOUT, "9"),
];

/// Appends the SGR sequence that sets exactly `pen`.
///
/// Built on the stack and appended at once: this runs for every change of
/// attributes in every row that scrolls into history.
pub(crate) fn write_sgr(out: &mut String, pen: &Pen) {
    let mut sgr = Params::default();
    sgr.push_str(b"\x1b[0");
    if !pen.flags.is_empty() {
        for (flag, code) in SGR_CODES {
            if pen.flags.contains(flag) {
                sgr.push(b';');
                sgr.push_str(code.as_bytes());
            }
        }
    }
    sgr.color(pen.fg, 30);
    sgr.color(pen.bg, 40);
    // Underline colours only come indexed (`58;5;n`) or as RGB.
    let underline = match pen.underline {
        Some(Color::Named(named)) => ansi_index(named).map(Color::Indexed),
        other => other,
    };
    if let Some(color) = underline {
        sgr.color(color, 50);
    }
    sgr.push(b'm');
    out.push_str(sgr.as_str());
}

/// An SGR sequence being written: ASCII only, at most 71 bytes (`ESC [ 0`,
/// all eleven attributes, three RGB colours, `m`).
struct Params {
    bytes: [u8; 80],
    len: usize,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            bytes: [0; 80],
            len: 0,
        }
    }
}

impl Params {
    fn push(&mut self, byte: u8) {
        if let Some(slot) = self.bytes.get_mut(self.len) {
            *slot = byte;
            self.len += 1;
        }
    }

    fn push_str(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.push(byte);
        }
    }

    /// `;` and `n` in decimal.
    fn param(&mut self, n: u8) {
        self.push(b';');
        if n >= 100 {
            self.push(b'0' + n / 100);
        }
        if n >= 10 {
            self.push(b'0' + n / 10 % 10);
        }
        self.push(b'0' + n % 10);
    }

    /// `base` is 30 for foreground, 40 for background, 50 for underline.
    fn color(&mut self, color: Color, base: u8) {
        match color {
            Color::Named(named) => {
                if let Some(i) = ansi_index(named) {
                    self.param(if i < 8 { base + i } else { base + 60 + (i - 8) });
                }
            }
            Color::Indexed(i) => {
                for param in [base + 8, 5, i] {
                    self.param(param);
                }
            }
            Color::Spec(rgb) => {
                for param in [base + 8, 2, rgb.r, rgb.g, rgb.b] {
                    self.param(param);
                }
            }
        }
    }

    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }
}

/// The pen an SGR sequence written by [`write_sgr`] sets: `params` is what
/// stands between `ESC [` and `m`. The inverse of `write_sgr` for every pen
/// the emulator produces; parameters it never writes are ignored.
pub(crate) fn parse_sgr(params: &str) -> Pen {
    let mut pen = Pen::default();
    let mut params = params.split(';');
    while let Some(param) = params.next() {
        match param {
            "0" => pen = Pen::default(),
            "38" => pen.fg = parse_extended(&mut params).unwrap_or(pen.fg),
            "48" => pen.bg = parse_extended(&mut params).unwrap_or(pen.bg),
            "58" => pen.underline = parse_extended(&mut params),
            _ => {
                if let Some(flag) = flag_of(param) {
                    pen.flags.insert(flag);
                } else if let Ok(code) = param.parse::<u8>() {
                    apply_basic_color(&mut pen, code);
                }
            }
        }
    }
    pen
}

fn flag_of(param: &str) -> Option<Flags> {
    SGR_CODES
        .iter()
        .find(|(_, code)| *code == param)
        .map(|(flag, _)| *flag)
}

/// `30`–`37`, `90`–`97` and their background counterparts.
fn apply_basic_color(pen: &mut Pen, code: u8) {
    let (slot, index) = match code {
        30..=37 => (&mut pen.fg, code - 30),
        90..=97 => (&mut pen.fg, code - 90 + 8),
        40..=47 => (&mut pen.bg, code - 40),
        100..=107 => (&mut pen.bg, code - 100 + 8),
        _ => return,
    };
    *slot = Color::Named(ANSI_COLORS[usize::from(index)]);
}

/// The rest of `38`/`48`/`58`: `5;n` or `2;r;g;b`.
fn parse_extended<'a>(params: &mut impl Iterator<Item = &'a str>) -> Option<Color> {
    let mut byte = || params.next().and_then(|p| p.parse::<u8>().ok());
    match byte()? {
        5 => Some(Color::Indexed(byte()?)),
        2 => Some(Color::Spec(Rgb {
            r: byte()?,
            g: byte()?,
            b: byte()?,
        })),
        _ => None,
    }
}

/// The 16 colours SGR names, in its order (30–37, then 90–97).
pub(crate) const ANSI_COLORS: [NamedColor; 16] = [
    NamedColor::Black,
    NamedColor::Red,
    NamedColor::Green,
    NamedColor::Yellow,
    NamedColor::Blue,
    NamedColor::Magenta,
    NamedColor::Cyan,
    NamedColor::White,
    NamedColor::BrightBlack,
    NamedColor::BrightRed,
    NamedColor::BrightGreen,
    NamedColor::BrightYellow,
    NamedColor::BrightBlue,
    NamedColor::BrightMagenta,
    NamedColor::BrightCyan,
    NamedColor::BrightWhite,
];

/// The 16 ANSI colours by number; the default colours (and alacritty's
/// rendering-only dim/bright variants, which parsing never produces) are
/// `None`, i.e. "use the default".
fn ansi_index(named: NamedColor) -> Option<u8> {
    let i = named as usize;
    u8::try_from(i).ok().filter(|i| *i < 16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn full_pen() {
        let pen = Pen {
            fg: Color::Named(NamedColor::BrightRed),
            bg: Color::Indexed(200),
            flags: Flags::BOLD | Flags::UNDERCURL,
            underline: Some(Color::Spec(Rgb { r: 1, g: 2, b: 3 })),
        };
        let mut s = String::new();
        write_sgr(&mut s, &pen);
        assert_eq!(s, "\x1b[0;1;4:3;91;48;5;200;58;2;1;2;3m");
        s.clear();
        write_sgr(&mut s, &Pen::default());
        assert_eq!(s, "\x1b[0m");
    }

    /// Colours the emulator gives a cell, `default` being `39`/`49`'s.
    fn color(default: NamedColor) -> impl Strategy<Value = Color> {
        prop_oneof![
            (0usize..16).prop_map(|i| Color::Named(ANSI_COLORS[i])),
            Just(Color::Named(default)),
            any::<u8>().prop_map(Color::Indexed),
            any::<[u8; 3]>().prop_map(|[r, g, b]| Color::Spec(Rgb { r, g, b })),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

        /// Every pen the emulator can produce reads back from its SGR (the
        /// emulator only ever parses indexed or RGB underline colours).
        #[test]
        fn parse_inverts_write(
            fg in color(NamedColor::Foreground),
            bg in color(NamedColor::Background),
            bits in any::<u16>(),
            underline in prop::option::of(prop_oneof![
                any::<u8>().prop_map(Color::Indexed),
                any::<[u8; 3]>().prop_map(|[r, g, b]| Color::Spec(Rgb { r, g, b })),
            ]),
        ) {
            let pen = Pen { fg, bg, flags: Flags::from_bits_truncate(bits) & SGR_FLAGS, underline };
            let mut s = String::new();
            write_sgr(&mut s, &pen);
            let params = s.strip_prefix("\x1b[").and_then(|s| s.strip_suffix('m'));
            prop_assert_eq!(parse_sgr(params.unwrap_or_default()), pen);
        }
    }
}
