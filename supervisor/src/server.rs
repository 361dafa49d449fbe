//! The root of the supervision tree.
//!
//! ```text
//! ServerActor
//! ├── SnapshotActor     restarted from the last file on disk; every actor
//! │                     then publishes its record again
//! ├── ListenerActor     restarted on the same bound socket
//! ├── NotifierActor     (with a [notify] command) restarted as it was
//! └── WorkspaceActor*   rebuilt from its last record, panes as tombstones
//! ```
//!
//! ractor's default is to stop a supervisor when any child ends; every
//! child here is instead restarted or rebuilt, so one failure never takes
//! the server down. Shutdown is the one orderly stop, explained where it
//! happens in [`ServerActor::shutdown`].

use std::collections::HashMap;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixListener;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::join_all;
use ractor::{Actor, ActorId, ActorProcessingErr, ActorRef, SupervisionEvent};
use signaltty_actors::model::Model;
use signaltty_actors::notifier::{NotifierActor, NotifierArgs};
use signaltty_actors::pane::handover::HandedPane;
use signaltty_actors::pane::restored_state;
use signaltty_actors::pane::{PaneContext, PaneMsg};
use signaltty_actors::restored;
use signaltty_actors::snapshot::read::{ModelReader, Published};
use signaltty_actors::snapshot::writer::{self, WriterHandle};
use signaltty_actors::snapshot::{SnapshotActor, SnapshotArgs, SnapshotMsg};
use signaltty_actors::workspace::{WorkspaceActor, WorkspaceArgs, WorkspaceMsg, rebuild_tab};
use signaltty_actors::{ActorError, PaneState, now_millis};
use signaltty_actors::{names, supervision};
use signaltty_persistence::{
    ServerInfo, Snapshot, StateDir, TailStore, WorkspaceRecord, WorktreeRecord,
};
use tracing::{error, info, warn};

use crate::config::Config;
use crate::handover;
use crate::limits::ClientLimits;
use crate::listener::{ListenerActor, ListenerArgs};
use crate::messages::{ServerMsg, ServerStatus};
use crate::orphans::OrphanReport;
use crate::restore::{self, Restore};
use crate::worktree::{self, Worktrees};
use signaltty_types::id::WorkspaceId;

/// How long shutdown waits for each pane's last tail.
const FLUSH_TAIL_MS: u64 = 2_000;
/// How long shutdown waits for hung-up children to be reaped.
const REAP_WAIT: Duration = Duration::from_secs(3);

pub struct ServerArgs {
    pub state_dir: Arc<StateDir>,
    pub tails: Arc<TailStore>,
    pub listener: UnixListener,
    pub context: PaneContext,
    /// `ctl debug panic` is allowed (tests only).
    pub faults_enabled: bool,
    pub info: ServerInfo,
    pub restore: Restore,
    /// The cleanup of what the previous server left running.
    pub orphans: tokio::sync::watch::Receiver<OrphanReport>,
    pub config: Config,
    pub changes: tokio::sync::broadcast::Sender<signaltty_actors::snapshot::Change>,
    /// After an upgrade: the panes as the previous image handed them over,
    /// by id, and its count of handovers.
    pub handed: Option<(HashMap<String, HandedPane>, u32)>,
    /// The socket's lock, which an upgrade keeps held across the exec.
    pub lock_fd: RawFd,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Role {
    Snapshot,
    Listener,
    Notifier,
    Workspace(WorkspaceId),
}

pub struct ServerActor;

pub struct Server {
    state_dir: Arc<StateDir>,
    tails: Arc<TailStore>,
    listener: UnixListener,
    context: PaneContext,
    faults_enabled: bool,
    config: Config,
    changes: tokio::sync::broadcast::Sender<signaltty_actors::snapshot::Change>,
    restore_note: String,
    restore_degraded: bool,
    started: Instant,
    children: HashMap<ActorId, Role>,
    /// Workspace ids and names, in creation order.
    workspaces: Vec<(WorkspaceId, String)>,
    shutting_down: bool,
    /// Bounds on clients, kept across listener restarts.
    client_limits: ClientLimits,
    orphans: tokio::sync::watch::Receiver<OrphanReport>,
    /// Where the snapshot actor publishes the model, and the model as
    /// published: both kept across snapshot actor restarts.
    published: tokio::sync::watch::Sender<Published>,
    model: ModelReader,
    /// The task that saves what is published.
    writer: WriterHandle,
    /// Where worktrees go and the git that makes them, shared with every
    /// listener.
    worktrees: Arc<Worktrees>,
    /// The refresh of shown worktrees' branch and dirty mark.
    worktree_watch: tokio::task::JoinHandle<()>,
    /// What puts idle agents to sleep (see `hibernator.rs`).
    hibernator: tokio::task::JoinHandle<()>,
    /// Handovers this process has been through (`upgrade`).
    upgrades: u32,
    lock_fd: RawFd,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.worktree_watch.abort();
        self.hibernator.abort();
    }
}

