//! The shape of the facts about one agent kind, as read from its data file.
//!
//! Everything signaltty believes about a particular agent CLI lives in one
//! file, `agents/<kind>.toml` (read by `data.rs`): its program name, the
//! shape of its session ids, how its official resume command is spelled, how
//! a session id is preset at launch, which of its flags and subcommands mean
//! "the user is steering sessions themselves", what its hook events mean,
//! where it keeps its sessions, and its screen rules. The rest of the crate
//! is generic over these specs, so when a CLI changes the update is one edit
//! of its data file (plus the tests that pin the new behaviour).
//!
//! How the launch lists are used (see `launch.rs` and `argv.rs`):
//!
//! * `session_flags` — options whose value names a session the process will
//!   continue. A valid id given there is reported as the pane's session id.
//! * `hands_off_flags` — options that pick a session without naming one
//!   (`--continue`), fork one, or make the run something other than a new
//!   persisted interactive session (`--help`, `--version`, listing modes,
//!   protocol servers). With any of them present nothing is inserted and
//!   nothing is learned.
//! * `value_options` — options known to take a *required* value in the next
//!   token. They are only used to skip that value when looking for
//!   positionals, so an incomplete list errs on the side of seeing a
//!   subcommand where there is none (which only suppresses insertion).
//! * `subcommands` — words that, as any positional, mean the run is not an
//!   interactive session. If one is present, argv is left alone.
//! * `resume_subcommand` — the words of a subcommand whose next positional
//!   is the id of the session it resumes (codex's `resume`, amp's `threads
//!   continue`).
//! * `resume_keeps` — the launch options a resume repeats (see
//!   [`ResumeKeeps`] and `resume.rs`); every other launch word is dropped.

use regex::Regex;
use signaltty_types::NewlineKey;

use crate::hook_config::HookConfig;
use crate::hooks::HookRule;
use crate::kind::AgentKind;
use crate::rules::Rules;

/// `[exit]`: what typed into the agent's empty input box ends its session
/// the way it ends one itself (saving it first).
#[derive(Debug, Clone)]
pub(crate) struct ExitRule {
    pub(crate) command: String,
    /// Matches a line of the screen while nothing is typed in the box.
    pub(crate) empty_input: Regex,
}

/// How a session id of one kind must look.
#[derive(Debug, Clone)]
pub(crate) enum IdRule {
    /// A UUID in canonical 8-4-4-4-12 hex form, upper- or lowercase.
    Uuid,
    /// An anchored pattern, on top of the safety rules every id follows
    /// (see `session_id.rs`). `text` is the rule as an error message
    /// states it, ending with an example.
    Pattern { regex: Regex, text: String },
    /// The conservative rule for ids that are only stored and shown:
    /// 1–128 characters of `[A-Za-z0-9._:-]`, not starting with `-`.
    Generic,
}

/// Argv words after the program, one of which carries the session id:
/// `["--resume", "{id}"]`, `["--resume={id}"]`, `["resume", "{id}"]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ArgTemplate {
    /// The words, with [`ArgTemplate::ID`] standing for the id once.
    pub(crate) words: Vec<String>,
}

impl ArgTemplate {
    /// What stands for the session id in a template word.
    pub(crate) const ID: &'static str = "{id}";

    /// The argv elements that pass `id` this way.
    pub(crate) fn tokens(&self, id: &str) -> Vec<String> {
        self.words
            .iter()
            .map(|word| word.replace(Self::ID, id))
            .collect()
    }
}

/// The launch options that are safe to repeat when a session is resumed:
/// they set up the session (model, permission mode, extra directories…)
/// rather than start something (a prompt, a one-shot run, a new worktree).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ResumeKeeps {
    /// Options that take exactly one value (`--model opus`, `--model=opus`).
    pub(crate) values: Vec<String>,
    /// Options that take every following word up to the next option, as
    /// commander's `<dirs...>` and yargs' arrays do (`--add-dir a b`).
    pub(crate) lists: Vec<String>,
    /// Options that take no value (`--dangerously-skip-permissions`).
    pub(crate) switches: Vec<String>,
}

/// Where a session store lives: the first of `env` that the agent's
/// environment sets (plus its suffix), else `$HOME/home_path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StoreRoot {
    /// (variable, suffix), in the agent's own order of precedence.
    pub(crate) env: Vec<(String, String)>,
    pub(crate) home_path: String,
}

