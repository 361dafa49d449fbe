//! A git worktree per agent: made with `git worktree add` on a new branch,
//! looked at with `git status`, removed with `git worktree remove` — git
//! itself does the work, through [`git`]; nothing here reads a repository
//! by hand.
//!
//! [`Worktrees::create`] is what any request that starts something in a
//! worktree calls (`pane.new`, `workspace.new`, and later an agent start):
//! a directory inside a repository and a name in, the worktree's record
//! (path, branch, repository) out. [`watch`] keeps the branch and dirty
//! mark of the worktrees clients show up to date; `requests` has the
//! checks the handlers make before closing or reviving.
//!
//! # Layout
//!
//! - [`git`]: running git off the async workers, bounded and timed;
//! - [`root`]: where new worktrees go (`[worktree] root`);
//! - [`status`]: what `git status` and `git worktree list` print, read;
//! - [`requests`]: what the handlers ask before creating, closing and
//!   reviving; [`watch`]: the refresh of shown worktrees.

pub mod git;
pub mod requests;
pub mod root;
pub mod status;
pub mod watch;

use std::path::{Path, PathBuf};
use std::time::Duration;

use signaltty_persistence::WorktreeRecord;
use signaltty_protocol::{ErrorCode, WireError};

use git::{Git, GitError};
use root::Root;
use status::{Listed, Status};

/// How long a quick question to git may take.
const QUICK: Duration = Duration::from_secs(10);
/// How long making or removing a worktree may take (a checkout of a large
/// repository).
const CHECKOUT: Duration = Duration::from_secs(120);
/// The longest worktree name, in bytes.
pub const MAX_NAME: usize = 100;

#[derive(Debug, Clone, thiserror::Error)]
pub enum WorktreeError {
    #[error(
        "worktree name {0:?} is not allowed: it names a branch and a directory, so use 1-{MAX_NAME} \
         letters, digits, '.', '_' or '-', not starting with '.' or '-', not ending with '.' or \
         '.lock', without '..'"
    )]
    BadName(String),
    #[error("{} is not a directory; give --cwd a directory inside a git repository", .0.display())]
    NotADirectory(PathBuf),
    #[error("{} is not inside a git repository ({message}); give --cwd a directory of one", .dir.display())]
    NotARepository { dir: PathBuf, message: String },
    #[error("{0}")]
    Taken(String),
    #[error(
        "the worktree at {} has uncommitted changes ({changes}); commit or stash them, or pass \
         --force to remove them with it",
        .path.display()
    )]
    Dirty { path: PathBuf, changes: String },
    #[error(transparent)]
    Git(#[from] GitError),
}

impl WorktreeError {
    pub fn to_wire(&self) -> WireError {
        let code = match self {
            WorktreeError::BadName(_)
            | WorktreeError::NotADirectory(_)
            | WorktreeError::NotARepository { .. } => ErrorCode::BadParams,
            WorktreeError::Taken(_) => ErrorCode::NameTaken,
            WorktreeError::Dirty { .. } => ErrorCode::Refused,
            WorktreeError::Git(GitError::TimedOut { .. }) => ErrorCode::Unavailable,
            WorktreeError::Git(_) => ErrorCode::Refused,
        };
        WireError::new(code, self.to_string())
    }
}

/// Whether `name` may name a worktree: it becomes both a branch and one
/// directory, so it keeps to the characters safe for both.
pub fn check_name(name: &str) -> Result<(), WorktreeError> {
    let fine = !name.is_empty()
        && name.len() <= MAX_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        && !name.starts_with(['.', '-'])
        && !name.ends_with('.')
        && !name.ends_with(".lock")
        && !name.contains("..");
    if fine {
        Ok(())
    } else {
        Err(WorktreeError::BadName(name.to_string()))
    }
}

/// Runs `f` (file system work) off the async workers.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    tokio::task::spawn_blocking(f).await.ok()
}

/// Whether the worktree's directory is missing.
pub async fn missing(worktree: &WorktreeRecord) -> bool {
    let path = PathBuf::from(&worktree.path);
    blocking(move || !path.is_dir()).await.unwrap_or(false)
}

/// What a look at a worktree found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Looked {
    Gone,
    Seen(Status),
}

/// The server's worktrees: where they go and the git that makes them.
#[derive(Debug, Clone, Default)]
pub struct Worktrees {
    git: Git,
    root: Root,
}

impl Worktrees {
    pub fn new(root: Root) -> Worktrees {
        Worktrees {
            git: Git::default(),
            root,
        }
    }

    /// Makes worktree `name` of the repository holding `dir`, on a new
    /// branch `name` started from `dir`'s HEAD, under the root. The same
    /// worktree made before (that path, on that branch) is given back as
    /// it is; any other branch or directory of that name is refused.
    pub async fn create(&self, dir: &Path, name: &str) -> Result<WorktreeRecord, WorktreeError> {
        check_name(name)?;
        let dir = dir.to_path_buf();
        let probe = dir.clone();
        if !blocking(move || probe.is_dir()).await.unwrap_or(false) {
            return Err(WorktreeError::NotADirectory(dir));
        }
        let listed = self.list(&dir).await?;
        let repo = listed.main().to_path_buf();
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let path = self.root.dir_for(&repo, name, home.as_deref());
        let record = WorktreeRecord {
            path: path.display().to_string(),
            branch: name.to_string(),
            repo: repo.display().to_string(),
            dirty: false,
            gone: false,
        };
        if self.same_worktree(&listed, &path, name).await? {
            return Ok(record);
        }
        let taken = path.clone();
        if blocking(move || taken.symlink_metadata().is_ok())
            .await
            .unwrap_or(false)
        {
            return Err(WorktreeError::Taken(format!(
                "{} already exists; pick another worktree name, or move it away",
                path.display()
            )));
        }
        let branch = format!("refs/heads/{name}");
        let exists = self
            .git
            .run(&dir, &["rev-parse", "--verify", "--quiet", &branch], QUICK)
            .await?;
        if exists.success {
            return Err(WorktreeError::Taken(format!(
                "branch {name} already exists in {}; pick another worktree name",
                repo.display()
            )));
        }
        let target = path.display().to_string();
        self.git
            .run(&dir, &["worktree", "add", "-b", name, &target], CHECKOUT)
            .await?
            .ok()?;
        Ok(record)
    }

