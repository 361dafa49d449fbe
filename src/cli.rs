//! The command line, as clap types (kept in the library so tests can build
//! them directly).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "signaltty",
    version,
    about = "A terminal session server for people who run many AI coding agents"
)]
pub struct Cli {
    /// The server's socket [default: $SIGNALTTY_SOCKET, else
    /// $XDG_RUNTIME_DIR/signaltty/signaltty.sock, else a per-user temp dir]
    #[arg(long, global = true, env = "SIGNALTTY_SOCKET", value_name = "PATH")]
    pub socket: Option<PathBuf>,
    /// Where state is kept [default: $SIGNALTTY_STATE_DIR, else
    /// $XDG_STATE_HOME/signaltty, else ~/.local/state/signaltty]
    #[arg(long, global = true, env = "SIGNALTTY_STATE_DIR", value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// Machine-readable output (and errors as {"error":{"code","message"}})
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Start the server (if it is not running)
    Up(Up),
    /// Talk to the running server
    #[command(subcommand)]
    Ctl(Ctl),
    /// The terminal UI: every workspace, tab and pane, one key per action
    Ui {
        /// The key that detaches from a pane back to the UI
        #[arg(long, env = "SIGNALTTY_DETACH_KEY", default_value = "C-]")]
        detach_key: String,
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
    },
}

#[derive(Debug, Args)]
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
    /// In the UI, the key that detaches from a pane
    #[arg(long, env = "SIGNALTTY_DETACH_KEY", default_value = "C-]")]
    pub detach_key: String,
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
    /// Print what a pane shows
    Read {
        pane: String,
        /// The visible screen (the default)
        #[arg(long, conflicts_with = "tail")]
        screen: bool,
        /// The last N lines of scrollback and screen
        #[arg(long, value_name = "N")]
        tail: Option<usize>,
        /// Keep colours as escape sequences
        #[arg(long)]
        ansi: bool,
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
    /// Record an agent's session id, so the pane can be resumed after a restart
    ReportSession {
        pane: String,
        session_id: String,
        /// claude, codex, opencode, cursor, gemini, copilot or generic
        #[arg(long)]
        agent: Option<String>,
    },
    /// Close a pane: its process is hung up and its state forgotten
    Close { pane: String },
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
    /// Save everything, hang up every pane and stop the server
    Shutdown,
    /// Fault injection for tests (needs SIGNALTTY_ENABLE_FAULTS=1 on the server)
    #[command(subcommand, hide = true)]
    Debug(DebugCmd),
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
    },
    /// Change a workspace's settings
    Set {
        workspace: String,
        #[arg(long, value_name = "true|false")]
        auto_resume: Option<bool>,
    },
    /// Close a workspace and everything in it
    Close { workspace: String },
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
    /// The command to run [default: $SHELL]
    #[arg(last = true)]
    pub command: Vec<String>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SplitDirection {
    Right,
    Down,
}

#[derive(Debug, Subcommand)]
pub enum DebugCmd {
    /// Make an actor panic inside a message handler: a pane, tab or
    /// workspace by id, or `snapshot` or `listener`
    Panic { target: String },
}
