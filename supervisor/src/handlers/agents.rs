//! Driving agents from scripts and from other agents: `agent.start` (a
//! pane whose agent is ready for a prompt), `agent.prompt` (typed the way
//! the agent expects, refused at a dialog or while it works) and
//! `pane.send_keys` (named keys in the program's modes).

use std::time::Duration;

use signaltty_actors::model::{Model, PaneView};
use signaltty_actors::pane::prompt::Prompted;
use signaltty_actors::pane::wait::{WaitFor, WaitMet};
use signaltty_actors::pane::{PaneMsg, ReadWhat};
use signaltty_actors::workspace::{PaneSpec, WorkspaceMsg};
use signaltty_adapters::AgentKind;
use signaltty_protocol::limits::MAX_PANES;
use signaltty_protocol::text::Plain;
use signaltty_protocol::{AgentStartReply, Done, ErrorCode, PromptReply, WireError, params};
use signaltty_screen::KeyPress;

use crate::ctx::{
    CALL_MS, Ctx, bad_params, find_pane, model, pane_actor, room_for, unavailable, wire_error,
    workspace_actor,
};
use crate::input;
use crate::messages::ServerMsg;
use signaltty_adapters::AgentFacts;
use signaltty_types::id::WorkspaceId;

/// How long `agent.start` waits for the agent's prompt unless told.
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// How many of the screen's last lines an error quotes.
const QUOTED_LINES: usize = 8;
/// The workspace `agent.start` makes when there is none.
const DEFAULT_WORKSPACE: &str = "default";

pub async fn start(ctx: &Ctx, p: params::AgentStart) -> Result<AgentStartReply, WireError> {
    let kind = p.kind;
    let program = kind.program().ok_or_else(|| {
        bad_params("generic is not an agent; start any other command with `ctl new`")
    })?;
    let model = model(ctx).await;
    room_for("panes", model.panes.len(), MAX_PANES)?;
    let workspace = pick_workspace(ctx, &model, p.workspace.as_deref()).await?;
    let model = crate::ctx::model(ctx).await;
    let record = model.resolve_workspace(&workspace).map_err(wire_error)?;
    let (cwd, worktree) = crate::worktree::requests::for_new_pane(
        &ctx.worktrees,
        &model,
        record,
        p.cwd.plain(),
        p.worktree.as_deref(),
    )
    .await?;
    let mut argv = vec![program.to_string()];
    argv.extend(p.args.plain());
    // The tab is named after the worktree when there is one: that is what
    // tells several agents of one kind apart.
    let title = Some(
        p.worktree
            .plain()
            .unwrap_or_else(|| kind.as_str().to_string()),
    );
    let spec = PaneSpec {
        argv,
        cwd,
        worktree,
        ..PaneSpec::default()
    };
    let (tab, pane) = ractor::call_t!(
        workspace_actor(&workspace)?,
        |reply| WorkspaceMsg::NewTab {
            title,
            pane: spec,
            reply
        },
        CALL_MS
    )
    .map_err(unavailable)?
    .map_err(wire_error)?;
    let view = find_pane(ctx, &pane).await?;
    let timeout = p.timeout_ms.map_or(START_TIMEOUT, Duration::from_millis);
    let met = crate::handlers::aware::wait_for(&view, WaitFor::Ready, Some(timeout)).await;
    match met {
        Ok(WaitMet::Ready) => {}
        Ok(WaitMet::Blocked) => return Err(blocked_at_start(&view, kind).await),
        Ok(WaitMet::Exit(code)) => return Err(ended_at_start(&view, kind, code).await),
        Ok(_) => return Err(WireError::new(ErrorCode::Internal, "an unexpected answer")),
        Err(timed_out) => {
            let printed = last_lines(&view).await;
            return Err(WireError::new(
                timed_out.code,
                format!(
                    "{kind} in pane {pane} showed no prompt within {:.0}s; the pane is kept \
                     (`ctl read {pane}`); its screen ends: {printed}",
                    timeout.as_secs_f64()
                ),
            ));
        }
    }
    let view = find_pane(ctx, &pane).await?;
    Ok(AgentStartReply {
        id: pane.into(),
        tab: tab.into(),
        workspace: workspace.into(),
        kind: kind.as_str().to_string(),
        session_id: view
            .record
            .agent
            .as_ref()
            .and_then(|a| a.agent_session_id.clone()),
        cwd: view.record.cwd.clone(),
        worktree: view
            .record
            .worktree
            .as_ref()
            .map(crate::listing::ls_worktree),
    })
}

