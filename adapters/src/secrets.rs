//! [`without_secrets`]: a command line fit to be saved and shown.
//!
//! A command such as `env ANTHROPIC_API_KEY=sk-… claude` or
//! `tool --api-key sk-…` carries a secret in its words. The running process
//! needs it; a snapshot, a listing or a log must not have it, and a resumed
//! or respawned process runs without it (the user's environment or keychain
//! supplies it then). Which names look secret is the caller's rule — the
//! same one that keeps secrets out of a pane's saved environment.

use crate::argv::{is_assignment, split_noting_assignments};
use crate::kind::Spec;

/// `argv` without the words that may hold a secret:
///
/// * `NAME=VALUE` operands of a leading `env` whose NAME looks secret;
/// * `--name=VALUE`, and `--name VALUE` (the flag and the word after it,
///   unless that word is another option), whose name looks secret;
/// * a short option the agent's data file names as carrying a secret
///   (`grok -k KEY`, `-kKEY`), with its value.
///
/// A command line whose `env` prefix cannot be read loses every
/// `NAME=VALUE` word whose NAME looks secret, wherever it stands. Dropping a
/// harmless word costs a respawn little; a written key cannot be unwritten.
pub fn without_secrets(argv: &[String], looks_secret: impl Fn(&str) -> bool) -> Vec<String> {
    let assignment_is_secret = |word: &str| {
        word.split_once('=')
            .is_some_and(|(name, _)| looks_secret(name))
    };
    let mut assignments = Vec::new();
    let (mut drop, first_arg) = match split_noting_assignments(argv, &mut assignments) {
        Some(invocation) => {
            let drop: Vec<usize> = assignments
                .into_iter()
                .filter(|&at| assignment_is_secret(&argv[at]))
                .collect();
            (drop, invocation.program_index() + 1)
        }
        None => {
            let drop = (0..argv.len())
                .filter(|&at| is_assignment(&argv[at]) && assignment_is_secret(&argv[at]))
                .collect();
            (drop, 1)
        }
    };
    let secret_shorts = &crate::detect::detect(argv).spec().secret_flags;
    let mut at = first_arg;
    while let Some(word) = argv.get(at) {
        at += 1;
        if let Some(short) = secret_shorts.iter().find(|f| word.starts_with(f.as_str())) {
            drop.push(at - 1);
            if word == short && argv.get(at).is_some_and(|value| !value.starts_with('-')) {
                drop.push(at);
                at += 1;
            }
            continue;
        }
        let Some(flag) = word.strip_prefix("--").filter(|f| !f.is_empty()) else {
            continue;
        };
        let has_value = argv.get(at).is_some_and(|value| !value.starts_with('-'));
        match flag.split_once('=') {
            Some((name, _)) if looks_secret(name) => drop.push(at - 1),
            None if has_value && looks_secret(flag) => {
                drop.extend([at - 1, at]);
                at += 1;
            }
            _ => {}
        }
    }
    argv.iter()
        .enumerate()
        .filter(|(at, _)| !drop.contains(at))
        .map(|(_, word)| word.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret(name: &str) -> bool {
        let upper = name.to_ascii_uppercase();
        ["KEY", "TOKEN"].iter().any(|d| upper.contains(d))
    }

    fn strip(words: &[&str]) -> Vec<String> {
        let argv: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
        without_secrets(&argv, secret)
    }

    #[test]
    fn env_assignments_that_look_secret_go() {
        assert_eq!(
            strip(&[
                "env",
                "ANTHROPIC_API_KEY=sk-1",
                "LANG=C",
                "claude",
                "X_KEY=kept"
            ]),
            ["env", "LANG=C", "claude", "X_KEY=kept"]
        );
        assert_eq!(
            strip(&[
                "/usr/bin/env",
                "-u",
                "HOME",
                "TOKEN=t",
                "env",
                "B_TOKEN=u",
                "codex"
            ]),
            ["/usr/bin/env", "-u", "HOME", "env", "codex"]
        );
    }

    #[test]
    fn flags_that_look_secret_go_with_their_values() {
        assert_eq!(
            strip(&[
                "tool",
                "--api-key",
                "sk-1",
                "--api-key=sk-2",
                "--model",
                "m",
                "file"
            ]),
            ["tool", "--model", "m", "file"]
        );
        // A flag with no value after it is left: there is nothing to hide.
        assert_eq!(
            strip(&["tool", "--use-keychain", "--verbose"]),
            ["tool", "--use-keychain", "--verbose"]
        );
        assert_eq!(strip(&["tool", "--token"]), ["tool", "--token"]);
    }

    #[test]
    fn an_unreadable_env_prefix_still_loses_its_secrets() {
        assert_eq!(
            strip(&["env", "-S", "A=1 b", "GH_TOKEN=x", "tool", "--token", "y"]),
            ["env", "-S", "A=1 b", "tool"]
        );
    }

    #[test]
    fn a_short_flag_the_agent_names_as_secret_goes_with_its_value() {
        assert_eq!(
            strip(&["grok", "-k", "xai-1", "-m", "grok-4", "hi"]),
            ["grok", "-m", "grok-4", "hi"]
        );
        assert_eq!(
            strip(&["env", "A=1", "grok", "-kxai-2"]),
            ["env", "A=1", "grok"]
        );
        // Another agent's -k is its own business.
        assert_eq!(strip(&["tool", "-k", "v"]), ["tool", "-k", "v"]);
    }

    #[test]
    fn the_program_itself_is_never_dropped() {
        assert_eq!(strip(&["--token", "x"]), ["--token", "x"]);
        assert!(strip(&[]).is_empty());
    }
}
