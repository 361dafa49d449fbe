//! [`AgentKind`]: which agent CLI a pane runs.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{AdapterError, shown};
use crate::kinds::{self, AdapterSpec};

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
    Generic,
}

impl AgentKind {
    /// Every kind, in a stable order.
    pub const ALL: [AgentKind; 7] = [
        AgentKind::Claude,
        AgentKind::Codex,
        AgentKind::Opencode,
        AgentKind::Cursor,
        AgentKind::Gemini,
        AgentKind::Copilot,
        AgentKind::Generic,
    ];

    /// This kind's facts table.
    pub(crate) fn spec(self) -> &'static AdapterSpec {
        match self {
            AgentKind::Claude => &kinds::CLAUDE,
            AgentKind::Codex => &kinds::CODEX,
            AgentKind::Opencode => &kinds::OPENCODE,
            AgentKind::Cursor => &kinds::CURSOR,
            AgentKind::Gemini => &kinds::GEMINI,
            AgentKind::Copilot => &kinds::COPILOT,
            AgentKind::Generic => &kinds::GENERIC,
        }
    }

    /// The kind's name: `"claude"`, `"codex"`, `"opencode"`, `"cursor"`,
    /// `"gemini"`, `"copilot"` or `"generic"`.
    pub fn as_str(self) -> &'static str {
        self.spec().name
    }

    /// Parses a kind name, as written by a user or another tool.
    ///
    /// Accepts the names of [`AgentKind::as_str`] in any ASCII case, and a
    /// kind's program name where it differs (`cursor-agent`). Anything else
    /// is [`AdapterError::UnknownKind`].
    pub fn parse(name: &str) -> Result<AgentKind, AdapterError> {
        AgentKind::ALL
            .into_iter()
            .find(|kind| {
                let spec = kind.spec();
                name.eq_ignore_ascii_case(spec.name)
                    || spec
                        .program
                        .is_some_and(|program| name.eq_ignore_ascii_case(program))
            })
            .ok_or_else(|| AdapterError::UnknownKind { name: shown(name) })
    }

    /// The executable's basename: `claude`, `codex`, `opencode`,
    /// `cursor-agent`, `gemini`, `copilot`; `None` for generic panes.
    pub fn program(self) -> Option<&'static str> {
        self.spec().program
    }

    /// Whether the agent has an official command that resumes a session by
    /// id (every kind except `Generic`).
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
    fn every_spec_belongs_to_its_kind() {
        for kind in AgentKind::ALL {
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
