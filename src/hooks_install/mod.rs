//! `signaltty hooks install|uninstall|status`: wiring an agent's hooks to
//! `signaltty ctl hook` in one command.
//!
//! Where each agent reads its hooks, in which layout, and which events to
//! hook come from its adapter's data file (`[hook_config]` and `[[hook]]`
//! in `adapters/agents/<kind>.toml`, through `signaltty-adapters`' pure
//! facts: no server is asked, none needs to run). This module reads the
//! file (`file.rs`), makes the edit (`edit.rs`, JSON through `json.rs` so
//! keys keep their order; codex's TOML through `toml_edit`, so comments
//! stay), and shows it as a diff or writes it atomically.
//!
//! A file that cannot be parsed, or whose shape leaves no safe place for
//! the hooks, is never written: the command says which file and why, and
//! exits 1. A second install changes nothing, byte for byte (nothing is
//! written when nothing would change); uninstall removes exactly the
//! entries whose command runs `signaltty ctl hook KIND`.

mod edit;
mod file;
mod json;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use signaltty_adapters::{self as adapters, AgentKind, HookConfig, HookFormat, ProjectRoot};
use thiserror::Error;

use edit::{Layout, ShapeError};
use file::Current;
use signaltty_adapters::AgentFacts;
use signaltty_client::cli::{HookScope, HooksCmd};

/// What can stop an install.
#[derive(Debug, Error)]
pub enum InstallError {
    #[error(
        "{kind}'s hooks are not set up through a file signaltty can edit; `hooks install` knows {known}"
    )]
    NoHookFile { kind: AgentKind, known: String },
    #[error("{kind} reads its hooks from the user's config only; leave out --scope project")]
    NoProjectFile { kind: AgentKind },
    #[error("cannot tell where {kind} keeps its config: none of {vars} is set")]
    NoHome { kind: AgentKind, vars: String },
    #[error("cannot {what} {}: {source}", path.display())]
    Io {
        path: PathBuf,
        what: &'static str,
        source: std::io::Error,
    },
    #[error("{} is a symlink to nothing; not touched", .0.display())]
    DanglingLink(PathBuf),
    #[error("{} is not a regular file; not touched", .0.display())]
    NotRegular(PathBuf),
    #[error("{} is larger than {} bytes; not touched", .0.display(), .1)]
    TooLarge(PathBuf, u64),
    #[error("{} is not UTF-8 text; not touched", .0.display())]
    NotText(PathBuf),
    #[error("{path} cannot be parsed ({reason}); not touched — fix it or move it aside")]
    Unparseable { path: String, reason: String },
    #[error("{path} cannot be written back as JSON ({reason}); not touched")]
    Unwritable { path: String, reason: String },
    #[error("{path}: {reason}; not touched")]
    Shape { path: String, reason: ShapeError },
    #[error("{} changed while signaltty was editing it; not touched — run the command again", .0.display())]
    ChangedMeanwhile(PathBuf),
}

/// What is done to the file.
#[derive(Debug, PartialEq, Eq)]
enum After {
    Unchanged,
    Write(String),
    /// The file is signaltty's own and holds nothing any more.
    Remove,
}

pub fn run(cmd: &HooksCmd, out: &mut impl Write) -> Result<ExitCode> {
    match cmd {
        HooksCmd::Install {
            kind,
            dry_run,
            scope,
        } => change(kind, *scope, true, *dry_run, out),
        HooksCmd::Uninstall {
            kind,
            dry_run,
            scope,
        } => change(kind, *scope, false, *dry_run, out),
        HooksCmd::Status => status(out),
    }
}

