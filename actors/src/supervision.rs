//! What every supervisor in the tree shares: telling a child's unexpected
//! end (a panic, an error, a stop nobody asked for) from one it asked for.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

use ractor::{ActorId, SupervisionEvent};

/// The child an event is about and why it ended; `None` for events that
/// are not an ending.
pub fn ended(event: SupervisionEvent) -> Option<(ActorId, String)> {
    match event {
        SupervisionEvent::ActorFailed(cell, err) => Some((cell.get_id(), err.to_string())),
        SupervisionEvent::ActorTerminated(cell, _, reason) => {
            Some((cell.get_id(), reason.unwrap_or_else(|| "stopped".into())))
        }
        _ => None,
    }
}

/// A supervisor's children by actor id (each known by its own kind of
/// id: a tab's panes by `PaneId`…), and the ones it is closing.
#[derive(Debug)]
pub struct Children<Id> {
    ids: HashMap<ActorId, Id>,
    closing: HashSet<Id>,
}

impl<Id> Default for Children<Id> {
    fn default() -> Self {
        Children {
            ids: HashMap::new(),
            closing: HashSet::new(),
        }
    }
}

impl<Id: Clone + Eq + Hash + AsRef<str>> Children<Id> {
    pub fn add(&mut self, actor: ActorId, id: Id) {
        self.ids.insert(actor, id);
    }

    /// Forgets a child that now has another supervisor (a pane moved to
    /// another tab).
    pub fn let_go(&mut self, id: &str) {
        self.ids.retain(|_, child| child.as_ref() != id);
    }

    pub fn has(&self, id: &str) -> bool {
        self.ids.values().any(|child| child.as_ref() == id)
    }

    /// Marks a child as being closed on purpose: its end is not a failure.
    pub fn closing(&mut self, id: &Id) {
        self.closing.insert(id.clone());
    }

    pub fn closing_all(&mut self) {
        self.closing.extend(self.ids.values().cloned());
    }

    /// The id of a child that ended without being asked to, and why.
    pub fn unexpected(&mut self, event: SupervisionEvent) -> Option<(Id, String)> {
        let (actor, why) = ended(event)?;
        let id = self.ids.remove(&actor)?;
        if self.closing.remove::<Id>(&id) {
            return None;
        }
        Some((id, why))
    }
}
