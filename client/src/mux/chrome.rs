//! The multiplexer's own drawing: the tab bar, the sidebar, pane borders
//! with their titles and badges, the offer on a pane with no process, the
//! status line, and the help and workspace picker.

use signaltty_protocol::{Attention, Direction, LsPane, LsTab, LsWorkspace, PaneState};
use signaltty_screen::{Attrs, Color};

use super::frame::{Frame, Pen, width};
use super::geometry::{Rect, Split, Towards};
use super::keys::{Action, Bindings, Key};
use super::panes::PaneStatus;
use super::render::Hit;
use super::view::{self, View, attention_name, lifecycle_name};

const BORDER: Color = Color::Indexed(8);
const FOCUS: Color = Color::Indexed(2);
const ACCENT: Color = Color::Indexed(4);
const BLACK: Color = Color::Indexed(0);

fn state_color(state: PaneState, exit_code: Option<i32>) -> Color {
    match state {
        PaneState::Live => Color::Indexed(2),
        PaneState::Resumable => Color::Indexed(6),
        PaneState::Hibernated => Color::Indexed(4),
        PaneState::Restored => Color::Indexed(3),
        PaneState::Exited if exit_code.is_some_and(|c| c != 0) => Color::Indexed(1),
        PaneState::Exited => Color::Indexed(8),
    }
}

fn attention_color(attention: Attention) -> Color {
    match attention {
        Attention::None => Color::Default,
        Attention::Unread => Color::Indexed(4),
        Attention::Warning => Color::Indexed(3),
        Attention::InputRequired | Attention::PermissionRequired => Color::Indexed(5),
        Attention::Error => Color::Indexed(1),
    }
}

/// A mark for an attention worth one: `•` unread, `!` the rest.
fn attention_mark(attention: Attention) -> Option<(&'static str, Pen)> {
    let pen = Pen::fg(attention_color(attention)).with(Attrs::BOLD);
    match attention {
        Attention::None => None,
        Attention::Unread => Some(("•", pen)),
        _ => Some(("!", pen)),
    }
}

/// `items` with the attention's mark after them, if it has one.
fn marked(mut items: Vec<(&str, Pen)>, attention: Attention) -> Vec<(&str, Pen)> {
    if let Some((mark, pen)) = attention_mark(attention) {
        items.push((" ", Pen::default()));
        items.push((mark, pen));
    }
    items
}

/// Draws `parts` left to right from `col`, never past `end`; returns the
/// column after the last.
fn parts(frame: &mut Frame, row: u16, mut col: u16, end: u16, parts: &[(&str, Pen)]) -> u16 {
    for (text, pen) in parts {
        col += frame.text(row, col, end.saturating_sub(col), text, *pen);
    }
    col
}

pub fn tab_bar(
    frame: &mut Frame,
    bar: Rect,
    ws: &LsWorkspace,
    active: Option<&LsTab>,
    hits: &mut Vec<(Rect, Hit)>,
) {
    if bar.is_empty() {
        return;
    }
    let end = bar.right();
    frame.fill(bar, ' ', Pen::default().on(Color::Indexed(0)));
    let name = format!(" {} ", ws.name);
    let mut col = parts(
        frame,
        bar.y,
        bar.x,
        end,
        &[
            (&name, Pen::fg(BLACK).on(ACCENT).with(Attrs::BOLD)),
            (" ", Pen::default()),
        ],
    );
    for (i, tab) in ws.tabs.iter().enumerate() {
        let is_active = active.is_some_and(|a| a.id == tab.id);
        let pen = if is_active {
            Pen::fg(BLACK).on(FOCUS).with(Attrs::BOLD)
        } else {
            Pen::default().on(Color::Indexed(0))
        };
        let start = col;
        let label = format!(" {i}:{} ", tab.title);
        col = parts(frame, bar.y, col, end, &[(&label, pen)]);
        if let Some((mark, mark_pen)) = attention_mark(view::worst(tab.panes.iter())) {
            col = parts(
                frame,
                bar.y,
                col - 1,
                end,
                &[(mark, mark_pen.on(pen.bg)), (" ", pen)],
            );
        }
        hits.push((
            Rect {
                x: start,
                y: bar.y,
                w: col - start,
                h: 1,
            },
            Hit::Tab {
                workspace: ws.id.clone(),
                tab: tab.id.clone(),
            },
        ));
        if col >= end {
            break;
        }
        col += frame.text(
            bar.y,
            col,
            end - col,
            " ",
            Pen::default().on(Color::Indexed(0)),
        );
    }
}

