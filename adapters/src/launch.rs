//! [`plan_launch`]: giving a new agent session a known id from its first
//! second.

use crate::argv::{Invocation, scan, split};
use crate::detect::detect;
use crate::kind::AgentKind;
use crate::kind::Spec;
use crate::kinds::AdapterSpec;
use crate::session_id::{SessionId, validate_session_id};

/// What to spawn for a pane, and the session id it will have if known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchPlan {
    /// The argv to spawn: the one given, or that one with a preset id added.
    pub argv: Vec<String>,
    /// The id the agent's session will have, when it is known before spawn.
    pub session_id: Option<SessionId>,
}

/// Plans the launch of `argv`, presetting the session id where the agent
/// allows it.
///
/// `fresh_uuid` is a new UUID from the caller (the server makes a v4 one), so
/// that this function stays pure. It is validated like any other id; if it
/// is not a UUID, nothing is inserted.
///
/// In order:
/// 1. An argv that is empty or unreadable, or of a kind with no flags known
///    (generic), is returned unchanged with no id.
/// 2. A kind's resume subcommand (`codex … resume <uuid> …`, `amp threads
///    continue <id>`: its words are the first positionals and the id the
///    next one) is returned unchanged with that id; not with `--last`, nor
///    when a name follows.
/// 3. If the user is steering sessions or not starting an interactive
///    session — a positional that is one of the kind's non-interactive
///    subcommands (`claude mcp`, `codex exec`, `gemini extensions`…; any
///    positional, not just the first, to err on the safe side), or a
///    hands-off flag (`--continue`, `-c`, `--fork-session`, `--help`…, see
///    the kind's data file) — argv is returned unchanged with no id.
/// 4. If the kind's own session flags name a session (`--resume X`,
///    `--resume=X`, `-r X`, `--session-id X`, `--session-id=X`, opencode's
///    `--session X`), argv is returned unchanged, and the id is reported when
///    every such flag names the same valid id; a bare `--resume`, a search
///    term or a name gives no id.
/// 5. A flag that picks a session in *any* agent CLI (`--resume`, `-r`,
///    `--continue`, `-c`, `--session-id`, `--fork-session`, `--fork`,
///    `--session`) also leaves argv unchanged, with no id.
/// 6. A kind with a preset flag gets it right after the program (after any
///    `env` prefix) — claude, gemini and qwen `--session-id <uuid>`, copilot
///    `--session-id=<uuid>` — and the uuid is reported. The others have no
///    such flag: unchanged, no id.
///
/// Options are read up to a `--`; what follows is never read as an option
/// (so `claude -- --resume` still gets an id), though a subcommand name there
/// still counts as a subcommand. `resume <uuid>` is only recognised before
/// `--`.
pub fn plan_launch(argv: &[String], fresh_uuid: &str) -> LaunchPlan {
    let session_id = match split(argv) {
        Some(invocation) => {
            let kind = detect(argv);
            match decide(kind, kind.spec(), &invocation, fresh_uuid) {
                Decision::Keep(id) => id,
                Decision::Insert(id, tokens) => {
                    let at = invocation.program_index() + 1;
                    let mut planned = argv[..at].to_vec();
                    planned.extend(tokens);
                    planned.extend_from_slice(&argv[at..]);
                    return LaunchPlan {
                        argv: planned,
                        session_id: Some(id),
                    };
                }
            }
        }
        None => None,
    };
    LaunchPlan {
        argv: argv.to_vec(),
        session_id,
    }
}

/// What [`plan_launch`] does with an argv.
enum Decision {
    /// Spawn argv as given; the session id, if argv names one.
    Keep(Option<SessionId>),
    /// Add these tokens after the program; the session will have this id.
    Insert(SessionId, Vec<String>),
}

fn decide(
    kind: AgentKind,
    spec: &AdapterSpec,
    invocation: &Invocation<'_>,
    fresh_uuid: &str,
) -> Decision {
    let scan = scan(spec, invocation.args);

    let words = spec.resume_subcommand.len();
    if words > 0
        && scan.positionals.len() >= words
        && scan.positionals[..words]
            .iter()
            .zip(&spec.resume_subcommand)
            .all(|(word, sub)| word == sub)
    {
        let id = if scan.hands_off || !scan.session_values.is_empty() {
            None
        } else {
            scan.positionals
                .get(words)
                .and_then(|word| validate_session_id(kind, word).ok())
        };
        return Decision::Keep(id);
    }

    // Any positional, not only the first, and words after `--` too: some
    // parsers dispatch a subcommand named after `--`, and a missed insertion
    // costs less than a preset id added to `claude mcp …`.
    let runs_subcommand = scan
        .positionals
        .iter()
        .copied()
        .chain(scan.trailing.iter().map(String::as_str))
        .any(|word| AdapterSpec::has(&spec.subcommands, word));
    if runs_subcommand || scan.hands_off {
        return Decision::Keep(None);
    }

    if !scan.session_values.is_empty() {
        return Decision::Keep(one_valid_id(kind, &scan.session_values));
    }

    if scan.any_kind_session_flag {
        return Decision::Keep(None);
    }

    match (&spec.preset, validate_session_id(kind, fresh_uuid)) {
        (Some(flag), Ok(id)) => {
            let tokens = flag.tokens(id.as_str());
            Decision::Insert(id, tokens)
        }
        _ => Decision::Keep(None),
    }
}

/// The id named by every session flag, if they all name the same valid one.
fn one_valid_id(kind: AgentKind, values: &[Option<&str>]) -> Option<SessionId> {
    let (first, rest) = values.split_first()?;
    let id = validate_session_id(kind, (*first)?).ok()?;
    rest.iter()
        .all(|value| *value == Some(id.as_str()))
        .then_some(id)
}
