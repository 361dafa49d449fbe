//! What the dashboard shows: every pane of every workspace and tab, the
//! one that needs the user most first, with the last lines of its screen.

use std::collections::HashMap;

use serde::Serialize;
use signaltty_client::alert_rule::Alert;
use signaltty_protocol::{Attention, Lifecycle, LsPane, LsReply, LsWorktree, PaneState};

use crate::dialog::Dialog;

/// Lines of each pane's screen the dashboard shows.
pub const SCREEN_LINES: usize = 6;
/// The longest line shown, in characters.
const MAX_LINE_CHARS: usize = 160;

/// The dashboard's listing, as its socket sends it.
#[derive(Debug, Serialize)]
pub struct Listing {
    /// Why there is nothing to list: the server is not running, say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub read_only: bool,
    pub workspaces: Vec<WorkspaceView>,
    /// Every pane, the one that needs the user most first.
    pub panes: Vec<PaneView>,
    /// The latest alerts, oldest first: a page notifies for those newer
    /// than any it has seen.
    pub alerts: Vec<NumberedAlert>,
}

/// An alert with its number in this web server's run, from 1.
#[derive(Debug, Clone, Serialize)]
pub struct NumberedAlert {
    pub number: u64,
    #[serde(flatten)]
    pub alert: Alert,
}

#[derive(Debug, Serialize)]
pub struct WorkspaceView {
    pub id: String,
    pub name: String,
    pub attention: Attention,
    pub tabs: usize,
    pub panes: usize,
}

#[derive(Debug, Serialize)]
pub struct PaneView {
    pub id: String,
    pub name: String,
    pub title: String,
    pub workspace: String,
    pub tab: String,
    pub state: PaneState,
    pub agent: Option<String>,
    pub lifecycle: Lifecycle,
    pub attention: Attention,
    pub exit_code: Option<i32>,
    pub last_message: Option<String>,
    pub worktree: Option<LsWorktree>,
    pub cwd: String,
    /// The last lines of its screen with anything on them.
    pub lines: Vec<String>,
    /// A blocked agent's dialog, its choices to press.
    pub dialog: Option<Dialog>,
}

impl Listing {
    pub fn unavailable(error: String, read_only: bool) -> Listing {
        Listing {
            error: Some(error),
            read_only,
            workspaces: Vec::new(),
            panes: Vec::new(),
            alerts: Vec::new(),
        }
    }

    /// The listing of `ls`, with each pane's screen from `screens` (by
    /// pane id; a pane without one shows no lines).
    pub fn new(ls: &LsReply, screens: &HashMap<String, String>, read_only: bool) -> Listing {
        let mut panes = Vec::new();
        let mut workspaces = Vec::new();
        for workspace in &ls.workspaces {
            let mut count = 0;
            for tab in &workspace.tabs {
                for pane in &tab.panes {
                    count += 1;
                    panes.push(pane_view(
                        pane,
                        &workspace.name,
                        &tab.title,
                        screens.get(&pane.id),
                    ));
                }
            }
            workspaces.push(WorkspaceView {
                id: workspace.id.clone(),
                name: workspace.name.clone(),
                attention: workspace.attention,
                tabs: workspace.tabs.len(),
                panes: count,
            });
        }
        // Stable: panes that need the user as much keep the server's order.
        panes.sort_by_key(|pane| need(pane.lifecycle, pane.attention));
        Listing {
            error: None,
            read_only,
            workspaces,
            panes,
            alerts: Vec::new(),
        }
    }
}

