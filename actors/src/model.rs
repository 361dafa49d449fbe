//! The latest published record of every workspace, tab and pane.
//!
//! The snapshot actor holds one [`Model`]: actors push their records into
//! it, it is what gets written to disk (converted by the writer), and it
//! answers listings and id lookups without asking (and so without waiting
//! for) any pane. It is a read model only: what a saved pane is restored
//! to and how an agent resumes are `pane::revive`'s.

use std::collections::HashMap;
use std::sync::Arc;

use signaltty_persistence::{NotificationRecord, TabRecord, WorkspaceRecord};
use signaltty_types::PaneRecord;
use signaltty_types::id::{PaneId, TabId};

use crate::error::ActorError;

/// What a pane is, as shown to the user. It lives in the types crate
/// because the wire carries it; named here so the server's code keeps
/// reaching it through the model.
pub use signaltty_types::PaneState;

/// A pane's durable record plus the live state that is not persisted.
#[derive(Debug, Clone, PartialEq)]
pub struct PaneView {
    pub record: PaneRecord,
    pub state: PaneState,
    /// A client was attached when this view was published.
    pub watched: bool,
    /// The name of the live pane's foreground command (`bash`, `top`),
    /// as tmux's automatic-rename shows it; `None` with no process.
    pub command: Option<String>,
}

impl PaneView {
    /// The name that tells this pane apart from its neighbours: the
    /// user's name for it, else its agent's kind, else its foreground
    /// command, else its program's title, else the program it runs.
    pub fn name(&self) -> String {
        let record = &self.record;
        if let Some(user) = &record.user_title {
            return user.clone();
        }
        if let Some(agent) = record.agent.as_ref().filter(|a| !a.ended) {
            return agent.kind.to_string();
        }
        if let Some(command) = &self.command {
            return command.clone();
        }
        if !record.title.is_empty() {
            return record.title.clone();
        }
        program_name(&record.argv)
    }
}

/// The basename of a command line's program (`/bin/bash -l` → `bash`).
pub fn program_name(argv: &[String]) -> String {
    argv.first()
        .map(|p| p.rsplit('/').next().unwrap_or(p).to_string())
        .unwrap_or_default()
}

#[derive(Debug, Clone, Default)]
pub struct Model {
    /// In creation order, which is display order.
    pub workspaces: Vec<WorkspaceRecord>,
    pub tabs: HashMap<TabId, TabRecord>,
    /// Shared with the published copies, so publishing the model copies
    /// each pane's pointer, not its record.
    pub panes: HashMap<PaneId, Arc<PaneView>>,
    /// Newest last, at most [`signaltty_persistence::MAX_NOTIFICATIONS`].
    pub notifications: Vec<NotificationRecord>,
}

impl Model {
    pub fn upsert_workspace(&mut self, record: WorkspaceRecord) {
        match self.workspaces.iter_mut().find(|w| w.id == record.id) {
            Some(slot) => *slot = record,
            None => self.workspaces.push(record),
        }
    }

    /// A tab's record. Its layout says where its panes live: a pane that
    /// moved here from another tab is placed in it (the pane's own record
    /// does not know it moved).
    pub fn upsert_tab(&mut self, record: TabRecord) {
        for id in record.layout.pane_ids() {
            if let Some(view) = self.panes.get_mut(id)
                && view.record.tab_id != record.id
            {
                Arc::make_mut(view).record.tab_id = record.id.clone();
            }
        }
        self.tabs.insert(record.id.clone(), record);
    }

    /// A pane's record as its actor published it, in the tab the layouts
    /// place it in; returns the view it replaced.
    pub fn upsert_pane(&mut self, mut view: PaneView) -> (Arc<PaneView>, Option<Arc<PaneView>>) {
        let id = view.record.id.clone();
        let placed = match self.panes.get(&*id) {
            Some(before) => Some(before.record.tab_id.clone()),
            None => self
                .tabs
                .values()
                .find(|t| t.layout.contains(&id))
                .map(|t| t.id.clone()),
        };
        if let Some(tab) = placed {
            view.record.tab_id = tab;
        }
        let after = Arc::new(view);
        let before = self.panes.insert(id, after.clone());
        (after, before)
    }

    /// Removes a workspace and everything in it; returns the panes removed.
    pub fn remove_workspace(&mut self, id: &str) -> Vec<Arc<PaneView>> {
        self.workspaces.retain(|w| w.id != id);
        self.tabs.retain(|_, t| t.workspace_id != id);
        self.drain_panes(|p| p.workspace_id == id)
    }

