//! The snapshot actor: the owner of the model, which it publishes as the
//! read model and hands to the writer.
//!
//! Actors push their records here on every structural change. The actor
//! applies them to its [`Model`] and publishes an immutable copy
//! ([`read`]): requests read that without a message, and the writer
//! ([`writer`]) saves it. The actor itself never touches the disk, so a
//! slow disk can stall neither it nor any request.
//!
//! The writer writes a change within [`COALESCE`] unless a write happened
//! less than [`MIN_INTERVAL`] ago, in which case it waits for the interval
//! to pass: at most one write per two seconds, and a change on disk within
//! about two seconds, never waiting for a blind tick. Content identical to
//! the last write is not rewritten; every [`PERIODIC`] a save happens
//! regardless. Tails are written only for panes that sent a new one. A
//! failing write (of the snapshot or of a tail), and a snapshot that stays
//! inconsistent, is logged, kept for `ctl status`, retried, and never stops
//! the server.

pub mod read;
#[cfg(test)]
mod tests;
pub mod writer;

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use signaltty_persistence::{MAX_NOTIFICATIONS, NotificationRecord, TabRecord, WorkspaceRecord};
use signaltty_types::PaneRecord;
use signaltty_types::id::{PaneId, TabId, WorkspaceId};
use tokio::sync::{mpsc, watch};

use crate::model::{Model, PaneView};
use crate::now_millis;
use read::Published;
use writer::WriterMsg;

/// How long a change waits for others to join it in one write.
pub const COALESCE: Duration = Duration::from_millis(100);
/// The least time between two writes.
pub const MIN_INTERVAL: Duration = Duration::from_secs(2);
/// A save happens this often even when nothing changed.
pub const PERIODIC: Duration = Duration::from_secs(60);
/// How long the model may stay inconsistent (a record on its way) before
/// `ctl status` calls it a save error.
pub const INCONSISTENT_GRACE: Duration = Duration::from_secs(5);

/// What clients that follow the model are told: a pane before and after
/// a change (for the event stream), or that something a listing shows
/// changed (for the multiplexer, which lists again).
#[derive(Debug, Clone)]
pub enum Change {
    /// A pane was created (`before` is `None`), changed, or closed
    /// (`after` is `None`), at `at` (ms since the epoch).
    Pane {
        before: Option<Arc<PaneView>>,
        after: Option<Arc<PaneView>>,
        at: u64,
    },
    /// The published model differs from the last one.
    Model,
}

/// How many changes the stream holds for its slowest follower; one that
/// falls further behind is dropped (see the listener).
pub const CHANGES_HELD: usize = 1024;

/// The channel changes go out on.
pub fn changes_channel() -> tokio::sync::broadcast::Sender<Change> {
    tokio::sync::broadcast::channel(CHANGES_HELD).0
}

pub enum SnapshotMsg {
    Workspace(WorkspaceRecord),
    Tab(TabRecord),
    Pane(Box<PaneView>),
    /// A pane's newest tail; it goes to the writer, and changes nothing a
    /// client lists.
    Tail {
        pane_id: PaneId,
        text: String,
    },
    /// A closed workspace, with its tabs and panes.
    RemoveWorkspace(WorkspaceId),
    /// A closed tab, with its panes.
    RemoveTab(TabId),
    RemovePane(PaneId),
    /// A new notification; the snapshot actor gives it its id.
    Notify(NotificationRecord),
    /// A pane was seen: its notifications are read.
    MarkRead(PaneId),
    /// Publish what was applied since the last publish.
    Publish,
    /// The current model, for actors rebuilding from it.
    Model(RpcReplyPort<Arc<Model>>),
    /// A pane's last record and tail, to rebuild it as a tombstone.
    LastPane(PaneId, RpcReplyPort<Option<(PaneRecord, Option<String>)>>),
    /// Write now, whatever the schedule says, and stop writing (shutdown).
    Flush(RpcReplyPort<Result<(), String>>),
    /// Fault injection: panic inside this handler.
    #[cfg(any(debug_assertions, feature = "fault-injection"))]
    DebugPanic,
}

/// What `ctl status` shows about saving.
#[derive(Debug, Clone, Default)]
pub struct SnapshotStatus {
    pub path: PathBuf,
    pub writes: u64,
    pub last_saved_at: Option<u64>,
    /// The last write's error, until a write succeeds again.
    pub last_error: Option<String>,
    /// The last failed tail write, until every pending tail is written.
    pub tail_error: Option<String>,
}

