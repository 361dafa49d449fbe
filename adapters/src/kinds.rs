//! The facts table: one [`AdapterSpec`] per agent kind.
//!
//! Everything signaltty believes about a particular agent CLI lives in this
//! file and nowhere else: its program name, the shape of its session ids, how
//! its official resume command is spelled, how a session id is preset at
//! launch, and which of its flags and subcommands mean "the user is steering
//! sessions themselves". The rest of the crate is generic over these tables,
//! so when a CLI changes, the update is one edit here (plus the tests that pin
//! the new behaviour).
//!
//! Each spec says which CLI version its facts were checked against. The
//! checks were done by installing the CLIs from npm into a scratch directory
//! and running their `--help` output offline (plus reading the shipped
//! bundles where `--help` was not specific enough). Facts that could not be
//! checked against a real binary say so.
//!
//! How the lists are used (see `launch.rs` and `argv.rs`):
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
//!   Options with *optional* values are deliberately left out, for the same
//!   reason.
//! * `subcommands` — top-level subcommands that do not start an interactive
//!   session. If any positional token equals one of them, argv is left alone.
//! * `resume_subcommand` — a subcommand whose first positional is the id of
//!   the session it resumes (codex's `resume`).

use crate::kind::AgentKind;

/// How a session id of one kind must look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IdRule {
    /// A UUID in canonical 8-4-4-4-12 hex form, upper- or lowercase.
    Uuid,
    /// A fixed ASCII prefix followed by exactly `len` ASCII letters or digits.
    /// `text` is the rule as an error message states it, with an example.
    Prefixed {
        prefix: &'static str,
        len: usize,
        text: &'static str,
    },
    /// The conservative rule for ids that are only stored and shown:
    /// 1–128 characters of `[A-Za-z0-9._:-]`, not starting with `-`.
    Generic,
}

/// How an option carrying a session id is spelled on a command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FlagShape {
    /// `--flag <id>`: two argv elements.
    Separate(&'static str),
    /// `--flag=<id>`: one argv element.
    Joined(&'static str),
}

impl FlagShape {
    /// The argv elements that pass `id` through this flag.
    pub(crate) fn tokens(self, id: &str) -> Vec<String> {
        match self {
            FlagShape::Separate(flag) => vec![flag.to_owned(), id.to_owned()],
            FlagShape::Joined(flag) => vec![format!("{flag}={id}")],
        }
    }
}

/// The shape of a kind's official resume command, after the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ResumeShape {
    /// `program <flag> <id>` or `program <flag>=<id>`.
    Flag(FlagShape),
    /// `program <subcommand> <id>`.
    Subcommand(&'static str),
}

impl ResumeShape {
    /// The argv elements after the program that resume session `id`.
    pub(crate) fn tokens(self, id: &str) -> Vec<String> {
        match self {
            ResumeShape::Flag(flag) => flag.tokens(id),
            ResumeShape::Subcommand(sub) => vec![sub.to_owned(), id.to_owned()],
        }
    }
}

/// Where a session store lives: `$env` (plus `env_suffix`) when the
/// agent's environment sets it, else `$HOME/home_path`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StoreRoot {
    pub(crate) env: &'static str,
    pub(crate) env_suffix: &'static str,
    pub(crate) home_path: &'static str,
}

/// How an agent keeps its sessions on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SessionStore {
    /// `<root>/sessions/<pid>.json`, written as soon as the UI is up, with
    /// `sessionId` and `procStart` (the process's start in clock ticks).
    PidFile(StoreRoot),
    /// `<root>/tmp/<project>/chats/session-*.jsonl`, the project named by
    /// `<root>/projects.json` from the cwd; first line has `sessionId`.
    ProjectChats(StoreRoot),
    /// `<root>/sessions/YYYY/MM/DD/rollout-*.jsonl`, written by a shared
    /// daemon after the first prompt; first line is `session_meta` with the
    /// id and cwd. Matched by cwd and time, never by open descriptors.
    DatedRollouts(StoreRoot),
    /// `<root>/storage/session/<project>/ses_*.json` with `id`,
    /// `directory` and `time.updated`.
    SessionFiles(StoreRoot),
    /// `<root>/session-state/<id>/inuse.<pid>.lock`: a directory per
    /// session, named by its id, holding a lock named after the process
    /// that has it open — written as soon as the agent starts.
    StateDirs(StoreRoot),
}

