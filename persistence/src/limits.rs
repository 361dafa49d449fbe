//! How big any string or list in a snapshot may be, and so how big a
//! snapshot can ever get.
//!
//! Every field a user, a program or a file controls has a bound here,
//! measured in bytes *as saved*: JSON escapes a quote or a backslash as two
//! bytes and a control character as six, so a bound on the saved size is a
//! bound on the file, whatever the text holds. The IPC edge refuses more
//! (`signaltty-protocol`'s `limits`, which uses these numbers), the pane
//! ignores an over-long working directory, and a file that holds more is cut
//! on load, with the cut logged.
//!
//! With at most [`MAX_WORKSPACES`] workspaces and [`MAX_PANES`] panes (a tab
//! always holds a pane, so tabs are bounded too) and the newest
//! [`crate::MAX_NOTIFICATIONS`] notifications, the largest snapshot these
//! bounds allow stays well under [`crate::MAX_SNAPSHOT_BYTES`]; a test builds
//! it. So no string can make a snapshot unsaveable.

use crate::snapshot::{NotificationRecord, SavedAgent, SavedPane, Snapshot, WorktreeRecord};

pub use signaltty_types::bounds::*;

/// What [`Snapshot::enforce_limits`] cut, one line per field.
#[derive(Default)]
struct Cuts(Vec<String>);

impl Cuts {
    fn text(&mut self, owner: &str, field: &str, text: &mut String, max: usize) {
        if let Some(had) = truncate_saved(text, max) {
            self.0
                .push(format!("{owner}: {field} cut from {had} to {max} bytes"));
        }
    }

    fn opt_text(&mut self, owner: &str, field: &str, text: &mut Option<String>, max: usize) {
        if let Some(text) = text {
            self.text(owner, field, text, max);
        }
    }

    /// Keeps the first words that fit both bounds.
    fn words(&mut self, owner: &str, field: &str, words: &mut Vec<String>, max: (usize, usize)) {
        let (max_words, max_bytes) = max;
        let had = (words.len(), argv_saved_len(words));
        let mut used = 0;
        let keep = words
            .iter()
            .take(max_words)
            .take_while(|word| {
                used += saved_len(word);
                used <= max_bytes
            })
            .count();
        if keep < words.len() {
            words.truncate(keep);
            self.0.push(format!(
                "{owner}: {field} cut from {} words ({} bytes) to {keep}",
                had.0, had.1
            ));
        }
    }

    fn pane(&mut self, pane: &mut SavedPane) {
        let owner = format!("pane {}", pane.id);
        self.text(&owner, "title", &mut pane.title, MAX_TITLE_BYTES);
        self.opt_text(&owner, "user title", &mut pane.user_title, MAX_TITLE_BYTES);
        self.text(&owner, "cwd", &mut pane.cwd, MAX_PATH_BYTES);
        self.words(
            &owner,
            "argv",
            &mut pane.argv,
            (SAVED_ARGV_WORDS, SAVED_ARGV_BYTES),
        );
        let env_before = pane.env.len();
        pane.env = bound_env(std::mem::take(&mut pane.env));
        if pane.env.len() < env_before {
            self.0.push(format!(
                "{owner}: env cut from {env_before} to {} variables",
                pane.env.len()
            ));
        }
        if let Some(agent) = &mut pane.agent {
            self.agent(&owner, agent);
        }
        self.opt_text(
            &owner,
            "last message",
            &mut pane.last_message,
            MAX_MESSAGE_BYTES,
        );
        self.worktree(&owner, &mut pane.worktree);
    }

    /// A worktree cut short would name another directory: one over its
    /// bounds is dropped whole.
    fn worktree(&mut self, owner: &str, worktree: &mut Option<WorktreeRecord>) {
        if worktree.as_ref().is_some_and(|w| {
            saved_len(&w.path) > MAX_PATH_BYTES
                || saved_len(&w.repo) > MAX_PATH_BYTES
                || saved_len(&w.branch) > MAX_NAME_BYTES
        }) {
            *worktree = None;
            self.0
                .push(format!("{owner}: an over-long worktree record dropped"));
        }
    }

