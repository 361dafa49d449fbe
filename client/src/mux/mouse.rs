//! The mouse: a click focuses a pane or picks a tab or sidebar row, a
//! border drags, the wheel scrolls history. A program that asked for mouse
//! reports gets them instead, in the encoding it asked for, relative to
//! its own cells, until the button is let go.

use signaltty_protocol::{Branch, Direction, method, params};
use signaltty_screen::{Modes, MouseEncoding, MouseReporting};

use super::Mux;
use super::geometry::{PaneArea, Rect};
use super::input::{Button, Mouse, MouseKind};
use super::modal::Mode;
use super::render::Hit;

/// Lines the wheel scrolls per notch.
const WHEEL_LINES: i64 = 3;

#[derive(Debug, Default)]
pub struct MouseState {
    drag: Option<BorderDrag>,
    /// A program that got a press gets everything until the release.
    captured: Option<String>,
    /// A press in a pane that reports nothing (pane, row, col): a drag
    /// from here selects.
    select_from: Option<(String, u16, u16)>,
}

#[derive(Debug)]
struct BorderDrag {
    tab: String,
    path: Vec<Branch>,
    direction: Direction,
    area: Rect,
    ratio: Option<f32>,
    /// The pane under the press: a press that never moves focuses it.
    pane: Option<String>,
}

impl Mux {
    pub(super) fn on_mouse(&mut self, m: Mouse) {
        if self.mouse.drag.is_some() {
            return self.drag_border(m);
        }
        if let Some(id) = self.mouse.captured.clone() {
            if m.kind == MouseKind::Release {
                self.mouse.captured = None;
            }
            return self.forward_mouse(&id, m);
        }
        if let Mode::Copy(_) = self.mode
            && self.copy_mouse(m)
        {
            return;
        }
        if self.mouse.select_from.is_some() {
            return self.start_selection(m);
        }
        match (m.kind, m.button) {
            (MouseKind::Press, Button::Left) => self.left_press(m),
            (MouseKind::Press, Button::WheelUp | Button::WheelDown) => self.wheel(m),
            (MouseKind::Press, Button::Middle | Button::Right)
            | (MouseKind::Drag, Button::None) => {
                if let Some(id) = self.pane_content_at(m.col, m.row) {
                    if m.kind == MouseKind::Press && self.wants(&id, m) {
                        self.mouse.captured = Some(id.clone());
                    }
                    self.forward_mouse(&id, m);
                }
            }
            _ => {}
        }
    }

    fn left_press(&mut self, m: Mouse) {
        if let Some(hit) = self.render.hit(m.col, m.row) {
            match hit {
                Hit::Tab { workspace, tab } => {
                    self.switch_workspace(&workspace);
                    self.select_tab(&tab);
                }
                Hit::Workspace(id) => self.switch_workspace(&id),
                Hit::Pane { workspace, pane } => {
                    self.switch_workspace(&workspace);
                    self.focus_pane(&pane);
                }
            }
            return;
        }
        let layout = self.screen_layout();
        if let (Some(split), Some(tab)) =
            (layout.geometry.split_at(m.col, m.row), self.active_tab())
        {
            self.mouse.drag = Some(BorderDrag {
                tab: tab.id.clone(),
                path: split.path.clone(),
                direction: split.direction,
                area: split.area,
                ratio: None,
                pane: layout.geometry.pane_at(m.col, m.row).map(|p| p.id.clone()),
            });
            return;
        }
        let Some(pane) = layout.geometry.pane_at(m.col, m.row).cloned() else {
            return;
        };
        self.focus_pane(&pane.id);
        if !pane.content().contains(m.col, m.row) {
            return;
        }
        if self.wants(&pane.id, m) {
            self.mouse.captured = Some(pane.id.clone());
            self.forward_mouse(&pane.id, m);
        } else {
            let (row, col) = relative(&pane, m);
            self.mouse.select_from = Some((pane.id, row, col));
        }
    }

    fn drag_border(&mut self, m: Mouse) {
        let Some(drag) = self.mouse.drag.as_mut() else {
            return;
        };
        match m.kind {
            MouseKind::Drag => {
                let split = super::geometry::Split {
                    path: drag.path.clone(),
                    direction: drag.direction,
                    area: drag.area,
                    handle: Rect::default(),
                };
                let ratio = split.ratio_at(m.col, m.row);
                drag.ratio = Some(ratio);
                let (tab, path) = (drag.tab.clone(), drag.path.clone());
                // Drawn at once; the panes' sizes follow on release.
                self.set_local_ratio(&tab, &path, ratio);
                self.render.chrome = true;
            }
            MouseKind::Release => {
                let Some(drag) = self.mouse.drag.take() else {
                    return;
                };
                match drag.ratio {
                    Some(ratio) => {
                        let result =
                            self.server
                                .request::<method::TabSplitRatio>(params::SplitRatio {
                                    tab: drag.tab.into(),
                                    path: drag.path,
                                    ratio,
                                });
                        if let Err(e) = result {
                            self.complain(e);
                        }
                        self.reconcile();
                    }
                    None => {
                        if let Some(pane) = drag.pane {
                            self.focus_pane(&pane);
                        }
                    }
                }
            }
            MouseKind::Press => {}
        }
    }

