//! Shared helpers for the integration tests. Each test makes its own
//! `TempDir`, so tests can run in parallel without sharing state.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use signaltty_persistence::{
    Direction, Layout, SavedAgent, SavedPane, Snapshot, StateDir, TabId, TabRecord, WorkspaceRecord,
};
use tempfile::TempDir;

pub fn state_dir() -> (TempDir, StateDir) {
    let tmp = TempDir::new().expect("temp dir");
    let dir = StateDir::open(tmp.path().join("state")).expect("open state dir");
    (tmp, dir)
}

/// One workspace, two tabs, three panes; `tag` ends up in the title so two
/// samples can be told apart.
pub fn sample(tag: &str) -> Snapshot {
    let mut ws = WorkspaceRecord::new("w1", "api");
    ws.tabs = vec![TabId::trusted("t1"), TabId::trusted("t2")];
    ws.active_tab_id = Some(TabId::trusted("t1"));
    let mut t1 = TabRecord::new("t1", "w1", "p1");
    t1.title = format!("tab {tag}");
    t1.layout
        .split("p1", "p2", Direction::Right, 0.4)
        .expect("split");
    let t2 = TabRecord::new("t2", "w1", "p3");
    let mut p1 = SavedPane::new("p1", "w1", "t1");
    p1.argv = vec!["claude".into()];
    p1.agent = Some(SavedAgent {
        kind: "claude".into(),
        agent_session_id: Some("0b6f2c4e-1111-2222-3333-444455556666".into()),
        resume_argv: None,
        model: None,
        ended: false,
    });
    Snapshot {
        workspaces: vec![ws],
        tabs: vec![t1, t2],
        panes: vec![
            p1,
            SavedPane::new("p2", "w1", "t1"),
            SavedPane::new("p3", "w1", "t2"),
        ],
        ..Snapshot::empty()
    }
}

pub fn mode(path: &Path) -> u32 {
    fs::metadata(path).expect("metadata").permissions().mode() & 0o7777
}

/// Every file under `root` with its bytes, for "nothing was touched" checks.
pub fn tree(root: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).expect("read_dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                out.insert(path.clone(), None);
                stack.push(path);
            } else {
                out.insert(path.clone(), Some(fs::read(&path).expect("read")));
            }
        }
    }
    out
}

pub fn archive_names(dir: &StateDir) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir.archive_dir())
        .expect("archive")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

pub fn title_of(s: &Snapshot) -> &str {
    &s.tabs[0].title
}

pub fn layout_leaf(id: &str) -> Layout {
    Layout::pane(id)
}
