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

use super::Pane;
use crate::now_millis;
use crate::snapshot::{SnapshotMsg, publish};

impl Pane {
    /// Raises attention to `level` unless something more severe is already
    /// outstanding; true when it changed.
    pub(super) fn raise(&mut self, level: Attention) -> bool {
        if level <= self.record.attention {
            return false;
        }
        self.record.attention = level;
        self.record.attention_at = now_millis();
        true
    }

    /// Clears attention; true when there was some.
    fn clear(&mut self) -> bool {
        if self.record.attention == Attention::None {
            return false;
        }
        self.record.attention = Attention::None;
        self.record.attention_at = now_millis();
        true
    }

    /// The user has seen the pane: its attention clears and its
    /// notifications are marked read. Lifecycle is left alone.
    pub(super) fn seen(&mut self) {
        publish(SnapshotMsg::MarkRead(self.record.id.clone()));
        // `done` means a turn ended that nobody has looked at yet.
        let looked =
            self.record.lifecycle == Lifecycle::Done && self.set_lifecycle(Lifecycle::Idle);
        if self.clear() || looked {
            self.publish();
        }
    }

    pub(super) fn set_lifecycle(&mut self, lifecycle: Lifecycle) -> bool {
        if lifecycle == self.record.lifecycle {
            return false;
        }
        self.record.lifecycle = lifecycle;
        self.record.lifecycle_at = now_millis();
        true
    }

    /// Records a notification from `source` and raises attention to match.
    pub(super) fn notify(&mut self, source: &str, severity: Severity, title: &str, body: &str) {
        let title = sanitize(title, MAX_TITLE_CHARS);
        let body = sanitize(body, MAX_BODY_CHARS);
        let message = if body.is_empty() { &title } else { &body };
        if !message.is_empty() {
            self.record.last_message = Some(message.clone());
        }
        publish(SnapshotMsg::Notify(NotificationRecord {
            id: 0,
            pane_id: Some(self.record.id.clone()),
            workspace_id: Some(self.record.workspace_id.clone()),
            title,
            body,
            severity,
            source: source.to_string(),
            created_at: now_millis(),
            read_at: None,
        }));
        self.raise(attention_of(severity));
        self.publish();
    }

    /// What an agent's hook said, through its adapter's table.
    pub(super) fn apply_hook(
        &mut self,
        source: &str,
        event: &str,
        effect: HookEffect,
        message: Option<&str>,
    ) {
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
                // Something to act on: say so in the notifications too.
                self.notify(source, severity, event, message.unwrap_or_default());
                return;
            }
            // A turn that ended is news only to someone who is not looking.
            Some(AgentNeeds::Unread) if self.subscribers.is_empty() => {
                changed |= self.raise(Attention::Unread)
            }
            Some(AgentNeeds::Unread) => {}
            None => {}
        }
        if let Some(message) = message
            .map(|m| sanitize(m, MAX_BODY_CHARS))
            .filter(|m| !m.is_empty())
        {
            self.record.last_message = Some(message);
            changed = true;
        }
        if changed {
            self.publish();
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
