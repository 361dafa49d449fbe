//! [`hook_config`]: where an agent reads its hook configuration, and in
//! which layout — the facts `signaltty hooks install` writes by.
//!
//! The layouts are code (the client's installer knows how to edit each);
//! where the files live, and which events to hook, is each kind's data
//! file (`[hook_config]` and the `[[hook]]` table). Nothing here reads or
//! writes a file: paths are worked out from variables the caller supplies.

use std::path::{Path, PathBuf};

use crate::kind::AgentKind;
use crate::kind::Spec;
use crate::kinds::StoreRoot;

/// How an agent lays out its hook configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookFormat {
    /// A JSON settings file whose `hooks` object maps each event to a list
    /// of `{"matcher"?, "hooks": [{"type": "command", "command": …}]}`
    /// (Claude Code, and gemini and qwen, which took its layout).
    SettingsHooks,
    /// A JSON file of its own, `{"version": 1, "hooks": {event: [{"type":
    /// "command", "bash": …}]}}`, one of the `*.json` in a hooks directory
    /// (GitHub Copilot CLI).
    CopilotHooks,
    /// The top-level `notify = [program, args…]` of a TOML config (codex):
    /// one program, given the event's JSON as its last argument.
    CodexNotify,
}

/// Where a project's hook file is looked for from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProjectRoot {
    /// The directory the agent starts in.
    Cwd,
    /// The root of the git repository holding it (the directory itself
    /// outside one).
    GitRoot,
}

/// Where one kind reads its hooks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookConfig {
    pub format: HookFormat,
    /// The agent's config directory: the first of its variables that is
    /// set (plus its suffix), else `$HOME/<home>`.
    pub(crate) dir: StoreRoot,
    /// The user's hook file, inside the config directory.
    pub(crate) user_file: String,
    /// The project's hook file, from the project root; `None` when the
    /// agent reads hooks from the user's config only.
    pub project: Option<(ProjectRoot, String)>,
}

impl HookConfig {
    /// The user's hook file, with `var` giving the environment (`HOME` and
    /// the kind's own variables); `None` when neither is set.
    pub fn user_path(&self, var: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
        let set = |name: &str| var(name).filter(|v| !v.is_empty());
        let dir = self
            .dir
            .env
            .iter()
            .find_map(|(name, suffix)| set(name).map(|dir| Path::new(&dir).join(suffix)))
            .or_else(|| set("HOME").map(|home| Path::new(&home).join(&self.dir.home_path)))?;
        Some(dir.join(&self.user_file))
    }

    /// The variables [`HookConfig::user_path`] reads, in order.
    pub fn user_path_vars(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.dir.env.iter().map(|(n, _)| n.as_str()).collect();
        names.push("HOME");
        names
    }
}

/// Where `kind` reads its hooks; `None` for a kind whose hooks are not
/// configured through a file signaltty can edit (opencode's are plugins,
/// cursor's were never checked against a binary, most have none).
pub fn hook_config(kind: AgentKind) -> Option<&'static HookConfig> {
    kind.spec().hook_config.as_ref()
}

/// The hook events of `kind` that `ctl hook` understands, in its data
/// file's order: the events an install hooks.
pub fn hook_events(kind: AgentKind) -> Vec<&'static str> {
    kind.spec()
        .hooks
        .iter()
        .map(|rule| rule.event.as_str())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_string())
        }
    }

    #[test]
    fn the_user_file_is_in_the_agents_config_dir() {
        let claude = hook_config(AgentKind::Claude).unwrap();
        assert_eq!(claude.format, HookFormat::SettingsHooks);
        let home = [("HOME", "/h")];
        assert_eq!(
            claude.user_path(env(&home)).unwrap(),
            Path::new("/h/.claude/settings.json")
        );
        let moved = [("HOME", "/h"), ("CLAUDE_CONFIG_DIR", "/c")];
        assert_eq!(
            claude.user_path(env(&moved)).unwrap(),
            Path::new("/c/settings.json")
        );
        let gemini = hook_config(AgentKind::Gemini).unwrap();
        let moved = [("GEMINI_CLI_HOME", "/g")];
        assert_eq!(
            gemini.user_path(env(&moved)).unwrap(),
            Path::new("/g/.gemini/settings.json")
        );
        let codex = hook_config(AgentKind::Codex).unwrap();
        assert_eq!(codex.format, HookFormat::CodexNotify);
        assert_eq!(
            codex.user_path(env(&home)).unwrap(),
            Path::new("/h/.codex/config.toml")
        );
        assert!(codex.project.is_none());
        let copilot = hook_config(AgentKind::Copilot).unwrap();
        assert_eq!(
            copilot.project,
            Some((ProjectRoot::GitRoot, ".github/hooks/signaltty.json".into()))
        );
        assert!(claude.user_path(env(&[("HOME", "")])).is_none());
    }

    #[test]
    fn kinds_without_a_hook_file_have_none() {
        for kind in [AgentKind::Opencode, AgentKind::Grok, AgentKind::Generic] {
            assert!(hook_config(kind).is_none(), "{kind}");
        }
        assert!(hook_events(AgentKind::Claude).contains(&"Stop"));
    }
}
