//! A pane's two axes — what its program is doing (lifecycle) and whether
//! the user must look (attention) — and the notifications it raises.
//!
//! Attention only rises by itself; it falls when the user has seen the pane
//! (`ctl seen`, attaching) or the agent says the user is engaged with it.
//! Every change carries the time it happened and is published at once. Text
//! from any source is sanitized before it is stored or shown.

use signaltty_adapters::{AgentActivity, AgentNeeds, HookEffect};
use signaltty_persistence::{Attention, Lifecycle, NotificationRecord, Severity};
use signaltty_screen::{MAX_BODY_CHARS, MAX_TITLE_CHARS, sanitize};
use signaltty_types::PaneRecord;

use crate::now_millis;

/// The two axes, kept where they are saved: in the pane's record. Each
/// change says whether it changed anything; publishing is the pane's.
pub(super) trait Axes {
    /// Raises attention to `level` unless something more severe is already
    /// outstanding; true when it changed.
    fn raise(&mut self, level: Attention) -> bool;
    /// Clears attention; true when there was some.
    fn clear(&mut self) -> bool;
    fn set_lifecycle(&mut self, lifecycle: Lifecycle) -> bool;
    /// The user has seen the pane: its attention clears, and a turn that
    /// ended unseen is idle now. True when that changed anything.
    fn seen(&mut self) -> bool;
    /// A notification from `source`, with attention raised to match.
    fn notification(
        &mut self,
        source: &str,
        severity: Severity,
        title: &str,
        body: &str,
    ) -> NotificationRecord;
    /// What an agent's hook said, through its adapter's table; `watched`
    /// while the pane has clients.
    fn hook(
        &mut self,
        source: &str,
        event: &str,
        effect: HookEffect,
        message: Option<&str>,
        watched: bool,
    ) -> Heard;
}

/// What a hook changed.
pub(super) enum Heard {
    Nothing,
    Changed,
    /// Something to act on, said in the notifications too.
    Notify(NotificationRecord),
}

impl Axes for PaneRecord {
    fn raise(&mut self, level: Attention) -> bool {
        if level <= self.attention {
            return false;
        }
        self.attention = level;
        self.attention_at = now_millis();
        true
    }

    fn clear(&mut self) -> bool {
        if self.attention == Attention::None {
            return false;
        }
        self.attention = Attention::None;
        self.attention_at = now_millis();
        true
    }

    fn set_lifecycle(&mut self, lifecycle: Lifecycle) -> bool {
        if lifecycle == self.lifecycle {
            return false;
        }
        self.lifecycle = lifecycle;
        self.lifecycle_at = now_millis();
        true
    }

    fn seen(&mut self) -> bool {
        // `done` means a turn ended that nobody has looked at yet.
        let looked = self.lifecycle == Lifecycle::Done && self.set_lifecycle(Lifecycle::Idle);
        self.clear() || looked
    }

    fn notification(
        &mut self,
        source: &str,
        severity: Severity,
        title: &str,
        body: &str,
    ) -> NotificationRecord {
        let title = sanitize(title, MAX_TITLE_CHARS);
        let body = sanitize(body, MAX_BODY_CHARS);
        let message = if body.is_empty() { &title } else { &body };
        if !message.is_empty() {
            self.last_message = Some(message.clone());
        }
        let notification = NotificationRecord {
            id: 0,
            pane_id: Some(self.id.to_string()),
            workspace_id: Some(self.workspace_id.to_string()),
            title,
            body,
            severity,
            source: source.to_string(),
            created_at: now_millis(),
            read_at: None,
        };
        self.raise(attention_of(severity));
        notification
    }

    fn hook(
        &mut self,
        source: &str,
        event: &str,
        effect: HookEffect,
        message: Option<&str>,
        watched: bool,
    ) -> Heard {
        let mut changed = false;
        if let Some(activity) = effect.activity {
            changed |= self.set_lifecycle(lifecycle_of(activity));
        }
        match effect.needs {
            Some(AgentNeeds::Nothing) => changed |= self.clear(),
            Some(needs @ (AgentNeeds::Input | AgentNeeds::Permission | AgentNeeds::Error)) => {
                let severity = if needs == AgentNeeds::Error {
                    Severity::Error
                } else {
                    Severity::Warning
                };
                self.raise(attention_of_needs(needs));
                let body = message.unwrap_or_default();
                return Heard::Notify(self.notification(source, severity, event, body));
            }
            // A turn that ended is news only to someone who is not looking.
            Some(AgentNeeds::Unread) if !watched => changed |= self.raise(Attention::Unread),
            Some(AgentNeeds::Unread) => {}
            None => {}
        }
        if let Some(message) = message
            .map(|m| sanitize(m, MAX_BODY_CHARS))
            .filter(|m| !m.is_empty())
        {
            self.last_message = Some(message);
            changed = true;
        }
        if changed {
            Heard::Changed
        } else {
            Heard::Nothing
        }
    }
}

fn attention_of(severity: Severity) -> Attention {
    match severity {
        Severity::Info => Attention::Unread,
        Severity::Warning => Attention::Warning,
        Severity::Error => Attention::Error,
    }
}

fn attention_of_needs(needs: AgentNeeds) -> Attention {
    match needs {
        AgentNeeds::Nothing => Attention::None,
        AgentNeeds::Unread => Attention::Unread,
        AgentNeeds::Input => Attention::InputRequired,
        AgentNeeds::Permission => Attention::PermissionRequired,
        AgentNeeds::Error => Attention::Error,
    }
}

fn lifecycle_of(activity: AgentActivity) -> Lifecycle {
    match activity {
        AgentActivity::Working => Lifecycle::Working,
        AgentActivity::Blocked => Lifecycle::Blocked,
        AgentActivity::Done => Lifecycle::Done,
        AgentActivity::Idle => Lifecycle::Idle,
    }
}
