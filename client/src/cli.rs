//! The command line, as clap types (kept in the library so tests can build
//! them directly).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use signaltty_protocol::socket_path::BadSessionName;
use signaltty_protocol::socket_path::{self, SESSION_ENV, SessionName};

use crate::client::{ClientError, Endpoint};
use crate::remote::{Remote, SSH_COMMAND_ENV};

/// Picks the machine for every client command, like `--host`.
pub const HOST_ENV: &str = "SIGNALTTY_HOST";

#[derive(Debug, Parser)]
#[command(
    name = "signaltty",
    version,
    about = "A terminal session server for people who run many AI coding agents",
    after_help = "With no command, `signaltty` starts the server if needed and opens the UI."
)]
pub struct Cli {
    /// The server's socket [default: the session's; without --session
    /// $SIGNALTTY_SOCKET, else $XDG_RUNTIME_DIR/signaltty/signaltty.sock,
    /// else a per-user temp dir]
    #[arg(long, global = true, value_name = "PATH")]
    pub socket: Option<PathBuf>,
    /// Where state is kept [default: the session's; without --session
    /// $SIGNALTTY_STATE_DIR, else $XDG_STATE_HOME/signaltty, else
    /// ~/.local/state/signaltty]
    #[arg(long, global = true, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// A named session: a server of its own, with its socket and state under
    /// …/signaltty/sessions/NAME/ (`default` is the usual one)
    /// [env: SIGNALTTY_SESSION]
    #[arg(long, global = true, value_name = "NAME")]
    pub session: Option<SessionName>,
    /// The machine whose server to use, through ssh: anything ssh takes
    /// (box, user@box, ssh://user@box:2222) [env: SIGNALTTY_HOST]
    #[arg(long, global = true, value_name = "DEST")]
    pub host: Option<String>,
    /// signaltty's path on the --host machine [default: signaltty, on the
    /// remote PATH]
    #[arg(long, global = true, env = "SIGNALTTY_REMOTE_BIN", value_name = "PATH")]
    pub remote_bin: Option<String>,
    /// Machine-readable output (and errors as {"error":{"code","message"}})
    #[arg(long, global = true)]
    pub json: bool,
    /// Without a command: the multiplexer (as `ui`)
    #[command(subcommand)]
    pub command: Option<Command>,
}

impl Cli {
    /// Parses the command line, then takes the session from
    /// `$SIGNALTTY_SESSION` when `--session` was not given (an empty value
    /// counts as unset, which clap's own `env` would not allow).
    pub fn parse_with_env() -> Result<Cli, BadSessionName> {
        let mut cli = Cli::parse();
        if cli.session.is_none() {
            cli.session = session_from_env(std::env::var(SESSION_ENV).ok())?;
        }
        Ok(cli)
    }

    /// `--host`, else `$SIGNALTTY_HOST`; empty counts as unset.
    pub fn host(&self) -> Option<String> {
        self.host
            .clone()
            .or_else(|| std::env::var(HOST_ENV).ok())
            .filter(|h| !h.is_empty())
    }

    /// The socket of the chosen server on this machine.
    pub fn local_socket(&self) -> PathBuf {
        socket_path::resolve(self.socket.clone(), self.session.as_ref())
    }

    /// The server a client command talks to: this machine's, or the
    /// `--host` machine's through ssh.
    pub fn endpoint(&self) -> Result<Endpoint, ClientError> {
        match self.host() {
            None => Ok(Endpoint::Local(self.local_socket())),
            Some(host) => Ok(Endpoint::Remote(self.remote(&host)?)),
        }
    }