pub struct SnapshotArgs {
    /// What to start from (the restored snapshot's records, or nothing).
    pub model: Model,
    /// Where the model is published; the server's, kept across restarts.
    pub published: watch::Sender<Published>,
    /// The writer, the server's too.
    pub writer: mpsc::UnboundedSender<WriterMsg>,
    /// Told of every change to the model, for clients that follow it.
    pub changes: tokio::sync::broadcast::Sender<Change>,
}

pub struct SnapshotActor;

pub struct SnapshotState {
    model: Model,
    /// The last published copy of `model`.
    current: Arc<Model>,
    /// `model` differs from `current`.
    model_changed: bool,
    /// Publishes applied (see [`read`]).
    applied: u64,
    publish_scheduled: bool,
    published: watch::Sender<Published>,
    writer: mpsc::UnboundedSender<WriterMsg>,
    changes: tokio::sync::broadcast::Sender<Change>,
    /// Closed panes: a late record or tail for one of them is dropped.
    closed_panes: HashSet<PaneId>,
}

impl Actor for SnapshotActor {
    type Msg = SnapshotMsg;
    type State = SnapshotState;
    type Arguments = SnapshotArgs;

    async fn pre_start(
        &self,
        _myself: ActorRef<SnapshotMsg>,
        args: SnapshotArgs,
    ) -> Result<SnapshotState, ActorProcessingErr> {
        let mut state = SnapshotState {
            current: Arc::new(args.model.clone()),
            model: args.model,
            model_changed: false,
            // Whatever was sent to a predecessor is lost; the restart asks
            // every actor to publish again.
            applied: read::announced(),
            publish_scheduled: false,
            published: args.published,
            writer: args.writer,
            changes: args.changes,
            closed_panes: HashSet::new(),
        };
        state.publish();
        Ok(state)
    }

    async fn handle(
        &self,
        myself: ActorRef<SnapshotMsg>,
        msg: SnapshotMsg,
        state: &mut SnapshotState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            SnapshotMsg::Publish => {
                state.publish_scheduled = false;
                state.publish();
            }
            SnapshotMsg::Model(reply) => {
                state.publish();
                let _ = reply.send(state.current.clone());
            }
            SnapshotMsg::LastPane(id, reply) => state.last_pane(&id, reply),
            SnapshotMsg::Flush(reply) => {
                state.publish();
                if let Err(mpsc::error::SendError(WriterMsg::Flush(reply))) =
                    state.writer.send(WriterMsg::Flush(reply))
                {
                    let _ = reply.send(Err("the snapshot writer has stopped".into()));
                }
            }
            #[cfg(any(debug_assertions, feature = "fault-injection"))]
            SnapshotMsg::DebugPanic => panic!("fault injected into the snapshot actor"),
            published => {
                state.applied += 1;
                state.apply(published);
                if !state.publish_scheduled {
                    state.publish_scheduled = true;
                    // Behind whatever is queued already: a burst of
                    // records is published once.
                    let _ = myself.cast(SnapshotMsg::Publish);
                }
            }
        }
        Ok(())
    }
}

impl SnapshotState {
    /// Applies one published record to the model.
    fn apply(&mut self, msg: SnapshotMsg) {
        match msg {
            SnapshotMsg::Workspace(record) => {
                self.model.upsert_workspace(record);
                self.model_changed = true;
            }
            SnapshotMsg::Tab(record) => {
                self.model.upsert_tab(record);
                self.model_changed = true;
            }
            SnapshotMsg::Pane(view) => {
                if !self.closed_panes.contains(&view.record.id) {
                    let before = self.model.panes.get(&view.record.id);
                    crate::notifier::observe(
                        before.map(|b| b.record.lifecycle),
                        &view,
                        &self.model,
                    );
                    let (after, before) = self.model.upsert_pane(*view);
                    self.tell(Change::Pane {
                        before,
                        after: Some(after),
                        at: now_millis(),
                    });
                    self.model_changed = true;
                }
            }
            SnapshotMsg::Tail { pane_id, text } => {
                if !self.closed_panes.contains(&pane_id) {
                    let pane_id = pane_id.into();
                    let _ = self.writer.send(WriterMsg::Tail { pane_id, text });
                }
            }
            SnapshotMsg::RemoveWorkspace(id) => {
                let panes = self.model.remove_workspace(&id);
                self.forget_panes(panes);
            }
            SnapshotMsg::RemoveTab(id) => {
                let panes = self.model.remove_tab(&id);
                self.forget_panes(panes);
            }
            SnapshotMsg::RemovePane(id) => {
                let panes = self.model.panes.remove(&id).into_iter().collect();
                self.forget_panes(panes);
            }
            SnapshotMsg::Notify(record) => self.notify(record),
            SnapshotMsg::MarkRead(pane) => self.mark_read(&pane),
            SnapshotMsg::Publish
            | SnapshotMsg::Model(_)
            | SnapshotMsg::LastPane(..)
            | SnapshotMsg::Flush(_) => {}
            #[cfg(any(debug_assertions, feature = "fault-injection"))]
            SnapshotMsg::DebugPanic => {}
        }
    }

