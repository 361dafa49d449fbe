//! The writer: the one task that puts the model and the tails on disk.
//!
//! It follows the read model and takes whatever version is latest when a
//! write is due, so any number of changes during a slow write cost one
//! more write, and a slow disk delays only saving — never a request, never
//! the snapshot actor. Tails come to it as messages and wait, newest per
//! pane, for the next write. It keeps the save schedule and what `ctl
//! status` shows about saving, which it publishes through a `watch`.
//!
//! The disk work of one write runs on tokio's blocking pool; meanwhile the
//! task keeps taking tails and model versions, so nothing piles up behind
//! a write but the newest of each.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use ractor::RpcReplyPort;
use signaltty_persistence::{
    SNAPSHOT_VERSION, SavedPane, ServerInfo, Snapshot, StateDir, TailStore,
};
use signaltty_types::PaneRecord;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::sleep_until;
use tracing::{error, info, warn};

use super::read::{ModelReader, Published};
use super::{COALESCE, INCONSISTENT_GRACE, MIN_INTERVAL, PERIODIC, SnapshotStatus};
use crate::model::Model;
use crate::now_millis;

pub enum WriterMsg {
    /// A pane's newest tail, to write with the next save.
    Tail { pane_id: String, text: String },
    /// Closed panes: their pending tails are dropped and their files
    /// deleted.
    Forget(Vec<String>),
    /// A pane's record with its newest tail, to rebuild it from.
    LastPane {
        record: Box<PaneRecord>,
        reply: RpcReplyPort<Option<(PaneRecord, Option<String>)>>,
    },
    /// Write now, whatever the schedule says, then stop (shutdown).
    Flush(RpcReplyPort<Result<(), String>>),
}

/// What the server keeps of the writer.
pub struct WriterHandle {
    pub tx: mpsc::UnboundedSender<WriterMsg>,
    pub status: watch::Receiver<SnapshotStatus>,
}

/// Starts the writer over `model`; it runs until a flush stops it.
/// `baseline` is a snapshot that needs no write: the empty one for a fresh
/// start, so that nothing is written until something changes; `None`
/// after a restore, whose first save puts the restored picture down.
pub fn spawn(
    state_dir: Arc<StateDir>,
    tails: Arc<TailStore>,
    server: ServerInfo,
    model: &ModelReader,
    baseline: Option<Snapshot>,
) -> WriterHandle {
    let (tx, rx) = mpsc::unbounded_channel();
    let (status_tx, status) = watch::channel(SnapshotStatus {
        path: state_dir.snapshot_path(),
        ..SnapshotStatus::default()
    });
    let mut published = model.watch();
    let saved_model = published.borrow_and_update().model.clone();
    let writer = Writer {
        state_dir,
        tails,
        server,
        status: status_tx,
        saved_model,
        pending_tails: HashMap::new(),
        in_flight_tails: Arc::default(),
        dirty: false,
        force: false,
        due: None,
        last_write: None,
        last_written: baseline,
        inconsistent_since: None,
        flush: None,
    };
    tokio::spawn(writer.run(rx, published));
    WriterHandle { tx, status }
}

struct Writer {
    state_dir: Arc<StateDir>,
    tails: Arc<TailStore>,
    server: ServerInfo,
    status: watch::Sender<SnapshotStatus>,
    /// The model version the last write started from.
    saved_model: Arc<Model>,
    /// Tails waiting for the next write, newest per pane.
    pending_tails: HashMap<String, String>,
    /// The tails the write under way is writing.
    in_flight_tails: Arc<HashMap<String, String>>,
    dirty: bool,
    /// The next write happens even if the snapshot did not change.
    force: bool,
    /// When the next write starts, once one is needed.
    due: Option<Instant>,
    last_write: Option<Instant>,
    /// The last snapshot written, with `saved_at` zeroed for comparison.
    last_written: Option<Snapshot>,
    /// Since when the model has failed validation, while it does.
    inconsistent_since: Option<Instant>,
    /// A flush: its answer, and whether its own write has started.
    flush: Option<(RpcReplyPort<Result<(), String>>, bool)>,
}

