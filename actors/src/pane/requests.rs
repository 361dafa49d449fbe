//! What other actors and the server ask of a pane.

use signaltty_adapters::{AgentKind, HookEffect};
use signaltty_persistence::PtySize;
use signaltty_screen::Size;

use super::attention::{Axes, Heard};
use super::messages::{Attached, Myself};
use super::subscribers::{CatchUp, Output};
use super::{MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS, Pane, prompt, revive};
use crate::error::ActorError;
use crate::snapshot::{SnapshotMsg, publish};

impl Pane {
    /// A client attaches, at its size; one reply holds the snapshot and
    /// the offset it ends at, taken at the same instant, so the stream
    /// neither repeats nor skips a byte.
    pub(super) fn attach(
        &mut self,
        size: Option<(u16, u16)>,
        keep_attention: bool,
        catch_up: CatchUp,
    ) -> Attached {
        if let Some((rows, cols)) = size {
            self.resize(rows, cols);
        }
        if !keep_attention {
            self.seen();
        }
        let PtySize { rows, cols } = self.record.pty_size;
        let frames = self.subscribers.add(
            self.screen.replay(),
            self.ring.end(),
            (rows, cols),
            catch_up,
        );
        Attached {
            offset: self.ring.end(),
            input: self.input.clone(),
            status: self.status(),
            size: self.record.pty_size,
            frames,
        }
    }

    /// An agent's hook event: its session id first, since a hook refused
    /// for its session id changes nothing else.
    pub(super) fn hook(
        &mut self,
        kind: AgentKind,
        event: &str,
        effect: HookEffect,
        session_id: Option<String>,
        message: Option<String>,
    ) -> Result<(), ActorError> {
        if let Some(id) = session_id {
            self.report_session(Some(kind), &id)?;
        }
        let source = format!("hook:{}", kind.as_str());
        self.aware.hook_spoke();
        self.apply_hook(&source, event, effect, message.as_deref());
        Ok(())
    }

    pub(super) fn report_session(
        &mut self,
        kind: Option<AgentKind>,
        id: &str,
    ) -> Result<(), ActorError> {
        revive::report_session(&mut self.record, &mut self.state, kind, id)?;
        self.publish();
        Ok(())
    }

    /// Runs the agent's official resume command in this pane.
    pub(super) fn resume(&mut self, myself: &Myself, reply: revive::Reply) {
        match revive::resume_plan(self.state, &self.record) {
            Ok((argv, resuming)) => self.revive(myself, argv, Some(resuming), reply),
            Err(e) => {
                let _ = reply.send(Err(e));
            }
        }
    }

    /// Runs the saved argv again in the saved cwd.
    pub(super) fn respawn(&mut self, myself: &Myself, reply: revive::Reply) {
        if let Err(e) = revive::not_live(self.state, &self.record.id, "respawned") {
            let _ = reply.send(Err(e));
            return;
        }
        let argv = self.record.argv.clone();
        self.revive(myself, argv, None, reply);
    }

    /// Starts `argv` as a fresh child in this pane; the reply waits to see
    /// whether it survives (see `revive.rs`).
    fn revive(
        &mut self,
        myself: &Myself,
        argv: Vec<String>,
        resume: Option<revive::Resuming>,
        reply: revive::Reply,
    ) {
        let before = revive::prepare(&mut self.record, self.state, argv);
        if let Err(e) = self.start_process(myself, true) {
            let _ = reply.send(Err(before.could_not_start(&mut self.record, &e.to_string())));
            return;
        }
        self.publish();
        let size = self.screen.size();
        self.revivals
            .begin(myself, self.spawn, before, resume, reply, size);
    }

    pub(super) fn signal(&self, signal: i32, group: bool) -> Result<(), ActorError> {
        self.live_process()?
            .signal(signal, group)
            .map_err(|e| ActorError::Io(format!("could not signal the pane: {e}")))
    }

    /// The user has seen the pane: its attention clears and its
    /// notifications are marked read. Lifecycle is left alone.
    pub(super) fn seen(&mut self) {
        publish(SnapshotMsg::MarkRead(self.record.id.clone()));
        if self.record.seen() {
            self.publish();
        }
    }

    fn apply_hook(&mut self, source: &str, event: &str, effect: HookEffect, message: Option<&str>) {
        let watched = !self.subscribers.is_empty();
        match self.record.hook(source, event, effect, message, watched) {
            Heard::Nothing => {}
            Heard::Changed => self.publish(),
            Heard::Notify(notification) => {
                publish(SnapshotMsg::Notify(notification));
                self.publish();
            }
        }
    }

    /// `ctl agent prompt`: types `text` into the agent now, or queues it
    /// (`queue`) while the agent works.
    pub(super) fn prompt(
        &mut self,
        myself: &Myself,
        text: String,
        queue: bool,
    ) -> Result<prompt::Prompted, ActorError> {
        self.live_process()?;
        let kind = self.current_kind();
        let lifecycle = self.record.lifecycle;
        match self
            .prompts
            .offer(&self.record.id, kind, lifecycle, text, queue)?
        {
            prompt::Next::Queued(place) => Ok(prompt::Prompted::Queued(place)),
            prompt::Next::Type(text) => {
                self.type_prompt(myself, &text)?;
                Ok(prompt::Prompted::Sent)
            }
        }
    }

    /// Types the next queued prompt once the agent is idle and the last
    /// prompt's turn has started; called after every message.
    pub(super) fn deliver_queued_prompt(&mut self, myself: &Myself) {
        let agent = self.current_kind() != AgentKind::Generic;
        if !self.prompts.due(self.record.lifecycle, agent) || self.live_process().is_err() {
            return;
        }
        let Some(text) = self.prompts.next() else {
            return;
        };
        if let Err(e) = self.type_prompt(myself, &text) {
            tracing::warn!(%e, "a queued prompt could not be typed; dropped");
        }
    }

    /// Pastes `text` into the agent and awaits the turn it starts.
    fn type_prompt(&mut self, myself: &Myself, text: &str) -> Result<(), ActorError> {
        self.keyboard()?.paste(myself, text)?;
        self.prompts.typed(myself);
        Ok(())
    }

    pub(super) fn resize(&mut self, rows: u16, cols: u16) -> PtySize {
        let size = PtySize {
            rows: rows.clamp(MIN_ROWS, MAX_ROWS),
            cols: cols.clamp(MIN_COLS, MAX_COLS),
        };
        if size != self.record.pty_size {
            self.screen.resize(Size {
                rows: size.rows,
                cols: size.cols,
            });
            if let Some(process) = &self.process {
                process.resize(size.rows, size.cols);
            }
            self.record.pty_size = size;
            self.publish();
            self.subscribers.repaint(
                (size.rows, size.cols),
                Output {
                    ring: &self.ring,
                    snapshot: || self.screen.replay(),
                },
            );
        }
        size
    }
}
