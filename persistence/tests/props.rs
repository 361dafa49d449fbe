//! Property tests: nothing on disk can make `load` or a tail `read` panic,
//! and `truncate_tail` keeps its promises on escape-sequence soup.
//!
//! The tail properties are checked against an oracle written separately
//! from the crate's state machine: a recursive-descent reading of the same
//! VT rules that returns where each escape sequence ends.

mod common;

use std::fs;

use proptest::prelude::*;
use signaltty_persistence::{
    LoadOutcome, StateDir, TailStore, sanitize_tail_bytes_with_cap, trim_open_escape, truncate_tail,
};

const ESC: char = '\x1b';

/// Where the escape sequence that starts with the ESC at byte `at` ends
/// (the byte after its last char), or `None` if it never ends.
fn sequence_end(chars: &[(usize, char)], at: usize, text_len: usize) -> Option<usize> {
    let idx = chars.iter().position(|(p, _)| *p == at)?;
    let after = |i: usize| chars.get(i + 1).map_or(text_len, |(p, _)| *p);
    let is_c0 = |c: char| c < ' ' && c != ESC;
    let cancels = |c: char| c == '\x18' || c == '\x1a';
    // State right after the ESC: look at what follows, skipping C0 controls.
    let mut i = idx + 1;
    loop {
        let (p, c) = *chars.get(i)?;
        match c {
            ESC => return sequence_end(chars, p, text_len),
            c if cancels(c) => return Some(after(i)),
            c if is_c0(c) || c == '\x7f' => i += 1,
            '[' => {
                // CSI: until a final byte.
                for j in i + 1..chars.len() {
                    let (q, d) = chars[j];
                    if d == ESC {
                        return sequence_end(chars, q, text_len);
                    }
                    if cancels(d) || ('\x40'..='\x7e').contains(&d) {
                        return Some(after(j));
                    }
                }
                return None;
            }
            ']' | 'P' | 'X' | '^' | '_' => {
                let osc = c == ']';
                for j in i + 1..chars.len() {
                    let (q, d) = chars[j];
                    if (osc && d == '\x07') || cancels(d) {
                        return Some(after(j));
                    }
                    if d == ESC {
                        return match chars.get(j + 1) {
                            Some((_, '\\')) => Some(after(j + 1)),
                            _ => sequence_end(chars, q, text_len),
                        };
                    }
                }
                return None;
            }
            ' '..='/' => {
                // Intermediates, then one final byte.
                for j in i + 1..chars.len() {
                    let (q, d) = chars[j];
                    match d {
                        ESC => return sequence_end(chars, q, text_len),
                        ' '..='/' => {}
                        // CAN and SUB cancel a sequence in every state.
                        d if cancels(d) => return Some(after(j)),
                        d if is_c0(d) || d == '\x7f' => {}
                        _ => return Some(after(j)),
                    }
                }
                return None;
            }
            // A final byte, or a character that abandons the sequence.
            _ => return Some(after(i)),
        }
    }
}

/// For each byte offset 0..=len: is a cut there outside every escape
/// sequence? Also whether the text ends inside one.
fn oracle(text: &str) -> (Vec<bool>, bool) {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut safe = vec![true; text.len() + 1];
    let mut open_at_end = false;
    let mut k = 0;
    while k < chars.len() {
        let (p, c) = chars[k];
        if c != ESC {
            k += 1;
            continue;
        }
        let end = sequence_end(&chars, p, text.len());
        let stop = end.unwrap_or(text.len() + 1);
        open_at_end |= end.is_none();
        for (q, s) in safe.iter_mut().enumerate() {
            if q > p && q < stop {
                *s = false;
            }
        }
        match end {
            Some(e) => {
                k = chars
                    .iter()
                    .position(|(q, _)| *q >= e)
                    .unwrap_or(chars.len())
            }
            None => break,
        }
    }
    (safe, open_at_end)
}

fn soup() -> impl Strategy<Value = String> {
    let alphabet = vec![
        ESC, ESC, '[', ']', '0', '1', '3', '8', ';', ';', 'm', 'm', '\x07', '\\', '\n', '\n', '\n',
        'é', '世', '🦀', 'a', 'b', ' ', 'P', '\x18',
    ];
    prop::collection::vec(prop::sample::select(alphabet), 0..300)
        .prop_map(|chars| chars.into_iter().collect())
}

