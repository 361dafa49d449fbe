//! `signaltty ctl …`: one request per command, and how its answer is shown.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use signaltty_protocol::{
    ClosedReply, Direction, EventLine, ExplainReply, IdReply, Lifecycle, LsPane, LsReply,
    LsWorktree, Method, Named, NotificationsReply, PaneChange, StatusReply, WaitReply, method,
    params,
};

use crate::cli::{AgentCmd, Cli, Ctl, PaneCmd, SplitDirection, TabCmd, TargetKind, WorkspaceCmd};
use crate::client::{Client, ClientError, Endpoint};
use crate::clock;
use crate::reconnect::{ResumingStream, StreamItem, UpgradeWatch, request_across_upgrades};

pub fn run(cli: &Cli, ctl: &Ctl) -> Result<ExitCode> {
    let endpoint = cli.endpoint()?;
    let mut session = Session {
        client: Client::connect(&endpoint)?,
        json: cli.json,
        remote: endpoint.host().is_some(),
        endpoint,
    };
    session.command(ctl)
}

/// A connection to the server, and how answers are shown.
struct Session {
    client: Client,
    /// Print each reply as JSON rather than for a person.
    json: bool,
    /// The server is on another machine: directories are its, not ours.
    remote: bool,
    /// Where `client` is connected, to connect again after an upgrade.
    endpoint: Endpoint,
}

/// Prints a reply for a person.
type Show<'a, R> = &'a dyn Fn(&R, &mut dyn Write) -> Result<()>;

impl Session {
    /// Calls `M`, shows its reply (`show`, or JSON with `--json`) and
    /// gives it back. A reader that went away (`ctl ls | head`) ends the
    /// output quietly, as Unix tools do: the request itself was done.
    fn ask<M: Method>(&mut self, params: M::Params, show: Show<'_, M::Reply>) -> Result<M::Reply> {
        let reply = self.client.request::<M>(params)?;
        self.show(reply, show)
    }

    /// [`Session::ask`] for a request that waits (`pane wait`, `agent
    /// wait`): when an upgrade of the server cuts it, it is sent again,
    /// with `params` asked again (for what is left of its timeout).
    fn ask_waiting<M: Method>(
        &mut self,
        params: impl FnMut() -> M::Params,
        show: Show<'_, M::Reply>,
    ) -> Result<M::Reply> {
        let mut watch = UpgradeWatch::ask(&self.endpoint, &mut self.client)?;
        let reply = request_across_upgrades::<M>(&mut self.client, watch.as_mut(), params)?;
        self.show(reply, show)
    }

    /// Shows `reply` (see [`Session::ask`]) and gives it back.
    fn show<R: serde::Serialize>(&self, reply: R, show: Show<'_, R>) -> Result<R> {
        let mut out = std::io::stdout().lock();
        let shown = if self.json {
            serde_json::to_string(&reply)
                .map_err(anyhow::Error::from)
                .and_then(|line| Ok(writeln!(out, "{line}")?))
        } else {
            show(&reply, &mut out)
        };
        match shown.and_then(|()| Ok(out.flush()?)) {
            Err(e) if is_broken_pipe(&e) => Ok(reply),
            other => other.map(|()| reply),
        }
    }

    /// [`Session::ask`] for a command whose exit says only that it worked.
    fn done<M: Method>(&mut self, params: M::Params, show: Show<'_, M::Reply>) -> Result<ExitCode> {
        self.ask::<M>(params, show).map(|_| ExitCode::SUCCESS)
    }

    /// A directory of this command line, for the server (see [`here`]).
    fn dir(&self, cwd: &Option<std::path::PathBuf>) -> Result<Option<String>> {
        here(cwd, self.remote)
    }

    /// A directory, else this one unless the server is elsewhere (then it
    /// picks its own).
    fn dir_or_here(&self, cwd: &Option<std::path::PathBuf>) -> Result<Option<String>> {
        match self.dir(cwd)? {
            Some(dir) => Ok(Some(dir)),
            None if self.remote => Ok(None),
            None => Ok(Some(current_dir()?)),
        }
    }
}

/// Nothing to show beyond success.
fn nothing<R>(_: &R, _: &mut dyn Write) -> Result<()> {
    Ok(())
}

fn print_id(reply: &IdReply, out: &mut dyn Write) -> Result<()> {
    Ok(writeln!(out, "{}", reply.id)?)
}

/// What is left of a timeout of `timeout_ms` started at `since`: a
/// request sent again after an upgrade waits no longer than the first one
/// had left.
fn left_of(timeout_ms: Option<u64>, since: Instant) -> Option<u64> {
    let waited = u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX);
    timeout_ms.map(|ms| ms.saturating_sub(waited))
}

