//! The tab actor: a split layout of panes, and their supervisor.
//!
//! A pane actor that panics or fails is replaced, in the same layout slot
//! and under the same id, by an EXITED tombstone built from the pane's last
//! published record and tail. Its siblings never notice.

use ractor::{Actor, ActorCell, ActorProcessingErr, ActorRef, RpcReplyPort, SupervisionEvent};
use signaltty_persistence::{Branch, Direction, TabRecord, WorktreeRecord};
use signaltty_types::PaneRecord;
use tracing::{Instrument, error, info_span, warn};

use crate::error::ActorError;
use crate::model::PaneState;
use crate::names;
use crate::pane::{PaneActor, PaneArgs, PaneContext, PaneMsg, PaneStart};
use crate::snapshot::{SnapshotMsg, publish};
use crate::supervision::Children;
use signaltty_types::id::PaneId;

/// A pane to create: what the workspace resolved from a request.
#[derive(Debug, Clone)]
pub struct NewPane {
    pub argv: Vec<String>,
    pub cwd: String,
    pub title: Option<String>,
    pub rows: u16,
    pub cols: u16,
    pub worktree: Option<WorktreeRecord>,
}

/// Where a new pane goes: next to `pane`, in `direction`.
#[derive(Debug, Clone)]
pub struct SplitAt {
    pub pane: Option<PaneId>,
    pub direction: Direction,
}

pub enum TabMsg {
    NewPane {
        pane: NewPane,
        split: SplitAt,
        reply: RpcReplyPort<Result<PaneId, ActorError>>,
    },
    /// Close a pane; answers whether the tab is now empty.
    ClosePane {
        pane: PaneId,
        reply: RpcReplyPort<Result<bool, ActorError>>,
    },
    /// Stop every pane (the tab is being closed).
    CloseAll(RpcReplyPort<()>),
    /// A title chosen by the user.
    Rename(String, RpcReplyPort<()>),
    /// Makes a pane of this tab its active pane.
    Focus(PaneId, RpcReplyPort<Result<(), ActorError>>),
    /// Sets the ratio of the split at `path`; answers it as clamped.
    SetRatio {
        path: Vec<Branch>,
        ratio: f32,
        reply: RpcReplyPort<Result<f32, ActorError>>,
    },
    /// Trades the places of panes `a` and `b` (tmux swap-pane), both in
    /// this tab or one of them (the other tab of the swap does the same);
    /// the splits and ratios stay. The tab supervises whichever came in.
    Swap {
        a: PaneId,
        b: PaneId,
        reply: RpcReplyPort<Result<(), ActorError>>,
    },
    /// Lets a pane go, running, to another tab: it leaves the layout (a
    /// last pane stays until the tab closes). Answers whether the tab is
    /// now empty.
    Release {
        pane: PaneId,
        reply: RpcReplyPort<Result<bool, ActorError>>,
    },
    /// Takes over a running pane let go by another tab, beside
    /// `split.pane` (else the active pane), or where the layout already
    /// holds it; it becomes the active pane.
    Adopt {
        pane: PaneId,
        split: SplitAt,
        reply: RpcReplyPort<Result<(), ActorError>>,
    },
    Republish,
    /// Fault injection: panic inside this handler.
    #[cfg(any(debug_assertions, feature = "fault-injection"))]
    DebugPanic,
}

pub struct TabArgs {
    pub record: TabRecord,
    /// The panes to bring up: the first pane of a new tab, or a restored
    /// tab's panes.
    pub panes: Vec<PaneArgs>,
    pub context: PaneContext,
}

pub struct TabActor;

pub struct Tab {
    record: TabRecord,
    panes: Children<PaneId>,
    context: PaneContext,
}

