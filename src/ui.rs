//! The terminal UI: every workspace, tab and pane at a glance, and one key
//! for each thing to do with them.
//!
//! It follows the server: a `subscribe` connection says when anything
//! changed, and only then is the listing asked for again. Every action is an
//! ordinary request; its error is shown on the status line, never lost.

use std::io::{BufRead, BufReader, Write};
use std::process::ExitCode;
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use anyhow::{Context, Result};
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind};
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, List, ListItem, ListState, Paragraph};
use ratatui::{DefaultTerminal, Frame};
use serde::Serialize;
use signaltty_protocol::{LsPane, LsReply, NextReply, PROTOCOL, Request, method, params};

use crate::attach;
use crate::client::{Client, ClientError, Endpoint};

/// One line of the listing, and what it stands for.
#[derive(Debug, Clone)]
enum Row {
    Workspace {
        id: String,
        auto_resume: bool,
    },
    Tab {
        workspace: String,
        id: String,
    },
    Pane {
        workspace: String,
        pane: Box<LsPane>,
    },
}

/// What the keyboard is doing.
enum Mode {
    Browse,
    Help,
    /// `x` asks before closing.
    Confirm(Row),
    /// `w` asks for a name.
    Name(String),
}

struct App {
    endpoint: Endpoint,
    detach_key: u8,
    rows: Vec<(Row, Line<'static>)>,
    list: ListState,
    status: Option<(String, bool)>,
    mode: Mode,
}

pub fn run(endpoint: &Endpoint, detach_key: u8) -> Result<ExitCode> {
    let changes = follow(endpoint)?;
    let mut app = App {
        endpoint: endpoint.clone(),
        detach_key,
        rows: Vec::new(),
        list: ListState::default(),
        status: None,
        mode: Mode::Browse,
    };
    app.refresh();
    let mut terminal = ratatui::try_init().context("the UI needs a terminal")?;
    let result = app.event_loop(&mut terminal, &changes);
    ratatui::restore();
    result.map(|()| ExitCode::SUCCESS)
}

/// A thread that turns the server's `changed` events into messages.
fn follow(endpoint: &Endpoint) -> Result<Receiver<()>> {
    let mut stream = crate::client::connect_stream(endpoint)?;
    let request = Request {
        v: PROTOCOL.to_string(),
        id: 1,
        method: method::SUBSCRIBE.to_string(),
        params: serde_json::json!({}),
    };
    let mut line = serde_json::to_vec(&request)?;
    line.push(b'\n');
    stream.write_all(&line)?;
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("ui-events".into())
        .spawn(move || {
            // The first line is the reply; every later one an event.
            for line in BufReader::new(stream).lines() {
                if line.is_err() || tx.send(()).is_err() {
                    return;
                }
            }
        })?;
    Ok(rx)
}

impl App {
    fn event_loop(&mut self, terminal: &mut DefaultTerminal, changes: &Receiver<()>) -> Result<()> {
        loop {
            terminal.draw(|frame| self.draw(frame))?;
            if event::poll(Duration::from_millis(100))? {
                if let Event::Key(key) = event::read()?
                    && key.kind == KeyEventKind::Press
                    && !self.key(key, terminal)?
                {
                    return Ok(());
                }
                continue;
            }
            let mut changed = false;
            while changes.try_recv().is_ok() {
                changed = true;
            }
            if changed {
                self.refresh();
            }
        }
    }

    fn call(&self, method: &str, params: impl Serialize) -> Result<serde_json::Value, ClientError> {
        Client::connect(&self.endpoint)?.call(method, params)
    }

    fn report(&mut self, what: &str, result: Result<serde_json::Value, ClientError>) {
        self.status = Some(match result {
            Ok(_) => (what.to_string(), false),
            Err(e) => (e.to_string(), true),
        });
        self.refresh();
    }

    fn refresh(&mut self) {
        let ls = match self.call(method::LS, params::Empty {}) {
            Ok(value) => serde_json::from_value::<LsReply>(value),
            Err(e) => {
                self.status = Some((e.to_string(), true));
                return;
            }
        };
        let Ok(ls) = ls else {
            self.status = Some(("the server sent an unreadable listing".into(), true));
            return;
        };
        let selected = self.selected().map(row_id);
        self.rows = rows(&ls);
        let index = selected
            .and_then(|id| self.rows.iter().position(|(row, _)| row_id(row) == id))
            .or_else(|| {
                self.rows
                    .iter()
                    .position(|(row, _)| matches!(row, Row::Pane { .. }))
            })
            .or((!self.rows.is_empty()).then_some(0));
        self.list.select(index);
    }

    fn selected(&self) -> Option<&Row> {
        self.list
            .selected()
            .and_then(|i| self.rows.get(i))
            .map(|(row, _)| row)
    }

