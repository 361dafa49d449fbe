//! The notifier actor: runs the user's notification command when a pane
//! nobody is looking at becomes blocked, finishes or fails.
//!
//! The snapshot actor sees every pane record as it is published, so it is
//! the one place that sees a lifecycle change with what came before; it
//! hands each change into `blocked`, `done` (an agent's turn ended, or the
//! program exited 0) or `failed` of a pane with no attached client to this
//! actor ([`observe`]). This actor owns the rest: the command template from
//! the config, the rate limits, and the running commands. A command runs
//! from its argv, never through a shell, with every placeholder's value
//! cleaned of control characters and escape sequences, bounded, and never
//! able to pass for an option. It is started and reaped on tokio's blocking
//! pool and killed after [`COMMAND_TIMEOUT`]: nothing a command does can
//! hold up a pane, the snapshot actor or this actor. Its failures are
//! logged; its stderr goes to the server's log.
//!
//! The actor runs only when the config has a `[notify]` command; without it
//! [`observe`] finds nobody registered and does nothing.

use std::collections::{HashMap, VecDeque};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ractor::{Actor, ActorProcessingErr, ActorRef};
use signaltty_persistence::Lifecycle;
use signaltty_screen::{MAX_BODY_CHARS, MAX_TITLE_CHARS, sanitize};
use tracing::{info, warn};

use crate::model::{Model, PaneView};
use crate::names;

/// The same pane notifies at most once in this long.
pub const PANE_INTERVAL: Duration = Duration::from_secs(30);
/// At most [`BURST`] notifications in any [`WINDOW`].
pub const BURST: usize = 5;
pub const WINDOW: Duration = Duration::from_secs(60);
/// At most this many commands run at once; a notification beyond that is
/// dropped (and logged), never queued behind a stuck command.
pub const MAX_RUNNING: usize = 4;
/// A command still running after this long is killed.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);
/// Bounds on the template from the config file.
pub const MAX_ARGS: usize = 64;
pub const MAX_ARG_BYTES: usize = 4096;

/// What a pane became.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Blocked,
    Done,
    Failed,
}

impl Outcome {
    fn of(lifecycle: Lifecycle) -> Option<Outcome> {
        match lifecycle {
            Lifecycle::Blocked => Some(Outcome::Blocked),
            Lifecycle::Done | Lifecycle::Exited => Some(Outcome::Done),
            Lifecycle::Failed => Some(Outcome::Failed),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Blocked => "blocked",
            Outcome::Done => "done",
            Outcome::Failed => "failed",
        }
    }
}

/// One pane's change, with everything the placeholders can show.
#[derive(Debug, Clone, PartialEq)]
pub struct PaneChange {
    pub pane: String,
    pub workspace: String,
    pub outcome: Outcome,
    pub pane_title: String,
    pub exit_code: Option<i32>,
    pub message: Option<String>,
    pub cwd: String,
    pub agent: Option<String>,
}

/// Tells the notifier (if one runs) that a pane was published: called by
/// the snapshot actor with the pane's lifecycle before this record, and
/// the model for the workspace's name.
pub fn observe(before: Option<Lifecycle>, view: &PaneView, model: &Model) {
    let record = &view.record;
    let Some(outcome) = Outcome::of(record.lifecycle) else {
        return;
    };
    // A record seen for the first time (a restore, a restarted snapshot
    // actor) is not a change; nor is one someone is watching.
    if before.is_none_or(|b| b == record.lifecycle) || view.watched {
        return;
    }
    let Some(notifier) = names::lookup::<NotifierMsg>(names::NOTIFIER) else {
        return;
    };
    let workspace = model
        .workspaces
        .iter()
        .find(|w| w.id == record.workspace_id)
        .map(|w| w.name.clone())
        .unwrap_or_else(|| record.workspace_id.to_string());
    let _ = notifier.cast(NotifierMsg::Changed(Box::new(PaneChange {
        pane: record.id.to_string(),
        workspace,
        outcome,
        pane_title: record.title.clone(),
        exit_code: record.exit_code,
        message: record.last_message.clone(),
        cwd: record.cwd.clone(),
        agent: record.agent.as_ref().map(|a| a.kind.to_string()),
    })));
}

/// What a placeholder stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Title,
    Body,
    State,
    Pane,
    Workspace,
    Cwd,
    Agent,
}

