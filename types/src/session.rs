//! Named sessions: separate servers, each with a socket and a state dir of
//! its own, under `…/signaltty/sessions/NAME/`.
//!
//! A name is also a path component, so it is checked like an id: a short
//! run of letters, digits, `.`, `_` and `-` that cannot climb out of
//! `sessions/` or pass for a command-line option. `default` names the
//! default session, which lives where signaltty always kept it.

use std::fmt;
use std::str::FromStr;

/// Picks a session for a whole process tree, like `--session`.
pub const SESSION_ENV: &str = "SIGNALTTY_SESSION";
/// The directory, beside the default session's files, that holds the others.
pub const SESSIONS_DIR: &str = "sessions";
/// The name of the default session.
pub const DEFAULT_SESSION: &str = "default";
/// The longest name: short enough that the socket path of a named session
/// fits the 107 bytes of a Unix socket address under the usual runtime dirs.
pub const MAX_SESSION_NAME: usize = 32;

/// A valid session name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SessionName(String);

/// A name that cannot be a session's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "session name {name:?} {why}; use 1 to {MAX_SESSION_NAME} letters, digits, '.', '_' or '-', \
     not starting with '.' or '-'"
)]
pub struct BadSessionName {
    pub name: String,
    pub why: &'static str,
}

impl SessionName {
    pub fn parse(name: &str) -> Result<SessionName, BadSessionName> {
        let bad = |why| BadSessionName {
            name: name.chars().take(2 * MAX_SESSION_NAME).collect(),
            why,
        };
        if name.is_empty() {
            return Err(bad("is empty"));
        }
        if name.len() > MAX_SESSION_NAME {
            return Err(bad("is too long"));
        }
        if name.starts_with(['.', '-']) {
            return Err(bad("starts with '.' or '-'"));
        }
        if !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        {
            return Err(bad(
                "has a character other than a letter, digit, '.', '_' or '-'",
            ));
        }
        Ok(SessionName(name.to_string()))
    }

    /// The default session's name.
    pub fn default_session() -> SessionName {
        SessionName(DEFAULT_SESSION.to_string())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether this names the default session (whose files are not under
    /// `sessions/`).
    pub fn is_default(&self) -> bool {
        self.0 == DEFAULT_SESSION
    }
}

impl fmt::Display for SessionName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for SessionName {
    type Err = BadSessionName;

    fn from_str(name: &str) -> Result<SessionName, BadSessionName> {
        SessionName::parse(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn good_names_pass_and_default_is_known() {
        for name in ["work", "a", "api-2", "x.y_z", &"n".repeat(MAX_SESSION_NAME)] {
            assert_eq!(SessionName::parse(name).unwrap().as_str(), name);
        }
        assert!(SessionName::parse("default").unwrap().is_default());
        assert!(!SessionName::parse("work").unwrap().is_default());
        assert!(SessionName::default_session().is_default());
    }

    #[test]
    fn names_that_could_escape_or_confuse_are_refused_with_the_rule() {
        for name in [
            "",
            ".",
            "..",
            ".hidden",
            "-rf",
            "a/b",
            "../x",
            "a b",
            "tab\t",
            "é",
            "x;rm",
            &"n".repeat(MAX_SESSION_NAME + 1),
        ] {
            let err = SessionName::parse(name).unwrap_err().to_string();
            assert!(err.contains("letters, digits"), "{name:?}: {err}");
        }
    }
}
