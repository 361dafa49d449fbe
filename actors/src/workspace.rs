//! The workspace actor: a named set of tabs, and their supervisor.
//!
//! A tab actor that fails is rebuilt from its last published record, with
//! its panes as EXITED tombstones showing their last tails; the rest of the
//! workspace keeps running.

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort, SupervisionEvent};
use signaltty_persistence::{TabRecord, WorkspaceRecord, WorktreeRecord};
use tracing::{Instrument, error, info_span, warn};

use crate::error::ActorError;
use crate::model::{Model, PaneState};
use crate::names;
use crate::pane::{PaneArgs, PaneContext, PaneStart};
use crate::snapshot::{self, SnapshotMsg, publish};
use crate::supervision::Children;
use crate::tab::{self, NewPane, SplitAt, TabActor, TabArgs, TabMsg};
use signaltty_types::id::{PaneId, TabId};

/// How long a workspace waits for one of its tabs to answer.
const TAB_CALL_MS: u64 = 15_000;

/// A pane as a request describes it; the workspace fills in the rest.
#[derive(Debug, Clone, Default)]
pub struct PaneSpec {
    pub argv: Vec<String>,
    pub cwd: Option<String>,
    pub title: Option<String>,
    pub rows: Option<u16>,
    pub cols: Option<u16>,
    /// The git worktree it runs in (its `cwd` is in it).
    pub worktree: Option<WorktreeRecord>,
}

pub enum WorkspaceMsg {
    /// A new tab with one pane; answers (tab id, pane id).
    NewTab {
        title: Option<String>,
        pane: PaneSpec,
        reply: RpcReplyPort<Result<(TabId, PaneId), ActorError>>,
    },
    /// A new pane in `tab` (or the active tab, or a new one when there is
    /// none), splitting `split.pane` (or the tab's active pane).
    NewPane {
        tab: Option<TabId>,
        split: SplitAt,
        pane: PaneSpec,
        reply: RpcReplyPort<Result<PaneId, ActorError>>,
    },
    ClosePane {
        tab: TabId,
        pane: PaneId,
        reply: RpcReplyPort<Result<(), ActorError>>,
    },
    CloseTab {
        tab: TabId,
        reply: RpcReplyPort<Result<(), ActorError>>,
    },
    /// Stop every tab (the workspace is being closed).
    CloseAll(RpcReplyPort<()>),
    /// A new name, already checked for uniqueness by the server.
    Rename(String, RpcReplyPort<()>),
    /// The user is here: `tab` (if given) becomes the active tab and `pane`
    /// (if given) its active pane, and the workspace becomes the one used
    /// last.
    Focus {
        tab: Option<TabId>,
        pane: Option<PaneId>,
        reply: RpcReplyPort<Result<(), ActorError>>,
    },
    SetAutoResume(bool, RpcReplyPort<()>),
    /// How long this workspace's idle agents stay awake.
    SetHibernateAfter(signaltty_persistence::SleepAfter, RpcReplyPort<()>),
    /// Trades the places of two panes of this workspace, each given with
    /// its tab (tmux swap-pane); both keep running.
    SwapPanes {
        a: (TabId, PaneId),
        b: (TabId, PaneId),
        reply: RpcReplyPort<Result<(), ActorError>>,
    },
    /// Moves a running pane from tab `from` into tab `to`, beside
    /// `split.pane` (tmux join-pane); it becomes the active pane and `to`
    /// the active tab. A tab left empty closes: answers whether `from` did.
    MovePane {
        pane: PaneId,
        from: TabId,
        to: TabId,
        split: SplitAt,
        reply: RpcReplyPort<Result<bool, ActorError>>,
    },
    /// Moves a running pane out of tab `from` into a new tab of its own,
    /// which becomes the active tab (tmux break-pane); answers its id.
    BreakPane {
        pane: PaneId,
        from: TabId,
        title: Option<String>,
        reply: RpcReplyPort<Result<TabId, ActorError>>,
    },
    Republish,
    /// Fault injection: panic inside this handler.
    #[cfg(any(debug_assertions, feature = "fault-injection"))]
    DebugPanic,
}

