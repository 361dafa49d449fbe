//! The multiplexer's settings in the config file the server reads too
//! (see `signaltty_protocol::config_path`):
//!
//! ```toml
//! mouse = false          # leave the mouse to the terminal
//! [keys]
//! prefix = "C-a"
//! split-right = "|"
//! split-down = ["-", "\""]
//! [keys.root]            # no prefix needed (none by default)
//! zoom = "M-z"
//! [alerts]
//! via = ["bell", "osc"]  # or "off"; bell osc osc777 desktop
//! program-bell = true    # a program's own BEL, at most one a second
//! ```
//!
//! A file that does not parse, an unknown action, a bad key name or an
//! unknown way to alert stops the multiplexer with the file's name and
//! what is wrong.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, anyhow};
use serde::Deserialize;

use super::alerts::AlertsConfig;
use super::keys::{Bindings, KeySpec};

#[derive(Debug, Clone)]
pub struct MuxConfig {
    /// Capture the mouse (on unless `mouse = false`).
    pub mouse: bool,
    pub bindings: Bindings,
    pub alerts: AlertsConfig,
}

impl Default for MuxConfig {
    fn default() -> MuxConfig {
        MuxConfig {
            mouse: true,
            bindings: Bindings::default(),
            alerts: AlertsConfig::default(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    mouse: Option<bool>,
    #[serde(default)]
    keys: KeysTable,
    #[serde(default)]
    alerts: Option<AlertsTable>,
    /// The server's settings: not ours to read.
    #[serde(default, rename = "workspace")]
    _workspace: Option<toml::Table>,
    #[serde(default, rename = "notify")]
    _notify: Option<toml::Table>,
    #[serde(default, rename = "worktree")]
    _worktree: Option<toml::Table>,
}

/// `[keys]`: actions after the prefix, and `[keys.root]`: without it.
#[derive(Debug, Default, Deserialize)]
struct KeysTable {
    #[serde(default)]
    root: BTreeMap<String, KeySpec>,
    #[serde(flatten)]
    after_prefix: BTreeMap<String, KeySpec>,
}

/// `[alerts]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct AlertsTable {
    #[serde(default)]
    via: Option<Words>,
    #[serde(default)]
    program_bell: Option<bool>,
}

/// One word, or a list of them.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Words {
    One(String),
    Many(Vec<String>),
}

impl AlertsTable {
    fn parse(self) -> Result<AlertsConfig, String> {
        let defaults = AlertsConfig::default();
        let via = match self.via {
            Some(Words::One(word)) => AlertsConfig::parse_via(&[word])?,
            Some(Words::Many(words)) => AlertsConfig::parse_via(&words)?,
            None => defaults.via,
        };
        Ok(AlertsConfig {
            via,
            program_bell: self.program_bell.unwrap_or(defaults.program_bell),
        })
    }
}

/// The settings at the config path, or the defaults when there is none.
pub fn load() -> Result<MuxConfig> {
    match signaltty_protocol::config_path::resolve() {
        Some(path) => load_from(&path),
        None => Ok(MuxConfig::default()),
    }
}

pub fn load_from(path: &Path) -> Result<MuxConfig> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(MuxConfig::default()),
        Err(e) => {
            return Err(e)
                .with_context(|| format!("could not read config file {}", path.display()));
        }
    };
    let bad = |message: String| {
        anyhow!(
            "config file {} is not valid: {message}; fix it or move it away",
            path.display()
        )
    };
    let file: File = toml::from_str(&text).map_err(|e| bad(e.message().to_string()))?;
    let bindings = Bindings::from_config(&file.keys.after_prefix, &file.keys.root)
        .map_err(|e| bad(format!("[keys] {e}")))?;
    let alerts = match file.alerts {
        Some(table) => table
            .parse()
            .map_err(|e| bad(format!("[alerts] via: {e}")))?,
        None => AlertsConfig::default(),
    };
    Ok(MuxConfig {
        mouse: file.mouse.unwrap_or(true),
        bindings,
        alerts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mux::keys::{Action, Key};

    #[test]
    fn the_file_sets_mouse_and_keys_next_to_the_server_s_settings() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        assert!(load_from(&path).unwrap().mouse, "no file: the defaults");
        std::fs::write(
            &path,
            "mouse = false\n[keys]\nprefix = \"C-a\"\n[workspace.api]\nauto_resume = true\n\
             [notify]\ncommand = [\"true\"]\n[worktree]\nroot = \"/wt\"\n",
        )
        .unwrap();
        let config = load_from(&path).unwrap();
        assert!(!config.mouse);
        assert_eq!(config.bindings.prefix, Key::Ctrl('a'));
        assert_eq!(config.bindings.action(Key::Char('d')), Some(Action::Detach));
        assert_eq!(
            config.bindings.root(Key::Char('d')),
            None,
            "none by default"
        );
        std::fs::write(
            &path,
            "[keys]\nzoom = \"Z\"\n[keys.root]\nzoom = \"M-z\"\nresize-left-5 = \"M-Left\"\n",
        )
        .unwrap();
        let config = load_from(&path).unwrap();
        assert_eq!(config.bindings.action(Key::Char('Z')), Some(Action::Zoom));
        assert_eq!(config.bindings.root(Key::Alt('z')), Some(Action::Zoom));
        assert_eq!(
            config
                .bindings
                .root(Key::AltArrow(crate::mux::geometry::Towards::Left)),
            Some(Action::Resize(crate::mux::geometry::Towards::Left, 5))
        );
    }

    #[test]
    fn a_bad_file_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.toml");
        for bad in [
            "mouse = 3",
            "[keys]\nnope = \"x\"",
            "mous = true",
            "[keys.root]\nzoom = \"C-b\"",
            "[keys.root]\nzoom = \"x\"\nclose = \"x\"",
            "[alerts]\nvia = \"beep\"",
            "[alerts]\nvia = [\"bell\", 3]",
            "[alerts]\nbell = true",
        ] {
            std::fs::write(&path, bad).unwrap();
            let err = load_from(&path).unwrap_err().to_string();
            assert!(
                err.contains("bad.toml") && err.contains("not valid"),
                "{err}"
            );
        }
    }

    #[test]
    fn alerts_default_to_the_bell_and_follow_the_file() {
        use crate::mux::alerts::Via;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        assert_eq!(load_from(&path).unwrap().alerts.via, [Via::Bell]);
        std::fs::write(&path, "[alerts]\nvia = [\"osc\", \"desktop\"]\n").unwrap();
        let alerts = load_from(&path).unwrap().alerts;
        assert_eq!(alerts.via, [Via::Osc, Via::Desktop]);
        assert!(alerts.program_bell);
        std::fs::write(&path, "[alerts]\nvia = \"off\"\nprogram-bell = false\n").unwrap();
        let alerts = load_from(&path).unwrap().alerts;
        assert!(alerts.via.is_empty() && !alerts.program_bell);
        std::fs::write(&path, "[alerts]\nvia = \"beep\"\n").unwrap();
        let err = load_from(&path).unwrap_err().to_string();
        assert!(
            err.contains("[alerts] via: \"beep\" is not a way to alert; use bell, osc"),
            "{err}"
        );
    }
}
