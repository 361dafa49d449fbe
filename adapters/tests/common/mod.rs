//! Helpers shared by the integration tests.
#![allow(dead_code)]

use signaltty_adapters::{AgentKind, SessionId, validate_session_id};

/// A canonical lowercase UUID (the one error messages quote).
pub const UUID: &str = "123e4567-e89b-12d3-a456-426614174000";
/// Another UUID, as the server would generate for a new pane.
pub const FRESH: &str = "0cb916db-26aa-40f2-86b5-1ba81b225fd2";
/// A third UUID, for conflicting flags.
pub const OTHER: &str = "9f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f";
/// An id shaped like the ones opencode generates.
pub const OPENCODE_ID: &str = "ses_fe1c3a9b2d07Qm4xT8vLr2KpZa";

/// An id shaped like an amp thread id.
pub const AMP_ID: &str = "T-7f395a45-7fae-4983-8de0-d02e61d30183";
/// An id shaped like a goose session id.
pub const GOOSE_ID: &str = "20251108_1";

/// The kinds that have an official resume command.
pub const AGENTS: [AgentKind; 12] = [
    AgentKind::Claude,
    AgentKind::Codex,
    AgentKind::Opencode,
    AgentKind::Cursor,
    AgentKind::Gemini,
    AgentKind::Copilot,
    AgentKind::Qwen,
    AgentKind::Amp,
    AgentKind::Kiro,
    AgentKind::Pi,
    AgentKind::Crush,
    AgentKind::Goose,
];

/// The agents that have none: detected and shown, respawned only.
pub const WITHOUT_RESUME: [AgentKind; 2] = [AgentKind::Grok, AgentKind::Aider];

/// The kinds whose CLI takes a preset session id at launch.
pub const PRESETTABLE: [AgentKind; 4] = [
    AgentKind::Claude,
    AgentKind::Gemini,
    AgentKind::Copilot,
    AgentKind::Qwen,
];

/// `words` as an owned argv.
pub fn v(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

/// A valid id of `kind`.
pub fn good_id(kind: AgentKind) -> &'static str {
    match kind {
        AgentKind::Opencode => OPENCODE_ID,
        AgentKind::Amp => AMP_ID,
        AgentKind::Goose => GOOSE_ID,
        _ => UUID,
    }
}

/// `id` validated for `kind`, panicking if it is not valid.
pub fn sid(kind: AgentKind, id: &str) -> SessionId {
    validate_session_id(kind, id).unwrap_or_else(|e| panic!("{kind} {id:?}: {e}"))
}