    /// Removes a tab and its panes; returns the panes removed.
    pub fn remove_tab(&mut self, id: &str) -> Vec<Arc<PaneView>> {
        self.tabs.remove(id);
        self.drain_panes(|p| p.tab_id == id)
    }

    fn drain_panes(&mut self, doomed: impl Fn(&PaneRecord) -> bool) -> Vec<Arc<PaneView>> {
        let ids: Vec<PaneId> = self
            .panes
            .values()
            .filter(|p| doomed(&p.record))
            .map(|p| p.record.id.clone())
            .collect();
        ids.iter()
            .filter_map(|id| self.panes.remove(&**id))
            .collect()
    }

    /// The tabs of a workspace in its display order.
    pub fn tabs_of<'a>(
        &'a self,
        workspace: &'a WorkspaceRecord,
    ) -> impl Iterator<Item = &'a TabRecord> {
        workspace.tabs.iter().filter_map(|id| self.tabs.get(&**id))
    }

    /// The panes of a tab in layout order.
    pub fn panes_of<'a>(&'a self, tab: &'a TabRecord) -> impl Iterator<Item = &'a PaneView> {
        tab.layout
            .pane_ids()
            .into_iter()
            .filter_map(|id| self.panes.get(id).map(Arc::as_ref))
    }

    pub fn resolve_workspace(&self, query: &str) -> Result<&WorkspaceRecord, ActorError> {
        if let Some(ws) = self
            .workspaces
            .iter()
            .find(|w| w.id == query || w.name == query)
        {
            return Ok(ws);
        }
        unique_prefix(self.workspaces.iter().map(|w| (w.id.as_str(), w)), query)
            .ok_or_else(|| ActorError::NoSuchWorkspace(query.to_string()))?
    }

    pub fn resolve_tab(&self, query: &str) -> Result<&TabRecord, ActorError> {
        unique_prefix(self.tabs.iter().map(|(id, t)| (id.as_str(), t)), query)
            .ok_or_else(|| ActorError::NoSuchTab(query.to_string()))?
    }

    pub fn resolve_pane(&self, query: &str) -> Result<&PaneView, ActorError> {
        unique_prefix(self.panes.iter().map(|(id, p)| (id.as_str(), &**p)), query)
            .ok_or_else(|| ActorError::NoSuchPane(query.to_string()))?
    }
}

/// Finds the entry whose id is `query` or starts with it. `None` when
/// nothing matches; an error when the prefix is ambiguous.
fn unique_prefix<'a, T>(
    entries: impl Iterator<Item = (&'a str, T)>,
    query: &str,
) -> Option<Result<T, ActorError>> {
    if query.is_empty() {
        return None;
    }
    let mut matches: Vec<(&str, T)> = Vec::new();
    for (id, entry) in entries {
        if id == query {
            return Some(Ok(entry));
        }
        if id.starts_with(query) {
            matches.push((id, entry));
        }
    }
    match matches.len() {
        0 => None,
        1 => matches.pop().map(|(_, entry)| Ok(entry)),
        _ => {
            let mut ids: Vec<&str> = matches.iter().map(|(id, _)| *id).collect();
            ids.sort_unstable();
            Some(Err(ActorError::BadRequest(format!(
                "{query:?} matches several ids ({}); give more of the id",
                ids.join(", ")
            ))))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model_with_panes(ids: &[&str]) -> Model {
        let mut model = Model::default();
        for id in ids {
            model.panes.insert(
                PaneId::trusted(*id),
                Arc::new(PaneView {
                    record: PaneRecord::new(*id, "w", "t"),
                    state: PaneState::Live,
                    watched: false,
                    command: None,
                }),
            );
        }
        model
    }

    #[test]
    fn panes_resolve_by_id_or_unique_prefix() {
        let model = model_with_panes(&["abc123", "abd456", "ab"]);
        assert_eq!(model.resolve_pane("abc").unwrap().record.id, "abc123");
        // An exact id wins over being a prefix of others.
        assert_eq!(model.resolve_pane("ab").unwrap().record.id, "ab");
        assert!(matches!(
            model.resolve_pane("zz"),
            Err(ActorError::NoSuchPane(_))
        ));
        assert!(matches!(
            model.resolve_pane(""),
            Err(ActorError::NoSuchPane(_))
        ));
    }

    #[test]
    fn an_ambiguous_prefix_names_the_candidates() {
        let model = model_with_panes(&["abc123", "abd456"]);
        let err = model.resolve_pane("ab").unwrap_err().to_string();
        assert!(err.contains("abc123") && err.contains("abd456"), "{err}");
    }
}
