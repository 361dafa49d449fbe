//! Which part of the pane handles each message.

use signaltty_screen::Style;

use super::aware::AwareEvent;
use super::flood::GateTimer;
use super::freezer::FreezeCheck;
use super::hibernate::SleepEvent;
use super::messages::{Internal, Myself, PaneMsg, PaneTimer, SelfMsg};
use super::prompt::PromptTimer;
use super::revive::ReviveTimer;
use super::wait::WaiterGone;
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
                let added = self
                    .waiters
                    .add(&myself.mailbox(), &self.record.id, what, met, now);
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
            PaneMsg::Pause(reply) => match self.process.as_mut() {
                Some(process) => {
                    let paused = process.pause();
                    tokio::spawn(async move {
                        paused.await;
                        let _ = reply.send(());
                    });
                }
                None => {
                    let _ = reply.send(());
                }
            },
            PaneMsg::HandOver(reply) => {
                let _ = reply.send(self.hand_over());
            }
            PaneMsg::Unpause => {
                if let Some(process) = self.process.as_mut() {
                    process.resume();
                }
            }
            PaneMsg::WorktreeSeen(seen) => {
                if worktree::apply(&mut self.record.worktree, seen) {
                    self.publish();
                }
            }
        }
    }

    async fn on_internal(&mut self, myself: &Myself, msg: SelfMsg) {
        if msg.spawn().is_some_and(|spawn| spawn != self.spawn) {
            // A late timer or answer about a process this pane has since
            // replaced.
            return;
        }
        match msg {
            SelfMsg::Process(event) => self.on_process_event(myself, event).await,
            SelfMsg::Pane(PaneTimer::CatchUp) => self.catch_up(myself),
            SelfMsg::Pane(PaneTimer::TailDue) => self.publish_tail(),
            SelfMsg::Pane(PaneTimer::PollCwd) => {
                self.cwd_due = false;
                self.poll_cwd();
            }
            SelfMsg::Pane(PaneTimer::ExitDrained { .. }) => self.finish_exit(),
            SelfMsg::Revive(ReviveTimer::Settled { .. }) => {
                if let Some(failed) = self.revivals.settled() {
                    self.fail_revival(failed);
                }
                self.check_woken();
            }
            SelfMsg::Revive(ReviveTimer::TypeResume { .. }) => {
                let process = self.process.as_deref();
                self.revivals.type_resume(process, &self.input);
            }
            SelfMsg::Gates(GateTimer::HeldNotifications) => {
                let held = self.gates.held_notifications(&myself.mailbox());
                self.notify_printed(held);
            }
            SelfMsg::Gates(GateTimer::Publish) => self.publish_due(),
            SelfMsg::Aware(AwareEvent::Inspect) => self.inspect(myself),
            SelfMsg::Aware(AwareEvent::Foreground { pgid, facts, .. }) => {
                self.on_foreground(myself, pgid, facts);
            }
            SelfMsg::Aware(AwareEvent::Discovered { kind, found, .. }) => {
                if self
                    .aware
                    .on_discovered(&myself.mailbox(), &mut self.record, kind, found)
                {
                    self.publish();
                }
            }
            SelfMsg::Aware(AwareEvent::Rediscover) => {
                self.aware
                    .discover(&myself.mailbox(), &self.record, self.spawn);
            }
            SelfMsg::Waiter(WaiterGone(id)) => self.waiters.forget(id),
            SelfMsg::Freeze(FreezeCheck) => self.freeze_check(myself),
            SelfMsg::Prompt(PromptTimer::Submit { .. }) => {
                if let Ok(keyboard) = self.keyboard() {
                    keyboard.submit();
                }
            }
            SelfMsg::Prompt(PromptTimer::Settled { delivery }) => {
                if self.prompts.settled(delivery) {
                    self.check_waiters(0);
                }
            }
            SelfMsg::Sleep(SleepEvent::Checked { others, .. }) => {
                self.sleep_checked(myself, others);
            }
            SelfMsg::Sleep(SleepEvent::Step { .. }) => {
                if let Some(process) = self.process.as_deref() {
                    self.hibernation
                        .step(&myself.mailbox(), process, &self.input);
                }
            }
        }
    }
}
