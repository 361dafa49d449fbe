//! Bringing a pane without a process back: resume (the agent's official
//! command, built by its adapter from the saved session id) and respawn
//! (the saved argv), and learning the session id that makes a resume
//! possible. A revived child that fails within [`REVIVE_GRACE`] fails the
//! command, and the pane goes back to the tombstone it was.

use ractor::{ActorRef, RpcReplyPort};
use signaltty_adapters::{self as adapters, AgentKind};
use signaltty_persistence::AgentRecord;
use signaltty_screen::Style;
use tracing::{info, warn};

use super::subscribers::Revive;
use super::{Pane, PaneMsg, REVIVE_GRACE, Revival};
use crate::error::ActorError;
use crate::model::{PaneState, resume_command};

impl Pane {
    pub(super) fn not_live(&self, action: &str) -> Result<(), ActorError> {
        if self.state == PaneState::Live {
            return Err(ActorError::Refused(format!(
                "pane {} is LIVE; only a pane without a process can be {action}",
                self.record.id
            )));
        }
        Ok(())
    }

    /// What `r` on this pane runs, for clients to say before they do it:
    /// the agent's resume when it has a session to resume (even after its
    /// process ended: a resumed agent's saved command is its resume
    /// anyway), else the saved command. `None` while a process runs.
    pub(super) fn revive_offer(&self) -> Option<Revive> {
        if self.state == PaneState::Live {
            return None;
        }
        match resume_command(&self.record) {
            Some(argv) => Some(Revive::Resume(argv)),
            None if self.record.argv.is_empty() => None,
            None => Some(Revive::Respawn(self.record.argv.clone())),
        }
    }

    pub(super) fn resume_argv(&self) -> Result<Vec<String>, ActorError> {
        self.not_live("resumed")?;
        resume_command(&self.record).ok_or_else(|| {
            ActorError::Refused(format!(
                "pane {} has no agent session id to resume; an agent's hook can report one with \
                 `signaltty ctl report-session {} ID`, or use `signaltty ctl respawn {}`",
                self.record.id, self.record.id, self.record.id
            ))
        })
    }

    /// Starts `argv` as a fresh child in this pane, keeping its id, title,
    /// cwd and history. The reply waits [`REVIVE_GRACE`]: a child that
    /// fails by then fails the command and the pane stays a tombstone.
    pub(super) fn revive(
        &mut self,
        myself: &ActorRef<PaneMsg>,
        argv: Vec<String>,
        reply: RpcReplyPort<Result<(), ActorError>>,
    ) {
        let before = self.record.clone();
        let state_before = self.state;
        self.record.argv = argv;
        if let Err(e) = self.start_process(myself, true) {
            self.record = before;
            let _ = reply.send(Err(self.revive_error(&e.to_string())));
            return;
        }
        self.publish();
        self.revival = Some(Revival {
            reply,
            before,
            state_before,
        });
        let spawn = self.spawn;
        myself.send_after(REVIVE_GRACE, move || PaneMsg::ReviveSettled { spawn });
    }

    pub(super) fn fail_revival(&mut self, revival: Revival, code: i32) {
        let printed = self.screen.tail_text(6, Style::Plain);
        let printed = printed.trim();
        let reason = if printed.is_empty() {
            format!("it exited at once with code {code}")
        } else {
            format!("it exited at once with code {code} after printing: {printed}")
        };
        warn!(code, "revived child failed; the pane stays a tombstone");
        self.record = revival.before;
        self.state = revival.state_before;
        let _ = revival.reply.send(Err(self.revive_error(&reason)));
        self.publish();
        self.publish_tail();
    }

    /// A failed resume or respawn, with the adapter's word on what it ran.
    pub(super) fn revive_error(&self, reason: &str) -> ActorError {
        let program = self.record.argv.first().cloned().unwrap_or_default();
        let agent = self
            .record
            .agent
            .as_ref()
            .and_then(|a| AgentKind::parse(&a.kind).ok())
            .and_then(AgentKind::program);
        let hint = match agent {
            Some(program) => format!(
                "; the {program} CLI must be installed and on PATH, and the session must still exist"
            ),
            None => String::new(),
        };
        ActorError::ReviveFailed(format!(
            "pane {} ({program}) did not start: {reason}{hint}",
            self.record.id
        ))
    }

    pub(super) fn report_session(
        &mut self,
        kind: Option<&str>,
        id: &str,
    ) -> Result<(), ActorError> {
        let bad = |e: adapters::AdapterError| ActorError::BadRequest(e.to_string());
        let kind = match (kind, &self.record.agent) {
            (Some(name), _) => AgentKind::parse(name).map_err(bad)?,
            (None, Some(agent)) => AgentKind::parse(&agent.kind).unwrap_or(AgentKind::Generic),
            (None, None) => adapters::detect(&self.record.argv),
        };
        let id = adapters::validate_session_id(kind, id).map_err(bad)?;
        let agent = self.record.agent.get_or_insert_with(AgentRecord::default);
        if agent.kind != kind.as_str() {
            agent.resume_argv = None;
            agent.model = None;
        }
        agent.kind = kind.as_str().to_string();
        agent.agent_session_id = Some(id.as_str().to_string());
        if self.state == PaneState::Restored && resume_command(&self.record).is_some() {
            self.state = PaneState::Resumable;
        }
        info!(kind = kind.as_str(), "session id reported");
        self.publish();
        Ok(())
    }
}
