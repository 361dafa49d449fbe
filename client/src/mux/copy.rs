//! Scroll and copy mode: a pane's history as the server holds it (so it
//! reaches lines that scrolled off before this client attached), a cursor
//! that moves through it, search, and a selection that goes to the user's
//! clipboard with OSC 52.

use signaltty_screen::{Attrs, Cell, Screen, Size, Width};

use super::edit::{Edit, LineEdit};
use super::frame::Frame;
use super::geometry::Rect;
use super::keys::Key;

/// Lines of history asked for: more than the server keeps, so all of it.
pub const HISTORY_LINES: usize = 100_000;

/// What a key in copy mode asks of the multiplexer.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    Stay,
    Leave,
    /// Put this text on the clipboard, then leave.
    Copy(String),
    Say(String),
}

#[derive(Debug)]
pub struct CopyMode {
    pub pane: String,
    lines: Vec<Vec<Cell>>,
    height: usize,
    /// The first line shown.
    top: usize,
    cursor: (usize, usize),
    anchor: Option<(usize, usize)>,
    last_search: Option<(String, bool)>,
    /// A search being typed, and its direction.
    input: Option<(LineEdit, bool)>,
    /// Entered by the wheel: scrolling back to the bottom leaves.
    pub by_wheel: bool,
}

impl CopyMode {
    /// Copy mode over `history` (lines with SGR colours, as `pane.read`
    /// with `tail` and `ansi` gives them) for a pane `width` columns wide
    /// showing `height` rows; it starts at the bottom.
    pub fn new(pane: &str, history: &str, width: u16, height: u16) -> CopyMode {
        let lines = parse(history, width);
        let height = usize::from(height.max(1));
        let last = lines.len().saturating_sub(1);
        CopyMode {
            pane: pane.to_string(),
            top: lines.len().saturating_sub(height),
            cursor: (last, 0),
            lines,
            height,
            anchor: None,
            last_search: None,
            input: None,
            by_wheel: false,
        }
    }

    /// `[123/2050]`: where the view is.
    pub fn position(&self) -> String {
        format!("[{}/{}]", self.cursor.0 + 1, self.lines.len().max(1))
    }

    pub fn at_bottom(&self) -> bool {
        self.top + self.height >= self.lines.len()
    }

    /// The search being typed: its text and whether it goes forward.
    pub fn input(&self) -> Option<(&str, bool)> {
        self.input
            .as_ref()
            .map(|(edit, forward)| (edit.text.as_str(), *forward))
    }

    pub fn key(&mut self, key: Key) -> Outcome {
        if let Some((edit, forward)) = &mut self.input {
            let forward = *forward;
            return match edit.key(key) {
                Edit::Editing => Outcome::Stay,
                Edit::Cancelled => {
                    self.input = None;
                    Outcome::Stay
                }
                Edit::Done(query) => {
                    self.input = None;
                    self.search(&query, forward)
                }
            };
        }
        match key {
            Key::Char('q') => return Outcome::Leave,
            Key::Escape if self.anchor.take().is_none() => return Outcome::Leave,
            Key::Escape => {}
            Key::Up | Key::Char('k') => self.move_by(-1),
            Key::Down | Key::Char('j') => self.move_by(1),
            Key::Left | Key::Char('h') => self.cursor.1 = self.cursor.1.saturating_sub(1),
            Key::Right | Key::Char('l') => {
                self.cursor.1 = (self.cursor.1 + 1).min(self.width() - 1)
            }
            // tmux's page-up and page-down (vi and emacs keys alike).
            Key::PageUp | Key::Ctrl('b') | Key::Alt('v') => self.page(-self.page_lines()),
            Key::PageDown | Key::Ctrl('f') | Key::Ctrl('v') => self.page(self.page_lines()),
            Key::Ctrl('u') => self.page(-self.half_page_lines()),
            Key::Ctrl('d') => self.page(self.half_page_lines()),
            Key::Char('g') | Key::Home => self.move_to(0),
            Key::Char('G') | Key::End => self.move_to(self.lines.len().saturating_sub(1)),
            Key::Char('0') => self.cursor.1 = 0,
            Key::Char('$') => self.cursor.1 = self.line_end(self.cursor.0),
            Key::Char(' ' | 'v') => {
                self.anchor = match self.anchor {
                    Some(_) => None,
                    None => Some(self.cursor),
                }
            }
            Key::Enter | Key::Char('y') => {
                return match self.selection_text() {
                    Some(text) => Outcome::Copy(text),
                    None => Outcome::Say("nothing selected: Space starts a selection".into()),
                };
            }
            Key::Char('/') => self.input = Some((LineEdit::default(), true)),
            Key::Char('?') => self.input = Some((LineEdit::default(), false)),
            Key::Char('n') => return self.repeat_search(false),
            Key::Char('N') => return self.repeat_search(true),
            _ => {}
        }
        Outcome::Stay
    }