/// Everything signaltty knows about one agent CLI.
#[derive(Debug)]
pub(crate) struct AdapterSpec {
    pub(crate) kind: AgentKind,
    /// The kind's name as written in config, IPC and snapshots.
    pub(crate) name: &'static str,
    /// The executable's basename; `None` for generic panes.
    pub(crate) program: Option<&'static str>,
    pub(crate) id_rule: IdRule,
    /// The official resume command; `None` when there is none.
    pub(crate) resume: Option<ResumeShape>,
    /// How to give a brand-new session a chosen id at launch.
    pub(crate) preset: Option<FlagShape>,
    pub(crate) session_flags: &'static [&'static str],
    pub(crate) hands_off_flags: &'static [&'static str],
    pub(crate) value_options: &'static [&'static str],
    pub(crate) subcommands: &'static [&'static str],
    pub(crate) resume_subcommand: Option<&'static str>,
    /// What each of its hook events means (see `hooks.rs`).
    pub(crate) hooks: &'static [crate::hooks::HookRule],
    /// Basenames its running process shows as its executable or argv[0],
    /// or as the script an interpreter (node, bun, python…) runs.
    pub(crate) process_names: &'static [&'static str],
    /// Path fragments of its package: a script path containing one is this
    /// kind whatever the script's own name (`…/@openai/codex/bin/codex.js`).
    pub(crate) package_markers: &'static [&'static str],
    /// Its screen rules, a TOML file (see `rules.rs` and `agents/`).
    pub(crate) screen_rules: Option<&'static str>,
    /// Where it writes its session ids by itself (see `discover.rs`).
    pub(crate) sessions: Option<SessionStore>,
    /// Where these facts come from; kept for people, not read by code.
    #[allow(dead_code)]
    pub(crate) checked_against: &'static str,
}

/// Claude Code.
///
/// Checked against claude 2.1.197 (`claude --help`, and the option handling
/// in the shipped binary):
/// * `-r, --resume [value]` resumes "by session ID, or open interactive
///   picker with optional search term" — so a bare `--resume` opens a picker
///   and a non-UUID value is a search term.
/// * `--session-id <uuid>` "must be a valid UUID"; the binary refuses it
///   together with `--continue`/`--resume` unless `--fork-session` is also
///   given (the fork then gets that id). We report no id whenever
///   `--fork-session` is present rather than model that case.
/// * `-c, --continue`, `--fork-session`, `--from-pr [value]` pick sessions
///   without naming one.
/// * `--no-session-persistence` saves nothing, so there is nothing to resume;
///   `--bg/--background` hands the session to a background agent and exits.
/// * Subcommands: agents, auth, auto-mode, doctor, gateway, install, mcp,
///   plugin|plugins, project, setup-token, ultrareview, update|upgrade, plus
///   the hidden `remote-control`, and `config`/`migrate-installer` from
///   earlier 1.x/2.0 releases. A prompt is a positional, so any other first
///   positional is the start of an interactive session.
pub(crate) const CLAUDE: AdapterSpec = AdapterSpec {
    kind: AgentKind::Claude,
    name: "claude",
    program: Some("claude"),
    id_rule: IdRule::Uuid,
    resume: Some(ResumeShape::Flag(FlagShape::Separate("--resume"))),
    preset: Some(FlagShape::Separate("--session-id")),
    session_flags: &["--resume", "-r", "--session-id"],
    hands_off_flags: &[
        "--continue",
        "-c",
        "--fork-session",
        "--from-pr",
        "--no-session-persistence",
        "--bg",
        "--background",
        "--help",
        "-h",
        "--version",
        "-v",
    ],
    value_options: &[
        "--add-dir",
        "--agent",
        "--agents",
        "--allowedTools",
        "--allowed-tools",
        "--append-system-prompt",
        "--betas",
        "--debug-file",
        "--disallowedTools",
        "--disallowed-tools",
        "--effort",
        "--fallback-model",
        "--file",
        "--input-format",
        "--json-schema",
        "--max-budget-usd",
        "--mcp-config",
        "--model",
        "--name",
        "-n",
        "--output-format",
        "--permission-mode",
        "--plugin-dir",
        "--plugin-url",
        "--remote-control-session-name-prefix",
        "--setting-sources",
        "--settings",
        "--system-prompt",
        "--tools",
    ],
    subcommands: &[
        "agents",
        "auth",
        "auto-mode",
        "config",
        "doctor",
        "gateway",
        "install",
        "mcp",
        "migrate-installer",
        "plugin",
        "plugins",
        "project",
        "remote-control",
        "setup-token",
        "ultrareview",
        "update",
        "upgrade",
    ],
    resume_subcommand: None,
    hooks: crate::hooks::CLAUDE,
    process_names: &["claude", "claude.exe"],
    package_markers: &["/@anthropic-ai/claude-code/"],
    screen_rules: Some(include_str!("../agents/claude.toml")),
    // Seen with claude 2.1.197: sessions/<pid>.json with pid, sessionId,
    // cwd, startedAt, procStart, status; CLAUDE_CONFIG_DIR moves ~/.claude.
    sessions: Some(SessionStore::PidFile(StoreRoot {
        env: "CLAUDE_CONFIG_DIR",
        env_suffix: "",
        home_path: ".claude",
    })),
    checked_against: "claude 2.1.197 --help",
};

