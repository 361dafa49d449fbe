//! The bounds a request's strings must keep, checked at the IPC edge.
//!
//! Every parameter struct in [`crate::params`] implements [`Bounded`]; the
//! server checks it before acting, and a field over its bound is refused
//! with `BAD_PARAMS` and a message naming the field and the bound. The
//! numbers are the snapshot's own (`signaltty_persistence::limits`), in
//! bytes as saved, so nothing a client sends can make a snapshot too big to
//! save. `pane.send` text is input, not state: only the line limit bounds it.

pub use signaltty_persistence::limits::{
    MAX_ARGV_BYTES, MAX_ARGV_WORDS, MAX_MESSAGE_BYTES, MAX_NAME_BYTES, MAX_PANES, MAX_PATH_BYTES,
    MAX_SESSION_ID_BYTES, MAX_TITLE_BYTES, MAX_WORD_BYTES, MAX_WORKSPACES, argv_saved_len,
    saved_len, truncate_saved,
};

use crate::params::*;
use crate::{ErrorCode, WireError};

/// A request's parameters, checked against their bounds.
pub trait Bounded {
    fn check_bounds(&self) -> Result<(), WireError>;
}

fn too_long(field: &str, len: usize, max: usize) -> WireError {
    WireError::new(
        ErrorCode::BadParams,
        format!("{field} is {len} bytes long; at most {max} are allowed"),
    )
}

/// `value` of `field` fits in `max` bytes (as saved).
pub fn text(field: &str, value: &str, max: usize) -> Result<(), WireError> {
    match saved_len(value) {
        len if len > max => Err(too_long(field, len, max)),
        _ => Ok(()),
    }
}

fn opt_text(field: &str, value: &Option<String>, max: usize) -> Result<(), WireError> {
    value.as_deref().map_or(Ok(()), |v| text(field, v, max))
}

/// A title is shown in other terminals: no control characters either.
fn title(field: &str, value: &Option<String>) -> Result<(), WireError> {
    opt_text(field, value, MAX_TITLE_BYTES)?;
    if value
        .as_deref()
        .is_some_and(|t| t.chars().any(char::is_control))
    {
        return Err(WireError::new(
            ErrorCode::BadParams,
            format!("{field} must not contain control characters"),
        ));
    }
    Ok(())
}

/// A command: at most [`MAX_ARGV_WORDS`] words of [`MAX_ARGV_BYTES`]
/// together.
pub fn argv(field: &str, argv: &[String]) -> Result<(), WireError> {
    if argv.len() > MAX_ARGV_WORDS {
        return Err(WireError::new(
            ErrorCode::BadParams,
            format!(
                "{field} has {} words; at most {MAX_ARGV_WORDS} are allowed",
                argv.len()
            ),
        ));
    }
    match argv_saved_len(argv) {
        len if len > MAX_ARGV_BYTES => Err(too_long(field, len, MAX_ARGV_BYTES)),
        _ => Ok(()),
    }
}

/// A workspace, tab or pane named by id, prefix or name.
fn reference(field: &str, value: &str) -> Result<(), WireError> {
    text(field, value, MAX_NAME_BYTES)
}

impl Bounded for Empty {
    fn check_bounds(&self) -> Result<(), WireError> {
        Ok(())
    }
}

impl Bounded for WorkspaceNew {
    fn check_bounds(&self) -> Result<(), WireError> {
        text("the workspace name", &self.name, MAX_NAME_BYTES)?;
        opt_text("the working directory (cwd)", &self.cwd, MAX_PATH_BYTES)?;
        opt_text("the worktree name", &self.worktree, MAX_NAME_BYTES)
    }
}

impl Bounded for WorkspaceSet {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("workspace", &self.workspace)
    }
}

impl Bounded for Workspace {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("workspace", &self.workspace)
    }
}

impl Bounded for TabNew {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("workspace", &self.workspace)?;
        title("the tab title", &self.title)?;
        opt_text("the working directory (cwd)", &self.cwd, MAX_PATH_BYTES)?;
        argv("the command", &self.argv)
    }
}

impl Bounded for Tab {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("tab", &self.tab)
    }
}

impl Bounded for PaneNew {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("workspace", &self.workspace)?;
        opt_text("tab", &self.tab, MAX_NAME_BYTES)?;
        opt_text("split", &self.split, MAX_NAME_BYTES)?;
        opt_text("direction", &self.direction, MAX_WORD_BYTES)?;
        opt_text("the working directory (cwd)", &self.cwd, MAX_PATH_BYTES)?;
        title("the pane title", &self.title)?;
        opt_text("the worktree name", &self.worktree, MAX_NAME_BYTES)?;
        argv("the command", &self.argv)
    }
}

impl Bounded for PaneClose {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("pane", &self.pane)
    }
}

impl Bounded for PaneSend {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("pane", &self.pane)
    }
}

impl Bounded for PaneRead {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("pane", &self.pane)
    }
}

impl Bounded for Pane {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("pane", &self.pane)
    }
}

impl Bounded for PaneKill {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("pane", &self.pane)?;
        opt_text("signal", &self.signal, MAX_WORD_BYTES)
    }
}

impl Bounded for DebugPanic {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("target", &self.target)
    }
}

impl Bounded for ReportSession {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("pane", &self.pane)?;
        text("the session id", &self.session_id, MAX_SESSION_ID_BYTES)?;
        opt_text("agent", &self.agent, MAX_WORD_BYTES)
    }
}

impl Bounded for PaneAttach {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("pane", &self.pane)
    }
}

