//! Composing frames: the chrome, each pane from its local screen, the
//! overlays; then only what changed goes out ([`super::output`]).
//!
//! Pacing: a pane whose screen took more than [`QUICK_BYTES`] since it
//! was last drawn is copied again at most every [`FRAME`], so a flood
//! costs one picture per frame; a small change (an echo, a prompt, a
//! spinner) is drawn at once, and never waits behind another pane's
//! flood.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use signaltty_screen::{Cell, CursorShape, Size};

use super::chrome::{self, PaneLabel};
use super::frame::{Cursor, Frame};
use super::geometry::{Geometry, Rect};
use super::modal::Mode;
use super::output::Renderer;
use super::panes::PaneStatus;
use super::{Mux, view};

/// The least time between two copies of one pane's screen (~60 a second)
/// while it takes more than [`QUICK_BYTES`] between them.
pub const FRAME: Duration = Duration::from_millis(16);
/// Output up to this much is drawn at once, whatever the pacing.
pub const QUICK_BYTES: usize = 4096;
/// Below this many columns the sidebar hides unless asked for.
pub const SIDEBAR_AUTO_COLS: u16 = 100;
/// The sidebar's width, its border included.
pub const SIDEBAR_COLS: u16 = 26;

/// Something on screen a click acts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hit {
    Tab { workspace: String, tab: String },
    Workspace(String),
    Pane { workspace: String, pane: String },
}

#[derive(Default)]
pub struct RenderState {
    /// Something besides pane contents changed.
    pub chrome: bool,
    /// A pane's screen may have changed.
    pub panes: bool,
    /// When a pane held back by pacing may be drawn.
    pub due: Option<Instant>,
    renderer: Renderer,
    hits: Vec<(Rect, Hit)>,
}

impl RenderState {
    /// The terminal's picture is unknown (it was resized): draw it whole.
    pub fn invalidate(&mut self) {
        self.renderer.invalidate();
        self.chrome = true;
    }

    /// Whether to draw now. A pane that changed is looked at even while
    /// another waits for its frame: [`Mux::draw`] copies only the panes
    /// pacing allows, so an echo is not held behind a flood (it was, for
    /// up to a [`FRAME`], once a flood came in terminal-sized chunks).
    fn should_draw(&self, now: Instant) -> bool {
        self.chrome || self.panes || self.due.is_some_and(|due| due <= now)
    }

    pub fn hit(&self, col: u16, row: u16) -> Option<Hit> {
        self.hits
            .iter()
            .find(|(rect, _)| rect.contains(col, row))
            .map(|(_, hit)| hit.clone())
    }
}

/// What was last copied out of a pane's screen.
pub struct PaneCache {
    rows: Vec<Vec<Cell>>,
    size: Size,
    cursor: (u16, u16, bool),
    shape: (CursorShape, bool),
    pub status: PaneStatus,
    copied_at: Instant,
}

impl PaneCache {
    pub fn width(&self) -> u16 {
        self.size.cols
    }

    /// Empty rows below the last one with anything on it.
    pub fn blank_rows_at_bottom(&self) -> u16 {
        let used = self
            .rows
            .iter()
            .rposition(|row| row.iter().any(|c| *c != Cell::default()))
            .map_or(0, |i| i + 1);
        (self.rows.len() - used) as u16
    }
}

/// Where the parts of the screen are.
pub struct ScreenLayout {
    pub tab_bar: Rect,
    pub status: Rect,
    pub sidebar: Option<Rect>,
    /// Where the tab's panes go.
    pub area: Rect,
    pub geometry: Geometry,
}

impl Mux {
    pub(super) fn sidebar_shown(&self) -> bool {
        self.sidebar.unwrap_or(self.size.1 >= SIDEBAR_AUTO_COLS)
    }

    pub(super) fn screen_layout(&self) -> ScreenLayout {
        let mut layout = self.screen_layout_unzoomed();
        if let Some(zoomed) = &self.zoomed
            && layout.geometry.pane(zoomed).is_some()
        {
            layout.geometry = Geometry::single(zoomed, layout.area);
        }
        layout
    }

    pub(super) fn screen_layout_unzoomed(&self) -> ScreenLayout {
        let (rows, cols) = self.size;
        let tab_bar = Rect {
            x: 0,
            y: 0,
            w: cols,
            h: 1.min(rows),
        };
        let status = Rect {
            x: 0,
            y: rows.saturating_sub(1),
            w: cols,
            h: u16::from(rows > 1),
        };
        let middle = Rect {
            x: 0,
            y: 1,
            w: cols,
            h: rows.saturating_sub(2),
        };
        let sidebar = (self.sidebar_shown() && cols > SIDEBAR_COLS + 10).then_some(Rect {
            w: SIDEBAR_COLS,
            ..middle
        });
        let area = match sidebar {
            Some(side) => Rect {
                x: side.right(),
                w: cols - side.w,
                ..middle
            },
            None => middle,
        };
        let geometry = self
            .active_tab()
            .map(|tab| Geometry::of(&tab.layout, area))
            .unwrap_or_default();
        ScreenLayout {
            tab_bar,
            status,
            sidebar,
            area,
            geometry,
        }
    }

