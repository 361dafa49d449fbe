//! Frames to escape sequences: only the cells that changed since the last
//! frame are written, inside a synchronized update so the terminal never
//! shows half a frame.

use std::fmt::Write as _;

use signaltty_screen::{Attrs, Cell, Color, CursorShape, Width};

use super::frame::Frame;

#[derive(Default)]
pub struct Renderer {
    last: Option<Frame>,
}

/// The SGR state the terminal is in while a frame is written.
#[derive(Clone, PartialEq)]
struct Sgr {
    fg: Color,
    bg: Color,
    underline: Option<Color>,
    attrs: Attrs,
}

impl Sgr {
    fn of(cell: &Cell) -> Sgr {
        Sgr {
            fg: cell.fg,
            bg: cell.bg,
            underline: cell.underline,
            attrs: cell.attrs,
        }
    }
}

impl Renderer {
    /// Forgets what the terminal shows: the next frame is drawn whole.
    pub fn invalidate(&mut self) {
        self.last = None;
    }

    /// The bytes that turn the last frame into `frame`.
    pub fn draw(&mut self, frame: Frame) -> String {
        let mut out = String::with_capacity(4096);
        out.push_str("\x1b[?2026h\x1b[?25l");
        let last = self
            .last
            .take()
            .filter(|l| l.rows == frame.rows && l.cols == frame.cols);
        if last.is_none() {
            out.push_str("\x1b[0m\x1b[H\x1b[2J");
        }
        let mut pen: Option<Sgr> = if last.is_none() {
            Some(Sgr::of(&Cell::default()))
        } else {
            None
        };
        let blank = Cell::default();
        for row in 0..frame.rows {
            let cells = frame.row(row);
            let before = last.as_ref().map(|l| l.row(row));
            let mut at: Option<u16> = None;
            let mut col = 0u16;
            while col < frame.cols {
                let i = usize::from(col);
                let cell = &cells[i];
                let changed = |j: usize| match before {
                    Some(before) => before[j] != cells[j],
                    None => cells[j] != blank,
                };
                // A wide character is written whole when either half changed.
                let wide = cell.width == Width::Wide && i + 1 < cells.len();
                let dirty = changed(i) || (wide && changed(i + 1));
                if !dirty || cell.width == Width::Spacer {
                    col += 1;
                    continue;
                }
                if at != Some(col) {
                    let _ = write!(out, "\x1b[{};{}H", row + 1, col + 1);
                }
                let sgr = Sgr::of(cell);
                if pen.as_ref() != Some(&sgr) {
                    write_sgr(&mut out, &sgr);
                    pen = Some(sgr);
                }
                out.push(cell.ch);
                out.extend(cell.zerowidth.iter());
                let step = if wide { 2 } else { 1 };
                col += step;
                // At the last column the cursor waits to wrap: position
                // again before the next write.
                at = (col < frame.cols).then_some(col);
            }
        }
        out.push_str("\x1b[0m");
        match frame.cursor {
            Some(cursor) => {
                let shape = match (cursor.shape, cursor.blink) {
                    (CursorShape::Block, true) => 1,
                    (CursorShape::Block, false) => 2,
                    (CursorShape::Underline, true) => 3,
                    (CursorShape::Underline, false) => 4,
                    (CursorShape::Beam, true) => 5,
                    (CursorShape::Beam, false) => 6,
                };
                let _ = write!(
                    out,
                    "\x1b[{shape} q\x1b[{};{}H\x1b[?25h",
                    cursor.row + 1,
                    cursor.col + 1
                );
            }
            None => out.push_str("\x1b[?25l"),
        }
        out.push_str("\x1b[?2026l");
        self.last = Some(frame);
        out
    }
}

fn write_sgr(out: &mut String, sgr: &Sgr) {
    out.push_str("\x1b[0");
    for (attr, code) in Attrs::SGR {
        if sgr.attrs.contains(attr) {
            out.push(';');
            out.push_str(code);
        }
    }
    color(out, sgr.fg, 30);
    color(out, sgr.bg, 40);
    match sgr.underline {
        Some(Color::Indexed(i)) => {
            let _ = write!(out, ";58;5;{i}");
        }
        Some(Color::Rgb(r, g, b)) => {
            let _ = write!(out, ";58;2;{r};{g};{b}");
        }
        Some(Color::Default) | None => {}
    }
    out.push('m');
}

/// `base` is 30 for the foreground, 40 for the background.
fn color(out: &mut String, color: Color, base: u8) {
    match color {
        Color::Default => {}
        Color::Indexed(i) if i < 8 => {
            let _ = write!(out, ";{}", base + i);
        }
        Color::Indexed(i) if i < 16 => {
            let _ = write!(out, ";{}", base + 60 + i - 8);
        }
        Color::Indexed(i) => {
            let _ = write!(out, ";{};5;{i}", base + 8);
        }
        Color::Rgb(r, g, b) => {
            let _ = write!(out, ";{};2;{r};{g};{b}", base + 8);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mux::frame::Pen;
    use signaltty_screen::{Screen, Size, Style};

    /// What a terminal shows after the renderer's bytes.
    fn shown(screen: &mut Screen, bytes: &str) -> String {
        screen.feed(bytes.as_bytes(), &mut Vec::new());
        screen.screen_text(Style::Ansi)
    }

    #[test]
    fn only_changes_are_written_and_the_terminal_ends_up_equal() {
        let mut renderer = Renderer::default();
        let mut terminal = Screen::new(Size { rows: 3, cols: 8 }, 0);
        let mut frame = Frame::new(3, 8);
        frame.text(0, 0, 8, "hello", Pen::fg(Color::Indexed(1)));
        frame.text(2, 6, 2, "漢", Pen::default());
        let first = renderer.draw(frame.clone());
        let text = shown(&mut terminal, &first);
        assert!(text.contains("\u{1b}[0;31mhello"), "{text:?}");
        assert!(text.ends_with("漢"), "{text:?}");

        frame.text(0, 1, 1, "a", Pen::fg(Color::Indexed(1)));
        let second = renderer.draw(frame.clone());
        assert!(!second.contains("ello"), "only the change: {second:?}");
        assert!(shown(&mut terminal, &second).starts_with("\u{1b}[0;31mhallo"));
        // Nothing changed, nothing written but the frame's bracket.
        let third = renderer.draw(frame.clone());
        assert_eq!(third, "\x1b[?2026h\x1b[?25l\x1b[0m\x1b[?25l\x1b[?2026l");
    }

    #[test]
    fn colours_and_attributes_become_sgr() {
        let mut out = String::new();
        write_sgr(
            &mut out,
            &Sgr {
                fg: Color::Indexed(9),
                bg: Color::Rgb(1, 2, 3),
                underline: Some(Color::Indexed(200)),
                attrs: Attrs::BOLD | Attrs::CURLY_UNDERLINE,
            },
        );
        assert_eq!(out, "\x1b[0;1;4:3;91;48;2;1;2;3;58;5;200m");
    }
}
