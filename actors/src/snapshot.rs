//! The snapshot actor: debounces published records into atomic writes.
//!
//! Actors push their records here on every structural change. A change is
//! written within [`COALESCE`] unless a write happened less than
//! [`MIN_INTERVAL`] ago, in which case it waits for the interval to pass:
//! at most one write per two seconds, and a change on disk within about two
//! seconds, never waiting for a blind tick. Content identical to the last
//! write is not rewritten; every [`PERIODIC`] a save happens regardless.
//! Tails are written only for panes that sent a new one. A failing write
//! (of the snapshot or of a tail), and a snapshot that stays inconsistent,
//! is logged, kept for `ctl status`, retried, and never stops the server.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use signaltty_persistence::{
    MAX_NOTIFICATIONS, NotificationRecord, PaneRecord, ServerInfo, Snapshot, StateDir, TabRecord,
    TailStore, WorkspaceRecord,
};
use tracing::{error, info, warn};

use crate::model::{Model, PaneView};
use crate::now_millis;

/// How long a change waits for others to join it in one write.
pub const COALESCE: Duration = Duration::from_millis(100);
/// The least time between two writes.
pub const MIN_INTERVAL: Duration = Duration::from_secs(2);
/// A save happens this often even when nothing changed.
pub const PERIODIC: Duration = Duration::from_secs(60);
/// How long the model may stay inconsistent (a record on its way) before
/// `ctl status` calls it a save error.
pub const INCONSISTENT_GRACE: Duration = Duration::from_secs(5);

pub enum SnapshotMsg {
    Workspace(WorkspaceRecord),
    Tab(TabRecord),
    Pane(Box<PaneView>),
    Tail {
        pane_id: String,
        text: String,
    },
    /// A closed workspace, with its tabs and panes.
    RemoveWorkspace(String),
    /// A closed tab, with its panes.
    RemoveTab(String),
    RemovePane(String),
    /// A new notification; the snapshot actor gives it its id.
    Notify(NotificationRecord),
    /// A pane was seen: its notifications are read.
    MarkRead(String),
    /// A copy of the whole model, for listings.
    Model(RpcReplyPort<Model>),
    /// A pane's last record and tail, to rebuild it as a tombstone.
    LastPane(String, RpcReplyPort<Option<(PaneRecord, Option<String>)>>),
    /// Write now, whatever the debounce says (shutdown).
    Flush(RpcReplyPort<Result<(), String>>),
    Status(RpcReplyPort<SnapshotStatus>),
    WriteDue,
    PeriodicSave,
    /// Fault injection: panic inside this handler.
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
    pub state_dir: Arc<StateDir>,
    pub tails: Arc<TailStore>,
    pub server: ServerInfo,
    /// What to start from (the restored snapshot's records, or nothing).
    pub model: Model,
    /// Told of every change to the model, for clients that follow it.
    pub changes: tokio::sync::broadcast::Sender<()>,
}

pub struct SnapshotActor;

pub struct SnapshotState {
    state_dir: Arc<StateDir>,
    tails: Arc<TailStore>,
    server: ServerInfo,
    model: Model,
    changes: tokio::sync::broadcast::Sender<()>,
    /// Tails waiting for the next write, newest per pane.
    pending_tails: HashMap<String, String>,
    /// Closed panes: a late record or tail for one of them is dropped.
    closed_panes: HashSet<String>,
    dirty: bool,
    write_scheduled: bool,
    last_write: Option<Instant>,
    /// The last snapshot written, with `saved_at` zeroed for comparison.
    last_written: Option<Snapshot>,
    /// Since when the model has failed validation, while it does.
    inconsistent_since: Option<Instant>,
    status: SnapshotStatus,
}