    /// Handles a key; false means leave the UI.
    fn key(&mut self, key: KeyEvent, terminal: &mut DefaultTerminal) -> Result<bool> {
        match std::mem::replace(&mut self.mode, Mode::Browse) {
            Mode::Help => {}
            Mode::Confirm(row) => {
                if key.code == KeyCode::Char('y') {
                    self.close(&row);
                } else {
                    self.status = Some(("not closed".into(), false));
                }
            }
            Mode::Name(mut name) => match key.code {
                KeyCode::Enter => {
                    let result = self.call(
                        method::WORKSPACE_NEW,
                        params::WorkspaceNew::here(name.clone()),
                    );
                    self.report(&format!("workspace {name} created"), result);
                }
                KeyCode::Esc => {}
                KeyCode::Backspace => {
                    name.pop();
                    self.mode = Mode::Name(name);
                }
                KeyCode::Char(c) => {
                    name.push(c);
                    self.mode = Mode::Name(name);
                }
                _ => self.mode = Mode::Name(name),
            },
            Mode::Browse => return self.browse(key, terminal),
        }
        Ok(true)
    }

    fn browse(&mut self, key: KeyEvent, terminal: &mut DefaultTerminal) -> Result<bool> {
        let pane = match self.selected() {
            Some(Row::Pane { pane, .. }) => Some(pane.id.clone()),
            _ => None,
        };
        match key.code {
            KeyCode::Char('q') => return Ok(false),
            KeyCode::Down | KeyCode::Char('j') => self.list.select_next(),
            KeyCode::Up | KeyCode::Char('k') => self.list.select_previous(),
            KeyCode::Char('?') => self.mode = Mode::Help,
            KeyCode::Tab => self.jump_to_next(),
            KeyCode::Char('w') => self.mode = Mode::Name(String::new()),
            KeyCode::Char('x') => {
                if let Some(row) = self.selected().cloned() {
                    self.mode = Mode::Confirm(row);
                }
            }
            KeyCode::Enter => {
                if let Some(pane) = pane {
                    ratatui::restore();
                    let options = attach::Options {
                        detach_key: self.detach_key,
                        keep_attention: false,
                    };
                    let attached = attach::attach_loop(&self.endpoint, &pane, options);
                    *terminal = ratatui::try_init()?;
                    terminal.clear()?;
                    match attached {
                        Ok(_) => self.status = Some((format!("back from pane {pane}"), false)),
                        Err(e) => self.status = Some((format!("{e:#}"), true)),
                    }
                    self.refresh();
                }
            }
            KeyCode::Char(c @ ('r' | 'R')) => {
                if let Some(pane) = pane {
                    let (action, done) = if c == 'r' {
                        (method::PANE_RESUME, "resumed")
                    } else {
                        (method::PANE_RESPAWN, "respawned")
                    };
                    let result = self.call(action, params::Pane { pane: pane.clone() });
                    self.report(&format!("pane {pane} {done}"), result);
                }
            }
            KeyCode::Char('n') => {
                let (workspace, tab) = match self.selected() {
                    Some(Row::Workspace { id, .. }) => (id.clone(), None),
                    Some(Row::Tab { workspace, id }) => (workspace.clone(), Some(id.clone())),
                    Some(Row::Pane { workspace, pane }) => {
                        (workspace.clone(), Some(pane.id.clone()))
                    }
                    None => return Ok(true),
                };
                let (tab, split) = match (&self.selected(), tab) {
                    (Some(Row::Pane { .. }), split) => (None, split),
                    (_, tab) => (tab, None),
                };
                let result = self.call(
                    method::PANE_NEW,
                    params::PaneNew {
                        workspace,
                        tab,
                        split,
                        ..params::PaneNew::default()
                    },
                );
                self.report("new pane", result);
            }
            KeyCode::Char('a') => {
                if let Some(Row::Workspace { id, auto_resume }) = self.selected().cloned() {
                    let result = self.call(
                        method::WORKSPACE_SET,
                        params::WorkspaceSet {
                            workspace: id,
                            auto_resume: Some(!auto_resume),
                        },
                    );
                    let now = if auto_resume { "off" } else { "on" };
                    self.report(&format!("auto-resume {now}"), result);
                } else {
                    self.status = Some(("select a workspace to toggle auto-resume".into(), true));
                }
            }
            _ => {}
        }
        Ok(true)
    }

    /// Selects the pane that needs the user most.
    fn jump_to_next(&mut self) {
        let next = self.call(method::NEXT, params::Empty {}).map(|v| {
            serde_json::from_value::<NextReply>(v)
                .ok()
                .and_then(|n| n.pane)
        });
        match next {
            Ok(Some(pane)) => {
                let index = self.rows.iter().position(
                    |(row, _)| matches!(row, Row::Pane { pane: p, .. } if p.id == pane.id),
                );
                self.list.select(index);
                self.status = Some((format!("pane {} needs you", pane.id), false));
            }
            Ok(None) => self.status = Some(("no pane needs you right now".into(), false)),
            Err(e) => self.status = Some((e.to_string(), true)),
        }
    }