    /// Scrolls the view by `delta` lines (the wheel), the cursor with it.
    pub fn scroll(&mut self, delta: i64) {
        let max_top = self.lines.len().saturating_sub(self.height);
        self.top = offset(self.top, delta).min(max_top);
        self.cursor.0 = offset(self.cursor.0, delta).clamp(self.top, self.bottom_line());
    }

    /// The mouse pressed at (`row`, `col`) of the view: the cursor goes
    /// there and a selection starts.
    pub fn press(&mut self, row: u16, col: u16) {
        self.point(row, col);
        self.anchor = Some(self.cursor);
    }

    /// The mouse dragged to (`row`, `col`) of the view.
    pub fn drag(&mut self, row: u16, col: u16) {
        self.point(row, col);
    }

    fn point(&mut self, row: u16, col: u16) {
        let line = (self.top + usize::from(row)).min(self.lines.len().saturating_sub(1));
        self.cursor = (line, usize::from(col).min(self.width() - 1));
    }

    /// Looks for `query` from the cursor on (or back); moves there.
    pub fn search(&mut self, query: &str, forward: bool) -> Outcome {
        if query.is_empty() {
            return Outcome::Stay;
        }
        self.last_search = Some((query.to_string(), forward));
        self.find(query, forward)
    }

    fn repeat_search(&mut self, reverse: bool) -> Outcome {
        match self.last_search.clone() {
            Some((query, forward)) => self.find(&query, forward != reverse),
            None => Outcome::Say("no search yet: / or ? starts one".into()),
        }
    }

    fn find(&mut self, query: &str, forward: bool) -> Outcome {
        let fold = !query.chars().any(char::is_uppercase);
        let needle: Vec<char> = query.chars().map(|c| fold_char(c, fold)).collect();
        let count = self.lines.len();
        let (line, col) = self.cursor;
        for step in 0..=count {
            let l = if forward {
                (line + step) % count.max(1)
            } else {
                (line + count - step % count.max(1)) % count.max(1)
            };
            let hits = matches(&self.lines[l], &needle, fold);
            let hit = if forward {
                hits.into_iter().find(|&c| step > 0 || c > col)
            } else {
                hits.into_iter().rev().find(|&c| step > 0 || c < col)
            };
            if let Some(c) = hit {
                self.move_to(l);
                self.cursor.1 = c;
                return Outcome::Stay;
            }
        }
        Outcome::Say(format!("{query:?} is not in the history"))
    }

    fn width(&self) -> usize {
        self.lines.first().map_or(1, Vec::len).max(1)
    }

    fn line_end(&self, line: usize) -> usize {
        self.lines
            .get(line)
            .and_then(|cells| cells.iter().rposition(|c| c.ch != ' '))
            .unwrap_or(0)
    }

    fn bottom_line(&self) -> usize {
        (self.top + self.height)
            .min(self.lines.len())
            .saturating_sub(1)
    }

    /// A page, as tmux counts it: the height less two lines that stay in
    /// view for context.
    fn page_lines(&self) -> i64 {
        if self.height > 2 {
            self.height as i64 - 2
        } else {
            1
        }
    }

    fn half_page_lines(&self) -> i64 {
        if self.height > 2 {
            self.height as i64 / 2
        } else {
            1
        }
    }

    /// Scrolls the view by `delta` lines with the cursor on the same row
    /// of it, as tmux does; where the history ends the view stops and the
    /// cursor goes on the rest of the way.
    fn page(&mut self, delta: i64) {
        let max_top = self.lines.len().saturating_sub(self.height);
        let row = self.cursor.0 - self.top;
        let top = offset(self.top, delta);
        let row = if top > max_top || (delta < 0 && self.top < delta.unsigned_abs() as usize) {
            offset(row, delta)
        } else {
            row
        };
        self.top = top.min(max_top);
        let last = self.lines.len().saturating_sub(1);
        self.cursor.0 = (self.top + row.min(self.height - 1)).min(last);
    }

