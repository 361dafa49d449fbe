//! What each binding does. Changes to the shared picture (splits, tabs,
//! focus, names) are requests, so the server saves them and every client
//! follows; zoom and the sidebar belong to this client alone.

use signaltty_protocol::{Direction, Method, ReviveAction, method, params, params::TargetKind};

use super::copy::{CopyMode, HISTORY_LINES};
use super::geometry::{self, Towards};
use super::keys::Action;
use super::modal::Mode;
use super::{End, Mux, view};

/// How many panes focus remembers, for picking among neighbours.
const RECENT_PANES: usize = 32;

impl Mux {
    pub(super) fn act(&mut self, action: Action) {
        match action {
            Action::SendPrefix => {
                let target = self.focused_key_target();
                let raw = self
                    .keyboard
                    .for_pane(&self.prefix_raw, &target)
                    .into_owned();
                self.send_focused(&raw);
            }
            Action::SplitRight => self.split(Direction::Right),
            Action::SplitDown => self.split(Direction::Down),
            Action::NewWorktree => self.ask_new_worktree(),
            Action::FocusLeft => self.move_focus(Towards::Left),
            Action::FocusDown => self.move_focus(Towards::Down),
            Action::FocusUp => self.move_focus(Towards::Up),
            Action::FocusRight => self.move_focus(Towards::Right),
            Action::Zoom => self.toggle_zoom(),
            Action::Swap(next) => self.swap(next),
            Action::Resize(towards, cells) => self.resize(towards, u16::from(cells)),
            Action::BreakPane => self.break_pane(),
            Action::MoveToTab => self.ask_move_to_tab(),
            Action::Close => self.ask_close(),
            Action::NewTab => self.new_tab(),
            Action::NextTab => self.step_tab(1),
            Action::PrevTab => self.step_tab(-1),
            Action::Tab(n) => self.tab_number(usize::from(n)),
            Action::Workspaces => {
                let selected = self
                    .view
                    .ls
                    .workspaces
                    .iter()
                    .position(|w| w.id == self.workspace)
                    .unwrap_or(0);
                self.mode = Mode::Picker { selected };
            }
            Action::RenamePane => {
                if let Some(id) = self.focused_pane() {
                    let title = self
                        .view
                        .find_pane(&id)
                        .map(|(_, _, p)| p.name.clone())
                        .unwrap_or_default();
                    self.ask_rename(TargetKind::Pane, id, &title);
                }
            }
            Action::RenameTab => {
                if let Some((id, title)) =
                    self.active_tab().map(|t| (t.id.clone(), t.title.clone()))
                {
                    self.ask_rename(TargetKind::Tab, id, &title);
                }
            }
            Action::RenameWorkspace => {
                if let Some(name) = self.view.workspace(&self.workspace).map(|w| w.name.clone()) {
                    let id = self.workspace.clone();
                    self.ask_rename(TargetKind::Workspace, id, &name);
                }
            }
            Action::CopyMode => {
                if let Some(copy) = self.enter_copy() {
                    self.mode = Mode::Copy(Box::new(copy));
                }
            }
            Action::Revive => self.revive(),
            Action::NextAttention => self.next_attention(),
            Action::LastAlert => self.go_to_last_alert(),
            Action::Sidebar => {
                self.sidebar = Some(!self.sidebar_shown());
                self.reconcile();
            }
            Action::Detach => self.end = Some(End::Detached),
            Action::Help => self.mode = Mode::Help,
        }
        self.render.chrome = true;
    }

    pub(super) fn active_tab(&self) -> Option<&signaltty_protocol::LsTab> {
        let ws = self.view.workspace(&self.workspace)?;
        self.view.active_tab(ws)
    }

    /// The working directory new panes start in: the focused pane's.
    fn here(&self) -> Option<String> {
        let id = self.focused_pane()?;
        self.view.find_pane(&id).map(|(_, _, p)| p.cwd.clone())
    }

