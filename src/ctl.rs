//! `signaltty ctl …`: one request per command, and how its answer is shown.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use serde_json::Value;
use signaltty_protocol::{
    ExplainReply, LsReply, NextReply, NotificationsReply, StatusReply, WaitReply, method, params,
};

use crate::cli::{Cli, Ctl, DebugCmd, SplitDirection, TabCmd, WorkspaceCmd};
use crate::client::Client;

pub fn run(cli: &Cli, ctl: &Ctl) -> Result<ExitCode> {
    let socket = signaltty_protocol::socket_path::resolve(cli.socket.clone());
    let mut client = Client::connect(&socket)?;
    let (method, params) = request(ctl)?;
    let result = client.call(method, params)?;
    if cli.json {
        println!("{result}");
    } else {
        render(ctl, &result)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn here(cwd: &Option<std::path::PathBuf>) -> Result<Option<String>> {
    let dir = match cwd {
        Some(dir) => dir.clone(),
        None => return Ok(None),
    };
    let absolute = if dir.is_absolute() {
        dir
    } else {
        std::env::current_dir()
            .context("could not read the current directory")?
            .join(dir)
    };
    Ok(Some(absolute.display().to_string()))
}

fn value<T: serde::Serialize>(params: T) -> Result<Value> {
    Ok(serde_json::to_value(params)?)
}

/// The request a command sends.
fn request(ctl: &Ctl) -> Result<(&'static str, Value)> {
    Ok(match ctl {
        Ctl::Status => (method::STATUS, value(params::Empty {})?),
        Ctl::Ls => (method::LS, value(params::Empty {})?),
        Ctl::Workspace(WorkspaceCmd::New {
            name,
            cwd,
            auto_resume,
        }) => {
            let cwd = match here(cwd)? {
                Some(cwd) => cwd,
                None => std::env::current_dir()
                    .context("could not read the current directory; pass --cwd")?
                    .display()
                    .to_string(),
            };
            (
                method::WORKSPACE_NEW,
                value(params::WorkspaceNew {
                    name: name.clone(),
                    cwd: Some(cwd),
                    auto_resume: *auto_resume,
                })?,
            )
        }
        Ctl::Workspace(WorkspaceCmd::Set {
            workspace,
            auto_resume,
        }) => (
            method::WORKSPACE_SET,
            value(params::WorkspaceSet {
                workspace: workspace.clone(),
                auto_resume: *auto_resume,
            })?,
        ),
        Ctl::Workspace(WorkspaceCmd::Close { workspace }) => (
            method::WORKSPACE_CLOSE,
            value(params::Workspace {
                workspace: workspace.clone(),
            })?,
        ),
        Ctl::Tab(TabCmd::New {
            workspace,
            title,
            cwd,
            command,
        }) => (
            method::TAB_NEW,
            value(params::TabNew {
                workspace: workspace.clone(),
                title: title.clone(),
                cwd: here(cwd)?,
                argv: command.clone(),
            })?,
        ),
        Ctl::Tab(TabCmd::Close { tab }) => {
            (method::TAB_CLOSE, value(params::Tab { tab: tab.clone() })?)
        }
        Ctl::New(new) => (
            method::PANE_NEW,
            value(params::PaneNew {
                workspace: new.workspace.clone(),
                tab: new.tab.clone(),
                split: new.split.clone(),
                direction: Some(
                    match new.direction {
                        SplitDirection::Right => "right",
                        SplitDirection::Down => "down",
                    }
                    .to_string(),
                ),
                cwd: here(&new.cwd)?,
                title: new.title.clone(),
                argv: new.command.clone(),
                rows: None,
                cols: None,
            })?,
        ),
        Ctl::Send { pane, text, enter } => (
            method::PANE_SEND,
            value(params::PaneSend {
                pane: pane.clone(),
                text: text.clone(),
                enter: *enter,
            })?,
        ),
        Ctl::Read {
            pane,
            screen: _,
            tail,
            ansi,
        } => (
            method::PANE_READ,
            value(params::PaneRead {
                pane: pane.clone(),
                tail: *tail,
                ansi: *ansi,
            })?,
        ),
        Ctl::Resize { pane, rows, cols } => (
            method::PANE_RESIZE,
            value(params::PaneResize {
                pane: pane.clone(),
                rows: *rows,
                cols: *cols,
            })?,
        ),
        Ctl::Close { pane } => (
            method::PANE_CLOSE,
            value(params::Pane { pane: pane.clone() })?,
        ),
        Ctl::Resume { pane } => (
            method::PANE_RESUME,
            value(params::Pane { pane: pane.clone() })?,
        ),
        Ctl::Respawn { pane } => (
            method::PANE_RESPAWN,
            value(params::Pane { pane: pane.clone() })?,
        ),
        Ctl::ReportSession {
            pane,
            session_id,
            agent,
        } => (
            method::PANE_REPORT_SESSION,
            value(params::ReportSession {
                pane: pane.clone(),
                session_id: session_id.clone(),
                agent: agent.clone(),
            })?,
        ),
        Ctl::Kill {
            pane,
            signal,
            group,
        } => (
            method::PANE_KILL,
            value(params::PaneKill {
                pane: pane.clone(),
                signal: Some(signal.clone()),
                group: *group,
            })?,
        ),
        Ctl::Notify {
            pane,
            severity,
            title,
            body,
        } => (
            method::NOTIFY,
            value(params::Notify {
                pane: pane.clone(),
                severity: Some(severity.clone()),
                title: title.clone(),
                body: body.clone().unwrap_or_default(),
            })?,
        ),
        Ctl::Hook { agent, event, pane } => {
            let Some(pane) = pane else {
                bail!("not inside a signaltty pane (SIGNALTTY_PANE is not set); pass --pane");
            };
            let request = crate::hook::request(agent, event, pane, &mut std::io::stdin().lock())?;
            (method::PANE_HOOK, value(request)?)
        }
        Ctl::Seen { pane } => (
            method::PANE_SEEN,
            value(params::Pane { pane: pane.clone() })?,
        ),
        Ctl::Notifications { unread } => (
            method::NOTIFICATIONS,
            value(params::Notifications { unread: *unread })?,
        ),
        Ctl::Next => (method::NEXT, value(params::Empty {})?),
        Ctl::Explain {
            pane,
            file,
            agent,
            title,
        } => {
            let screen = match file {
                Some(path) => Some(read_screen(path)?),
                None => None,
            };
            (
                method::PANE_EXPLAIN,
                value(params::PaneExplain {
                    pane: pane.clone(),
                    screen,
                    title: title.clone(),
                    agent: agent.clone(),
                })?,
            )
        }
        Ctl::Wait {
            pane,
            exit,
            lifecycle,
            text,
            timeout,
        } => {
            let timeout_ms = match timeout {
                Some(secs) if secs.is_finite() && *secs >= 0.0 => Some((secs * 1000.0) as u64),
                Some(secs) => bail!("--timeout {secs} is not a number of seconds"),
                None => None,
            };
            (
                method::PANE_WAIT,
                value(params::PaneWait {
                    pane: pane.clone(),
                    exit: *exit,
                    lifecycle: lifecycle.clone(),
                    text: text.clone(),
                    timeout_ms,
                })?,
            )
        }
        Ctl::Shutdown => (method::SHUTDOWN, value(params::Empty {})?),
        Ctl::Debug(DebugCmd::Panic { target }) => (
            method::DEBUG_PANIC,
            value(params::DebugPanic {
                target: target.clone(),
            })?,
        ),
    })
}

/// Shows a command's answer for a person.
fn render(ctl: &Ctl, result: &Value) -> Result<()> {
    match ctl {
        Ctl::Status => {
            let status: StatusReply = serde_json::from_value(result.clone())?;
            print_status(&status);
        }
        Ctl::Ls => {
            let ls: LsReply = serde_json::from_value(result.clone())?;
            print_tree(&ls);
        }
        Ctl::Workspace(WorkspaceCmd::New { .. }) | Ctl::Tab(TabCmd::New { .. }) | Ctl::New(_) => {
            println!("{}", result["id"].as_str().unwrap_or_default());
        }
        Ctl::Read { .. } => {
            let text = result["text"].as_str().unwrap_or_default();
            if text.ends_with('\n') || text.is_empty() {
                print!("{text}");
            } else {
                println!("{text}");
            }
        }
        Ctl::Resize { .. } => println!("{}x{}", result["rows"], result["cols"]),
        Ctl::Next => {
            let next: NextReply = serde_json::from_value(result.clone())?;
            match next.pane {
                Some(pane) => println!("{}", pane.id),
                None => bail!("no pane needs you right now"),
            }
        }
        Ctl::Notifications { .. } => {
            let list: NotificationsReply = serde_json::from_value(result.clone())?;
            print_notifications(&list);
        }
        Ctl::Explain { .. } => {
            let explained: ExplainReply = serde_json::from_value(result.clone())?;
            print_explained(&explained);
        }
        Ctl::Wait { .. } => {
            let waited: WaitReply = serde_json::from_value(result.clone())?;
            match (waited.line, waited.exit_code) {
                (Some(line), _) => println!("{line}"),
                (None, Some(code)) => println!("exit {code}"),
                (None, None) => {}
            }
        }
        _ => {}
    }
    Ok(())
}

/// A saved screen for `explain --file`, at most the size the server reads.
fn read_screen(path: &Path) -> Result<String> {
    use std::io::Read;
    let max = params::MAX_EXPLAIN_SCREEN as u64;
    let mut text = String::new();
    std::fs::File::open(path)
        .with_context(|| format!("could not open {}", path.display()))?
        .take(max + 1)
        .read_to_string(&mut text)
        .with_context(|| format!("could not read {} as text", path.display()))?;
    if text.len() as u64 > max {
        bail!(
            "{} is larger than {max} bytes; save only the screen",
            path.display()
        );
    }
    Ok(text)
}

fn print_explained(e: &ExplainReply) {
    println!("kind        {}", e.kind);
    if let Some(argv) = &e.foreground {
        println!("foreground  {}", argv.join(" "));
    }
    println!("screen      {}", e.state);
    if let Some(lifecycle) = e.lifecycle {
        let name = serde_json::to_value(lifecycle)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        println!("lifecycle   {name}");
    }
    println!(
        "rule        {}",
        e.rule.as_deref().unwrap_or("(none matched)")
    );
    println!("rules       {}", e.rules);
    if let Some(id) = &e.session_id {
        match &e.session_file {
            Some(file) => println!("session     {id} (from {file})"),
            None => println!("session     {id}"),
        }
    }
    if e.waiting > 0 {
        println!("waiting     {} `ctl wait` client(s)", e.waiting);
    }
    for line in &e.evidence {
        println!("  │ {line}");
    }
}

fn print_notifications(list: &NotificationsReply) {
    if list.notifications.is_empty() {
        println!("no notifications");
        return;
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    for n in &list.notifications {
        let read = if n.read_at.is_some() { "    " } else { "new " };
        let ago = now.saturating_sub(n.created_at) / 1000;
        let severity = serde_json::to_value(n.severity)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let pane = n.pane_id.as_deref().unwrap_or("-");
        let body = if n.body.is_empty() {
            String::new()
        } else {
            format!(" — {}", n.body)
        };
        println!(
            "{read}{:>6}s ago  {severity:<7} {:<12} {pane}  {}{body}",
            ago, n.source, n.title
        );
    }
}

fn print_status(status: &StatusReply) {
    println!(
        "server      signaltty {} ({}), pid {}",
        status.version, status.protocol, status.pid
    );
    println!("socket      {}", status.socket);
    println!("state dir   {}", status.state_dir);
    println!("uptime      {}s", status.uptime_ms / 1000);
    println!(
        "contents    {} workspaces, {} tabs, {} panes ({} live)",
        status.workspaces, status.tabs, status.panes, status.live_panes
    );
    let snapshot = &status.snapshot;
    let saved = match snapshot.last_saved_at {
        Some(at) => format!(
            "last saved at {at} (ms since epoch), {} writes",
            snapshot.writes
        ),
        None => "not saved yet".to_string(),
    };
    println!("snapshot    {} — {saved}", snapshot.path);
    if let Some(error) = &snapshot.last_error {
        println!("SAVE ERROR  {error}");
    }
    let restore = &status.restore;
    if restore.degraded {
        println!("RESTORE     {}", restore.note);
    } else {
        println!("restore     {}", restore.note);
    }
    if status.faults_enabled {
        println!("faults      enabled (SIGNALTTY_ENABLE_FAULTS=1)");
    }
}

fn print_tree(ls: &LsReply) {
    if ls.workspaces.is_empty() {
        println!("no workspaces; create one with `signaltty ctl workspace new NAME`");
        return;
    }
    for ws in &ls.workspaces {
        let auto = if ws.auto_resume {
            "  [auto-resume]"
        } else {
            ""
        };
        println!("{}  {}  {}{auto}", ws.name, ws.id, ws.cwd);
        for tab in &ws.tabs {
            println!("  tab {}  {}", tab.id, tab.title);
            for pane in &tab.panes {
                let agent = match &pane.agent {
                    Some(agent) => {
                        let ended = if agent.ended { " (ended)" } else { "" };
                        match &agent.session_id {
                            Some(id) => format!("  {}{ended} session {id}", agent.kind),
                            None => format!("  {}{ended}", agent.kind),
                        }
                    }
                    None => String::new(),
                };
                let exit = match pane.exit_code {
                    Some(code) => format!("  exit {code}"),
                    None => String::new(),
                };
                println!(
                    "    {:<11} {}  {}  {}{agent}{exit}",
                    format!("[{}]", pane.state),
                    pane.id,
                    pane.title,
                    shorten_home(&pane.cwd)
                );
            }
        }
    }
}

fn shorten_home(path: &str) -> String {
    match std::env::var_os("HOME") {
        Some(home) if !home.is_empty() => {
            let home = Path::new(&home);
            match Path::new(path).strip_prefix(home) {
                Ok(rest) if rest.as_os_str().is_empty() => "~".to_string(),
                Ok(rest) => format!("~/{}", rest.display()),
                Err(_) => path.to_string(),
            }
        }
        _ => path.to_string(),
    }
}
