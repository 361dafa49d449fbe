//! Which part of the pane handles each message.

use signaltty_screen::Style;

use super::messages::{Internal, Myself, PaneMsg, SelfMsg};
use super::{Pane, title, wait, worktree};

impl Pane {
    /// Gives each message to what handles it.
    pub(super) async fn route(&mut self, myself: &Myself, msg: PaneMsg) {
        match msg {
            PaneMsg::Internal(Internal(msg)) => self.on_internal(myself, msg).await,
            PaneMsg::Attach {
                size,
                keep_attention,
                catch_up,
                reply,
            } => {
                let _ = reply.send(self.attach(myself, size, keep_attention, catch_up));
            }
            PaneMsg::Rename(name, reply) => {
                title::rename(&mut self.record, name, self.screen.title());
                self.publish();
                let _ = reply.send(());
            }
            PaneMsg::Seen(reply) => {
                self.seen();
                let _ = reply.send(());
            }
            PaneMsg::Notify {
                severity,
                title,
                body,
                reply,
            } => {
                self.notify("ctl", severity, &title, &body);
                let _ = reply.send(());
            }
            PaneMsg::Hook {
                kind,
                event,
                effect,
                session_id,
                message,
                reply,
            } => {
                let heard = self.hook(kind, &event, effect, session_id, message);
                let _ = reply.send(heard);
            }
            PaneMsg::Input(piece, reply) => {
                let _ = reply.send(self.live_process().map(|p| p.write(piece)));
            }
            PaneMsg::InputQueue(reply) => {
                let _ = reply.send(self.input.clone());
            }
            PaneMsg::Read { what, ansi, reply } => {
                let style = if ansi { Style::Ansi } else { Style::Plain };
                let _ = reply.send(self.screen.read(what, style));
            }
            PaneMsg::Resize { rows, cols, reply } => {
                let size = self.resize(rows, cols);
                let _ = reply.send(size);
            }
            PaneMsg::Signal {
                signal,
                group,
                reply,
            } => {
                let _ = reply.send(self.signal(signal, group));
            }
            PaneMsg::Resume(reply) => self.resume(myself, reply),
            PaneMsg::Respawn(reply) => self.respawn(myself, reply),
            PaneMsg::Hibernate(reply) => self.hibernate(myself, reply),
            PaneMsg::Wake(reply) => self.wake(myself, Some(reply)),
            PaneMsg::Pin(pinned, reply) => {
                if self.record.pinned != pinned {
                    self.record.pinned = pinned;
                    self.publish();
                }
                let _ = reply.send(());
            }
            PaneMsg::ReportSession { kind, id, reply } => {
                let _ = reply.send(self.report_session(kind, &id));
            }
            PaneMsg::FlushTail(reply) => {
                self.publish_due();
                if !self.screen.frozen_with_tail_published() {
                    self.publish_tail();
                }
                let _ = reply.send(());
            }
            PaneMsg::Republish => {
                self.publish();
                self.publish_tail();
            }
            #[cfg(any(debug_assertions, feature = "fault-injection"))]
            PaneMsg::DebugPanic => panic!("fault injected into pane {}", self.record.id),
            PaneMsg::Explain(reply) => {
                let keys = self.key_target().describe();
                let sleep = self.sleep_word();
                let waiting = self.waiters.count();
                let explained =
                    self.aware
                        .explain(&self.record, &mut self.screen, waiting, (keys, sleep));
                let _ = reply.send(explained);
            }
            PaneMsg::Wait { what, met, reply } => {
                let now = wait::Now::of(
                    &self.record,
                    self.runs(),
                    self.prompts.pending(),
                    &mut self.screen,
                );
                let added = self.waiters.add(myself, &self.record.id, what, met, now);
                let _ = reply.send(added);
            }
            PaneMsg::Prompt { text, queue, reply } => {
                let _ = reply.send(self.prompt(myself, text, queue));
            }
            PaneMsg::EncodeKeys(keys, reply) => {
                let target = self.key_target();
                let _ = reply.send(keys.iter().flat_map(|k| k.encode_for(&target)).collect());
            }
            PaneMsg::IsWatched(reply) => {
                let _ = reply.send(self.subscribers.watching());
            }
            PaneMsg::WorktreeSeen(seen) => {
                if worktree::apply(&mut self.record.worktree, seen) {
                    self.publish();
                }
            }
        }
    }

    async fn on_internal(&mut self, myself: &Myself, msg: SelfMsg) {
        match msg {
            SelfMsg::Process(event) => self.on_process_event(myself, event).await,
            SelfMsg::CatchUp => self.catch_up(myself),
            SelfMsg::TailDue => self.publish_tail(),
            SelfMsg::PollCwd => {
                self.cwd_due = false;
                self.poll_cwd();
            }
            SelfMsg::ExitDrained { spawn } if spawn == self.spawn => self.finish_exit(),
            SelfMsg::ReviveSettled { spawn } if spawn == self.spawn => {
                if let Some(failed) = self.revivals.settled() {
                    self.fail_revival(failed);
                }
                self.check_woken();
            }
            SelfMsg::TypeResume { spawn } if spawn == self.spawn => {
                let process = self.process.as_deref();
                self.revivals.type_resume(process, &self.input);
            }
            SelfMsg::HeldNotificationsDue => {
                let held = self.gates.held_notifications(myself);
                self.notify_printed(held);
            }
            SelfMsg::PublishDue => self.publish_due(),
            SelfMsg::Inspect => self.inspect(myself),
            SelfMsg::Foreground { spawn, pgid, facts } if spawn == self.spawn => {
                self.on_foreground(myself, pgid, facts);
            }
            SelfMsg::Discovered { spawn, kind, found } if spawn == self.spawn => {
                if self
                    .aware
                    .on_discovered(myself, &mut self.record, kind, found)
                {
                    self.publish();
                }
            }
            SelfMsg::Rediscover => self.aware.discover(myself, &self.record, self.spawn),
            SelfMsg::WaiterGone(id) => self.waiters.forget(id),
            SelfMsg::FreezeCheck => self.freeze_check(myself),
            SelfMsg::SubmitPrompt { spawn } if spawn == self.spawn => {
                if let Ok(keyboard) = self.keyboard() {
                    keyboard.submit();
                }
            }
            SelfMsg::SleepChecked { spawn, others } if spawn == self.spawn => {
                self.sleep_checked(myself, others);
            }
            SelfMsg::SleepStep { spawn } if spawn == self.spawn => {
                if let Some(process) = self.process.as_deref() {
                    self.hibernation.step(myself, process, &self.input);
                }
            }
            SelfMsg::PromptSettled { delivery } => {
                if self.prompts.settled(delivery) {
                    self.check_waiters(0);
                }
            }
            // A late timer or answer about a process this pane has since
            // replaced.
            SelfMsg::ExitDrained { .. }
            | SelfMsg::ReviveSettled { .. }
            | SelfMsg::TypeResume { .. }
            | SelfMsg::Foreground { .. }
            | SelfMsg::Discovered { .. }
            | SelfMsg::SubmitPrompt { .. }
            | SelfMsg::SleepChecked { .. }
            | SelfMsg::SleepStep { .. } => {}
        }
    }
}
