//! When a pane alerts, and what the alert says: the rule the multiplexer
//! and the web app share, so a pane rings in both or in neither.
//!
//! A pane alerts when its lifecycle *enters* blocked, done or failed —
//! never for new lines, never for the pane the user is looking at, and at
//! most once per [`PANE_INTERVAL`], so an agent flapping between working
//! and blocked rings once. How an alert is shown (a bell, OSC 9, the
//! desktop, a browser notification) is each client's own.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use signaltty_protocol::{Lifecycle, LsPane, LsReply};

/// The least time between two alerts of one pane.
pub const PANE_INTERVAL: Duration = Duration::from_secs(5);
/// Caps, in characters, on what an alert says.
pub(crate) const MAX_NAME: usize = 80;
const MAX_PLACE: usize = 120;
const MAX_MESSAGE: usize = 200;

/// One pane that needs the user, worded and cleaned.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Alert {
    pub pane: String,
    /// `claude needs you`, `tests is done`, `build failed (exit 3)`.
    pub headline: String,
    /// `api › agents`: its workspace and tab.
    pub place: String,
    /// What the agent said last, if anything.
    pub message: Option<String>,
}

/// What the rule remembers between listings: when each pane last alerted.
#[derive(Debug, Default)]
pub struct AlertRule {
    alerted: HashMap<String, Instant>,
}

impl AlertRule {
    /// The panes of `after` whose lifecycle entered blocked, done or
    /// failed since `before`, except `focused` and any that alerted less
    /// than [`PANE_INTERVAL`] before `now`. A pane `before` did not have
    /// never alerts: the first listing is not news.
    pub fn decide(
        &mut self,
        before: &LsReply,
        after: &LsReply,
        focused: Option<&str>,
        now: Instant,
    ) -> Vec<Alert> {
        self.alerted
            .retain(|_, at| now.saturating_duration_since(*at) < PANE_INTERVAL);
        let mut alerts = Vec::new();
        for (ws, tab, pane) in panes(after) {
            if Some(pane.id.as_str()) == focused || !entered(before, pane) {
                continue;
            }
            if self.alerted.contains_key(&pane.id) {
                continue;
            }
            self.alerted.insert(pane.id.clone(), now);
            alerts.push(word(ws, tab, pane));
        }
        alerts
    }
}

/// Every pane of a listing, with its workspace's name and tab's title.
fn panes(ls: &LsReply) -> impl Iterator<Item = (&str, &str, &LsPane)> {
    ls.workspaces.iter().flat_map(|ws| {
        ws.tabs.iter().flat_map(move |tab| {
            tab.panes
                .iter()
                .map(move |pane| (ws.name.as_str(), tab.title.as_str(), pane))
        })
    })
}

/// Whether `pane` (as listed now) just entered a state that needs the
/// user.
fn entered(before: &LsReply, pane: &LsPane) -> bool {
    let alerting = matches!(
        pane.lifecycle,
        Lifecycle::Blocked | Lifecycle::Done | Lifecycle::Failed
    );
    alerting
        && panes(before)
            .find(|(_, _, was)| was.id == pane.id)
            .is_some_and(|(_, _, was)| was.lifecycle != pane.lifecycle)
}

pub(crate) fn word(workspace: &str, tab: &str, pane: &LsPane) -> Alert {
    let name = clean(&pane.name, MAX_NAME);
    let name = if name.is_empty() {
        pane.id.clone()
    } else {
        name
    };
    let headline = match (pane.lifecycle, pane.exit_code) {
        (Lifecycle::Blocked, _) => format!("{name} needs you"),
        (Lifecycle::Failed, Some(code)) => format!("{name} failed (exit {code})"),
        (Lifecycle::Failed, None) => format!("{name} failed"),
        _ => format!("{name} is done"),
    };
    Alert {
        pane: pane.id.clone(),
        headline,
        place: clean(&format!("{workspace} › {tab}"), MAX_PLACE),
        message: pane
            .last_message
            .as_deref()
            .map(|m| clean(m, MAX_MESSAGE))
            .filter(|m| !m.is_empty()),
    }
}

/// Text from a pane (its name, what its agent said) made safe to put in
/// an escape sequence or an argument: no control characters or escape
/// sequences, no `;` (OSC 777's separator), at most `max` characters.
fn clean(text: &str, max: usize) -> String {
    signaltty_screen::sanitize(text, max).replace(';', ",")
}