    /// The repository's worktrees, as `git worktree list` gives them.
    async fn list(&self, dir: &Path) -> Result<Listed, WorktreeError> {
        let not_a_repo = |message: String| WorktreeError::NotARepository {
            dir: dir.to_path_buf(),
            message,
        };
        let ran = self
            .git
            .run(dir, &["worktree", "list", "--porcelain"], QUICK)
            .await?;
        if !ran.success {
            return Err(not_a_repo(ran.message));
        }
        Listed::parse(&ran.stdout).ok_or_else(|| not_a_repo("git listed no worktree".into()))
    }

    /// Whether `path` is already the worktree of branch `name`; an error
    /// when the branch or the path is some other worktree's.
    async fn same_worktree(
        &self,
        listed: &Listed,
        path: &Path,
        name: &str,
    ) -> Result<bool, WorktreeError> {
        let wanted = path.to_path_buf();
        let paths: Vec<PathBuf> = listed.entries.iter().map(|e| e.path.clone()).collect();
        let at = blocking(move || paths.iter().position(|p| same_path(p, &wanted)))
            .await
            .flatten();
        if let Some(entry) = at.map(|i| &listed.entries[i]) {
            if entry.branch.as_deref() == Some(name) {
                return Ok(true);
            }
            return Err(WorktreeError::Taken(format!(
                "{} is already a worktree, of {}; pick another worktree name",
                path.display(),
                entry.describe_head()
            )));
        }
        if let Some(entry) = listed
            .entries
            .iter()
            .find(|e| e.branch.as_deref() == Some(name))
        {
            return Err(WorktreeError::Taken(format!(
                "branch {name} is already checked out at {}; pick another worktree name",
                entry.path.display()
            )));
        }
        Ok(false)
    }

    /// The worktree's branch and uncommitted changes, or that it is gone.
    pub async fn look(&self, worktree: &WorktreeRecord) -> Result<Looked, WorktreeError> {
        if missing(worktree).await {
            return Ok(Looked::Gone);
        }
        let ran = self
            .git
            .run(
                Path::new(&worktree.path),
                &[
                    "status",
                    "--porcelain=v2",
                    "--branch",
                    "--untracked-files=normal",
                ],
                QUICK,
            )
            .await?
            .ok()?;
        Ok(Looked::Seen(Status::parse(&ran)))
    }

    /// Refuses a worktree with uncommitted changes.
    pub async fn check_clean(&self, worktree: &WorktreeRecord) -> Result<(), WorktreeError> {
        match self.look(worktree).await? {
            Looked::Seen(status) if status.dirty() => Err(WorktreeError::Dirty {
                path: PathBuf::from(&worktree.path),
                changes: status.describe_changes(),
            }),
            _ => Ok(()),
        }
    }

    /// `git worktree remove` (with `--force`: even with uncommitted
    /// changes). Its branch stays. One whose directory is already gone is
    /// pruned from git's list instead.
    pub async fn remove(
        &self,
        worktree: &WorktreeRecord,
        force: bool,
    ) -> Result<(), WorktreeError> {
        let repo = PathBuf::from(&worktree.repo);
        let probe = repo.clone();
        let from = if blocking(move || probe.is_dir()).await.unwrap_or(false) {
            repo
        } else {
            PathBuf::from(&worktree.path)
        };
        if missing(worktree).await {
            self.git
                .run(&from, &["worktree", "prune"], QUICK)
                .await?
                .ok()?;
            return Ok(());
        }
        let mut args = vec!["worktree", "remove"];
        if force {
            args.push("--force");
        }
        args.push(&worktree.path);
        self.git.run(&from, &args, CHECKOUT).await?.ok()?;
        Ok(())
    }
}

/// The same directory, by name or once links are resolved. Blocking.
fn same_path(a: &Path, b: &Path) -> bool {
    a == b
        || matches!(
            (a.canonicalize(), b.canonicalize()),
            (Ok(a), Ok(b)) if a == b
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fit_a_branch_and_a_directory() {
        for good in ["fix", "fix-42", "a.b_c", "X1"] {
            check_name(good).unwrap();
        }
        for bad in [
            "", "-x", ".x", "a/b", "a..b", "x.", "x.lock", "a b", "ä", "x\n", "a~1", "a:b", "@",
        ] {
            let err = check_name(bad).unwrap_err().to_string();
            assert!(err.contains("not allowed"), "{bad:?}: {err}");
        }
        assert!(check_name(&"x".repeat(MAX_NAME)).is_ok());
        assert!(check_name(&"x".repeat(MAX_NAME + 1)).is_err());
    }
}