pub fn sidebar(
    frame: &mut Frame,
    side: Rect,
    view: &View,
    current: &str,
    focused: Option<&str>,
    hits: &mut Vec<(Rect, Hit)>,
) {
    let inner = Rect {
        w: side.w.saturating_sub(1),
        ..side
    };
    frame.fill(
        Rect {
            x: inner.right(),
            w: 1,
            ..side
        },
        '│',
        Pen::fg(BORDER),
    );
    let mut row = inner.y;
    let end = inner.right();
    let mut line = |frame: &mut Frame, indent: u16, items: &[(&str, Pen)], hit: Hit| {
        if row >= inner.bottom() {
            return;
        }
        parts(frame, row, inner.x + indent, end, items);
        hits.push((
            Rect {
                y: row,
                h: 1,
                ..inner
            },
            hit,
        ));
        row += 1;
    };
    for ws in &view.ls.workspaces {
        let here = ws.id == current;
        let pen = if here {
            Pen::default().with(Attrs::BOLD)
        } else {
            Pen::default()
        };
        let items = marked(
            vec![
                (if here { "▾ " } else { "▸ " }, Pen::fg(ACCENT)),
                (ws.name.as_str(), pen),
            ],
            ws.attention,
        );
        line(frame, 0, &items, Hit::Workspace(ws.id.clone()));
        for (i, tab) in ws.tabs.iter().enumerate() {
            let active = ws.active_tab.as_deref() == Some(tab.id.as_str());
            let number = format!("{i} ");
            let tab_pen = if here && active {
                Pen::default().with(Attrs::BOLD)
            } else {
                Pen::default()
            };
            let items = vec![
                (number.as_str(), Pen::fg(BORDER)),
                (tab.title.as_str(), tab_pen),
            ];
            let worst = view::worst(tab.panes.iter());
            let items = marked(items, worst);
            line(
                frame,
                2,
                &items,
                Hit::Tab {
                    workspace: ws.id.clone(),
                    tab: tab.id.clone(),
                },
            );
            for pane in &tab.panes {
                let needs = view.needs_you.as_deref() == Some(pane.id.as_str());
                let is_focused = focused == Some(pane.id.as_str());
                let pointer = if needs { "» " } else { "  " };
                let pane_pen = if is_focused {
                    Pen::fg(FOCUS).with(Attrs::BOLD)
                } else {
                    Pen::default()
                };
                // A sleeping agent is not a process, live or gone.
                let mark = match pane.state {
                    PaneState::Hibernated => "z ",
                    _ => "● ",
                };
                let items = vec![
                    (
                        pointer,
                        Pen::fg(attention_color(pane.attention)).with(Attrs::BOLD),
                    ),
                    (mark, Pen::fg(state_color(pane.state, pane.exit_code))),
                    (pane.name.as_str(), pane_pen),
                ];
                let items = marked(items, pane.attention);
                line(
                    frame,
                    2,
                    &items,
                    Hit::Pane {
                        workspace: ws.id.clone(),
                        pane: pane.id.clone(),
                    },
                );
                if let Some(worktree) = &pane.worktree {
                    let label = view::worktree_label(worktree);
                    line(
                        frame,
                        6,
                        &[(label.as_str(), Pen::fg(BORDER))],
                        Hit::Pane {
                            workspace: ws.id.clone(),
                            pane: pane.id.clone(),
                        },
                    );
                }
            }
        }
    }
}

/// What a pane's top border says.
pub struct PaneLabel<'a> {
    pub pane: Option<&'a LsPane>,
    pub status: Option<&'a PaneStatus>,
    pub focused: bool,
    pub zoomed: bool,
    /// Copy mode's position, when it is on this pane.
    pub copy: Option<String>,
}