impl Actor for ServerActor {
    type Msg = ServerMsg;
    type State = Server;
    type Arguments = ServerArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<ServerMsg>,
        args: ServerArgs,
    ) -> Result<Server, ActorProcessingErr> {
        let model = match &args.restore.snapshot {
            Some(snapshot) => restored::model(snapshot),
            None => Model::default(),
        };
        let (published, reader) = signaltty_actors::snapshot::read::channel(model.clone());
        // A fresh start writes nothing until something changes; a restore
        // writes its picture once.
        let baseline =
            args.restore.snapshot.is_none().then(|| {
                signaltty_actors::snapshot::writer::snapshot_of(&model, args.info.clone())
            });
        let writer = writer::spawn(
            args.state_dir.clone(),
            args.tails.clone(),
            args.info,
            &reader,
            baseline,
        );
        let worktrees = Arc::new(Worktrees::new(args.config.worktree_root.clone()));
        let worktree_watch = worktree::watch::spawn(reader.clone(), worktrees.clone());
        let hibernator = crate::hibernator::spawn(reader.clone(), args.config.hibernate.clone());
        let mut server = Server {
            state_dir: args.state_dir,
            tails: args.tails,
            listener: args.listener,
            context: args.context,
            faults_enabled: args.faults_enabled,
            config: args.config,
            changes: args.changes,
            restore_note: args.restore.note,
            restore_degraded: args.restore.degraded,
            started: Instant::now(),
            children: HashMap::new(),
            workspaces: Vec::new(),
            shutting_down: false,
            client_limits: ClientLimits::default(),
            orphans: args.orphans,
            published,
            model: reader,
            writer,
            worktrees,
            worktree_watch,
            hibernator,
            upgrades: args.handed.as_ref().map_or(0, |(_, upgrades)| *upgrades),
            lock_fd: args.lock_fd,
        };
        server.spawn_snapshot(&myself, model).await?;
        server.spawn_notifier(&myself).await?;
        if let Some(snapshot) = &args.restore.snapshot {
            match args.handed {
                Some((mut handed, _)) => server.take_over(&myself, snapshot, &mut handed).await,
                None => server.restore(&myself, snapshot).await,
            }
        }
        // Only now, with everything rebuilt, are clients let in.
        server.spawn_listener(&myself).await?;
        Ok(server)
    }

    async fn handle(
        &self,
        myself: ActorRef<ServerMsg>,
        msg: ServerMsg,
        server: &mut Server,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            ServerMsg::NewWorkspace {
                name,
                cwd,
                auto_resume,
                worktree,
                reply,
            } => {
                let result = server
                    .new_workspace(&myself, name, (cwd, worktree), auto_resume)
                    .await;
                let _ = reply.send(result);
            }
            ServerMsg::CloseWorkspace { id, reply } => {
                let _ = reply.send(server.close_workspace(&id).await);
            }
            ServerMsg::RenameWorkspace { id, name, reply } => {
                let _ = reply.send(server.rename_workspace(&id, name).await);
            }
            ServerMsg::Status(reply) => {
                let _ = reply.send(server.status());
            }
            ServerMsg::Upgrade {
                binary,
                caller,
                reply,
            } => {
                let model = server.model.latest().await;
                let outgoing = handover::Outgoing {
                    model: &model,
                    reaper: &server.context.reaper,
                    listener_fd: server.listener.as_raw_fd(),
                    lock_fd: server.lock_fd,
                    upgrades: server.upgrades,
                };
                let error = handover::hand_over(outgoing, binary, caller).await;
                tracing::warn!(error = %error, "upgrade failed; this server goes on");
                let _ = reply.send(error);
            }
            ServerMsg::Shutdown => {
                if !server.shutting_down {
                    server.shutting_down = true;
                    Self::shutdown(&myself, server).await;
                }
            }
        }
        Ok(())
    }

    async fn handle_supervisor_evt(
        &self,
        myself: ActorRef<ServerMsg>,
        event: SupervisionEvent,
        server: &mut Server,
    ) -> Result<(), ActorProcessingErr> {
        let Some((actor, why)) = supervision::ended(event) else {
            return Ok(());
        };
        let Some(role) = server.children.remove(&actor) else {
            return Ok(());
        };
        if server.shutting_down {
            return Ok(());
        }
        match role {
            Role::Snapshot => {
                error!(reason = %why, "snapshot actor failed; restarting it from the file on disk");
                let model = server.last_saved_model();
                server.spawn_snapshot(&myself, model).await?;
                for cell in myself.get_children() {
                    let _ = cell.send_message(WorkspaceMsg::Republish);
                }
            }
            Role::Listener => {
                error!(reason = %why, "listener failed; restarting it");
                server.spawn_listener(&myself).await?;
            }
            Role::Notifier => {
                error!(reason = %why, "notifier failed; restarting it");
                server.spawn_notifier(&myself).await?;
            }
            Role::Workspace(id) => {
                if !server.workspaces.iter().any(|(w, _)| *w == id) {
                    // Closed on purpose.
                    return Ok(());
                }
                error!(workspace = %id, reason = %why, "workspace actor failed; rebuilding it");
                if let Err(e) = server.rebuild_workspace(&myself, &id).await {
                    error!(workspace = %id, error = %e, "could not rebuild the workspace");
                }
            }
        }
        Ok(())
    }
}

