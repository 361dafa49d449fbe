//! [`AgentKind`]: which agent CLI a pane runs.

use crate::error::{AdapterError, shown};
use crate::kinds::AdapterSpec;
use signaltty_types::NewlineKey;

pub use signaltty_types::AgentKind;

/// What signaltty knows of an agent kind beyond its name, from its data
/// file: bring it into scope to ask a kind (`kind.program()`).
pub trait AgentFacts: Sized {
    /// Parses a kind name, as written by a user or another tool.
    ///
    /// Accepts the names of [`AgentKind::as_str`] in any ASCII case, and a
    /// kind's program name where it differs (`cursor-agent`, `kiro-cli`).
    /// Anything else is [`AdapterError::UnknownKind`].
    fn parse(name: &str) -> Result<Self, AdapterError>;

    /// The executable's basename (`claude`, `cursor-agent`, `kiro-cli`…);
    /// `None` for generic panes.
    fn program(self) -> Option<&'static str>;

    /// Whether the agent has an official command that resumes a session by
    /// id. Those without one are detected and shown, and their tombstones
    /// offer respawn only.
    fn has_official_resume(self) -> bool;

    /// The key its input box reads as a new line while it asked for no
    /// keyboard protocol: what Shift+Enter is sent as then (`None`: as
    /// Enter).
    fn newline_key(self) -> Option<NewlineKey>;

    /// What typed into its input box ends its session the way it ends one
    /// itself, saving it first (`/exit`); `None` where none was checked.
    fn exit_command(self) -> Option<&'static str>;

    /// Whether `screen` (its text) shows its input box empty; `None` for
    /// a kind whose data file does not say where its input box is.
    fn input_is_empty(self, screen: &str) -> Option<bool>;
}

/// A kind's facts table, inside this crate.
pub(crate) trait Spec {
    fn spec(self) -> &'static AdapterSpec;
}

impl Spec for AgentKind {
    /// This kind's facts, read once from its data file.
    fn spec(self) -> &'static AdapterSpec {
        crate::data::spec(self)
    }
}

/// Every kind's name, comma-separated, for messages.
pub(crate) fn names() -> String {
    let names: Vec<&str> = AgentKind::ALL.iter().map(|k| k.as_str()).collect();
    names.join(", ")
}

impl AgentFacts for AgentKind {
    fn parse(name: &str) -> Result<AgentKind, AdapterError> {
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

    fn program(self) -> Option<&'static str> {
        self.spec().program.as_deref()
    }

    fn has_official_resume(self) -> bool {
        self.spec().resume.is_some()
    }

    fn newline_key(self) -> Option<NewlineKey> {
        self.spec().newline_key
    }

    fn exit_command(self) -> Option<&'static str> {
        self.spec().exit.as_ref().map(|exit| exit.command.as_str())
    }

    fn input_is_empty(self, screen: &str) -> Option<bool> {
        let exit = self.spec().exit.as_ref()?;
        Some(screen.lines().any(|line| exit.empty_input.is_match(line)))
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