/// How `agent wait` exits: 3 when the agent waits at a dialog and 1 when
/// it ended, as the errors BLOCKED and others do.
fn turn_status(waited: &WaitReply) -> ExitCode {
    match waited.met.as_str() {
        "blocked" => ExitCode::from(3),
        "exit" => ExitCode::from(1),
        _ => ExitCode::SUCCESS,
    }
}

/// `ctl events`: prints each event as it comes, until the server ends the
/// stream (exit 1, saying why, when it dropped this reader). An upgrade of
/// the server does not end it: the stream is opened again.
impl Session {
    fn follow_events(&mut self, params: params::Events) -> Result<ExitCode> {
        let json = self.json;
        let watch = UpgradeWatch::ask(&self.endpoint, &mut self.client)?;
        let call = method::Events::call(params.clone());
        self.client.request::<method::Events>(params)?;
        let mut stream = ResumingStream::new(&mut self.client, call, watch);
        let mut out = std::io::stdout().lock();
        while let Some(item) = stream.next()? {
            let line = match item {
                StreamItem::Line(line) => line,
                StreamItem::Resumed => {
                    // On stderr: stdout holds events only, for scripts.
                    eprintln!(
                        "signaltty: the server was upgraded; following its events again \
                         (any in between were missed)"
                    );
                    continue;
                }
            };
            let event: EventLine = serde_json::from_str(&line).with_context(|| {
                format!("the server sent an event this client cannot read: {line}")
            })?;
            let shown = if json {
                writeln!(out, "{line}")
            } else {
                writeln!(out, "{}", describe_event(&event))
            };
            match shown.and_then(|()| out.flush()) {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                    return Ok(ExitCode::SUCCESS);
                }
                other => other?,
            }
            if let EventLine::Dropped(dropped) = event {
                bail!("the server stopped the event stream: {}", dropped.reason);
            }
        }
        bail!("the server closed the event stream")
    }
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

