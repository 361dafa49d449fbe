//! What every supervisor in the tree shares: telling a child's unexpected
//! end (a panic, an error, a stop nobody asked for) from one it asked for.

use std::collections::{HashMap, HashSet};

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

/// A supervisor's children by actor id, and the ones it is closing.
#[derive(Debug, Default)]
pub struct Children {
    ids: HashMap<ActorId, String>,
    closing: HashSet<String>,
}

impl Children {
    pub fn add(&mut self, actor: ActorId, id: String) {
        self.ids.insert(actor, id);
    }

    /// Forgets a child that now has another supervisor (a pane moved to
    /// another tab).
    pub fn let_go(&mut self, id: &str) {
        self.ids.retain(|_, child| child != id);
    }

    pub fn has(&self, id: &str) -> bool {
        self.ids.values().any(|child| child == id)
    }

    /// Marks a child as being closed on purpose: its end is not a failure.
    pub fn closing(&mut self, id: &str) {
        self.closing.insert(id.to_string());
    }

    pub fn closing_all(&mut self) {
        self.closing.extend(self.ids.values().cloned());
    }

    /// The id of a child that ended without being asked to, and why.
    pub fn unexpected(&mut self, event: SupervisionEvent) -> Option<(String, String)> {
        let (actor, why) = ended(event)?;
        let id = self.ids.remove(&actor)?;
        if self.closing.remove(&id) {
            return None;
        }
        Some((id, why))
    }
}