impl Writer {
    async fn run(
        mut self,
        mut rx: mpsc::UnboundedReceiver<WriterMsg>,
        mut published: watch::Receiver<Published>,
    ) {
        let mut periodic = tokio::time::interval(PERIODIC);
        periodic.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        periodic.tick().await;
        let mut in_flight: Option<JoinHandle<SaveDone>> = None;
        let mut model_gone = false;
        loop {
            let due = self.due.filter(|_| in_flight.is_none());
            tokio::select! {
                msg = rx.recv() => match msg {
                    Some(msg) => self.handle(msg),
                    // Nobody can ask for anything any more.
                    None if in_flight.is_none() => return,
                    None => {}
                },
                changed = published.changed(), if !model_gone => match changed {
                    Ok(()) => {
                        if !Arc::ptr_eq(&published.borrow_and_update().model, &self.saved_model) {
                            self.mark_dirty();
                        }
                    }
                    Err(_) => model_gone = true,
                },
                _ = periodic.tick() => {
                    self.force = true;
                    self.mark_dirty();
                }
                () = sleep_until(due.unwrap_or_else(Instant::now).into()), if due.is_some() => {
                    let model = published.borrow_and_update().model.clone();
                    in_flight = Some(self.start(model));
                }
                done = wait_for(&mut in_flight), if in_flight.is_some() => {
                    in_flight = None;
                    let outcome = done.unwrap_or_else(SaveDone::panicked);
                    if self.finish(outcome) {
                        return;
                    }
                }
            }
        }
    }

    fn handle(&mut self, msg: WriterMsg) {
        match msg {
            WriterMsg::Tail { pane_id, text } => {
                self.pending_tails.insert(pane_id, text);
                self.mark_dirty();
            }
            WriterMsg::Forget(ids) => self.forget(ids),
            WriterMsg::LastPane { record, reply } => self.last_pane(record, reply),
            WriterMsg::Flush(reply) => {
                self.flush = Some((reply, false));
                self.force = true;
                self.dirty = true;
                // At once, or as soon as the write under way is done.
                self.due = Some(Instant::now());
            }
        }
    }

    fn mark_dirty(&mut self) {
        self.dirty = true;
        if self.due.is_none() {
            let earliest = Instant::now() + COALESCE;
            self.due = Some(match self.last_write {
                Some(at) => earliest.max(at + MIN_INTERVAL),
                None => earliest,
            });
        }
    }

    fn forget(&mut self, ids: Vec<String>) {
        for id in &ids {
            self.pending_tails.remove(id);
        }
        // The store orders a delete after a write of the same tail that is
        // under way, and skips any write after it.
        let tails = self.tails.clone();
        tokio::task::spawn_blocking(move || {
            for id in &ids {
                if let Err(e) = tails.delete(id) {
                    warn!(pane = %id, error = %e, "could not delete a closed pane's tail");
                }
            }
        });
    }

    fn last_pane(
        &self,
        record: Box<PaneRecord>,
        reply: RpcReplyPort<Option<(PaneRecord, Option<String>)>>,
    ) {
        let id: &str = &record.id;
        let known = self
            .pending_tails
            .get(id)
            .or_else(|| self.in_flight_tails.get(id))
            .cloned();
        if let Some(tail) = known {
            let _ = reply.send(Some((*record, Some(tail))));
            return;
        }
        let tails = self.tails.clone();
        tokio::task::spawn_blocking(move || {
            let tail = tails.read(&record.id).ok().flatten();
            let _ = reply.send(Some((*record, tail)));
        });
    }