fn check_truncate(text: &str, cap: usize) -> Result<(), TestCaseError> {
    let out = truncate_tail(text, cap);
    prop_assert!(out.len() <= cap, "{} > cap {cap}", out.len());
    prop_assert!(text.ends_with(out), "not a suffix");
    let start = text.len() - out.len();
    prop_assert!(text.is_char_boundary(start));
    if text.len() <= cap {
        prop_assert_eq!(out, text);
        return Ok(());
    }
    let (safe, _) = oracle(text);
    let min_start = text.len() - cap;
    let line_start = |q: usize| q == 0 || text.as_bytes()[q - 1] == b'\n';
    let safe_line = |q: usize| q < text.len() && safe[q] && line_start(q);
    if out.is_empty() {
        // Only when no position in the window is outside a sequence.
        prop_assert!(
            (min_start..text.len()).all(|q| !text.is_char_boundary(q) || !safe[q]),
            "gave up although a safe cut existed"
        );
        return Ok(());
    }
    prop_assert!(safe[start], "starts inside an escape sequence at {start}");
    if line_start(start) {
        // The longest suffix: no earlier safe line start fits.
        prop_assert!(
            !(min_start..start).any(safe_line),
            "a longer suffix was possible"
        );
    } else {
        // Fallback: only when no safe line start fits, and then the earliest
        // safe character boundary in the window.
        prop_assert!(
            !(min_start..text.len()).any(safe_line),
            "fell back needlessly"
        );
        prop_assert!(
            !(min_start..start).any(|q| text.is_char_boundary(q) && safe[q]),
            "fallback is not the longest"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn truncate_tail_on_escape_soup(text in soup(), cap in 0usize..320) {
        check_truncate(&text, cap)?;
    }

    #[test]
    fn truncate_tail_on_any_string(text in any::<String>(), cap in 0usize..64) {
        check_truncate(&text, cap)?;
    }

    #[test]
    fn trim_open_escape_leaves_nothing_open(text in soup()) {
        let out = trim_open_escape(&text);
        prop_assert!(text.starts_with(out));
        let (_, open) = oracle(out);
        prop_assert!(!open, "an escape is still open at the end of {:?}", out);
        let (_, open_in_text) = oracle(&text);
        if !open_in_text {
            prop_assert_eq!(out, text.as_str());
        }
    }

    #[test]
    fn sanitized_bytes_are_capped_and_closed(bytes in prop::collection::vec(any::<u8>(), 0..400), cap in 0usize..300) {
        let out = sanitize_tail_bytes_with_cap(&bytes, cap);
        prop_assert!(out.len() <= cap);
        prop_assert!(!oracle(&out).1);
    }

    #[test]
    fn arbitrary_tail_files_never_panic_read(bytes in prop::collection::vec(any::<u8>(), 0..2000)) {
        let tmp = tempfile::TempDir::new().unwrap();
        let store = TailStore::new(tmp.path(), 512);
        fs::write(store.path("p1").unwrap(), &bytes).unwrap();
        let out = store.read("p1").unwrap().expect("file exists");
        prop_assert!(out.len() <= 512);
        prop_assert!(!oracle(&out).1);
    }

    #[test]
    fn arbitrary_snapshot_bytes_never_panic_load(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let tmp = tempfile::TempDir::new().unwrap();
        let dir = StateDir::open(tmp.path().join("s")).unwrap();
        fs::write(dir.snapshot_path(), &bytes).unwrap();
        let outcome = dir.load().unwrap();
        prop_assert!(matches!(
            outcome,
            LoadOutcome::Restored(_)
                | LoadOutcome::CorruptNoFallback { .. }
                | LoadOutcome::FutureVersion { .. }
        ), "{:?}", outcome);
    }

    /// Damage to a real snapshot reaches deeper into the parser than random
    /// bytes do.
    #[test]
    fn damaged_real_snapshot_never_panics_load(
        cut in 0usize..4000,
        flips in prop::collection::vec((0usize..4000, any::<u8>()), 0..8),
        prev_too in any::<bool>(),
    ) {
        let tmp = tempfile::TempDir::new().unwrap();
        let dir = StateDir::open(tmp.path().join("s")).unwrap();
        let mut bytes = serde_json::to_vec_pretty(&common::sample("A")).unwrap();
        for (at, b) in flips {
            let n = bytes.len();
            bytes[at % n] = b;
        }
        bytes.truncate(cut.max(1));
        fs::write(dir.snapshot_path(), &bytes).unwrap();
        if prev_too {
            fs::write(dir.prev_path(), &bytes).unwrap();
        }
        let outcome = dir.load().unwrap();
        if let LoadOutcome::Restored(s) | LoadOutcome::Recovered { snapshot: s, .. } = &outcome {
            prop_assert!(s.validate().is_ok(), "a loaded snapshot is always valid");
        }
        // Whatever happened, nothing was deleted: every input byte is still
        // somewhere in the state dir (in place or archived).
        let kept = common::tree(dir.root()).into_values().flatten().filter(|f| *f == bytes).count();
        let expected = if prev_too { 2 } else { 1 };
        prop_assert_eq!(kept, expected);
    }
}

#[test]
fn oracle_agrees_on_simple_cases() {
    let (safe, open) = oracle("a\x1b[31mb");
    assert_eq!(safe, [true, true, false, false, false, false, true, true]);
    assert!(!open);
    assert!(oracle("x\x1b]0;t").1);
    assert!(!oracle("x\x1b]0;t\x1b\\").1);
    // CAN cancels an escape sequence, intermediates or not.
    assert!(!oracle("\x1b \x18").1);
}