/// `─ title ─ LIVE · claude · working ─ ! permission required ──────`
pub fn pane_header(frame: &mut Frame, header: Rect, label: &PaneLabel<'_>) {
    let line = if label.focused {
        Pen::fg(FOCUS).with(Attrs::BOLD)
    } else {
        Pen::fg(BORDER)
    };
    frame.fill(header, '─', line);
    let end = header.right();
    let Some(pane) = label.pane else {
        return;
    };
    let (state, exit_code) = match label.status {
        Some(status) => (status.state, status.exit_code),
        None => (pane.state, pane.exit_code),
    };
    let title_pen = if label.focused {
        Pen::default().with(Attrs::BOLD)
    } else {
        Pen::default()
    };
    // The name tells panes apart; the program's own title, when it says
    // more, follows it.
    let title = if pane.title.is_empty() || pane.title == pane.name {
        format!(" {} ", pane.name)
    } else {
        format!(" {} · {} ", pane.name, pane.title)
    };
    let mut col = parts(
        frame,
        header.y,
        header.x + 1,
        end,
        &[(&title, title_pen), ("─ ", line)],
    );
    col = parts(
        frame,
        header.y,
        col,
        end,
        &[(
            state.as_str(),
            Pen::fg(state_color(state, exit_code)).with(Attrs::BOLD),
        )],
    );
    let mut badges: Vec<String> = Vec::new();
    if let Some(code) = exit_code.filter(|_| state != PaneState::Live) {
        badges.push(format!("exit {code}"));
    }
    if let Some(agent) = &pane.agent {
        badges.push(agent.kind.clone());
    }
    if pane.lifecycle != signaltty_protocol::Lifecycle::Unknown {
        badges.push(lifecycle_name(pane.lifecycle));
    }
    for badge in &badges {
        col = parts(
            frame,
            header.y,
            col,
            end,
            &[(" · ", line), (badge, Pen::default())],
        );
    }
    // A gap before the line goes on.
    parts(frame, header.y, col, end, &[(" ", line)]);
    if pane.attention != Attention::None {
        let text = format!(" ! {} ", attention_name(pane.attention));
        col = parts(
            frame,
            header.y,
            col + 1,
            end,
            &[(
                &text,
                Pen::fg(BLACK)
                    .on(attention_color(pane.attention))
                    .with(Attrs::BOLD),
            )],
        );
    }
    if label.zoomed {
        col = parts(
            frame,
            header.y,
            col + 1,
            end,
            &[(" zoomed ", Pen::fg(BLACK).on(ACCENT))],
        );
    }
    if let Some(position) = &label.copy {
        let text = format!(" copy {position} ");
        parts(
            frame,
            header.y,
            col + 1,
            end,
            &[(&text, Pen::fg(BLACK).on(Color::Indexed(3)))],
        );
    }
}

/// The bottom line of a pane with no process: what `r` runs.
pub fn offer(frame: &mut Frame, area: Rect, status: &PaneStatus) {
    if area.is_empty() {
        return;
    }
    let row = area.bottom() - 1;
    let exit = status
        .exit_code
        .map(|c| format!(" (exit {c})"))
        .unwrap_or_default();
    let action = match &status.revive {
        // Focus wakes it; `r` is there for a wake that failed to start.
        _ if status.state == signaltty_protocol::PaneState::Hibernated => {
            " · asleep; focus wakes it".into()
        }
        Some(revive) => format!(" · r {}", revive.describe()),
        None => " · nothing to run".into(),
    };
    let text = format!(" {}{exit}{action} ", status.state);
    let pen = Pen::fg(BLACK)
        .on(state_color(status.state, status.exit_code))
        .with(Attrs::BOLD);
    frame.fill(
        Rect {
            y: row,
            h: 1,
            ..area
        },
        ' ',
        pen,
    );
    frame.text(row, area.x, area.w, &text, pen);
}

/// Cells of a pane's area its (smaller) screen does not reach.
pub fn spare(frame: &mut Frame, rect: Rect) {
    frame.fill(rect, '·', Pen::fg(BORDER).with(Attrs::DIM));
}

/// The border between side-by-side panes, lit along the focused one.
pub fn separator(frame: &mut Frame, split: &Split, focused: Option<Rect>) {
    if split.direction != Direction::Right {
        return;
    }
    let handle = split.handle;
    for row in handle.y..handle.bottom() {
        let lit = focused.is_some_and(|f| {
            (f.right() == handle.x || f.x == handle.x + 1) && row >= f.y && row < f.bottom()
        });
        let pen = if lit {
            Pen::fg(FOCUS).with(Attrs::BOLD)
        } else {
            Pen::fg(BORDER)
        };
        frame.fill(
            Rect {
                y: row,
                h: 1,
                ..handle
            },
            '│',
            pen,
        );
    }
}