/// OpenAI Codex CLI.
///
/// Checked against codex-cli 0.171.0 (`codex --help`, `codex resume --help`,
/// `codex fork --help`):
/// * `codex resume [OPTIONS] [SESSION_ID] [PROMPT]`: "Session id (UUID) or
///   session name. UUIDs take precedence if it parses"; without an id it opens
///   a picker, `--last` takes the most recent one.
/// * No flag presets the id of a new session.
/// * `-c` is `--config <key=value>` here, not "continue".
/// * `fork` starts a *new* session from an old one, so it is listed with the
///   non-interactive subcommands: its id cannot be known from argv.
pub(crate) const CODEX: AdapterSpec = AdapterSpec {
    kind: AgentKind::Codex,
    name: "codex",
    program: Some("codex"),
    id_rule: IdRule::Uuid,
    resume: Some(ResumeShape::Subcommand("resume")),
    preset: None,
    session_flags: &[],
    hands_off_flags: &["--last", "--help", "-h", "--version", "-V"],
    value_options: &[
        "--config",
        "-c",
        "--enable",
        "--disable",
        "--remote",
        "--remote-auth-token-env",
        "--image",
        "-i",
        "--model",
        "-m",
        "--local-provider",
        "--profile",
        "-p",
        "--sandbox",
        "-s",
        "--cd",
        "-C",
        "--add-dir",
        "--ask-for-approval",
        "-a",
    ],
    subcommands: &[
        "agents",
        "exec",
        "e",
        "review",
        "login",
        "logout",
        "mcp",
        "mcp-server",
        "plugin",
        "app-server",
        "remote-control",
        "completion",
        "update",
        "doctor",
        "sandbox",
        "debug",
        "apply",
        "a",
        "queue",
        "archive",
        "delete",
        "migrate-rollouts",
        "migrate-nfs-db",
        "unarchive",
        "fork",
        "cloud",
        "exec-server",
        "features",
        "help",
    ],
    resume_subcommand: Some("resume"),
    hooks: crate::hooks::CODEX,
    process_names: &["codex", "codex.js"],
    package_markers: &["/@openai/codex/"],
    screen_rules: Some(include_str!("../agents/codex.toml")),
    // Seen with codex-cli 0.171.0: the rollout appears after the first
    // prompt, written by `codex app-server` (ppid 1); CODEX_HOME moves it.
    sessions: Some(SessionStore::DatedRollouts(StoreRoot {
        env: "CODEX_HOME",
        env_suffix: "",
        home_path: ".codex",
    })),
    checked_against: "codex-cli 0.171.0 --help, resume --help, fork --help",
};