    fn agent(&mut self, owner: &str, agent: &mut SavedAgent) {
        self.text(owner, "agent kind", &mut agent.kind, MAX_WORD_BYTES);
        self.opt_text(owner, "agent model", &mut agent.model, MAX_NAME_BYTES);
        // Half an id or half a command is worse than none: drop them whole.
        if agent
            .agent_session_id
            .as_deref()
            .is_some_and(|id| saved_len(id) > MAX_SESSION_ID_BYTES)
        {
            agent.agent_session_id = None;
            self.0
                .push(format!("{owner}: an over-long session id dropped"));
        }
        if agent.resume_argv.as_deref().is_some_and(|argv| {
            argv.len() > MAX_RESUME_WORDS || argv_saved_len(argv) > MAX_RESUME_BYTES
        }) {
            agent.resume_argv = None;
            self.0
                .push(format!("{owner}: an over-long resume command dropped"));
        }
    }

    fn notification(&mut self, n: &mut NotificationRecord) {
        let owner = format!("notification {}", n.id);
        self.text(&owner, "title", &mut n.title, MAX_TITLE_BYTES);
        self.text(&owner, "body", &mut n.body, MAX_MESSAGE_BYTES);
        self.text(&owner, "source", &mut n.source, MAX_WORD_BYTES);
    }
}

/// The variables of `env` that fit [`MAX_ENV_VARS`] and [`MAX_ENV_BYTES`],
/// in name order; one too big on its own is skipped.
pub fn bound_env(
    env: std::collections::BTreeMap<String, String>,
) -> std::collections::BTreeMap<String, String> {
    let mut used = 0;
    env.into_iter()
        .filter(|(name, value)| {
            let size = saved_len(name) + saved_len(value);
            let fits = used + size <= MAX_ENV_BYTES;
            if fits {
                used += size;
            }
            fits
        })
        .take(MAX_ENV_VARS)
        .collect()
}

