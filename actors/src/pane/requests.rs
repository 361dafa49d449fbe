//! What other actors and the server ask of a pane.

use signaltty_adapters::{AgentFacts, AgentKind, HookEffect};
use signaltty_persistence::PtySize;
use signaltty_screen::{Size, Style};

use super::attention::{Axes, Heard};
use super::hibernate::SleepEvent;
use super::messages::{Attached, Myself};
use super::subscribers::{CatchUp, Output};
use super::{MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS, Pane, hibernate, prompt, revive};
use crate::error::ActorError;
use crate::model::PaneState;
use crate::snapshot::{SnapshotMsg, publish};

impl Pane {
    /// A client attaches, at its size; one reply holds the snapshot and
    /// the offset it ends at, taken at the same instant, so the stream
    /// neither repeats nor skips a byte.
    ///
    /// A client that attaches to look at the pane (not `keep_attention`,
    /// as the multiplexer's view of a pane out of focus is) wakes it.
    pub(super) fn attach(
        &mut self,
        myself: &Myself,
        size: Option<(u16, u16)>,
        keep_attention: bool,
        catch_up: CatchUp,
    ) -> Attached {
        if let Some((rows, cols)) = size {
            self.resize(rows, cols);
        }
        if !keep_attention {
            self.seen();
            if self.state == PaneState::Hibernated {
                self.wake(myself, None);
            }
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

    /// `ctl hibernate`: puts the agent to sleep (see `hibernate.rs`) once a
    /// look at its processes finds nothing else running; the reply waits
    /// until its process has ended.
    pub(super) fn hibernate(&mut self, myself: &Myself, reply: hibernate::Reply) {
        let why = if self.hibernation.falling() {
            Some("it is already falling asleep".to_string())
        } else {
            self.sleep_refusal()
        };
        let process = match (why, self.live_process()) {
            (None, Ok(process)) => process,
            (why, live) => {
                let why = why
                    .or(live.err().map(|e| e.to_string()))
                    .unwrap_or_default();
                let _ = reply.send(Err(hibernate::refused(&self.record.id, &why)));
                return;
            }
        };
        let leader = process.pid();
        let agent = process.foreground_pgid().unwrap_or(leader);
        let (checked, spawn) = (myself.mailbox().keep(), self.spawn);
        self.hibernation.begin(spawn, Some(reply));
        tokio::task::spawn_blocking(move || {
            let others = crate::procfs::others_in_session(
                leader,
                agent,
                hibernate::STARTUP,
                hibernate::BUSY_SAMPLE,
            );
            checked.send(SleepEvent::Checked { spawn, others });
        });
    }

    /// `ctl explain`'s word on whether the pane may hibernate now.
    pub(super) fn sleep_word(&mut self) -> String {
        if self.state == PaneState::Hibernated {
            return "asleep; focus, attach, `ctl wake` or `ctl agent prompt` wakes it".into();
        }
        if self.hibernation.falling() {
            return "falling asleep".into();
        }
        match self.sleep_refusal() {
            Some(why) => format!("stays awake: {why}"),
            None => "may sleep, unless a process it did not start with it still runs".into(),
        }
    }

    /// Why the pane may not sleep now, its processes aside.
    fn sleep_refusal(&mut self) -> Option<String> {
        let screen = self.screen.screen_text(Style::Plain);
        hibernate::refusal(&hibernate::Look {
            record: &self.record,
            state: self.state,
            kind: self.current_kind(),
            screen: &screen,
            watched: self.subscribers.watching(),
            prompts_pending: self.prompts.pending(),
            reviving: self.revivals.in_flight(),
        })
    }

    /// The look at the pane's processes is back (`others`: what else runs):
    /// the agent is asked to end its session, unless something changed.
    pub(super) fn sleep_checked(&mut self, myself: &Myself, others: Vec<String>) {
        let why = match self.sleep_refusal() {
            Some(why) => Some(why),
            None if others.is_empty() => None,
            None => Some(format!(
                "a process of its own still runs: {}",
                others.join(", ")
            )),
        };
        let exit = self.current_kind().exit_command();
        match (why, self.process.as_deref()) {
            (None, Some(process)) => {
                self.hibernation
                    .checked(&myself.mailbox(), process, &self.input, exit)
            }
            (why, _) => {
                let why = why.unwrap_or_else(|| "its process ended".into());
                let error = hibernate::refused(&self.record.id, &why);
                self.hibernation.abandon(error);
            }
        }
    }

    /// Wakes a hibernated agent through its official resume command (see
    /// `revive.rs`); `reply`, if any, is answered once it is up. Prompts
    /// queued while it slept are kept for it.
    ///
    /// The pane stays HIBERNATED until its agent is up (see
    /// `check_woken`); a second wake meanwhile is answered at once.
    pub(super) fn wake(&mut self, myself: &Myself, reply: Option<revive::Reply>) {
        if self.state == PaneState::Hibernated && self.revivals.in_flight() {
            if let Some(reply) = reply {
                let _ = reply.send(Ok(()));
            }
            return;
        }
        if self.state != PaneState::Hibernated {
            if let Some(reply) = reply {
                let _ = reply.send(Err(ActorError::Refused(format!(
                    "pane {} is {}, not HIBERNATED; only a sleeping agent wakes",
                    self.record.id, self.state
                ))));
            }
            return;
        }
        let reply = reply.unwrap_or_else(|| ractor::concurrency::oneshot().0.into());
        match revive::resume_plan(self.state, &self.record) {
            Ok((argv, resuming)) => {
                self.record.hibernated_at = None;
                // Read again from the agent that comes up, not the sleeper.
                self.record
                    .set_lifecycle(signaltty_persistence::Lifecycle::Unknown);
                let held = std::mem::take(&mut self.prompts);
                self.revive(myself, argv, Some(resuming.waking()), reply);
                self.prompts = held;
            }
            Err(e) => {
                let _ = reply.send(Err(e));
            }
        }
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
        if resume.as_ref().is_some_and(revive::Resuming::is_waking) {
            // It counts as awake once it is up (see `check_woken`).
            self.state = PaneState::Hibernated;
        }
        self.publish();
        let size = self.screen.size();
        self.revivals
            .begin(&myself.mailbox(), self.spawn, before, resume, reply, size);
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
        if self.state == PaneState::Hibernated {
            // Typed once the agent is up again (see `deliver_queued_prompt`).
            let place = self.prompts.hold(&self.record.id, text)?;
            self.wake(myself, None);
            return Ok(prompt::Prompted::Queued(place));
        }
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
        // A resumed (or woken) agent takes prompts once it is seen up.
        if !self.prompts.due(self.record.lifecycle, agent)
            || self.live_process().is_err()
            || self.revivals.in_flight()
        {
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
        self.keyboard()?.paste(&myself.mailbox(), text)?;
        self.prompts.typed(&myself.mailbox());
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
