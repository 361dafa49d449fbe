//! `signaltty ctl …`: one request per command, and how its answer is shown.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use serde_json::Value;
use signaltty_persistence::Lifecycle;
use signaltty_protocol::{
    ClosedReply, EventLine, ExplainReply, LsPane, LsReply, LsWorktree, NextReply,
    NotificationsReply, PaneChange, PromptReply, ReadReply, StatusReply, WaitReply, method, params,
};

use crate::cli::{
    AgentCmd, Cli, Ctl, DebugCmd, PaneCmd, SplitDirection, TabCmd, TargetKind, WorkspaceCmd,
};
use crate::client::Client;
use crate::clock;

pub fn run(cli: &Cli, ctl: &Ctl) -> Result<ExitCode> {
    let endpoint = cli.endpoint()?;
    let mut client = Client::connect(&endpoint)?;
    let (method, params) = request(ctl, endpoint.host().is_some())?;
    if let Ctl::Events { .. } = ctl {
        return follow_events(&mut client, params, cli.json);
    }
    let result = client.call(method, params)?;
    let mut out = std::io::stdout().lock();
    let shown = if cli.json {
        writeln!(out, "{result}").map_err(anyhow::Error::from)
    } else {
        render(ctl, &result, &mut out)
    };
    match shown.and_then(|()| Ok(out.flush()?)) {
        // The reader went away (`ctl ls | head`): end quietly, as Unix
        // tools do. The request itself was done.
        Err(e) if is_broken_pipe(&e) => Ok(ExitCode::SUCCESS),
        other => other.map(|()| status(ctl, &result)),
    }
}

/// How a command that got its answer exits: `agent wait` 3 when the agent
/// waits at a dialog and 1 when it ended, like the errors BLOCKED and
/// others; everything else 0.
fn status(ctl: &Ctl, result: &Value) -> ExitCode {
    match (ctl, result["met"].as_str()) {
        (Ctl::Agent(AgentCmd::Wait { .. }), Some("blocked")) => ExitCode::from(3),
        (Ctl::Agent(AgentCmd::Wait { .. }), Some("exit")) => ExitCode::from(1),
        _ => ExitCode::SUCCESS,
    }
}

/// `ctl events`: prints each event as it comes, until the server ends the
/// stream (exit 1, saying why, when it dropped this reader).
fn follow_events(client: &mut Client, params: Value, json: bool) -> Result<ExitCode> {
    client.call(method::EVENTS, params)?;
    let mut out = std::io::stdout().lock();
    while let Some(line) = client.next_line()? {
        let event: EventLine = serde_json::from_str(&line)
            .with_context(|| format!("the server sent an event this client cannot read: {line}"))?;
        let shown = if json {
            writeln!(out, "{line}")
        } else {
            writeln!(out, "{}", describe_event(&event))
        };
        match shown.and_then(|()| out.flush()) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(ExitCode::SUCCESS),
            other => other?,
        }
        if let EventLine::Dropped(dropped) = event {
            bail!("the server stopped the event stream: {}", dropped.reason);
        }
    }
    bail!("the server closed the event stream")
}

/// `17:05:03.120 3f2a9c0d1e2b lifecycle idle → working`
fn describe_event(event: &EventLine) -> String {
    let (at, what) = match event {
        EventLine::Dropped(d) => (d.at, format!("dropped: {}", d.reason)),
        EventLine::Pane(e) => (e.at, format!("{} {}", e.pane, describe_change(&e.change))),
    };
    format!("{} {what}", clock::time_of_day(at))
}