impl Snapshot {
    /// Cuts every string and list that is over its bound (see
    /// [`crate::limits`]) and says what it cut, one line per field. Ids are
    /// not touched: [`Snapshot::validate`] bounds them.
    pub fn enforce_limits(&mut self) -> Vec<String> {
        let mut cuts = Cuts::default();
        for ws in &mut self.workspaces {
            let owner = format!("workspace {}", ws.id);
            cuts.text(&owner, "name", &mut ws.name, MAX_NAME_BYTES);
            cuts.text(&owner, "cwd", &mut ws.cwd, MAX_PATH_BYTES);
            cuts.worktree(&owner, &mut ws.worktree);
        }
        for tab in &mut self.tabs {
            let owner = format!("tab {}", tab.id);
            cuts.text(&owner, "title", &mut tab.title, MAX_TITLE_BYTES);
        }
        for pane in &mut self.panes {
            cuts.pane(pane);
        }
        for n in &mut self.notifications {
            cuts.notification(n);
        }
        cuts.0
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::layout::{Direction, Layout, MAX_LAYOUT_DEPTH};
    use crate::snapshot::{
        MAX_NOTIFICATIONS, NotificationRecord, TabId, TabRecord, WorkspaceRecord,
    };
    use crate::{MAX_ID_LEN, MAX_SNAPSHOT_BYTES};

    #[test]
    fn saved_len_counts_json_escapes() {
        assert_eq!(saved_len("abc"), 3);
        assert_eq!(saved_len("a\"b\\"), 6);
        assert_eq!(saved_len("\n\x01"), 8);
        assert_eq!(saved_len("é"), 2);
        for text in ["a\"b", "\x1b[1m", "tab\there", "ünï\u{7f}"] {
            let json = serde_json::to_string(text).unwrap();
            assert_eq!(saved_len(text), json.len() - 2, "{text:?}");
        }
    }

    #[test]
    fn cut_keeps_whole_characters_within_the_saved_bound() {
        let mut text = "aé\"\x01b".to_string();
        assert_eq!(truncate_saved(&mut text, 5), Some(12));
        assert_eq!(text, "aé\"");
        let mut short = "ok".to_string();
        assert_eq!(truncate_saved(&mut short, 2), None);
        assert_eq!(short, "ok");
    }

    #[test]
    fn enforce_limits_cuts_and_says_what() {
        let mut snapshot = Snapshot::empty();
        let mut ws = WorkspaceRecord::new("w", "n".repeat(MAX_NAME_BYTES * 4));
        ws.tabs = vec![TabId::trusted("t")];
        snapshot.workspaces.push(ws);
        snapshot.tabs.push(TabRecord::new("t", "w", "p"));
        let mut pane = SavedPane::new("p", "w", "t");
        pane.argv = vec!["x".repeat(1000); 100];
        pane.agent = Some(SavedAgent {
            kind: "claude".into(),
            agent_session_id: Some("i".repeat(MAX_SESSION_ID_BYTES + 1)),
            resume_argv: None,
            model: None,
            ended: false,
        });
        pane.worktree = Some(WorktreeRecord {
            path: "p".repeat(MAX_PATH_BYTES + 1),
            ..WorktreeRecord::default()
        });
        snapshot.panes.push(pane);
        let cuts = snapshot.enforce_limits();
        assert_eq!(snapshot.workspaces[0].name.len(), MAX_NAME_BYTES);
        assert!(snapshot.panes[0].worktree.is_none());
        assert!(argv_saved_len(&snapshot.panes[0].argv) <= SAVED_ARGV_BYTES);
        assert_eq!(snapshot.panes[0].argv.len(), 16);
        assert!(
            snapshot.panes[0]
                .agent
                .as_ref()
                .unwrap()
                .agent_session_id
                .is_none()
        );
        assert_eq!(cuts.len(), 4, "{cuts:?}");
        assert!(cuts[0].contains("workspace w: name cut"), "{cuts:?}");
        snapshot.validate().unwrap();
        assert!(
            snapshot.enforce_limits().is_empty(),
            "a second pass cuts nothing"
        );
    }

    #[test]
    fn bound_env_keeps_what_fits() {
        let env: BTreeMap<String, String> = (0..100)
            .map(|i| (format!("LC_{i:03}"), "v".repeat(10)))
            .chain([("LC_BIG".to_string(), "x".repeat(MAX_ENV_BYTES))])
            .collect();
        let kept = bound_env(env);
        assert_eq!(kept.len(), MAX_ENV_VARS);
        assert!(!kept.contains_key("LC_BIG"));
    }

    /// A text of `bytes` saved bytes made of characters that escape (a
    /// quote takes two).
    fn worst(bytes: usize) -> String {
        "\"".repeat(bytes / 2)
    }

    fn worst_worktree() -> WorktreeRecord {
        WorktreeRecord {
            path: worst(MAX_PATH_BYTES),
            branch: worst(MAX_NAME_BYTES),
            repo: worst(MAX_PATH_BYTES),
            dirty: true,
            gone: true,
        }
    }

    fn id(kind: char, n: usize) -> String {
        format!("{kind}{n:0>width$}", width = MAX_ID_LEN - 1)
    }

    /// A layout as deep as allowed holding `panes`, nested on one side.
    fn deep_layout(panes: &[String]) -> Layout {
        let mut layout = Layout::pane(panes[0].clone());
        for (depth, pane) in panes.iter().enumerate().skip(1) {
            if depth >= MAX_LAYOUT_DEPTH {
                break;
            }
            layout = Layout::Split {
                direction: Direction::Down,
                ratio: 0.123_456_79,
                first: Box::new(layout),
                second: Box::new(Layout::pane(pane.clone())),
            };
        }
        layout
    }

    /// Every count and every string at its bound, each string made of
    /// characters that escape: the largest snapshot the limits allow must
    /// still be small enough to save and load back. It is built at 1/16 of
    /// every count and its size multiplied back: an upper bound (the file's
    /// fixed part counts sixteen times), at a sixteenth of the cost.
    #[test]
    fn the_largest_snapshot_the_limits_allow_can_be_saved() {
        const SCALE: usize = 16;
        let panes_per_tab = MAX_LAYOUT_DEPTH;
        let tabs = MAX_PANES / SCALE / panes_per_tab;
        let mut snapshot = Snapshot::empty();
        for w in 0..MAX_WORKSPACES / SCALE {
            let mut ws = WorkspaceRecord::new(id('w', w), worst(MAX_NAME_BYTES));
            ws.cwd = worst(MAX_PATH_BYTES);
            ws.worktree = Some(worst_worktree());
            snapshot.workspaces.push(ws);
        }
        for t in 0..tabs {
            let ws = &mut snapshot.workspaces[t];
            let tab_id = id('t', t);
            ws.tabs.push(TabId::trusted(tab_id.clone()));
            ws.active_tab_id = Some(TabId::trusted(tab_id.clone()));
            let pane_ids: Vec<String> = (0..panes_per_tab)
                .map(|p| id('p', t * panes_per_tab + p))
                .collect();
            let mut tab = TabRecord::new(tab_id.clone(), ws.id.clone(), pane_ids[0].clone());
            tab.title = worst(MAX_TITLE_BYTES);
            tab.layout = deep_layout(&pane_ids);
            for pane_id in &pane_ids {
                let mut pane = SavedPane::new(pane_id.clone(), ws.id.clone(), tab_id.clone());
                pane.title = worst(MAX_TITLE_BYTES);
                pane.user_title = Some(worst(MAX_TITLE_BYTES));
                pane.cwd = worst(MAX_PATH_BYTES);
                let word = worst(SAVED_ARGV_BYTES / SAVED_ARGV_WORDS);
                pane.argv = vec![word; SAVED_ARGV_WORDS];
                pane.env = (0..MAX_ENV_VARS)
                    .map(|i| (format!("LC_{i}"), worst(MAX_ENV_BYTES / MAX_ENV_VARS - 8)))
                    .collect();
                pane.agent = Some(SavedAgent {
                    kind: worst(MAX_WORD_BYTES),
                    agent_session_id: Some(worst(MAX_SESSION_ID_BYTES)),
                    resume_argv: Some(vec![
                        worst(MAX_RESUME_BYTES / MAX_RESUME_WORDS);
                        MAX_RESUME_WORDS
                    ]),
                    ended: true,
                    model: Some(worst(MAX_NAME_BYTES)),
                });
                pane.last_message = Some(worst(MAX_MESSAGE_BYTES));
                pane.exit_code = Some(i32::MIN);
                pane.worktree = Some(worst_worktree());
                snapshot.panes.push(pane);
            }
            snapshot.tabs.push(tab);
        }
        snapshot.notifications = (0..MAX_NOTIFICATIONS.div_ceil(SCALE))
            .map(|n| NotificationRecord {
                id: u64::MAX - n as u64,
                pane_id: Some(id('p', n)),
                workspace_id: Some(id('w', n)),
                title: worst(MAX_TITLE_BYTES),
                body: worst(MAX_MESSAGE_BYTES),
                severity: crate::Severity::Error,
                source: worst(MAX_WORD_BYTES),
                created_at: u64::MAX,
                read_at: Some(u64::MAX),
            })
            .collect();
        assert_eq!(snapshot.panes.len() * SCALE, MAX_PANES);
        assert!(
            snapshot.enforce_limits().is_empty(),
            "everything is at its bound"
        );
        snapshot.validate().unwrap();
        let bytes = (serde_json::to_vec_pretty(&snapshot).unwrap().len() * SCALE) as u64;
        // Room to spare: two requests racing past a count check add a pane
        // or two, and a newer build may add fields.
        assert!(
            bytes < MAX_SNAPSHOT_BYTES * 9 / 10,
            "{bytes} bytes against {MAX_SNAPSHOT_BYTES}"
        );
    }
}