impl ServerActor {
    /// The orderly stop. The final snapshot is written while every pane is
    /// still running, so a restart shows them as live at save; the snapshot
    /// actor is then stopped first, so that panes ending from the hang-up
    /// cannot overwrite that picture with EXITED; then every child is hung
    /// up (dropping a pane's process does that) and reaped.
    async fn shutdown(myself: &ActorRef<ServerMsg>, server: &mut Server) {
        info!("shutting down");
        server.worktree_watch.abort();
        server.hibernator.abort();
        let model = server.model.latest().await;
        {
            let flushes = model.panes.keys().filter_map(|id| {
                names::lookup::<PaneMsg>(&names::pane(id)).map(|pane| async move {
                    ractor::call_t!(pane, PaneMsg::FlushTail, FLUSH_TAIL_MS)
                })
            });
            join_all(flushes).await;
        }
        if let Some(snapshot) = names::lookup::<SnapshotMsg>(names::SNAPSHOT) {
            match ractor::call_t!(snapshot, SnapshotMsg::Flush, 30_000) {
                Ok(Ok(())) => info!("final snapshot written"),
                Ok(Err(e)) => error!(error = %e, "final snapshot failed"),
                Err(e) => error!(error = %e, "final snapshot failed"),
            }
            let _ = snapshot.stop_and_wait(Some("shutdown".into()), None).await;
        }
        myself
            .stop_children_and_wait(Some("shutdown".into()), None)
            .await;
        let running = server.context.reaper.wait_all(REAP_WAIT).await;
        if running > 0 {
            warn!(running, "children still running after the hang-up");
        }
        myself.stop(Some("shutdown".into()));
    }
}

impl Server {
    /// Rebuilds every saved workspace, then resumes the RESUMABLE panes of
    /// workspaces that opted in with `auto_resume` — the only thing that
    /// ever starts by itself.
    async fn restore(&mut self, myself: &ActorRef<ServerMsg>, snapshot: &Snapshot) {
        self.rebuild(myself, snapshot, &mut HashMap::new()).await;
        let auto: Vec<&str> = snapshot
            .workspaces
            .iter()
            .filter(|w| w.auto_resume)
            .map(|w| w.id.as_str())
            .collect();
        for pane in snapshot
            .panes
            .iter()
            .filter(|p| auto.contains(&p.workspace_id.as_str()))
        {
            if restored_state(&pane.clone().into_live()) != PaneState::Resumable {
                continue;
            }
            let Some(actor) = names::lookup::<PaneMsg>(&names::pane(&pane.id)) else {
                continue;
            };
            let id = pane.id.clone();
            let orphans = self.orphans.clone();
            tokio::spawn(async move {
                crate::orphans::settled(&orphans).await;
                match ractor::call_t!(actor, PaneMsg::Resume, 30_000) {
                    Ok(Ok(())) => info!(pane = %id, "auto-resumed"),
                    Ok(Err(e)) => warn!(pane = %id, error = %e, "auto-resume failed"),
                    Err(e) => warn!(pane = %id, error = %e, "auto-resume failed"),
                }
            });
        }
    }