    fn move_by(&mut self, delta: i64) {
        let target = offset(self.cursor.0, delta).min(self.lines.len().saturating_sub(1));
        self.move_to(target);
    }

    /// Puts the cursor on `line`, scrolling just enough to show it.
    fn move_to(&mut self, line: usize) {
        self.cursor.0 = line.min(self.lines.len().saturating_sub(1));
        if self.cursor.0 < self.top {
            self.top = self.cursor.0;
        } else if self.cursor.0 >= self.top + self.height {
            self.top = self.cursor.0 + 1 - self.height;
        }
    }

    /// The selection, start and end in reading order.
    fn selection(&self) -> Option<((usize, usize), (usize, usize))> {
        let anchor = self.anchor?;
        Some(if anchor <= self.cursor {
            (anchor, self.cursor)
        } else {
            (self.cursor, anchor)
        })
    }

    /// The selected text, lines joined by `\n`, trailing blanks trimmed.
    pub fn selection_text(&self) -> Option<String> {
        let (start, end) = self.selection()?;
        let mut out = Vec::new();
        for line in start.0..=end.0 {
            let cells = &self.lines[line];
            let from = if line == start.0 { start.1 } else { 0 };
            let to = if line == end.0 {
                end.1 + 1
            } else {
                cells.len()
            };
            let text: String = cells[from.min(cells.len())..to.min(cells.len())]
                .iter()
                .filter(|c| c.width != Width::Spacer)
                .flat_map(|c| std::iter::once(c.ch).chain(c.zerowidth.iter().copied()))
                .collect();
            out.push(text.trim_end().to_string());
        }
        Some(out.join("\n"))
    }

    /// Draws the view into `area` (the pane's content); returns where the
    /// cursor is on screen.
    pub fn draw(&self, frame: &mut Frame, area: Rect) -> (u16, u16) {
        let selection = self.selection();
        for row in 0..area.h {
            let line = self.top + usize::from(row);
            let Some(cells) = self.lines.get(line) else {
                break;
            };
            frame.copy_row(area.y + row, area.x, cells, area.w);
            let Some((start, end)) = selection else {
                continue;
            };
            for col in 0..area.w.min(cells.len() as u16) {
                let at = (line, usize::from(col));
                if at >= start
                    && at <= end
                    && let Some(cell) = frame.get_mut(area.y + row, area.x + col)
                {
                    cell.attrs = cell.attrs | Attrs::INVERSE;
                }
            }
        }
        let row = self.cursor.0.saturating_sub(self.top) as u16;
        (
            area.y + row.min(area.h.saturating_sub(1)),
            area.x + (self.cursor.1 as u16).min(area.w.saturating_sub(1)),
        )
    }
}

fn offset(at: usize, delta: i64) -> usize {
    if delta < 0 {
        at.saturating_sub(delta.unsigned_abs() as usize)
    } else {
        at.saturating_add(delta as usize)
    }
}

fn fold_char(c: char, fold: bool) -> char {
    if fold {
        c.to_lowercase().next().unwrap_or(c)
    } else {
        c
    }
}

/// The columns where `needle` starts in `cells`.
fn matches(cells: &[Cell], needle: &[char], fold: bool) -> Vec<usize> {
    let chars: Vec<(usize, char)> = cells
        .iter()
        .enumerate()
        .filter(|(_, c)| c.width != Width::Spacer)
        .map(|(col, c)| (col, fold_char(c.ch, fold)))
        .collect();
    if needle.is_empty() || chars.len() < needle.len() {
        return Vec::new();
    }
    chars
        .windows(needle.len())
        .filter(|w| w.iter().map(|(_, c)| *c).eq(needle.iter().copied()))
        .map(|w| w[0].0)
        .collect()
}

/// The history's lines as cells, `width` wide, parsed by a screen of its
/// own (a line wider than the pane wraps, as it would on screen).
fn parse(history: &str, width: u16) -> Vec<Vec<Cell>> {
    let lines: Vec<&str> = history.split('\n').collect();
    let mut screen = Screen::new(
        Size {
            rows: 1,
            cols: width.max(2),
        },
        lines.len() * 2 + 1,
    );
    let mut ignored = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            screen.feed(b"\r\n", &mut ignored);
        }
        screen.feed(line.as_bytes(), &mut ignored);
    }
    let mut out = screen.history_cells();
    let mut last = Vec::new();
    screen.row_cells(0, &mut last);
    out.push(last);
    out
}