fn change(
    kind: &str,
    scope: HookScope,
    install: bool,
    dry_run: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let kind = AgentKind::parse(kind)?;
    let config = config_of(kind)?;
    let path = config_path(kind, config, scope)?;
    let current = file::read(&path)?;
    let after = planned(kind, config, &current, install)?;
    let shown = current.shown();
    let verb = if install { "install" } else { "uninstall" };
    if dry_run {
        match &after {
            After::Unchanged => writeln!(out, "nothing to change in {shown}")?,
            After::Write(text) => write!(out, "{}", diff(&current, text))?,
            After::Remove => writeln!(out, "{shown} would be removed (it holds nothing else)")?,
        }
        writeln!(
            out,
            "(dry run of `hooks {verb} {kind}`: nothing was written)"
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    let (new_mode, dir_mode) = match scope {
        HookScope::User => (0o600, 0o700),
        HookScope::Project => (0o644, 0o755),
    };
    let events = match config.format {
        HookFormat::CodexNotify => "notify".to_string(),
        _ => format!("{} events", adapters::hook_events(kind).len()),
    };
    match (&after, install) {
        (After::Unchanged, true) => writeln!(out, "{kind}'s hooks are already in {shown}")?,
        (After::Unchanged, false) => writeln!(out, "no signaltty hooks for {kind} in {shown}")?,
        (After::Write(text), _) => {
            file::write(&current, text, new_mode, dir_mode)?;
            match install {
                true => writeln!(out, "installed {kind}'s hooks ({events}) in {shown}")?,
                false => writeln!(out, "removed signaltty's {kind} hooks from {shown}")?,
            }
        }
        (After::Remove, _) => {
            file::remove(&current)?;
            writeln!(out, "removed {shown}")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Where each kind's user hooks are, and whether signaltty's are in them.
fn status(out: &mut impl Write) -> Result<ExitCode> {
    for kind in AgentKind::ALL {
        let Some(config) = adapters::hook_config(kind) else {
            continue;
        };
        let state = match config_path(kind, config, HookScope::User) {
            Ok(path) => match file::read(&path) {
                Ok(current) => format!("{}  {}", state_of(kind, config, &current), current.shown()),
                Err(e) => format!("cannot tell: {e}"),
            },
            Err(e) => format!("cannot tell: {e}"),
        };
        writeln!(out, "{:<9} {state}", kind.as_str())?;
    }
    Ok(ExitCode::SUCCESS)
}

fn state_of(kind: AgentKind, config: &HookConfig, current: &Current) -> String {
    if current.text.is_none() {
        return "not installed (no file yet)".into();
    }
    let installs = planned(kind, config, current, true);
    let uninstalls = planned(kind, config, current, false);
    match (installs, uninstalls) {
        (Err(e), _) | (_, Err(e)) => format!("cannot tell ({e})"),
        (Ok(After::Unchanged), _) => "installed".into(),
        (_, Ok(After::Unchanged)) => "not installed".into(),
        _ => format!("out of date (run `signaltty hooks install {kind}`)"),
    }
}

fn config_of(kind: AgentKind) -> Result<&'static HookConfig, InstallError> {
    adapters::hook_config(kind).ok_or_else(|| {
        let known: Vec<&str> = AgentKind::ALL
            .into_iter()
            .filter(|k| adapters::hook_config(*k).is_some())
            .map(AgentKind::as_str)
            .collect();
        InstallError::NoHookFile {
            kind,
            known: known.join(", "),
        }
    })
}

fn config_path(
    kind: AgentKind,
    config: &HookConfig,
    scope: HookScope,
) -> Result<PathBuf, InstallError> {
    match scope {
        HookScope::User => config
            .user_path(|name| std::env::var(name).ok())
            .ok_or_else(|| InstallError::NoHome {
                kind,
                vars: config.user_path_vars().join(", "),
            }),
        HookScope::Project => {
            let (root, file) = config
                .project
                .as_ref()
                .ok_or(InstallError::NoProjectFile { kind })?;
            let cwd = std::env::current_dir().map_err(|source| InstallError::Io {
                path: PathBuf::from("."),
                what: "find the current directory",
                source,
            })?;
            Ok(project_root(&cwd, *root).join(file))
        }
    }
}

/// The directory a project's hook file is under.
fn project_root(cwd: &Path, root: ProjectRoot) -> PathBuf {
    match root {
        ProjectRoot::Cwd => cwd.to_path_buf(),
        ProjectRoot::GitRoot => cwd
            .ancestors()
            .find(|dir| dir.join(".git").exists())
            .unwrap_or(cwd)
            .to_path_buf(),
    }
}

/// What an install (or uninstall) makes of `current`.
fn planned(
    kind: AgentKind,
    config: &HookConfig,
    current: &Current,
    install: bool,
) -> Result<After, InstallError> {
    let text = current.text.as_deref().unwrap_or_default();
    let unparseable = |reason: String| InstallError::Unparseable {
        path: current.shown(),
        reason,
    };
    let shape = |reason: ShapeError| InstallError::Shape {
        path: current.shown(),
        reason,
    };
    let marker = edit::marker(kind.as_str());
    let (changed, new_text) = match config.format {
        HookFormat::SettingsHooks | HookFormat::CopilotHooks => {
            let layout = match config.format {
                HookFormat::CopilotHooks => Layout::Flat,
                _ => Layout::Grouped,
            };
            let mut root = json::parse(text).map_err(|e| unparseable(e.to_string()))?;
            let wanted: Vec<(String, String)> = match install {
                true => adapters::hook_events(kind)
                    .into_iter()
                    .map(|event| (event.to_string(), edit::hook_command(kind.as_str(), event)))
                    .collect(),
                false => Vec::new(),
            };
            let changed = edit::apply_json(&mut root, layout, &marker, &wanted).map_err(shape)?;
            if layout == Layout::Flat && !install && changed && only_version(&root) {
                return Ok(After::Remove);
            }
            let new_text = json::to_text(&root, text).map_err(|e| InstallError::Unwritable {
                path: current.shown(),
                reason: e.to_string(),
            })?;
            (changed, new_text)
        }
        HookFormat::CodexNotify => {
            let mut doc: toml_edit::DocumentMut = text
                .parse()
                .map_err(|e: toml_edit::TomlError| unparseable(e.message().to_string()))?;
            let program = edit::codex_notify();
            let wanted = install.then_some(program.as_slice());
            let changed = edit::apply_notify(&mut doc, &marker, wanted).map_err(shape)?;
            (changed, doc.to_string())
        }
    };
    Ok(match changed {
        true => After::Write(new_text),
        false => After::Unchanged,
    })
}

/// Whether a copilot hook file holds nothing but its version.
fn only_version(root: &json::Json) -> bool {
    matches!(root, json::Json::Object(pairs) if pairs.iter().all(|(k, _)| k == "version"))
}

/// A unified diff from `current` to `text`, control characters shown as
/// escapes so that a file cannot steer the terminal it is shown on.
fn diff(current: &Current, text: &str) -> String {
    let before = current.text.as_deref().unwrap_or_default();
    let old = match current.text {
        Some(_) => current.target.display().to_string(),
        None => "/dev/null".to_string(),
    };
    let new = current.target.display().to_string();
    let diff = similar::TextDiff::from_lines(before, text)
        .unified_diff()
        .context_radius(3)
        .header(&old, &new)
        .to_string();
    diff.chars()
        .map(|c| match c {
            '\n' | '\t' => c.to_string(),
            c if c.is_control() => c.escape_unicode().to_string(),
            c => c.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests;