    /// Rebuilds the tree the previous image handed over: its panes adopt
    /// their children; nothing is resumed (nothing ended).
    async fn take_over(
        &mut self,
        myself: &ActorRef<ServerMsg>,
        snapshot: &Snapshot,
        handed: &mut HashMap<String, HandedPane>,
    ) {
        self.rebuild(myself, snapshot, handed).await;
        info!(upgrades = self.upgrades, "took over by upgrade");
    }

    /// Every workspace of `snapshot`, its panes adopting what `handed`
    /// holds for them and restored as tombstones otherwise.
    async fn rebuild(
        &mut self,
        myself: &ActorRef<ServerMsg>,
        snapshot: &Snapshot,
        handed: &mut HashMap<String, HandedPane>,
    ) {
        for args in restore::workspace_args(snapshot, &self.tails, &self.context, handed) {
            let (id, name) = (args.record.id.clone(), args.record.name.clone());
            match self.spawn_workspace(myself, args).await {
                Ok(()) => self.workspaces.push((id, name)),
                Err(e) => error!(workspace = %id, error = %e, "could not restore a workspace"),
            }
        }
    }

    async fn spawn_snapshot(
        &mut self,
        myself: &ActorRef<ServerMsg>,
        model: Model,
    ) -> Result<(), ActorProcessingErr> {
        let (actor, _) = Actor::spawn_linked(
            Some(names::SNAPSHOT.to_string()),
            SnapshotActor,
            SnapshotArgs {
                model,
                published: self.published.clone(),
                writer: self.writer.tx.clone(),
                changes: self.changes.clone(),
            },
            myself.get_cell(),
        )
        .await?;
        self.children.insert(actor.get_id(), Role::Snapshot);
        Ok(())
    }

    /// The notifier, when the config has a `[notify]` command.
    async fn spawn_notifier(
        &mut self,
        myself: &ActorRef<ServerMsg>,
    ) -> Result<(), ActorProcessingErr> {
        let Some(template) = self.config.notify_command.clone() else {
            return Ok(());
        };
        let (actor, _) = Actor::spawn_linked(
            Some(names::NOTIFIER.to_string()),
            NotifierActor,
            NotifierArgs { template },
            myself.get_cell(),
        )
        .await?;
        self.children.insert(actor.get_id(), Role::Notifier);
        Ok(())
    }

    async fn spawn_listener(
        &mut self,
        myself: &ActorRef<ServerMsg>,
    ) -> Result<(), ActorProcessingErr> {
        let listener = self.listener.try_clone()?;
        let (actor, _) = Actor::spawn_linked(
            None,
            ListenerActor,
            ListenerArgs {
                listener,
                server: myself.clone(),
                socket_path: self.context.socket_path.clone(),
                #[cfg(any(debug_assertions, feature = "fault-injection"))]
                faults_enabled: self.faults_enabled,
                changes: self.changes.clone(),
                model: self.model.clone(),
                limits: self.client_limits.clone(),
                orphans: self.orphans.clone(),
                worktrees: self.worktrees.clone(),
            },
            myself.get_cell(),
        )
        .await?;
        self.children.insert(actor.get_id(), Role::Listener);
        Ok(())
    }

    /// The records of the last snapshot on disk, for a restarted snapshot
    /// actor to start from until every actor has published again.
    fn last_saved_model(&self) -> Model {
        match self.state_dir.load() {
            Ok(signaltty_persistence::LoadOutcome::Restored(snapshot))
            | Ok(signaltty_persistence::LoadOutcome::Recovered { snapshot, .. }) => {
                restored::model(&snapshot)
            }
            _ => Model::default(),
        }
    }

    async fn spawn_workspace(
        &mut self,
        myself: &ActorRef<ServerMsg>,
        args: WorkspaceArgs,
    ) -> Result<(), ActorError> {
        let id = args.record.id.clone();
        let (actor, _) = Actor::spawn_linked(
            Some(names::workspace(&id)),
            WorkspaceActor,
            args,
            myself.get_cell(),
        )
        .await
        .map_err(|e| ActorError::Io(format!("workspace {id} did not start: {e}")))?;
        self.children.insert(actor.get_id(), Role::Workspace(id));
        Ok(())
    }

