//! SGR (colours and attributes) as emitted by this crate.
//!
//! Every change is written as a full `ESC [ 0 ; … m` rather than a delta:
//! it costs a few bytes per attribute run but cannot drift, which matters
//! because the output is parsed by terminals we have never seen.

use std::fmt::Write;

use alacritty_terminal::term::cell::{Cell, Flags};
use alacritty_terminal::vte::ansi::{Color, NamedColor};

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

/// Appends the SGR sequence that sets exactly `pen`.
pub(crate) fn write_sgr(out: &mut String, pen: &Pen) {
    out.push_str("\x1b[0");
    let flags = pen.flags;
    for (flag, code) in [
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
    ] {
        if flags.contains(flag) {
            out.push(';');
            out.push_str(code);
        }
    }
    write_color(out, pen.fg, 30);
    write_color(out, pen.bg, 40);
    match pen.underline {
        Some(Color::Indexed(i)) => {
            let _ = write!(out, ";58;5;{i}");
        }
        Some(Color::Spec(rgb)) => {
            let _ = write!(out, ";58;2;{};{};{}", rgb.r, rgb.g, rgb.b);
        }
        Some(Color::Named(named)) => {
            if let Some(i) = ansi_index(named) {
                let _ = write!(out, ";58;5;{i}");
            }
        }
        None => {}
    }
    out.push('m');
}

/// `base` is 30 for foreground, 40 for background.
fn write_color(out: &mut String, color: Color, base: u8) {
    match color {
        Color::Named(named) => {
            if let Some(i) = ansi_index(named) {
                let code = if i < 8 { base + i } else { base + 60 + (i - 8) };
                let _ = write!(out, ";{code}");
            }
        }
        Color::Indexed(i) => {
            let _ = write!(out, ";{};5;{i}", base + 8);
        }
        Color::Spec(rgb) => {
            let _ = write!(out, ";{};2;{};{};{}", base + 8, rgb.r, rgb.g, rgb.b);
        }
    }
}

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
    use alacritty_terminal::vte::ansi::Rgb;

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
}
