//! The modes that take the keyboard from the pane: after the prefix, copy
//! mode, a text prompt, a yes/no question, the workspace picker, the help.

use signaltty_protocol::{method, params, params::TargetKind};

use super::Mux;
use super::copy::{CopyMode, Outcome, osc52};
use super::edit::{Edit, LineEdit};
use super::keys::Key;

pub enum Mode {
    Normal,
    /// The prefix was pressed: the next key is a binding.
    Prefix,
    Copy(Box<CopyMode>),
    Prompt(Prompt),
    /// "close pane …? (y/n)"; for a pane in a worktree, `r` also
    /// removes the worktree.
    Confirm {
        question: String,
        pane: String,
        worktree: bool,
    },
    Picker {
        selected: usize,
    },
    Help,
    /// The connection to a `--host` server dropped: reconnect or leave.
    Lost {
        host: String,
    },
}

/// A text field on the status line, and what its text is for.
pub struct Prompt {
    pub label: String,
    pub edit: LineEdit,
    pub purpose: Purpose,
}

pub enum Purpose {
    Rename {
        kind: TargetKind,
        target: String,
    },
    NewWorkspace,
    NewWorktree,
    /// The number of the tab to move the focused pane to.
    MoveToTab,
}

impl Mux {
    pub(super) fn modal_key(&mut self, key: Key) {
        self.render.chrome = true;
        match std::mem::replace(&mut self.mode, super::Mode::Normal) {
            Mode::Copy(mut copy) => match copy.key(key) {
                Outcome::Stay => self.mode = Mode::Copy(copy),
                Outcome::Leave => {}
                Outcome::Copy(text) => {
                    self.write(osc52(&text).as_bytes());
                    self.say(format!("copied {} characters", text.chars().count()));
                }
                Outcome::Say(text) => {
                    self.mode = Mode::Copy(copy);
                    self.say(text);
                }
            },
            Mode::Prompt(mut prompt) => match prompt.edit.key(key) {
                Edit::Editing => self.mode = Mode::Prompt(prompt),
                Edit::Cancelled => {}
                Edit::Done(text) => self.finish_prompt(prompt.purpose, text),
            },
            Mode::Confirm { pane, worktree, .. } => match key {
                Key::Char('y' | 'Y') => self.close_pane(&pane, false),
                Key::Char('r' | 'R') if worktree => self.close_pane(&pane, true),
                _ => self.say("not closed"),
            },
            Mode::Picker { selected } => self.picker_key(selected, key),
            Mode::Lost { host } => match key {
                Key::Char('r' | 'R' | 'y' | 'Y') | Key::Enter => self.reconnect(host),
                Key::Char('d' | 'q' | 'n' | 'N') => self.end = Some(super::End::ServerGone),
                _ => self.mode = Mode::Lost { host },
            },
            Mode::Help | Mode::Normal | Mode::Prefix => {}
        }
    }

    fn finish_prompt(&mut self, purpose: Purpose, text: String) {
        match purpose {
            Purpose::Rename { kind, target } => {
                let result = self.server.request::<method::Rename>(params::Rename {
                    target: target.into(),
                    kind: Some(kind),
                    name: text.into(),
                });
                match result {
                    Ok(_) => self.refresh(),
                    Err(e) => self.complain(e),
                }
            }
            Purpose::NewWorkspace => self.new_workspace(text.trim()),
            Purpose::NewWorktree => self.new_worktree(text.trim()),
            Purpose::MoveToTab => self.move_to_tab(&text),
        }
    }

    /// The entries of the picker: every workspace, then "new".
    pub(super) fn picker_len(&self) -> usize {
        self.view.ls.workspaces.len() + 1
    }

    fn picker_key(&mut self, selected: usize, key: Key) {
        let last = self.picker_len() - 1;
        let selected = match key {
            Key::Up | Key::Char('k') | Key::BackTab => selected.saturating_sub(1),
            Key::Down | Key::Char('j') | Key::Tab => (selected + 1).min(last),
            Key::Enter if selected == last => return self.ask_new_workspace(),
            Key::Char('n') => return self.ask_new_workspace(),
            Key::Enter => {
                if let Some(ws) = self.view.ls.workspaces.get(selected) {
                    let id = ws.id.clone();
                    self.switch_workspace(&id);
                }
                return;
            }
            Key::Escape | Key::Char('q') => return,
            _ => selected,
        };
        self.mode = Mode::Picker { selected };
    }

    fn ask_new_workspace(&mut self) {
        self.mode = Mode::Prompt(Prompt {
            label: "new workspace:".into(),
            edit: LineEdit::default(),
            purpose: Purpose::NewWorkspace,
        });
    }

    pub(super) fn ask_new_worktree(&mut self) {
        self.mode = Mode::Prompt(Prompt {
            label: "new worktree (and branch):".into(),
            edit: LineEdit::default(),
            purpose: Purpose::NewWorktree,
        });
    }

    pub(super) fn ask_move_to_tab(&mut self) {
        self.mode = Mode::Prompt(Prompt {
            label: "move the pane to tab number:".into(),
            edit: LineEdit::default(),
            purpose: Purpose::MoveToTab,
        });
    }

    /// Asks for a new name, starting from the current one.
    pub(super) fn ask_rename(&mut self, kind: TargetKind, target: String, current: &str) {
        let what = match kind {
            TargetKind::Pane => "pane",
            TargetKind::Tab => "tab",
            TargetKind::Workspace => "workspace",
        };
        self.mode = Mode::Prompt(Prompt {
            label: format!("rename {what}:"),
            edit: LineEdit::with(current),
            purpose: Purpose::Rename { kind, target },
        });
        self.render.chrome = true;
    }
}