    /// Makes what was applied visible to readers, the writer and clients
    /// that follow changes (these only when the model changed: a tail is
    /// nothing they list).
    fn publish(&mut self) {
        if self.model_changed {
            self.model_changed = false;
            self.current = Arc::new(self.model.clone());
            self.tell(Change::Model);
        }
        self.published.send_replace(Published {
            model: self.current.clone(),
            applied: self.applied,
        });
    }

    /// Nobody listening is fine.
    fn tell(&self, change: Change) {
        let _ = self.changes.send(change);
    }

    fn forget_panes(&mut self, panes: Vec<Arc<PaneView>>) {
        self.model_changed = true;
        let at = now_millis();
        let ids: Vec<PaneId> = panes.iter().map(|p| p.record.id.clone()).collect();
        for pane in panes {
            self.tell(Change::Pane {
                before: Some(pane),
                after: None,
                at,
            });
        }
        self.closed_panes.extend(ids.iter().cloned());
        let _ = self.writer.send(WriterMsg::Forget(
            ids.into_iter().map(String::from).collect(),
        ));
    }

    fn notify(&mut self, mut record: NotificationRecord) {
        let last = self
            .model
            .notifications
            .iter()
            .map(|n| n.id)
            .max()
            .unwrap_or(0);
        record.id = last + 1;
        self.model.notifications.push(record);
        let excess = self
            .model
            .notifications
            .len()
            .saturating_sub(MAX_NOTIFICATIONS);
        self.model.notifications.drain(..excess);
        self.model_changed = true;
    }

    fn mark_read(&mut self, pane: &str) {
        let now = now_millis();
        for n in &mut self.model.notifications {
            if n.read_at.is_none() && n.pane_id.as_deref() == Some(pane) {
                n.read_at = Some(now);
                self.model_changed = true;
            }
        }
    }

    /// The record from the model, the tail from the writer (which has the
    /// newest, written or not).
    fn last_pane(&self, id: &str, reply: RpcReplyPort<Option<(PaneRecord, Option<String>)>>) {
        let Some(view) = self.model.panes.get(id) else {
            let _ = reply.send(None);
            return;
        };
        let record = Box::new(view.record.clone());
        if let Err(mpsc::error::SendError(WriterMsg::LastPane { record, reply })) =
            self.writer.send(WriterMsg::LastPane { record, reply })
        {
            let _ = reply.send(Some((*record, None)));
        }
    }
}

/// Sends a record to the snapshot actor, wherever it is right now,
/// announcing it first so that readers wait for it (see [`read`]). A
/// message sent while it restarts is lost; the restart asks every actor to
/// publish again.
pub fn publish(msg: SnapshotMsg) {
    if let Some(snapshot) = crate::names::lookup::<SnapshotMsg>(crate::names::SNAPSHOT) {
        read::announce();
        if snapshot.cast(msg).is_err() {
            read::withdraw();
        }
    }
}

/// How long an actor waits for the snapshot actor's answer.
const CALL_TIMEOUT_MS: u64 = 5_000;

/// The current model, or `None` while the snapshot actor is unreachable;
/// for actors, which have no [`read::ModelReader`].
pub async fn model() -> Option<Arc<Model>> {
    let snapshot = crate::names::lookup::<SnapshotMsg>(crate::names::SNAPSHOT)?;
    ractor::call_t!(snapshot, SnapshotMsg::Model, CALL_TIMEOUT_MS).ok()
}

/// A pane's last published record and tail, to rebuild it from.
pub async fn last_pane(pane_id: &PaneId) -> Option<(PaneRecord, Option<String>)> {
    let snapshot = crate::names::lookup::<SnapshotMsg>(crate::names::SNAPSHOT)?;
    ractor::call_t!(
        snapshot,
        SnapshotMsg::LastPane,
        CALL_TIMEOUT_MS,
        pane_id.clone()
    )
    .ok()
    .flatten()
}