    fn close(&mut self, row: &Row) {
        let result = match row {
            Row::Workspace { id, .. } => self.call(
                method::WORKSPACE_CLOSE,
                params::Workspace {
                    workspace: id.clone(),
                },
            ),
            Row::Tab { id, .. } => self.call(method::TAB_CLOSE, params::Tab { tab: id.clone() }),
            Row::Pane { pane, .. } => self.call(
                method::PANE_CLOSE,
                params::Pane {
                    pane: pane.id.clone(),
                },
            ),
        };
        self.report("closed", result);
    }

    fn draw(&mut self, frame: &mut Frame) {
        let [main, status] =
            Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(frame.area());
        let items: Vec<ListItem> = self
            .rows
            .iter()
            .map(|(_, line)| ListItem::new(line.clone()))
            .collect();
        let title = " signaltty — Enter attach · r resume · R respawn · n new · w workspace · x close · a auto-resume · ? help · q quit ";
        let list = List::new(items)
            .block(Block::bordered().title(title))
            .highlight_style(Style::default().add_modifier(Modifier::REVERSED));
        frame.render_stateful_widget(list, main, &mut self.list);
        let line = match &self.mode {
            Mode::Help => Line::from(
                "j/k move · Tab the pane that needs you · Enter attach (detach returns here) · r resume · R respawn · n new pane · w new workspace · x close · a auto-resume · q leave (the server keeps running)",
            ),
            Mode::Confirm(row) => Line::from(format!(
                "close {}? y to confirm, any other key to keep it",
                row_id(row)
            ))
            .style(Style::default().fg(Color::Yellow)),
            Mode::Name(name) => Line::from(format!(
                "new workspace name: {name}▏ (Enter to create, Esc to cancel)"
            )),
            Mode::Browse => match &self.status {
                Some((text, true)) => {
                    Line::from(text.clone()).style(Style::default().fg(Color::Red))
                }
                Some((text, false)) => Line::from(text.clone()),
                None => Line::from(""),
            },
        };
        frame.render_widget(Paragraph::new(line), status);
    }
}

fn row_id(row: &Row) -> String {
    match row {
        Row::Workspace { id, .. } | Row::Tab { id, .. } => id.clone(),
        Row::Pane { pane, .. } => pane.id.clone(),
    }
}

fn state_style(state: &str) -> Style {
    match state {
        "LIVE" => Style::default().fg(Color::Green),
        "RESUMABLE" => Style::default().fg(Color::Cyan),
        "RESTORED" => Style::default().fg(Color::Yellow),
        _ => Style::default().fg(Color::DarkGray),
    }
}

/// `  !level` for an outstanding attention, else nothing.
pub(crate) fn attention_badge(attention: signaltty_persistence::Attention) -> String {
    match serde_json::to_value(attention) {
        Ok(serde_json::Value::String(a)) if a != "none" => format!("  !{a}"),
        _ => String::new(),
    }
}

/// The listing as lines: workspaces, their tabs, their panes.
fn rows(ls: &LsReply) -> Vec<(Row, Line<'static>)> {
    let mut rows = Vec::new();
    for ws in &ls.workspaces {
        let auto = if ws.auto_resume {
            "  [auto-resume]"
        } else {
            ""
        };
        let attention = attention_badge(ws.attention);
        rows.push((
            Row::Workspace {
                id: ws.id.clone(),
                auto_resume: ws.auto_resume,
            },
            Line::from(vec![
                Span::styled(
                    ws.name.clone(),
                    Style::default().add_modifier(Modifier::BOLD),
                ),
                Span::raw(format!("  {}{auto}{attention}", ws.cwd)),
            ]),
        ));
        for tab in &ws.tabs {
            rows.push((
                Row::Tab {
                    workspace: ws.id.clone(),
                    id: tab.id.clone(),
                },
                Line::from(format!("  {}", tab.title)),
            ));
            for pane in &tab.panes {
                let agent = pane
                    .agent
                    .as_ref()
                    .map(|a| format!("  {}", a.kind))
                    .unwrap_or_default();
                let attention = attention_badge(pane.attention);
                let exit = pane
                    .exit_code
                    .map(|c| format!("  exit {c}"))
                    .unwrap_or_default();
                let message = pane
                    .last_message
                    .as_ref()
                    .map(|m| format!("  “{m}”"))
                    .unwrap_or_default();
                rows.push((
                    Row::Pane {
                        workspace: ws.id.clone(),
                        pane: Box::new(pane.clone()),
                    },
                    Line::from(vec![
                        Span::raw("    "),
                        Span::styled(format!("{:<10}", pane.state), state_style(&pane.state)),
                        Span::raw(format!(
                            " {}  {}{agent}{attention}{exit}  {}{message}",
                            pane.id, pane.title, pane.cwd
                        )),
                    ]),
                ));
            }
        }
    }
    rows
}