impl Session {
    /// What each command asks the server, and how its answer is shown.
    fn command(&mut self, ctl: &Ctl) -> Result<ExitCode> {
        match ctl {
            Ctl::Status => {
                self.done::<method::Status>(params::Empty {}, &|s, out| Ok(print_status(s, out)?))
            }
            Ctl::Ls => {
                self.done::<method::Ls>(params::Empty {}, &|ls, out| Ok(print_tree(ls, out)?))
            }
            Ctl::Workspace(cmd) => self.workspace(cmd),
            Ctl::Pane(cmd) => self.pane(cmd),
            Ctl::Tab(TabCmd::New {
                workspace,
                title,
                cwd,
                command,
            }) => {
                let p = params::TabNew {
                    workspace: workspace.clone().into(),
                    title: title.clone().map(Into::into),
                    cwd: self.dir(cwd)?.map(Into::into),
                    argv: command.clone().into(),
                };
                self.done::<method::TabNew>(p, &|tab, out| Ok(writeln!(out, "{}", tab.id)?))
            }
            Ctl::Tab(TabCmd::Close { tab }) => self.done::<method::TabClose>(
                params::Tab {
                    tab: tab.clone().into(),
                },
                &nothing,
            ),
            Ctl::New(new) => {
                let p = params::PaneNew {
                    workspace: new.workspace.clone().into(),
                    tab: new.tab.clone().map(Into::into),
                    split: new.split.clone().map(Into::into),
                    direction: Some(match new.direction {
                        SplitDirection::Right => Direction::Right,
                        SplitDirection::Down => Direction::Down,
                    }),
                    cwd: self.dir(&new.cwd)?.map(Into::into),
                    title: new.title.clone().map(Into::into),
                    argv: new.command.clone().into(),
                    rows: None,
                    cols: None,
                    worktree: new.worktree.clone().map(Into::into),
                };
                self.done::<method::PaneNew>(p, &print_id)
            }
            Ctl::Send { pane, text, enter } => {
                let p = params::PaneSend {
                    pane: pane.clone().into(),
                    text: text.clone(),
                    enter: *enter,
                };
                self.done::<method::PaneSend>(p, &nothing)
            }
            Ctl::Read {
                pane,
                tail,
                scrollback,
                all,
                since,
                offset,
                ansi,
                ..
            } => {
                let p = params::PaneRead {
                    pane: pane.clone().into(),
                    tail: *tail,
                    scrollback: *scrollback,
                    all: *all,
                    since: *since,
                    ansi: *ansi,
                };
                if *offset {
                    return self.done::<method::PaneRead>(p, &|read, out| {
                        Ok(writeln!(out, "{}", read.offset)?)
                    });
                }
                self.done::<method::PaneRead>(p, &|read, out| {
                    let text = read.text.as_str();
                    if text.ends_with('\n') || text.is_empty() {
                        write!(out, "{text}")?;
                    } else {
                        writeln!(out, "{text}")?;
                    }
                    Ok(())
                })
            }
            Ctl::Resize { pane, rows, cols } => {
                let p = params::PaneResize {
                    pane: pane.clone().into(),
                    rows: *rows,
                    cols: *cols,
                };
                self.done::<method::PaneResize>(p, &|size, out| {
                    Ok(writeln!(out, "{}x{}", size.rows, size.cols)?)
                })
            }
            Ctl::Close {
                pane,
                remove_worktree,
                force,
            } => {
                let p = params::PaneClose {
                    pane: pane.clone().into(),
                    remove_worktree: *remove_worktree,
                    force: *force,
                };
                self.done::<method::PaneClose>(p, &|closed, out| Ok(print_closed(closed, out)?))
            }
            Ctl::Resume { pane } => self.done::<method::PaneResume>(
                params::Pane {
                    pane: pane.clone().into(),
                },
                &nothing,
            ),
            Ctl::Respawn { pane } => self.done::<method::PaneRespawn>(
                params::Pane {
                    pane: pane.clone().into(),
                },
                &nothing,
            ),
            Ctl::Hibernate { pane } => self.done::<method::PaneHibernate>(
                params::Pane {
                    pane: pane.clone().into(),
                },
                &nothing,
            ),
            Ctl::Pin { pane } | Ctl::Unpin { pane } => self.done::<method::PanePin>(
                params::PanePin {
                    pane: pane.clone().into(),
                    pinned: matches!(ctl, Ctl::Pin { .. }),
                },
                &nothing,
            ),
            Ctl::Wake { pane } => self.done::<method::PaneWake>(
                params::Pane {
                    pane: pane.clone().into(),
                },
                &nothing,
            ),
            Ctl::ReportSession {
                pane,
                session_id,
                agent,
            } => {
                let p = params::ReportSession {
                    pane: pane.clone().into(),
                    session_id: session_id.clone().into(),
                    agent: agent.as_deref().map(named).transpose()?,
                };
                self.done::<method::PaneReportSession>(p, &nothing)
            }
            Ctl::Kill {
                pane,
                signal,
                group,
            } => {
                let p = params::PaneKill {
                    pane: pane.clone().into(),
                    signal: Some(named(signal)?),
                    group: *group,
                };
                self.done::<method::PaneKill>(p, &nothing)
            }
            Ctl::Notify {
                pane,
                severity,
                title,
                body,
            } => {
                let p = params::Notify {
                    pane: pane.clone().map(Into::into),
                    severity: Some(named(severity)?),
                    title: title.clone().into(),
                    body: body.clone().unwrap_or_default().into(),
                };
                self.done::<method::Notify>(p, &nothing)
            }
            Ctl::Hook { agent, event, pane } => {
                let Some(pane) = pane else {
                    bail!("not inside a signaltty pane (SIGNALTTY_PANE is not set); pass --pane");
                };
                let p = crate::hook::request(agent, event, pane, &mut std::io::stdin().lock())?;
                self.done::<method::PaneHook>(p, &nothing)
            }
            Ctl::Seen { pane } => self.done::<method::PaneSeen>(
                params::Pane {
                    pane: pane.clone().into(),
                },
                &nothing,
            ),
            Ctl::Notifications { unread } => {
                let p = params::Notifications { unread: *unread };
                self.done::<method::Notifications>(p, &|list, out| {
                    Ok(print_notifications(list, out)?)
                })
            }
            Ctl::Rename { target, name, kind } => {
                let p = params::Rename {
                    target: target.clone().into(),
                    name: name.clone().into(),
                    kind: kind.map(|kind| match kind {
                        TargetKind::Pane => params::TargetKind::Pane,
                        TargetKind::Tab => params::TargetKind::Tab,
                        TargetKind::Workspace => params::TargetKind::Workspace,
                    }),
                };
                self.done::<method::Rename>(p, &nothing)
            }
            Ctl::Next => {
                self.done::<method::Next>(params::Empty {}, &|next, out| match &next.pane {
                    Some(pane) => Ok(writeln!(out, "{}", pane.id)?),
                    None => bail!("no pane needs you right now"),
                })
            }
            Ctl::Explain {
                pane,
                file,
                agent,
                title,
            } => {
                let p = params::PaneExplain {
                    pane: pane.clone().map(Into::into),
                    screen: file
                        .as_deref()
                        .map(read_screen)
                        .transpose()?
                        .map(Into::into),
                    title: title.clone().map(Into::into),
                    agent: agent.as_deref().map(named).transpose()?,
                };
                self.done::<method::PaneExplain>(p, &|e, out| Ok(print_explained(e, out)?))
            }
            Ctl::Wait {
                pane,
                exit,
                lifecycle,
                text,
                timeout,
            } => {
                let p = params::PaneWait {
                    pane: pane.clone().into(),
                    exit: *exit,
                    lifecycle: lifecycle.as_deref().map(named).transpose()?,
                    text: text.clone().map(Into::into),
                    timeout_ms: timeout.map(millis).transpose()?,
                };
                let since = Instant::now();
                let again = || params::PaneWait {
                    timeout_ms: left_of(p.timeout_ms, since),
                    ..p.clone()
                };
                self.ask_waiting::<method::PaneWait>(again, &|waited, out| {
                    match (&waited.line, waited.exit_code) {
                        (Some(line), _) => writeln!(out, "{line}")?,
                        (None, Some(code)) => writeln!(out, "exit {code}")?,
                        (None, None) => {}
                    }
                    Ok(())
                })
                .map(|_| ExitCode::SUCCESS)
            }
            Ctl::SendKeys { pane, keys } => {
                let p = params::PaneSendKeys {
                    pane: pane.clone().into(),
                    keys: keys.iter().map(|k| k.as_str().into()).collect(),
                };
                self.done::<method::PaneSendKeys>(p, &nothing)
            }
            Ctl::Events { pane } => self.follow_events(params::Events {
                pane: pane.clone().map(Into::into),
            }),
            Ctl::Agent(cmd) => self.agent(cmd),
            Ctl::Shutdown => self.done::<method::Shutdown>(params::Empty {}, &nothing),
            #[cfg(any(debug_assertions, feature = "fault-injection"))]
            Ctl::Debug(crate::cli::DebugCmd::Panic { target }) => {
                let p = params::DebugPanic {
                    target: target.clone().into(),
                };
                self.done::<method::DebugPanic>(p, &nothing)
            }
        }
    }

