//! One handler per request: the table of contents of what a client can ask.
//!
//! Handlers run in the connection's task. Names are resolved against the
//! read model the snapshot actor publishes (ids, unique prefixes, workspace
//! names), read without a message, then the owning actor is called
//! directly, so no request waits behind another client's work — or a save
//! — in some central actor. Handlers are grouped by subject, each file
//! importing what it needs from [`crate::ctx`]. [`dispatch`] routes every
//! request and says how it is answered ([`Reply`]); the listener only
//! reads request lines and writes what it is given.

pub mod agents;
pub mod arrange;
pub mod aware;
#[cfg(any(debug_assertions, feature = "fault-injection"))]
mod faults;
mod notifications;
mod panes;
pub(crate) mod server;
mod structure;

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::Value;
use serde_json::value::RawValue;
use signaltty_actors::pane::PaneMsg;
use signaltty_protocol::{Call, Done, ErrorCode, Method, WireError, method};

use crate::attach::{self, Attached};
use crate::connection::{Connection, client_gone};
use crate::ctx::*;
use crate::events::{self, Follower, Subscriber};
use notifications::*;
use panes::*;
use server::*;
use structure::*;

/// How a request is answered.
pub enum Reply<'a> {
    /// One response line; the connection then reads its next request.
    Unary(Result<Answer, WireError>),
    /// One response line that may be long in coming (a wait), given up as
    /// soon as the client goes, so that the pane forgets the waiter at
    /// once. The connection's next request waits for it, as after any
    /// other.
    Pending(BoxFuture<'a, Result<Answer, WireError>>),
    /// The reply line, after which the connection carries the stream and
    /// nothing else; an error is the last line of the connection.
    Stream(Result<(Value, Stream), WireError>),
    /// `upgrade`: the connection itself is handed over with the server,
    /// and the new one answers on it (see `handover`); only a failure is
    /// answered here.
    HandOver(signaltty_protocol::params::Upgrade),
}

/// A reply's result.
pub enum Answer {
    Value(Value),
    /// Serialized already: `ls`, rendered once per model version.
    Serialized(Arc<RawValue>),
}

/// What follows a stream's reply.
pub enum Stream {
    /// `pane.attach`: binary frames both ways.
    Attach(Attached),
    /// `events`: a line per change to a pane.
    Events(Follower),
    /// `subscribe`: a line whenever a listing would change.
    Changes(Subscriber),
}

impl Stream {
    /// Serves the stream until it ends or its client goes.
    pub async fn serve(self, mut conn: Connection) {
        match self {
            Stream::Attach(attached) => attached.serve(conn).await,
            // Followed until the client goes, even while nothing happens.
            Stream::Events(follower) => tokio::select! {
                () = follower.serve(&mut conn.writer) => {}
                () = client_gone(&mut conn.reader) => {}
            },
            Stream::Changes(subscriber) => subscriber.serve(&mut conn.writer).await,
        }
    }
}

/// The one match over every request: the table of contents of what a
/// client can ask. Each arm names the method whose reply its handler must
/// give, so a handler answering the wrong type does not compile.
pub async fn dispatch(ctx: &Ctx, call: Call) -> Reply<'_> {
    use self::{agents, arrange, aware};
    match call {
        Call::Status(_) => answer::<method::Status>(status(ctx).await),
        // An `LsReply`, from the cache while the model stays the same.
        Call::Ls(_) => Reply::Unary(ctx.listing.of(&model(ctx).await).map(Answer::Serialized)),
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
        Call::Upgrade(p) => Reply::HandOver(p),
        #[cfg(any(debug_assertions, feature = "fault-injection"))]
        Call::DebugPanic(p) => answer::<method::DebugPanic>(faults::debug_panic(ctx, p).await),
        Call::Rename(p) => answer::<method::Rename>(arrange::rename(ctx, p).await),
        Call::Focus(p) => answer::<method::Focus>(arrange::focus(ctx, p).await),
        Call::TabSplitRatio(p) => {
            answer::<method::TabSplitRatio>(arrange::split_ratio(ctx, p).await)
        }
        Call::PaneSwap(p) => answer::<method::PaneSwap>(arrange::swap(ctx, p).await),
        Call::PaneBreak(p) => answer::<method::PaneBreak>(arrange::break_out(ctx, p).await),
        Call::PaneMove(p) => answer::<method::PaneMove>(arrange::move_pane(ctx, p).await),
        Call::PaneExplain(p) => answer::<method::PaneExplain>(aware::explain(ctx, p).await),
        Call::PaneWait(p) => pending::<method::PaneWait>(aware::wait(ctx, p)),
        Call::PaneSendKeys(p) => answer::<method::PaneSendKeys>(agents::send_keys(ctx, p).await),
        Call::AgentStart(p) => answer::<method::AgentStart>(agents::start(ctx, p).await),
        Call::AgentPrompt(p) => answer::<method::AgentPrompt>(agents::prompt(ctx, p).await),
        Call::AgentWait(p) => pending::<method::AgentWait>(aware::agent_wait(ctx, p)),
        Call::PaneAttach(p) => {
            stream::<method::PaneAttach, _>(attach::open(ctx, p).await, Stream::Attach)
        }
        Call::Events(p) => stream::<method::Events, _>(
            events::open(ctx, p)
                .await
                .map(|follower| (Done {}, follower)),
            Stream::Events,
        ),
        Call::Subscribe(_) => {
            stream::<method::Subscribe, _>(Ok((Done {}, events::subscribe(ctx))), Stream::Changes)
        }
    }
}

/// A handler's typed reply, as the wire carries it.
fn value<M: Method>(reply: Result<M::Reply, WireError>) -> Result<Value, WireError> {
    serde_json::to_value(reply?).map_err(|e| WireError::new(ErrorCode::Internal, e.to_string()))
}

/// A handler's reply, answered at once.
fn answer<M: Method>(reply: Result<M::Reply, WireError>) -> Reply<'static> {
    Reply::Unary(value::<M>(reply).map(Answer::Value))
}

/// A reply that may be long in coming.
fn pending<'a, M: Method>(
    reply: impl Future<Output = Result<M::Reply, WireError>> + Send + 'a,
) -> Reply<'a> {
    Reply::Pending(Box::pin(async move {
        value::<M>(reply.await).map(Answer::Value)
    }))
}

/// A stream's reply, and what follows it.
fn stream<M: Method, S>(
    opened: Result<(M::Reply, S), WireError>,
    kind: fn(S) -> Stream,
) -> Reply<'static> {
    Reply::Stream(opened.and_then(|(reply, follows)| {
        let reply = value::<M>(Ok(reply))?;
        Ok((reply, kind(follows)))
    }))
}