pub struct WorkspaceArgs {
    pub record: WorkspaceRecord,
    /// Restored tabs to bring up, in order.
    pub tabs: Vec<TabArgs>,
    pub context: PaneContext,
}

pub struct WorkspaceActor;

pub struct Workspace {
    record: WorkspaceRecord,
    tabs: Children<TabId>,
    context: PaneContext,
}

impl Actor for WorkspaceActor {
    type Msg = WorkspaceMsg;
    type State = Workspace;
    type Arguments = WorkspaceArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<WorkspaceMsg>,
        args: WorkspaceArgs,
    ) -> Result<Workspace, ActorProcessingErr> {
        let mut ws = Workspace {
            record: args.record,
            tabs: Children::default(),
            context: args.context,
        };
        for tab in args.tabs {
            ws.spawn_tab(&myself, tab).await?;
        }
        ws.publish();
        Ok(ws)
    }

    async fn handle(
        &self,
        myself: ActorRef<WorkspaceMsg>,
        msg: WorkspaceMsg,
        ws: &mut Workspace,
    ) -> Result<(), ActorProcessingErr> {
        let span = info_span!("workspace", workspace = %ws.record.id);
        async move {
            match msg {
                WorkspaceMsg::NewTab { title, pane, reply } => {
                    let _ = reply.send(ws.new_tab(&myself, title, pane).await);
                }
                WorkspaceMsg::NewPane {
                    tab,
                    split,
                    pane,
                    reply,
                } => {
                    let _ = reply.send(ws.new_pane(&myself, tab, split, pane).await);
                }
                WorkspaceMsg::ClosePane { tab, pane, reply } => {
                    let _ = reply.send(ws.close_pane(&tab, &pane).await);
                }
                WorkspaceMsg::CloseTab { tab, reply } => {
                    let _ = reply.send(ws.close_tab(&tab).await);
                }
                WorkspaceMsg::CloseAll(reply) => {
                    let tabs: Vec<TabId> = ws.record.tabs.clone();
                    for tab in tabs {
                        ws.stop_tab(&tab).await;
                    }
                    let _ = reply.send(());
                }
                WorkspaceMsg::SetAutoResume(on, reply) => {
                    if ws.record.auto_resume != on {
                        ws.record.auto_resume = on;
                        ws.publish();
                    }
                    let _ = reply.send(());
                }
                WorkspaceMsg::SetHibernateAfter(after, reply) => {
                    if ws.record.hibernate_after != Some(after) {
                        ws.record.hibernate_after = Some(after);
                        ws.publish();
                    }
                    let _ = reply.send(());
                }
                WorkspaceMsg::Rename(name, reply) => {
                    ws.record.name = name;
                    ws.publish();
                    let _ = reply.send(());
                }
                WorkspaceMsg::Focus { tab, pane, reply } => {
                    let _ = reply.send(ws.focus(tab, pane).await);
                }
                WorkspaceMsg::SwapPanes { a, b, reply } => {
                    let _ = reply.send(ws.swap_panes(a, b).await);
                }
                WorkspaceMsg::MovePane {
                    pane,
                    from,
                    to,
                    split,
                    reply,
                } => {
                    let _ = reply.send(ws.move_pane(&pane, &from, &to, split).await);
                }
                WorkspaceMsg::BreakPane {
                    pane,
                    from,
                    title,
                    reply,
                } => {
                    let _ = reply.send(ws.break_pane(&myself, &pane, &from, title).await);
                }
                #[cfg(any(debug_assertions, feature = "fault-injection"))]
                WorkspaceMsg::DebugPanic => {
                    panic!("fault injected into workspace {}", ws.record.id)
                }
                WorkspaceMsg::Republish => {
                    ws.publish();
                    for cell in myself.get_children() {
                        let _ = cell.send_message(TabMsg::Republish);
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
        myself: ActorRef<WorkspaceMsg>,
        event: SupervisionEvent,
        ws: &mut Workspace,
    ) -> Result<(), ActorProcessingErr> {
        let Some((tab_id, why)) = ws.tabs.unexpected(event) else {
            return Ok(());
        };
        error!(tab = %tab_id, reason = %why, "tab actor failed; rebuilding it from its last record");
        let model = snapshot::model().await.unwrap_or_default();
        match rebuild_tab(&model, &tab_id, &ws.context).await {
            Some(args) => {
                if let Err(e) = ws.spawn_tab(&myself, args).await {
                    error!(tab = %tab_id, error = %e, "could not rebuild the tab");
                }
            }
            None => warn!(tab = %tab_id, "no record of the failed tab; it is gone"),
        }
        Ok(())
    }
}

impl Workspace {
    fn publish(&self) {
        publish(SnapshotMsg::Workspace(self.record.clone()));
    }

    async fn spawn_tab(
        &mut self,
        myself: &ActorRef<WorkspaceMsg>,
        args: TabArgs,
    ) -> Result<(), ActorError> {
        let id = args.record.id.clone();
        let (tab, _) =
            Actor::spawn_linked(Some(names::tab(&id)), TabActor, args, myself.get_cell())
                .await
                .map_err(|e| match e {
                    ractor::SpawnErr::StartupFailed(inner) => {
                        match inner.downcast::<ActorError>() {
                            Ok(err) => *err,
                            Err(other) => {
                                ActorError::Io(format!("tab {id} did not start: {other}"))
                            }
                        }
                    }
                    other => ActorError::Io(format!("tab {id} did not start: {other}")),
                })?;
        self.tabs.add(tab.get_id(), id);
        Ok(())
    }

    /// A pane that starts in the workspace's directory shares its worktree.
    fn new_pane_from(&self, spec: PaneSpec) -> NewPane {
        let (cwd, worktree) = match spec.cwd {
            Some(cwd) => (cwd, spec.worktree),
            None => (
                self.record.cwd.clone(),
                spec.worktree.or_else(|| self.record.worktree.clone()),
            ),
        };
        NewPane {
            argv: spec.argv,
            cwd,
            title: spec.title,
            rows: spec.rows.unwrap_or(24),
            cols: spec.cols.unwrap_or(80),
            worktree,
        }
    }

    async fn new_tab(
        &mut self,
        myself: &ActorRef<WorkspaceMsg>,
        title: Option<String>,
        spec: PaneSpec,
    ) -> Result<(TabId, PaneId), ActorError> {
        let tab_id = TabId::trusted(names::new_id());
        let title = title.unwrap_or_else(|| format!("Tab {}", self.record.tabs.len() + 1));
        let new = self.new_pane_from(spec);
        let pane = tab::pane_record(&self.record.id, &tab_id, &new);
        let pane_id = pane.id.clone();
        let record = TabRecord {
            title,
            ..TabRecord::new(tab_id.clone(), self.record.id.clone(), pane_id.clone())
        };
        self.spawn_tab(
            myself,
            TabArgs {
                record,
                panes: vec![PaneArgs {
                    record: pane,
                    start: PaneStart::Launch,
                    context: self.context.clone(),
                }],
                context: self.context.clone(),
            },
        )
        .await?;
        self.record.tabs.push(tab_id.clone());
        self.record.active_tab_id = Some(tab_id.clone());
        self.publish();
        Ok((tab_id, pane_id))
    }

    async fn new_pane(
        &mut self,
        myself: &ActorRef<WorkspaceMsg>,
        tab: Option<TabId>,
        split: SplitAt,
        spec: PaneSpec,
    ) -> Result<PaneId, ActorError> {
        let tab = tab
            .or_else(|| self.record.active_tab_id.clone())
            .or_else(|| self.record.tabs.last().cloned());
        let Some(tab) = tab else {
            return self.new_tab(myself, None, spec).await.map(|(_, pane)| pane);
        };
        if !self.record.tabs.contains(&tab) {
            return Err(ActorError::NoSuchTab(tab.into()));
        }
        let actor = tab_actor(&tab)?;
        let pane = self.new_pane_from(spec);
        ractor::call_t!(
            actor,
            |reply| TabMsg::NewPane { pane, split, reply },
            TAB_CALL_MS
        )
        .map_err(|e| ActorError::Unavailable(e.to_string()))?
    }

    async fn close_pane(&mut self, tab: &TabId, pane: &PaneId) -> Result<(), ActorError> {
        let actor = tab_actor(tab)?;
        let pane = pane.clone();
        let empty = ractor::call_t!(
            actor,
            |reply| TabMsg::ClosePane { pane, reply },
            TAB_CALL_MS
        )
        .map_err(|e| ActorError::Unavailable(e.to_string()))??;
        if empty {
            self.close_tab(tab).await?;
        }
        Ok(())
    }

    async fn close_tab(&mut self, tab: &TabId) -> Result<(), ActorError> {
        if !self.record.tabs.iter().any(|t| t == tab) {
            return Err(ActorError::NoSuchTab(tab.to_string()));
        }
        self.stop_tab(tab).await;
        self.record.tabs.retain(|t| t != tab);
        if self.record.active_tab_id.as_ref() == Some(tab) {
            self.record.active_tab_id = self.record.tabs.last().cloned();
        }
        self.publish();
        publish(SnapshotMsg::RemoveTab(tab.clone()));
        Ok(())
    }

    async fn focus(&mut self, tab: Option<TabId>, pane: Option<PaneId>) -> Result<(), ActorError> {
        if let Some(tab) = &tab {
            if !self.record.tabs.contains(tab) {
                return Err(ActorError::NoSuchTab(tab.to_string()));
            }
            if let Some(pane) = pane {
                let actor = tab_actor(tab)?;
                ractor::call_t!(actor, TabMsg::Focus, TAB_CALL_MS, pane)
                    .map_err(|e| ActorError::Unavailable(e.to_string()))??;
            }
            self.record.active_tab_id = Some(tab.clone());
        }
        self.record.last_used_at = use_stamp();
        self.publish();
        Ok(())
    }

    fn tab_of_mine(&self, tab: &str) -> Result<ActorRef<TabMsg>, ActorError> {
        if !self.record.tabs.iter().any(|t| t == tab) {
            return Err(ActorError::NoSuchTab(tab.to_string()));
        }
        tab_actor(tab)
    }

    async fn swap_panes(
        &mut self,
        (a_tab, a): (TabId, PaneId),
        (b_tab, b): (TabId, PaneId),
    ) -> Result<(), ActorError> {
        let first = self.tab_of_mine(&a_tab)?;
        let second = self.tab_of_mine(&b_tab)?;
        tab_swap(&first, &a, &b).await?;
        if a_tab != b_tab
            && let Err(e) = tab_swap(&second, &a, &b).await
        {
            // Undone, so that no pane is in two tabs.
            let _ = tab_swap(&first, &a, &b).await;
            return Err(e);
        }
        Ok(())
    }

    async fn move_pane(
        &mut self,
        pane: &PaneId,
        from: &TabId,
        to: &TabId,
        split: SplitAt,
    ) -> Result<bool, ActorError> {
        let source = self.tab_of_mine(from)?;
        let target = self.tab_of_mine(to)?;
        let empty = tab_release(&source, pane).await?;
        if let Err(e) = tab_adopt(&target, pane, split).await {
            // Back in its tab, beside the active pane.
            let _ = tab_adopt(&source, pane, here()).await;
            return Err(e);
        }
        self.record.active_tab_id = Some(to.clone());
        if empty {
            self.close_tab(from).await?;
        } else {
            self.publish();
        }
        Ok(empty)
    }

    async fn break_pane(
        &mut self,
        myself: &ActorRef<WorkspaceMsg>,
        pane: &PaneId,
        from: &TabId,
        title: Option<String>,
    ) -> Result<TabId, ActorError> {
        let source = self.tab_of_mine(from)?;
        let tab_id = TabId::trusted(names::new_id());
        let record = TabRecord {
            title: title.unwrap_or_else(|| format!("Tab {}", self.record.tabs.len() + 1)),
            ..TabRecord::new(tab_id.clone(), self.record.id.clone(), pane.clone())
        };
        let empty = tab_release(&source, pane).await?;
        let adopted = match self
            .spawn_tab(
                myself,
                TabArgs {
                    record,
                    panes: Vec::new(),
                    context: self.context.clone(),
                },
            )
            .await
        {
            Ok(()) => match tab_actor(&tab_id) {
                Ok(tab) => tab_adopt(&tab, pane, here()).await,
                Err(e) => Err(e),
            },
            Err(e) => Err(e),
        };
        if let Err(e) = adopted {
            // Back first, so that the new tab's end takes no pane with it.
            let _ = tab_adopt(&source, pane, here()).await;
            self.stop_tab(&tab_id).await;
            publish(SnapshotMsg::RemoveTab(tab_id));
            return Err(e);
        }
        self.record.tabs.push(tab_id.clone());
        self.record.active_tab_id = Some(tab_id.clone());
        if empty {
            self.close_tab(from).await?;
        } else {
            self.publish();
        }
        Ok(tab_id)
    }

    /// Stops a tab and its panes, on purpose.
    async fn stop_tab(&mut self, tab: &TabId) {
        self.tabs.closing(tab);
        if let Ok(actor) = tab_actor(tab) {
            let _ = ractor::call_t!(actor, TabMsg::CloseAll, TAB_CALL_MS);
            let _ = actor.stop_and_wait(Some("closed".into()), None).await;
        }
    }
}

/// The time of a use, in ms since the epoch, strictly later than any
/// stamp before it: two uses in the same millisecond still say which was
/// last.
fn use_stamp() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static LAST: AtomicU64 = AtomicU64::new(0);
    let now = crate::now_millis();
    let previous = LAST
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |last| {
            Some(now.max(last + 1))
        })
        .unwrap_or(now);
    now.max(previous + 1)
}

fn tab_actor(tab: &str) -> Result<ActorRef<TabMsg>, ActorError> {
    names::lookup::<TabMsg>(&names::tab(tab)).ok_or_else(|| ActorError::NoSuchTab(tab.to_string()))
}

/// Where a pane goes in a tab whose layout already holds it, or beside
/// the active pane.
fn here() -> SplitAt {
    SplitAt {
        pane: None,
        direction: signaltty_persistence::Direction::Right,
    }
}

async fn tab_swap(tab: &ActorRef<TabMsg>, a: &PaneId, b: &PaneId) -> Result<(), ActorError> {
    let (a, b) = (a.clone(), b.clone());
    ractor::call_t!(tab, |reply| TabMsg::Swap { a, b, reply }, TAB_CALL_MS)
        .map_err(|e| ActorError::Unavailable(e.to_string()))?
}

async fn tab_release(tab: &ActorRef<TabMsg>, pane: &PaneId) -> Result<bool, ActorError> {
    let pane = pane.clone();
    ractor::call_t!(tab, |reply| TabMsg::Release { pane, reply }, TAB_CALL_MS)
        .map_err(|e| ActorError::Unavailable(e.to_string()))?
}

async fn tab_adopt(
    tab: &ActorRef<TabMsg>,
    pane: &PaneId,
    split: SplitAt,
) -> Result<(), ActorError> {
    let pane = pane.clone();
    ractor::call_t!(
        tab,
        |reply| TabMsg::Adopt { pane, split, reply },
        TAB_CALL_MS
    )
    .map_err(|e| ActorError::Unavailable(e.to_string()))?
}

/// A failed tab's arguments, from the snapshot actor's last records: the
/// same layout, every pane an EXITED tombstone with its last tail.
pub async fn rebuild_tab(model: &Model, tab_id: &str, context: &PaneContext) -> Option<TabArgs> {
    let record = model.tabs.get(tab_id)?.clone();
    let mut held = vec![names::tab(tab_id)];
    held.extend(
        model
            .panes_of(&record)
            .map(|view| names::pane(&view.record.id)),
    );
    if !names::released(&held).await {
        warn!(tab = %tab_id, "the failed tab's actors are still stopping; rebuilding anyway");
    }
    let mut panes = Vec::new();
    for view in model.panes_of(&record) {
        let tail = snapshot::last_pane(&view.record.id)
            .await
            .and_then(|(_, tail)| tail);
        let mut pane = view.record.clone();
        pane.running = false;
        panes.push(PaneArgs {
            record: pane,
            start: PaneStart::Tombstone {
                state: PaneState::Exited,
                tail,
            },
            context: context.clone(),
        });
    }
    Some(TabArgs {
        record,
        panes,
        context: context.clone(),
    })
}