    /// Starts a write of `model` and the pending tails on the blocking pool.
    fn start(&mut self, model: Arc<Model>) -> JoinHandle<SaveDone> {
        if let Some((_, started)) = &mut self.flush {
            *started = true;
        }
        self.due = None;
        self.dirty = false;
        self.saved_model = model.clone();
        self.in_flight_tails = Arc::new(std::mem::take(&mut self.pending_tails));
        let job = SaveJob {
            model,
            server: self.server.clone(),
            tails: self.in_flight_tails.clone(),
            force: std::mem::take(&mut self.force),
            last_written: self.last_written.take(),
            state_dir: self.state_dir.clone(),
            tail_store: self.tails.clone(),
        };
        tokio::task::spawn_blocking(move || job.run())
    }

    /// Takes in a write's outcome; true when a flush is answered and the
    /// writer is done.
    fn finish(&mut self, done: SaveDone) -> bool {
        self.last_written = done.last_written;
        self.last_write = Some(Instant::now());
        let failed = self.requeue_failed(done.failed_tails);
        let mut status = self.status.borrow().clone();
        tails_status(&mut status, failed.as_ref());
        let result = self.snapshot_status(&mut status, done.snapshot);
        self.status.send_replace(status);
        if let Some((reply, true)) = self.flush.take_if(|(_, started)| *started) {
            let _ = reply.send(result);
            return true;
        }
        // A flush that came during this write writes at once; whatever
        // failed (the snapshot or a tail), and whatever changed during the
        // write, is written on schedule.
        let retry = !self.pending_tails.is_empty() || self.dirty || self.snapshot_failed();
        self.due = None;
        if self.flush.is_some() {
            self.due = Some(Instant::now());
        } else if retry {
            self.mark_dirty();
        }
        false
    }

    fn snapshot_failed(&self) -> bool {
        self.status.borrow().last_error.is_some() || self.inconsistent_since.is_some()
    }

    /// Puts failed tails back for the next write, unless a newer one came;
    /// returns the last failure, for the status.
    fn requeue_failed(&mut self, failed: Vec<(String, String)>) -> Option<(String, String)> {
        let last = failed.last().cloned();
        for (id, _) in failed {
            if let Some(text) = self.in_flight_tails.get(&id) {
                self.pending_tails.entry(id).or_insert_with(|| text.clone());
            }
        }
        self.in_flight_tails = Arc::default();
        last
    }

    fn snapshot_status(
        &mut self,
        status: &mut SnapshotStatus,
        outcome: Result<Saved, SaveError>,
    ) -> Result<(), String> {
        match outcome {
            Ok(saved) => {
                self.inconsistent_since = None;
                if let Saved::Written { saved_at } = saved {
                    status.writes += 1;
                    status.last_saved_at = Some(saved_at);
                    if status.last_error.take().is_some() {
                        info!("snapshot writes work again");
                    }
                }
                Ok(())
            }
            Err(SaveError::Inconsistent(e)) => {
                // Never write what a load would reject: that would lose the
                // previous good file's place. Records catch up within
                // moments; if they do not, that is a save error like any
                // other.
                warn!(error = %e, "snapshot not consistent yet; retrying");
                let since = *self.inconsistent_since.get_or_insert_with(Instant::now);
                if since.elapsed() >= INCONSISTENT_GRACE {
                    let error = format!("the snapshot is inconsistent and is not saved: {e}");
                    if status.last_error.as_ref() != Some(&error) {
                        error!(error = %e, "SNAPSHOT NOT SAVED; the previous file is intact");
                    }
                    status.last_error = Some(error);
                }
                Err(e)
            }
            Err(SaveError::Failed(e)) => {
                self.inconsistent_since = None;
                error!(path = %status.path.display(), error = %e, "SNAPSHOT WRITE FAILED; the previous file is intact");
                status.last_error = Some(e.clone());
                Err(e)
            }
        }
    }
}

/// The write under way's outcome (the caller only asks while there is one).
async fn wait_for(
    in_flight: &mut Option<JoinHandle<SaveDone>>,
) -> Result<SaveDone, tokio::task::JoinError> {
    match in_flight {
        Some(write) => write.await,
        None => std::future::pending().await,
    }
}