impl Field {
    const ALL: [(&'static str, Field); 7] = [
        ("title", Field::Title),
        ("body", Field::Body),
        ("state", Field::State),
        ("pane", Field::Pane),
        ("workspace", Field::Workspace),
        ("cwd", Field::Cwd),
        ("agent", Field::Agent),
    ];
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Field(Field),
}

/// The command from the config: a program and arguments with placeholders
/// (`{title}`, `{body}`, `{state}`, `{pane}`, `{workspace}`, `{cwd}`,
/// `{agent}`; `{{` and `}}` for braces).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandTemplate {
    program: String,
    args: Vec<Vec<Piece>>,
}

/// A template the config cannot have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    #[error("the command is empty; give the program and its arguments")]
    Empty,
    #[error("the command has {0} words, more than {MAX_ARGS}")]
    TooManyArgs(usize),
    #[error("a word of the command is longer than {MAX_ARG_BYTES} bytes")]
    ArgTooLong,
    #[error("the program ({0:?}) must be a plain path, without placeholders or control characters")]
    BadProgram(String),
    #[error(
        "{0:?} is not a placeholder; use {{title}}, {{body}}, {{state}}, {{pane}}, \
         {{workspace}}, {{cwd}} or {{agent}} ({{{{ and }}}} for braces)"
    )]
    UnknownPlaceholder(String),
}

impl CommandTemplate {
    pub fn parse(argv: &[String]) -> Result<CommandTemplate, TemplateError> {
        let (program, args) = argv.split_first().ok_or(TemplateError::Empty)?;
        if argv.len() > MAX_ARGS {
            return Err(TemplateError::TooManyArgs(argv.len()));
        }
        if argv.iter().any(|a| a.len() > MAX_ARG_BYTES) {
            return Err(TemplateError::ArgTooLong);
        }
        if program.is_empty()
            || program.contains(['{', '}'])
            || program.chars().any(char::is_control)
        {
            return Err(TemplateError::BadProgram(program.clone()));
        }
        Ok(CommandTemplate {
            program: program.clone(),
            args: args.iter().map(|a| pieces(a)).collect::<Result<_, _>>()?,
        })
    }

    /// The argv for `change`: each placeholder replaced by its cleaned
    /// value. A word the user wrote as an option stays one; a word that
    /// only became option-like through a value gets a leading space, so a
    /// pane's title can never turn into a flag of the command.
    pub fn render(&self, change: &PaneChange) -> Vec<String> {
        let mut argv = vec![self.program.clone()];
        for word in &self.args {
            let mut arg = String::new();
            for piece in word {
                match piece {
                    Piece::Text(text) => arg.push_str(text),
                    Piece::Field(field) => arg.push_str(&value(*field, change)),
                }
            }
            let written_as_option =
                matches!(word.first(), Some(Piece::Text(t)) if t.starts_with('-'));
            if arg.starts_with('-') && !written_as_option {
                arg.insert(0, ' ');
            }
            argv.push(arg);
        }
        argv
    }
}

/// Splits one word of the template into text and placeholders.
fn pieces(word: &str) -> Result<Vec<Piece>, TemplateError> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('{', Some('{')) | ('}', Some('}')) => {
                chars.next();
                text.push(c);
            }
            ('{', _) => {
                let mut name = String::new();
                let mut closed = false;
                for c in chars.by_ref() {
                    if c == '}' {
                        closed = true;
                        break;
                    }
                    name.push(c);
                }
                if !closed {
                    return Err(TemplateError::UnknownPlaceholder(format!("{{{name}")));
                }
                let field = Field::ALL
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, f)| *f)
                    .ok_or_else(|| TemplateError::UnknownPlaceholder(format!("{{{name}}}")))?;
                if !text.is_empty() {
                    out.push(Piece::Text(std::mem::take(&mut text)));
                }
                out.push(Piece::Field(field));
            }
            ('}', _) => return Err(TemplateError::UnknownPlaceholder("}".into())),
            _ => text.push(c),
        }
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    Ok(out)
}

/// A placeholder's value, cleaned and bounded.
fn value(field: Field, change: &PaneChange) -> String {
    let title_of_pane = if change.pane_title.is_empty() {
        change.pane.clone()
    } else {
        change.pane_title.clone()
    };
    let raw = match field {
        Field::Title => match (change.outcome, change.exit_code) {
            (Outcome::Blocked, _) => format!("{title_of_pane} needs you"),
            (Outcome::Done, _) => format!("{title_of_pane} is done"),
            (Outcome::Failed, Some(code)) => format!("{title_of_pane} failed (exit {code})"),
            (Outcome::Failed, None) => format!("{title_of_pane} failed"),
        },
        Field::Body => match &change.message {
            Some(message) if !message.is_empty() => message.clone(),
            _ => format!("{} · {}", change.workspace, change.cwd),
        },
        Field::State => change.outcome.as_str().to_string(),
        Field::Pane => change.pane.clone(),
        Field::Workspace => change.workspace.clone(),
        Field::Cwd => change.cwd.clone(),
        Field::Agent => change.agent.clone().unwrap_or_default(),
    };
    let max = if field == Field::Body {
        MAX_BODY_CHARS
    } else {
        MAX_TITLE_CHARS
    };
    sanitize(&raw, max)
}