impl Actor for SnapshotActor {
    type Msg = SnapshotMsg;
    type State = SnapshotState;
    type Arguments = SnapshotArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<SnapshotMsg>,
        args: SnapshotArgs,
    ) -> Result<SnapshotState, ActorProcessingErr> {
        myself.send_interval(PERIODIC, || SnapshotMsg::PeriodicSave);
        Ok(SnapshotState {
            status: SnapshotStatus {
                path: args.state_dir.snapshot_path(),
                ..SnapshotStatus::default()
            },
            state_dir: args.state_dir,
            tails: args.tails,
            server: args.server,
            model: args.model,
            changes: args.changes,
            pending_tails: HashMap::new(),
            closed_panes: HashSet::new(),
            dirty: false,
            write_scheduled: false,
            last_write: None,
            last_written: None,
            inconsistent_since: None,
        })
    }

    async fn handle(
        &self,
        myself: ActorRef<SnapshotMsg>,
        msg: SnapshotMsg,
        state: &mut SnapshotState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            SnapshotMsg::Workspace(record) => {
                state.model.upsert_workspace(record);
                state.changed(&myself);
            }
            SnapshotMsg::Tab(record) => {
                state.model.tabs.insert(record.id.clone(), record);
                state.changed(&myself);
            }
            SnapshotMsg::Pane(view) => {
                if !state.closed_panes.contains(&view.record.id) {
                    let before = state.model.panes.get(&view.record.id);
                    crate::notifier::observe(
                        before.map(|b| b.record.lifecycle),
                        &view,
                        &state.model,
                    );
                    state.model.panes.insert(view.record.id.clone(), *view);
                    state.changed(&myself);
                }
            }
            SnapshotMsg::Tail { pane_id, text } => {
                if !state.closed_panes.contains(&pane_id) {
                    state.pending_tails.insert(pane_id, text);
                    state.changed(&myself);
                }
            }
            SnapshotMsg::RemoveWorkspace(id) => {
                let panes = state.model.remove_workspace(&id);
                state.forget_panes(panes).await;
                state.changed(&myself);
            }
            SnapshotMsg::RemoveTab(id) => {
                let panes = state.model.remove_tab(&id);
                state.forget_panes(panes).await;
                state.changed(&myself);
            }
            SnapshotMsg::RemovePane(id) => {
                state.model.panes.remove(&id);
                state.forget_panes(vec![id]).await;
                state.changed(&myself);
            }
            SnapshotMsg::Notify(mut record) => {
                let last = state
                    .model
                    .notifications
                    .iter()
                    .map(|n| n.id)
                    .max()
                    .unwrap_or(0);
                record.id = last + 1;
                state.model.notifications.push(record);
                let excess = state
                    .model
                    .notifications
                    .len()
                    .saturating_sub(MAX_NOTIFICATIONS);
                state.model.notifications.drain(..excess);
                state.changed(&myself);
            }
            SnapshotMsg::MarkRead(pane) => {
                let now = now_millis();
                let mut marked = false;
                for n in &mut state.model.notifications {
                    if n.read_at.is_none() && n.pane_id.as_deref() == Some(pane.as_str()) {
                        n.read_at = Some(now);
                        marked = true;
                    }
                }
                if marked {
                    state.changed(&myself);
                }
            }
            SnapshotMsg::Model(reply) => {
                let _ = reply.send(state.model.clone());
            }
            SnapshotMsg::LastPane(id, reply) => {
                let last = match state.model.panes.get(&id) {
                    Some(view) => {
                        let tail = match state.pending_tails.get(&id) {
                            Some(text) => Some(text.clone()),
                            None => state.read_tail(&id).await,
                        };
                        Some((view.record.clone(), tail))
                    }
                    None => None,
                };
                let _ = reply.send(last);
            }
            SnapshotMsg::Flush(reply) => {
                let result = state.write(true).await;
                let _ = reply.send(result);
            }
            SnapshotMsg::Status(reply) => {
                let _ = reply.send(state.status.clone());
            }
            SnapshotMsg::WriteDue => {
                state.write_scheduled = false;
                if state.dirty {
                    let _ = state.write(false).await;
                    // Whatever failed (the snapshot or a tail) is retried.
                    if state.dirty {
                        state.schedule(&myself);
                    }
                }
            }
            SnapshotMsg::PeriodicSave => {
                let _ = state.write(true).await;
            }
            SnapshotMsg::DebugPanic => panic!("fault injected into the snapshot actor"),
        }
        Ok(())
    }
}

impl SnapshotState {
    fn changed(&mut self, myself: &ActorRef<SnapshotMsg>) {
        // Nobody listening is fine.
        let _ = self.changes.send(());
        self.dirty = true;
        self.schedule(myself);
    }

    fn schedule(&mut self, myself: &ActorRef<SnapshotMsg>) {
        if self.write_scheduled {
            return;
        }
        let delay = match self.last_write {
            Some(at) => (at + MIN_INTERVAL)
                .saturating_duration_since(Instant::now())
                .max(COALESCE),
            None => COALESCE,
        };
        self.write_scheduled = true;
        myself.send_after(delay, || SnapshotMsg::WriteDue);
    }

    async fn forget_panes(&mut self, ids: Vec<String>) {
        for id in &ids {
            self.pending_tails.remove(id);
        }
        let tails = self.tails.clone();
        let deleted = tokio::task::spawn_blocking(move || {
            for id in &ids {
                if let Err(e) = tails.delete(id) {
                    warn!(pane = %id, error = %e, "could not delete a closed pane's tail");
                }
            }
            ids
        })
        .await;
        if let Ok(ids) = deleted {
            self.closed_panes.extend(ids);
        }
    }

    async fn read_tail(&self, id: &str) -> Option<String> {
        let tails = self.tails.clone();
        let id = id.to_string();
        tokio::task::spawn_blocking(move || tails.read(&id).ok().flatten())
            .await
            .ok()
            .flatten()
    }

