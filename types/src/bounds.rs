//! How long any string or list the server keeps may be, in bytes as saved.
//!
//! JSON escapes a quote or a backslash as two bytes and a control character
//! as six, so a bound on the saved size is a bound on the snapshot file,
//! whatever the text holds. The server's snapshot applies these on load
//! (`signaltty-persistence`'s `limits`), its IPC edge refuses more
//! (`signaltty-protocol`'s `text`).

/// Workspaces a server holds at most.
pub const MAX_WORKSPACES: usize = 256;
/// Panes a server holds at most, over all workspaces.
pub const MAX_PANES: usize = 1024;

/// A workspace name, an agent's model name, and any reference to a
/// workspace, tab or pane in a request.
pub const MAX_NAME_BYTES: usize = 256;
/// A tab or pane title, a notification title.
pub const MAX_TITLE_BYTES: usize = 1024;
/// A working directory.
pub const MAX_PATH_BYTES: usize = 4096;
/// A pane's last message, a notification body, an agent hook's message.
pub const MAX_MESSAGE_BYTES: usize = 4096;
/// An agent session id (each agent's adapter checks it far more tightly).
pub const MAX_SESSION_ID_BYTES: usize = 256;
/// Short words: an agent kind, a hook event, a signal, a notification source.
pub const MAX_WORD_BYTES: usize = 64;

/// The words of a command a client may give.
pub const MAX_ARGV_WORDS: usize = 256;
/// All the words of a command a client may give, together.
pub const MAX_ARGV_BYTES: usize = 16 * 1024;
/// A saved command may be a little longer than a given one: signaltty adds
/// a session id to an agent's command at launch.
pub const SAVED_ARGV_WORDS: usize = MAX_ARGV_WORDS + 4;
pub const SAVED_ARGV_BYTES: usize = MAX_ARGV_BYTES + 256;
/// A resume command an agent reported about itself.
pub const MAX_RESUME_WORDS: usize = 32;
pub const MAX_RESUME_BYTES: usize = 4096;

/// Environment variables saved per pane, and their names and values
/// together.
pub const MAX_ENV_VARS: usize = 64;
pub const MAX_ENV_BYTES: usize = 8 * 1024;

/// How many bytes `text` takes in the snapshot file, quotes excluded.
pub fn saved_len(text: &str) -> usize {
    text.bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0x00..=0x1f => 6,
            _ => 1,
        })
        .sum()
}

/// How many bytes the words of a command take in the snapshot file.
pub fn argv_saved_len(argv: &[String]) -> usize {
    argv.iter().map(|word| saved_len(word)).sum()
}

/// Whether `path` may be a pane's or workspace's working directory.
pub fn path_fits(path: &str) -> bool {
    saved_len(path) <= MAX_PATH_BYTES
}

/// Cuts `text` to the longest prefix, ending on a character boundary, that
/// takes at most `max` bytes as saved. Returns the saved length it had when
/// it was cut.
pub fn truncate_saved(text: &mut String, max: usize) -> Option<usize> {
    let had = saved_len(text);
    if had <= max {
        return None;
    }
    let mut used = 0;
    let mut end = 0;
    for (at, c) in text.char_indices() {
        let mut buf = [0; 4];
        used += saved_len(c.encode_utf8(&mut buf));
        if used > max {
            break;
        }
        end = at + c.len_utf8();
    }
    text.truncate(end);
    Some(had)
}
