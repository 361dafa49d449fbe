//! The config file: per-workspace settings keyed by workspace name, and the
//! notification command.
//!
//! ```toml
//! [workspace.api]
//! auto_resume = true
//!
//! [notify]
//! command = ["notify-send", "{title}", "{body}"]
//! ```
//!
//! The multiplexer's own settings (`mouse`, `[keys]`) live in the same file;
//! the server only lets them be.
//!
//! A missing file is an empty config; a file that does not parse, or names
//! a setting that does not exist, stops the server with the file's name and
//! what is wrong, rather than being half-applied.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use signaltty_actors::notifier::CommandTemplate;

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
    pub notify: Option<NotifyConfig>,
    /// `notify.command`, checked when the file is loaded.
    #[serde(skip)]
    pub notify_command: Option<CommandTemplate>,
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
            "mouse = false\n[keys]\nprefix = \"C-a\"\n[workspace.api]\nauto_resume = true\n",
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