impl Actor for TabActor {
    type Msg = TabMsg;
    type State = Tab;
    type Arguments = TabArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<TabMsg>,
        args: TabArgs,
    ) -> Result<Tab, ActorProcessingErr> {
        let mut tab = Tab {
            record: args.record,
            panes: Children::default(),
            context: args.context,
        };
        for pane in args.panes {
            tab.spawn_pane(&myself, pane).await?;
        }
        tab.publish();
        Ok(tab)
    }

    async fn handle(
        &self,
        myself: ActorRef<TabMsg>,
        msg: TabMsg,
        tab: &mut Tab,
    ) -> Result<(), ActorProcessingErr> {
        let span = info_span!("tab", tab = %tab.record.id);
        async move {
            match msg {
                TabMsg::NewPane { pane, split, reply } => {
                    let _ = reply.send(tab.new_pane(&myself, pane, split).await);
                }
                TabMsg::ClosePane { pane, reply } => {
                    let _ = reply.send(tab.close_pane(&pane).await);
                }
                TabMsg::CloseAll(reply) => {
                    tab.panes.closing_all();
                    myself.stop_children_and_wait(None, None).await;
                    let _ = reply.send(());
                }
                TabMsg::Rename(title, reply) => {
                    tab.record.title = title;
                    tab.publish();
                    let _ = reply.send(());
                }
                TabMsg::Focus(pane, reply) => {
                    let _ = reply.send(tab.focus(pane));
                }
                TabMsg::SetRatio { path, ratio, reply } => {
                    let _ = reply.send(tab.set_ratio(&path, ratio));
                }
                TabMsg::Swap { a, b, reply } => {
                    let _ = reply.send(tab.swap(&myself, &a, &b));
                }
                TabMsg::Release { pane, reply } => {
                    let _ = reply.send(tab.release(&pane));
                }
                TabMsg::Adopt { pane, split, reply } => {
                    let _ = reply.send(tab.adopt(&myself, &pane, split));
                }
                #[cfg(any(debug_assertions, feature = "fault-injection"))]
                TabMsg::DebugPanic => panic!("fault injected into tab {}", tab.record.id),
                TabMsg::Republish => {
                    tab.publish();
                    for cell in myself.get_children() {
                        let _ = cell.send_message(PaneMsg::Republish);
                    }
                }
            }
        }
        .instrument(span)
        .await;
        Ok(())
    }

    async fn handle_supervisor_evt(
        &self,
        myself: ActorRef<TabMsg>,
        event: SupervisionEvent,
        tab: &mut Tab,
    ) -> Result<(), ActorProcessingErr> {
        let Some((pane_id, why)) = tab.panes.unexpected(event) else {
            return Ok(());
        };
        error!(pane = %pane_id, reason = %why, "pane actor failed; replacing it with a tombstone");
        tab.replace_with_tombstone(&myself, &pane_id).await;
        Ok(())
    }
}

impl Tab {
    fn publish(&self) {
        publish(SnapshotMsg::Tab(self.record.clone()));
    }

    async fn spawn_pane(
        &mut self,
        myself: &ActorRef<TabMsg>,
        args: PaneArgs,
    ) -> Result<ActorCell, ActorError> {
        let id = args.record.id.clone();
        let (pane, _) =
            Actor::spawn_linked(Some(names::pane(&id)), PaneActor, args, myself.get_cell())
                .await
                .map_err(|e| spawn_error(&id, e))?;
        self.panes.add(pane.get_id(), id);
        Ok(pane.get_cell())
    }

    async fn new_pane(
        &mut self,
        myself: &ActorRef<TabMsg>,
        new: NewPane,
        split: SplitAt,
    ) -> Result<PaneId, ActorError> {
        let target = self.split_target(split.pane)?;
        let record = pane_record(&self.record.workspace_id, &self.record.id, &new);
        let id = record.id.clone();
        let mut layout = self.record.layout.clone();
        layout
            .split(&target, &id, split.direction, 0.5)
            .map_err(|e| {
                ActorError::BadRequest(format!(
                    "{e}; split another pane, or start a new tab with `signaltty ctl tab new`"
                ))
            })?;
        self.spawn_pane(
            myself,
            PaneArgs {
                record,
                start: PaneStart::Launch,
                context: self.context.clone(),
            },
        )
        .await?;
        self.record.layout = layout;
        self.record.active_pane_id = Some(id.clone());
        self.publish();
        Ok(id)
    }

