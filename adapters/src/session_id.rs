//! [`SessionId`] and the per-kind rules that make one.
//!
//! A session id ends up as an argument of a command signaltty runs, so it is
//! only ever built here, by checking the string against its kind's rule. The
//! rules are deliberately narrow: agent CLIs accept names, search terms,
//! prefixes and paths in the same slot (`claude --resume docs` searches;
//! `copilot --resume=0cb916d` matches a prefix), and an id that starts with
//! `-` would be read as an option. Every rule refuses whitespace, control
//! characters, `/`, and a leading `-`, and none accepts an empty string.
//!
//! Ids are kept exactly as given (no case folding): gemini, for one, matches
//! a resumed id against its stored ids case-sensitively.

use std::fmt;

use serde::{Serialize, Serializer};

use crate::error::{AdapterError, shown};
use crate::kind::AgentKind;
use crate::kind::Spec;
use crate::kinds::IdRule;

/// A session id that passed its kind's rule.
///
/// The only way to get one is [`validate_session_id`], so holding a
/// `SessionId` means the string is safe to put in that kind's resume argv.
/// It remembers the kind it was validated for ([`SessionId::kind`]).
///
/// It serializes as the bare id string. There is deliberately no
/// `Deserialize`: a stored id is re-checked on load with
/// [`validate_session_id`] and the stored kind.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionId {
    kind: AgentKind,
    id: String,
}

impl SessionId {
    /// The id text.
    pub fn as_str(&self) -> &str {
        &self.id
    }

    /// The kind this id was validated for.
    pub fn kind(&self) -> AgentKind {
        self.kind
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id)
    }
}

impl AsRef<str> for SessionId {
    fn as_ref(&self) -> &str {
        &self.id
    }
}

impl Serialize for SessionId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.id)
    }
}

/// Checks `id` against `kind`'s rule and returns it as a [`SessionId`].
///
/// Each kind's rule is in its data file: most are a UUID in canonical
/// 8-4-4-4-12 hex form, in either case (no braces, no `urn:uuid:`); others
/// an anchored pattern (opencode's `ses_…`, amp's `T-<uuid>`, goose's
/// `20251108_1`), which an id must match on top of the rules every id
/// follows. Kinds with no session ids of their own (generic, and agents that
/// keep none) take 1–128 characters of `[A-Za-z0-9._:-]`, not starting with
/// `-`; such an id is only stored and shown, never put in an argv.
///
/// On failure, [`AdapterError::InvalidSessionId`] names the kind and the rule
/// and shows the id escaped.
pub fn validate_session_id(kind: AgentKind, id: &str) -> Result<SessionId, AdapterError> {
    let rule = &kind.spec().id_rule;
    if follows(rule, id) {
        Ok(SessionId {
            kind,
            id: id.to_owned(),
        })
    } else {
        Err(AdapterError::InvalidSessionId {
            kind,
            rule: describe(rule),
            id_shown: shown(id),
        })
    }
}

/// Whether `id` follows `rule`.
pub(crate) fn follows(rule: &IdRule, id: &str) -> bool {
    match rule {
        IdRule::Uuid => is_canonical_uuid(id),
        IdRule::Pattern { regex, .. } => is_safe(id) && regex.is_match(id),
        IdRule::Generic => {
            is_safe(id)
                && id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'))
        }
    }
}

/// What every id must be, whatever its kind's pattern says: 1–128
/// printable ASCII characters other than space and `/`, not starting with
/// `-`.
fn is_safe(id: &str) -> bool {
    (1..=MAX_LEN).contains(&id.len())
        && !id.starts_with('-')
        && id.bytes().all(|b| b.is_ascii_graphic() && b != b'/')
}

/// The longest id accepted.
const MAX_LEN: usize = 128;

/// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with hex digits of either case.
fn is_canonical_uuid(id: &str) -> bool {
    let bytes = id.as_bytes();
    bytes.len() == 36
        && bytes.iter().enumerate().all(|(i, &b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

/// The rule as it reads in an error message, after "invalid KIND session id
/// \"…\": ".
fn describe(rule: &'static IdRule) -> &'static str {
    match rule {
        IdRule::Uuid => UUID_RULE,
        IdRule::Pattern { text, .. } => text,
        IdRule::Generic => GENERIC_RULE,
    }
}

const UUID_RULE: &str = "must be a UUID like 123e4567-e89b-12d3-a456-426614174000";
const GENERIC_RULE: &str = "must be 1 to 128 characters of A-Z a-z 0-9 . _ : - \
     and must not start with '-'";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_uuid_rule_example_is_a_uuid() {
        let example = UUID_RULE.rsplit(' ').next().unwrap();
        assert!(is_canonical_uuid(example), "{example}");
    }

    #[test]
    fn every_rule_text_quotes_an_example_that_follows_the_rule() {
        for kind in AgentKind::ALL {
            let rule = &kind.spec().id_rule;
            if let IdRule::Pattern { text, .. } = rule {
                let example = text.rsplit(' ').next().unwrap();
                assert!(follows(rule, example), "{kind}: {example}");
            }
        }
    }

    #[test]
    fn a_pattern_never_lets_through_what_no_id_may_be() {
        let rule = IdRule::Pattern {
            regex: regex::Regex::new("^.*$").unwrap(),
            text: String::new(),
        };
        for bad in [
            "",
            "-x",
            "a b",
            "a/b",
            "a\nb",
            "é",
            "x".repeat(129).as_str(),
        ] {
            assert!(!follows(&rule, bad), "{bad:?}");
        }
        assert!(follows(&rule, "T-1"));
    }
}
