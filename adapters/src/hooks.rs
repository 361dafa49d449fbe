//! What an agent's hook event means for its pane.
//!
//! Each agent CLI can run a command on events of its own (Claude Code's
//! hooks, Codex's `notify`, Gemini's and Copilot's hooks, Cursor's
//! hooks.json, opencode's plugin events); that command is
//! `signaltty ctl hook KIND EVENT`. The tables here, one per kind and kept
//! with the kind's other facts in `kinds.rs`, say what each event means: what
//! the agent is doing now, and whether the user has to look.

use crate::error::{AdapterError, shown};
use crate::kind::AgentKind;

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
pub(crate) type HookRule = (&'static str, HookEffect);

const fn effect(activity: Option<AgentActivity>, needs: Option<AgentNeeds>) -> HookEffect {
    HookEffect { activity, needs }
}

use AgentActivity::{Blocked, Done, Idle, Working};
use AgentNeeds::{Error, Input, Nothing, Permission, Unread};

/// Claude Code's hook events (`hook_event_name`).
pub(crate) const CLAUDE: &[HookRule] = &[
    ("SessionStart", effect(Some(Idle), None)),
    ("UserPromptSubmit", effect(Some(Working), Some(Nothing))),
    ("PreToolUse", effect(Some(Working), None)),
    ("PostToolUse", effect(Some(Working), None)),
    ("Notification", effect(Some(Blocked), Some(Input))),
    ("PermissionRequest", effect(Some(Blocked), Some(Permission))),
    ("Stop", effect(Some(Done), Some(Unread))),
    ("SubagentStop", effect(Some(Working), None)),
    ("SessionEnd", effect(Some(Idle), None)),
];

/// Codex: its `notify` program gets `{"type": "agent-turn-complete", …}`;
/// `ctl hook codex notify` reads the event from that `type`.
pub(crate) const CODEX: &[HookRule] = &[
    ("agent-turn-complete", effect(Some(Done), Some(Unread))),
    ("SessionStart", effect(Some(Idle), None)),
    ("UserPromptSubmit", effect(Some(Working), Some(Nothing))),
    ("Stop", effect(Some(Done), Some(Unread))),
];

/// Gemini CLI's hook events.
pub(crate) const GEMINI: &[HookRule] = &[
    ("SessionStart", effect(Some(Idle), None)),
    ("BeforeAgent", effect(Some(Working), Some(Nothing))),
    ("BeforeTool", effect(Some(Working), None)),
    ("AfterTool", effect(Some(Working), None)),
    ("Notification", effect(Some(Blocked), Some(Input))),
    ("AfterAgent", effect(Some(Done), Some(Unread))),
    ("SessionEnd", effect(Some(Idle), None)),
];

/// GitHub Copilot CLI's hook events.
pub(crate) const COPILOT: &[HookRule] = &[
    ("sessionStart", effect(Some(Idle), None)),
    ("userPromptSubmitted", effect(Some(Working), Some(Nothing))),
    ("preToolUse", effect(Some(Working), None)),
    ("postToolUse", effect(Some(Working), None)),
    ("errorOccurred", effect(Some(Blocked), Some(Error))),
    ("sessionEnd", effect(Some(Done), Some(Unread))),
];

/// Cursor's hooks.json events.
pub(crate) const CURSOR: &[HookRule] = &[
    ("beforeSubmitPrompt", effect(Some(Working), Some(Nothing))),
    ("beforeShellExecution", effect(Some(Working), None)),
    ("afterFileEdit", effect(Some(Working), None)),
    ("stop", effect(Some(Done), Some(Unread))),
];

/// opencode's plugin events.
pub(crate) const OPENCODE: &[HookRule] = &[
    ("session.created", effect(Some(Idle), None)),
    ("session.updated", effect(Some(Working), None)),
    (
        "permission.updated",
        effect(Some(Blocked), Some(Permission)),
    ),
    ("session.error", effect(Some(Blocked), Some(Error))),
    ("session.idle", effect(Some(Done), Some(Unread))),
];

/// What `event` of `kind` means. A Claude Code `Notification` whose message
/// asks for a permission is a permission request.
pub fn hook_effect(
    kind: AgentKind,
    event: &str,
    message: Option<&str>,
) -> Result<HookEffect, AdapterError> {
    let rules = kind.spec().hooks;
    let Some((_, effect)) = rules.iter().find(|(name, _)| *name == event) else {
        let known: Vec<&str> = rules.iter().map(|(name, _)| *name).collect();
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
    let asks_permission = message.is_some_and(|m| m.to_ascii_lowercase().contains("permission"));
    if kind == AgentKind::Claude && event == "Notification" && asks_permission {
        return Ok(HookEffect {
            needs: Some(Permission),
            ..*effect
        });
    }
    Ok(*effect)
}

/// Whether any of `kind`'s hook events reports `activity`: where hooks
/// are wired, what they can report is theirs to say, not the screen's.
pub fn hooks_report(kind: AgentKind, activity: AgentActivity) -> bool {
    kind.spec()
        .hooks
        .iter()
        .any(|(_, effect)| effect.activity == Some(activity))
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }

    #[test]
    fn a_permission_notification_is_a_permission_request() {
        let plain = hook_effect(
            AgentKind::Claude,
            "Notification",
            Some("Claude is waiting for your input"),
        )
        .unwrap();
        assert_eq!(plain.needs, Some(Input));
        let asks = hook_effect(
            AgentKind::Claude,
            "Notification",
            Some("Claude needs your permission to use Bash"),
        )
        .unwrap();
        assert_eq!(asks.needs, Some(Permission));
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