    /// The pane a new one goes beside: `pane`, else the active pane, else
    /// the last; it must be in this tab.
    fn split_target(&self, pane: Option<PaneId>) -> Result<PaneId, ActorError> {
        let target = pane
            .or_else(|| self.record.active_pane_id.clone())
            .or_else(|| {
                self.record
                    .layout
                    .pane_ids()
                    .last()
                    .map(|id| PaneId::trusted(*id))
            })
            .ok_or_else(|| ActorError::BadRequest("the tab has no pane to split".into()))?;
        if !self.record.layout.contains(&target) {
            return Err(ActorError::BadRequest(format!(
                "pane {target} is not in tab {}; split a pane of the same tab",
                self.record.id
            )));
        }
        Ok(target)
    }

    fn swap(&mut self, myself: &ActorRef<TabMsg>, a: &str, b: &str) -> Result<(), ActorError> {
        let coming: Vec<&str> = [a, b]
            .into_iter()
            .filter(|id| !self.record.layout.contains(id))
            .collect();
        if coming.len() == 2 {
            return Err(ActorError::NoSuchPane(format!("{a} or {b} in this tab")));
        }
        let actors = coming
            .iter()
            .map(|id| pane_actor(id))
            .collect::<Result<Vec<_>, _>>()?;
        self.record.layout.swap_leaves(a, b);
        for (id, actor) in coming.iter().zip(actors) {
            self.take_over(myself, id, &actor);
        }
        for id in [a, b] {
            if !self.record.layout.contains(id) {
                self.panes.let_go(id);
            }
        }
        // Focus follows a pane within the tab; one that left leaves it to
        // the pane now in its place.
        if let Some(active) = &self.record.active_pane_id
            && !self.record.layout.contains(active)
        {
            let other = if active == a { b } else { a };
            self.record.active_pane_id = Some(PaneId::trusted(other));
        }
        self.publish();
        Ok(())
    }

    fn release(&mut self, pane: &str) -> Result<bool, ActorError> {
        if !self.record.layout.contains(pane) {
            return Err(ActorError::NoSuchPane(pane.to_string()));
        }
        self.panes.let_go(pane);
        let Some(layout) = self.record.layout.remove(pane) else {
            return Ok(true);
        };
        if self.record.active_pane_id.as_deref() == Some(pane) {
            self.record.active_pane_id = layout.pane_ids().first().map(|id| PaneId::trusted(*id));
        }
        self.record.layout = layout;
        self.publish();
        Ok(false)
    }

    fn adopt(
        &mut self,
        myself: &ActorRef<TabMsg>,
        pane: &str,
        split: SplitAt,
    ) -> Result<(), ActorError> {
        let actor = pane_actor(pane)?;
        if !self.record.layout.contains(pane) {
            let target = self.split_target(split.pane)?;
            let mut layout = self.record.layout.clone();
            layout
                .split(&target, pane, split.direction, 0.5)
                .map_err(|e| ActorError::BadRequest(e.to_string()))?;
            self.record.layout = layout;
        }
        self.take_over(myself, pane, &actor);
        self.record.active_pane_id = Some(PaneId::trusted(pane));
        self.publish();
        Ok(())
    }

    /// Becomes the supervisor of a running pane (ractor moves the link).
    fn take_over(&mut self, myself: &ActorRef<TabMsg>, id: &str, actor: &ActorRef<PaneMsg>) {
        actor.get_cell().link(myself.get_cell());
        self.panes.add(actor.get_id(), PaneId::trusted(id));
    }