/// opencode.
///
/// Checked against opencode 1.18.33 (`opencode --help` and the id generator
/// in the shipped binary):
/// * `-s, --session <id>` continues a session; `-c, --continue` the last one;
///   `--fork` forks when continuing. No flag presets a new session's id.
/// * Session ids are `ses_` + 12 lowercase hex digits (a 48-bit timestamp and
///   counter, bit-inverted for sessions so newer sort first) + 14 base62
///   characters: 26 characters after the prefix. opencode itself only checks
///   the `ses` prefix; we accept `ses_` + any 26 ASCII letters or digits, a
///   superset of what it generates that survives a change in how the two
///   parts are encoded.
/// * The positional `[project]` is a directory to start in, not a prompt.
pub(crate) const OPENCODE: AdapterSpec = AdapterSpec {
    kind: AgentKind::Opencode,
    name: "opencode",
    program: Some("opencode"),
    id_rule: IdRule::Prefixed {
        prefix: "ses_",
        len: 26,
        text: "must be `ses_` followed by 26 ASCII letters or digits, \
               like ses_fe1c3a9b2d07Qm4xT8vLr2KpZa",
    },
    resume: Some(ResumeShape::Flag(FlagShape::Separate("--session"))),
    preset: None,
    session_flags: &["--session", "-s"],
    hands_off_flags: &[
        "--continue",
        "-c",
        "--fork",
        "--help",
        "-h",
        "--version",
        "-v",
    ],
    value_options: &[
        "--log-level",
        "--port",
        "--hostname",
        "--mdns-domain",
        "--cors",
        "--model",
        "-m",
        "--prompt",
        "--agent",
        "--replay-limit",
    ],
    subcommands: &[
        "completion",
        "acp",
        "mcp",
        "attach",
        "run",
        "debug",
        "providers",
        "auth",
        "agent",
        "upgrade",
        "uninstall",
        "serve",
        "web",
        "models",
        "stats",
        "export",
        "import",
        "github",
        "pr",
        "session",
        "plugin",
        "plug",
        "db",
    ],
    resume_subcommand: None,
    hooks: crate::hooks::OPENCODE,
    process_names: &["opencode"],
    package_markers: &["/opencode-ai/"],
    screen_rules: Some(include_str!("../agents/opencode.toml")),
    // opencode's published storage layout (not checked against a binary).
    sessions: Some(SessionStore::SessionFiles(StoreRoot {
        env: "XDG_DATA_HOME",
        env_suffix: "opencode",
        home_path: ".local/share/opencode",
    })),
    checked_against: "opencode 1.18.33 --help",
};

/// Cursor's terminal agent.
///
/// Not checked against a binary: cursor-agent is not published on npm (it
/// installs through Cursor's own script), so these facts come from design.md
/// §5 and Cursor's published CLI docs:
/// * `cursor-agent --resume [chatId]` resumes a chat; `--continue` the
///   latest; `cursor-agent resume` (no id) the latest as well.
/// * `cursor-agent create-chat` prints a fresh id, but there is no flag to
///   preset one, so nothing is inserted at launch.
/// * Newer installs also name the binary `agent`; that basename is too
///   generic to claim, so only `cursor-agent` is detected.
/// * In Cursor's docs `-c` is `--cloud`, not "continue".
pub(crate) const CURSOR: AdapterSpec = AdapterSpec {
    kind: AgentKind::Cursor,
    name: "cursor",
    program: Some("cursor-agent"),
    id_rule: IdRule::Uuid,
    resume: Some(ResumeShape::Flag(FlagShape::Separate("--resume"))),
    preset: None,
    session_flags: &["--resume"],
    hands_off_flags: &["--continue", "--help", "-h", "--version", "-v"],
    value_options: &[
        "--model",
        "--mode",
        "--workspace",
        "--output-format",
        "--api-key",
        "--header",
        "-H",
        "--sandbox",
    ],
    subcommands: &[
        "ls",
        "resume",
        "create-chat",
        "login",
        "logout",
        "status",
        "whoami",
        "update",
        "upgrade",
        "mcp",
        "models",
        "install-shell-integration",
        "uninstall-shell-integration",
        "generate-rule",
        "rule",
        "about",
        "help",
    ],
    resume_subcommand: None,
    hooks: crate::hooks::CURSOR,
    process_names: &["cursor-agent"],
    package_markers: &[],
    screen_rules: Some(include_str!("../agents/cursor.toml")),
    // Its chats are SQLite databases under a hash of the workspace path:
    // nothing this crate reads.
    sessions: None,
    checked_against: "design.md §5 and Cursor's CLI docs (no binary available)",
};

