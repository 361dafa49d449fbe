//! [`resume_argv`]: the official command that resumes a session, with the
//! launch options that are safe to repeat.

use crate::argv::{basename, split};
use crate::error::AdapterError;
use crate::kind::AgentKind;
use crate::kind::Spec;
use crate::kinds::{AdapterSpec, ArgTemplate};
use crate::session_id::{SessionId, validate_session_id};

/// What a resume runs, and what of the launch command it left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumeCommand {
    /// The argv to run.
    pub argv: Vec<String>,
    /// The launch words it repeats (options and their values), in order.
    pub kept: Vec<String>,
    /// The launch words it leaves out, in order: options that are not on
    /// the kind's `resume_keeps`, with their values, and positionals (a
    /// prompt is never sent twice).
    pub dropped: Vec<String>,
}

/// The command that resumes session `id` of a `kind` agent first started
/// as `launch_argv`.
///
/// The words after the program are the kind's `resume` in its data file
/// (`claude --resume <id>`, `codex resume <id>`, `copilot --resume=<id>`,
/// `kiro-cli chat --resume-id <id>`…; README.md has the table). A kind with
/// none (generic, grok, aider) is [`AdapterError::NoOfficialResume`].
///
/// From `launch_argv`, three things carry over:
/// * a leading `env …` prefix, verbatim: it holds settings such as
///   `CLAUDE_CONFIG_DIR` that the resumed process needs to find its session;
/// * the program as written (`/opt/bin/claude`, `./node_modules/.bin/claude`)
///   when its basename is the kind's program; otherwise the bare program
///   name is used, to be found on `PATH`;
/// * the launch options on the kind's `resume_keeps` (model, permission
///   mode, extra directories, profile…), with their values, after the
///   resume words: `claude --model X --permission-mode plan` resumes as
///   `claude --resume <id> --model X --permission-mode plan`.
///
/// Every other launch word is dropped and listed in
/// [`ResumeCommand::dropped`], except the words that named a session (the
/// kind's session flags and their values, its resume subcommand and id),
/// which the resume words replace. When the launch program is not the
/// agent (a shell it was typed into), its arguments are not the agent's:
/// nothing is kept or dropped. A `launch_argv` that is empty or cannot be
/// read (see [`crate::detect`]) contributes nothing.
///
/// `id` is checked again against `kind`'s rule, so an id validated for a kind
/// with another rule (an opencode id handed to claude) is refused with
/// [`AdapterError::InvalidSessionId`] instead of reaching an argv.
pub fn resume_argv(
    kind: AgentKind,
    launch_argv: &[String],
    id: &SessionId,
) -> Result<ResumeCommand, AdapterError> {
    let spec = kind.spec();
    let (Some(shape), Some(program)) = (&spec.resume, spec.program.as_deref()) else {
        return Err(AdapterError::NoOfficialResume { kind });
    };
    let id = validate_session_id(kind, id.as_str())?;

    let (env_prefix, program, sorted) = match split(launch_argv) {
        Some(launch) if basename(launch.program) == program => (
            launch.env_prefix,
            launch.program,
            sort_launch_words(spec, shape, launch.args),
        ),
        Some(launch) => (launch.env_prefix, program, Sorted::default()),
        None => (&[][..], program, Sorted::default()),
    };

    let mut argv = env_prefix.to_vec();
    argv.push(program.to_owned());
    argv.extend(shape.tokens(id.as_str()));
    argv.extend(sorted.kept.iter().cloned());
    Ok(ResumeCommand {
        argv,
        kept: sorted.kept,
        dropped: sorted.dropped,
    })
}

/// The launch arguments, sorted into what a resume keeps and drops.
#[derive(Debug, Default)]
struct Sorted {
    kept: Vec<String>,
    dropped: Vec<String>,
}

/// What one launch word is to a resume.
enum Word {
    /// It named the session: the resume words replace it (and its value).
    Session { with_value: bool },
    /// A kept option: its value, its values up to the next option, or none.
    Keep(Arity),
    /// Dropped, with its value when it takes one.
    Drop { with_value: bool },
}