    fn workspace(&mut self, cmd: &WorkspaceCmd) -> Result<ExitCode> {
        match cmd {
            WorkspaceCmd::New {
                name,
                cwd,
                auto_resume,
                worktree,
            } => {
                let p = params::WorkspaceNew {
                    name: name.clone().into(),
                    cwd: self.dir_or_here(cwd)?.map(Into::into),
                    auto_resume: *auto_resume,
                    worktree: worktree.clone().map(Into::into),
                };
                self.done::<method::WorkspaceNew>(p, &print_id)
            }
            WorkspaceCmd::Set {
                workspace,
                auto_resume,
                hibernate_after,
            } => {
                let p = params::WorkspaceSet {
                    workspace: workspace.clone().into(),
                    auto_resume: *auto_resume,
                    hibernate_after: *hibernate_after,
                };
                self.done::<method::WorkspaceSet>(p, &nothing)
            }
            WorkspaceCmd::Close {
                workspace,
                remove_worktree,
                force,
            } => {
                let p = params::Workspace {
                    workspace: workspace.clone().into(),
                    remove_worktree: *remove_worktree,
                    force: *force,
                };
                self.done::<method::WorkspaceClose>(p, &|closed, out| {
                    Ok(print_closed(closed, out)?)
                })
            }
        }
    }

    /// Rearranging running panes (tmux swap-pane, break-pane, join-pane).
    fn pane(&mut self, cmd: &PaneCmd) -> Result<ExitCode> {
        match cmd {
            PaneCmd::Swap { pane, with } => {
                let p = params::PaneSwap {
                    pane: pane.as_str().into(),
                    with: with.as_str().into(),
                };
                self.done::<method::PaneSwap>(p, &nothing)
            }
            PaneCmd::Break { pane, title } => {
                let p = params::PaneBreak {
                    pane: pane.as_str().into(),
                    title: title.clone().map(Into::into),
                };
                self.done::<method::PaneBreak>(p, &|broken, out| {
                    Ok(writeln!(out, "{}", broken.tab)?)
                })
            }
            PaneCmd::Move {
                pane,
                tab,
                split,
                direction,
            } => {
                let p = params::PaneMove {
                    pane: pane.as_str().into(),
                    tab: tab.as_str().into(),
                    split: split.clone().map(Into::into),
                    direction: Some(match direction {
                        SplitDirection::Right => Direction::Right,
                        SplitDirection::Down => Direction::Down,
                    }),
                };
                self.done::<method::PaneMove>(p, &nothing)
            }
        }
    }

