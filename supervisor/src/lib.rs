//! The signaltty server.
//!
//! This crate owns the supervision tree and its restart policy, restore on
//! start, the IPC listener and protocol, signals and the one-server-per-
//! socket lock. It must never render anything.
//!
//! # Layout
//!
//! - [`run`]: start a server in this process and serve until shutdown;
//! - [`server`]: the root actor and its restart policy; [`messages`]: what
//!   it and the listener are sent;
//! - [`restore`]: the saved snapshot read back into actors; [`orphans`]:
//!   what the previous server left running, ended; [`config`]: the config
//!   file;
//! - [`listener`]: connections, read a request line at a time;
//!   [`handlers`]: the one dispatch over every request and a handler per
//!   request (`arrange`: renames, focus and split ratios; `listing`: `ls`,
//!   rendered once per model version), all on the [`ctx`] they share;
//!   [`input`]: input on its way to a pane, held back while its queue is
//!   full; [`limits`]: how many connections, and how much unfinished
//!   input, all clients together may make the server hold;
//! - the streams a request turns its connection into: [`attach`], its
//!   frames written several at a time in one vectored write (`frames`),
//!   and `events` (`events` and `subscribe`);
//! - the wire types live in `signaltty-protocol`, shared with clients;
//! - [`socket`]: socket paths and the singleton lock;
//! - [`worktree`]: git worktrees made for panes and workspaces, through
//!   `git` itself (the server runs git; clients never do).

pub mod attach;
pub mod config;
mod connection;
pub mod ctx;
mod events;
mod frames;
pub mod handlers;
pub mod handover;
pub mod hibernator;
pub mod input;
pub mod limits;
pub mod listener;
mod listing;
pub mod messages;
pub mod orphans;
pub mod restore;
pub mod server;
pub mod socket;
pub mod worktree;

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

use futures_util::StreamExt;
use ractor::Actor;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signaltty_actors::pane::PaneContext;
use signaltty_persistence::{ServerInfo, StateDir};
use tracing::{info, warn};

use messages::ServerMsg;
use server::{ServerActor, ServerArgs};

