//! Per-pane scrollback tails: `history/<pane_id>.tail`.
//!
//! A tail is replayed into a fresh screen after a restart, so it must parse
//! the same way on its own as it did inside the longer history it was cut
//! from. That rules out starting in the middle of a line, of a UTF-8
//! character or of an escape sequence (an OSC title or a DCS string may even
//! contain newlines), and ending inside one (a dangling `ESC [` would eat
//! the "restored" separator the server prints after it). One pass of a small
//! escape-sequence state machine finds the places where a cut is safe.
//!
//! Only 7-bit escape sequences (introduced by ESC) are recognised. The text
//! comes from signaltty's own screen serializer, which never emits 8-bit C1
//! controls, and terminals in UTF-8 mode do not act on them either.

use std::collections::HashMap;
use std::fs;
use std::io::{ErrorKind, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use crate::error::{PersistError, Result};
use tracing::warn;

use crate::fsutil::{
    LINK_SUFFIX, create_private_dir, is_symlink_error, move_into_archive, open_for_reading,
    slow_disk, write_private_atomic,
};
use crate::id::validate_id;

/// How many bytes of history a tail keeps by default.
pub const DEFAULT_TAIL_CAP: usize = 64 * 1024;

/// File-name suffix of a tail in `history/`.
pub const TAIL_SUFFIX: &str = ".tail";

const ESC: char = '\x1b';
const BEL: char = '\x07';
const CAN: char = '\x18';
const SUB: char = '\x1a';
const DEL: char = '\x7f';

/// Where the parser is, as far as cutting is concerned. The states follow
/// the usual VT parser (as in vte) closely enough to know when a sequence
/// ends; parameters are not interpreted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Ground,
    /// After ESC.
    Escape,
    /// After ESC and intermediate bytes (`ESC (`, `ESC #`, …).
    EscIntermediate,
    /// After `ESC [`, until a final byte.
    Csi,
    /// After `ESC ]`, until BEL or ST.
    Osc,
    /// After `ESC P`, `ESC X`, `ESC ^` or `ESC _`, until ST.
    Str,
    /// An ESC inside an OSC or string: ST if a `\` follows.
    OscEsc,
    StrEsc,
}

/// The state after the character following a bare ESC.
fn after_escape(c: char) -> State {
    match c {
        CAN | SUB => State::Ground,
        '[' => State::Csi,
        ']' => State::Osc,
        'P' | 'X' | '^' | '_' => State::Str,
        '\x20'..='\x2f' => State::EscIntermediate,
        '\x30'..='\x7e' => State::Ground,
        // C0 controls are executed without ending the sequence; DEL is ignored.
        c if c < ' ' || c == DEL => State::Escape,
        _ => State::Ground,
    }
}

/// Tracks the parser state over a text and where the currently open
/// sequence (if any) began.
struct Scanner {
    state: State,
    /// Byte offset where the parser last left [`State::Ground`].
    open_since: usize,
}

impl Scanner {
    fn new() -> Scanner {
        Scanner {
            state: State::Ground,
            open_since: 0,
        }
    }

    /// Consumes `c`, which starts at byte offset `at`.
    fn feed(&mut self, at: usize, c: char) {
        use State::*;
        let next = match (self.state, c) {
            (OscEsc | StrEsc, '\\') => Ground,
            (Osc, ESC) => OscEsc,
            (Str, ESC) => StrEsc,
            // ESC anywhere else aborts what was open and starts afresh.
            (_, ESC) => Escape,
            // The ESC ended the string and began a new sequence.
            (OscEsc | StrEsc, c) => after_escape(c),
            (Ground, _) => Ground,
            (Escape, c) => after_escape(c),
            (EscIntermediate, c) => match c {
                CAN | SUB => Ground,
                '\x20'..='\x2f' => EscIntermediate,
                '\x30'..='\x7e' => Ground,
                c if c < ' ' || c == DEL => EscIntermediate,
                _ => Ground,
            },
            (Csi, c) => match c {
                CAN | SUB | '\x40'..='\x7e' => Ground,
                _ => Csi,
            },
            (Osc, c) => match c {
                BEL | CAN | SUB => Ground,
                _ => Osc,
            },
            (Str, c) => match c {
                CAN | SUB => Ground,
                _ => Str,
            },
        };
        if self.state == Ground && next != Ground {
            self.open_since = at;
        }
        self.state = next;
    }
}

