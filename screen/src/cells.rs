//! The screen cell by cell, for a client that draws it itself (the
//! multiplexer): characters with their colours and attributes, the modes
//! that decide what its input means, the cursor's shape. Types of this
//! crate only, so alacritty stays an implementation detail.

use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::TermMode;
use alacritty_terminal::term::cell::{Cell as AlacrittyCell, Flags};
use alacritty_terminal::vte::ansi::{Color as AlacrittyColor, CursorShape as AlacrittyShape};

use crate::Screen;

/// A colour as a renderer needs it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Color {
    /// The terminal's own default foreground or background.
    #[default]
    Default,
    /// One of the 256 palette colours (0–15 are the ANSI ones).
    Indexed(u8),
    Rgb(u8, u8, u8),
}

/// SGR attributes of a cell, as bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Attrs(u16);

impl Attrs {
    pub const BOLD: Attrs = Attrs(1);
    pub const DIM: Attrs = Attrs(1 << 1);
    pub const ITALIC: Attrs = Attrs(1 << 2);
    pub const UNDERLINE: Attrs = Attrs(1 << 3);
    pub const DOUBLE_UNDERLINE: Attrs = Attrs(1 << 4);
    pub const CURLY_UNDERLINE: Attrs = Attrs(1 << 5);
    pub const DOTTED_UNDERLINE: Attrs = Attrs(1 << 6);
    pub const DASHED_UNDERLINE: Attrs = Attrs(1 << 7);
    pub const INVERSE: Attrs = Attrs(1 << 8);
    pub const HIDDEN: Attrs = Attrs(1 << 9);
    pub const STRIKEOUT: Attrs = Attrs(1 << 10);

    pub const fn empty() -> Attrs {
        Attrs(0)
    }

    pub const fn contains(self, other: Attrs) -> bool {
        self.0 & other.0 == other.0
    }

    pub const fn union(self, other: Attrs) -> Attrs {
        Attrs(self.0 | other.0)
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Every attribute, in the order SGR codes are usually written, with
    /// its SGR parameter.
    pub const SGR: [(Attrs, &'static str); 11] = [
        (Attrs::BOLD, "1"),
        (Attrs::DIM, "2"),
        (Attrs::ITALIC, "3"),
        (Attrs::UNDERLINE, "4"),
        (Attrs::DOUBLE_UNDERLINE, "4:2"),
        (Attrs::CURLY_UNDERLINE, "4:3"),
        (Attrs::DOTTED_UNDERLINE, "4:4"),
        (Attrs::DASHED_UNDERLINE, "4:5"),
        (Attrs::INVERSE, "7"),
        (Attrs::HIDDEN, "8"),
        (Attrs::STRIKEOUT, "9"),
    ];
}

impl std::ops::BitOr for Attrs {
    type Output = Attrs;

    fn bitor(self, other: Attrs) -> Attrs {
        self.union(other)
    }
}

/// How many columns a cell's character takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Width {
    #[default]
    Narrow,
    /// The first half of a double-width character.
    Wide,
    /// The second half of one (or the blank a wide character that did not
    /// fit left at the end of a row): draw nothing here.
    Spacer,
}

/// One cell of the screen.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cell {
    pub ch: char,
    /// Combining characters drawn over `ch`; empty (and unallocated) for
    /// almost every cell.
    pub zerowidth: Vec<char>,
    pub fg: Color,
    pub bg: Color,
    /// The underline's own colour, if the program set one.
    pub underline: Option<Color>,
    pub attrs: Attrs,
    pub width: Width,
}

impl Default for Cell {
    fn default() -> Cell {
        Cell {
            ch: ' ',
            zerowidth: Vec::new(),
            fg: Color::Default,
            bg: Color::Default,
            underline: None,
            attrs: Attrs::empty(),
            width: Width::Narrow,
        }
    }
}

/// Which mouse events the program asked to be told about.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MouseReporting {
    #[default]
    Off,
    /// Presses and releases (1000).
    Clicks,
    /// And motion while a button is held (1002).
    Drags,
    /// And every motion (1003).
    Motion,
}

/// How the mouse is reported, when it is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MouseEncoding {
    /// `ESC [ M` and three bytes (coordinates up to 223).
    #[default]
    X10,
    /// The same with UTF-8 coordinates (1005).
    Utf8,
    /// `ESC [ < b ; x ; y M` (1006).
    Sgr,
}

