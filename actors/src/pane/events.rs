//! What the pane hears from its child, its timers and the reads it runs
//! off the actor.

use signaltty_adapters::AgentKind;
use signaltty_persistence::limits::path_fits;
use signaltty_persistence::{Attention, Lifecycle, Severity};
use signaltty_screen::{NotifySource, ScreenEvent};
use tracing::info;

use super::attention::Axes;
use super::messages::{Myself, PaneTimer};
use super::process::ProcessEvent;
use super::subscribers::Output;
use super::{CATCH_UP, CWD_POLL, EXIT_DRAIN, Pane, TAIL_DEBOUNCE, aware, flood, revive};
use crate::error::ActorError;
use crate::model::PaneState;
use crate::procfs::Foreground;

impl Pane {
    pub(super) fn freeze_check(&mut self, myself: &Myself) {
        // Nobody reads what went before an attach.
        if self
            .screen
            .freeze_check(&myself.mailbox(), self.subscribers.watching())
        {
            self.ring.release();
        }
    }

    /// The revived child failed: the pane goes back to the tombstone it was,
    /// or, had it been asleep, to EXITED (it failed to wake).
    pub(super) fn fail_revival(&mut self, failed: revive::Failed) {
        if self.process.take().is_some() {
            // The shell still runs: hang it up, and ignore its last events.
            self.spawn += 1;
        }
        let waking = failed.was_waking();
        failed.undo(&mut self.record, &mut self.state);
        if waking {
            self.state = PaneState::Exited;
            self.record.running = false;
            self.record.hibernated_at = None;
            self.record.set_lifecycle(Lifecycle::Failed);
            self.record.raise(Attention::Error);
            let dropped = self.prompts.forget();
            if dropped > 0 {
                let body = format!("it did not wake, so {dropped} queued prompt(s) were not typed");
                self.notify("signaltty", Severity::Error, "prompts not delivered", &body);
            }
        }
        self.publish();
        self.publish_tail();
    }

    /// Time to look at the foreground process and the screen.
    pub(super) fn inspect(&mut self, myself: &Myself) {
        if self
            .aware
            .inspect(&myself.mailbox(), self.spawn, self.process.as_deref())
        {
            self.read_screen(myself);
        }
    }

    /// What `/proc` said of the foreground process group `pgid`.
    pub(super) fn on_foreground(&mut self, myself: &Myself, pgid: i32, facts: Option<Foreground>) {
        let unwatched = self.subscribers.is_empty();
        let found = self
            .aware
            .on_foreground(pgid, facts, &mut self.record, unwatched);
        // One publish carries all of it: the view reads the foreground
        // command from the awareness, which already knows the new one.
        if found.arrived || found.left || found.command_changed {
            self.publish();
        }
        if found.arrived {
            self.aware
                .discover(&myself.mailbox(), &self.record, self.spawn);
        }
        if found.left
            && let Some(process) = self.process.as_deref()
        {
            self.hibernation.agent_left(&myself.mailbox(), process);
        }
        if let Some(failed) = self.revivals.saw(found.kind) {
            self.fail_revival(failed);
        }
        self.read_screen(myself);
    }

    /// Reads the screen against the current kind's rules.
    fn read_screen(&mut self, myself: &Myself) {
        let sight = aware::Sight {
            record: &mut self.record,
            screen: &mut self.screen,
            unwatched: self.subscribers.is_empty(),
            spawn: self.spawn,
        };
        if self.aware.read_screen(&myself.mailbox(), sight) {
            self.publish();
        }
        self.revivals.look();
        self.check_woken();
    }

    /// A hibernated pane whose agent is up again is LIVE; until then it
    /// stays HIBERNATED, so nothing is typed into an agent still starting.
    pub(super) fn check_woken(&mut self) {
        if self.revivals.woke() && self.state == PaneState::Hibernated {
            self.state = PaneState::Live;
            self.publish();
        }
    }

    /// Records what the program printed as a notification, when the rate
    /// let it (or a summary of those held back) through.
    pub(super) fn notify_printed(&mut self, printed: Option<flood::Printed>) {
        if let Some(p) = printed {
            self.notify(p.source, Severity::Info, &p.title, &p.body);
        }
    }

    /// Output changed the record: publish it now or soon (see `flood.rs`).
    fn publish_soon(&mut self, myself: &Myself) {
        if self.gates.publish_soon(&myself.mailbox()) {
            self.publish();
        }
    }

    /// The throttle held a publish back until now.
    pub(super) fn publish_due(&mut self) {
        if self.gates.publish_due() {
            self.publish();
        }
    }

    pub(super) fn catch_up(&mut self, myself: &Myself) {
        self.catch_up_due = false;
        if self.subscribers.catch_up(Output {
            ring: &self.ring,
            snapshot: || self.screen.replay(),
        }) {
            self.schedule_catch_up(myself);
        }
    }

    fn schedule_catch_up(&mut self, myself: &Myself) {
        if !self.catch_up_due {
            self.catch_up_due = true;
            myself.after(CATCH_UP, PaneTimer::CatchUp);
        }
    }

