//! What the server last listed, and the questions the multiplexer asks of
//! it: which tab is active, where a pane lives, who needs the user.

use signaltty_protocol::{Attention, LsPane, LsReply, LsTab, LsWorkspace, LsWorktree};

#[derive(Debug, Clone, Default)]
pub struct View {
    pub ls: LsReply,
    /// The pane that needs the user most (`next`), if any.
    pub needs_you: Option<String>,
}

impl View {
    pub fn workspace(&self, id: &str) -> Option<&LsWorkspace> {
        self.ls.workspaces.iter().find(|w| w.id == id)
    }

    pub fn workspace_mut(&mut self, id: &str) -> Option<&mut LsWorkspace> {
        self.ls.workspaces.iter_mut().find(|w| w.id == id)
    }

    /// The workspace used last, else the first.
    pub fn last_used(&self) -> Option<&LsWorkspace> {
        self.ls
            .workspaces
            .iter()
            .rev()
            .max_by_key(|w| w.last_used_at)
    }

    /// A workspace's active tab: the one it says, else its first.
    pub fn active_tab<'a>(&self, ws: &'a LsWorkspace) -> Option<&'a LsTab> {
        ws.active_tab
            .as_deref()
            .and_then(|id| ws.tabs.iter().find(|t| t.id == id))
            .or_else(|| ws.tabs.first())
    }

    /// A pane and the workspace and tab it is in.
    pub fn find_pane(&self, id: &str) -> Option<(&LsWorkspace, &LsTab, &LsPane)> {
        self.ls.workspaces.iter().find_map(|ws| {
            ws.tabs.iter().find_map(|tab| {
                tab.panes
                    .iter()
                    .find(|p| p.id == id)
                    .map(|pane| (ws, tab, pane))
            })
        })
    }
}

/// A tab's active pane: the one it says, else its first.
pub fn active_pane(tab: &LsTab) -> Option<&LsPane> {
    tab.active_pane
        .as_deref()
        .and_then(|id| tab.panes.iter().find(|p| p.id == id))
        .or_else(|| tab.panes.first())
}

/// The most severe attention among `panes`.
pub fn worst<'a>(panes: impl Iterator<Item = &'a LsPane>) -> Attention {
    panes.map(|p| p.attention).max().unwrap_or_default()
}

/// The word for an attention, as the server spells it.
pub fn attention_name(attention: Attention) -> String {
    match serde_json::to_value(attention) {
        Ok(serde_json::Value::String(name)) => name.replace('_', " "),
        _ => String::new(),
    }
}

/// The word for a lifecycle, as the server spells it.
pub fn lifecycle_name(lifecycle: signaltty_protocol::Lifecycle) -> String {
    match serde_json::to_value(lifecycle) {
        Ok(serde_json::Value::String(name)) => name,
        _ => String::new(),
    }
}

/// A pane's worktree under it in the sidebar: `⎇ fix*` (`*`: uncommitted
/// changes), `⎇ fix gone` when its directory was deleted.
pub fn worktree_label(worktree: &LsWorktree) -> String {
    let mark = if worktree.gone {
        " gone"
    } else if worktree.dirty {
        "*"
    } else {
        ""
    };
    format!("⎇ {}{mark}", worktree.branch)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worktree_label_shows_its_branch_and_whether_it_is_dirty_or_gone() {
        let mut worktree = LsWorktree {
            path: "/w/fix".into(),
            branch: "fix".into(),
            repo: "/w".into(),
            dirty: false,
            gone: false,
        };
        assert_eq!(worktree_label(&worktree), "⎇ fix");
        worktree.dirty = true;
        assert_eq!(worktree_label(&worktree), "⎇ fix*");
        worktree.gone = true;
        assert_eq!(worktree_label(&worktree), "⎇ fix gone");
    }
}
