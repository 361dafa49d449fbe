//! What an agent's hook event means for its pane.
//!
//! Each agent CLI can run a command on events of its own (Claude Code's
//! hooks, Codex's `notify`, Gemini's and Copilot's hooks, Cursor's
//! hooks.json, opencode's plugin events); that command is
//! `signaltty ctl hook KIND EVENT`. Each kind's data file (`agents/
//! <kind>.toml`, `[[hook]]`) says what each event means: what the agent is
//! doing now, and whether the user has to look; and, for an agent that
//! runs one hook for all its events (`[hook_relay]`), that the event is
//! the one its payload names.

use crate::error::{AdapterError, shown};
use crate::kind::AgentKind;
use crate::kind::Spec;

/// What the agent is doing after an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentActivity {
    Working,
    Blocked,
    Done,
    Idle,
}

/// Whether the user has to look after an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentNeeds {
    /// The user is engaged with the agent: clear what was outstanding.
    Nothing,
    Unread,
    Input,
    Permission,
    Error,
}

/// One event's meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookEffect {
    pub activity: Option<AgentActivity>,
    pub needs: Option<AgentNeeds>,
}

/// An event name and what it means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HookRule {
    pub(crate) event: String,
    pub(crate) effect: HookEffect,
    /// What the event means instead when its message holds the words
    /// (lowercase), first match first: Claude Code's one `Notification`
    /// asks for a permission or says it is back at its prompt.
    pub(crate) by_message: Vec<(String, HookEffect)>,
}

/// The event a hook of `kind` reports: `event` itself, or, where `event`
/// is the kind's relay (one hook for every event: codex's `notify`), the
/// event the payload names in `type` (`payload_type`).
pub fn hook_event<'a>(
    kind: AgentKind,
    event: &'a str,
    payload_type: Option<&'a str>,
) -> Result<&'a str, AdapterError> {
    match kind.spec().hook_relay.as_deref() {
        Some(relay) if relay == event => {
            payload_type.ok_or(AdapterError::NoRelayedEvent { kind, relay })
        }
        _ => Ok(event),
    }
}

/// What `event` of `kind` means, or what its message makes it mean (Claude
/// Code's `Notification` asking for a permission).
pub fn hook_effect(
    kind: AgentKind,
    event: &str,
    message: Option<&str>,
) -> Result<HookEffect, AdapterError> {
    let rules = &kind.spec().hooks;
    let Some(rule) = rules.iter().find(|rule| rule.event == event) else {
        let known: Vec<&str> = rules.iter().map(|rule| rule.event.as_str()).collect();
        return Err(AdapterError::UnknownHookEvent {
            kind,
            event: shown(event),
            known: if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            },
        });
    };
    let message = message.map(str::to_ascii_lowercase).unwrap_or_default();
    Ok(rule
        .by_message
        .iter()
        .find(|(words, _)| message.contains(words.as_str()))
        .map_or(rule.effect, |(_, meant)| *meant))
}

/// Whether any of `kind`'s hook events reports `activity`: where hooks
/// are wired, what they can report is theirs to say, not the screen's.
pub fn hooks_report(kind: AgentKind, activity: AgentActivity) -> bool {
    kind.spec()
        .hooks
        .iter()
        .any(|rule| rule.effect.activity == Some(activity))
}

#[cfg(test)]
mod tests {
    use super::*;
    use AgentActivity::{Blocked, Done};
    use AgentNeeds::{Error, Input, Nothing, Permission, Unread};

    fn effect(activity: Option<AgentActivity>, needs: Option<AgentNeeds>) -> HookEffect {
        HookEffect { activity, needs }
    }

    #[test]
    fn events_map_per_kind() {
        let stop = hook_effect(AgentKind::Claude, "Stop", None).unwrap();
        assert_eq!(stop, effect(Some(Done), Some(Unread)));
        let prompt = hook_effect(AgentKind::Claude, "UserPromptSubmit", None).unwrap();
        assert_eq!(prompt.needs, Some(Nothing));
        let turn = hook_effect(AgentKind::Codex, "agent-turn-complete", None).unwrap();
        assert_eq!(turn.activity, Some(Done));
        let error = hook_effect(AgentKind::Copilot, "errorOccurred", None).unwrap();
        assert_eq!(error.needs, Some(Error));
        let idle = hook_effect(AgentKind::Opencode, "session.idle", None).unwrap();
        assert_eq!(idle.needs, Some(Unread));
        let asks = hook_effect(
            AgentKind::Qwen,
            "Notification",
            Some("needs your permission"),
        );
        assert_eq!(asks.unwrap().needs, Some(Permission));
        let err = hook_effect(AgentKind::Grok, "Stop", None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("none"), "{err}");
    }

    #[test]
    fn a_permission_notification_is_a_permission_request() {
        let plain =
            hook_effect(AgentKind::Claude, "Notification", Some("Claude needs you")).unwrap();
        assert_eq!(plain, effect(Some(Blocked), Some(Input)));
        // Sent a minute after a turn ended, at its prompt: done, and what
        // the user saw stays seen.
        let back = hook_effect(
            AgentKind::Claude,
            "Notification",
            Some("Claude is waiting for your input"),
        )
        .unwrap();
        assert_eq!(back, effect(Some(Done), None));
        let asks = hook_effect(
            AgentKind::Claude,
            "Notification",
            Some("Claude needs your permission to use Bash"),
        )
        .unwrap();
        assert_eq!(asks.needs, Some(Permission));
    }

    /// codex's one notify program reports every event; its data file says
    /// so (`[hook_relay]`), and the event is the one its payload names.
    #[test]
    fn a_relay_reports_the_event_its_payload_names() {
        let turn = hook_event(AgentKind::Codex, "notify", Some("agent-turn-complete"));
        assert_eq!(turn, Ok("agent-turn-complete"));
        let err = hook_event(AgentKind::Codex, "notify", None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "codex's notify payload has no \"type\"; nothing to report"
        );
        // Any other event, and any other kind's `notify`, is itself; the
        // payload's `type` is not looked at.
        let stop = hook_event(AgentKind::Codex, "Stop", Some("agent-turn-complete"));
        assert_eq!(stop, Ok("Stop"));
        let claude = hook_event(AgentKind::Claude, "notify", Some("Stop"));
        assert_eq!(claude, Ok("notify"));
    }

    #[test]
    fn an_unknown_event_names_the_known_ones() {
        let err = hook_effect(AgentKind::Claude, "Bogus\x1b[31m", None)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("claude") && err.contains("Stop") && !err.contains('\x1b'),
            "{err}"
        );
        let err = hook_effect(AgentKind::Generic, "Stop", None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("none"), "{err}");
    }
}
