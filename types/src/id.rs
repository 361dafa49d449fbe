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
    fn error_names_kind_and_id() {
        let msg = validate_id("pane", "../etc").unwrap_err().to_string();
        assert!(msg.contains("pane") && msg.contains("../etc"), "{msg}");
    }
}