    /// Draws a ratio at once, before the server's listing says it.
    pub(super) fn set_local_ratio(&mut self, tab: &str, path: &[Branch], ratio: f32) {
        let workspace = self.workspace.clone();
        if let Some(tab) = self
            .view
            .workspace_mut(&workspace)
            .and_then(|ws| ws.tabs.iter_mut().find(|t| t.id == tab))
        {
            let _ = tab.layout.set_ratio(path, ratio);
        }
    }

    fn wheel(&mut self, m: Mouse) {
        let Some(id) = self.pane_content_at(m.col, m.row) else {
            return;
        };
        if self.wants(&id, m) {
            return self.forward_mouse(&id, m);
        }
        let modes = self.modes_of(&id);
        let up = m.button == Button::WheelUp;
        if modes.alt_screen && modes.alternate_scroll {
            // A full-screen program that takes no mouse: cursor keys, as
            // terminals do (less, man, a pager scroll).
            let key: &[u8] = match (up, modes.app_cursor) {
                (true, true) => b"\x1bOA",
                (true, false) => b"\x1b[A",
                (false, true) => b"\x1bOB",
                (false, false) => b"\x1b[B",
            };
            return self.send_to(&id, &key.repeat(WHEEL_LINES as usize));
        }
        if !up {
            return;
        }
        self.focus_pane(&id);
        if let Some(mut copy) = self.enter_copy() {
            copy.by_wheel = true;
            copy.scroll(-WHEEL_LINES);
            self.mode = Mode::Copy(Box::new(copy));
            self.render.chrome = true;
        }
    }

    /// The mouse in copy mode, over its pane; false if it is not for it.
    fn copy_mouse(&mut self, m: Mouse) -> bool {
        let layout = self.screen_layout();
        let Mode::Copy(copy) = &mut self.mode else {
            return false;
        };
        let Some(pane) = layout.geometry.pane(&copy.pane) else {
            return false;
        };
        let area = pane.content();
        if m.kind == MouseKind::Press && !area.contains(m.col, m.row) {
            return false;
        }
        let (row, col) = (
            m.row.clamp(area.y, area.bottom().saturating_sub(1)) - area.y,
            m.col.clamp(area.x, area.right().saturating_sub(1)) - area.x,
        );
        self.render.chrome = true;
        match (m.kind, m.button) {
            (MouseKind::Press, Button::Left) => copy.press(row, col),
            (MouseKind::Drag, Button::Left) => copy.drag(row, col),
            (MouseKind::Release, _) => {
                if let Some(text) = copy.selection_text().filter(|t| !t.is_empty()) {
                    self.mode = Mode::Normal;
                    self.write(super::copy::osc52(&text).as_bytes());
                    self.say(format!("copied {} characters", text.chars().count()));
                }
            }
            (MouseKind::Press, Button::WheelUp) => copy.scroll(-WHEEL_LINES),
            (MouseKind::Press, Button::WheelDown) => {
                copy.scroll(WHEEL_LINES);
                if copy.by_wheel && copy.at_bottom() {
                    self.mode = Mode::Normal;
                }
            }
            _ => {}
        }
        true
    }

    /// A drag from a press in a pane that reports nothing: copy mode with
    /// a selection from the press.
    fn start_selection(&mut self, m: Mouse) {
        let Some((pane, row, col)) = self.mouse.select_from.take() else {
            return;
        };
        if m.kind != MouseKind::Drag || self.focused_pane().as_deref() != Some(pane.as_str()) {
            return;
        }
        let Some(mut copy) = self.enter_copy() else {
            return;
        };
        copy.press(row, col);
        self.mode = Mode::Copy(Box::new(copy));
        self.copy_mouse(m);
    }

    fn pane_content_at(&self, col: u16, row: u16) -> Option<String> {
        let layout = self.screen_layout();
        layout
            .geometry
            .pane_at(col, row)
            .filter(|p| p.content().contains(col, row))
            .map(|p| p.id.clone())
    }

    /// Whether the program in pane `id` asked to be told about `m`.
    fn wants(&self, id: &str, m: Mouse) -> bool {
        reported(self.modes_of(id).mouse, m)
    }