pub fn centered(frame: &mut Frame, area: Rect, text: &str) {
    let w = width(text).min(area.w);
    let col = area.x + (area.w - w) / 2;
    let row = area.y + area.h / 2;
    frame.text(row, col, w, text, Pen::fg(BORDER));
}

pub enum Left {
    Where(String),
    Plain(String),
    Error(String),
    Prompt(String),
    Question(String),
}

pub enum Right {
    Hint(String),
    Prefix(String),
}

pub struct StatusLine {
    pub left: Left,
    pub right: Right,
}

/// Draws the status line; returns the column after its left text (where
/// a prompt's cursor goes).
pub fn status(frame: &mut Frame, bar: Rect, line: &StatusLine) -> u16 {
    if bar.is_empty() {
        return 0;
    }
    let base = Pen::default().on(Color::Indexed(0));
    frame.fill(bar, ' ', base);
    let (right, right_pen) = match &line.right {
        Right::Hint(text) => (format!(" {text} "), Pen::fg(BORDER).on(Color::Indexed(0))),
        Right::Prefix(text) => (
            format!(" {text} "),
            Pen::fg(BLACK).on(Color::Indexed(3)).with(Attrs::BOLD),
        ),
    };
    let right_w = width(&right).min(bar.w / 2);
    frame.text(bar.y, bar.right() - right_w, right_w, &right, right_pen);
    let (text, pen) = match &line.left {
        Left::Where(text) | Left::Plain(text) => (text, base),
        Left::Error(text) => (
            text,
            Pen::fg(Color::Indexed(1))
                .on(Color::Indexed(0))
                .with(Attrs::BOLD),
        ),
        Left::Prompt(text) => (text, base.with(Attrs::BOLD)),
        Left::Question(text) => (
            text,
            Pen::fg(Color::Indexed(3))
                .on(Color::Indexed(0))
                .with(Attrs::BOLD),
        ),
    };
    let room = bar.w.saturating_sub(right_w + 2);
    bar.x + 1 + frame.text(bar.y, bar.x + 1, room, text, pen)
}

/// A box in the middle of the screen with `title` on its border.
fn boxed(frame: &mut Frame, w: u16, h: u16, title: &str) -> Rect {
    let w = w.min(frame.cols);
    let h = h.min(frame.rows);
    let outer = Rect {
        x: (frame.cols - w) / 2,
        y: (frame.rows - h) / 2,
        w,
        h,
    };
    let pen = Pen::fg(ACCENT);
    frame.fill(outer, ' ', Pen::default());
    frame.fill(Rect { h: 1, ..outer }, '─', pen);
    frame.fill(
        Rect {
            y: outer.bottom().saturating_sub(1),
            h: 1,
            ..outer
        },
        '─',
        pen,
    );
    frame.fill(Rect { w: 1, ..outer }, '│', pen);
    frame.fill(
        Rect {
            x: outer.right().saturating_sub(1),
            w: 1,
            ..outer
        },
        '│',
        pen,
    );
    for (row, col, corner) in [
        (outer.y, outer.x, "┌"),
        (outer.y, outer.right().saturating_sub(1), "┐"),
        (outer.bottom().saturating_sub(1), outer.x, "└"),
        (
            outer.bottom().saturating_sub(1),
            outer.right().saturating_sub(1),
            "┘",
        ),
    ] {
        frame.text(row, col, 1, corner, pen);
    }
    frame.text(
        outer.y,
        outer.x + 2,
        w.saturating_sub(4),
        &format!(" {title} "),
        pen.with(Attrs::BOLD),
    );
    Rect {
        x: outer.x + 2,
        y: outer.y + 1,
        w: w.saturating_sub(4),
        h: h.saturating_sub(2),
    }
}