    async fn rename_workspace(&mut self, id: &str, name: String) -> Result<(), ActorError> {
        let name = checked_name(name)?;
        if self.workspaces.iter().any(|(w, n)| *n == name && w != id) {
            return Err(ActorError::NameTaken(name));
        }
        let Some(slot) = self.workspaces.iter_mut().find(|(w, _)| w == id) else {
            return Err(ActorError::NoSuchWorkspace(id.to_string()));
        };
        let actor = names::lookup::<WorkspaceMsg>(&names::workspace(id))
            .ok_or_else(|| ActorError::NoSuchWorkspace(id.to_string()))?;
        ractor::call_t!(actor, WorkspaceMsg::Rename, 10_000, name.clone())
            .map_err(|e| ActorError::Unavailable(e.to_string()))?;
        slot.1 = name;
        Ok(())
    }

    async fn new_workspace(
        &mut self,
        myself: &ActorRef<ServerMsg>,
        name: String,
        (cwd, worktree): (String, Option<WorktreeRecord>),
        auto_resume: bool,
    ) -> Result<WorkspaceId, ActorError> {
        let name = checked_name(name)?;
        if self.workspaces.iter().any(|(_, n)| *n == name) {
            return Err(ActorError::NameTaken(name));
        }
        let auto_resume = auto_resume || self.config.auto_resume(&name).unwrap_or(false);
        if !std::path::Path::new(&cwd).is_dir() {
            return Err(ActorError::BadRequest(format!(
                "working directory {cwd} is not a directory; pass an existing one with --cwd"
            )));
        }
        let id = WorkspaceId::trusted(names::new_id());
        let record = WorkspaceRecord {
            id: id.clone(),
            name: name.clone(),
            cwd,
            tabs: Vec::new(),
            active_tab_id: None,
            auto_resume,
            created_at: now_millis(),
            last_used_at: 0,
            worktree,
            hibernate_after: None,
        };
        self.spawn_workspace(
            myself,
            WorkspaceArgs {
                record,
                tabs: Vec::new(),
                context: self.context.clone(),
            },
        )
        .await?;
        self.workspaces.push((id.clone(), name));
        info!(workspace = %id, "workspace created");
        Ok(id)
    }

    async fn close_workspace(&mut self, id: &WorkspaceId) -> Result<(), ActorError> {
        let Some(index) = self.workspaces.iter().position(|(w, _)| w == id) else {
            return Err(ActorError::NoSuchWorkspace(id.to_string()));
        };
        self.workspaces.remove(index);
        if let Some(ws) = names::lookup::<WorkspaceMsg>(&names::workspace(id)) {
            let _ = ractor::call_t!(ws, WorkspaceMsg::CloseAll, 30_000);
            let _ = ws.stop_and_wait(Some("closed".into()), None).await;
        }
        signaltty_actors::snapshot::publish(SnapshotMsg::RemoveWorkspace(id.clone()));
        Ok(())
    }

    /// A failed workspace comes back from its last record: the same tabs and
    /// layouts, every pane an EXITED tombstone with its last tail.
    async fn rebuild_workspace(
        &mut self,
        myself: &ActorRef<ServerMsg>,
        id: &str,
    ) -> Result<(), ActorError> {
        let model = self.model.latest().await;
        let record = model
            .workspaces
            .iter()
            .find(|w| w.id == id)
            .cloned()
            .ok_or_else(|| ActorError::NoSuchWorkspace(id.to_string()))?;
        if !names::released(&[names::workspace(id)]).await {
            warn!(workspace = %id, "the failed workspace is still stopping; rebuilding anyway");
        }
        let mut tabs = Vec::new();
        for tab_id in &record.tabs {
            if let Some(tab) = rebuild_tab(&model, tab_id, &self.context).await {
                tabs.push(tab);
            }
        }
        self.spawn_workspace(
            myself,
            WorkspaceArgs {
                record,
                tabs,
                context: self.context.clone(),
            },
        )
        .await
    }

    fn status(&self) -> ServerStatus {
        let snapshot = self.writer.status.borrow().clone();
        ServerStatus {
            uptime: self.started.elapsed(),
            socket_path: self.context.socket_path.clone(),
            state_dir: self.state_dir.root().to_path_buf(),
            faults_enabled: self.faults_enabled,
            snapshot,
            restore_note: self.restore_note.clone(),
            restore_degraded: self.restore_degraded,
            orphans: *self.orphans.borrow(),
            upgrades: self.upgrades,
        }
    }
}

/// A workspace name as given, trimmed; refused if empty or with control
/// characters.
fn checked_name(name: String) -> Result<String, ActorError> {
    let name = name.trim().to_string();
    if name.is_empty() || name.chars().any(char::is_control) {
        return Err(ActorError::BadRequest(
            "a workspace name must be non-empty text without control characters".into(),
        ));
    }
    Ok(name)
}