/// The limits on how often commands run. Pure, so it is tested with a
/// clock of its own.
#[derive(Debug, Default)]
struct RateLimit {
    last_per_pane: HashMap<String, Instant>,
    recent: VecDeque<Instant>,
}

impl RateLimit {
    fn allow(&mut self, pane: &str, now: Instant) -> bool {
        self.last_per_pane
            .retain(|_, at| now.duration_since(*at) < PANE_INTERVAL);
        while self
            .recent
            .front()
            .is_some_and(|at| now.duration_since(*at) >= WINDOW)
        {
            self.recent.pop_front();
        }
        if self.last_per_pane.contains_key(pane) || self.recent.len() >= BURST {
            return false;
        }
        self.last_per_pane.insert(pane.to_string(), now);
        self.recent.push_back(now);
        true
    }
}

pub enum NotifierMsg {
    Changed(Box<PaneChange>),
    /// A command ended: how, for the log.
    Finished {
        pane: String,
        result: Result<(), String>,
    },
}

pub struct NotifierArgs {
    pub template: CommandTemplate,
}

pub struct NotifierActor;

pub struct Notifier {
    template: CommandTemplate,
    limit: RateLimit,
    running: usize,
}

impl Actor for NotifierActor {
    type Msg = NotifierMsg;
    type State = Notifier;
    type Arguments = NotifierArgs;

    async fn pre_start(
        &self,
        _myself: ActorRef<NotifierMsg>,
        args: NotifierArgs,
    ) -> Result<Notifier, ActorProcessingErr> {
        Ok(Notifier {
            template: args.template,
            limit: RateLimit::default(),
            running: 0,
        })
    }

    async fn handle(
        &self,
        myself: ActorRef<NotifierMsg>,
        msg: NotifierMsg,
        state: &mut Notifier,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            NotifierMsg::Changed(change) => state.notify(&myself, &change),
            NotifierMsg::Finished { pane, result } => {
                state.running = state.running.saturating_sub(1);
                match result {
                    Ok(()) => info!(pane = %pane, "notification command done"),
                    Err(e) => warn!(pane = %pane, error = %e, "notification command failed"),
                }
            }
        }
        Ok(())
    }
}

impl Notifier {
    fn notify(&mut self, myself: &ActorRef<NotifierMsg>, change: &PaneChange) {
        let state = change.outcome.as_str();
        if !self.limit.allow(&change.pane, Instant::now()) {
            info!(pane = %change.pane, state, "notification rate-limited; not run");
            return;
        }
        if self.running >= MAX_RUNNING {
            warn!(pane = %change.pane, state, running = self.running, "notification commands still running; this one is dropped");
            return;
        }
        self.running += 1;
        let argv = self.template.render(change);
        let pane = change.pane.clone();
        let myself = myself.clone();
        info!(pane = %pane, state, "running the notification command");
        tokio::spawn(async move {
            let result = tokio::task::spawn_blocking(move || run(&argv, COMMAND_TIMEOUT))
                .await
                .unwrap_or_else(|e| Err(format!("its task failed: {e}")));
            let _ = myself.cast(NotifierMsg::Finished { pane, result });
        });
    }
}