    pub(super) fn draw_if_due(&mut self) {
        if self.render.should_draw(Instant::now()) {
            self.draw();
        }
    }

    /// Copies the panes pacing allows and draws a frame if anything
    /// changed.
    pub(super) fn draw(&mut self) {
        let now = Instant::now();
        self.render.panes = false;
        let mut due: Option<Instant> = None;
        let mut copied = false;
        for (id, link) in &self.links {
            let shared = &link.shared;
            if !shared.dirty.load(Ordering::Acquire) && self.caches.contains_key(id) {
                continue;
            }
            let small = shared.fed.load(Ordering::Acquire) <= QUICK_BYTES;
            if let Some(cache) = self.caches.get(id)
                && !small
                && now.duration_since(cache.copied_at) < FRAME
            {
                let at = cache.copied_at + FRAME;
                due = Some(due.map_or(at, |d| d.min(at)));
                continue;
            }
            shared.dirty.store(false, Ordering::Release);
            shared.fed.store(0, Ordering::Release);
            let cache = self.caches.entry(id.clone()).or_insert_with(|| PaneCache {
                rows: Vec::new(),
                size: Size { rows: 0, cols: 0 },
                cursor: (0, 0, false),
                shape: (CursorShape::Block, false),
                status: shared.status(),
                copied_at: now,
            });
            copy(&shared.screen(), cache);
            cache.status = shared.status();
            cache.copied_at = now;
            copied = true;
        }
        self.render.due = due;
        if !copied && !self.render.chrome {
            return;
        }
        self.render.chrome = false;
        let frame = self.compose();
        let bytes = self.render.renderer.draw(frame);
        self.write(bytes.as_bytes());
    }

    fn compose(&mut self) -> Frame {
        let layout = self.screen_layout();
        let (rows, cols) = self.size;
        let mut frame = Frame::new(rows, cols);
        let mut hits = Vec::new();
        let focused = self.focused_pane();
        if let Some(ws) = self.view.workspace(&self.workspace) {
            chrome::tab_bar(
                &mut frame,
                layout.tab_bar,
                ws,
                self.view.active_tab(ws),
                &mut hits,
            );
        }
        if let Some(side) = layout.sidebar {
            chrome::sidebar(
                &mut frame,
                side,
                &self.view,
                &self.workspace,
                focused.as_deref(),
                &mut hits,
            );
        }
        let mut cursor = None;
        if layout.geometry.panes.is_empty() {
            let hint = format!(
                "no tabs here: {} opens a shell",
                self.hint(super::keys::Action::NewTab)
            );
            chrome::centered(&mut frame, layout.area, &hint);
        }
        for pane in &layout.geometry.panes {
            let is_focused = focused.as_deref() == Some(pane.id.as_str());
            let cache = self.caches.get(&pane.id);
            let copy = match &self.mode {
                Mode::Copy(copy) if copy.pane == pane.id => Some(copy),
                _ => None,
            };
            let label = PaneLabel {
                pane: self.view.find_pane(&pane.id).map(|(_, _, p)| p),
                status: cache.map(|c| &c.status),
                focused: is_focused,
                zoomed: self.zoomed.as_deref() == Some(pane.id.as_str()),
                copy: copy.map(|c| c.position()),
            };
            chrome::pane_header(&mut frame, pane.header(), &label);
            let area = pane.content();
            if let Some(copy) = copy {
                let (row, col) = copy.draw(&mut frame, area);
                cursor = Some(Cursor {
                    row,
                    col,
                    shape: CursorShape::Block,
                    blink: false,
                });
                continue;
            }
            let Some(cache) = cache else {
                continue;
            };
            draw_screen(&mut frame, area, cache);
            if !cache.status.live() {
                chrome::offer(&mut frame, area, &cache.status);
            } else if is_focused
                && cache.cursor.2
                && cache.cursor.0 < area.h
                && cache.cursor.1 < area.w
            {
                cursor = Some(Cursor {
                    row: area.y + cache.cursor.0,
                    col: area.x + cache.cursor.1,
                    shape: cache.shape.0,
                    blink: cache.shape.1,
                });
            }
        }
        let focused_rect = focused
            .as_deref()
            .and_then(|id| layout.geometry.pane(id))
            .map(|p| p.rect);
        for split in &layout.geometry.splits {
            chrome::separator(&mut frame, split, focused_rect);
        }
        let bindings = &self.config.bindings;
        let status_cursor = match &self.mode {
            Mode::Help => {
                chrome::help(&mut frame, bindings);
                None
            }
            Mode::Picker { selected } => {
                chrome::picker(&mut frame, &self.view, &self.workspace, *selected);
                None
            }
            _ => None,
        };
        let line = self.status_line();
        let at = chrome::status(&mut frame, layout.status, &line);
        if matches!(self.mode, Mode::Prompt(_)) || self.copy_input().is_some() {
            cursor = Some(Cursor {
                row: layout.status.y,
                col: at,
                shape: CursorShape::Beam,
                blink: true,
            });
        }
        frame.fix_wide();
        frame.cursor = status_cursor.or(cursor);
        self.render.hits = hits;
        frame
    }