    pub(super) async fn on_process_event(&mut self, myself: &Myself, event: ProcessEvent) {
        match event {
            ProcessEvent::Output { spawn, bytes } if spawn == self.spawn => {
                self.revivals.on_output(&myself.mailbox(), spawn, &bytes);
                if self.on_output(myself, bytes).await {
                    self.schedule_catch_up(myself);
                }
                self.aware.inspect_soon(&myself.mailbox());
                if let Some(process) = &self.process {
                    process.return_credit();
                }
                if !self.tail_due {
                    self.tail_due = true;
                    myself.after(TAIL_DEBOUNCE, PaneTimer::TailDue);
                }
                if !self.cwd_due {
                    self.cwd_due = true;
                    myself.after(CWD_POLL, PaneTimer::PollCwd);
                }
            }
            ProcessEvent::Eof { spawn } if spawn == self.spawn => {
                self.eof = true;
                if self.exit_pending.is_some() {
                    self.finish_exit();
                }
            }
            ProcessEvent::Exited { spawn, code } if spawn == self.spawn => {
                self.exit_pending = Some(code);
                if self.eof {
                    self.finish_exit();
                } else {
                    myself.after(EXIT_DRAIN, PaneTimer::ExitDrained { spawn });
                }
            }
            // An event from a process this pane has since replaced.
            _ => {}
        }
    }

    /// Returns whether an attached client is lagging. The chunk is shared
    /// by the ring and every client, not copied.
    async fn on_output(&mut self, myself: &Myself, bytes: bytes::Bytes) -> bool {
        // Only exact clients read the ring back.
        if self.subscribers.reads_ring() {
            self.ring.push(bytes.clone());
        } else {
            self.ring.pass(bytes.len());
        }
        let fresh_before = self.screen.fresh_lines();
        let mut events = std::mem::take(&mut self.events);
        flood::feed(&mut self.screen, &bytes, &mut events).await;
        let mut changed = false;
        for event in events.drain(..) {
            changed |= self.on_screen_event(myself, event);
        }
        self.events = events;
        // New lines nobody is looking at are something to read; a spinner
        // or a full-screen redraw is not. An agent's output while it works
        // is not news either: its attention comes from its state (a turn
        // that ends, a prompt; see `aware.rs`).
        let fresh = self.screen.fresh_lines() - fresh_before;
        if fresh > 0 && self.subscribers.is_empty() && self.current_kind() == AgentKind::Generic {
            changed |= self.record.raise(Attention::Unread);
        }
        self.check_waiters(usize::try_from(fresh).unwrap_or(usize::MAX));
        if changed {
            self.publish_soon(myself);
        }
        self.subscribers.output(
            &bytes,
            Output {
                ring: &self.ring,
                snapshot: || self.screen.replay(),
            },
        )
    }

    /// What the program said through its output; true when the record
    /// changed.
    fn on_screen_event(&mut self, myself: &Myself, event: ScreenEvent) -> bool {
        match event {
            ScreenEvent::Title(_) => return self.refresh_title(),
            ScreenEvent::Cwd(cwd) => {
                if cwd != self.record.cwd && path_fits(&cwd) {
                    self.record.cwd = cwd;
                    return true;
                }
            }
            ScreenEvent::Reply(answer) => {
                // A program that does not read its input gets no more
                // answers than the queue holds.
                if let (Some(process), Ok(piece)) = (&self.process, self.input.try_reserve(answer))
                {
                    process.write(piece);
                }
            }
            ScreenEvent::Bell => return self.record.raise(Attention::Unread),
            ScreenEvent::Notify {
                source,
                title,
                body,
            } => {
                let source = match source {
                    NotifySource::Osc9 => "osc9",
                    NotifySource::Osc777 => "osc777",
                    NotifySource::Osc99 => "osc99",
                };
                let printed = flood::Printed {
                    source,
                    title,
                    body,
                };
                let now = self.gates.notification(&myself.mailbox(), printed);
                self.notify_printed(now);
            }
        }
        false
    }

    pub(super) fn finish_exit(&mut self) {
        let Some(code) = self.exit_pending.take() else {
            return;
        };
        info!(code, "pane exited");
        self.process = None;
        if let Some(failed) = self.revivals.exited(code) {
            self.fail_revival(failed);
            return;
        }
        if self.hibernation.ended(self.spawn) {
            self.fall_asleep();
            return;
        }
        // A sleep that had not begun to end the process is off.
        self.hibernation.abandon(ActorError::Refused(format!(
            "pane {} ended on its own",
            self.record.id
        )));
        self.state = PaneState::Exited;
        self.record.running = false;
        self.record.exit_code = Some(code);
        self.record.set_lifecycle(if code == 0 {
            Lifecycle::Exited
        } else {
            Lifecycle::Failed
        });
        self.record.raise(if code == 0 {
            Attention::Unread
        } else {
            Attention::Error
        });
        self.publish();
        self.publish_tail();
    }

    /// The agent's process ended on its way to sleep: the pane keeps its
    /// screen and its agent's lifecycle, and says since when it sleeps.
    fn fall_asleep(&mut self) {
        info!("pane hibernated");
        self.state = PaneState::Hibernated;
        self.record.running = false;
        self.record.exit_code = None;
        self.record.hibernated_at = Some(crate::now_millis());
        self.publish();
        self.publish_tail();
    }

    pub(super) fn poll_cwd(&mut self) {
        let Some(process) = &self.process else {
            return;
        };
        let Some(cwd) = process.foreground_cwd() else {
            return;
        };
        let cwd = cwd.display().to_string();
        if cwd != self.record.cwd && path_fits(&cwd) {
            self.record.cwd = cwd;
            self.publish();
        }
    }
}