fn pane_view(pane: &LsPane, workspace: &str, tab: &str, screen: Option<&String>) -> PaneView {
    let blocked = need(pane.lifecycle, pane.attention) == 0;
    PaneView {
        id: pane.id.clone(),
        name: pane.name.clone(),
        title: pane.title.clone(),
        workspace: workspace.to_string(),
        tab: tab.to_string(),
        state: pane.state,
        agent: pane.agent.as_ref().map(|agent| agent.kind.clone()),
        lifecycle: pane.lifecycle,
        attention: pane.attention,
        exit_code: pane.exit_code,
        last_message: pane.last_message.clone(),
        worktree: pane.worktree.clone(),
        cwd: pane.cwd.clone(),
        lines: screen.map(|text| last_lines(text)).unwrap_or_default(),
        dialog: screen
            .filter(|_| blocked)
            .and_then(|text| Dialog::read(text)),
    }
}

/// How much a pane needs the user, most first: an agent waiting at a
/// dialog, then one that failed, then one done with its turn, then
/// unread output, then one at work, then the rest.
pub fn need(lifecycle: Lifecycle, attention: Attention) -> u8 {
    match (lifecycle, attention) {
        (Lifecycle::Blocked, _) | (_, Attention::PermissionRequired | Attention::InputRequired) => {
            0
        }
        (Lifecycle::Failed, _) | (_, Attention::Error) => 1,
        (Lifecycle::Done, _) => 2,
        (_, Attention::Warning | Attention::Unread) => 3,
        (Lifecycle::Working, _) => 4,
        (Lifecycle::Idle, _) => 5,
        _ => 6,
    }
}

/// The last [`SCREEN_LINES`] lines of `screen` that are not blank, each
/// cut to [`MAX_LINE_CHARS`].
fn last_lines(screen: &str) -> Vec<String> {
    let mut lines: Vec<String> = screen
        .lines()
        .map(str::trim_end)
        .filter(|line| !line.is_empty())
        .rev()
        .take(SCREEN_LINES)
        .map(|line| line.chars().take(MAX_LINE_CHARS).collect())
        .collect();
    lines.reverse();
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pane_that_needs_you_most_comes_first() {
        let ls: LsReply = serde_json::from_value(serde_json::json!({"workspaces": [{
            "id": "w", "name": "work", "cwd": "/", "auto_resume": false, "attention": "none",
            "tabs": [{"id": "t", "title": "Tab 1", "layout": {"type": "pane", "pane_id": "a"}, "panes": [
                {"id": "a", "name": "sh", "title": "sh", "cwd": "/", "argv": [], "state": "LIVE",
                 "agent": null, "lifecycle": "idle", "attention": "none", "exit_code": null},
                {"id": "b", "name": "claude", "title": "c", "cwd": "/", "argv": [], "state": "LIVE",
                 "agent": {"kind": "claude", "session_id": null}, "lifecycle": "working",
                 "attention": "none", "exit_code": null},
                {"id": "c", "name": "codex", "title": "x", "cwd": "/", "argv": [], "state": "LIVE",
                 "agent": {"kind": "codex", "session_id": null}, "lifecycle": "blocked",
                 "attention": "permission_required", "exit_code": null},
                {"id": "d", "name": "gemini", "title": "g", "cwd": "/", "argv": [], "state": "LIVE",
                 "agent": null, "lifecycle": "done", "attention": "unread", "exit_code": null}
            ]}]
        }]}))
        .unwrap();
        let screens = HashMap::from([(
            "a".to_string(),
            format!(
                "{}\nlast   \n\n\n",
                (1..=9).map(|i| format!("l{i}\n")).collect::<String>()
            ),
        )]);
        let listing = Listing::new(&ls, &screens, false);
        let order: Vec<&str> = listing.panes.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(order, ["c", "d", "b", "a"]);
        let a = &listing.panes[3];
        assert_eq!(a.lines, ["l5", "l6", "l7", "l8", "l9", "last"]);
        assert_eq!((a.workspace.as_str(), a.tab.as_str()), ("work", "Tab 1"));
        assert_eq!(listing.panes[0].agent.as_deref(), Some("codex"));
        assert_eq!(listing.workspaces[0].panes, 4);
        let json = serde_json::to_value(&listing).unwrap();
        assert_eq!(json["panes"][0]["lifecycle"], "blocked");
        assert!(json.get("error").is_none());
    }
}
