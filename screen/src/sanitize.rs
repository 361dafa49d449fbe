//! Making program-supplied strings safe to show elsewhere.
//!
//! Titles and notification texts end up in signaltty's own UI, in desktop
//! notifications and in other terminals; a program must not be able to smuggle
//! escape sequences, bidi overrides or unbounded text through them.

use std::iter::Peekable;
use std::str::Chars;

/// Longest title kept, in characters.
pub const MAX_TITLE_CHARS: usize = 256;
/// Longest notification body kept, in characters.
pub const MAX_BODY_CHARS: usize = 1024;

/// Removes escape sequences (7-bit and C1), control and bidi-override
/// characters, turns tabs and line breaks into spaces, trims, and keeps at
/// most `max_chars` characters.
///
/// Public so that text reaching the same places by other routes (agent
/// hooks, the CLI) gets exactly the treatment OSC payloads get.
pub fn sanitize(input: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(input.len().min(max_chars.saturating_mul(4)));
    let mut kept = 0;
    let mut chars = input.chars().peekable();
    while let Some(c) = chars.next() {
        if kept >= max_chars {
            break;
        }
        match c {
            '\x1b' => skip_escape(&mut chars),
            '\u{9b}' => skip_csi(&mut chars),
            '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            '\t' | '\n' | '\r' => {
                // Leading whitespace is trimmed anyway; don't spend the budget.
                if kept > 0 {
                    out.push(' ');
                    kept += 1;
                }
            }
            c if c.is_control() || is_bidi_control(c) => {}
            ' ' if kept == 0 => {}
            c => {
                out.push(c);
                kept += 1;
            }
        }
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out
}

/// Bidi embedding/override/isolate controls can make text display reversed
/// (the "Trojan Source" trick); they have no business in a title.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// After ESC: skip one whole escape sequence.
pub(crate) fn skip_escape(chars: &mut Peekable<Chars<'_>>) {
    match chars.next() {
        Some('[') => skip_csi(chars),
        Some(']' | 'P' | 'X' | '^' | '_') => skip_string(chars),
        Some(' '..='/') => {
            // Intermediates, then one final byte.
            for c in chars.by_ref() {
                if !(' '..='/').contains(&c) {
                    break;
                }
            }
        }
        _ => {}
    }
}

/// Skip CSI parameters and intermediates up to and including the final byte.
fn skip_csi(chars: &mut Peekable<Chars<'_>>) {
    for c in chars.by_ref() {
        if ('@'..='~').contains(&c) || c.is_control() {
            break;
        }
    }
}

/// Skip an OSC/DCS/SOS/PM/APC payload up to its terminator (BEL, ST, C1 ST).
fn skip_string(chars: &mut Peekable<Chars<'_>>) {
    while let Some(c) = chars.next() {
        match c {
            '\x07' | '\u{9c}' => break,
            '\x1b' => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                }
                break;
            }
            _ => {}
        }
    }
}

/// Decodes `%XX` escapes; `None` when an escape is malformed, so a garbled URL
/// is ignored rather than guessed at.
pub(crate) fn percent_decode(input: &str) -> Option<Vec<u8>> {
    let bytes = input.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' {
            let hi = hex_value(*bytes.get(i + 1)?)?;
            let lo = hex_value(*bytes.get(i + 2)?)?;
            out.push(hi << 4 | lo);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    Some(out)
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Standard base64 (padding optional, whitespace not allowed); kitty's OSC 99
/// `e=1` payloads are the only user, which is too little to justify a crate.
pub(crate) fn base64_decode(input: &str) -> Option<Vec<u8>> {
    let input = input.trim_end_matches('=');
    let mut out = Vec::with_capacity(input.len() / 4 * 3 + 3);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for b in input.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_sequences_and_controls() {
        let s = sanitize(
            "\x1b[31mred\x1b[0m \u{9b}1;2mx\x01y\u{202e}z\x1b]0;t\x07!",
            100,
        );
        assert_eq!(s, "red xyz!");
    }

    #[test]
    fn whitespace_and_caps() {
        assert_eq!(sanitize("  a\tb\nc  ", 100), "a b c");
        assert_eq!(sanitize("héllo wörld", 5), "héllo");
        assert_eq!(sanitize("ab", 0), "");
    }

    #[test]
    fn percent() {
        assert_eq!(
            percent_decode("/a%20b%2Fc").as_deref(),
            Some(&b"/a b/c"[..])
        );
        assert_eq!(percent_decode("/a%2"), None);
        assert_eq!(percent_decode("/a%zz"), None);
    }

    #[test]
    fn base64() {
        assert_eq!(
            base64_decode("aGVsbG8gd29ybGQ=").as_deref(),
            Some(&b"hello world"[..])
        );
        assert_eq!(base64_decode("aGk").as_deref(), Some(&b"hi"[..]));
        assert_eq!(base64_decode("a b"), None);
    }
}