    fn copy_input(&self) -> Option<(&str, bool)> {
        match &self.mode {
            Mode::Copy(copy) => copy.input(),
            _ => None,
        }
    }

    /// What the status line says now.
    fn status_line(&self) -> chrome::StatusLine {
        let bindings = &self.config.bindings;
        let right = match self.mode {
            Mode::Prefix => chrome::Right::Prefix(format!("{} …", bindings.prefix)),
            _ => chrome::Right::Hint(self.hint(super::keys::Action::Help) + " help"),
        };
        let left = match &self.mode {
            Mode::Prompt(prompt) => {
                chrome::Left::Prompt(format!("{} {}", prompt.label, prompt.edit.text))
            }
            Mode::Confirm { question, .. } => chrome::Left::Question(question.clone()),
            Mode::Lost { host } => match &self.message {
                Some(message) if message.error => {
                    chrome::Left::Error(format!("{} · r retry · d leave", message.text))
                }
                _ => chrome::Left::Question(format!(
                    "the connection to {host} dropped; nothing there stopped · r reconnect · d leave"
                )),
            },
            Mode::Copy(copy) => match copy.input() {
                Some((text, forward)) => chrome::Left::Prompt(format!(
                    "search {} {text}",
                    if forward { "down:" } else { "up:" }
                )),
                None => chrome::Left::Plain(
                    "copy mode · / ? search · Space select · Enter copy · q leave".into(),
                ),
            },
            _ => match &self.message {
                Some(message) if message.error => chrome::Left::Error(message.text.clone()),
                Some(message) => chrome::Left::Plain(message.text.clone()),
                None => chrome::Left::Where(self.where_am_i()),
            },
        };
        chrome::StatusLine { left, right }
    }

    /// `workspace › tab › pane`, after `host: ` for a `--host` server.
    fn where_am_i(&self) -> String {
        let host = match self.server.endpoint().host() {
            Some(host) => format!("{host}: "),
            None => String::new(),
        };
        let Some(ws) = self.view.workspace(&self.workspace) else {
            return host;
        };
        let mut parts = vec![ws.name.clone()];
        if let Some(tab) = self.view.active_tab(ws) {
            parts.push(tab.title.clone());
            if let Some(pane) = view::active_pane(tab) {
                parts.push(format!("{} [{}]", pane.name, pane.state));
            }
        }
        host + &parts.join(" › ")
    }
}

/// Copies what `screen` shows into `cache`.
fn copy(screen: &signaltty_screen::Screen, cache: &mut PaneCache) {
    let size = screen.size();
    cache.size = size;
    cache.rows.resize_with(usize::from(size.rows), Vec::new);
    for (line, row) in cache.rows.iter_mut().enumerate() {
        screen.row_cells(line as i32, row);
    }
    cache.cursor = screen.cursor();
    cache.shape = screen.cursor_shape();
}

/// A pane's picture in its area: clipped if the pane is bigger (another
/// client sized it), the spare cells dotted if it is smaller.
fn draw_screen(frame: &mut Frame, area: Rect, cache: &PaneCache) {
    for row in 0..area.h {
        match cache.rows.get(usize::from(row)) {
            Some(cells) => {
                frame.copy_row(area.y + row, area.x, cells, area.w);
                let spare = cells.len() as u16;
                if spare < area.w {
                    chrome::spare(
                        frame,
                        Rect {
                            x: area.x + spare,
                            y: area.y + row,
                            w: area.w - spare,
                            h: 1,
                        },
                    );
                }
            }
            None => chrome::spare(
                frame,
                Rect {
                    y: area.y + row,
                    h: 1,
                    ..area
                },
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_pane_is_drawn_while_another_waits_for_its_frame() {
        let now = Instant::now();
        let mut render = RenderState {
            due: Some(now + FRAME),
            ..RenderState::default()
        };
        assert!(!render.should_draw(now), "nothing changed, nothing due");
        render.panes = true;
        assert!(render.should_draw(now));
        render.panes = false;
        assert!(render.should_draw(now + FRAME), "the held pane's frame");
    }
}