/// The longest suffix of `text` that fits in `cap` bytes and can be replayed
/// on its own.
///
/// The suffix starts at a line start (the start of `text`, or right after a
/// `\n`) that is not inside an escape sequence. When no such line start
/// leaves a non-empty suffix within the cap — one line longer than the cap —
/// it falls back to the earliest character boundary within the cap that is
/// outside any escape sequence, so the end of a huge line is kept rather
/// than nothing; it is empty only when every character in the last `cap`
/// bytes lies inside an escape sequence.
pub fn truncate_tail(text: &str, cap: usize) -> &str {
    if text.len() <= cap {
        return text;
    }
    let min_start = text.len() - cap;
    let bytes = text.as_bytes();
    let mut scanner = Scanner::new();
    let mut fallback = None;
    for (at, c) in text.char_indices() {
        if at >= min_start && scanner.state == State::Ground {
            // `at >= min_start >= 1` here, so there is a byte before it.
            if bytes[at - 1] == b'\n' {
                return &text[at..];
            }
            fallback.get_or_insert(at);
        }
        scanner.feed(at, c);
    }
    fallback.map_or("", |at| &text[at..])
}

/// `text` without an escape sequence left open at its end (whatever follows
/// the tail on replay would otherwise be swallowed by it).
pub fn trim_open_escape(text: &str) -> &str {
    let mut scanner = Scanner::new();
    for (at, c) in text.char_indices() {
        scanner.feed(at, c);
    }
    if scanner.state == State::Ground {
        text
    } else {
        &text[..scanner.open_since]
    }
}

/// Makes a tail file's bytes safe to replay, whatever is in them: invalid
/// UTF-8 becomes U+FFFD, an escape sequence open at the end is dropped and
/// the result is cut to [`DEFAULT_TAIL_CAP`].
pub fn sanitize_tail_bytes(bytes: &[u8]) -> String {
    sanitize_tail_bytes_with_cap(bytes, DEFAULT_TAIL_CAP)
}

/// [`sanitize_tail_bytes`] with another cap.
pub fn sanitize_tail_bytes_with_cap(bytes: &[u8], cap: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    truncate_tail(trim_open_escape(&text), cap).to_owned()
}

/// Whether a tail write happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TailWrite {
    Written,
    /// The pane was deleted; its tail must not come back.
    SkippedClosed,
}

#[derive(Debug, Default)]
struct PaneSlot {
    closed: bool,
}

/// Reads and writes tails, and makes sure a deleted pane's tail stays
/// deleted.
///
/// Each pane has its own lock, held across "is it closed?" and the write, so
/// a write that is already running when the pane is closed finishes before
/// the delete removes the file, and every later write sees the pane closed.
/// Closed ids are remembered for the life of the store (ids are never
/// reused, and an entry is a few bytes), which is what keeps a late write
/// from resurrecting a file. That promise holds within one store, so the
/// server keeps a single store per history dir and shares it.
#[derive(Debug)]
pub struct TailStore {
    dir: PathBuf,
    cap: usize,
    /// Where a tail found to be a symbolic link is moved.
    archive: Option<PathBuf>,
    panes: Mutex<HashMap<String, Arc<Mutex<PaneSlot>>>>,
    /// Fault injection: added to every tail write's fsync.
    fsync_delay: Duration,
}