/// The OSC 52 sequence that puts `text` on the clipboard of the terminal
/// the multiplexer runs in.
pub fn osc52(text: &str) -> String {
    use base64::Engine;
    let encoded = base64::engine::general_purpose::STANDARD.encode(text);
    format!("\x1b]52;c;{encoded}\x07")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history() -> String {
        (1..=100)
            .map(|i| format!("line {i}"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn it_starts_at_the_bottom_and_reaches_the_top() {
        let mut copy = CopyMode::new("p", &history(), 20, 10);
        assert!(copy.at_bottom());
        assert_eq!(copy.position(), "[100/100]");
        copy.key(Key::Char('g'));
        assert_eq!(copy.position(), "[1/100]");
        assert!(!copy.at_bottom());
        let mut frame = Frame::new(10, 20);
        copy.draw(
            &mut frame,
            Rect {
                x: 0,
                y: 0,
                w: 20,
                h: 10,
            },
        );
        let first: String = frame.row(0).iter().map(|c| c.ch).collect();
        assert_eq!(first.trim_end(), "line 1");
    }

    #[test]
    fn search_goes_forward_and_back_and_wraps() {
        let mut copy = CopyMode::new("p", &history(), 20, 10);
        copy.key(Key::Char('g'));
        for key in [Key::Char('/'), Key::Char('l'), Key::Char('i')] {
            copy.key(key);
        }
        assert_eq!(copy.input(), Some(("li", true)));
        copy.key(Key::Escape);
        assert_eq!(copy.input(), None);
        assert_eq!(copy.search("line 5", true), Outcome::Stay);
        assert_eq!(copy.position(), "[5/100]");
        copy.key(Key::Char('n'));
        assert_eq!(copy.position(), "[50/100]", "line 50 also starts with it");
        copy.key(Key::Char('N'));
        assert_eq!(copy.position(), "[5/100]");
        assert!(matches!(copy.search("nowhere", true), Outcome::Say(_)));
        assert_eq!(
            copy.search("LINE 7", false),
            Outcome::Say("\"LINE 7\" is not in the history".into())
        );
        assert_eq!(copy.search("line 99", false), Outcome::Stay);
        assert_eq!(copy.position(), "[99/100]", "backwards from line 5 wraps");
    }

    #[test]
    fn a_selection_is_copied_as_text() {
        let mut copy = CopyMode::new("p", "alpha beta\ngamma delta\n", 20, 5);
        copy.key(Key::Char('g'));
        for _ in 0..6 {
            copy.key(Key::Char('l'));
        }
        copy.key(Key::Char(' '));
        copy.key(Key::Char('j'));
        copy.key(Key::Char('h'));
        assert_eq!(copy.key(Key::Enter), Outcome::Copy("beta\ngamma".into()));
        assert_eq!(osc52("hi"), "\x1b]52;c;aGk=\x07");
    }

    #[test]
    fn a_page_is_the_height_less_two_lines_and_the_cursor_keeps_its_row() {
        let mut copy = CopyMode::new("p", &history(), 20, 10);
        copy.key(Key::Up);
        assert_eq!((copy.top, copy.cursor.0), (90, 98));
        copy.key(Key::PageUp);
        assert_eq!((copy.top, copy.cursor.0), (82, 90));
        copy.key(Key::Ctrl('u'));
        assert_eq!((copy.top, copy.cursor.0), (77, 85));
        copy.key(Key::Ctrl('d'));
        copy.key(Key::PageDown);
        assert_eq!((copy.top, copy.cursor.0), (90, 98));
        copy.key(Key::PageDown);
        assert_eq!((copy.top, copy.cursor.0), (90, 99), "the cursor goes on");
        copy.key(Key::Char('g'));
        copy.key(Key::Char('j'));
        copy.key(Key::PageUp);
        assert_eq!((copy.top, copy.cursor.0), (0, 0), "at the top too");
        let mut tiny = CopyMode::new("p", &history(), 20, 1);
        tiny.key(Key::PageUp);
        assert_eq!((tiny.top, tiny.cursor.0), (98, 98));
    }

    #[test]
    fn the_wheel_scrolls_the_view() {
        let mut copy = CopyMode::new("p", &history(), 20, 10);
        copy.scroll(-30);
        assert!(!copy.at_bottom());
        copy.scroll(100);
        assert!(copy.at_bottom());
    }
}