    fn split(&mut self, direction: Direction) {
        let Some(split) = self.split_request(direction) else {
            return self.new_tab();
        };
        let result = self.server.request::<method::PaneNew>(split);
        self.zoomed = None;
        self.after(result);
    }

    /// A pane beside the focused one, half its size, in its directory;
    /// `None` when the tab has no pane to split.
    fn split_request(&self, direction: Direction) -> Option<params::PaneNew> {
        let (Some(focused), Some(tab)) =
            (self.focused_pane(), self.active_tab().map(|t| t.id.clone()))
        else {
            return None;
        };
        let layout = self.screen_layout();
        let (rows, cols) = layout
            .geometry
            .pane(&focused)
            .map(|p| geometry::half(p.rect, direction))
            .unwrap_or((24, 80));
        Some(params::PaneNew {
            workspace: self.workspace.clone().into(),
            tab: Some(tab.into()),
            split: Some(focused.into()),
            direction: Some(direction),
            cwd: self.here().map(Into::into),
            rows: Some(rows),
            cols: Some(cols),
            ..params::PaneNew::default()
        })
    }

    /// A split to the right with a shell in a new worktree `name` of the
    /// focused pane's repository. The server runs git, which may take a
    /// while: the answer comes back as an event.
    pub(super) fn new_worktree(&mut self, name: &str) {
        let Some(mut split) = self.split_request(Direction::Right) else {
            return self.complain("no pane to start the worktree from");
        };
        split.worktree = Some(name.to_string().into());
        self.zoomed = None;
        self.say(format!("making worktree {name}…"));
        let name = name.to_string();
        self.in_background::<method::PaneNew>(split, move |reply| {
            format!("pane {} runs in worktree {name}", reply.id)
        });
    }

    /// Sends a request on a connection of its own, off the main thread;
    /// `done` words its answer, which comes back as an event.
    fn in_background<M: Method>(
        &mut self,
        params: M::Params,
        done: impl FnOnce(M::Reply) -> String + Send + 'static,
    ) where
        M::Params: Send + 'static,
    {
        let endpoint = self.server.endpoint().clone();
        let events = self.events.clone();
        let spawned = std::thread::Builder::new()
            .name("mux-request".into())
            .spawn(move || {
                let mut server = super::server::Server::new(&endpoint);
                let result = server.request::<M>(params).map(done);
                let _ = events.send(super::Event::Done(result));
            });
        if let Err(e) = spawned {
            self.complain(e.to_string());
        }
    }

    fn new_tab(&mut self) {
        let workspace = self.workspace.clone();
        let result = self.server.shell_tab(&workspace, self.here());
        self.zoomed = None;
        self.after(result);
    }

    /// Shows what a request changed, or why it failed.
    fn after<R>(&mut self, result: Result<R, String>) {
        match result {
            Ok(_) => self.refresh(),
            Err(e) => self.complain(e),
        }
    }

    fn move_focus(&mut self, towards: Towards) {
        let Some(focused) = self.focused_pane() else {
            return;
        };
        let layout = self.screen_layout_unzoomed();
        // Of several, the one used most recently, as tmux does; else the
        // first on screen.
        let neighbours = layout.geometry.neighbours(&focused, towards);
        let next = neighbours
            .iter()
            .filter_map(|id| Some((self.recent.iter().position(|r| r == id)?, *id)))
            .max()
            .map(|(_, id)| id)
            .or(neighbours.first().copied())
            .map(str::to_string);
        if let Some(next) = next {
            self.focus_pane(&next);
        }
    }

    /// Focuses a pane of the shown workspace: it becomes its tab's active
    /// pane, the tab becomes active, the pane is seen.
    pub(super) fn focus_pane(&mut self, id: &str) {
        let before = self.focused_pane();
        if before.as_deref() == Some(id) {
            return;
        }
        let Some((ws, tab)) = self
            .view
            .find_pane(id)
            .map(|(w, t, _)| (w.id.clone(), t.id.clone()))
        else {
            return;
        };
        if self.zoomed.as_deref().is_some_and(|z| z != id) {
            self.zoomed = None;
        }
        if let Some(ws) = self.view.workspace_mut(&ws) {
            ws.active_tab = Some(tab.clone());
            if let Some(tab) = ws.tabs.iter_mut().find(|t| t.id == tab) {
                tab.active_pane = Some(id.to_string());
            }
        }
        self.workspace = ws;
        self.request_focus(id.to_string(), TargetKind::Pane);
        self.arrived(before);
    }

