//! A frozen screen as bytes, for a new process (a live upgrade).
//!
//! The format is a magic, a version, then each part of a
//! [`FrozenScreen`] in order, integers little-endian, byte strings as a
//! `u32` length and the bytes:
//!
//! 1. size: rows, columns (`u16` each);
//! 2. the replay;
//! 3. the row ends of the primary and the alternate screen (a `u16`
//!    count, then each row's flags as a `u16`);
//! 4. the active and the inactive saved cursor (point, template cell,
//!    charsets, pending wrap);
//! 5. the history: line bound and rows scrolled (`u64`), whether it is
//!    open, its text, its lines' metas (a `u32` count, a `u32` each);
//! 6. the fresh-line counter (`i64`, `i64`, `u64`);
//! 7. the title;
//! 8. the parser's unfinished bytes and whether some were dropped;
//! 9. the last character printed (`u32`, [`NO_CHAR`] for none);
//! 10. the OSC scanner: state, whether its body overflowed, the body;
//! 11. the kitty notification still arriving, if any: id, title, body.
//!
//! Nothing follows. Every length is checked against its bound and against
//! the bytes left before anything is allocated, so a decode allocates at
//! most about as much as it is given, and never panics.

use alacritty_terminal::grid::Cursor;
use alacritty_terminal::index::{Column, Line, Point};
use alacritty_terminal::term::cell::{Cell, Flags, Hyperlink};
use alacritty_terminal::vte::ansi::{CharsetIndex, Color, NamedColor, Rgb, StandardCharset};

use super::{FrozenScreen, ROW_END, SavedCursors};
use crate::fast::{MAX_UNFINISHED, Parser};
use crate::fresh::Fresh;
use crate::history::History;
use crate::osc::{Interpreter, MAX_OSC_BYTES, Scanner};
use crate::sanitize::MAX_TITLE_CHARS;
use crate::sgr::SGR_FLAGS;
use crate::{MAX_DIMENSION, Size};

/// What a frozen screen's bytes start with.
const MAGIC: &[u8; 8] = b"sgtty-fz";

/// The format this build writes and reads; another is refused rather than
/// guessed at. Bump it with any change to the layout.
pub const FORMAT_VERSION: u16 = 1;

/// Largest replay accepted: a 1024x1024 screen, both grids, with colours
/// and links changing at every cell, stays well below.
const MAX_REPLAY: usize = 256 << 20;

/// Largest scrollback bound accepted (the server keeps 2 000 lines).
const MAX_SCROLLBACK_LINES: usize = 1 << 24;

/// Largest history text accepted; within it, [`History`] checks its own
/// bounds.
const MAX_HISTORY_TEXT: usize = 1 << 30;

/// Zero-width marks accepted on a saved cursor's template cell (SGR never
/// gives it any).
const MAX_ZEROWIDTH: usize = 1024;

/// The `printed` of a screen that printed nothing yet.
const NO_CHAR: u32 = u32::MAX;