/// The workspace named, or the only one, or a new `default` when there is
/// none at all.
async fn pick_workspace(
    ctx: &Ctx,
    model: &Model,
    named: Option<&str>,
) -> Result<WorkspaceId, WireError> {
    if let Some(name) = named {
        return Ok(model
            .resolve_workspace(name)
            .map_err(wire_error)?
            .id
            .clone());
    }
    match model.workspaces.as_slice() {
        [only] => Ok(only.id.clone()),
        [] => {
            let cwd = std::env::current_dir()
                .map(|d| d.display().to_string())
                .unwrap_or_else(|_| "/".into());
            ractor::call_t!(
                ctx.server,
                |reply| ServerMsg::NewWorkspace {
                    name: DEFAULT_WORKSPACE.to_string(),
                    cwd,
                    auto_resume: false,
                    worktree: None,
                    reply
                },
                CALL_MS
            )
            .map_err(unavailable)?
            .map_err(wire_error)
        }
        several => Err(bad_params(format!(
            "there are {} workspaces ({}); name one with --workspace",
            several.len(),
            several
                .iter()
                .map(|w| w.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The agent waits at a dialog: the error names it by the screen rule that
/// read it (its data file names each dialog) and quotes the rows it matched.
async fn blocked_at_start(view: &PaneView, kind: AgentKind) -> WireError {
    let pane = &view.record.id;
    let verdict = match pane_actor(view) {
        Ok(actor) => ractor::call_t!(actor, PaneMsg::Explain, CALL_MS)
            .ok()
            .map(|e| e.verdict),
        Err(_) => None,
    };
    let (dialog, evidence) = verdict.map_or_else(
        || ("a dialog".to_string(), String::new()),
        |v| {
            let dialog = v
                .rule
                .map_or_else(|| "a dialog".to_string(), |rule| format!("its {rule}"));
            (dialog, v.evidence.join(" | "))
        },
    );
    WireError::new(
        ErrorCode::Blocked,
        format!(
            "{kind} in pane {pane} waits at {dialog} before its prompt ({evidence}); answer it \
             with `ctl send-keys {pane} …` or attach, then `ctl wait {pane} --lifecycle idle`"
        ),
    )
}

/// The agent ended before it was ready: its pane is closed, and the error
/// says what it printed.
async fn ended_at_start(view: &PaneView, kind: AgentKind, code: Option<i32>) -> WireError {
    let printed = last_lines(view).await;
    let closed = crate::ctx::close_pane(view).await;
    let code = code.map_or_else(|| "?".to_string(), |c| c.to_string());
    let mut message = format!("{kind} exited with code {code} before its prompt was ready");
    if !printed.is_empty() {
        message.push_str(&format!("; it printed: {printed}"));
    }
    if closed.is_err() {
        message.push_str(&format!("; its pane {} is left EXITED", view.record.id));
    }
    if let Some(worktree) = &view.record.worktree {
        message.push_str(&format!("; its worktree {} is kept", worktree.path));
    }
    WireError::new(ErrorCode::SpawnFailed, message)
}

/// The last lines of a pane's screen, joined on one line for an error.
async fn last_lines(view: &PaneView) -> String {
    let Ok(actor) = pane_actor(view) else {
        return String::new();
    };
    let text = ractor::call_t!(
        actor,
        |reply| PaneMsg::Read {
            what: ReadWhat::Tail(QUOTED_LINES),
            ansi: false,
            reply
        },
        CALL_MS
    )
    .map(|out| out.text)
    .unwrap_or_default();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" | ")
}

pub async fn prompt(ctx: &Ctx, p: params::AgentPrompt) -> Result<PromptReply, WireError> {
    let view = find_pane(ctx, &p.pane).await?;
    let prompted = ractor::call_t!(
        pane_actor(&view)?,
        |reply| PaneMsg::Prompt {
            text: p.text.plain(),
            queue: p.queue,
            reply
        },
        CALL_MS
    )
    .map_err(unavailable)?
    .map_err(wire_error)?;
    Ok(match prompted {
        Prompted::Sent => PromptReply {
            prompt: "sent".into(),
            position: None,
        },
        Prompted::Queued(position) => PromptReply {
            prompt: "queued".into(),
            position: Some(position),
        },
    })
}

pub async fn send_keys(ctx: &Ctx, p: params::PaneSendKeys) -> Result<Done, WireError> {
    if p.keys.is_empty() {
        return Err(bad_params(
            "no keys to send; name at least one (enter, esc, shift+tab…)",
        ));
    }
    let keys = p
        .keys
        .iter()
        .map(|name| KeyPress::parse(name))
        .collect::<Result<Vec<_>, _>>()
        .map_err(bad_params)?;
    let view = find_pane(ctx, &p.pane).await?;
    let actor = pane_actor(&view)?;
    let bytes = ractor::call_t!(actor, PaneMsg::EncodeKeys, CALL_MS, keys).map_err(unavailable)?;
    let queue = ractor::call_t!(actor, PaneMsg::InputQueue, CALL_MS).map_err(unavailable)?;
    input::send(&actor, &queue, bytes, Some(input::SEND_DEADLINE))
        .await
        .map_err(|e| e.to_wire(&view.record.id))?;
    Ok(Done {})
}