/// Gemini CLI.
///
/// Checked against gemini 0.61.0 (`gemini --help` and the shipped bundle):
/// * `-r, --resume [value]`: "latest", a 1-based index, or a full session
///   UUID (the bundle matches UUIDs exactly, case-sensitively); a bare
///   `--resume` means latest, but signaltty never emits one.
/// * `--session-id <id>` starts a new session with that id. Gemini accepts
///   any `[A-Za-z0-9_-]+` and refuses an id that already exists; we insert
///   and learn only UUIDs.
/// * `--session-file` imports a session under a new id; `--list-sessions`,
///   `--delete-session`, `-l/--list-extensions` exit; `--acp` speaks a
///   protocol instead of running the TUI.
/// * Subcommands: mcp, extensions|extension, skills|skill, hooks|hook, gemma.
pub(crate) const GEMINI: AdapterSpec = AdapterSpec {
    kind: AgentKind::Gemini,
    name: "gemini",
    program: Some("gemini"),
    id_rule: IdRule::Uuid,
    resume: Some(ResumeShape::Flag(FlagShape::Separate("--resume"))),
    preset: Some(FlagShape::Separate("--session-id")),
    session_flags: &["--resume", "-r", "--session-id"],
    hands_off_flags: &[
        "--session-file",
        "--list-sessions",
        "--delete-session",
        "--list-extensions",
        "-l",
        "--acp",
        "--experimental-acp",
        "--help",
        "-h",
        "--version",
        "-v",
    ],
    value_options: &[
        "--model",
        "-m",
        "--prompt",
        "-p",
        "--prompt-interactive",
        "-i",
        "--approval-mode",
        "--policy",
        "--admin-policy",
        "--allowed-mcp-server-names",
        "--allowed-tools",
        "--extensions",
        "-e",
        "--include-directories",
        "--output-format",
        "-o",
    ],
    subcommands: &[
        "mcp",
        "extensions",
        "extension",
        "skills",
        "skill",
        "hooks",
        "hook",
        "gemma",
    ],
    resume_subcommand: None,
    hooks: crate::hooks::GEMINI,
    process_names: &["gemini", "gemini.js"],
    package_markers: &["/@google/gemini-cli/"],
    screen_rules: Some(include_str!("../agents/gemini.toml")),
    // Seen with gemini 0.61.0: chats/session-<time>-<id8>.jsonl at start,
    // projects.json maps the cwd to the project; GEMINI_CLI_HOME replaces
    // the home directory.
    sessions: Some(SessionStore::ProjectChats(StoreRoot {
        env: "GEMINI_CLI_HOME",
        env_suffix: ".gemini",
        home_path: ".gemini",
    })),
    checked_against: "gemini 0.61.0 --help",
};