/// Why bytes are not a frozen screen.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("not a frozen screen (no signaltty frozen-screen header)")]
    NotFrozen,
    #[error(
        "frozen screen format version {found} is not the version {FORMAT_VERSION} this build reads"
    )]
    Version { found: u16 },
    #[error("frozen screen cut short in its {0}")]
    Truncated(&'static str),
    #[error("frozen screen damaged: {0}")]
    Invalid(&'static str),
    #[error("frozen screen followed by {0} unknown bytes")]
    Trailing(usize),
}

impl FrozenScreen {
    /// The screen as bytes that [`FrozenScreen::decode`] turns back into
    /// it, in another process or another build that reads
    /// [`FORMAT_VERSION`]. A copy of the replay and the history text
    /// (already compact, see [`crate::Screen::freeze`]) and little else.
    pub fn encode(&self) -> Vec<u8> {
        let (text, lines) = self.history.settled_parts();
        let (unfinished, dropped) = self.parser.unfinished();
        let (scan_state, scan_body, scan_overflow) = self.scanner.parts();
        let mut out = Writer(Vec::with_capacity(
            64 + self.replay.len() + text.len() + 4 * lines.len() + unfinished.len(),
        ));
        out.0.extend_from_slice(MAGIC);
        out.u16(FORMAT_VERSION);
        out.u16(self.size.rows);
        out.u16(self.size.cols);
        out.bytes(&self.replay);
        for ends in &self.row_ends {
            out.len(ends.len());
            for end in ends.iter() {
                out.u16(end.bits());
            }
        }
        out.cursor(&self.saved_cursors.active);
        out.cursor(&self.saved_cursors.inactive);
        out.u64(self.history.max_lines() as u64);
        out.u64(self.history.rows_scrolled());
        out.bool(self.history.is_open());
        out.bytes(text.as_bytes());
        out.len(lines.len());
        for meta in lines {
            out.u32(meta);
        }
        let (scrolled, frontier, fresh_lines) = self.fresh.parts();
        out.u64(scrolled as u64);
        out.u64(frontier as u64);
        out.u64(fresh_lines);
        out.bytes(self.title.as_bytes());
        out.bool(dropped);
        out.bytes(unfinished);
        out.u32(self.printed.map_or(NO_CHAR, u32::from));
        out.u8(scan_state);
        out.bool(scan_overflow);
        out.bytes(scan_body);
        match self.interpreter.pending() {
            None => out.bool(false),
            Some(fields) => {
                out.bool(true);
                for field in fields {
                    out.bytes(field.as_bytes());
                }
            }
        }
        out.0
    }

    /// The screen [`FrozenScreen::encode`] wrote. Bytes of another format
    /// version, cut short, damaged or out of the crate's bounds are
    /// refused; the parser comes back in its state by reading the
    /// unfinished bytes again (see [`crate::Screen::freeze`] for what is
    /// not carried).
    pub fn decode(bytes: &[u8]) -> Result<FrozenScreen, DecodeError> {
        let mut r = Reader { bytes, pos: 0 };
        if r.take(MAGIC.len(), "header").ok() != Some(&MAGIC[..]) {
            return Err(DecodeError::NotFrozen);
        }
        let found = r.u16("header")?;
        if found != FORMAT_VERSION {
            return Err(DecodeError::Version { found });
        }
        let size = Size {
            rows: r.u16("size")?,
            cols: r.u16("size")?,
        };
        if !(1..=MAX_DIMENSION).contains(&size.rows) || !(2..=MAX_DIMENSION).contains(&size.cols) {
            return Err(DecodeError::Invalid("size out of bounds"));
        }
        let replay = r.bytes(MAX_REPLAY, "replay")?.into();
        let row_ends = [r.row_ends(size)?, r.row_ends(size)?];
        let saved_cursors = SavedCursors {
            active: r.cursor(size)?,
            inactive: r.cursor(size)?,
        };
        let history = r.history()?;
        let fresh = Fresh::from_parts(
            r.u64("fresh lines")? as i64,
            r.u64("fresh lines")? as i64,
            r.u64("fresh lines")?,
        )
        .ok_or(DecodeError::Invalid("fresh-line counter out of bounds"))?;
        let title = r.string(4 * MAX_TITLE_CHARS, "title")?;
        let dropped = r.bool("parser")?;
        let parser = Parser::resumed(r.bytes(MAX_UNFINISHED, "parser")?, dropped);
        let printed = match r.u32("printed character")? {
            NO_CHAR => None,
            c => Some(char::from_u32(c).ok_or(DecodeError::Invalid("printed character"))?),
        };
        let scan_state = r.u8("OSC scanner")?;
        let scan_overflow = r.bool("OSC scanner")?;
        let scanner = Scanner::from_parts(
            scan_state,
            r.bytes(MAX_OSC_BYTES, "OSC scanner")?,
            scan_overflow,
        )
        .ok_or(DecodeError::Invalid("OSC scanner state"))?;
        let pending = if r.bool("notification")? {
            let mut field = || r.string(MAX_OSC_BYTES, "notification");
            Some([field()?, field()?, field()?])
        } else {
            None
        };
        let interpreter = Interpreter::with_pending(pending)
            .ok_or(DecodeError::Invalid("notification too long"))?;
        if r.pos != bytes.len() {
            return Err(DecodeError::Trailing(bytes.len() - r.pos));
        }
        Ok(FrozenScreen {
            size,
            replay,
            row_ends,
            saved_cursors,
            history,
            fresh,
            title,
            parser,
            printed,
            scanner,
            interpreter,
        })
    }
}

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, value: u8) {
        self.0.push(value);
    }

    fn bool(&mut self, value: bool) {
        self.u8(u8::from(value));
    }

    fn u16(&mut self, value: u16) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }

    fn u32(&mut self, value: u32) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }

    fn u64(&mut self, value: u64) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }

    /// A length or count: everything the format counts is far below 4 GiB
    /// (the decoder's bounds say so; a bigger one would be refused there).
    fn len(&mut self, len: usize) {
        self.u32(u32::try_from(len).unwrap_or(u32::MAX));
    }

    fn bytes(&mut self, bytes: &[u8]) {
        self.len(bytes.len());
        self.0.extend_from_slice(bytes);
    }

    fn color(&mut self, color: Color) {
        match color {
            Color::Named(named) => {
                self.u8(0);
                self.u16(named as u16);
            }
            Color::Spec(Rgb { r, g, b }) => {
                self.u8(1);
                self.0.extend_from_slice(&[r, g, b]);
            }
            Color::Indexed(index) => {
                self.u8(2);
                self.u8(index);
            }
        }
    }

    fn cursor(&mut self, cursor: &Cursor<Cell>) {
        self.u32(cursor.point.line.0 as u32);
        self.len(cursor.point.column.0);
        let cell = &cursor.template;
        self.u32(u32::from(cell.c));
        self.color(cell.fg);
        self.color(cell.bg);
        self.u16(cell.flags.bits());
        let zerowidth = cell.zerowidth().unwrap_or_default();
        self.len(zerowidth.len());
        for &mark in zerowidth {
            self.u32(u32::from(mark));
        }
        match cell.underline_color() {
            None => self.bool(false),
            Some(color) => {
                self.bool(true);
                self.color(color);
            }
        }
        match cell.hyperlink() {
            None => self.bool(false),
            Some(link) => {
                self.bool(true);
                self.bytes(link.id().as_bytes());
                self.bytes(link.uri().as_bytes());
            }
        }
        for index in CHARSET_SLOTS {
            self.u8(match cursor.charsets[index] {
                StandardCharset::Ascii => 0,
                StandardCharset::SpecialCharacterAndLineDrawing => 1,
            });
        }
        self.bool(cursor.input_needs_wrap);
    }
}