/// The modes that decide what a client sends the program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Modes {
    pub mouse: MouseReporting,
    pub mouse_encoding: MouseEncoding,
    /// Paste arrives between `ESC [ 200 ~` and `ESC [ 201 ~` (2004).
    pub bracketed_paste: bool,
    /// Focus in and out are reported as `ESC [ I` / `ESC [ O` (1004).
    pub focus_events: bool,
    /// Cursor keys send `ESC O A`, not `ESC [ A` (DECCKM).
    pub app_cursor: bool,
    pub alt_screen: bool,
    /// The wheel on the alternate screen becomes cursor keys (1007).
    pub alternate_scroll: bool,
    /// The kitty keyboard protocol's active flags ([`crate::kitty`]).
    pub kitty_flags: u8,
    /// xterm's modifyOtherKeys level (0, 1 or 2).
    pub modify_other_keys: u8,
}

/// The cursor's shape (DECSCUSR).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CursorShape {
    #[default]
    Block,
    Underline,
    Beam,
}

impl Screen {
    /// The cells of row `line` into `out` (cleared first): `0` is the top
    /// of the visible screen, negative rows are scrollback (`-1` the
    /// newest; none on the alternate screen). A row that does not exist
    /// leaves `out` empty. Reading a scrollback row walks the history from
    /// its newest row: read all of it with [`Screen::history_cells`].
    pub fn row_cells(&self, line: i32, out: &mut Vec<Cell>) {
        out.clear();
        let term = self.engine.lock();
        let grid = term.grid();
        let columns = grid.columns();
        if line >= 0 {
            if line < grid.screen_lines() as i32 {
                let row = &grid[Line(line)];
                out.extend((0..columns).map(|c| cell(&row[Column(c)])));
            }
            return;
        }
        if term.mode().contains(TermMode::ALT_SCREEN) {
            return;
        }
        let history = self.engine.history();
        let back = line.unsigned_abs() as usize - 1;
        if let Some(row) = history.rows_newest_first(columns, &grid[Line(0)]).nth(back) {
            out.extend((0..columns).map(|c| cell(&row[Column(c)])));
        }
    }

    /// Every row of scrollback at the current width, oldest first (none on
    /// the alternate screen).
    pub fn history_cells(&self) -> Vec<Vec<Cell>> {
        let term = self.engine.lock();
        if term.mode().contains(TermMode::ALT_SCREEN) {
            return Vec::new();
        }
        let grid = term.grid();
        let columns = grid.columns();
        let history = self.engine.history();
        let mut rows: Vec<Vec<Cell>> = history
            .rows_newest_first(columns, &grid[Line(0)])
            .map(|row| (0..columns).map(|c| cell(&row[Column(c)])).collect())
            .collect();
        rows.reverse();
        rows
    }

    /// Rows of scrollback above the screen (none on the alternate screen).
    pub fn history_len(&self) -> usize {
        self.history_rows()
    }

    pub fn modes(&self) -> Modes {
        let term = self.engine.lock();
        let mode = *term.mode();
        let mouse = if mode.contains(TermMode::MOUSE_MOTION) {
            MouseReporting::Motion
        } else if mode.contains(TermMode::MOUSE_DRAG) {
            MouseReporting::Drags
        } else if mode.contains(TermMode::MOUSE_REPORT_CLICK) {
            MouseReporting::Clicks
        } else {
            MouseReporting::Off
        };
        let mouse_encoding = if mode.contains(TermMode::SGR_MOUSE) {
            MouseEncoding::Sgr
        } else if mode.contains(TermMode::UTF8_MOUSE) {
            MouseEncoding::Utf8
        } else {
            MouseEncoding::X10
        };
        Modes {
            mouse,
            mouse_encoding,
            bracketed_paste: mode.contains(TermMode::BRACKETED_PASTE),
            focus_events: mode.contains(TermMode::FOCUS_IN_OUT),
            app_cursor: mode.contains(TermMode::APP_CURSOR),
            alt_screen: mode.contains(TermMode::ALT_SCREEN),
            alternate_scroll: mode.contains(TermMode::ALTERNATE_SCROLL),
            kitty_flags: self.engine.keyboard.flags(),
            modify_other_keys: self.engine.keyboard.modify_other_keys(),
        }
    }

    /// The cursor's shape and whether it blinks.
    pub fn cursor_shape(&self) -> (CursorShape, bool) {
        let style = self.engine.lock().cursor_style();
        let shape = match style.shape {
            AlacrittyShape::Underline => CursorShape::Underline,
            AlacrittyShape::Beam => CursorShape::Beam,
            _ => CursorShape::Block,
        };
        (shape, style.blinking)
    }
}

