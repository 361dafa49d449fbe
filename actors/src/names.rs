//! Ids and the registry names actors are found by.
//!
//! Every workspace, tab and pane actor registers under a name derived from
//! its id, so a request can reach the actor directly without routing
//! through its ancestors; ractor removes the name when the actor stops, and
//! a replacement (a tombstone, a restarted tab) takes the same name.

use std::time::Duration;

use ractor::{ActorRef, Message};

/// How long a rebuild waits for a failed actor's children to let go of
/// their names.
const RELEASE_WAIT: Duration = Duration::from_secs(5);

/// The snapshot actor's registered name.
pub const SNAPSHOT: &str = "signaltty.snapshot";
/// The notifier's, when the config has a notification command.
pub const NOTIFIER: &str = "signaltty.notifier";

pub fn pane(id: &str) -> String {
    format!("signaltty.pane.{id}")
}

pub fn tab(id: &str) -> String {
    format!("signaltty.tab.{id}")
}

pub fn workspace(id: &str) -> String {
    format!("signaltty.workspace.{id}")
}

/// A fresh id: 12 hex digits, random enough never to repeat (ids of closed
/// panes must never come back, since their tails are gone for good).
pub fn new_id() -> String {
    let mut id = uuid::Uuid::new_v4().simple().to_string();
    id.truncate(12);
    id
}

/// The actor registered under `name`, typed.
pub fn lookup<M: Message>(name: &str) -> Option<ActorRef<M>> {
    ractor::registry::where_is(name).map(ActorRef::from)
}

/// Waits until no actor holds any of `names`, at most [`RELEASE_WAIT`];
/// whether they are free. An actor that fails has its children killed as it
/// goes, but they stop (and unregister) on their own time, after its
/// supervisor has heard of the failure: a replacement spawned under a name
/// still held would fail to start.
pub async fn released(names: &[String]) -> bool {
    let deadline = tokio::time::Instant::now() + RELEASE_WAIT;
    loop {
        if names
            .iter()
            .all(|name| ractor::registry::where_is(name.clone()).is_none())
        {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}