    fn forward_mouse(&mut self, id: &str, m: Mouse) {
        let modes = self.modes_of(id);
        if !reported(modes.mouse, m) {
            return;
        }
        let layout = self.screen_layout();
        let Some(pane) = layout.geometry.pane(id).cloned() else {
            return;
        };
        let (row, col) = relative(&pane, m);
        if let Some(bytes) = encode(m, col, row, modes) {
            self.send_to(id, &bytes);
        }
    }
}

/// (row, col) of `m` in the pane's content, clamped to it.
fn relative(pane: &PaneArea, m: Mouse) -> (u16, u16) {
    let area = pane.content();
    (
        m.row
            .clamp(area.y, area.bottom().saturating_sub(1))
            .saturating_sub(area.y),
        m.col
            .clamp(area.x, area.right().saturating_sub(1))
            .saturating_sub(area.x),
    )
}

fn reported(reporting: MouseReporting, m: Mouse) -> bool {
    match (reporting, m.kind) {
        (MouseReporting::Off, _) => false,
        (_, MouseKind::Press | MouseKind::Release) => true,
        (MouseReporting::Clicks, MouseKind::Drag) => false,
        (MouseReporting::Drags, MouseKind::Drag) => m.button != Button::None,
        (MouseReporting::Motion, MouseKind::Drag) => true,
    }
}

/// The report a program that set `modes` expects, at 0-based (`col`,
/// `row`) of its screen.
pub fn encode(m: Mouse, col: u16, row: u16, modes: Modes) -> Option<Vec<u8>> {
    let button: u16 = match m.button {
        Button::Left => 0,
        Button::Middle => 1,
        Button::Right => 2,
        Button::None => 3,
        Button::WheelUp => 64,
        Button::WheelDown => 65,
    };
    let motion = if m.kind == MouseKind::Drag { 32 } else { 0 };
    let code = button + motion + u16::from(m.modifiers);
    match modes.mouse_encoding {
        MouseEncoding::Sgr => {
            let end = if m.kind == MouseKind::Release {
                'm'
            } else {
                'M'
            };
            Some(format!("\x1b[<{code};{};{}{end}", col + 1, row + 1).into_bytes())
        }
        MouseEncoding::X10 | MouseEncoding::Utf8 => {
            let code = if m.kind == MouseKind::Release {
                3 + u16::from(m.modifiers)
            } else {
                code
            };
            let mut out = b"\x1b[M".to_vec();
            out.push(u8::try_from(32 + code).ok()?);
            for value in [col, row] {
                let value = 33 + u32::from(value);
                if modes.mouse_encoding == MouseEncoding::Utf8 && value < 2048 {
                    let c = char::from_u32(value)?;
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                } else {
                    // X10 cannot say more than 223; the edge is the best it can do.
                    out.push(u8::try_from(value.min(255)).ok()?);
                }
            }
            Some(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mouse(kind: MouseKind, button: Button) -> Mouse {
        Mouse {
            kind,
            button,
            col: 0,
            row: 0,
            modifiers: 0,
        }
    }

    fn modes(mouse: MouseReporting, mouse_encoding: MouseEncoding) -> Modes {
        Modes {
            mouse,
            mouse_encoding,
            ..Modes::default()
        }
    }

    #[test]
    fn reports_are_encoded_as_the_program_asked() {
        let sgr = modes(MouseReporting::Drags, MouseEncoding::Sgr);
        assert_eq!(
            encode(mouse(MouseKind::Press, Button::Left), 4, 2, sgr).unwrap(),
            b"\x1b[<0;5;3M"
        );
        assert_eq!(
            encode(mouse(MouseKind::Release, Button::Left), 4, 2, sgr).unwrap(),
            b"\x1b[<0;5;3m"
        );
        assert_eq!(
            encode(mouse(MouseKind::Drag, Button::Left), 0, 0, sgr).unwrap(),
            b"\x1b[<32;1;1M"
        );
        let x10 = modes(MouseReporting::Clicks, MouseEncoding::X10);
        assert_eq!(
            encode(mouse(MouseKind::Press, Button::WheelUp), 1, 1, x10).unwrap(),
            b"\x1b[M`\"\""
        );
        assert_eq!(
            encode(mouse(MouseKind::Release, Button::Left), 0, 0, x10).unwrap(),
            b"\x1b[M#!!"
        );
    }

    #[test]
    fn only_what_the_program_asked_for_is_reported() {
        let drag = mouse(MouseKind::Drag, Button::Left);
        let hover = mouse(MouseKind::Drag, Button::None);
        let press = mouse(MouseKind::Press, Button::Left);
        assert!(!reported(MouseReporting::Off, press));
        assert!(reported(MouseReporting::Clicks, press));
        assert!(!reported(MouseReporting::Clicks, drag));
        assert!(reported(MouseReporting::Drags, drag));
        assert!(!reported(MouseReporting::Drags, hover));
        assert!(reported(MouseReporting::Motion, hover));
    }
}
