//! Puts idle agents to sleep by themselves (`[hibernate]` in the config).
//!
//! Every [`LOOK_EVERY`] the task reads the model (no message) and picks the
//! panes whose records alone say they may sleep: a LIVE agent that could be
//! woken (its kind ends sessions from its input box, its session id is
//! known), idle or done, shown by no client, not pinned — and either idle
//! for longer than its window (its workspace's `hibernate_after`, else
//! `after`), or, with `keep-awake = N` and more than N such agents awake,
//! among the longest idle. Each is asked to hibernate; the pane makes the
//! last checks itself (its input box, its processes) and may refuse, and a
//! pane that refused is asked again only after [`ASK_AGAIN`].

use signaltty_types::id::PaneId;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use signaltty_actors::model::{Model, PaneState, PaneView};
use signaltty_actors::names;
use signaltty_actors::pane::PaneMsg;
use signaltty_actors::pane::resume_command;
use signaltty_actors::snapshot::read::ModelReader;
use signaltty_adapters::AgentFacts;
use signaltty_persistence::Lifecycle;
use tokio::task::JoinHandle;
use tracing::{debug, info};

use crate::config::HibernateConfig;

/// How often the model is looked at.
pub const LOOK_EVERY: Duration = Duration::from_secs(2);
/// How soon a pane that would not sleep is asked again.
const ASK_AGAIN: Duration = Duration::from_secs(60);
/// How long a pane has to fall asleep (its exit command, then signals).
const SLEEP_MS: u64 = 30_000;

/// Starts the task; it runs until the handle is aborted.
pub fn spawn(model: ModelReader, config: HibernateConfig) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut asked: HashMap<PaneId, Instant> = HashMap::new();
        let mut tick = tokio::time::interval(LOOK_EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let now = Instant::now();
            asked.retain(|_, at| now.duration_since(*at) < ASK_AGAIN);
            let chosen = due(&model.now(), &config, signaltty_actors::now_millis());
            for id in chosen {
                if asked.contains_key(&id) {
                    continue;
                }
                asked.insert(id.clone(), now);
                ask(id);
            }
        }
    })
}

/// Asks pane `id` to hibernate, off the loop.
fn ask(id: PaneId) {
    let Some(pane) = names::lookup::<PaneMsg>(&names::pane(&id)) else {
        return;
    };
    tokio::spawn(async move {
        match ractor::call_t!(pane, PaneMsg::Hibernate, SLEEP_MS) {
            Ok(Ok(())) => info!(pane = %id, "hibernated, idle"),
            Ok(Err(e)) => debug!(pane = %id, why = %e, "stays awake"),
            Err(e) => debug!(pane = %id, error = %e, "did not answer"),
        }
    });
}

/// The panes to put to sleep now (`now`: ms since the epoch), by their
/// window, then by the `keep-awake` cap, longest idle first.
pub fn due(model: &Model, config: &HibernateConfig, now: u64) -> Vec<PaneId> {
    let awake: Vec<&PaneView> = model
        .panes
        .values()
        .map(AsRef::as_ref)
        .filter(|p| p.state == PaneState::Live && could_sleep(p))
        .collect();
    let mut idle: Vec<&PaneView> = awake
        .iter()
        .copied()
        .filter(|p| {
            matches!(p.record.lifecycle, Lifecycle::Idle | Lifecycle::Done)
                && !p.watched
                && !p.record.pinned
        })
        .collect();
    idle.sort_by_key(|p| (p.record.lifecycle_at, p.record.id.clone()));
    let idle_for = |p: &PaneView| Duration::from_millis(now.saturating_sub(p.record.lifecycle_at));
    let mut chosen: Vec<PaneId> = idle
        .iter()
        .filter(|p| window(model, p, config).is_some_and(|w| idle_for(p) >= w))
        .map(|p| p.record.id.clone())
        .collect();
    if let Some(cap) = config.keep_awake {
        let over = awake.len().saturating_sub(cap).saturating_sub(chosen.len());
        let longest_idle = idle
            .iter()
            .map(|p| p.record.id.clone())
            .filter(|id| !chosen.contains(id))
            .take(over)
            .collect::<Vec<_>>();
        chosen.extend(longest_idle);
    }
    chosen
}

/// An agent that sleeping would not lose: its kind ends a session from its
/// input box, and its session can be resumed.
fn could_sleep(pane: &PaneView) -> bool {
    let Some(agent) = pane.record.agent.as_ref().filter(|a| !a.ended) else {
        return false;
    };
    agent.kind.or_generic().exit_command().is_some() && resume_command(&pane.record).is_some()
}