    /// The `--host` machine, reached with `$SIGNALTTY_SSH_COMMAND` or ssh.
    pub fn remote(&self, host: &str) -> Result<Remote, ClientError> {
        let ssh = std::env::var(SSH_COMMAND_ENV).ok();
        Remote::new(
            host,
            self.remote_bin.as_deref(),
            self.session.clone(),
            ssh.as_deref(),
        )
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Start the server (if it is not running); on a terminal, open the
    /// multiplexer
    Up(Up),
    /// Talk to the running server
    #[command(subcommand)]
    Ctl(Ctl),
    /// The multiplexer: every pane of a tab on screen, tmux's keys (C-b ?
    /// lists them); starts the server if needed
    Ui {
        /// The workspace to open (created if there is none of that name)
        /// [default: the one used last, else a new `default`]
        workspace: Option<String>,
    },
    /// Show a pane in this terminal; the detach key leaves it running
    Attach {
        pane: String,
        /// The key that detaches (a control key such as C-] or C-b)
        #[arg(long, env = "SIGNALTTY_DETACH_KEY", default_value = "C-]")]
        detach_key: String,
        /// Do not count this as having seen the pane
        #[arg(long)]
        keep_attention: bool,
        /// Write every byte of the pane's output into this terminal, even
        /// in a flood, so its scrollback holds all of it (by default output
        /// faster than ~1 MB/s is shown as up to ~60 pictures a second of
        /// the pane's screen instead)
        #[arg(long)]
        every_byte: bool,
    },
    /// Every session, running or only saved, with its counts
    Sessions,
    /// Serve every pane to a browser or a phone: a live dashboard and
    /// terminals, behind a login token (see docs/web.md)
    Web(Web),
    /// Wire an agent's hooks to signaltty (`ctl hook`) in its own config
    #[command(subcommand)]
    Hooks(HooksCmd),
    /// The far end of `--host`: connects this machine's server (starting it
    /// if needed) to stdin and stdout; run by ssh, not by hand
    Bridge,
    /// Hand the running server over to a new signaltty binary in place:
    /// every pane's process, screen and scrollback carry over, clients
    /// reconnect by themselves (docs/upgrade.md)
    Upgrade {
        /// The binary to hand over to [default: the path the server was
        /// started from, as it is now, e.g. the file `cargo install` just
        /// replaced]
        #[arg(long)]
        binary: Option<std::path::PathBuf>,
    },
    /// Reads a handover on stdin and says whether this binary can take it
    /// over; run by a server that upgrades, not by hand
    #[command(name = "__handover-check", hide = true)]
    HandoverCheck,
    /// Print a shell completion script (e.g. `signaltty completions bash >
    /// ~/.local/share/bash-completion/completions/signaltty`)
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (e.g. `signaltty man > ~/.local/share/man/man1/signaltty.1`)
    Man,
    /// Print the JSON Schema of every request, reply and event (`--json`
    /// output and the socket protocol)
    Schema,
    /// Print a short guide that teaches a coding agent to start, prompt,
    /// wait for and read other agents through `signaltty ctl`
    AgentGuide,
}

/// The session `$SIGNALTTY_SESSION` names, if it is set and not empty.
fn session_from_env(value: Option<String>) -> Result<Option<SessionName>, BadSessionName> {
    match value.filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(name) => SessionName::parse(&name).map(Some),
    }
}

