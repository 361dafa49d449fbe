//! [`AgentKind`]: which agent CLI a pane runs.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{AdapterError, shown};
use crate::kinds::AdapterSpec;

/// The agent CLIs signaltty knows, plus `Generic` for everything else.
///
/// Serialized (serde, IPC, snapshots) as the lowercase name returned by
/// [`AgentKind::as_str`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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

    /// This kind's facts, read once from its data file.
    pub(crate) fn spec(self) -> &'static AdapterSpec {
        crate::data::spec(self)
    }

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

    /// Every kind's name, comma-separated, for messages.
    pub(crate) fn names() -> String {
        let names: Vec<&str> = AgentKind::ALL.iter().map(|k| k.as_str()).collect();
        names.join(", ")
    }

    /// Parses a kind name, as written by a user or another tool.
    ///
    /// Accepts the names of [`AgentKind::as_str`] in any ASCII case, and a
    /// kind's program name where it differs (`cursor-agent`, `kiro-cli`).
    /// Anything else
    /// is [`AdapterError::UnknownKind`].
    pub fn parse(name: &str) -> Result<AgentKind, AdapterError> {
        AgentKind::ALL
            .into_iter()
            .find(|kind| {
                name.eq_ignore_ascii_case(kind.as_str())
                    || kind
                        .program()
                        .is_some_and(|program| name.eq_ignore_ascii_case(program))
            })
            .ok_or_else(|| AdapterError::UnknownKind { name: shown(name) })
    }

    /// The executable's basename (`claude`, `cursor-agent`, `kiro-cli`…);
    /// `None` for generic panes.
    pub fn program(self) -> Option<&'static str> {
        self.spec().program.as_deref()
    }

    /// Whether the agent has an official command that resumes a session by
    /// id. Those without one are detected and shown, and their tombstones
    /// offer respawn only.
    pub fn has_official_resume(self) -> bool {
        self.spec().resume.is_some()
    }
}

impl fmt::Display for AgentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for AgentKind {
    type Err = AdapterError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        AgentKind::parse(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spec_belongs_to_its_kind_at_its_position() {
        for (at, kind) in AgentKind::ALL.into_iter().enumerate() {
            assert_eq!(kind as usize, at);
            assert_eq!(kind.spec().kind, kind);
        }
    }

    #[test]
    fn a_resume_shape_implies_a_program() {
        for kind in AgentKind::ALL {
            let spec = kind.spec();
            if spec.resume.is_some() || spec.preset.is_some() {
                assert!(spec.program.is_some(), "{kind} resumes without a program");
            }
        }
    }
}
