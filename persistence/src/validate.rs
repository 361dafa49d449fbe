//! The consistency rules a snapshot must meet before it is saved or used.
//!
//! Records refer to each other by id, so a single bad reference would
//! otherwise surface much later as a pane drawn nowhere or a tab that cannot
//! be closed. Rejecting the file at load lets the loader fall back to the
//! previous snapshot instead. Every message names the record and the rule,
//! because it ends up in the log and in `ctl status`.

use std::collections::{HashMap, HashSet};

use crate::error::{PersistError, Result};
use crate::id::validate_id;
use crate::layout::LayoutIssue;
use crate::snapshot::{SNAPSHOT_VERSION, Snapshot};

fn invalid(msg: String) -> PersistError {
    PersistError::Invalid(msg)
}

/// Builds an id → record map, rejecting bad and repeated ids.
fn index<'a, T>(
    kind: &'static str,
    records: &'a [T],
    id_of: impl Fn(&T) -> &str,
) -> Result<HashMap<&'a str, &'a T>> {
    let mut map = HashMap::with_capacity(records.len());
    for record in records {
        let id = id_of(record);
        validate_id(kind, id)?;
        if map.insert(id, record).is_some() {
            return Err(invalid(format!("{kind} id {id:?} is used twice")));
        }
    }
    Ok(map)
}