    /// After focus moved from `before`: focus events for the programs that
    /// asked (out for the pane left, in for the pane entered), the pane
    /// now in front is seen, and the panes shown follow.
    fn arrived(&mut self, before: Option<String>) {
        let after = self.focused_pane();
        if let Some(before) = &before {
            self.recent.retain(|id| id != before);
            self.recent.push(before.clone());
            if self.recent.len() > RECENT_PANES {
                self.recent.remove(0);
            }
        }
        if self.focused_outside && before != after {
            for (id, bytes) in [(&before, b"\x1b[O"), (&after, b"\x1b[I")] {
                if let Some(id) = id
                    && self.modes_of(id).focus_events
                {
                    self.send_to(id, bytes);
                }
            }
        }
        if let Some(after) = after {
            self.mark_seen(&after);
            self.wake_if_asleep(&after);
        }
        self.reconcile();
    }

    fn toggle_zoom(&mut self) {
        self.zoomed = match (&self.zoomed, self.focused_pane()) {
            (Some(_), _) => None,
            (None, focused) => focused,
        };
        self.reconcile();
    }

    /// Trades places with the previous or next pane of the tab, in layout
    /// order and wrapping (tmux swap-pane -U / -D); focus stays with the
    /// pane.
    fn swap(&mut self, next: bool) {
        let (Some(focused), Some(tab)) = (self.focused_pane(), self.active_tab()) else {
            return;
        };
        let order = tab.layout.pane_ids();
        let Some(at) = order.iter().position(|id| *id == focused) else {
            return;
        };
        if order.len() < 2 {
            return self.say("no other pane in this tab to swap with");
        }
        let step = if next { 1 } else { order.len() - 1 };
        let with = order[(at + step) % order.len()].to_string();
        let result = self.server.request::<method::PaneSwap>(params::PaneSwap {
            pane: focused.into(),
            with: with.into(),
        });
        self.zoomed = None;
        self.after(result);
    }

    /// Moves a border of the focused pane `cells` towards `towards`, as
    /// tmux's resize-pane: the border after the pane if it has one, else
    /// the one before it. Drawn at once; the server saves the ratio.
    fn resize(&mut self, towards: Towards, cells: u16) {
        let (Some(focused), Some(tab)) =
            (self.focused_pane(), self.active_tab().map(|t| t.id.clone()))
        else {
            return;
        };
        self.zoomed = None;
        let layout = self.screen_layout_unzoomed();
        let Some(split) = layout.geometry.border_for(&focused, towards).cloned() else {
            return self.say("no border to move that way");
        };
        let (col, row) = match towards {
            Towards::Left => (split.handle.x.saturating_sub(cells), 0),
            Towards::Right => (split.handle.x.saturating_add(cells), 0),
            Towards::Up => (0, split.handle.y.saturating_sub(cells)),
            Towards::Down => (0, split.handle.y.saturating_add(cells)),
        };
        let ratio = split.ratio_at(col, row);
        self.set_local_ratio(&tab, &split.path, ratio);
        let result = self
            .server
            .request::<method::TabSplitRatio>(params::SplitRatio {
                tab: tab.into(),
                path: split.path,
                ratio,
            });
        if let Err(e) = result {
            self.complain(e);
        }
        self.reconcile();
    }

    /// The focused pane into a tab of its own (tmux break-pane), which
    /// the server makes the active tab.
    fn break_pane(&mut self) {
        let Some(pane) = self.focused_pane() else {
            return;
        };
        let result = self.server.request::<method::PaneBreak>(params::PaneBreak {
            pane: pane.into(),
            title: None,
        });
        self.zoomed = None;
        self.after(result);
    }

