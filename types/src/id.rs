//! The one rule for ids that end up in file names or cross-references.
//!
//! Pane ids become `history/<id>.tail`, so an id must never be able to name
//! a path outside that directory (`..`, `/`, NUL) or a hidden temp file. The
//! same rule is applied to workspace and tab ids so that every id in the
//! system can be printed, typed and used as a file name without quoting.

use crate::error::{Result, TypesError};

/// The longest id accepted. UUIDs (36) and `ses_…` ids fit comfortably.
pub const MAX_ID_LEN: usize = 64;

/// Checks `id` against the id rule, naming `kind` (`pane`, `tab`, …) in the
/// error so the message says which record is at fault.
pub fn validate_id(kind: &'static str, id: &str) -> Result<()> {
    let reason = if id.is_empty() {
        "must not be empty"
    } else if id.len() > MAX_ID_LEN {
        "longer than 64 characters"
    } else if !id
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        "only A-Z, a-z, 0-9, '_' and '-' are allowed"
    } else {
        return Ok(());
    };
    Err(TypesError::BadId {
        kind,
        id: id.chars().take(MAX_ID_LEN + 8).collect(),
        reason,
    })
}

/// Whether `id` passes [`validate_id`].
pub fn is_valid_id(id: &str) -> bool {
    validate_id("", id).is_ok()
}

/// Declares an id type: a `String` that passed [`validate_id`], told apart
/// from the other kinds of id by its type, serialized as the bare string.
macro_rules! typed_id {
    ($(#[$doc:meta])* $name:ident, $kind:literal) => {
        $(#[$doc])*
        #[derive(
            Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
        )]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// `id`, once it passes the id rule.
            pub fn parse(id: &str) -> Result<$name> {
                validate_id($kind, id)?;
                Ok($name(id.to_owned()))
            }

            /// An id the server made, or read from a record the snapshot's
            /// validation already checked.
            pub fn trusted(id: impl Into<String>) -> $name {
                $name(id.into())
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl std::ops::Deref for $name {
            type Target = str;

            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl std::borrow::Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        /// As the bare string, so that a message quoting an id (`{id:?}`)
        /// reads as it did when ids were strings.
        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Debug::fmt(&self.0, f)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                &self.0 == other
            }
        }

        impl PartialEq<$name> for String {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }

        impl PartialEq<$name> for &str {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }
    };
}

typed_id!(
    /// A pane's id: its actor's name and its tail's file name.
    PaneId,
    "pane"
);
typed_id!(
    /// A tab's id.
    TabId,
    "tab"
);
typed_id!(
    /// A workspace's id.
    WorkspaceId,
    "workspace"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_uuid_and_prefixed_ids() {
        assert!(is_valid_id("550e8400-e29b-41d4-a716-446655440000"));
        assert!(is_valid_id("ses_01HZZZ"));
        assert!(is_valid_id(&"a".repeat(MAX_ID_LEN)));
    }

    #[test]
    fn rejects_paths_and_oddities() {
        for bad in ["", "..", "a/b", "a\0b", ".hidden", "a b", "é", "x.tail"] {
            assert!(!is_valid_id(bad), "{bad:?} must be rejected");
        }
        assert!(!is_valid_id(&"a".repeat(MAX_ID_LEN + 1)));
    }

    #[test]
    fn a_typed_id_checks_the_rule_and_serializes_bare() {
        let id = PaneId::parse("abc123").unwrap();
        assert_eq!(id, "abc123");
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"abc123\"");
        let err = TabId::parse("../x").unwrap_err().to_string();
        assert!(err.contains("tab"), "{err}");
    }

    #[test]
    fn error_names_kind_and_id() {
        let msg = validate_id("pane", "../etc").unwrap_err().to_string();
        assert!(msg.contains("pane") && msg.contains("../etc"), "{msg}");
    }
}
