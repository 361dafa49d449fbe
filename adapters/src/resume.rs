//! [`resume_argv`]: the official command that resumes a session.

use crate::argv::{basename, split};
use crate::error::AdapterError;
use crate::kind::AgentKind;
use crate::session_id::{SessionId, validate_session_id};

/// The argv that resumes session `id` of a `kind` agent first started as
/// `launch_argv`.
///
/// The words after the program are the kind's `resume` in its data file
/// (`claude --resume <id>`, `codex resume <id>`, `copilot --resume=<id>`,
/// `kiro-cli chat --resume-id <id>`…; README.md has the table). A kind with
/// none (generic, grok, aider) is [`AdapterError::NoOfficialResume`].
///
/// From `launch_argv`, two things carry over:
/// * a leading `env …` prefix, verbatim: it holds settings such as
///   `CLAUDE_CONFIG_DIR` that the resumed process needs to find its session;
/// * the program as written (`/opt/bin/claude`, `./node_modules/.bin/claude`)
///   when its basename is the kind's program; otherwise the bare program
///   name is used, to be found on `PATH`.
///
/// Every other launch argument is dropped: the resume command is the
/// official one and nothing else, so a saved flag can never be replayed
/// behind the user's back. A `launch_argv` that is empty or cannot be read
/// (see [`crate::detect`]) contributes nothing.
///
/// `id` is checked again against `kind`'s rule, so an id validated for a kind
/// with another rule (an opencode id handed to claude) is refused with
/// [`AdapterError::InvalidSessionId`] instead of reaching an argv.
pub fn resume_argv(
    kind: AgentKind,
    launch_argv: &[String],
    id: &SessionId,
) -> Result<Vec<String>, AdapterError> {
    let spec = kind.spec();
    let (Some(shape), Some(program)) = (&spec.resume, spec.program.as_deref()) else {
        return Err(AdapterError::NoOfficialResume { kind });
    };
    let id = validate_session_id(kind, id.as_str())?;

    let (env_prefix, program) = match split(launch_argv) {
        Some(launch) if basename(launch.program) == program => (launch.env_prefix, launch.program),
        Some(launch) => (launch.env_prefix, program),
        None => (&[][..], program),
    };

    let mut argv = env_prefix.to_vec();
    argv.push(program.to_owned());
    argv.extend(shape.tokens(id.as_str()));
    Ok(argv)
}
