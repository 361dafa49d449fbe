//! `signaltty sessions`: every session of this user, running or only saved,
//! with its counts.
//!
//! The sessions are the default one and every directory under
//! `sessions/` beside the default session's socket and state dir. A
//! running one is asked for its status; one that is not running is read
//! off its saved snapshot, without changing anything on disk. With
//! `--host` the list is the remote machine's (its own `sessions --json`,
//! through ssh), shown here.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use signaltty_persistence::{Peek, StateDir, peek, sessions_state_root};
use signaltty_protocol::socket_path::{self, SessionName};
use signaltty_protocol::{SessionEntry, SessionsReply, StatusReply, method, params};

use signaltty_client::cli::Cli;
use signaltty_client::client::{Client, Endpoint};
use signaltty_client::clock;

/// How long a running server may take to say how it is.
const STATUS_TIMEOUT: Duration = Duration::from_secs(3);

pub fn run(cli: &Cli) -> Result<ExitCode> {
    let reply = match cli.host() {
        Some(host) => serde_json::from_slice(&cli.remote(&host)?.output(&["--json", "sessions"])?)?,
        None => list()?,
    };
    let mut out = std::io::stdout().lock();
    let shown = if cli.json {
        writeln!(out, "{}", serde_json::to_string(&reply)?)
    } else {
        print(&reply, &mut out)
    };
    match shown.and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// Every session on this machine: the default one (if it ever ran) first,
/// then the named ones by name.
fn list() -> Result<SessionsReply> {
    let mut sessions = Vec::new();
    let default = describe(
        "default",
        &socket_path::resolve(None, None),
        &StateDir::resolve_path(None, None)?,
    );
    if default.running || default.last_saved_at.is_some() || default.problem.is_some() {
        sessions.push(default);
    }
    let env = |name: &str| std::env::var_os(name);
    let mut names = BTreeSet::new();
    names.extend(session_dirs(&sessions_state_root(env)?));
    names.extend(session_dirs(&socket_path::sessions_root()));
    for name in names.into_iter().filter(|n| !n.is_default()) {
        let socket = socket_path::resolve(None, Some(&name));
        let state_dir = StateDir::resolve_path(None, Some(&name))?;
        sessions.push(describe(name.as_str(), &socket, &state_dir));
    }
    Ok(SessionsReply { sessions })
}

/// The session names of the directories in `root` (what is not a valid
/// name is nothing of ours).
fn session_dirs(root: &Path) -> Vec<SessionName> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| SessionName::parse(e.file_name().to_str()?).ok())
        .collect()
}

/// One session: its server's status if it answers, else its saved state.
fn describe(name: &str, socket: &Path, state_dir: &Path) -> SessionEntry {
    let mut entry = SessionEntry {
        name: name.to_string(),
        running: false,
        pid: None,
        socket: socket.display().to_string(),
        state_dir: state_dir.display().to_string(),
        workspaces: 0,
        tabs: 0,
        panes: 0,
        live_panes: 0,
        last_saved_at: None,
        problem: None,
    };
    if let Some(status) = status(socket) {
        entry.running = true;
        entry.pid = Some(status.pid);
        entry.workspaces = status.workspaces;
        entry.tabs = status.tabs;
        entry.panes = status.panes;
        entry.live_panes = status.live_panes;
        entry.last_saved_at = status.snapshot.last_saved_at;
        entry.problem = status.snapshot.last_error;
        return entry;
    }
    match peek(state_dir) {
        Peek::Empty => {}
        Peek::Saved(snapshot) => {
            entry.workspaces = snapshot.workspaces.len();
            entry.tabs = snapshot.tabs.len();
            entry.panes = snapshot.panes.len();
            entry.last_saved_at = Some(snapshot.server.saved_at);
        }
        Peek::Unusable(why) => entry.problem = Some(why),
    }
    entry
}

/// The status of the server on `socket`, if one answers in time.
fn status(socket: &Path) -> Option<StatusReply> {
    if !socket.exists() {
        return None;
    }
    let mut client = Client::connect(&Endpoint::Local(PathBuf::from(socket))).ok()?;
    client.set_timeout(STATUS_TIMEOUT).ok()?;
    client.request::<method::Status>(params::Empty {}).ok()
}

fn print(reply: &SessionsReply, out: &mut impl Write) -> std::io::Result<()> {
    if reply.sessions.is_empty() {
        return writeln!(
            out,
            "no sessions yet; start one with `signaltty` or `signaltty --session NAME up -d`"
        );
    }
    let now = clock::now_millis();
    let width = reply
        .sessions
        .iter()
        .map(|s| s.name.len())
        .max()
        .unwrap_or(0)
        .max("SESSION".len());
    writeln!(
        out,
        "{:<width$}  {:<8} {:>10} {:>5} {:>6} {:>5}  SAVED",
        "SESSION", "STATE", "WORKSPACES", "TABS", "PANES", "LIVE"
    )?;
    for s in &reply.sessions {
        let state = if s.running { "running" } else { "saved" };
        let live = if s.running {
            s.live_panes.to_string()
        } else {
            "-".to_string()
        };
        let saved = match s.last_saved_at {
            Some(at) => clock::ago(at, now),
            None => "never".to_string(),
        };
        let problem = match &s.problem {
            Some(problem) => format!("  ! {problem}"),
            None => String::new(),
        };
        writeln!(
            out,
            "{:<width$}  {state:<8} {:>10} {:>5} {:>6} {live:>5}  {saved}{problem}",
            s.name, s.workspaces, s.tabs, s.panes
        )?;
    }
    Ok(())
}