/// GitHub Copilot CLI.
///
/// Checked against GitHub Copilot CLI 1.0.102 (`copilot --help`):
/// * `-r, --resume [<value>]` takes a session id, task id, id prefix or name;
///   its own examples write `--resume=<session-id>`, which is the form we
///   emit (an optional value is unambiguous only when joined).
/// * `--session-id <id>` "Resume an existing session or task by ID, or set
///   the UUID for a new session"; the examples write `--session-id=<uuid>`.
/// * `--continue` (no short form) resumes the latest; `--connect` attaches to
///   a remote session; `--acp` runs a protocol server.
/// * There is no positional prompt; the subcommands are app, login, help,
///   init, config, update, version, workflow, sessions, memories, plugin,
///   mcp, skill, instruction, lsp, sandbox, completion.
pub(crate) const COPILOT: AdapterSpec = AdapterSpec {
    kind: AgentKind::Copilot,
    name: "copilot",
    program: Some("copilot"),
    id_rule: IdRule::Uuid,
    resume: Some(ResumeShape::Flag(FlagShape::Joined("--resume"))),
    preset: Some(FlagShape::Joined("--session-id")),
    session_flags: &["--resume", "-r", "--session-id"],
    hands_off_flags: &[
        "--continue",
        "--connect",
        "--acp",
        "--help",
        "-h",
        "--version",
        "-v",
    ],
    value_options: &[
        "--interactive",
        "-i",
        "--prompt",
        "-p",
        "--model",
        "--reasoning-effort",
        "--context",
        "--auto-tier",
        "--agent",
        "--name",
        "-n",
        "-C",
        "--log-dir",
        "--extension-sdk-path",
        "--log-level",
        "--stream",
        "--output-format",
        "--add-dir",
        "--attachment",
        "--disable-mcp-server",
        "--add-github-mcp-toolset",
        "--add-github-mcp-tool",
        "--plugin-dir",
        "--additional-mcp-config",
        "--mcp-github-auth",
        "--max-autopilot-continues",
        "--mode",
        "--environment-host",
        "--environment-compute-id",
        "--dynamic-retrieval",
        "--enable-mcp-server",
        "--max-ai-credits",
        "--usage-output-file",
    ],
    subcommands: &[
        "app",
        "login",
        "help",
        "init",
        "config",
        "update",
        "version",
        "workflow",
        "sessions",
        "memories",
        "plugin",
        "mcp",
        "skill",
        "instruction",
        "lsp",
        "sandbox",
        "completion",
    ],
    resume_subcommand: None,
    hooks: crate::hooks::COPILOT,
    process_names: &["copilot"],
    package_markers: &["/@github/copilot/"],
    screen_rules: Some(include_str!("../agents/copilot.toml")),
    // Seen with copilot 1.0.102 (npm `@github/copilot`, run offline with a
    // temp HOME): at start, before any login, it makes
    // `~/.copilot/session-state/<uuid>/` with `workspace.yaml` (id, cwd)
    // and `inuse.<pid>.lock`, the pid being its native binary's — a child
    // of the `node …/copilot` loader in the foreground. COPILOT_HOME
    // replaces `~/.copilot` (`--config-dir` too, which is not followed).
    sessions: Some(SessionStore::StateDirs(StoreRoot {
        env: "COPILOT_HOME",
        env_suffix: "",
        home_path: ".copilot",
    })),
    checked_against: "GitHub Copilot CLI 1.0.102 --help, and its files at start",
};

/// Anything signaltty does not recognise: shells, editors, other agents.
///
/// There is no official resume command and no flag is ever interpreted; an
/// agent running in such a pane can still report its session (and the
/// command that resumes it) with `signaltty ctl report-session`.
pub(crate) const GENERIC: AdapterSpec = AdapterSpec {
    kind: AgentKind::Generic,
    name: "generic",
    program: None,
    id_rule: IdRule::Generic,
    resume: None,
    preset: None,
    session_flags: &[],
    hands_off_flags: &[],
    value_options: &[],
    subcommands: &[],
    resume_subcommand: None,
    hooks: &[],
    process_names: &[],
    package_markers: &[],
    screen_rules: None,
    sessions: None,
    checked_against: "not an agent CLI",
};

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
];
