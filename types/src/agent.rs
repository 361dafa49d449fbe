//! [`AgentKind`]: which agent CLI a pane runs, by name. What signaltty
//! knows of each (how to detect it, resume it…) is `signaltty-adapters`'.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The agent CLIs signaltty knows, plus `Generic` for everything else.
///
/// Serialized (serde, IPC, snapshots) as the lowercase name returned by
/// [`AgentKind::as_str`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AgentKind {
    Claude,
    Codex,
    Opencode,
    Cursor,
    Gemini,
    Copilot,
    Qwen,
    Amp,
    Kiro,
    Pi,
    Grok,
    Crush,
    Aider,
    Goose,
    Generic,
}

impl AgentKind {
    /// Every kind, in a stable order: the order of the enum, so that a
    /// kind's position is `kind as usize`.
    pub const ALL: [AgentKind; 15] = [
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
        AgentKind::Grok,
        AgentKind::Crush,
        AgentKind::Aider,
        AgentKind::Goose,
        AgentKind::Generic,
    ];

    /// The kind's name, as in config, IPC, snapshots and its data file's
    /// name: `"claude"`, `"codex"`, …, `"generic"`.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentKind::Claude => "claude",
            AgentKind::Codex => "codex",
            AgentKind::Opencode => "opencode",
            AgentKind::Cursor => "cursor",
            AgentKind::Gemini => "gemini",
            AgentKind::Copilot => "copilot",
            AgentKind::Qwen => "qwen",
            AgentKind::Amp => "amp",
            AgentKind::Kiro => "kiro",
            AgentKind::Pi => "pi",
            AgentKind::Grok => "grok",
            AgentKind::Crush => "crush",
            AgentKind::Aider => "aider",
            AgentKind::Goose => "goose",
            AgentKind::Generic => "generic",
        }
    }
}

impl fmt::Display for AgentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is no agent kind's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not an agent kind")]
pub struct UnknownAgentKind(pub String);

/// A kind by its name ([`AgentKind::as_str`]), in any ASCII case.
impl std::str::FromStr for AgentKind {
    type Err = UnknownAgentKind;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        AgentKind::ALL
            .into_iter()
            .find(|kind| name.eq_ignore_ascii_case(kind.as_str()))
            .ok_or_else(|| UnknownAgentKind(name.chars().take(64).collect()))
    }
}