#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error(transparent)]
    Socket(#[from] socket::SocketError),
    #[error(transparent)]
    Persist(#[from] signaltty_persistence::PersistError),
    #[error(transparent)]
    Restore(#[from] restore::RestoreError),
    #[error(transparent)]
    Config(#[from] config::ConfigError),
    #[error("could not start the server: {0}")]
    Start(String),
}

/// How a server is started.
pub struct ServerConfig {
    pub socket_path: PathBuf,
    pub state_dir: PathBuf,
    /// `SIGNALTTY_ENABLE_FAULTS=1`: allow `ctl debug panic`.
    pub faults_enabled: bool,
    /// Fault injection (`SIGNALTTY_FAULT_FSYNC_MS`, only with faults
    /// enabled): every fsync of a save takes this much longer.
    pub fsync_delay: std::time::Duration,
    /// Start empty, setting the saved snapshot aside.
    pub no_restore: bool,
    /// The config file, if any.
    pub config_path: Option<PathBuf>,
    /// What the image this one replaced handed over (`upgrade`): the tree
    /// is rebuilt from it, not from disk.
    pub taken: Option<handover::Taken>,
}

/// Runs a server until it is shut down (a signal or `ctl shutdown`).
pub async fn run(mut config: ServerConfig) -> Result<(), ServerError> {
    signaltty_actors::allocator::keep_large_blocks_mapped();
    match limits::allow_open_files() {
        Ok(files) if files < limits::MAX_CONNECTIONS as u64 + 256 => {
            warn!(
                files,
                "the open-file limit is low; connections may fail before the cap"
            );
        }
        Ok(_) => {}
        Err(e) => warn!(error = %e, "could not raise the open-file limit"),
    }
    let state_dir =
        Arc::new(StateDir::open(&config.state_dir)?.with_fsync_delay(config.fsync_delay));
    if !config.fsync_delay.is_zero() {
        warn!(delay = ?config.fsync_delay, "fault injection: every fsync is slowed down");
    }
    for warning in state_dir.warnings() {
        warn!("state dir: {warning}");
    }
    let settings = match &config.config_path {
        Some(path) => config::load(path)?,
        None => config::Config::default(),
    };
    install_agent_rules(config.config_path.as_deref());
    let taken = config.taken.take();
    // The socket first: a second server must refuse before touching a file.
    let bound = match &taken {
        // SAFETY: the handover's descriptors were inherited across the exec
        // and are taken here once.
        Some(taken) => unsafe {
            socket::BoundSocket::inherited(
                &config.socket_path,
                taken.header.listener_fd,
                taken.header.lock_fd,
            )
        },
        None => socket::bind_exclusive(&config.socket_path)?,
    };
    let restored = match &taken {
        Some(taken) => Ok(restore::Restore {
            snapshot: Some(taken.header.snapshot.clone()),
            note: format!(
                "took over from signaltty {} by upgrade",
                taken.header.from_version
            ),
            degraded: false,
        }),
        None => restore::load(&state_dir, config.no_restore),
    };
    let mut restore = match restored {
        Ok(restore) => restore,
        Err(e) => {
            bound.remove();
            return Err(e.into());
        }
    };
    // Before any write: drop what a crash left behind, and the tails of
    // panes the snapshot does not know.
    let live: HashSet<String> = restore
        .snapshot
        .as_ref()
        .map(|s| s.pane_ids())
        .unwrap_or_default();
    let swept = state_dir.sweep(&live, SystemTime::now());
    for warning in &swept.warnings {
        warn!("startup sweep: {warning}");
    }
    if let Some(snapshot) = &mut restore.snapshot {
        restore::apply_config(snapshot, &settings);
        restore::mark_gone_worktrees(snapshot);
    }
    // After an upgrade the panes' processes are ours still, not orphans.
    let panes = match &taken {
        Some(_) => None,
        None => restore.snapshot.as_ref().map(|s| s.panes.as_slice()),
    };
    let orphans = orphans::end_in_background(panes.unwrap_or_default(), &bound.path);
    let tails = Arc::new(state_dir.tail_store());
    let listener = bound
        .listener
        .try_clone()
        .map_err(|e| ServerError::Start(e.to_string()))?;
    let context = PaneContext::native(bound.path.clone()).map_err(|e| {
        ServerError::Start(format!(
            "could not start the reaper or the PTYs' poll loop: {e}"
        ))
    })?;
    let (handed, reply) = match taken {
        Some(taken) => {
            let reply = handover::take::PendingReply::of(&taken);
            let caller = taken.header.caller;
            (
                Some((taken.panes, taken.header.upgrades)),
                Some((caller, reply)),
            )
        }
        None => (None, None),
    };
    let args = ServerArgs {
        state_dir: state_dir.clone(),
        tails,
        listener,
        context,
        faults_enabled: config.faults_enabled,
        info: server_info(),
        restore,
        orphans,
        config: settings,
        changes: signaltty_actors::snapshot::changes_channel(),
        handed,
        lock_fd: bound.lock_fd(),
    };
    // SIGHUP too: a server run in the foreground of a terminal that closes
    // should save, not vanish. Installed before the listener answers
    // anyone: a client that saw the server up may stop it at once (as
    // systemd does), and a signal before the handler would kill it unsaved.
    let signals = signal_hook_tokio::Signals::new([SIGTERM, SIGINT, SIGHUP])
        .map_err(|e| ServerError::Start(format!("could not install signal handlers: {e}")))?;
    if args.handed.is_some() && config.faults_enabled {
        takeover_fault();
    }
    let (server, handle) = Actor::spawn(None, ServerActor, args)
        .await
        .map_err(|e| ServerError::Start(e.to_string()))?;
    info!(socket = %bound.path.display(), state_dir = %state_dir.root().display(), pid = std::process::id(), "signaltty server ready");
    if let Some((Some(caller), reply)) = reply {
        // SAFETY: the caller's connection was inherited across the exec,
        // and is answered once.
        unsafe { handover::take::answer(caller, reply) };
    }
    // Taken over: a failure from now on is this server's own.
    handover::fallback::disarm();
    let signal_task = tokio::spawn(forward_signals(signals, server.clone()));
    let _ = handle.await;
    signal_task.abort();
    bound.remove();
    info!("server stopped");
    Ok(())
}

/// `SIGNALTTY_FAULT_TAKEOVER_PANIC=PATH` (with faults enabled): a takeover
/// by the binary at PATH panics, as a new version with a bug would.
fn takeover_fault() {
    let Some(path) = std::env::var_os("SIGNALTTY_FAULT_TAKEOVER_PANIC") else {
        return;
    };
    if std::env::current_exe().is_ok_and(|exe| exe == std::path::Path::new(&path)) {
        panic!("fault injected into the takeover");
    }
}

/// This binary's version and protocol, as the snapshot records them.
pub(crate) fn server_info() -> ServerInfo {
    ServerInfo {
        version: env!("CARGO_PKG_VERSION").to_string(),
        saved_at: 0,
        protocol: signaltty_protocol::PROTOCOL.to_string(),
    }
}

/// The agents' screen rules: the bundled ones, each replaced by
/// `agents/<kind>.toml` beside the config file where that compiles; a
/// broken override is ignored with a warning naming it.
fn install_agent_rules(config_path: Option<&std::path::Path>) {
    let dir = config_path
        .and_then(std::path::Path::parent)
        .map(|dir| dir.join("agents"));
    let book = match dir {
        Some(dir) => {
            let (book, warnings) = signaltty_adapters::RuleBook::with_overrides(&dir);
            for warning in warnings {
                warn!("{warning}");
            }
            book
        }
        None => signaltty_adapters::RuleBook::bundled(),
    };
    signaltty_actors::pane::aware::install_rules(book);
}

async fn forward_signals(
    mut signals: signal_hook_tokio::Signals,
    server: ractor::ActorRef<ServerMsg>,
) {
    while let Some(signal) = signals.next().await {
        info!(signal, "signal received; shutting down");
        let _ = server.cast(ServerMsg::Shutdown);
    }
}