/// Every binding, in two columns when one does not fit.
pub fn help(frame: &mut Frame, bindings: &Bindings) {
    let mut lines: Vec<(String, String)> = Vec::new();
    for action in Action::all() {
        if matches!(action, Action::Tab(n) if n > 0)
            || matches!(action, Action::Resize(t, _) if t != Towards::Up)
        {
            continue;
        }
        let (keys, what) = match action {
            Action::Resize(_, cells) => (
                resize_keys(bindings, cells),
                format!("resize by {cells} (repeats)"),
            ),
            Action::Tab(_) => {
                let keys: Vec<String> = (0..10)
                    .filter_map(|n| {
                        bindings
                            .keys_of(Action::Tab(n))
                            .first()
                            .map(|k| k.to_string())
                    })
                    .collect();
                (keys.join(""), "tab by number".to_string())
            }
            other => (
                bindings
                    .keys_of(other)
                    .iter()
                    .map(|k| k.to_string())
                    .collect::<Vec<_>>()
                    .join(" "),
                other.describe(),
            ),
        };
        if !keys.is_empty() {
            lines.push((keys, what));
        }
    }
    let key_w = lines
        .iter()
        .map(|(k, _)| width(k))
        .max()
        .unwrap_or(0)
        .min(14);
    let line_w = key_w + 2 + lines.iter().map(|(_, w)| width(w)).max().unwrap_or(0);
    let rows_free = frame.rows.saturating_sub(5);
    let columns = if (lines.len() as u16) <= rows_free || rows_free == 0 {
        1
    } else {
        2
    };
    let per_column = (lines.len() as u16).div_ceil(columns);
    let title = format!("prefix {}, then — any key closes", bindings.prefix);
    let inner = boxed(frame, (line_w + 3) * columns + 4, per_column + 2, &title);
    for (i, (keys, what)) in lines.iter().enumerate() {
        let (column, row) = (i as u16 / per_column, i as u16 % per_column);
        if row >= inner.h {
            continue;
        }
        let col = inner.x + column * (line_w + 3);
        let room = inner.right().saturating_sub(col);
        frame.text(
            inner.y + row,
            col,
            room.min(key_w),
            keys,
            Pen::fg(FOCUS).with(Attrs::BOLD),
        );
        let after = col + key_w + 2;
        frame.text(
            inner.y + row,
            after,
            inner.right().saturating_sub(after),
            what,
            Pen::default(),
        );
    }
}

/// The keys of the four resizes by `cells`: `M-arrows` as bound by
/// default, else each key.
fn resize_keys(bindings: &Bindings, cells: u8) -> String {
    let towards = [Towards::Up, Towards::Down, Towards::Left, Towards::Right];
    let keys: Vec<Vec<Key>> = towards
        .iter()
        .map(|t| bindings.keys_of(Action::Resize(*t, cells)))
        .collect();
    for (arrow, name) in [
        (Key::AltArrow as fn(Towards) -> Key, "M-arrows"),
        (Key::CtrlArrow, "C-arrows"),
    ] {
        if keys.iter().zip(towards).all(|(k, t)| k == &[arrow(t)]) {
            return name.into();
        }
    }
    keys.iter()
        .flatten()
        .map(|k| k.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn picker(frame: &mut Frame, view: &View, current: &str, selected: usize) {
    let mut entries: Vec<(String, Attention)> = view
        .ls
        .workspaces
        .iter()
        .map(|ws| {
            let here = if ws.id == current { " (here)" } else { "" };
            let tabs = ws.tabs.len();
            (
                format!(
                    "{}{here}  {tabs} tab{}",
                    ws.name,
                    if tabs == 1 { "" } else { "s" }
                ),
                ws.attention,
            )
        })
        .collect();
    entries.push(("+ new workspace (n)".into(), Attention::None));
    let w = entries.iter().map(|(e, _)| width(e)).max().unwrap_or(10) + 10;
    let inner = boxed(
        frame,
        w.max(36),
        entries.len() as u16 + 2,
        "workspaces — Enter picks, n new, Esc",
    );
    let first = selected.saturating_sub(usize::from(inner.h.saturating_sub(1)));
    for (row, (i, (text, attention))) in entries.iter().enumerate().skip(first).enumerate() {
        if row as u16 >= inner.h {
            break;
        }
        let pen = if i == selected {
            Pen::fg(BLACK).on(FOCUS).with(Attrs::BOLD)
        } else {
            Pen::default()
        };
        let y = inner.y + row as u16;
        frame.fill(Rect { y, h: 1, ..inner }, ' ', pen);
        let used = frame.text(y, inner.x, inner.w, text, pen);
        if let Some((mark, mark_pen)) = attention_mark(*attention) {
            frame.text(y, inner.x + used + 1, 1, mark, mark_pen.on(pen.bg));
        }
    }
}
