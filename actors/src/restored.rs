//! What a loaded snapshot becomes: the live model, each pane converted
//! from its saved record and in the state it is restored to. The other
//! half of the persistence edge, the snapshot to write, is the writer's
//! ([`crate::snapshot::writer::snapshot_of`]).

use std::sync::Arc;

use signaltty_persistence::Snapshot;

use crate::model::{Model, PaneView};
use crate::pane::restored_state;

/// The records of a loaded snapshot, each pane in the state it is
/// restored to.
pub fn model(snapshot: &Snapshot) -> Model {
    Model {
        workspaces: snapshot.workspaces.clone(),
        tabs: snapshot
            .tabs
            .iter()
            .map(|t| (t.id.clone(), t.clone()))
            .collect(),
        panes: snapshot
            .panes
            .iter()
            .map(|p| {
                let record = p.clone().into_live();
                let view = PaneView {
                    state: restored_state(&record),
                    record,
                    watched: false,
                    command: None,
                };
                (p.id.clone(), Arc::new(view))
            })
            .collect(),
        notifications: snapshot.notifications.clone(),
    }
}
