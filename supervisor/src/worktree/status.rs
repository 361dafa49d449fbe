//! What git's machine-readable output says: `git worktree list
//! --porcelain` and `git status --porcelain=v2 --branch`.

use std::path::{Path, PathBuf};

/// How many changed paths an error names.
const NAMED_CHANGES: usize = 3;

/// One entry of `git worktree list --porcelain`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub path: PathBuf,
    /// The branch checked out there (without `refs/heads/`); `None` when
    /// detached or bare.
    pub branch: Option<String>,
}

impl Entry {
    /// `branch fix`, or `a detached HEAD`.
    pub fn describe_head(&self) -> String {
        match &self.branch {
            Some(branch) => format!("branch {branch}"),
            None => "a detached HEAD".to_string(),
        }
    }
}

/// A repository's worktrees, the main one first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub entries: Vec<Entry>,
}

impl Listed {
    /// `None` when git listed nothing.
    pub fn parse(text: &str) -> Option<Listed> {
        let mut entries: Vec<Entry> = Vec::new();
        for line in text.lines() {
            if let Some(path) = line.strip_prefix("worktree ") {
                entries.push(Entry {
                    path: PathBuf::from(path),
                    branch: None,
                });
            } else if let (Some(branch), Some(entry)) =
                (line.strip_prefix("branch "), entries.last_mut())
            {
                let branch = branch.strip_prefix("refs/heads/").unwrap_or(branch);
                entry.branch = Some(branch.to_string());
            }
        }
        (!entries.is_empty()).then_some(Listed { entries })
    }

    /// The main working tree: the repository itself.
    pub fn main(&self) -> &Path {
        &self.entries[0].path
    }
}

/// `git status` of one worktree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Status {
    /// The branch checked out; empty when detached.
    pub branch: String,
    /// How many paths have uncommitted changes (untracked ones included).
    pub changes: usize,
    /// The first few of them.
    pub named: Vec<String>,
}

impl Status {
    pub fn parse(text: &str) -> Status {
        let mut status = Status::default();
        for line in text.lines() {
            if let Some(head) = line.strip_prefix("# branch.head ") {
                if head != "(detached)" {
                    status.branch = head.to_string();
                }
                continue;
            }
            let Some(path) = changed_path(line) else {
                continue;
            };
            status.changes += 1;
            if status.named.len() < NAMED_CHANGES {
                status.named.push(path.to_string());
            }
        }
        status
    }

    pub fn dirty(&self) -> bool {
        self.changes > 0
    }

    /// `3 paths: a.rs, b.rs, c.rs` or `5 paths: a, b, c, …`.
    pub fn describe_changes(&self) -> String {
        let more = if self.changes > self.named.len() {
            ", …"
        } else {
            ""
        };
        let noun = if self.changes == 1 { "path" } else { "paths" };
        format!("{} {noun}: {}{more}", self.changes, self.named.join(", "))
    }
}

/// The path of a changed-entry line of porcelain v2: ordinary (`1`),
/// renamed (`2`, the new name), unmerged (`u`) or untracked (`?`).
fn changed_path(line: &str) -> Option<&str> {
    let (fields, path_at) = match line.as_bytes().first()? {
        b'1' => (9, 8),
        b'2' => (10, 9),
        b'u' => (11, 10),
        b'?' => return line.strip_prefix("? "),
        _ => return None,
    };
    let path = line.splitn(fields, ' ').nth(path_at)?;
    Some(path.split('\t').next().unwrap_or(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worktree_list_is_read_main_first() {
        let text = "worktree /src/app\nHEAD 1111\nbranch refs/heads/main\n\n\
                    worktree /src/app.worktrees/fix\nHEAD 2222\nbranch refs/heads/fix\n\n\
                    worktree /tmp/other\nHEAD 3333\ndetached\n\n";
        let listed = Listed::parse(text).unwrap();
        assert_eq!(listed.main(), Path::new("/src/app"));
        assert_eq!(listed.entries[1].branch.as_deref(), Some("fix"));
        assert_eq!(listed.entries[2].describe_head(), "a detached HEAD");
        assert!(Listed::parse("").is_none());
    }

    #[test]
    fn status_counts_every_kind_of_change() {
        let text = "# branch.oid abc\n# branch.head fix\n\
                    1 .M N... 100644 100644 100644 aaa bbb src/a file.rs\n\
                    2 R. N... 100644 100644 100644 aaa bbb R100 new.rs\told.rs\n\
                    u UU N... 100644 100644 100644 100644 aaa bbb ccc both.rs\n\
                    ? notes.txt\n";
        let status = Status::parse(text);
        assert_eq!(status.branch, "fix");
        assert_eq!(status.changes, 4);
        assert_eq!(status.named, ["src/a file.rs", "new.rs", "both.rs"]);
        assert_eq!(
            status.describe_changes(),
            "4 paths: src/a file.rs, new.rs, both.rs, …"
        );
        let clean = Status::parse("# branch.oid abc\n# branch.head (detached)\n");
        assert!(!clean.dirty() && clean.branch.is_empty());
    }
}