#[derive(Clone, Copy)]
enum Arity {
    /// One value, in the next word or after `=`.
    One,
    List,
    None,
}

/// Sorts `args` (everything after the program) with `spec`'s lists. Options
/// are read as in `argv::scan`: `--name` and `--name=value` by `--name`, a
/// short option as it is; a cluster of short options (`-xyz`) is dropped
/// whole, since what its letters take cannot be told safely. After `--`
/// everything is dropped.
fn sort_launch_words(spec: &AdapterSpec, shape: &ArgTemplate, args: &[String]) -> Sorted {
    let mut out = Sorted::default();
    let mut positionals: Vec<&str> = Vec::new();
    let mut at = 0;
    while let Some(token) = args.get(at) {
        at += 1;
        if token == "--" {
            out.dropped.extend(args[at - 1..].iter().cloned());
            break;
        }
        let (name, inline) = match token.split_once('=') {
            Some((name, _)) if token.starts_with("--") => (name, true),
            _ => (token.as_str(), false),
        };
        let word = if token.starts_with('-') && token.len() > 1 {
            option_word(spec, shape, name)
        } else {
            let word = positional_word(spec, shape, &positionals, token);
            positionals.push(token);
            word
        };
        let next_is_value = !inline && args.get(at).is_some_and(|w| !w.starts_with('-'));
        let end = match word {
            // An id never starts with `-`: a bare `--resume` is followed by
            // the next option, not by its value.
            Word::Session { with_value } => at + usize::from(with_value && next_is_value),
            Word::Drop { with_value } => at + usize::from(with_value && !inline && at < args.len()),
            Word::Keep(Arity::One) => at + usize::from(!inline && at < args.len()),
            Word::Keep(Arity::None) => at,
            Word::Keep(Arity::List) if inline => at,
            Word::Keep(Arity::List) => {
                at + args[at..]
                    .iter()
                    .take_while(|w| !w.starts_with('-'))
                    .count()
            }
        };
        let words = args[at - 1..end].iter().cloned();
        match word {
            Word::Session { .. } => {}
            Word::Keep(_) => out.kept.extend(words),
            Word::Drop { .. } => out.dropped.extend(words),
        }
        at = end;
    }
    out
}

fn option_word(spec: &AdapterSpec, shape: &ArgTemplate, name: &str) -> Word {
    let keeps = &spec.resume_keeps;
    if AdapterSpec::has(&spec.session_flags, name) {
        Word::Session { with_value: true }
    } else if shape.words.iter().any(|w| w == name) {
        Word::Session { with_value: false }
    } else if AdapterSpec::has(&keeps.values, name) {
        Word::Keep(Arity::One)
    } else if AdapterSpec::has(&keeps.lists, name) {
        Word::Keep(Arity::List)
    } else if AdapterSpec::has(&keeps.switches, name) {
        Word::Keep(Arity::None)
    } else {
        Word::Drop {
            with_value: AdapterSpec::has(&spec.value_options, name),
        }
    }
}

/// A positional, after the `before` ones: the words of the resume
/// command's own subcommand (`codex resume`, `kiro-cli chat`) at the start
/// and, after a resume subcommand, its id, name the session; every other
/// positional (a prompt, a project path) is dropped.
fn positional_word(spec: &AdapterSpec, shape: &ArgTemplate, before: &[&str], token: &str) -> Word {
    let mut leading = shape
        .words
        .iter()
        .take_while(|w| !w.starts_with('-') && !w.contains(ArgTemplate::ID));
    let starts_the_command = before
        .iter()
        .all(|b| leading.next().is_some_and(|w| w == b))
        && leading.next().is_some_and(|w| w == token);
    let subcommand = &spec.resume_subcommand;
    let is_its_id = !subcommand.is_empty() && before == subcommand.as_slice();
    if starts_the_command || is_its_id {
        Word::Session { with_value: false }
    } else {
        Word::Drop { with_value: false }
    }
}
