//! A pane's life: made, typed into, read, closed, signalled, resized,
//! revived, its session reported, seen, and its agent's hooks.

use crate::input;
use crate::worktree::requests::{self as worktrees, Closing};
use signaltty_actors::ActorError;
use signaltty_actors::pane::{PaneMsg, ReadWhat};
use signaltty_actors::tab::SplitAt;
use signaltty_actors::workspace::{PaneSpec, WorkspaceMsg};
use signaltty_adapters as adapters;
use signaltty_persistence::Direction;
use signaltty_protocol::limits::MAX_PANES;
use signaltty_protocol::text::Plain;
use signaltty_protocol::{
    ClosedReply, Done, ErrorCode, IdReply, ReadReply, ResizeReply, Signal, WireError, params,
};

use crate::ctx::*;

pub(crate) async fn pane_new(ctx: &Ctx, p: params::PaneNew) -> Result<IdReply, WireError> {
    let model = model(ctx).await;
    room_for("panes", model.panes.len(), MAX_PANES)?;
    let ws = model.resolve_workspace(&p.workspace).map_err(wire_error)?;
    let direction = p.direction.unwrap_or(Direction::Right);
    let split_pane = match &p.split {
        Some(query) => Some(model.resolve_pane(query).map_err(wire_error)?),
        None => None,
    };
    let mut tab = match &p.tab {
        Some(query) => Some(model.resolve_tab(query).map_err(wire_error)?),
        None => None,
    };
    if let Some(t) = tab
        && t.workspace_id != ws.id
    {
        return Err(WireError::new(
            ErrorCode::BadParams,
            format!("tab {} is not in workspace {}", t.id, ws.name),
        ));
    }
    if let Some(pane) = split_pane {
        let record = &pane.record;
        if record.workspace_id != ws.id || tab.is_some_and(|t| t.id != record.tab_id) {
            return Err(WireError::new(
                ErrorCode::BadParams,
                format!("pane {} is not in that workspace and tab", record.id),
            ));
        }
        tab = model.tabs.get(&record.tab_id);
    }
    let actor = workspace_actor(&ws.id)?;
    let (cwd, worktree) = worktrees::for_new_pane(
        &ctx.worktrees,
        &model,
        ws,
        p.cwd.plain(),
        p.worktree.as_deref(),
    )
    .await?;
    let spec = PaneSpec {
        argv: p.argv.plain(),
        cwd,
        title: p.title.plain(),
        rows: p.rows,
        cols: p.cols,
        worktree,
    };
    let split = SplitAt {
        pane: split_pane.map(|v| v.record.id.clone()),
        direction,
    };
    let tab = tab.map(|t| t.id.clone());
    let id = ractor::call_t!(
        actor,
        |reply| WorkspaceMsg::NewPane {
            tab,
            split,
            pane: spec,
            reply
        },
        CALL_MS
    )
    .map_err(unavailable)?
    .map_err(wire_error)?;
    Ok(IdReply { id: id.into() })
}

pub(crate) async fn pane_send(ctx: &Ctx, p: params::PaneSend) -> Result<Done, WireError> {
    let view = find_pane(ctx, &p.pane).await?;
    let mut bytes = p.text.into_bytes();
    if p.enter {
        bytes.push(b'\r');
    }
    let actor = pane_actor(&view)?;
    let queue = ractor::call_t!(actor, PaneMsg::InputQueue, CALL_MS).map_err(unavailable)?;
    input::send(&actor, &queue, bytes, Some(input::SEND_DEADLINE))
        .await
        .map_err(|e| e.to_wire(&view.record.id))?;
    Ok(Done {})
}

pub(crate) async fn pane_read(ctx: &Ctx, p: params::PaneRead) -> Result<ReadReply, WireError> {
    let view = find_pane(ctx, &p.pane).await?;
    let what = match (p.tail, p.scrollback, p.all, p.since) {
        (None, None, false, None) => ReadWhat::Screen,
        (Some(lines), None, false, None) => ReadWhat::Tail(lines),
        (None, Some(lines), false, None) => ReadWhat::Scrollback(lines),
        (None, None, true, None) => ReadWhat::Tail(usize::MAX),
        (None, None, false, Some(offset)) => ReadWhat::Since(offset),
        _ => {
            return Err(bad_params(
                "read the screen, or one of --tail N, --scrollback N, --all, --since OFFSET",
            ));
        }
    };
    let actor = pane_actor(&view)?;
    let out = ractor::call_t!(
        actor,
        |reply| PaneMsg::Read {
            what,
            ansi: p.ansi,
            reply
        },
        CALL_MS
    )
    .map_err(unavailable)?;
    Ok(ReadReply {
        text: out.text,
        offset: out.offset,
        missed: out.missed,
    })
}