    /// Writes the snapshot (unless unchanged and not `force`) and pending
    /// tails, off the actor's thread.
    async fn write(&mut self, force: bool) -> Result<(), String> {
        let mut snapshot = self.model.to_snapshot(self.server.clone());
        if let Err(e) = snapshot.validate() {
            // Never write what a load would reject: that would lose the
            // previous good file's place. Records catch up within moments;
            // if they do not, that is a save error like any other.
            warn!(error = %e, "snapshot not consistent yet; retrying");
            let since = *self.inconsistent_since.get_or_insert_with(Instant::now);
            if since.elapsed() >= INCONSISTENT_GRACE {
                let error = format!("the snapshot is inconsistent and is not saved: {e}");
                if self.status.last_error.as_ref() != Some(&error) {
                    error!(error = %e, "SNAPSHOT NOT SAVED; the previous file is intact");
                }
                self.status.last_error = Some(error);
            }
            return Err(e.to_string());
        }
        self.inconsistent_since = None;
        let unchanged = self.last_written.as_ref() == Some(&snapshot);
        let tails: Vec<(String, String)> = self.pending_tails.drain().collect();
        if unchanged && !force && tails.is_empty() {
            // No tail is pending any more: none is failing either.
            self.tails_written(Vec::new());
            self.dirty = false;
            return Ok(());
        }
        let compare = snapshot.clone();
        snapshot.server.saved_at = now_millis();
        let saved_at = snapshot.server.saved_at;
        let write_snapshot = force || !unchanged;
        let dir = self.state_dir.clone();
        let tail_store = self.tails.clone();
        let outcome = tokio::task::spawn_blocking(move || {
            // Tails are files of their own: a failing snapshot write must
            // not cost them.
            let failed_tails: Vec<FailedTail> = tails
                .into_iter()
                .filter_map(|(id, text)| match tail_store.write(&id, &text) {
                    Ok(_) => None,
                    Err(e) => Some((id, text, e.to_string())),
                })
                .collect();
            let saved = if write_snapshot {
                dir.save(&snapshot).map_err(|e| e.to_string())
            } else {
                Ok(())
            };
            (failed_tails, saved.map(|()| write_snapshot))
        })
        .await;
        let outcome = match outcome {
            Ok((failed_tails, saved)) => {
                self.tails_written(failed_tails);
                saved
            }
            Err(e) => Err(format!("snapshot writer panicked: {e}")),
        };

        self.last_write = Some(Instant::now());
        match outcome {
            Ok(wrote) => {
                // A failed tail keeps the state dirty, to be retried.
                self.dirty = self.status.tail_error.is_some();
                if wrote {
                    self.last_written = Some(compare);
                    self.status.writes += 1;
                    self.status.last_saved_at = Some(saved_at);
                    if self.status.last_error.take().is_some() {
                        info!("snapshot writes work again");
                    }
                }
                Ok(())
            }
            Err(e) => {
                error!(path = %self.status.path.display(), error = %e, "SNAPSHOT WRITE FAILED; the previous file is intact");
                self.status.last_error = Some(e.clone());
                Err(e)
            }
        }
    }
}

/// A tail that could not be written: its pane, its text, why.
type FailedTail = (String, String, String);

impl SnapshotState {
    /// Keeps failed tails for the next write (unless a newer one came) and
    /// says so in the status; logs only when that changes, so a tail that
    /// keeps failing does not fill the log.
    fn tails_written(&mut self, failed: Vec<FailedTail>) {
        let Some((id, _, why)) = failed.last() else {
            if self.status.tail_error.take().is_some() {
                info!("tail writes work again");
            }
            return;
        };
        let error = format!("the tail of pane {id} could not be written: {why}");
        if self.status.tail_error.as_ref() != Some(&error) {
            error!(pane = %id, error = %why, "TAIL WRITE FAILED; it is retried");
        }
        self.status.tail_error = Some(error);
        for (id, text, _) in failed {
            if !self.closed_panes.contains(&id) {
                self.pending_tails.entry(id).or_insert(text);
            }
        }
    }
}

/// Sends a message to the snapshot actor, wherever it is right now. A
/// message sent while it restarts is lost; the restart asks every actor to
/// publish again.
pub fn publish(msg: SnapshotMsg) {
    if let Some(snapshot) = crate::names::lookup::<SnapshotMsg>(crate::names::SNAPSHOT) {
        let _ = snapshot.cast(msg);
    }
}

/// How long an actor waits for the snapshot actor's answer.
const CALL_TIMEOUT_MS: u64 = 5_000;

/// The current model, or `None` while the snapshot actor is unreachable.
pub async fn model() -> Option<Model> {
    let snapshot = crate::names::lookup::<SnapshotMsg>(crate::names::SNAPSHOT)?;
    ractor::call_t!(snapshot, SnapshotMsg::Model, CALL_TIMEOUT_MS).ok()
}

/// A pane's last published record and tail, to rebuild it from.
pub async fn last_pane(pane_id: &str) -> Option<(PaneRecord, Option<String>)> {
    let snapshot = crate::names::lookup::<SnapshotMsg>(crate::names::SNAPSHOT)?;
    ractor::call_t!(
        snapshot,
        SnapshotMsg::LastPane,
        CALL_TIMEOUT_MS,
        pane_id.to_string()
    )
    .ok()
    .flatten()
}