    /// Moves the focused pane beside the active pane of tab `number` of
    /// the workspace (tmux join-pane).
    pub(super) fn move_to_tab(&mut self, number: &str) {
        let Some(pane) = self.focused_pane() else {
            return;
        };
        let tab = number.trim().parse::<usize>().ok().and_then(|n| {
            self.view
                .workspace(&self.workspace)
                .and_then(|ws| ws.tabs.get(n))
                .map(|t| t.id.clone())
        });
        let Some(tab) = tab else {
            return self.complain(format!(
                "{number:?} is no tab here; give a tab's number, as the tab bar shows it"
            ));
        };
        let result = self.server.request::<method::PaneMove>(params::PaneMove {
            pane: pane.into(),
            tab: tab.into(),
            split: None,
            direction: None,
        });
        self.zoomed = None;
        self.after(result);
    }

    fn ask_close(&mut self) {
        let Some(id) = self.focused_pane() else {
            return;
        };
        let (title, worktree) = self
            .view
            .find_pane(&id)
            .map(|(_, _, p)| (p.name.clone(), p.worktree.clone()))
            .unwrap_or_default();
        let question = match &worktree {
            Some(w) => format!(
                "close pane {title} ({id})? y keeps worktree {}, r removes it, n no",
                w.branch
            ),
            None => format!("close pane {title} ({id})? y/n"),
        };
        self.mode = Mode::Confirm {
            question,
            pane: id,
            worktree: worktree.is_some(),
        };
    }

    /// Closes a pane, and with `remove_worktree` its worktree (the server
    /// refuses a dirty one); git may take a while, so the answer comes
    /// back as an event.
    pub(super) fn close_pane(&mut self, id: &str, remove_worktree: bool) {
        let close = params::PaneClose {
            pane: id.to_string().into(),
            remove_worktree,
            force: false,
        };
        let pane = id.to_string();
        self.in_background::<method::PaneClose>(close, move |closed| {
            let worktrees: Vec<String> = closed
                .worktrees
                .iter()
                .map(|w| {
                    let what = if w.removed { "removed" } else { "kept" };
                    format!("{what} worktree {}", w.path)
                })
                .collect();
            if worktrees.is_empty() {
                format!("closed pane {pane}")
            } else {
                format!("closed pane {pane}; {}", worktrees.join(", "))
            }
        });
    }

    pub(super) fn select_tab(&mut self, id: &str) {
        let before = self.focused_pane();
        if let Some(ws) = self.view.workspace_mut(&self.workspace) {
            if ws.active_tab.as_deref() == Some(id) {
                return;
            }
            ws.active_tab = Some(id.to_string());
        }
        self.zoomed = None;
        self.request_focus(id.to_string(), TargetKind::Tab);
        self.arrived(before);
    }

    fn step_tab(&mut self, step: isize) {
        let Some(ws) = self.view.workspace(&self.workspace) else {
            return;
        };
        let count = ws.tabs.len() as isize;
        if count == 0 {
            return;
        }
        let at = self
            .active_tab()
            .and_then(|t| ws.tabs.iter().position(|x| x.id == t.id))
            .unwrap_or(0) as isize;
        let next = ws.tabs[(at + step).rem_euclid(count) as usize].id.clone();
        self.select_tab(&next);
    }

    fn tab_number(&mut self, n: usize) {
        let tab = self
            .view
            .workspace(&self.workspace)
            .and_then(|ws| ws.tabs.get(n))
            .map(|t| t.id.clone());
        match tab {
            Some(tab) => self.select_tab(&tab),
            None => self.say(format!("there is no tab {n}")),
        }
    }

    pub(super) fn switch_workspace(&mut self, id: &str) {
        if self.workspace == id {
            return;
        }
        let before = self.focused_pane();
        self.workspace = id.to_string();
        self.zoomed = None;
        self.focus_workspace();
        self.arrived(before);
    }

