//! Where new worktrees go: `[worktree] root` in the config file, a
//! directory under which each worktree is a directory named after it.
//!
//! `{repo}` is the repository's directory name, a leading `~/` the server's
//! home, and a relative root is taken from the repository's directory; the
//! default, `../{repo}.worktrees`, puts the worktrees of `~/src/app` in
//! `~/src/app.worktrees/NAME`, beside the checkout and outside it.

use std::path::{Component, Path, PathBuf};

/// A checked `[worktree] root`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root(String);

impl Default for Root {
    fn default() -> Root {
        Root(Root::DEFAULT.to_string())
    }
}

impl Root {
    pub const DEFAULT: &'static str = "../{repo}.worktrees";

    /// The setting as written, refused when empty or with a placeholder
    /// other than `{repo}`.
    pub fn parse(text: &str) -> Result<Root, String> {
        if text.trim().is_empty() {
            return Err("[worktree] root is empty; leave it out for the default".into());
        }
        let rest = text.replace("{repo}", "");
        if rest.contains('{') || rest.contains('}') {
            return Err(format!(
                "[worktree] root {text:?} has a placeholder other than {{repo}}"
            ));
        }
        Ok(Root(text.to_string()))
    }

    /// The directory of worktree `name` of the repository whose main
    /// working tree is `repo`.
    pub fn dir_for(&self, repo: &Path, name: &str, home: Option<&Path>) -> PathBuf {
        let base = repo
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = self.0.replace("{repo}", &base);
        let root = match (text.strip_prefix("~/"), home) {
            (Some(rest), Some(home)) => home.join(rest),
            _ => repo.join(&text),
        };
        normalize(&root).join(name)
    }
}

/// `path` with `.` and `..` worked out by hand (the directories need not
/// exist yet).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_puts_worktrees_beside_the_checkout() {
        let root = Root::default();
        assert_eq!(
            root.dir_for(Path::new("/src/app"), "fix", None),
            PathBuf::from("/src/app.worktrees/fix")
        );
    }

    #[test]
    fn a_root_may_be_absolute_in_home_or_relative_and_name_the_repo() {
        let home = Path::new("/home/u");
        let repo = Path::new("/src/app");
        let dir = |text: &str| Root::parse(text).unwrap().dir_for(repo, "x", Some(home));
        assert_eq!(dir("~/wt/{repo}"), PathBuf::from("/home/u/wt/app/x"));
        assert_eq!(dir("/var/wt"), PathBuf::from("/var/wt/x"));
        assert_eq!(dir(".worktrees"), PathBuf::from("/src/app/.worktrees/x"));
        assert!(Root::parse("").is_err());
        let err = Root::parse("~/wt/{name}").unwrap_err();
        assert!(
            err.contains("{name}") || err.contains("placeholder"),
            "{err}"
        );
    }
}