pub(crate) async fn pane_close(ctx: &Ctx, p: params::PaneClose) -> Result<ClosedReply, WireError> {
    let model = model(ctx).await;
    let view = model.resolve_pane(&p.pane).map_err(wire_error)?;
    let closing = Closing {
        panes: vec![&view.record],
        workspace: None,
    };
    let planned =
        worktrees::plan_close(&ctx.worktrees, &model, &closing, p.remove_worktree, p.force).await?;
    close_pane(view).await?;
    let closed =
        worktrees::finish_close(&ctx.worktrees, planned, p.remove_worktree, p.force).await?;
    Ok(closed)
}

/// The number of a signal a client may send.
pub(crate) fn signal_number(signal: Signal) -> i32 {
    match signal {
        Signal::Hup => libc::SIGHUP,
        Signal::Int => libc::SIGINT,
        Signal::Quit => libc::SIGQUIT,
        Signal::Term => libc::SIGTERM,
        Signal::Kill => libc::SIGKILL,
        Signal::Usr1 => libc::SIGUSR1,
        Signal::Usr2 => libc::SIGUSR2,
        Signal::Cont => libc::SIGCONT,
        Signal::Stop => libc::SIGSTOP,
        Signal::Tstp => libc::SIGTSTP,
        Signal::Winch => libc::SIGWINCH,
    }
}

pub(crate) async fn pane_kill(ctx: &Ctx, p: params::PaneKill) -> Result<Done, WireError> {
    let signal = signal_number(p.signal.unwrap_or(Signal::Term));
    let view = find_pane(ctx, &p.pane).await?;
    let actor = pane_actor(&view)?;
    let group = p.group;
    ractor::call_t!(
        actor,
        |reply| PaneMsg::Signal {
            signal,
            group,
            reply
        },
        CALL_MS
    )
    .map_err(unavailable)?
    .map_err(wire_error)?;
    Ok(Done {})
}

pub(crate) async fn pane_resize(
    ctx: &Ctx,
    p: params::PaneResize,
) -> Result<ResizeReply, WireError> {
    let view = find_pane(ctx, &p.pane).await?;
    let actor = pane_actor(&view)?;
    let size = ractor::call_t!(
        actor,
        |reply| PaneMsg::Resize {
            rows: p.rows,
            cols: p.cols,
            reply
        },
        CALL_MS
    )
    .map_err(unavailable)?;
    Ok(ResizeReply {
        rows: size.rows,
        cols: size.cols,
    })
}

/// Resume or respawn: the pane answers once its new child has survived its
/// first moments, or with what went wrong. Right after a start it first
/// waits for what the previous server left running to be ended.
pub(crate) async fn pane_revive(
    ctx: &Ctx,
    p: params::Pane,
    message: fn(ractor::RpcReplyPort<Result<(), ActorError>>) -> PaneMsg,
) -> Result<Done, WireError> {
    let view = find_pane(ctx, &p.pane).await?;
    worktrees::check_revivable(&view.record).await?;
    let actor = pane_actor(&view)?;
    crate::orphans::settled(&ctx.orphans).await;
    ractor::call_t!(actor, message, CALL_MS)
        .map_err(unavailable)?
        .map_err(wire_error)?;
    Ok(Done {})
}

/// Keeps a pane awake, or lets it sleep again.
pub(crate) async fn pane_pin(ctx: &Ctx, p: params::PanePin) -> Result<Done, WireError> {
    let view = find_pane(ctx, &p.pane).await?;
    let actor = pane_actor(&view)?;
    ractor::call_t!(actor, PaneMsg::Pin, CALL_MS, p.pinned).map_err(unavailable)?;
    Ok(Done {})
}

pub(crate) async fn pane_report_session(
    ctx: &Ctx,
    p: params::ReportSession,
) -> Result<Done, WireError> {
    let view = find_pane(ctx, &p.pane).await?;
    let actor = pane_actor(&view)?;
    ractor::call_t!(
        actor,
        |reply| PaneMsg::ReportSession {
            kind: p.agent,
            id: p.session_id.plain(),
            reply
        },
        CALL_MS
    )
    .map_err(unavailable)?
    .map_err(wire_error)?;
    Ok(Done {})
}

pub(crate) async fn pane_seen(ctx: &Ctx, p: params::Pane) -> Result<Done, WireError> {
    let view = find_pane(ctx, &p.pane).await?;
    ractor::call_t!(pane_actor(&view)?, PaneMsg::Seen, CALL_MS).map_err(unavailable)?;
    Ok(Done {})
}

pub(crate) async fn pane_hook(ctx: &Ctx, p: params::PaneHook) -> Result<Done, WireError> {
    let kind = p.agent;
    let event =
        adapters::hook_event(kind, &p.event, p.payload_type.as_deref()).map_err(bad_params)?;
    let effect = adapters::hook_effect(kind, event, p.message.as_deref()).map_err(bad_params)?;
    let view = find_pane(ctx, &p.pane).await?;
    ractor::call_t!(
        pane_actor(&view)?,
        |reply| PaneMsg::Hook {
            kind,
            event: event.to_string(),
            effect,
            session_id: p.session_id.plain(),
            message: p.message.plain(),
            reply
        },
        CALL_MS
    )
    .map_err(unavailable)?
    .map_err(wire_error)?;
    Ok(Done {})
}