/// A poisoned lock only means another thread panicked while holding it;
/// the data here (a flag, a map of flags) is still consistent.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl TailStore {
    /// A store over `history_dir`, keeping at most `cap` bytes per tail.
    pub fn new(history_dir: impl Into<PathBuf>, cap: usize) -> TailStore {
        TailStore {
            dir: history_dir.into(),
            cap,
            archive: None,
            panes: Mutex::new(HashMap::new()),
            fsync_delay: Duration::ZERO,
        }
    }

    /// Moves a tail that turns out to be a symbolic link into `archive`
    /// instead of leaving it in place.
    pub fn with_archive(mut self, archive: impl Into<PathBuf>) -> TailStore {
        self.archive = Some(archive.into());
        self
    }

    /// Fault injection (see [`crate::StateDir::with_fsync_delay`]).
    pub fn with_fsync_delay(mut self, delay: Duration) -> TailStore {
        self.fsync_delay = delay;
        self
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Where `pane_id`'s tail lives. The id is checked first, so no id can
    /// name a path outside the history dir.
    pub fn path(&self, pane_id: &str) -> Result<PathBuf> {
        validate_id("pane", pane_id)?;
        Ok(self.dir.join(format!("{pane_id}{TAIL_SUFFIX}")))
    }

    fn slot(&self, pane_id: &str) -> Arc<Mutex<PaneSlot>> {
        Arc::clone(lock(&self.panes).entry(pane_id.to_owned()).or_default())
    }

    /// Replaces the pane's tail with the replayable end of `text` (see
    /// [`truncate_tail`]), atomically and as a 0600 file. The caller should
    /// only call this when the text changed: every call is a disk write.
    pub fn write(&self, pane_id: &str, text: &str) -> Result<TailWrite> {
        let path = self.path(pane_id)?;
        let slot = self.slot(pane_id);
        let guard = lock(&slot);
        if guard.closed {
            return Ok(TailWrite::SkippedClosed);
        }
        let body = truncate_tail(trim_open_escape(text), self.cap);
        match write_private_atomic(&path, body.as_bytes()) {
            Err(PersistError::Io { source, .. }) if source.kind() == ErrorKind::NotFound => {
                // The history dir went away (removed by hand): make it again.
                create_private_dir(&self.dir)?;
                write_private_atomic(&path, body.as_bytes())?;
            }
            other => other?,
        }
        slow_disk(self.fsync_delay);
        drop(guard);
        Ok(TailWrite::Written)
    }

    /// The pane's tail, made safe to replay; `None` if it has none. Meant for
    /// a cold start, before anything can have overwritten it. A symbolic
    /// link is never followed: it counts as no tail, and is moved to the
    /// archive when the store has one.
    pub fn read(&self, pane_id: &str) -> Result<Option<String>> {
        let path = self.path(pane_id)?;
        let mut file = match open_for_reading(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) if is_symlink_error(&e) => {
                self.set_aside_link(pane_id, &path)?;
                return Ok(None);
            }
            Err(e) => return Err(PersistError::io("opening", &path, e)),
        };
        let io_err = |e| PersistError::io("reading", &path, e);
        let meta = file.metadata().map_err(io_err)?;
        if !meta.is_file() {
            return Err(PersistError::io(
                "reading",
                &path,
                std::io::Error::new(ErrorKind::InvalidData, "not a regular file"),
            ));
        }
        let len = meta.len();
        // A file far over the cap was not written by this store; read only
        // its end, and drop the first (partial) line of that window, whose
        // parser state cannot be known.
        let window = (self.cap as u64).saturating_mul(4).max(4096);
        let skipped = len > window;
        if skipped {
            file.seek(SeekFrom::Start(len - window)).map_err(io_err)?;
        }
        let mut bytes = Vec::new();
        file.take(window).read_to_end(&mut bytes).map_err(io_err)?;
        let bytes = if skipped {
            match bytes.iter().position(|b| *b == b'\n') {
                Some(nl) => &bytes[nl + 1..],
                None => &[][..],
            }
        } else {
            &bytes[..]
        };
        Ok(Some(sanitize_tail_bytes_with_cap(bytes, self.cap)))
    }

    fn set_aside_link(&self, pane_id: &str, path: &Path) -> Result<()> {
        let Some(archive) = &self.archive else {
            warn!(path = %path.display(), "a tail is a symbolic link; not followed");
            return Ok(());
        };
        let moved = move_into_archive(archive, path, &format!("tail-{pane_id}"), LINK_SUFFIX)?;
        warn!(link = %path.display(), archived = %moved.display(),
            "a tail was a symbolic link; not followed, moved to the archive");
        Ok(())
    }

    /// Removes the pane's tail for good: the file is gone when this returns,
    /// and no write for this id, running now or later, can bring it back.
    pub fn delete(&self, pane_id: &str) -> Result<()> {
        let path = self.path(pane_id)?;
        let slot = self.slot(pane_id);
        let mut guard = lock(&slot);
        guard.closed = true;
        match fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            Err(e) => Err(PersistError::io("removing", &path, e)),
        }
    }

    /// Whether [`TailStore::delete`] was called for `pane_id`.
    pub fn is_closed(&self, pane_id: &str) -> bool {
        lock(&self.panes)
            .get(pane_id)
            .is_some_and(|slot| lock(slot).closed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_kept_whole() {
        assert_eq!(truncate_tail("a\nb", 10), "a\nb");
        assert_eq!(truncate_tail("", 0), "");
    }

    #[test]
    fn cuts_at_a_line_start() {
        let text = "first line\nsecond\nthird\n";
        assert_eq!(truncate_tail(text, 12), "third\n");
        assert_eq!(truncate_tail(text, 13), "second\nthird\n");
        assert_eq!(truncate_tail(text, 23), "second\nthird\n");
        // Within the cap there is no line start but the final newline:
        // keep the end of the last line.
        assert_eq!(truncate_tail(text, 5), "hird\n");
    }

    #[test]
    fn skips_newlines_inside_osc_and_dcs() {
        // The OSC title contains a newline; cutting after it would start the
        // tail inside the OSC.
        let text = "old\n\x1b]0;a\nb\x07x\nlast\n";
        assert_eq!(truncate_tail(text, text.len() - 5), "last\n");
        let dcs = "old\n\x1bPq\n#0\n\x1b\\y\nend";
        assert_eq!(truncate_tail(dcs, dcs.len() - 5), "end");
    }

    #[test]
    fn newline_inside_csi_is_not_a_line_start() {
        let text = "aa\n\x1b[3\n1mb\nc";
        assert_eq!(truncate_tail(text, text.len() - 4), "c");
    }

    #[test]
    fn one_huge_line_falls_back_outside_escapes() {
        let text = format!("{}\x1b[31m{}", "x".repeat(20), "y".repeat(5));
        // The cap starts the window inside "\x1b[31m": skip past it.
        assert_eq!(truncate_tail(&text, 8), "yyyyy");
        // Trailing newline does not count as a usable line start.
        assert_eq!(truncate_tail("abcdef\n", 3), "ef\n");
        // Never splits a multi-byte char.
        assert_eq!(truncate_tail("ééé", 3), "é");
        // Inside one unterminated OSC: nothing is safe.
        assert_eq!(truncate_tail("\x1b]0;aaaaaaaaaa", 4), "");
    }

    #[test]
    fn trims_an_escape_open_at_the_end() {
        assert_eq!(trim_open_escape("ok\x1b[3"), "ok");
        assert_eq!(trim_open_escape("ok\x1b]0;title"), "ok");
        assert_eq!(trim_open_escape("ok\x1b]0;title\x1b"), "ok");
        assert_eq!(trim_open_escape("ok\x1b[3\x1b[4"), "ok");
        assert_eq!(trim_open_escape("ok\x1b[31m"), "ok\x1b[31m");
        assert_eq!(trim_open_escape("ok\x1b]0;t\x1b\\"), "ok\x1b]0;t\x1b\\");
    }

    #[test]
    fn sanitize_handles_bad_utf8_and_open_escape() {
        let s = sanitize_tail_bytes(b"a\xffb\n\x1b[38;5");
        assert_eq!(s, "a\u{fffd}b\n");
    }

    #[test]
    fn store_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<TailStore>();
    }
}