    fn agent(&mut self, cmd: &AgentCmd) -> Result<ExitCode> {
        match cmd {
            AgentCmd::Start {
                kind,
                workspace,
                cwd,
                worktree,
                timeout,
                args,
            } => {
                let p = params::AgentStart {
                    kind: named(kind)?,
                    workspace: workspace.clone().filter(|w| !w.is_empty()).map(Into::into),
                    // An agent starts where it is asked for (its repository,
                    // for a worktree), unless the server is elsewhere.
                    cwd: self.dir_or_here(cwd)?.map(Into::into),
                    worktree: worktree.clone().map(Into::into),
                    args: args.clone().into(),
                    timeout_ms: Some(millis(*timeout)?),
                };
                self.done::<method::AgentStart>(p, &|started, out| {
                    Ok(writeln!(out, "{}", started.id)?)
                })
            }
            AgentCmd::Prompt { pane, text, queue } => {
                let p = params::AgentPrompt {
                    pane: pane.clone().into(),
                    text: text.clone().into(),
                    queue: *queue,
                };
                self.done::<method::AgentPrompt>(p, &|prompted, out| {
                    if let Some(position) = prompted.position {
                        writeln!(out, "queued ({position})")?;
                    }
                    Ok(())
                })
            }
            AgentCmd::Wait { pane, timeout } => {
                let p = params::AgentWait {
                    pane: pane.clone().into(),
                    timeout_ms: timeout.map(millis).transpose()?,
                };
                let since = Instant::now();
                let again = || params::AgentWait {
                    timeout_ms: left_of(p.timeout_ms, since),
                    ..p.clone()
                };
                let waited = self.ask_waiting::<method::AgentWait>(again, &|waited, out| {
                    match (waited.met.as_str(), waited.lifecycle, waited.exit_code) {
                        ("turn_end", Some(lifecycle), _) => {
                            writeln!(out, "{}", wire_name(lifecycle))?
                        }
                        ("exit", _, Some(code)) => writeln!(out, "exit {code}")?,
                        (met, ..) => writeln!(out, "{met}")?,
                    }
                    Ok(())
                })?;
                Ok(turn_status(&waited))
            }
        }
    }
}

/// A word of the command line that names a signal, a severity, a
/// lifecycle: refused here as the server would refuse it.
fn named<T: Named>(word: &str) -> Result<T, ClientError> {
    T::from_word(word).map_err(ClientError::BadParams)
}

/// `--timeout SECS` as milliseconds.
fn millis(secs: f64) -> Result<u64> {
    if !secs.is_finite() || secs < 0.0 {
        bail!("--timeout {secs} is not a number of seconds");
    }
    Ok((secs * 1000.0) as u64)
}

/// What became of each worktree a close touched.
fn print_closed(closed: &ClosedReply, out: &mut dyn Write) -> std::io::Result<()> {
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
    let max = signaltty_protocol::text::MAX_EXPLAIN_SCREEN as u64;
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

fn print_explained(e: &ExplainReply, out: &mut dyn Write) -> std::io::Result<()> {
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
    if let Some(keys) = &e.keys {
        writeln!(out, "keys        {keys}")?;
    }
    if let Some(sleep) = &e.sleep {
        writeln!(out, "sleep       {sleep}")?;
    }
    if let Some(resume) = &e.resume {
        writeln!(out, "resume      {}", resume.argv.join(" "))?;
        let words = |list: &[String]| match list.is_empty() {
            true => "(nothing)".to_string(),
            false => signaltty_protocol::shown_words(list),
        };
        writeln!(out, "  keeps     {}", words(&resume.kept))?;
        writeln!(out, "  drops     {}", words(&resume.dropped))?;
    }
    for line in &e.evidence {
        writeln!(out, "  │ {line}")?;
    }
    Ok(())
}

fn print_notifications(list: &NotificationsReply, out: &mut dyn Write) -> std::io::Result<()> {
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

fn print_status(status: &StatusReply, out: &mut dyn Write) -> std::io::Result<()> {
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

fn print_tree(ls: &LsReply, out: &mut dyn Write) -> std::io::Result<()> {
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
fn attention_badge(attention: signaltty_protocol::Attention) -> String {
    match attention {
        signaltty_protocol::Attention::None => String::new(),
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