fn cell(cell: &AlacrittyCell) -> Cell {
    let flags = cell.flags;
    let width = if flags.contains(Flags::WIDE_CHAR) {
        Width::Wide
    } else if flags.intersects(Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER) {
        Width::Spacer
    } else {
        Width::Narrow
    };
    let mut attrs = Attrs::empty();
    for (flag, attr) in [
        (Flags::BOLD, Attrs::BOLD),
        (Flags::DIM, Attrs::DIM),
        (Flags::ITALIC, Attrs::ITALIC),
        (Flags::UNDERLINE, Attrs::UNDERLINE),
        (Flags::DOUBLE_UNDERLINE, Attrs::DOUBLE_UNDERLINE),
        (Flags::UNDERCURL, Attrs::CURLY_UNDERLINE),
        (Flags::DOTTED_UNDERLINE, Attrs::DOTTED_UNDERLINE),
        (Flags::DASHED_UNDERLINE, Attrs::DASHED_UNDERLINE),
        (Flags::INVERSE, Attrs::INVERSE),
        (Flags::HIDDEN, Attrs::HIDDEN),
        (Flags::STRIKEOUT, Attrs::STRIKEOUT),
    ] {
        if flags.contains(flag) {
            attrs = attrs | attr;
        }
    }
    Cell {
        // A tab cell shows as a blank.
        ch: if cell.c == '\t' { ' ' } else { cell.c },
        zerowidth: cell.zerowidth().map(<[char]>::to_vec).unwrap_or_default(),
        fg: color(cell.fg),
        bg: color(cell.bg),
        underline: cell.underline_color().map(color),
        attrs,
        width,
    }
}

fn color(color: AlacrittyColor) -> Color {
    match color {
        AlacrittyColor::Named(named) => match u8::try_from(named as usize) {
            Ok(i) if i < 16 => Color::Indexed(i),
            _ => Color::Default,
        },
        AlacrittyColor::Indexed(i) => Color::Indexed(i),
        AlacrittyColor::Spec(rgb) => Color::Rgb(rgb.r, rgb.g, rgb.b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Size;

    fn screen(bytes: &[u8]) -> Screen {
        let mut screen = Screen::new(Size { rows: 3, cols: 10 }, 100);
        screen.feed(bytes, &mut Vec::new());
        screen
    }

    #[test]
    fn cells_carry_colours_attributes_and_widths() {
        let s =
            screen("\x1b[1;31;48;5;200ma\x1b[0m\x1b[38;2;1;2;3;4:3mb\x1b[0m漢e\u{301}".as_bytes());
        let mut row = Vec::new();
        s.row_cells(0, &mut row);
        assert_eq!(row.len(), 10);
        assert_eq!(row[0].ch, 'a');
        assert_eq!(row[0].fg, Color::Indexed(1));
        assert_eq!(row[0].bg, Color::Indexed(200));
        assert!(row[0].attrs.contains(Attrs::BOLD));
        assert_eq!(row[1].fg, Color::Rgb(1, 2, 3));
        assert!(row[1].attrs.contains(Attrs::CURLY_UNDERLINE));
        assert_eq!((row[2].ch, row[2].width), ('漢', Width::Wide));
        assert_eq!(row[3].width, Width::Spacer);
        assert_eq!(
            (row[4].ch, row[4].zerowidth.as_slice()),
            ('e', &['\u{301}'][..])
        );
        assert_eq!(row[5], Cell::default());
    }

    #[test]
    fn history_rows_are_negative_and_missing_rows_are_empty() {
        let s = screen(b"one\r\ntwo\r\nthree\r\nfour\r\nfive");
        assert_eq!(s.history_len(), 2);
        let mut row = Vec::new();
        s.row_cells(-2, &mut row);
        assert_eq!(row[0].ch, 'o');
        s.row_cells(-1, &mut row);
        assert_eq!(row[0].ch, 't');
        s.row_cells(-3, &mut row);
        assert!(row.is_empty());
        s.row_cells(3, &mut row);
        assert!(row.is_empty());
    }

    #[test]
    fn modes_and_cursor_shape_follow_the_program() {
        let mut s = screen(b"");
        // Like most terminals, the wheel is cursor keys on the alternate
        // screen unless the program turns it off.
        let start = Modes {
            alternate_scroll: true,
            ..Modes::default()
        };
        assert_eq!(s.modes(), start);
        s.feed(
            b"\x1b[?1002h\x1b[?1006h\x1b[?2004h\x1b[?1004h\x1b[?1h\x1b[?1049h\x1b[5 q",
            &mut Vec::new(),
        );
        let modes = s.modes();
        assert_eq!(modes.mouse, MouseReporting::Drags);
        assert_eq!(modes.mouse_encoding, MouseEncoding::Sgr);
        assert!(
            modes.bracketed_paste && modes.focus_events && modes.app_cursor && modes.alt_screen
        );
        assert_eq!(s.cursor_shape(), (CursorShape::Beam, true));
        s.feed(b"\x1b[?1003h", &mut Vec::new());
        assert_eq!(s.modes().mouse, MouseReporting::Motion);
    }
}