/// Runs `argv` (no shell), waits for it at most `timeout` and reaps it,
/// killing it if it is still running. Blocking: call it off the async
/// workers.
pub fn run(argv: &[String], timeout: Duration) -> Result<(), String> {
    let (program, args) = argv.split_first().ok_or("an empty command")?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .map_err(|e| format!("could not run {program}: {e}"))?;
    let deadline = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => return Err(format!("{program} ended with {status}")),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{program} was still running after {}s and was killed",
                    timeout.as_secs()
                ));
            }
            Err(e) => return Err(format!("could not wait for {program}: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template(words: &[&str]) -> Result<CommandTemplate, TemplateError> {
        CommandTemplate::parse(&words.iter().map(|w| w.to_string()).collect::<Vec<_>>())
    }

    fn change() -> PaneChange {
        PaneChange {
            pane: "p1".into(),
            workspace: "api".into(),
            outcome: Outcome::Failed,
            pane_title: "cargo test".into(),
            exit_code: Some(101),
            message: None,
            cwd: "/src/api".into(),
            agent: Some("claude".into()),
        }
    }

    #[test]
    fn placeholders_are_filled_and_braces_escaped() {
        let t = template(&[
            "notify-send",
            "-a",
            "signaltty",
            "{title}",
            "{body}",
            "[{state}] {pane} in {workspace} {{x}} {agent}",
        ])
        .unwrap();
        assert_eq!(
            t.render(&change()),
            [
                "notify-send",
                "-a",
                "signaltty",
                "cargo test failed (exit 101)",
                "api · /src/api",
                "[failed] p1 in api {x} claude"
            ]
        );
        let mut blocked = change();
        blocked.outcome = Outcome::Blocked;
        blocked.message = Some("Claude needs your permission to use Bash".into());
        assert_eq!(
            t.render(&blocked)[3..5],
            [
                "cargo test needs you",
                "Claude needs your permission to use Bash"
            ]
        );
    }

    #[test]
    fn values_are_cleaned_bounded_and_never_become_options() {
        let t = template(&["n", "{title}", "{body}", "--urgency={state}", "x{body}"]).unwrap();
        let mut hostile = change();
        hostile.pane_title = "--evil\x1b]0;x\x07\nline".into();
        hostile.message = Some(format!("-rf $(touch /tmp/x)\r\n{}", "é".repeat(5000)));
        let argv = t.render(&hostile);
        assert!(argv[1].starts_with(" --evil"), "{argv:?}");
        assert!(
            argv.iter().all(|a| !a.chars().any(char::is_control)),
            "{argv:?}"
        );
        assert!(argv[2].starts_with(" -rf $(touch /tmp/x)"), "{argv:?}");
        assert!(argv[2].chars().count() <= MAX_BODY_CHARS + 1);
        // The user's own option is kept as an option.
        assert_eq!(argv[3], "--urgency=failed");
        assert!(argv[4].starts_with("x-rf"));
    }

    #[test]
    fn bad_templates_are_refused_saying_why() {
        assert_eq!(template(&[]), Err(TemplateError::Empty));
        assert!(matches!(
            template(&["{title}"]),
            Err(TemplateError::BadProgram(_))
        ));
        let err = template(&["n", "{titel}"]).unwrap_err().to_string();
        assert!(err.contains("{titel}") && err.contains("{title}"), "{err}");
        assert!(template(&["n", "{title"]).is_err());
        assert!(template(&["n", "a}b"]).is_err());
        assert!(matches!(
            template(&vec!["n"; MAX_ARGS + 1]),
            Err(TemplateError::TooManyArgs(_))
        ));
        assert_eq!(
            template(&["n", &"x".repeat(MAX_ARG_BYTES + 1)]),
            Err(TemplateError::ArgTooLong)
        );
    }

    #[test]
    fn rate_limits_hold_per_pane_and_overall() {
        let mut limit = RateLimit::default();
        let t0 = Instant::now();
        assert!(limit.allow("a", t0));
        assert!(
            !limit.allow("a", t0 + Duration::from_secs(1)),
            "same pane too soon"
        );
        assert!(limit.allow("a", t0 + PANE_INTERVAL));
        let t1 = t0 + PANE_INTERVAL;
        for (i, pane) in ["b", "c", "d"].iter().enumerate() {
            assert!(
                limit.allow(pane, t1 + Duration::from_millis(i as u64)),
                "{pane}"
            );
        }
        // Five in the window (a twice, b, c, d): the sixth waits.
        assert!(!limit.allow("e", t1 + Duration::from_secs(1)));
        assert!(limit.allow("e", t0 + WINDOW + Duration::from_secs(1)));
        // The per-pane memory is bounded by what is recent.
        assert!(limit.last_per_pane.len() <= BURST);
    }

    #[test]
    fn a_command_is_reaped_and_a_stuck_one_killed() {
        assert_eq!(run(&["true".into()], Duration::from_secs(5)), Ok(()));
        let err = run(&["false".into()], Duration::from_secs(5)).unwrap_err();
        assert!(err.contains("false ended"), "{err}");
        let err = run(&["/nonexistent/notify".into()], Duration::from_secs(5)).unwrap_err();
        assert!(err.contains("could not run /nonexistent/notify"), "{err}");
        let started = Instant::now();
        let err = run(&["sleep".into(), "30".into()], Duration::from_millis(200)).unwrap_err();
        assert!(err.contains("killed"), "{err}");
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}
