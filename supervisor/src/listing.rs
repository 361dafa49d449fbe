//! `ls`, rendered once per model version.
//!
//! A listing is a pure function of the read model, which is immutable and
//! replaced whole on every change; so the reply, serialized, is kept with
//! the model version it was made from and sent as it is until the model
//! changes. Listings of hundreds of panes thus cost a pointer comparison
//! and a write, however often clients (the multiplexer after every
//! `changed` event, scripts polling `ctl ls`) ask.

use std::sync::{Arc, Mutex, PoisonError};

use serde_json::value::RawValue;
use signaltty_actors::model::{Model, PaneView};
use signaltty_persistence::WorktreeRecord;
use signaltty_protocol::{
    ErrorCode, LsAgent, LsPane, LsReply, LsTab, LsWorkspace, LsWorktree, WireError,
};

/// The last listing made, with the model version it shows.
#[derive(Default)]
pub struct ListingCache {
    last: Mutex<Option<(Arc<Model>, Arc<RawValue>)>>,
}

impl ListingCache {
    /// The listing of `model`, made now unless it is the last one's.
    pub(crate) fn of(&self, model: &Arc<Model>) -> Result<Arc<RawValue>, WireError> {
        // Only a comparison and a clone happen under the lock; a panic
        // elsewhere cannot have left the pair half-written.
        let lock = || self.last.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((shown, listing)) = lock().as_ref()
            && Arc::ptr_eq(shown, model)
        {
            return Ok(listing.clone());
        }
        let listing: Arc<RawValue> = serde_json::value::to_raw_value(&listing(model))
            .map_err(internal)?
            .into();
        *lock() = Some((model.clone(), listing.clone()));
        Ok(listing)
    }
}

fn internal(e: serde_json::Error) -> WireError {
    WireError::new(ErrorCode::Internal, e.to_string())
}

fn listing(model: &Model) -> LsReply {
    let workspaces = model
        .workspaces
        .iter()
        .map(|ws| LsWorkspace {
            id: ws.id.to_string(),
            name: ws.name.clone(),
            cwd: ws.cwd.clone(),
            auto_resume: ws.auto_resume,
            hibernate_after: ws.hibernate_after,
            worktree: ws.worktree.as_ref().map(ls_worktree),
            attention: model
                .panes
                .values()
                .filter(|p| p.record.workspace_id == ws.id)
                .map(|p| p.record.attention)
                .max()
                .unwrap_or_default(),
            tabs: model
                .tabs_of(ws)
                .map(|tab| LsTab {
                    id: tab.id.to_string(),
                    title: tab.title.clone(),
                    layout: tab.layout.clone(),
                    panes: model.panes_of(tab).map(ls_pane).collect(),
                    active_pane: tab.active_pane_id.clone().map(Into::into),
                })
                .collect(),
            active_tab: ws.active_tab_id.clone().map(Into::into),
            last_used_at: ws.last_used_at,
        })
        .collect();
    LsReply { workspaces }
}

pub(crate) fn ls_pane(view: &PaneView) -> LsPane {
    let record = &view.record;
    LsPane {
        id: record.id.to_string(),
        name: view.name(),
        title: record.title.clone(),
        cwd: record.cwd.clone(),
        argv: record.argv.clone(),
        state: view.state,
        agent: record.agent.as_ref().map(|agent| LsAgent {
            kind: agent.kind.to_string(),
            session_id: agent.agent_session_id.clone(),
            ended: agent.ended,
        }),
        lifecycle: record.lifecycle,
        attention: record.attention,
        exit_code: record.exit_code,
        last_message: record.last_message.clone(),
        hibernated_at: record.hibernated_at,
        pinned: record.pinned,
        worktree: record.worktree.as_ref().map(ls_worktree),
    }
}

pub(crate) fn ls_worktree(worktree: &WorktreeRecord) -> LsWorktree {
    LsWorktree {
        path: worktree.path.clone(),
        branch: worktree.branch.clone(),
        repo: worktree.repo.clone(),
        dirty: worktree.dirty,
        gone: worktree.gone,
    }
}