const CHARSET_SLOTS: [CharsetIndex; 4] = [
    CharsetIndex::G0,
    CharsetIndex::G1,
    CharsetIndex::G2,
    CharsetIndex::G3,
];

/// Every named colour, for reading one back from its number.
const NAMED_COLORS: [NamedColor; 29] = {
    use NamedColor::*;
    [
        Black,
        Red,
        Green,
        Yellow,
        Blue,
        Magenta,
        Cyan,
        White,
        BrightBlack,
        BrightRed,
        BrightGreen,
        BrightYellow,
        BrightBlue,
        BrightMagenta,
        BrightCyan,
        BrightWhite,
        Foreground,
        Background,
        Cursor,
        DimBlack,
        DimRed,
        DimGreen,
        DimYellow,
        DimBlue,
        DimMagenta,
        DimCyan,
        DimWhite,
        BrightForeground,
        DimForeground,
    ]
};

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// The next `len` bytes, which must be there.
    fn take(&mut self, len: usize, what: &'static str) -> Result<&'a [u8], DecodeError> {
        let end = self
            .pos
            .checked_add(len)
            .filter(|&end| end <= self.bytes.len())
            .ok_or(DecodeError::Truncated(what))?;
        let taken = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(taken)
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], DecodeError> {
        let mut array = [0; N];
        array.copy_from_slice(self.take(N, what)?);
        Ok(array)
    }

    fn u8(&mut self, what: &'static str) -> Result<u8, DecodeError> {
        Ok(self.array::<1>(what)?[0])
    }

    fn bool(&mut self, what: &'static str) -> Result<bool, DecodeError> {
        match self.u8(what)? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(DecodeError::Invalid(what)),
        }
    }

    fn u16(&mut self, what: &'static str) -> Result<u16, DecodeError> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, DecodeError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, DecodeError> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    /// A length or count of at most `max`.
    fn len(&mut self, max: usize, what: &'static str) -> Result<usize, DecodeError> {
        usize::try_from(self.u32(what)?)
            .ok()
            .filter(|&len| len <= max)
            .ok_or(DecodeError::Invalid(what))
    }

    /// A byte string of at most `max` bytes.
    fn bytes(&mut self, max: usize, what: &'static str) -> Result<&'a [u8], DecodeError> {
        let len = self.len(max, what)?;
        self.take(len, what)
    }

    fn string(&mut self, max: usize, what: &'static str) -> Result<String, DecodeError> {
        let bytes = self.bytes(max, what)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| DecodeError::Invalid(what))
    }

    /// `count` items of `size` bytes each, all of which must be there
    /// (checked before anything is allocated for them).
    fn items(
        &mut self,
        count: usize,
        size: usize,
        what: &'static str,
    ) -> Result<&'a [u8], DecodeError> {
        let len = count.checked_mul(size).ok_or(DecodeError::Invalid(what))?;
        self.take(len, what)
    }

    fn row_ends(&mut self, size: Size) -> Result<Box<[Flags]>, DecodeError> {
        let what = "row ends";
        let count = self.len(usize::from(size.rows), what)?;
        self.items(count, 2, what)?
            .chunks_exact(2)
            .map(|end| {
                Flags::from_bits(u16::from_le_bytes([end[0], end[1]]))
                    .filter(|flags| ROW_END.contains(*flags))
                    .ok_or(DecodeError::Invalid(what))
            })
            .collect()
    }

    fn color(&mut self, what: &'static str) -> Result<Color, DecodeError> {
        Ok(match self.u8(what)? {
            0 => {
                let number = self.u16(what)?;
                let named = NAMED_COLORS
                    .into_iter()
                    .find(|&named| named as u16 == number)
                    .ok_or(DecodeError::Invalid(what))?;
                Color::Named(named)
            }
            1 => {
                let [r, g, b] = self.array(what)?;
                Color::Spec(Rgb { r, g, b })
            }
            2 => Color::Indexed(self.u8(what)?),
            _ => return Err(DecodeError::Invalid(what)),
        })
    }

    fn char(&mut self, what: &'static str) -> Result<char, DecodeError> {
        char::from_u32(self.u32(what)?).ok_or(DecodeError::Invalid(what))
    }

    /// A saved cursor, on the grid of `size`.
    fn cursor(&mut self, size: Size) -> Result<Cursor<Cell>, DecodeError> {
        let what = "saved cursor";
        let line = self.u32(what)? as i32;
        let column = self.len(usize::from(size.cols) - 1, what)?;
        if !(0..i32::from(size.rows)).contains(&line) {
            return Err(DecodeError::Invalid(what));
        }
        let mut template = Cell {
            c: self.char(what)?,
            fg: self.color(what)?,
            bg: self.color(what)?,
            // SGR sets nothing else on a pen: a pen that wrote wide-char
            // or wrap flags into every cell would break the grid's rules.
            flags: Flags::from_bits(self.u16(what)?)
                .filter(|flags| SGR_FLAGS.contains(*flags))
                .ok_or(DecodeError::Invalid(what))?,
            extra: None,
        };
        let marks = self.len(MAX_ZEROWIDTH, what)?;
        for mark in self.items(marks, 4, what)?.chunks_exact(4) {
            let mark = u32::from_le_bytes([mark[0], mark[1], mark[2], mark[3]]);
            template.push_zerowidth(char::from_u32(mark).ok_or(DecodeError::Invalid(what))?);
        }
        if self.bool(what)? {
            template.set_underline_color(Some(self.color(what)?));
        }
        if self.bool(what)? {
            let id = self.string(MAX_OSC_BYTES, what)?;
            let uri = self.string(MAX_OSC_BYTES, what)?;
            template.set_hyperlink(Some(Hyperlink::new(Some(id), uri)));
        }
        let mut cursor = Cursor {
            point: Point::new(Line(line), Column(column)),
            template,
            ..Cursor::default()
        };
        for index in CHARSET_SLOTS {
            cursor.charsets[index] = match self.u8(what)? {
                0 => StandardCharset::Ascii,
                1 => StandardCharset::SpecialCharacterAndLineDrawing,
                _ => return Err(DecodeError::Invalid(what)),
            };
        }
        cursor.input_needs_wrap = self.bool(what)?;
        Ok(cursor)
    }

    fn history(&mut self) -> Result<History, DecodeError> {
        let what = "history";
        let max_lines = usize::try_from(self.u64(what)?)
            .ok()
            .filter(|&max| max <= MAX_SCROLLBACK_LINES)
            .ok_or(DecodeError::Invalid("scrollback bound"))?;
        let scrolled = self.u64(what)?;
        let open = self.bool(what)?;
        let text = self.string(MAX_HISTORY_TEXT, what)?;
        let count = self.len(max_lines, what)?;
        let lines = self
            .items(count, 4, what)?
            .chunks_exact(4)
            .map(|meta| u32::from_le_bytes([meta[0], meta[1], meta[2], meta[3]]))
            .collect();
        History::from_settled_parts(max_lines, scrolled, open, text, lines)
            .map_err(DecodeError::Invalid)
    }
}
