//! What can be wrong with a record: a broken rule, a bad id, an edit that
//! would break a layout.

/// The crate's one error type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TypesError {
    /// A record breaks one of the rules it must keep.
    #[error("invalid snapshot: {0}")]
    Invalid(String),

    /// An id that could not safely be used as a file name or record key.
    #[error("invalid {kind} id {id:?}: {reason}")]
    BadId {
        kind: &'static str,
        id: String,
        reason: &'static str,
    },

    /// A layout edit that would break the tree (unknown target, duplicate
    /// pane, too deep).
    #[error("layout: {0}")]
    Layout(String),
}

pub type Result<T> = std::result::Result<T, TypesError>;
