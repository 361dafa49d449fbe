//! One handler per request: the table of contents of what a client can ask.
//!
//! Handlers run in the connection's task. Names are resolved against the
//! read model the snapshot actor publishes (ids, unique prefixes, workspace
//! names), read without a message, then the owning actor is called
//! directly, so no request waits behind another client's work — or a save
//! — in some central actor. Handlers are grouped by subject, each file
//! importing what it needs from [`crate::ctx`] and nothing from another.

pub mod agents;
pub mod arrange;
pub mod aware;
mod notifications;
mod panes;
mod server;
mod structure;

use serde_json::Value;
use signaltty_actors::pane::PaneMsg;
use signaltty_protocol::{Call, ErrorCode, Method, WireError, method};

use crate::ctx::*;
use notifications::*;
use panes::*;
use server::*;
use structure::*;

/// The one match over every request: the table of contents of what a
/// client can ask. Each arm names the method whose reply its handler must
/// give, so a handler answering the wrong type does not compile. The
/// listener serves the streams itself (`pane.attach`, `subscribe`,
/// `events`) and `ls` from its cache.
pub async fn dispatch(ctx: &Ctx, call: Call) -> Result<Value, WireError> {
    use self::{agents, arrange, aware};
    match call {
        Call::Status(_) => answer::<method::Status>(status(ctx).await),
        Call::Ls(_) => answer::<method::Ls>(Ok(crate::listing::listing(&*model(ctx).await))),
        Call::WorkspaceNew(p) => answer::<method::WorkspaceNew>(workspace_new(ctx, p).await),
        Call::WorkspaceSet(p) => answer::<method::WorkspaceSet>(workspace_set(ctx, p).await),
        Call::WorkspaceClose(p) => answer::<method::WorkspaceClose>(workspace_close(ctx, p).await),
        Call::TabNew(p) => answer::<method::TabNew>(tab_new(ctx, p).await),
        Call::TabClose(p) => answer::<method::TabClose>(tab_close(ctx, p).await),
        Call::PaneNew(p) => answer::<method::PaneNew>(pane_new(ctx, p).await),
        Call::PaneSend(p) => answer::<method::PaneSend>(pane_send(ctx, p).await),
        Call::PaneRead(p) => answer::<method::PaneRead>(pane_read(ctx, p).await),
        Call::PaneClose(p) => answer::<method::PaneClose>(pane_close(ctx, p).await),
        Call::PaneKill(p) => answer::<method::PaneKill>(pane_kill(ctx, p).await),
        Call::PaneResize(p) => answer::<method::PaneResize>(pane_resize(ctx, p).await),
        Call::PaneResume(p) => {
            answer::<method::PaneResume>(pane_revive(ctx, p, PaneMsg::Resume).await)
        }
        Call::PaneRespawn(p) => {
            answer::<method::PaneRespawn>(pane_revive(ctx, p, PaneMsg::Respawn).await)
        }
        Call::PaneHibernate(p) => {
            answer::<method::PaneHibernate>(pane_revive(ctx, p, PaneMsg::Hibernate).await)
        }
        Call::PaneWake(p) => answer::<method::PaneWake>(pane_revive(ctx, p, PaneMsg::Wake).await),
        Call::PanePin(p) => answer::<method::PanePin>(pane_pin(ctx, p).await),
        Call::PaneReportSession(p) => {
            answer::<method::PaneReportSession>(pane_report_session(ctx, p).await)
        }
        Call::PaneSeen(p) => answer::<method::PaneSeen>(pane_seen(ctx, p).await),
        Call::PaneHook(p) => answer::<method::PaneHook>(pane_hook(ctx, p).await),
        Call::Notify(p) => answer::<method::Notify>(notify(ctx, p).await),
        Call::Notifications(p) => answer::<method::Notifications>(notifications(ctx, p).await),
        Call::Next(_) => answer::<method::Next>(next(ctx).await),
        Call::Shutdown(_) => answer::<method::Shutdown>(shutdown(ctx)),
        Call::DebugPanic(p) => answer::<method::DebugPanic>(debug_panic(ctx, p).await),
        Call::Rename(p) => answer::<method::Rename>(arrange::rename(ctx, p).await),
        Call::Focus(p) => answer::<method::Focus>(arrange::focus(ctx, p).await),
        Call::TabSplitRatio(p) => {
            answer::<method::TabSplitRatio>(arrange::split_ratio(ctx, p).await)
        }
        Call::PaneSwap(p) => answer::<method::PaneSwap>(arrange::swap(ctx, p).await),
        Call::PaneBreak(p) => answer::<method::PaneBreak>(arrange::break_out(ctx, p).await),
        Call::PaneMove(p) => answer::<method::PaneMove>(arrange::move_pane(ctx, p).await),
        Call::PaneExplain(p) => answer::<method::PaneExplain>(aware::explain(ctx, p).await),
        Call::PaneWait(p) => answer::<method::PaneWait>(aware::wait(ctx, p).await),
        Call::PaneSendKeys(p) => answer::<method::PaneSendKeys>(agents::send_keys(ctx, p).await),
        Call::AgentStart(p) => answer::<method::AgentStart>(agents::start(ctx, p).await),
        Call::AgentPrompt(p) => answer::<method::AgentPrompt>(agents::prompt(ctx, p).await),
        Call::AgentWait(p) => answer::<method::AgentWait>(aware::agent_wait(ctx, p).await),
        Call::PaneAttach(_) | Call::Subscribe(_) | Call::Events(_) => Err(WireError::new(
            ErrorCode::Internal,
            "a stream is served by the connection, not dispatched",
        )),
    }
}

/// A handler's typed reply, as the wire carries it.
fn answer<M: Method>(reply: Result<M::Reply, WireError>) -> Result<Value, WireError> {
    serde_json::to_value(reply?).map_err(|e| WireError::new(ErrorCode::Internal, e.to_string()))
}
