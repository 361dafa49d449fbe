//! The streams that follow changes. `events`: a line for everything that
//! happens to a pane — created, closed, its state, lifecycle and attention,
//! its exit, its agent and session — pushed as the snapshot actor applies
//! each change. `subscribe`: a `changed` line whenever a listing would
//! change, a burst of changes making one.
//!
//! Every follower reads the same bounded broadcast of changes
//! ([`CHANGES_HELD`]), so a follower costs the server no queue of its own.
//! An `events` reader that falls that far behind is told so in a last line
//! and closed, and one whose socket stays full for [`WRITE_STALL`] is
//! closed without it (it is not reading; nothing more can reach it); a
//! `subscribe` reader that falls behind is sent `changed`, which says all
//! it needs to know.

use std::time::Duration;

use signaltty_actors::model::PaneView;
use signaltty_actors::snapshot::{CHANGES_HELD, Change};
use signaltty_protocol::{
    Event, EventLine, EventsDropped, PaneChange, PaneEvent, WireError, params,
};
use signaltty_types::PaneRecord;
use tokio::io::AsyncWriteExt;
use tokio::net::unix::OwnedWriteHalf;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;

use crate::ctx::{Ctx, find_pane};

/// How long a write to a follower may wait for room in its socket.
pub const WRITE_STALL: Duration = Duration::from_secs(5);

/// An `events` client, after its reply: the changes it follows, from
/// before its request was answered, and the one pane it follows if it
/// named one.
pub struct Follower {
    changes: broadcast::Receiver<Change>,
    pane: Option<String>,
}

/// Opens an `events` stream.
pub async fn open(ctx: &Ctx, p: params::Events) -> Result<Follower, WireError> {
    let changes = ctx.changes.subscribe();
    let pane = filter(ctx, p).await?;
    Ok(Follower { changes, pane })
}

impl Follower {
    /// Writes an event line per change until the client falls behind or
    /// stops reading.
    pub async fn serve(mut self, write: &mut OwnedWriteHalf) {
        loop {
            let change = match self.changes.recv().await {
                Ok(change) => change,
                Err(RecvError::Lagged(missed)) => {
                    let dropped = EventLine::Dropped(EventsDropped {
                        event: "dropped".into(),
                        at: signaltty_actors::now_millis(),
                        reason: format!(
                            "this reader fell {missed} changes behind (the server holds \
                             {CHANGES_HELD}); read faster, or reconnect and list with `ctl ls`"
                        ),
                    });
                    let _ = send(write, &dropped).await;
                    return;
                }
                Err(RecvError::Closed) => return,
            };
            for event in pane_events(&change) {
                if self.pane.as_ref().is_some_and(|id| *id != event.pane) {
                    continue;
                }
                if send(write, &EventLine::Pane(event)).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// A `subscribe` client, after its reply.
pub struct Subscriber {
    changes: broadcast::Receiver<Change>,
}

pub fn subscribe(ctx: &Ctx) -> Subscriber {
    Subscriber {
        changes: ctx.changes.subscribe(),
    }
}

impl Subscriber {
    /// One `changed` event line whenever anything the client could list
    /// changed (bursts coalesced), until it goes.
    pub async fn serve(mut self, write: &mut OwnedWriteHalf) {
        let mut line = serde_json::to_vec(&Event::changed()).unwrap_or_default();
        line.push(b'\n');
        loop {
            match self.changes.recv().await {
                Ok(Change::Model) | Err(RecvError::Lagged(_)) => {}
                // What a listing shows comes with the model's publication.
                Ok(Change::Pane { .. }) => continue,
                Err(RecvError::Closed) => return,
            }
            tokio::time::sleep(COALESCE_EVENTS).await;
            while self.changes.try_recv().is_ok() {}
            if write.write_all(&line).await.is_err() {
                return;
            }
        }
    }
}

/// How long a burst of changes gathers into one `changed` event.
const COALESCE_EVENTS: Duration = Duration::from_millis(30);

/// The pane id to follow, if the request names one.
async fn filter(ctx: &Ctx, p: params::Events) -> Result<Option<String>, WireError> {
    match p.pane {
        Some(query) => Ok(Some(find_pane(ctx, &query).await?.record.id.into())),
        None => Ok(None),
    }
}

/// Writes one JSON line, giving up when the reader does not make room.
async fn send(write: &mut OwnedWriteHalf, value: &impl serde::Serialize) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(value).map_err(std::io::Error::other)?;
    line.push(b'\n');
    match tokio::time::timeout(WRITE_STALL, write.write_all(&line)).await {
        Ok(written) => written,
        Err(_) => Err(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            "the reader stopped reading",
        )),
    }
}

/// The events one change makes: what differs between a pane before and
/// after it.
pub fn pane_events(change: &Change) -> Vec<PaneEvent> {
    let Change::Pane { before, after, at } = change else {
        return Vec::new();
    };
    let event = |view: &PaneView, change: PaneChange| PaneEvent {
        at: *at,
        pane: view.record.id.to_string(),
        workspace: view.record.workspace_id.to_string(),
        tab: view.record.tab_id.to_string(),
        change,
    };
    match (before.as_deref(), after.as_deref()) {
        (None, Some(new)) => vec![event(
            new,
            PaneChange::PaneNew {
                name: new.name(),
                argv: new.record.argv.clone(),
            },
        )],
        (Some(old), None) => vec![event(old, PaneChange::PaneClosed)],
        (Some(old), Some(new)) => differences(old, new)
            .into_iter()
            .map(|change| event(new, change))
            .collect(),
        (None, None) => Vec::new(),
    }
}

fn differences(old: &PaneView, new: &PaneView) -> Vec<PaneChange> {
    let (was, is) = (&old.record, &new.record);
    let mut changes = Vec::new();
    if old.state != new.state {
        changes.push(PaneChange::State {
            state: new.state,
            previous: old.state,
        });
        if new.state == signaltty_actors::PaneState::Exited {
            changes.push(PaneChange::Exit {
                exit_code: is.exit_code,
            });
        }
    }
    if was.lifecycle != is.lifecycle {
        changes.push(PaneChange::Lifecycle {
            lifecycle: is.lifecycle,
            previous: was.lifecycle,
        });
    }
    if was.attention != is.attention {
        changes.push(PaneChange::Attention {
            attention: is.attention,
            previous: was.attention,
        });
    }
    let agent = |r: &PaneRecord| r.agent.as_ref().map(|a| (a.kind.to_string(), a.ended));
    if let (Some((kind, ended)), true) = (agent(is), agent(was) != agent(is)) {
        changes.push(PaneChange::Agent { kind, ended });
    }
    let session = |r: &PaneRecord| r.agent.as_ref().and_then(|a| a.agent_session_id.clone());
    if let (Some(id), true) = (session(is), session(was) != session(is)) {
        let kind = is
            .agent
            .as_ref()
            .map(|a| a.kind.to_string())
            .unwrap_or_default();
        changes.push(PaneChange::Session {
            kind,
            session_id: id,
        });
    }
    changes
}