/// How long `pane` may stay idle: its workspace's window, else the config's.
fn window(model: &Model, pane: &PaneView, config: &HibernateConfig) -> Option<Duration> {
    let own = model
        .workspaces
        .iter()
        .find(|w| w.id == pane.record.workspace_id)
        .and_then(|w| w.hibernate_after);
    own.or(config.after).and_then(|after| after.window())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use signaltty_persistence::{SleepAfter, WorkspaceRecord};
    use signaltty_types::{AgentKind, AgentRecord, PaneRecord};

    use super::*;

    const MINUTE: u64 = 60_000;

    fn claude(id: &str, ws: &str, lifecycle: Lifecycle, idle_since: u64) -> PaneView {
        let mut record = PaneRecord::new(id, ws, "t");
        record.argv = vec!["claude".into()];
        record.lifecycle = lifecycle;
        record.lifecycle_at = idle_since;
        record.agent = Some(AgentRecord {
            agent_session_id: Some("5b0e3c1a-7d2f-4e8b-9a6c-1f2e3d4c5b6a".into()),
            ..AgentRecord::of(AgentKind::Claude)
        });
        PaneView {
            record,
            state: PaneState::Live,
            watched: false,
            command: None,
        }
    }

    fn model(panes: Vec<PaneView>, workspaces: Vec<WorkspaceRecord>) -> Model {
        Model {
            workspaces,
            panes: panes
                .into_iter()
                .map(|p| (p.record.id.clone(), Arc::new(p)))
                .collect(),
            ..Model::default()
        }
    }

    fn after(text: &str) -> HibernateConfig {
        HibernateConfig {
            after: Some(text.parse().unwrap()),
            keep_awake: None,
        }
    }

    #[test]
    fn an_agent_idle_past_its_window_is_due_and_no_other() {
        let now = 100 * MINUTE;
        let mut watched = claude("watched", "w", Lifecycle::Idle, 0);
        watched.watched = true;
        let mut pinned = claude("pinned", "w", Lifecycle::Idle, 0);
        pinned.record.pinned = true;
        let mut unknown = claude("no-session", "w", Lifecycle::Idle, 0);
        unknown.record.agent.as_mut().unwrap().agent_session_id = None;
        let mut asleep = claude("asleep", "w", Lifecycle::Idle, 0);
        asleep.state = PaneState::Hibernated;
        let mut gemini = claude("gemini", "w", Lifecycle::Idle, 0);
        gemini.record.agent.as_mut().unwrap().kind = AgentKind::Gemini.into();
        let panes = vec![
            claude("long-idle", "w", Lifecycle::Idle, now - 31 * MINUTE),
            claude("done", "w", Lifecycle::Done, now - 40 * MINUTE),
            claude("recent", "w", Lifecycle::Idle, now - 5 * MINUTE),
            claude("working", "w", Lifecycle::Working, 0),
            claude("blocked", "w", Lifecycle::Blocked, 0),
            watched,
            pinned,
            unknown,
            asleep,
            gemini,
        ];
        let due = due(&model(panes, Vec::new()), &after("30m"), now);
        assert_eq!(due, vec!["done", "long-idle"], "longest idle first");
        let none = due_with_off(now);
        assert!(none.is_empty());
    }

    fn due_with_off(now: u64) -> Vec<PaneId> {
        let panes = vec![claude("a", "w", Lifecycle::Idle, 0)];
        due(&model(panes, Vec::new()), &HibernateConfig::default(), now)
    }

    #[test]
    fn a_workspace_window_wins_over_the_config() {
        let now = 100 * MINUTE;
        let mut quick = WorkspaceRecord::new("quick", "quick");
        quick.hibernate_after = Some("5m".parse().unwrap());
        let mut never = WorkspaceRecord::new("never", "never");
        never.hibernate_after = Some(SleepAfter::Off);
        let panes = vec![
            claude("in-quick", "quick", Lifecycle::Idle, now - 10 * MINUTE),
            claude("in-never", "never", Lifecycle::Idle, 0),
            claude("elsewhere", "other", Lifecycle::Idle, now - 10 * MINUTE),
        ];
        let due = due(&model(panes, vec![quick, never]), &after("30m"), now);
        assert_eq!(due, vec!["in-quick"]);
    }

    #[test]
    fn over_the_cap_the_longest_idle_sleeps_first() {
        let now = 100 * MINUTE;
        let panes = vec![
            claude("idle-3m", "w", Lifecycle::Idle, now - 3 * MINUTE),
            claude("idle-9m", "w", Lifecycle::Idle, now - 9 * MINUTE),
            claude("done-6m", "w", Lifecycle::Done, now - 6 * MINUTE),
            claude("working", "w", Lifecycle::Working, now),
        ];
        let config = HibernateConfig {
            after: None,
            keep_awake: Some(2),
        };
        let due = due(&model(panes, Vec::new()), &config, now);
        assert_eq!(due, vec!["idle-9m", "done-6m"], "4 awake, 2 kept");
    }
}