impl Bounded for Notify {
    fn check_bounds(&self) -> Result<(), WireError> {
        opt_text("pane", &self.pane, MAX_NAME_BYTES)?;
        opt_text("severity", &self.severity, MAX_WORD_BYTES)?;
        text("the notification title", &self.title, MAX_TITLE_BYTES)?;
        text("the notification body", &self.body, MAX_MESSAGE_BYTES)
    }
}

impl Bounded for Notifications {
    fn check_bounds(&self) -> Result<(), WireError> {
        Ok(())
    }
}

impl Bounded for PaneHook {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("pane", &self.pane)?;
        text("agent", &self.agent, MAX_WORD_BYTES)?;
        text("the hook event", &self.event, MAX_WORD_BYTES)?;
        opt_text("the session id", &self.session_id, MAX_SESSION_ID_BYTES)?;
        opt_text("the hook message", &self.message, MAX_MESSAGE_BYTES)
    }
}

impl Bounded for PaneResize {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("pane", &self.pane)
    }
}

impl Bounded for PaneExplain {
    fn check_bounds(&self) -> Result<(), WireError> {
        opt_text("pane", &self.pane, MAX_NAME_BYTES)?;
        opt_text("the saved screen", &self.screen, MAX_EXPLAIN_SCREEN)?;
        opt_text("the title", &self.title, MAX_TITLE_BYTES)?;
        opt_text("the agent kind", &self.agent, MAX_WORD_BYTES)
    }
}

impl Bounded for AgentWait {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("pane", &self.pane)
    }
}

impl Bounded for Events {
    fn check_bounds(&self) -> Result<(), WireError> {
        opt_text("pane", &self.pane, MAX_NAME_BYTES)
    }
}

impl Bounded for PaneSendKeys {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("pane", &self.pane)?;
        if self.keys.len() > MAX_SEND_KEYS {
            return Err(WireError::new(
                ErrorCode::BadParams,
                format!(
                    "{} keys at once; at most {MAX_SEND_KEYS} are sent together",
                    self.keys.len()
                ),
            ));
        }
        self.keys
            .iter()
            .try_for_each(|key| text("a key name", key, MAX_WORD_BYTES))
    }
}

impl Bounded for AgentStart {
    fn check_bounds(&self) -> Result<(), WireError> {
        text("the agent kind", &self.kind, MAX_WORD_BYTES)?;
        opt_text("workspace", &self.workspace, MAX_NAME_BYTES)?;
        opt_text("the working directory (cwd)", &self.cwd, MAX_PATH_BYTES)?;
        opt_text("the worktree name", &self.worktree, MAX_NAME_BYTES)?;
        argv("the agent's arguments", &self.args)?;
        match self.timeout_ms {
            Some(ms) if ms > MAX_START_TIMEOUT_MS => Err(WireError::new(
                ErrorCode::BadParams,
                format!(
                    "a start timeout of {ms} ms is longer than the {MAX_START_TIMEOUT_MS} allowed"
                ),
            )),
            _ => Ok(()),
        }
    }
}

impl Bounded for AgentPrompt {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("pane", &self.pane)?;
        text("the prompt", &self.text, MAX_PROMPT_BYTES)
    }
}

impl Bounded for PaneWait {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("pane", &self.pane)?;
        opt_text("the lifecycle", &self.lifecycle, MAX_WORD_BYTES)?;
        opt_text("the --text pattern", &self.text, MAX_WAIT_PATTERN)
    }
}

impl Bounded for Rename {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("target", &self.target)?;
        // The name becomes a workspace's name or a tab's or pane's title:
        // the tighter bound of the two, and no control characters.
        text(
            "the new name",
            &self.name,
            MAX_NAME_BYTES.min(MAX_TITLE_BYTES),
        )?;
        title("the new name", &Some(self.name.clone()))
    }
}

impl Bounded for Focus {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("target", &self.target)
    }
}

impl Bounded for PaneSwap {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("pane", &self.pane)?;
        reference("with", &self.with)
    }
}

impl Bounded for PaneBreak {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("pane", &self.pane)?;
        title("title", &self.title)
    }
}

impl Bounded for PaneMove {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("pane", &self.pane)?;
        reference("tab", &self.tab)?;
        opt_text("split", &self.split, MAX_NAME_BYTES)
    }
}

impl Bounded for SplitRatio {
    fn check_bounds(&self) -> Result<(), WireError> {
        reference("tab", &self.tab)?;
        if self.path.len() > MAX_PANES {
            return Err(WireError::new(
                ErrorCode::BadParams,
                format!(
                    "the split path has {} steps; a tab has at most {MAX_PANES} panes",
                    self.path.len()
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_over_long_field_is_refused_by_name() {
        let new = WorkspaceNew {
            name: "n".repeat(MAX_NAME_BYTES + 1),
            cwd: None,
            auto_resume: false,
            worktree: None,
        };
        let err = new.check_bounds().unwrap_err();
        assert_eq!(err.code, ErrorCode::BadParams);
        assert!(
            err.message.contains("workspace name") && err.message.contains("256"),
            "{err}"
        );
        let pane = PaneNew {
            workspace: "w".into(),
            argv: vec!["x".into(); MAX_ARGV_WORDS + 1],
            ..PaneNew::default()
        };
        assert!(pane.check_bounds().unwrap_err().message.contains("words"));
        let pane = PaneNew {
            workspace: "w".into(),
            title: Some("a\x1b[2Jb".into()),
            ..PaneNew::default()
        };
        assert!(pane.check_bounds().unwrap_err().message.contains("control"));
        let pane = PaneNew {
            workspace: "w".into(),
            worktree: Some("w".repeat(MAX_NAME_BYTES + 1)),
            ..PaneNew::default()
        };
        assert!(
            pane.check_bounds()
                .unwrap_err()
                .message
                .contains("worktree")
        );
    }
}
