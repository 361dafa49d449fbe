//! [`detect`]: which agent a command line starts.

use crate::argv::{basename, split};
use crate::kind::AgentKind;
use crate::kind::{AgentFacts, Spec};
use crate::kinds::AdapterSpec;

/// The kind of agent `argv` runs, judged by the basename of its program.
///
/// * The program may be written bare (`claude`), with an absolute path
///   (`/opt/bin/claude`) or a relative one (`./node_modules/.bin/claude`).
/// * A leading `env` is looked through, with its options (`-i`, `-u NAME`,
///   `-C DIR`, `--`, …) and `NAME=VALUE` assignments, so
///   `env -i CLAUDE_CONFIG_DIR=/x claude` is claude. `-i` is accepted: the
///   program is still the agent, only its environment is emptied. An `env`
///   option this crate does not model (`-S`) makes the line generic.
/// * The basename must equal the kind's program exactly: `claude-foo`,
///   `Claude` and `claude.exe` are generic, and so is anything run through
///   an interpreter or launcher (`node cli.js`, `npx claude`).
/// * An empty argv is generic.
pub fn detect(argv: &[String]) -> AgentKind {
    let Some(invocation) = split(argv) else {
        return AgentKind::Generic;
    };
    let name = basename(invocation.program);
    AgentKind::ALL
        .into_iter()
        .map(AgentKind::spec)
        .find(|spec| spec.program.as_deref() == Some(name))
        .map_or(AgentKind::Generic, |spec| spec.kind)
}

/// What is known about a pane's foreground process: its executable, its
/// command line and the `SIGNALTTY_AGENT` in its environment.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessFacts<'a> {
    /// The path of its executable (`/proc/PID/exe`).
    pub exe: Option<&'a str>,
    /// Its command line (`/proc/PID/cmdline`).
    pub argv: &'a [String],
    /// `SIGNALTTY_AGENT` from its environment: a wrapper that hides the
    /// agent names it there.
    pub agent_env: Option<&'a str>,
}

/// Programs that run an agent written as a script; the script names it.
/// Shells too: `sh …/claude` is a wrapper script named after its agent.
const INTERPRETERS: &[&str] = &[
    "node", "nodejs", "bun", "deno", "ruby", "sh", "bash", "dash", "zsh",
];

/// Which agent a running process is, or `Generic`.
///
/// In order: a valid kind in `SIGNALTTY_AGENT`; the basename of argv[0] or
/// of the executable among a kind's process names (`claude`,
/// `claude.exe`, `gemini.js`…); and for an interpreter (node, bun, deno,
/// ruby, python…), the script it runs — its basename, or a path inside a
/// kind's package (`…/@openai/codex/…`).
pub fn detect_process(facts: &ProcessFacts<'_>) -> AgentKind {
    if let Some(kind) = facts
        .agent_env
        .and_then(|name| AgentKind::parse(name.trim()).ok())
        .filter(|kind| *kind != AgentKind::Generic)
    {
        return kind;
    }
    let names = [facts.argv.first().map(String::as_str), facts.exe];
    for name in names.into_iter().flatten() {
        if let Some(kind) = by_name(basename(name)) {
            return kind;
        }
    }
    let interpreted = names
        .into_iter()
        .flatten()
        .any(|name| is_interpreter(basename(name)));
    if !interpreted {
        return AgentKind::Generic;
    }
    let Some(script) = script_of(facts.argv) else {
        return AgentKind::Generic;
    };
    by_name(basename(script))
        .or_else(|| {
            AgentKind::ALL.into_iter().find(|kind| {
                kind.spec()
                    .package_markers
                    .iter()
                    .any(|marker| script.contains(marker.as_str()))
            })
        })
        .unwrap_or(AgentKind::Generic)
}

fn by_name(name: &str) -> Option<AgentKind> {
    AgentKind::ALL
        .into_iter()
        .find(|kind| AdapterSpec::has(&kind.spec().process_names, name))
}

fn is_interpreter(name: &str) -> bool {
    INTERPRETERS.contains(&name)
        || name
            .strip_prefix("python")
            .or_else(|| name.strip_prefix("pypy"))
            .is_some_and(|version| version.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// The script an interpreter runs: its first argument that is not an
/// option (`node --max-old-space-size=4096 /x/bin/gemini` → `/x/bin/gemini`;
/// `bun run x.js` → `x.js`).
fn script_of(argv: &[String]) -> Option<&str> {
    argv.iter()
        .skip(1)
        .map(String::as_str)
        .find(|arg| !arg.starts_with('-') && *arg != "run")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts<'a>(argv: &'a [String], exe: Option<&'a str>) -> ProcessFacts<'a> {
        ProcessFacts {
            exe,
            argv,
            agent_env: None,
        }
    }

    #[test]
    fn running_processes_are_recognised_by_name_script_or_package() {
        let cases: &[(&[&str], Option<&str>, AgentKind)] = &[
            // claude 2.1.197: cmdline `claude`, exe `…/bin/claude.exe`.
            (
                &["claude"],
                Some("/x/@anthropic-ai/claude-code/bin/claude.exe"),
                AgentKind::Claude,
            ),
            // gemini 0.61.0 and its relaunched child.
            (
                &["node", "/x/node_modules/.bin/gemini"],
                Some("/usr/bin/node"),
                AgentKind::Gemini,
            ),
            (
                &[
                    "/usr/bin/node",
                    "--max-old-space-size=12052",
                    "/x/node_modules/.bin/gemini",
                ],
                Some("/usr/bin/node"),
                AgentKind::Gemini,
            ),
            // codex 0.171.0: node runs bin/codex, which runs the native one.
            (
                &["node", "/x/node_modules/.bin/codex"],
                None,
                AgentKind::Codex,
            ),
            (
                &["node", "/x/node_modules/@openai/codex/bin/codex.js"],
                None,
                AgentKind::Codex,
            ),
            (&["python3", "/opt/claude"], None, AgentKind::Claude),
            (&["bun", "run", "/x/opencode"], None, AgentKind::Opencode),
            (&["node", "/x/server.js"], None, AgentKind::Generic),
            (&["/bin/sh", "/home/u/bin/claude"], None, AgentKind::Claude),
            (&["bash", "--norc"], None, AgentKind::Generic),
            (&["bash"], Some("/usr/bin/bash"), AgentKind::Generic),
            (&["vim", "claude"], None, AgentKind::Generic),
            (&[], None, AgentKind::Generic),
        ];
        for (argv, exe, want) in cases {
            let argv: Vec<String> = argv.iter().map(|a| (*a).to_owned()).collect();
            assert_eq!(detect_process(&facts(&argv, *exe)), *want, "{argv:?}");
        }
    }

    #[test]
    fn a_wrapper_names_its_agent_in_the_environment() {
        let argv = vec!["my-wrapper".to_owned()];
        let named = ProcessFacts {
            agent_env: Some("codex"),
            ..facts(&argv, None)
        };
        assert_eq!(detect_process(&named), AgentKind::Codex);
        let bogus = ProcessFacts {
            agent_env: Some("nonsense"),
            ..facts(&argv, None)
        };
        assert_eq!(detect_process(&bogus), AgentKind::Generic);
    }
}
