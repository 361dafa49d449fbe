//! [`AdapterError`] and the escaping used to show untrusted text in it.

use thiserror::Error;

use crate::kind::AgentKind;

/// Everything that can go wrong in this crate.
///
/// Messages are one line, say what was wrong and what is expected, and never
/// contain raw input: text that came from outside (an id, a kind name) is
/// escaped and cut to 48 characters first — printable ASCII stays, `"` and
/// `\` get a backslash, anything else becomes `\n`, `\t`, `\r` or
/// `\u{…}` — so a control character in it cannot reach the terminal that
/// prints the error.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AdapterError {
    /// A kind name that is none of [`AgentKind::ALL`].
    #[error(
        "unknown agent kind \"{name}\": expected one of {}",
        crate::kind::names()
    )]
    UnknownKind {
        /// The name as given, escaped and shortened for display.
        name: String,
    },

    /// A hook event the kind's table does not know.
    #[error("{kind} has no hook event \"{event}\"; known events: {known}")]
    UnknownHookEvent {
        kind: AgentKind,
        /// The event as given, escaped and shortened for display.
        event: String,
        known: String,
    },

    /// The payload of a hook that reports every event (the kind's
    /// `[hook_relay]`) named no event.
    #[error("{kind}'s {relay} payload has no \"type\"; nothing to report")]
    NoRelayedEvent {
        kind: AgentKind,
        /// The relay's event word, from the kind's data file.
        relay: &'static str,
    },

    /// A session id that does not follow its kind's rule.
    #[error("invalid {kind} session id \"{id_shown}\": {rule}")]
    InvalidSessionId {
        kind: AgentKind,
        /// The rule the id broke, e.g. "must be a UUID like 123e4567-…".
        rule: &'static str,
        /// The id as given, escaped and shortened for display.
        id_shown: String,
    },

    /// Resume was asked for a kind that has no official resume command.
    #[error(
        "{kind} panes have no official resume command; the agent can report one with \
         `signaltty ctl report-session PANE SESSION_ID`"
    )]
    NoOfficialResume { kind: AgentKind },
}

/// How many characters of untrusted input an error shows.
const SHOWN_CHARS: usize = 48;

/// Untrusted text made safe to print inside double quotes on one line.
///
/// Printable ASCII stays as it is (with `"` and `\` backslash-escaped);
/// newline, tab and carriage return become `\n`, `\t`, `\r`; every other
/// character, including all non-ASCII, becomes `\u{…}`. Input longer than
/// 48 characters is cut, and a `…` (which escaped input can never contain)
/// plus the count of characters left out marks the cut.
pub(crate) fn shown(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    for c in chars.by_ref().take(SHOWN_CHARS) {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            ' '..='~' => out.push(c),
            _ => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
        }
    }
    let left = chars.count();
    if left > 0 {
        out.push_str(&format!("…(+{left})"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::shown;

    #[test]
    fn shown_escapes_everything_that_could_steer_a_terminal() {
        let cases = [
            ("plain-id_1.2:3", "plain-id_1.2:3"),
            ("", ""),
            ("a\"b", "a\\\"b"),
            ("a\\b", "a\\\\b"),
            ("id\n", "id\\n"),
            ("\t\r", "\\t\\r"),
            ("\u{1b}[2J", "\\u{1b}[2J"),
            ("\u{7f}", "\\u{7f}"),
            ("\u{9b}", "\\u{9b}"),
            ("\u{202e}evil", "\\u{202e}evil"),
            ("é", "\\u{e9}"),
        ];
        for (input, want) in cases {
            assert_eq!(shown(input), want, "input {input:?}");
        }
    }

    #[test]
    fn shown_cuts_long_input_and_says_how_much() {
        let long = "x".repeat(50);
        assert_eq!(shown(&long), format!("{}…(+2)", "x".repeat(48)));
        let exact = "y".repeat(48);
        assert_eq!(shown(&exact), exact);
    }
}