#[derive(Debug, Subcommand)]
pub enum HooksCmd {
    /// Add signaltty's hooks to the agent's config, merged with what is
    /// there (claude, codex, gemini, qwen, copilot)
    Install {
        kind: String,
        /// Show the change as a diff and write nothing
        #[arg(long)]
        dry_run: bool,
        /// The user's config, or the current project's
        #[arg(long, value_enum, default_value = "user")]
        scope: HookScope,
    },
    /// Remove exactly the hooks `install` added
    Uninstall {
        kind: String,
        #[arg(long)]
        dry_run: bool,
        #[arg(long, value_enum, default_value = "user")]
        scope: HookScope,
    },
    /// Where each agent's hooks are, and whether signaltty's are in them
    Status,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HookScope {
    User,
    Project,
}

#[derive(Debug, Default, Args)]
pub struct Up {
    /// Start the server in the background and return once it answers
    #[arg(short = 'd', long, conflicts_with = "foreground")]
    pub detach: bool,
    /// Run the server in this process (for systemd and tests)
    #[arg(long)]
    pub foreground: bool,
    /// Start empty; the saved snapshot is set aside in archive/, not deleted
    #[arg(long)]
    pub no_restore: bool,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Web {
    #[command(subcommand)]
    pub command: Option<WebCmd>,
    /// The address to listen on: loopback, or anything else only with
    /// --tls-cert/--tls-key or --insecure-http
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7681")]
    pub listen: std::net::SocketAddr,
    /// View only: no keystrokes, resizes or requests reach any pane
    #[arg(long)]
    pub read_only: bool,
    /// Serve plain HTTP on an address other than loopback (unsafe beyond a
    /// network of your own: prefer TLS, an SSH tunnel, Tailscale serve or
    /// a TLS reverse proxy)
    #[arg(long, conflicts_with = "tls_cert")]
    pub insecure_http: bool,
    /// Serve HTTPS with this PEM certificate chain (with --tls-key); then
    /// any address may be listened on
    #[arg(long, value_name = "PEM", requires = "tls_key")]
    pub tls_cert: Option<std::path::PathBuf>,
    /// The PEM private key of --tls-cert
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    pub tls_key: Option<std::path::PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum WebCmd {
    /// Print the login token (made on first use)
    Token {
        /// Replace it with a new one: every session of the old one ends
        #[arg(long)]
        rotate: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum Ctl {
    /// The server's health: pid, socket, state dir, counts, last save
    Status,
    /// Workspaces, tabs and panes, with each pane's state
    Ls,
    /// Create, change or close workspaces
    #[command(subcommand)]
    Workspace(WorkspaceCmd),
    /// Create or close tabs
    #[command(subcommand)]
    Tab(TabCmd),
    /// Rearrange running panes: swap two, break one out into a tab of its
    /// own, move one into another tab (the processes keep running)
    #[command(subcommand)]
    Pane(PaneCmd),
    /// Create a pane; prints its id
    New(NewPane),
    /// Type text into a pane
    Send {
        pane: String,
        text: String,
        /// Press Enter after the text
        #[arg(long)]
        enter: bool,
    },
    /// Print what a pane shows, its scrollback, or what it printed since
    /// an earlier read (`--json` gives the offset to read on from)
    Read {
        pane: String,
        /// The visible screen (the default)
        #[arg(long, group = "what")]
        screen: bool,
        /// The last N lines of scrollback and screen
        #[arg(long, value_name = "N", group = "what")]
        tail: Option<usize>,
        /// The screen and N lines of scrollback above it
        #[arg(long, value_name = "N", group = "what")]
        scrollback: Option<usize>,
        /// All the scrollback and the screen
        #[arg(long, group = "what")]
        all: bool,
        /// Only the lines completed since OFFSET (from an earlier read's
        /// `offset`, or `--offset`)
        #[arg(long, value_name = "OFFSET", group = "what")]
        since: Option<u64>,
        /// Print only the offset a later `--since` reads on from
        #[arg(long, group = "what")]
        offset: bool,
        /// Keep colours as escape sequences
        #[arg(long, conflicts_with = "plain")]
        ansi: bool,
        /// Plain text, no escape sequences (the default)
        #[arg(long)]
        plain: bool,
    },
    /// Resize a pane (clamped to sane bounds)
    Resize {
        pane: String,
        #[arg(long)]
        rows: u16,
        #[arg(long)]
        cols: u16,
    },
    /// Resume a restored agent with its official resume command
    Resume { pane: String },
    /// Run a pane's saved command again in its saved directory
    Respawn { pane: String },
    /// Put an idle agent to sleep to give its memory back: it ends its
    /// session as it would itself, and wakes through its resume command
    Hibernate { pane: String },
    /// Wake a hibernated agent (focusing or attaching it does too)
    Wake { pane: String },
    /// Keep a pane awake: it never hibernates (saved)
    Pin { pane: String },
    /// Let a pinned pane hibernate again
    Unpin { pane: String },
    /// Record an agent's session id, so the pane can be resumed after a restart
    ReportSession {
        pane: String,
        session_id: String,
        /// claude, codex, opencode, cursor, gemini, copilot or generic
        #[arg(long)]
        agent: Option<String>,
    },
    /// Close a pane: its process is hung up and its state forgotten (its
    /// worktree, if it has one, is kept unless --remove-worktree)
    Close {
        pane: String,
        /// Remove the pane's git worktree too (`git worktree remove`; its
        /// branch stays); refused while it has uncommitted changes
        #[arg(long)]
        remove_worktree: bool,
        /// With --remove-worktree: remove it even with uncommitted changes
        #[arg(long, requires = "remove_worktree")]
        force: bool,
    },
    /// Send a signal to a pane's process
    Kill {
        pane: String,
        /// HUP, INT, QUIT, TERM, KILL, USR1, USR2, CONT, STOP, TSTP or WINCH
        #[arg(long, default_value = "TERM")]
        signal: String,
        /// Signal the pane's whole process group
        #[arg(long)]
        group: bool,
    },
    /// Raise a notification (for a pane: $SIGNALTTY_PANE unless --pane)
    Notify {
        #[arg(long, env = "SIGNALTTY_PANE")]
        pane: Option<String>,
        #[arg(long, value_parser = ["info", "warning", "error"], default_value = "info")]
        severity: String,
        title: String,
        body: Option<String>,
    },
    /// An agent's hook: reads its JSON on stdin (see the README)
    Hook {
        /// claude, codex, opencode, cursor, gemini or copilot
        agent: String,
        /// The event, e.g. Stop, Notification, UserPromptSubmit; `notify` for
        /// codex's notify program (the event is then read from the JSON)
        event: String,
        #[arg(long, env = "SIGNALTTY_PANE")]
        pane: Option<String>,
    },
    /// Mark a pane as seen: its attention clears and its notifications are read
    Seen { pane: String },
    /// Rename a pane, tab or workspace (a pane's name is kept over any title
    /// its program sets; an empty name gives it back the program's title)
    Rename {
        /// A pane, tab or workspace: an id, a unique id prefix or a
        /// workspace name
        target: String,
        name: String,
        /// Say what the target is, when it could be more than one
        #[arg(long, value_enum)]
        kind: Option<TargetKind>,
    },
    /// The newest notifications (at most 200 are kept)
    Notifications {
        #[arg(long)]
        unread: bool,
    },
    /// The pane that needs you most; prints its id
    Next,
    /// Why a pane's agent reads as it does: kind, state, rule, evidence
    Explain {
        /// The pane (or --file with --agent for a saved screen)
        #[arg(required_unless_present = "file", conflicts_with = "file")]
        pane: Option<String>,
        /// A saved screen (e.g. `tmux capture-pane -p > screen.txt`)
        #[arg(long, value_name = "SCREEN.txt", requires = "agent")]
        file: Option<PathBuf>,
        /// Whose rules read the saved screen: claude, codex, gemini, …
        #[arg(long)]
        agent: Option<String>,
        /// The terminal title that went with the saved screen
        #[arg(long)]
        title: Option<String>,
    },
    /// Wait until a pane's process exits, its agent reaches a state, or
    /// text appears; exits 1 on timeout
    Wait {
        pane: String,
        #[arg(long, conflicts_with_all = ["lifecycle", "text"], required_unless_present_any = ["lifecycle", "text"])]
        exit: bool,
        /// working, blocked, done, idle, failed, exited or unknown
        #[arg(long, value_name = "STATE", conflicts_with = "text")]
        lifecycle: Option<String>,
        /// A regular expression matched against each line (prints it)
        #[arg(long, value_name = "REGEX")]
        text: Option<String>,
        /// Give up after this many seconds [default: wait for ever]
        #[arg(long, value_name = "SECS")]
        timeout: Option<f64>,
    },
    /// Press named keys in a pane, encoded as its program asked: enter,
    /// esc, tab, shift+tab, backspace, up, pageup, f1-f12, ctrl+c, alt+x,
    /// one character… (text goes with `ctl send`)
    SendKeys {
        pane: String,
        #[arg(required = true, value_name = "KEY")]
        keys: Vec<String>,
    },
    /// Follow what happens to panes, a line per event, until interrupted:
    /// new and closed panes, state, lifecycle, attention, exits, agents and
    /// session ids
    Events {
        /// Only this pane's
        #[arg(long)]
        pane: Option<String>,
    },
    /// Start agents and prompt them, from scripts and other agents
    #[command(subcommand)]
    Agent(AgentCmd),
    /// Save everything, hang up every pane and stop the server
    Shutdown,
    /// Fault injection for tests (needs SIGNALTTY_ENABLE_FAULTS=1 on the server)
    #[cfg(any(debug_assertions, feature = "fault-injection"))]
    #[command(subcommand, hide = true)]
    Debug(DebugCmd),
}

#[derive(Debug, Subcommand)]
pub enum AgentCmd {
    /// Open a tab running an agent; prints the pane's id once the agent's
    /// prompt is ready (exits 3 if it waits at a dialog first)
    Start {
        /// claude, codex, gemini, copilot, opencode, cursor, …
        kind: String,
        /// [default: this pane's workspace, or the only one]
        #[arg(long, env = "SIGNALTTY_WORKSPACE")]
        workspace: Option<String>,
        #[arg(long)]
        cwd: Option<PathBuf>,
        /// Run it in a new git worktree (and branch) of this name
        #[arg(long, value_name = "NAME")]
        worktree: Option<String>,
        /// Give up after this many seconds
        #[arg(long, value_name = "SECS", default_value_t = 60.0)]
        timeout: f64,
        /// Arguments for the agent
        #[arg(last = true)]
        args: Vec<String>,
    },
    /// Wait until an agent's work is over: prints `idle` or `done` when its
    /// turn ended, `blocked` (exit 3) at a dialog, `exit N` (exit 1) when
    /// it ended; a prompt just sent counts as work to come
    Wait {
        pane: String,
        /// Give up after this many seconds [default: wait for ever]
        #[arg(long, value_name = "SECS")]
        timeout: Option<f64>,
    },
    /// Type a prompt into an agent and submit it; refused while the agent
    /// waits at a dialog (exit 3, BLOCKED) or works (exit 4, BUSY)
    Prompt {
        pane: String,
        text: String,
        /// While it works, hold the prompt and type it when it is idle
        #[arg(long)]
        queue: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum WorkspaceCmd {
    /// Create a workspace; prints its id
    New {
        name: String,
        /// Its panes' default working directory [default: here]
        #[arg(long)]
        cwd: Option<PathBuf>,
        /// Resume its agents by themselves after a restart
        #[arg(long)]
        auto_resume: bool,
        /// Make a git worktree on a new branch BRANCH from the repository
        /// holding --cwd (under `[worktree] root`, by default
        /// <repo>/../<repo>.worktrees/BRANCH) and work there
        #[arg(long, value_name = "BRANCH")]
        worktree: Option<String>,
    },
    /// Change a workspace's settings
    Set {
        workspace: String,
        #[arg(long, value_name = "true|false")]
        auto_resume: Option<bool>,
        /// How long its idle agents stay awake before they hibernate (`30m`,
        /// `2h`), or `off`; over the config's `[hibernate] after`
        #[arg(long, value_name = "WINDOW|off")]
        hibernate_after: Option<signaltty_protocol::SleepAfter>,
    },
    /// Close a workspace and everything in it (worktrees are kept unless
    /// --remove-worktree)
    Close {
        workspace: String,
        /// Remove the git worktrees its panes ran in too; refused while one
        /// has uncommitted changes or a pane elsewhere uses it
        #[arg(long)]
        remove_worktree: bool,
        /// With --remove-worktree: remove them even with uncommitted changes
        #[arg(long, requires = "remove_worktree")]
        force: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum TabCmd {
    /// Create a tab with one pane; prints the tab's id
    New {
        workspace: String,
        #[arg(long)]
        title: Option<String>,
        #[arg(long)]
        cwd: Option<PathBuf>,
        /// The first pane's command [default: $SHELL]
        #[arg(last = true)]
        command: Vec<String>,
    },
    /// Close a tab and its panes
    Close { tab: String },
}

#[derive(Debug, Subcommand)]
pub enum PaneCmd {
    /// Trade the places of two panes of one workspace (tmux swap-pane)
    Swap { pane: String, with: String },
    /// Move a pane into a new tab of its own (tmux break-pane); prints the
    /// tab's id
    Break {
        pane: String,
        #[arg(long)]
        title: Option<String>,
    },
    /// Move a pane into another tab of its workspace, beside --split (else
    /// that tab's active pane); a tab left empty closes (tmux join-pane)
    Move {
        pane: String,
        #[arg(long)]
        tab: String,
        /// The pane to put it beside [default: the tab's active pane]
        #[arg(long)]
        split: Option<String>,
        #[arg(long, value_enum, default_value = "right")]
        direction: SplitDirection,
    },
}

#[derive(Debug, Args)]
pub struct NewPane {
    pub workspace: String,
    /// The tab to put it in [default: the active tab, or a new one]
    #[arg(long)]
    pub tab: Option<String>,
    /// The pane to split [default: the tab's active pane]
    #[arg(long)]
    pub split: Option<String>,
    #[arg(long, value_enum, default_value = "right")]
    pub direction: SplitDirection,
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    #[arg(long)]
    pub title: Option<String>,
    /// Make a git worktree on a new branch NAME from the repository holding
    /// the pane's directory (--cwd, else the workspace's) and run there
    #[arg(long, value_name = "NAME")]
    pub worktree: Option<String>,
    /// The command to run [default: $SHELL]
    #[arg(last = true)]
    pub command: Vec<String>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum TargetKind {
    Pane,
    Tab,
    Workspace,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SplitDirection {
    Right,
    Down,
}

// Fault injection: only in builds that have it (see the root Cargo.toml).
#[cfg(any(debug_assertions, feature = "fault-injection"))]
#[derive(Debug, Subcommand)]
pub enum DebugCmd {
    /// Make an actor panic inside a message handler: a pane, tab or
    /// workspace by id, or `snapshot` or `listener`
    Panic { target: String },
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_session_env_counts_only_when_set_and_is_checked() {
        assert_eq!(session_from_env(None).unwrap(), None);
        assert_eq!(session_from_env(Some(String::new())).unwrap(), None);
        assert_eq!(
            session_from_env(Some("work".into()))
                .unwrap()
                .unwrap()
                .as_str(),
            "work"
        );
        assert!(session_from_env(Some("../x".into())).is_err());
    }

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }
}