/// Shows the last failed tail in the status, until a write has none; logs
/// only when that changes, so a tail that keeps failing does not fill the
/// log.
fn tails_status(status: &mut SnapshotStatus, failed: Option<&(String, String)>) {
    let Some((id, why)) = failed else {
        if status.tail_error.take().is_some() {
            info!("tail writes work again");
        }
        return;
    };
    let error = format!("the tail of pane {id} could not be written: {why}");
    if status.tail_error.as_ref() != Some(&error) {
        error!(pane = %id, error = %why, "TAIL WRITE FAILED; it is retried");
    }
    status.tail_error = Some(error);
}

/// One write's work, done on the blocking pool.
struct SaveJob {
    model: Arc<Model>,
    server: ServerInfo,
    tails: Arc<HashMap<String, String>>,
    force: bool,
    last_written: Option<Snapshot>,
    state_dir: Arc<StateDir>,
    tail_store: Arc<TailStore>,
}

enum Saved {
    Unchanged,
    Written { saved_at: u64 },
}

enum SaveError {
    /// The model does not pass the loader's validation yet.
    Inconsistent(String),
    Failed(String),
}

struct SaveDone {
    /// Pane id and why, for each tail that could not be written.
    failed_tails: Vec<(String, String)>,
    snapshot: Result<Saved, SaveError>,
    last_written: Option<Snapshot>,
}

impl SaveDone {
    fn panicked(e: tokio::task::JoinError) -> SaveDone {
        SaveDone {
            failed_tails: Vec::new(),
            snapshot: Err(SaveError::Failed(format!("snapshot writer panicked: {e}"))),
            last_written: None,
        }
    }
}

impl SaveJob {
    /// Writes the tails, then the snapshot (unless it is unchanged and not
    /// forced): a snapshot on disk thus promises the tails sent before it,
    /// which a restart shows. Tails are files of their own: a failing
    /// snapshot write must not cost them.
    fn run(mut self) -> SaveDone {
        let failed_tails = self
            .tails
            .iter()
            .filter_map(|(id, text)| match self.tail_store.write(id, text) {
                Ok(_) => None,
                Err(e) => Some((id.clone(), e.to_string())),
            })
            .collect();
        let (snapshot, last_written) = self.save_snapshot();
        SaveDone {
            failed_tails,
            snapshot,
            last_written,
        }
    }

    fn save_snapshot(&mut self) -> (Result<Saved, SaveError>, Option<Snapshot>) {
        let mut snapshot = snapshot_of(&self.model, self.server.clone());
        if let Err(e) = snapshot.validate() {
            let error = SaveError::Inconsistent(e.to_string());
            return (Err(error), self.last_written.take());
        }
        if !self.force && self.last_written.as_ref() == Some(&snapshot) {
            return (Ok(Saved::Unchanged), self.last_written.take());
        }
        let compare = snapshot.clone();
        snapshot.server.saved_at = now_millis();
        let saved_at = snapshot.server.saved_at;
        match self.state_dir.save(&snapshot) {
            Ok(()) => (Ok(Saved::Written { saved_at }), Some(compare)),
            Err(e) => (
                Err(SaveError::Failed(e.to_string())),
                self.last_written.take(),
            ),
        }
    }
}
/// The snapshot to write: only what is consistent right now. A pane is
/// saved once its tab's layout holds it, so a pane mid-creation or
/// mid-close is never written half-way.
pub fn snapshot_of(model: &Model, server: ServerInfo) -> Snapshot {
    let mut snapshot = Snapshot {
        snapshot_version: SNAPSHOT_VERSION,
        server,
        workspaces: model.workspaces.clone(),
        tabs: Vec::new(),
        panes: Vec::new(),
        notifications: model.notifications.clone(),
    };
    for workspace in &model.workspaces {
        for tab in model.tabs_of(workspace) {
            snapshot.tabs.push(tab.clone());
            snapshot
                .panes
                .extend(model.panes_of(tab).map(|p| SavedPane::from_live(&p.record)));
        }
    }
    snapshot
}