fn describe_change(change: &PaneChange) -> String {
    match change {
        PaneChange::PaneNew { name, .. } => format!("new {name}"),
        PaneChange::PaneClosed => "closed".into(),
        PaneChange::State { state, previous } => format!("state {previous} → {state}"),
        PaneChange::Lifecycle {
            lifecycle,
            previous,
        } => format!(
            "lifecycle {} → {}",
            wire_name(*previous),
            wire_name(*lifecycle)
        ),
        PaneChange::Attention {
            attention,
            previous,
        } => format!(
            "attention {} → {}",
            wire_name(*previous),
            wire_name(*attention)
        ),
        PaneChange::Exit {
            exit_code: Some(code),
        } => format!("exit {code}"),
        PaneChange::Exit { exit_code: None } => "exit".into(),
        PaneChange::Agent { kind, ended: false } => format!("agent {kind}"),
        PaneChange::Agent { kind, ended: true } => format!("agent {kind} ended"),
        PaneChange::Session { kind, session_id } => format!("session {kind} {session_id}"),
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.downcast_ref::<std::io::Error>()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}

/// A directory given on this command line, as the server should get it:
/// made absolute against the current directory, unless the server is on
/// another machine (`remote`), where this machine's directory means
/// nothing and the path must be absolute already.
fn here(cwd: &Option<std::path::PathBuf>, remote: bool) -> Result<Option<String>> {
    let dir = match cwd {
        Some(dir) => dir.clone(),
        None => return Ok(None),
    };
    let absolute = if dir.is_absolute() {
        dir
    } else if remote {
        bail!(
            "--cwd {} is relative, but the server is on another machine; give an absolute path there",
            dir.display()
        );
    } else {
        std::env::current_dir()
            .context("could not read the current directory")?
            .join(dir)
    };
    Ok(Some(absolute.display().to_string()))
}

fn current_dir() -> Result<String> {
    Ok(std::env::current_dir()
        .context("could not read the current directory; pass --cwd")?
        .display()
        .to_string())
}

fn value<T: serde::Serialize>(params: T) -> Result<Value> {
    Ok(serde_json::to_value(params)?)
}

/// The request a command sends (to a server on another machine when
/// `remote`).
fn request(ctl: &Ctl, remote: bool) -> Result<(&'static str, Value)> {
    Ok(match ctl {
        Ctl::Status => (method::STATUS, value(params::Empty {})?),
        Ctl::Ls => (method::LS, value(params::Empty {})?),
        Ctl::Workspace(WorkspaceCmd::New {
            name,
            cwd,
            auto_resume,
            worktree,
        }) => {
            let cwd = match here(cwd, remote)? {
                Some(cwd) => Some(cwd),
                // A remote server starts it in its own directory.
                None if remote => None,
                None => Some(current_dir()?),
            };
            (
                method::WORKSPACE_NEW,
                value(params::WorkspaceNew {
                    name: name.clone(),
                    cwd,
                    auto_resume: *auto_resume,
                    worktree: worktree.clone(),
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
        Ctl::Workspace(WorkspaceCmd::Close {
            workspace,
            remove_worktree,
            force,
        }) => (
            method::WORKSPACE_CLOSE,
            value(params::Workspace {
                workspace: workspace.clone(),
                remove_worktree: *remove_worktree,
                force: *force,
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
                cwd: here(cwd, remote)?,
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
                cwd: here(&new.cwd, remote)?,
                title: new.title.clone(),
                argv: new.command.clone(),
                rows: None,
                cols: None,
                worktree: new.worktree.clone(),
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
            tail,
            scrollback,
            all,
            since,
            ansi,
            ..
        } => (
            method::PANE_READ,
            value(params::PaneRead {
                pane: pane.clone(),
                tail: *tail,
                scrollback: *scrollback,
                all: *all,
                since: *since,
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
        Ctl::Close {
            pane,
            remove_worktree,
            force,
        } => (
            method::PANE_CLOSE,
            value(params::PaneClose {
                pane: pane.clone(),
                remove_worktree: *remove_worktree,
                force: *force,
            })?,
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
        Ctl::Rename { target, name, kind } => (
            method::RENAME,
            value(params::Rename {
                target: target.clone(),
                name: name.clone(),
                kind: kind.map(|kind| match kind {
                    TargetKind::Pane => params::TargetKind::Pane,
                    TargetKind::Tab => params::TargetKind::Tab,
                    TargetKind::Workspace => params::TargetKind::Workspace,
                }),
            })?,
        ),
        Ctl::Pane(cmd) => pane_request(cmd)?,
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
            let timeout_ms = timeout.map(millis).transpose()?;
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
        Ctl::SendKeys { pane, keys } => (
            method::PANE_SEND_KEYS,
            value(params::PaneSendKeys {
                pane: pane.clone(),
                keys: keys.clone(),
            })?,
        ),
        Ctl::Agent(AgentCmd::Start {
            kind,
            workspace,
            cwd,
            worktree,
            timeout,
            args,
        }) => (
            method::AGENT_START,
            value(params::AgentStart {
                kind: kind.clone(),
                workspace: workspace.clone().filter(|w| !w.is_empty()),
                // An agent starts where it is asked for (its repository, for
                // a worktree), unless the server is elsewhere.
                cwd: match here(cwd, remote)? {
                    Some(dir) => Some(dir),
                    None if remote => None,
                    None => Some(current_dir()?),
                },
                worktree: worktree.clone(),
                args: args.clone(),
                timeout_ms: Some(millis(*timeout)?),
            })?,
        ),
        Ctl::Agent(AgentCmd::Wait { pane, timeout }) => (
            method::AGENT_WAIT,
            value(params::AgentWait {
                pane: pane.clone(),
                timeout_ms: timeout.map(millis).transpose()?,
            })?,
        ),
        Ctl::Agent(AgentCmd::Prompt { pane, text, queue }) => (
            method::AGENT_PROMPT,
            value(params::AgentPrompt {
                pane: pane.clone(),
                text: text.clone(),
                queue: *queue,
            })?,
        ),
        Ctl::Events { pane } => (
            method::EVENTS,
            value(params::Events { pane: pane.clone() })?,
        ),
        Ctl::Shutdown => (method::SHUTDOWN, value(params::Empty {})?),
        Ctl::Debug(DebugCmd::Panic { target }) => (
            method::DEBUG_PANIC,
            value(params::DebugPanic {
                target: target.clone(),
            })?,
        ),
    })
}

/// `--timeout SECS` as milliseconds.
fn millis(secs: f64) -> Result<u64> {
    if !secs.is_finite() || secs < 0.0 {
        bail!("--timeout {secs} is not a number of seconds");
    }
    Ok((secs * 1000.0) as u64)
}

fn pane_request(cmd: &PaneCmd) -> Result<(&'static str, Value)> {
    Ok(match cmd {
        PaneCmd::Swap { pane, with } => (
            method::PANE_SWAP,
            value(params::PaneSwap {
                pane: pane.clone(),
                with: with.clone(),
            })?,
        ),
        PaneCmd::Break { pane, title } => (
            method::PANE_BREAK,
            value(params::PaneBreak {
                pane: pane.clone(),
                title: title.clone(),
            })?,
        ),
        PaneCmd::Move {
            pane,
            tab,
            split,
            direction,
        } => (
            method::PANE_MOVE,
            value(params::PaneMove {
                pane: pane.clone(),
                tab: tab.clone(),
                split: split.clone(),
                direction: Some(match direction {
                    SplitDirection::Right => signaltty_persistence::Direction::Right,
                    SplitDirection::Down => signaltty_persistence::Direction::Down,
                }),
            })?,
        ),
    })
}

/// Shows a command's answer for a person.
fn render(ctl: &Ctl, result: &Value, out: &mut impl Write) -> Result<()> {
    match ctl {
        Ctl::Status => {
            let status: StatusReply = serde_json::from_value(result.clone())?;
            print_status(&status, out)?;
        }
        Ctl::Ls => {
            let ls: LsReply = serde_json::from_value(result.clone())?;
            print_tree(&ls, out)?;
        }
        Ctl::Workspace(WorkspaceCmd::New { .. })
        | Ctl::Tab(TabCmd::New { .. })
        | Ctl::New(_)
        | Ctl::Agent(AgentCmd::Start { .. }) => {
            writeln!(out, "{}", result["id"].as_str().unwrap_or_default())?;
        }
        Ctl::Read { offset: true, .. } => {
            let read: ReadReply = serde_json::from_value(result.clone())?;
            writeln!(out, "{}", read.offset)?;
        }
        Ctl::Read { .. } => {
            let read: ReadReply = serde_json::from_value(result.clone())?;
            let text = read.text.as_str();
            if text.ends_with('\n') || text.is_empty() {
                write!(out, "{text}")?;
            } else {
                writeln!(out, "{text}")?;
            }
        }
        Ctl::Resize { .. } => writeln!(out, "{}x{}", result["rows"], result["cols"])?,
        Ctl::Pane(PaneCmd::Break { .. }) => {
            writeln!(out, "{}", result["tab"].as_str().unwrap_or_default())?
        }
        Ctl::Close { .. } | Ctl::Workspace(WorkspaceCmd::Close { .. }) => {
            let closed: ClosedReply = serde_json::from_value(result.clone())?;
            print_closed(&closed, out)?;
        }
        Ctl::Next => {
            let next: NextReply = serde_json::from_value(result.clone())?;
            match next.pane {
                Some(pane) => writeln!(out, "{}", pane.id)?,
                None => bail!("no pane needs you right now"),
            }
        }
        Ctl::Notifications { .. } => {
            let list: NotificationsReply = serde_json::from_value(result.clone())?;
            print_notifications(&list, out)?;
        }
        Ctl::Explain { .. } => {
            let explained: ExplainReply = serde_json::from_value(result.clone())?;
            print_explained(&explained, out)?;
        }
        Ctl::Agent(AgentCmd::Prompt { .. }) => {
            let prompted: PromptReply = serde_json::from_value(result.clone())?;
            if let Some(position) = prompted.position {
                writeln!(out, "queued ({position})")?;
            }
        }
        Ctl::Agent(AgentCmd::Wait { .. }) => {
            let waited: WaitReply = serde_json::from_value(result.clone())?;
            match (waited.met.as_str(), waited.lifecycle, waited.exit_code) {
                ("turn_end", Some(lifecycle), _) => writeln!(out, "{}", wire_name(lifecycle))?,
                ("exit", _, Some(code)) => writeln!(out, "exit {code}")?,
                (met, ..) => writeln!(out, "{met}")?,
            }
        }
        Ctl::Wait { .. } => {
            let waited: WaitReply = serde_json::from_value(result.clone())?;
            match (waited.line, waited.exit_code) {
                (Some(line), _) => writeln!(out, "{line}")?,
                (None, Some(code)) => writeln!(out, "exit {code}")?,
                (None, None) => {}
            }
        }
        _ => {}
    }
    Ok(())
}

/// What became of each worktree a close touched.
fn print_closed(closed: &ClosedReply, out: &mut impl Write) -> std::io::Result<()> {
    for w in &closed.worktrees {
        if w.removed {
            writeln!(
                out,
                "removed worktree {} (branch {} is kept)",
                w.path, w.branch
            )?;
        } else {
            writeln!(
                out,
                "kept worktree {} (branch {}); remove it with `git worktree remove {}`",
                w.path, w.branch, w.path
            )?;
        }
    }
    Ok(())
}

/// The name a value has on the wire (`permission_required`, `warning`).
fn wire_name(value: impl serde::Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
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

fn print_explained(e: &ExplainReply, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "kind        {}", e.kind)?;
    if let Some(argv) = &e.foreground {
        writeln!(out, "foreground  {}", argv.join(" "))?;
    }
    writeln!(out, "screen      {}", e.state)?;
    if let Some(lifecycle) = e.lifecycle {
        writeln!(out, "lifecycle   {}", wire_name(lifecycle))?;
    }
    writeln!(
        out,
        "rule        {}",
        e.rule.as_deref().unwrap_or("(none matched)")
    )?;
    writeln!(out, "rules       {}", e.rules)?;
    if let Some(id) = &e.session_id {
        match &e.session_file {
            Some(file) => writeln!(out, "session     {id} (from {file})")?,
            None => writeln!(out, "session     {id}")?,
        }
    }
    if e.waiting > 0 {
        writeln!(out, "waiting     {} `ctl wait` client(s)", e.waiting)?;
    }
    for line in &e.evidence {
        writeln!(out, "  │ {line}")?;
    }
    Ok(())
}

fn print_notifications(list: &NotificationsReply, out: &mut impl Write) -> std::io::Result<()> {
    if list.notifications.is_empty() {
        return writeln!(out, "no notifications");
    }
    let now = clock::now_millis();
    for n in &list.notifications {
        let read = if n.read_at.is_some() { "    " } else { "new " };
        let ago = clock::ago(n.created_at, now);
        let severity = wire_name(n.severity);
        let pane = n.pane_id.as_deref().unwrap_or("-");
        let body = if n.body.is_empty() {
            String::new()
        } else {
            format!(" — {}", n.body)
        };
        writeln!(
            out,
            "{read}{ago:>8}  {severity:<7} {:<12} {pane}  {}{body}",
            n.source, n.title
        )?;
    }
    Ok(())
}

fn print_status(status: &StatusReply, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(
        out,
        "server      signaltty {} ({}), pid {}",
        status.version, status.protocol, status.pid
    )?;
    writeln!(out, "socket      {}", status.socket)?;
    writeln!(out, "state dir   {}", status.state_dir)?;
    writeln!(out, "uptime      {}s", status.uptime_ms / 1000)?;
    writeln!(
        out,
        "contents    {} workspaces, {} tabs, {} panes ({} live)",
        status.workspaces, status.tabs, status.panes, status.live_panes
    )?;
    let snapshot = &status.snapshot;
    let saved = match snapshot.last_saved_at {
        Some(at) => format!(
            "last saved {} ({}), {} writes",
            clock::local_time(at),
            clock::ago(at, clock::now_millis()),
            snapshot.writes
        ),
        None => "not saved yet".to_string(),
    };
    writeln!(out, "snapshot    {} — {saved}", snapshot.path)?;
    if let Some(error) = &snapshot.last_error {
        writeln!(out, "SAVE ERROR  {error}")?;
    }
    if let Some(error) = &snapshot.tail_error {
        println!("TAIL ERROR  {error}");
    }
    let restore = &status.restore;
    if restore.degraded {
        writeln!(out, "RESTORE     {}", restore.note)?;
    } else {
        writeln!(out, "restore     {}", restore.note)?;
    }
    let orphans = &status.orphans;
    if orphans.found > 0 {
        let (label, still) = match orphans.survived {
            0 => ("orphans", String::new()),
            n => ("ORPHANS", format!(", {n} STILL RUNNING")),
        };
        let noun = if orphans.found == 1 {
            "process"
        } else {
            "processes"
        };
        println!(
            "{label:<11} {} {noun} the previous server left running: {} ended by TERM, {} by KILL{still}",
            orphans.found, orphans.terminated, orphans.killed
        );
    }
    if status.faults_enabled {
        writeln!(out, "faults      enabled (SIGNALTTY_ENABLE_FAULTS=1)")?;
    }
    Ok(())
}

fn print_tree(ls: &LsReply, out: &mut impl Write) -> std::io::Result<()> {
    if ls.workspaces.is_empty() {
        return writeln!(
            out,
            "no workspaces; create one with `signaltty ctl workspace new NAME`"
        );
    }
    for ws in &ls.workspaces {
        let auto = if ws.auto_resume {
            "  [auto-resume]"
        } else {
            ""
        };
        writeln!(
            out,
            "{}  {}  {}{auto}{}{}",
            ws.name,
            ws.id,
            ws.cwd,
            worktree_badge(ws.worktree.as_ref()),
            attention_badge(ws.attention)
        )?;
        for tab in &ws.tabs {
            writeln!(out, "  tab {}  {}", tab.id, tab.title)?;
            for pane in &tab.panes {
                writeln!(out, "    {}", pane_line(pane))?;
            }
        }
    }
    Ok(())
}

fn pane_line(pane: &LsPane) -> String {
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
    let lifecycle = match pane.lifecycle {
        Lifecycle::Unknown => String::new(),
        other => format!("  {}", wire_name(other)),
    };
    let exit = match pane.exit_code {
        Some(code) => format!("  exit {code}"),
        None => String::new(),
    };
    format!(
        "{:<11} {}  {}  {}{}{agent}{lifecycle}{exit}{}",
        format!("[{}]", pane.state),
        pane.id,
        pane.name,
        shorten_home(&pane.cwd),
        worktree_badge(pane.worktree.as_ref()),
        attention_badge(pane.attention)
    )
}

/// `  worktree fix*` (`*`: uncommitted changes), or `  worktree fix GONE`.
fn worktree_badge(worktree: Option<&LsWorktree>) -> String {
    match worktree {
        None => String::new(),
        Some(w) if w.gone => format!("  worktree {} GONE", w.branch),
        Some(w) => format!("  worktree {}{}", w.branch, if w.dirty { "*" } else { "" }),
    }
}

/// `  !level` for an outstanding attention, else nothing.
fn attention_badge(attention: signaltty_persistence::Attention) -> String {
    match attention {
        signaltty_persistence::Attention::None => String::new(),
        other => format!("  !{}", wire_name(other)),
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