/// How an agent keeps its sessions on disk: which reader `discover.rs`
/// uses. The formats are code; where they live is data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StoreFormat {
    /// `<root>/sessions/<pid>.json`, written as soon as the UI is up, with
    /// `sessionId` and `procStart` (the process's start in clock ticks).
    PidFile,
    /// `<root>/tmp/<project>/chats/session-*.jsonl`, the project named by
    /// `<root>/projects.json` from the cwd; first line has `sessionId`.
    ProjectChats,
    /// `<root>/sessions/YYYY/MM/DD/rollout-*.jsonl`, written by a shared
    /// daemon after the first prompt; first line is `session_meta` with the
    /// id and cwd. Matched by cwd and time, never by open descriptors.
    DatedRollouts,
    /// `<root>/storage/session/<project>/ses_*.json` with `id`,
    /// `directory` and `time.updated`.
    SessionFiles,
    /// `<root>/session-state/<id>/inuse.<pid>.lock`: a directory per
    /// session, named by its id, holding a lock named after the process
    /// that has it open — written as soon as the agent starts.
    StateDirs,
    /// JSON Lines files at `files` under the root (`*` is any one name),
    /// whose first line names the session (`id_field`) and its working
    /// directory (`cwd_field`); matched by cwd and time.
    JsonlHeads {
        files: String,
        id_field: String,
        cwd_field: String,
    },
    /// `<root>/chats/<md5 of the cwd>/<id>/`: a directory per chat, named
    /// by its id, under a hash of the workspace path.
    HashedChatDirs,
}

/// A kind's session store: its format and where it lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SessionStore {
    pub(crate) format: StoreFormat,
    pub(crate) root: StoreRoot,
}

/// Everything signaltty knows about one agent CLI.
#[derive(Debug)]
pub(crate) struct AdapterSpec {
    pub(crate) kind: AgentKind,
    /// The executable's basename; `None` for generic panes.
    pub(crate) program: Option<String>,
    pub(crate) id_rule: IdRule,
    /// The official resume command; `None` when there is none.
    pub(crate) resume: Option<ArgTemplate>,
    /// How to give a brand-new session a chosen id at launch.
    pub(crate) preset: Option<ArgTemplate>,
    pub(crate) session_flags: Vec<String>,
    pub(crate) hands_off_flags: Vec<String>,
    pub(crate) value_options: Vec<String>,
    pub(crate) subcommands: Vec<String>,
    /// Short options whose value is a secret (long ones are found by name,
    /// see `secrets.rs`).
    pub(crate) secret_flags: Vec<String>,
    /// Empty when the kind has no resume subcommand.
    pub(crate) resume_subcommand: Vec<String>,
    /// The launch options a resume carries over.
    pub(crate) resume_keeps: ResumeKeeps,
    /// What each of its hook events means (see `hooks.rs`).
    pub(crate) hooks: Vec<HookRule>,
    /// The event word of a hook that reports every event, naming it in
    /// its payload's `type` (see `hooks.rs`).
    pub(crate) hook_relay: Option<String>,
    /// Where it reads its hook configuration (see `hook_config.rs`).
    pub(crate) hook_config: Option<HookConfig>,
    /// Basenames its running process shows as its executable or argv[0],
    /// or as the script an interpreter (node, bun, python…) runs.
    pub(crate) process_names: Vec<String>,
    /// Path fragments of its package: a script path containing one is this
    /// kind whatever the script's own name (`…/@openai/codex/bin/codex.js`).
    pub(crate) package_markers: Vec<String>,
    /// Its screen rules (see `rules.rs`).
    pub(crate) screen: Option<Rules>,
    /// Where it writes its session ids by itself (see `discover.rs`).
    pub(crate) sessions: Option<SessionStore>,
    /// What its input box reads as a new line when it asked for no
    /// keyboard protocol; `None`: nothing known (Enter submits).
    pub(crate) newline_key: Option<NewlineKey>,
    /// How it ends a session from its input box, if that was checked.
    pub(crate) exit: Option<ExitRule>,
}

impl AdapterSpec {
    /// A kind that nothing is known about: generic panes, and a kind whose
    /// bundled data file failed its checks (it is then never detected).
    pub(crate) fn unknown(kind: AgentKind) -> AdapterSpec {
        AdapterSpec {
            kind,
            program: None,
            id_rule: IdRule::Generic,
            resume: None,
            preset: None,
            session_flags: Vec::new(),
            hands_off_flags: Vec::new(),
            value_options: Vec::new(),
            subcommands: Vec::new(),
            secret_flags: Vec::new(),
            resume_subcommand: Vec::new(),
            resume_keeps: ResumeKeeps::default(),
            hooks: Vec::new(),
            hook_relay: None,
            hook_config: None,
            process_names: Vec::new(),
            package_markers: Vec::new(),
            screen: None,
            sessions: None,
            newline_key: None,
            exit: None,
        }
    }

    /// Whether `flag` is one of `list`.
    pub(crate) fn has(list: &[String], flag: &str) -> bool {
        list.iter().any(|f| f == flag)
    }
}

/// Flags that pick a session in one agent CLI or another.
///
/// Policy, not a fact about one kind: if any of these is on a launch command
/// line, the user (or their wrapper, or a newer CLI than the one the specs
/// were checked against) is already steering sessions, so signaltty never
/// adds a preset id next to it. Only consulted before inserting; learning an
/// id uses the kind's own `session_flags`.
pub(crate) const ANY_KIND_SESSION_FLAGS: &[&str] = &[
    "--resume",
    "-r",
    "--continue",
    "-c",
    "--session-id",
    "--fork-session",
    "--fork",
    "--session",
    "--resume-id",
];
