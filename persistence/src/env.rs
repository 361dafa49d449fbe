//! Which environment variables of a pane may be written to disk.
//!
//! A snapshot is a plain file that outlives the processes it describes, so
//! it gets only what is needed to bring a pane back looking the same: the
//! terminal and locale settings, signaltty's own variables, and where each
//! agent CLI keeps its configuration. Everything else — PATH, HOME, and
//! above all credentials — is dropped. A name that looks like a secret is
//! dropped even when an allow rule matches it, because prefixes like
//! `SIGNALTTY_` or `LC_` can be set to anything by anyone.

use std::collections::BTreeMap;
use std::ffi::OsStr;

/// Names kept as they are.
const ALLOWED_NAMES: &[&str] = &[
    // Terminal and locale.
    "TERM",
    "LANG",
    "LANGUAGE",
    "COLORTERM",
    "TERM_PROGRAM",
    "TERM_PROGRAM_VERSION",
    // Where agent CLIs keep their config and sessions; a resumed agent must
    // look in the same place or it cannot find its session.
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "OPENCODE_CONFIG",
    "OPENCODE_CONFIG_DIR",
    "GEMINI_CLI_HOME",
    "COPILOT_HOME",
    "CURSOR_CONFIG_DIR",
    "QWEN_HOME",
    "QWEN_RUNTIME_DIR",
    "PI_CODING_AGENT_DIR",
    "PI_CODING_AGENT_SESSION_DIR",
    "XDG_DATA_HOME",
];

/// Prefixes kept (the name must be longer than the prefix).
const ALLOWED_PREFIXES: &[&str] = &["LC_", "SIGNALTTY_"];

/// Substrings that mark a name as a likely secret, matched against the
/// upper-cased name. Deliberately broad (`KEY` also drops `KEYBOARD_LAYOUT`):
/// dropping a harmless variable costs nothing on restore, writing a token to
/// disk cannot be undone. `SESSION` is not on the list because agent session
/// ids are resume metadata, kept elsewhere in the snapshot anyway.
const DENIED_SUBSTRINGS: &[&str] = &[
    "TOKEN",
    "KEY",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "AUTH",
    "CREDENTIAL",
    "COOKIE",
    "PRIVATE",
];

/// Whether `name` — of a variable, or of a command-line flag such as
/// `--api-key` (dashes count as underscores) — looks like it holds a
/// secret. The same rule keeps secrets out of a pane's saved environment
/// and out of its saved command.
pub fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase().replace('-', "_");
    DENIED_SUBSTRINGS.iter().any(|d| upper.contains(d))
}

/// Whether a variable called `name` may be persisted.
pub fn is_env_allowed(name: &str) -> bool {
    if looks_secret(name) {
        return false;
    }
    ALLOWED_NAMES.contains(&name)
        || ALLOWED_PREFIXES
            .iter()
            .any(|p| name.len() > p.len() && name.starts_with(p))
}

/// Keeps only the variables [`is_env_allowed`] lets through, within the
/// bounds of [`crate::limits::bound_env`]. Accepts `std::env::vars_os()`
/// directly; entries that are not valid UTF-8 are dropped, since the
/// snapshot is JSON text.
pub fn filter_env<I, K, V>(vars: I) -> BTreeMap<String, String>
where
    I: IntoIterator<Item = (K, V)>,
    K: AsRef<OsStr>,
    V: AsRef<OsStr>,
{
    let allowed = vars
        .into_iter()
        .filter_map(|(k, v)| {
            let name = k.as_ref().to_str()?;
            let value = v.as_ref().to_str()?;
            is_env_allowed(name).then(|| (name.to_owned(), value.to_owned()))
        })
        .collect();
    crate::limits::bound_env(allowed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_never_pass_whatever_the_prefix() {
        for name in [
            "GITHUB_TOKEN",
            "MY_API_KEY",
            "SIGNALTTY_API_KEY",
            "SIGNALTTY_TOKEN",
            "LC_SECRET",
            "lc_secret",
            "LC_password",
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "SIGNALTTY_AUTH",
            "AWS_SECRET_ACCESS_KEY",
        ] {
            assert!(!is_env_allowed(name), "{name} must not pass");
        }
    }

    #[test]
    fn flag_names_are_judged_like_variables() {
        for name in ["api-key", "auth-token", "password", "client-secret", "KEY"] {
            assert!(looks_secret(name), "{name} looks secret");
        }
        for name in ["model", "session-id", "resume", "verbose"] {
            assert!(!looks_secret(name), "{name} does not");
        }
    }

    #[test]
    fn terminal_locale_and_own_vars_pass() {
        for name in [
            "TERM",
            "LANG",
            "LC_ALL",
            "LC_CTYPE",
            "COLORTERM",
            "TERM_PROGRAM",
            "SIGNALTTY_PANE",
            "SIGNALTTY_WORKSPACE",
            "CLAUDE_CONFIG_DIR",
            "CODEX_HOME",
        ] {
            assert!(is_env_allowed(name), "{name} must pass");
        }
    }

    #[test]
    fn everything_else_is_dropped() {
        for name in [
            "PATH",
            "HOME",
            "SHELL",
            "USER",
            "term",
            "LC_",
            "SIGNALTTY_",
            "",
        ] {
            assert!(!is_env_allowed(name), "{name:?} must not pass");
        }
    }

    #[test]
    fn filter_env_keeps_values_and_drops_the_rest() {
        let out = filter_env([
            ("TERM", "xterm-256color"),
            ("PATH", "/usr/bin"),
            ("GITHUB_TOKEN", "ghp_x"),
            ("LC_ALL", "C.UTF-8"),
        ]);
        let expected: BTreeMap<String, String> =
            [("LC_ALL", "C.UTF-8"), ("TERM", "xterm-256color")]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect();
        assert_eq!(out, expected);
    }

    #[test]
    fn filter_env_takes_os_strings_and_skips_non_utf8() {
        use std::ffi::OsString;
        use std::os::unix::ffi::OsStringExt;
        let bad = OsString::from_vec(vec![0xff, 0xfe]);
        let out = filter_env([
            (OsString::from("LANG"), bad),
            (OsString::from("TERM"), OsString::from("dumb")),
        ]);
        assert_eq!(out.len(), 1);
        assert_eq!(out["TERM"], "dumb");
    }
}