impl Snapshot {
    /// Checks that the records form one consistent tree: known version,
    /// safe and unique ids, tabs and panes that point at existing parents
    /// which list them back, and layouts that hold exactly their tab's panes.
    pub fn validate(&self) -> Result<()> {
        if self.snapshot_version == 0 || self.snapshot_version > SNAPSHOT_VERSION {
            return Err(invalid(format!(
                "snapshot_version {} is not one this build reads (1..={SNAPSHOT_VERSION})",
                self.snapshot_version
            )));
        }
        let workspaces = index("workspace", &self.workspaces, |w| w.id.as_str())?;
        let tabs = index("tab", &self.tabs, |t| t.id.as_str())?;
        let panes = index("pane", &self.panes, |p| p.id.as_str())?;

        for tab in &self.tabs {
            let Some(ws) = workspaces.get(tab.workspace_id.as_str()) else {
                return Err(invalid(format!(
                    "tab {:?}: its workspace {:?} does not exist",
                    tab.id, tab.workspace_id
                )));
            };
            if !ws.tabs.contains(&tab.id) {
                return Err(invalid(format!(
                    "tab {:?}: its workspace {:?} does not list it",
                    tab.id, ws.id
                )));
            }
        }

        for ws in &self.workspaces {
            let mut listed = HashSet::new();
            for tab_id in &ws.tabs {
                if !listed.insert(tab_id.as_str()) {
                    return Err(invalid(format!(
                        "workspace {:?}: lists tab {tab_id:?} twice",
                        ws.id
                    )));
                }
                match tabs.get(tab_id.as_str()) {
                    None => {
                        return Err(invalid(format!(
                            "workspace {:?}: lists unknown tab {tab_id:?}",
                            ws.id
                        )));
                    }
                    Some(tab) if tab.workspace_id != ws.id => {
                        return Err(invalid(format!(
                            "workspace {:?}: lists tab {tab_id:?}, which belongs to workspace {:?}",
                            ws.id, tab.workspace_id
                        )));
                    }
                    Some(_) => {}
                }
            }
        }

        let mut panes_of_tab: HashMap<&str, Vec<&str>> = HashMap::new();
        for pane in &self.panes {
            if !workspaces.contains_key(pane.workspace_id.as_str()) {
                return Err(invalid(format!(
                    "pane {:?}: its workspace {:?} does not exist",
                    pane.id, pane.workspace_id
                )));
            }
            let Some(tab) = tabs.get(pane.tab_id.as_str()) else {
                return Err(invalid(format!(
                    "pane {:?}: its tab {:?} does not exist",
                    pane.id, pane.tab_id
                )));
            };
            if tab.workspace_id != pane.workspace_id {
                return Err(invalid(format!(
                    "pane {:?}: its tab {:?} is in workspace {:?}, not {:?}",
                    pane.id, tab.id, tab.workspace_id, pane.workspace_id
                )));
            }
            panes_of_tab
                .entry(pane.tab_id.as_str())
                .or_default()
                .push(pane.id.as_str());
        }

        for tab in &self.tabs {
            let expected = panes_of_tab
                .get(tab.id.as_str())
                .map(Vec::as_slice)
                .unwrap_or_default();
            tab.layout.check(expected).map_err(|issue| match issue {
                LayoutIssue::NotInTab(id) => match panes.get(id.as_str()) {
                    Some(p) => invalid(format!(
                        "tab {:?}: layout has pane {id:?}, which belongs to tab {:?}",
                        tab.id, p.tab_id
                    )),
                    None => invalid(format!("tab {:?}: layout has unknown pane {id:?}", tab.id)),
                },
                LayoutIssue::Missing(id) => invalid(format!(
                    "tab {:?}: layout is missing its pane {id:?}",
                    tab.id
                )),
                other => invalid(format!("tab {:?}: layout: {other}", tab.id)),
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::layout::{Direction, Layout};
    use crate::snapshot::*;

    fn pane(id: &str, ws: &str, tab: &str) -> SavedPane {
        SavedPane::new(id, ws, tab)
    }

    /// Workspace w1 with tab t1 (panes a, b) and tab t2 (pane c).
    fn sample() -> Snapshot {
        let mut layout = Layout::pane("a");
        layout.split("a", "b", Direction::Right, 0.5).unwrap();
        Snapshot {
            workspaces: vec![WorkspaceRecord {
                id: WorkspaceId::trusted("w1"),
                name: "api".into(),
                cwd: "/tmp".into(),
                tabs: vec![TabId::trusted("t1"), TabId::trusted("t2")],
                active_tab_id: Some(TabId::trusted("t1")),
                auto_resume: false,
                created_at: 0,
                last_used_at: 0,
                worktree: None,
                hibernate_after: None,
            }],
            tabs: vec![
                TabRecord {
                    id: TabId::trusted("t1"),
                    workspace_id: WorkspaceId::trusted("w1"),
                    title: String::new(),
                    layout,
                    active_pane_id: Some(PaneId::trusted("a")),
                },
                TabRecord {
                    id: TabId::trusted("t2"),
                    workspace_id: WorkspaceId::trusted("w1"),
                    title: String::new(),
                    layout: Layout::pane("c"),
                    active_pane_id: None,
                },
            ],
            panes: vec![
                pane("a", "w1", "t1"),
                pane("b", "w1", "t1"),
                pane("c", "w1", "t2"),
            ],
            ..Snapshot::empty()
        }
    }

    fn err_of(s: &Snapshot) -> String {
        s.validate().unwrap_err().to_string()
    }

    fn assert_mentions(msg: &str, words: &[&str]) {
        for w in words {
            assert!(msg.contains(w), "{msg:?} should mention {w:?}");
        }
    }

    #[test]
    fn sample_and_empty_are_valid() {
        sample().validate().unwrap();
        Snapshot::empty().validate().unwrap();
    }

    #[test]
    fn duplicate_pane_in_layout() {
        let mut s = sample();
        s.tabs[1].layout = Layout::Split {
            direction: Direction::Down,
            ratio: 0.5,
            first: Box::new(Layout::pane("c")),
            second: Box::new(Layout::pane("c")),
        };
        assert_mentions(&err_of(&s), &["\"t2\"", "\"c\"", "more than once"]);
    }

    #[test]
    fn missing_pane_in_layout() {
        let mut s = sample();
        s.tabs[0].layout = Layout::pane("a");
        assert_mentions(&err_of(&s), &["\"t1\"", "\"b\"", "missing"]);
    }

    #[test]
    fn foreign_pane_in_layout() {
        let mut s = sample();
        s.tabs[1].layout = Layout::Split {
            direction: Direction::Down,
            ratio: 0.5,
            first: Box::new(Layout::pane("c")),
            second: Box::new(Layout::pane("a")),
        };
        assert_mentions(&err_of(&s), &["\"t2\"", "\"a\"", "belongs to tab \"t1\""]);
    }

    #[test]
    fn unknown_pane_in_layout() {
        let mut s = sample();
        s.tabs[1].layout = Layout::Split {
            direction: Direction::Down,
            ratio: 0.5,
            first: Box::new(Layout::pane("c")),
            second: Box::new(Layout::pane("ghost")),
        };
        assert_mentions(&err_of(&s), &["\"t2\"", "unknown pane \"ghost\""]);
    }

    #[test]
    fn bad_ids() {
        let mut s = sample();
        s.panes[2].id = PaneId::trusted("../../etc/passwd");
        s.tabs[1].layout = Layout::pane("../../etc/passwd");
        assert_mentions(&err_of(&s), &["pane", "../../etc/passwd", "allowed"]);

        let mut s = sample();
        s.workspaces[0].id = WorkspaceId::trusted("");
        assert_mentions(&err_of(&s), &["workspace", "empty"]);

        let mut s = sample();
        s.tabs[0].id = TabId::trusted("x".repeat(65));
        assert_mentions(&err_of(&s), &["tab", "longer than 64"]);
    }

    #[test]
    fn duplicate_ids() {
        let mut s = sample();
        s.panes.push(pane("a", "w1", "t1"));
        assert_mentions(&err_of(&s), &["pane id \"a\"", "twice"]);
        let mut s = sample();
        s.tabs.push(s.tabs[1].clone());
        assert_mentions(&err_of(&s), &["tab id \"t2\"", "twice"]);
    }

    #[test]
    fn broken_references() {
        let mut s = sample();
        s.tabs[1].workspace_id = WorkspaceId::trusted("w9");
        assert_mentions(&err_of(&s), &["tab \"t2\"", "\"w9\"", "does not exist"]);

        let mut s = sample();
        s.workspaces[0].tabs.pop();
        assert_mentions(&err_of(&s), &["tab \"t2\"", "does not list it"]);

        let mut s = sample();
        s.workspaces[0].tabs.push(TabId::trusted("t7"));
        assert_mentions(&err_of(&s), &["workspace \"w1\"", "unknown tab \"t7\""]);

        let mut s = sample();
        s.panes[0].tab_id = TabId::trusted("t9");
        assert_mentions(&err_of(&s), &["pane \"a\"", "tab \"t9\"", "does not exist"]);

        let mut s = sample();
        s.panes[0].workspace_id = WorkspaceId::trusted("w9");
        assert_mentions(&err_of(&s), &["pane \"a\"", "workspace \"w9\""]);
    }

    #[test]
    fn version_zero_and_future_are_rejected() {
        let mut s = sample();
        s.snapshot_version = 0;
        assert_mentions(&err_of(&s), &["snapshot_version 0"]);
        s.snapshot_version = SNAPSHOT_VERSION + 1;
        assert!(s.validate().is_err());
    }

    #[test]
    fn normalize_fixes_dangling_active_ids_and_ratios() {
        let mut s = sample();
        s.tabs[0].active_pane_id = Some(PaneId::trusted("gone"));
        s.workspaces[0].active_tab_id = Some(TabId::trusted("gone"));
        if let Layout::Split { ratio, .. } = &mut s.tabs[0].layout {
            *ratio = 1.0;
        }
        s.normalize();
        assert_eq!(s.tabs[0].active_pane_id.as_deref(), Some("a"));
        assert_eq!(s.workspaces[0].active_tab_id.as_deref(), Some("t1"));
        assert!(matches!(s.tabs[0].layout, Layout::Split { ratio, .. } if ratio == MAX_RATIO));
        s.validate().unwrap();
    }

    fn note(id: u64, created_at: Millis) -> NotificationRecord {
        NotificationRecord {
            id,
            pane_id: None,
            workspace_id: None,
            title: String::new(),
            body: String::new(),
            severity: Severity::default(),
            source: String::new(),
            created_at,
            read_at: None,
        }
    }

    #[test]
    fn cap_keeps_newest_and_is_stable() {
        let mut s = Snapshot::empty();
        // 150 old ones at t=1, then 100 at t=5, then 50 at t=3 (out of order).
        let mut next = 0;
        for (count, t) in [(150, 1), (100, 5), (50, 3)] {
            for _ in 0..count {
                s.notifications.push(note(next, t));
                next += 1;
            }
        }
        s.cap_notifications();
        assert_eq!(s.notifications.len(), MAX_NOTIFICATIONS);
        // 300 - 200 = 100 dropped, all from t=1: the *last* 50 of t=1 survive.
        let kept_old: Vec<u64> = s
            .notifications
            .iter()
            .filter(|n| n.created_at == 1)
            .map(|n| n.id)
            .collect();
        assert_eq!(kept_old, (100..150).collect::<Vec<_>>());
        assert!(
            s.notifications
                .windows(2)
                .all(|w| w[0].created_at <= w[1].created_at)
        );
        assert!(s.notifications.iter().filter(|n| n.created_at == 5).count() == 100);

        let mut small = Snapshot::empty();
        small.notifications = vec![note(1, 9), note(2, 1)];
        small.cap_notifications();
        assert_eq!(
            small.notifications[0].id, 1,
            "a list within the cap is untouched"
        );
    }
}
