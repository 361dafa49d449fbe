//! The config file: per-workspace settings keyed by workspace name, the
//! notification command, and where new git worktrees go.
//!
//! ```toml
//! [workspace.api]
//! auto_resume = true
//!
//! [notify]
//! command = ["notify-send", "{title}", "{body}"]
//!
//! [worktree]
//! root = "../{repo}.worktrees"   # where `--worktree NAME` makes NAME
//!
//! [hibernate]
//! after = "30m"     # idle agents sleep after this long ("off": never)
//! keep-awake = 8    # at most this many agents awake
//! ```
//!
//! The multiplexer's own settings (`mouse`, `[keys]`, `[alerts]`) live in
//! the same file; the server only lets them be.
//!
//! A missing file is an empty config; a file that does not parse, or names
//! a setting that does not exist, stops the server with the file's name and
//! what is wrong, rather than being half-applied.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use signaltty_actors::notifier::CommandTemplate;

use crate::worktree::root::Root;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub workspace: BTreeMap<String, WorkspaceConfig>,
    /// The multiplexer's settings: it reads and checks them itself.
    #[serde(default)]
    pub mouse: Option<bool>,
    #[serde(default)]
    pub keys: Option<toml::Table>,
    #[serde(default)]
    pub alerts: Option<toml::Table>,
    #[serde(default)]
    pub notify: Option<NotifyConfig>,
    /// `notify.command`, checked when the file is loaded.
    #[serde(skip)]
    pub notify_command: Option<CommandTemplate>,
    #[serde(default)]
    pub worktree: Option<WorktreeConfig>,
    #[serde(default)]
    pub hibernate: HibernateConfig,
    /// `worktree.root`, checked when the file is loaded.
    #[serde(skip)]
    pub worktree_root: Root,
}

/// `[worktree]`: where `--worktree NAME` makes its worktrees.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorktreeConfig {
    /// A directory; `{repo}` is the repository's name, a leading `~/` the
    /// home directory, a relative one is from the repository.
    #[serde(default)]
    pub root: Option<String>,
}

/// `[hibernate]`: idle agents put to sleep by themselves (see
/// `hibernator.rs`). Off unless set.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HibernateConfig {
    /// How long an agent stays idle before it sleeps; `off` by default.
    #[serde(default)]
    pub after: Option<signaltty_persistence::SleepAfter>,
    /// At most this many agents awake: the longest idle sleeps first.
    #[serde(default, rename = "keep-awake", alias = "keep_awake")]
    pub keep_awake: Option<usize>,
}

/// `[notify]`: what to run when a pane nobody is looking at becomes
/// blocked, finishes or fails (see `signaltty_actors::notifier`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotifyConfig {
    /// The program and its arguments, with placeholders; never run through
    /// a shell.
    pub command: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceConfig {
    #[serde(default)]
    pub auto_resume: Option<bool>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("could not read config file {}: {source}", .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("config file {} is not valid: {message}; fix it or move it away", .path.display())]
    Parse { path: PathBuf, message: String },
}

impl Config {
    /// `auto_resume` for the workspace called `name`, if the file sets it.
    pub fn auto_resume(&self, name: &str) -> Option<bool> {
        self.workspace.get(name).and_then(|w| w.auto_resume)
    }
}

/// `$SIGNALTTY_CONFIG`, else `$XDG_CONFIG_HOME/signaltty/config.toml`, else
/// `~/.config/signaltty/config.toml`.
pub fn path() -> Option<PathBuf> {
    signaltty_protocol::config_path::resolve()
}

pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
        Err(source) => {
            return Err(ConfigError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let mut config: Config = toml::from_str(&text).map_err(|e| ConfigError::Parse {
        path: path.to_path_buf(),
        message: e.message().to_string(),
    })?;
    if let Some(notify) = &config.notify {
        let template = CommandTemplate::parse(&notify.command).map_err(|e| ConfigError::Parse {
            path: path.to_path_buf(),
            message: format!("[notify] command: {e}"),
        })?;
        config.notify_command = Some(template);
    }
    if let Some(root) = config.worktree.as_ref().and_then(|w| w.root.as_deref()) {
        config.worktree_root = Root::parse(root).map_err(|message| ConfigError::Parse {
            path: path.to_path_buf(),
            message,
        })?;
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workspace_settings_are_read_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(
            &path,
            "[workspace.api]\nauto_resume = true\n[workspace.web]\n",
        )
        .unwrap();
        let config = load(&path).unwrap();
        assert_eq!(config.auto_resume("api"), Some(true));
        assert_eq!(config.auto_resume("web"), None);
        assert_eq!(config.auto_resume("other"), None);
    }

    #[test]
    fn the_multiplexer_s_settings_are_let_be() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(
            &path,
            "mouse = false\n[keys]\nprefix = \"C-a\"\n[alerts]\nvia = \"osc\"\n[workspace.api]\nauto_resume = true\n",
        )
        .unwrap();
        assert_eq!(load(&path).unwrap().auto_resume("api"), Some(true));
    }

    #[test]
    fn the_notify_command_is_read_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(
            &path,
            "[notify]\ncommand = [\"notify-send\", \"{title}\", \"{body}\"]\n",
        )
        .unwrap();
        let config = load(&path).unwrap();
        assert!(config.notify_command.is_some());
        assert!(
            load(&dir.path().join("none.toml"))
                .unwrap()
                .notify_command
                .is_none()
        );
        std::fs::write(&path, "[notify]\ncommand = [\"n\", \"{titel}\"]\n").unwrap();
        let err = load(&path).unwrap_err().to_string();
        assert!(
            err.contains("[notify] command") && err.contains("{titel}"),
            "{err}"
        );
    }

    #[test]
    fn the_worktree_root_is_read_and_defaults_beside_the_repository() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "[worktree]\nroot = \"/wt/{repo}\"\n").unwrap();
        let repo = std::path::Path::new("/src/app");
        let root = load(&path).unwrap().worktree_root;
        assert_eq!(root.dir_for(repo, "x", None), PathBuf::from("/wt/app/x"));
        let default = load(&dir.path().join("none.toml")).unwrap().worktree_root;
        assert_eq!(
            default.dir_for(repo, "x", None),
            PathBuf::from("/src/app.worktrees/x")
        );
    }

    #[test]
    fn a_missing_file_is_empty_and_a_bad_one_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        assert!(
            load(&dir.path().join("none.toml"))
                .unwrap()
                .workspace
                .is_empty()
        );
        for bad in [
            "[workspace.api]\nauto_resume = \"yes\"\n",
            "[workspace.api]\nauto_resum = true\n",
            "not toml [",
            "[notify]\ncommand = []\n",
            "[notify]\ncommand = [\"notify-send\", \"{titel}\"]\n",
            "[notify]\ncommand = \"notify-send {title}\"\n",
            "[notify]\ncmd = [\"x\"]\n",
            "[worktree]\nroot = \"~/{name}\"\n",
            "[worktree]\nroot = \"\"\n",
            "[worktree]\nplace = \"x\"\n",
        ] {
            let path = dir.path().join("bad.toml");
            std::fs::write(&path, bad).unwrap();
            let err = load(&path).unwrap_err().to_string();
            assert!(
                err.contains("bad.toml") && err.contains("not valid"),
                "{err}"
            );
        }
    }
}