    pub(super) fn new_workspace(&mut self, name: &str) {
        let mut new = params::WorkspaceNew::here(name);
        if let Some(cwd) = self.here() {
            new.cwd = Some(cwd.into());
        }
        let created = self.server.request::<method::WorkspaceNew>(new);
        let id = match created {
            Ok(created) => created.id,
            Err(e) => return self.complain(e),
        };
        let tab = self.server.shell_tab(&id, None);
        if let Err(e) = tab {
            self.complain(e);
        }
        self.refresh();
        self.switch_workspace(&id);
    }

    /// Copy mode over the focused pane's history, as the server holds it.
    pub(super) fn enter_copy(&mut self) -> Option<CopyMode> {
        let id = self.focused_pane()?;
        let layout = self.screen_layout();
        let area = layout.geometry.pane(&id)?.content();
        let (width, blank_rows) = match self.caches.get(&id) {
            Some(cache) => (cache.width(), cache.blank_rows_at_bottom()),
            None => (area.w, 0),
        };
        let result = self.server.request::<method::PaneRead>(params::PaneRead {
            pane: id.clone().into(),
            tail: Some(HISTORY_LINES),
            ansi: true,
            ..params::PaneRead::default()
        });
        let text = match result {
            Ok(read) => read.text,
            Err(e) => {
                self.complain(e);
                return None;
            }
        };
        // The screen's empty bottom rows, so the view starts as the pane
        // looks.
        let text = text + &"\n".repeat(usize::from(blank_rows));
        Some(CopyMode::new(&id, &text, width, area.h))
    }

    /// Resumes or respawns the focused pane, as its offer says; the answer
    /// comes back as an event (a resume waits to see the agent start).
    /// A pane in focus wakes if its agent sleeps (`pane.wake`).
    pub(super) fn wake_if_asleep(&mut self, id: &str) {
        let asleep = self
            .view
            .find_pane(id)
            .is_some_and(|(_, _, p)| p.state == signaltty_protocol::PaneState::Hibernated);
        if asleep && self.waking.insert(id.to_string()) {
            self.say(format!("waking pane {id}"));
            let done = format!("pane {id} is awake");
            let pane = params::Pane {
                pane: id.to_string().into(),
            };
            self.in_background::<method::PaneWake>(pane, move |_| done);
        }
    }

    fn revive(&mut self) {
        let Some(id) = self.focused_pane() else {
            return;
        };
        let Some(status) = self.links.get(&id).map(|l| l.shared.status()) else {
            return;
        };
        if status.live() {
            return self.say("the pane is running; r is for panes with no process");
        }
        let Some(revive) = status.revive else {
            return self.complain("the server offers nothing to run in this pane");
        };
        self.say(format!("running {}", revive.argv.join(" ")));
        let done = format!("pane {id}: {}", revive.describe());
        let pane = params::Pane { pane: id.into() };
        match revive.action {
            ReviveAction::Resume => self.in_background::<method::PaneResume>(pane, move |_| done),
            ReviveAction::Respawn => self.in_background::<method::PaneRespawn>(pane, move |_| done),
        }
    }

    fn next_attention(&mut self) {
        let next = self
            .server
            .request::<method::Next>(params::Empty {})
            .ok()
            .and_then(|n| n.pane);
        let Some(pane) = next else {
            return self.say("no pane needs you right now");
        };
        if self.go_to_pane(&pane.id) {
            let attention = view::attention_name(pane.attention);
            self.say(format!("{}: {attention}", pane.name));
        }
    }

    /// Brings pane `id` to the front, in whichever workspace and tab it is
    /// now, and marks it seen (the user came for it); false if it is gone.
    pub(super) fn go_to_pane(&mut self, id: &str) -> bool {
        let Some((ws, tab)) = self
            .view
            .find_pane(id)
            .map(|(w, t, _)| (w.id.clone(), t.id.clone()))
        else {
            return false;
        };
        self.switch_workspace(&ws);
        self.select_tab(&tab);
        self.focus_pane(id);
        self.mark_seen(id);
        self.wake_if_asleep(id);
        true
    }
}