    async fn close_pane(&mut self, pane_id: &str) -> Result<bool, ActorError> {
        if !self.record.layout.contains(pane_id) {
            return Err(ActorError::NoSuchPane(pane_id.to_string()));
        }
        self.panes.closing(&PaneId::trusted(pane_id));
        if let Some(pane) = names::lookup::<PaneMsg>(&names::pane(pane_id)) {
            pane.stop_and_wait(Some("closed".into()), None)
                .await
                .map_err(|e| ActorError::Unavailable(e.to_string()))?;
        }
        let remaining = self.record.layout.clone().remove(pane_id);
        // The record goes first so that a snapshot never holds a layout
        // leaf without its pane.
        let empty = match remaining {
            Some(layout) => {
                if self.record.active_pane_id.as_deref() == Some(pane_id) {
                    self.record.active_pane_id =
                        layout.pane_ids().first().map(|id| PaneId::trusted(*id));
                }
                self.record.layout = layout;
                self.publish();
                false
            }
            None => true,
        };
        publish(SnapshotMsg::RemovePane(PaneId::trusted(pane_id)));
        Ok(empty)
    }

    fn focus(&mut self, pane: PaneId) -> Result<(), ActorError> {
        if !self.record.layout.contains(&pane) {
            return Err(ActorError::NoSuchPane(pane.into()));
        }
        if self.record.active_pane_id.as_ref() != Some(&pane) {
            self.record.active_pane_id = Some(pane);
            self.publish();
        }
        Ok(())
    }

    fn set_ratio(&mut self, path: &[Branch], ratio: f32) -> Result<f32, ActorError> {
        let ratio = self
            .record
            .layout
            .set_ratio(path, ratio)
            .map_err(|e| ActorError::BadRequest(e.to_string()))?;
        self.publish();
        Ok(ratio)
    }

    async fn replace_with_tombstone(&mut self, myself: &ActorRef<TabMsg>, pane_id: &PaneId) {
        let (record, tail) = match crate::snapshot::last_pane(pane_id).await {
            Some(last) => last,
            None => {
                warn!(pane = %pane_id, "no record for the failed pane; its slot shows an empty tombstone");
                (
                    empty_record(&self.record.workspace_id, &self.record.id, pane_id),
                    None,
                )
            }
        };
        let mut record = record;
        record.running = false;
        let args = PaneArgs {
            record,
            start: PaneStart::Tombstone {
                state: PaneState::Exited,
                tail,
            },
            context: self.context.clone(),
        };
        if let Err(e) = self.spawn_pane(myself, args).await {
            error!(pane = %pane_id, error = %e, "could not start a tombstone");
        }
    }
}

fn pane_actor(id: &str) -> Result<ActorRef<PaneMsg>, ActorError> {
    names::lookup::<PaneMsg>(&names::pane(id)).ok_or_else(|| ActorError::NoSuchPane(id.to_string()))
}

fn spawn_error(id: &str, err: ractor::SpawnErr) -> ActorError {
    match err {
        ractor::SpawnErr::StartupFailed(inner) => {
            match inner.downcast::<crate::error::SpawnError>() {
                Ok(spawn) => ActorError::Spawn(*spawn),
                Err(other) => ActorError::Io(format!("pane {id} did not start: {other}")),
            }
        }
        other => ActorError::Io(format!("pane {id} did not start: {other}")),
    }
}

/// The record of a pane about to be created in `tab` of `workspace`.
pub(crate) fn pane_record(workspace: &str, tab: &str, new: &NewPane) -> PaneRecord {
    PaneRecord {
        title: new.title.clone().unwrap_or_default(),
        user_title: new.title.clone(),
        cwd: new.cwd.clone(),
        argv: new.argv.clone(),
        pty_size: signaltty_persistence::PtySize {
            rows: new.rows,
            cols: new.cols,
        },
        running: true,
        worktree: new.worktree.clone(),
        ..empty_record(workspace, tab, &names::new_id())
    }
}

fn empty_record(workspace: &str, tab: &str, pane_id: &str) -> PaneRecord {
    PaneRecord {
        created_at: crate::now_millis(),
        ..PaneRecord::new(pane_id, workspace, tab)
    }
}
