//! The numbers that bound what a request may hold: the snapshot's own
//! (`signaltty_types::bounds`), in bytes as saved, so nothing a
//! client sends can make a snapshot too big to save. Each parameter's type
//! carries its bound ([`crate::text`]) and is refused as the request is
//! read, with `BAD_PARAMS` and a message naming the field and the bound.
//! `pane.send` text is input, not state: only the line limit bounds it.

pub use signaltty_types::bounds::{
    MAX_ARGV_BYTES, MAX_ARGV_WORDS, MAX_MESSAGE_BYTES, MAX_NAME_BYTES, MAX_PANES, MAX_PATH_BYTES,
    MAX_SESSION_ID_BYTES, MAX_TITLE_BYTES, MAX_WORD_BYTES, MAX_WORKSPACES, argv_saved_len,
    saved_len, truncate_saved,
};
