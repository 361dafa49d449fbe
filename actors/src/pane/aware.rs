//! Agent awareness with no setup: which agent runs in the pane, what it is
//! doing, and its session id.
//!
//! Nothing here runs on a timer of its own: output schedules one look
//! ([`INSPECT_DELAY`] later, coalesced), so an idle pane costs nothing. A
//! look asks the PTY for its foreground process group (one ioctl); only
//! when that changed is `/proc` read, on a blocking thread. Then the
//! screen's bottom rows and title are read against the kind's rules.
//!
//! Lifecycle from the screen: blocked (a prompt, at once — a visible prompt
//! beats a busy spinner), working, and idle only once the screen has been
//! still for [`STILL`]; a turn that ended (working, then still and idle)
//! is `done` while nobody has looked. Hooks stay authoritative: once a hook
//! spoke for this process, the screen never sets a state that kind's hooks
//! report, unless the screen set the current state itself.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use signaltty_adapters::{
    self as adapters, AgentKind, AgentNeeds, RuleBook, ScreenState, Verdict, hooks_report,
};
use signaltty_persistence::{AgentRecord, Attention, Lifecycle, PaneRecord};
use signaltty_screen::Style;
use tracing::{debug, info};

use super::attention::Axes;
use super::{Myself, Pane, SelfMsg};
use crate::procfs::{self, Foreground};
use signaltty_adapters::AgentFacts;

/// How soon after output the pane is looked at.
pub const INSPECT_DELAY: Duration = Duration::from_millis(300);
/// How soon, once [`STEADY_LOOKS`] looks in a row read the same state
/// while output kept coming (a spinner): a prompt that appears is still
/// seen within a second, at well under half the cost.
const STEADY_DELAY: Duration = Duration::from_millis(700);
const STEADY_LOOKS: u32 = 3;
/// Output after this long without a look starts quick looks again.
const QUIET: Duration = Duration::from_secs(2);
/// How long a screen must be still before it can read as idle or done.
pub const STILL: Duration = Duration::from_millis(1000);
/// Session discovery is tried again this often while nothing is found,
/// at most [`DISCOVERY_TRIES`] times; and again at every turn's end.
const DISCOVERY_RETRY: Duration = Duration::from_secs(2);
const DISCOVERY_TRIES: u32 = 5;

static RULES: OnceLock<Arc<RuleBook>> = OnceLock::new();

/// Sets the rules every pane reads (the bundled ones with the user's
/// overrides), once, at server start. Immutable afterwards.
pub fn install_rules(book: RuleBook) {
    let _ = RULES.set(Arc::new(book));
}

/// The rules in force: those installed at start, else the bundled ones.
pub fn rule_book() -> Arc<RuleBook> {
    RULES.get_or_init(|| Arc::new(RuleBook::bundled())).clone()
}

/// What a pane knows about the agent in it, beyond its record.
#[derive(Default)]
pub(super) struct Awareness {
    inspect_due: bool,
    /// The foreground process group last looked at, and what it is.
    foreground: Option<(i32, AgentKind)>,
    /// Its `/proc` facts, kept for session discovery.
    facts: Option<Arc<Foreground>>,
    reading: bool,
    /// The state the screen last read as, how many looks in a row read
    /// it, and when the last look was.
    last_state: Option<ScreenState>,
    steady: u32,
    last_look: Option<Instant>,
    screen_hash: u64,
    still_since: Option<Instant>,
    /// The screen set the current lifecycle (so it may change it again).
    screen_set: bool,
    /// A hook spoke for the current process.
    pub(super) hooked: bool,
    /// A turn is running (the screen read working since it last read idle).
    turn: bool,
    discovery_tries: u32,
    /// Where the current session id came from, for `explain`.
    pub(super) session_file: Option<String>,
}

impl Awareness {
    /// The foreground command's name, as its command line gives it.
    pub(super) fn command(&self) -> Option<String> {
        let facts = self.facts.as_ref()?;
        let name = crate::model::program_name(&facts.argv);
        if name.is_empty() {
            facts
                .exe
                .as_deref()
                .map(|exe| crate::model::program_name(&[exe.to_string()]))
        } else {
            Some(name)
        }
    }
}

/// The kind of agent `record` names (`Generic` for none).
pub(super) fn recorded_kind(record: &PaneRecord) -> AgentKind {
    record
        .agent
        .as_ref()
        .and_then(|a| AgentKind::parse(&a.kind).ok())
        .unwrap_or(AgentKind::Generic)
}

/// What `ctl explain` shows for a pane.
#[derive(Debug, Clone)]
pub struct Explained {
    pub kind: AgentKind,
    pub foreground: Option<Vec<String>>,
    pub verdict: Verdict,
    pub rules: String,
    pub session_file: Option<String>,
    /// How many `ctl wait` clients wait on the pane.
    pub waiting: usize,
}

impl Pane {
    /// After output: look at the pane soon, once.
    pub(super) fn inspect_soon(&mut self, myself: &Myself) {
        if !self.aware.inspect_due {
            self.aware.inspect_due = true;
            myself.after(self.inspect_delay(), SelfMsg::Inspect);
        }
    }

    /// A screen that keeps changing but keeps reading the same is looked
    /// at less often; output after a quiet spell gets a quick look.
    fn inspect_delay(&self) -> Duration {
        let recent = self.aware.last_look.is_some_and(|at| at.elapsed() < QUIET);
        if recent && self.aware.steady >= STEADY_LOOKS {
            STEADY_DELAY
        } else {
            INSPECT_DELAY
        }
    }

    /// The kind whose rules apply now.
    pub(super) fn current_kind(&self) -> AgentKind {
        if let Some((_, kind)) = self.aware.foreground
            && kind != AgentKind::Generic
        {
            return kind;
        }
        match &self.record.agent {
            Some(agent) if !agent.ended => recorded_kind(&self.record),
            _ => AgentKind::Generic,
        }
    }

    pub(super) fn inspect(&mut self, myself: &Myself) {
        self.aware.inspect_due = false;
        let Some(process) = &self.process else {
            return;
        };
        let pgid = process.foreground_pgid();
        if let Some(pgid) = pgid
            && Some(pgid) != self.aware.foreground.map(|(p, _)| p)
            && !self.aware.reading
        {
            self.aware.reading = true;
            let target = myself.clone();
            let spawn = self.spawn;
            tokio::task::spawn_blocking(move || {
                let facts = procfs::foreground(pgid);
                target.send(SelfMsg::Foreground { spawn, pgid, facts });
            });
        }
        self.read_screen(myself);
    }

    /// The foreground process was read: which agent it is.
    pub(super) fn on_foreground(&mut self, myself: &Myself, pgid: i32, facts: Option<Foreground>) {
        self.aware.reading = false;
        let kind = facts
            .as_ref()
            .map_or(AgentKind::Generic, |f| adapters::detect_process(&f.facts()));
        let before = self.current_kind();
        let command_before = self.aware.command();
        self.aware.foreground = Some((pgid, kind));
        self.aware.facts = facts.map(Arc::new);
        if kind != AgentKind::Generic {
            self.agent_arrived(myself, kind);
        } else {
            self.agent_left(before);
        }
        if self.aware.command() != command_before {
            self.publish();
        }
        if let Some(failed) = self.revivals.saw(kind) {
            self.fail_revival(failed);
        }
        self.read_screen(myself);
    }

    fn agent_arrived(&mut self, myself: &Myself, kind: AgentKind) {
        let agent = self.record.agent.get_or_insert_with(AgentRecord::default);
        if agent.kind != kind.as_str() {
            info!(kind = kind.as_str(), "agent detected");
            *agent = AgentRecord {
                kind: kind.as_str().to_string(),
                ..AgentRecord::default()
            };
            self.aware.session_file = None;
        }
        agent.ended = false;
        self.aware.hooked = false;
        self.aware.discovery_tries = 0;
        self.publish();
        self.discover(myself);
    }

    /// The foreground is no agent: one that ran inside the pane's shell has
    /// ended, and the pane is a shell again (its session id kept).
    fn agent_left(&mut self, before: AgentKind) {
        let launched = adapters::detect(&self.record.argv);
        let Some(agent) = self.record.agent.as_mut() else {
            return;
        };
        if before == AgentKind::Generic || launched == before || agent.ended {
            return;
        }
        info!(kind = before.as_str(), "agent ended; the shell is back");
        agent.ended = true;
        self.aware.turn = false;
        self.aware.screen_set = false;
        self.record.set_lifecycle(Lifecycle::Unknown);
        if self.subscribers.is_empty() {
            self.record.raise(Attention::Unread);
        }
        self.publish();
    }

    /// Reads the session id from the agent's own files, off the actor.
    pub(super) fn discover(&mut self, myself: &Myself) {
        let kind = self.current_kind();
        let Some(facts) = self.aware.facts.clone() else {
            return;
        };
        if kind == AgentKind::Generic {
            return;
        }
        let mut process = facts.agent_process(&self.record.cwd);
        let target = myself.clone();
        let spawn = self.spawn;
        tokio::task::spawn_blocking(move || {
            process.children = procfs::children(process.pid);
            let found = adapters::discover_session(kind, &process);
            target.send(SelfMsg::Discovered { spawn, kind, found });
        });
    }

    pub(super) fn on_discovered(
        &mut self,
        myself: &Myself,
        kind: AgentKind,
        found: Option<adapters::Discovered>,
    ) {
        if kind != self.current_kind() {
            return;
        }
        let Some(found) = found else {
            self.aware.discovery_tries += 1;
            if self.aware.discovery_tries < DISCOVERY_TRIES {
                myself.after(DISCOVERY_RETRY, SelfMsg::Rediscover);
            }
            return;
        };
        let agent = self.record.agent.get_or_insert_with(AgentRecord::default);
        self.aware.session_file = Some(found.file.display().to_string());
        if agent.agent_session_id.as_deref() != Some(found.id.as_str()) {
            info!(kind = kind.as_str(), file = %found.file.display(), "session id discovered");
            agent.kind = kind.as_str().to_string();
            agent.agent_session_id = Some(found.id.as_str().to_string());
            self.publish();
        }
    }

    /// Reads the screen against the current kind's rules and moves the
    /// lifecycle accordingly.
    fn read_screen(&mut self, myself: &Myself) {
        let kind = self.current_kind();
        let book = rule_book();
        let Some(rules) = book.rules(kind) else {
            return;
        };
        let text = self.screen.screen_text(Style::Plain);
        let title = self.screen.title().to_string();
        let mut hasher = DefaultHasher::new();
        (&text, &title).hash(&mut hasher);
        let hash = hasher.finish();
        let now = Instant::now();
        if hash != self.aware.screen_hash || self.aware.still_since.is_none() {
            self.aware.screen_hash = hash;
            self.aware.still_since = Some(now);
        }
        let state = rules.state(&text, &title);
        if state == self.aware.last_state {
            self.aware.steady = self.aware.steady.saturating_add(1);
        } else {
            self.aware.steady = 0;
        }
        self.aware.last_state = state;
        self.aware.last_look = Some(now);
        let still_for = self
            .aware
            .still_since
            .map_or(Duration::ZERO, |since| now - since);
        match state {
            Some(ScreenState::Idle) if still_for < STILL => {
                myself.after(STILL - still_for, SelfMsg::Inspect);
                self.aware.inspect_due = true;
            }
            Some(state) => self.apply_screen(myself, kind, state),
            None => {}
        }
        if state.is_some() {
            self.revivals.recognised(kind);
        }
    }

    fn apply_screen(&mut self, myself: &Myself, kind: AgentKind, state: ScreenState) {
        let activity = state.activity();
        if self.aware.hooked && hooks_report(kind, activity) && !self.aware.screen_set {
            return;
        }
        let was_blocked = self.record.lifecycle == Lifecycle::Blocked && self.aware.screen_set;
        let mut changed = false;
        match state {
            ScreenState::Blocked(needs) => {
                changed |= self.record.set_lifecycle(Lifecycle::Blocked);
                changed |= self.record.raise(match needs {
                    AgentNeeds::Permission => Attention::PermissionRequired,
                    _ => Attention::InputRequired,
                });
            }
            ScreenState::Working => {
                self.aware.turn = true;
                changed |= self.record.set_lifecycle(Lifecycle::Working);
            }
            ScreenState::Idle => {
                let ended = std::mem::take(&mut self.aware.turn);
                let unseen = self.subscribers.is_empty();
                // Done stays done until someone looks (`seen`).
                let next = if (ended && unseen) || self.record.lifecycle == Lifecycle::Done {
                    Lifecycle::Done
                } else {
                    Lifecycle::Idle
                };
                changed |= self.record.set_lifecycle(next);
                if ended {
                    if unseen {
                        changed |= self.record.raise(Attention::Unread);
                    }
                    // A new conversation may have started with the turn.
                    self.aware.discovery_tries = 0;
                    self.discover(myself);
                }
            }
        }
        // The prompt is gone: whoever answered it has engaged.
        if was_blocked
            && !matches!(state, ScreenState::Blocked(_))
            && matches!(
                self.record.attention,
                Attention::InputRequired | Attention::PermissionRequired
            )
        {
            self.record.attention = Attention::None;
            self.record.attention_at = crate::now_millis();
            changed = true;
        }
        self.aware.screen_set = true;
        if changed {
            debug!(state = state.as_str(), "lifecycle from the screen");
            self.publish();
        }
    }

    /// A hook spoke: from now on it is authoritative for what it reports.
    pub(super) fn hook_spoke(&mut self) {
        self.aware.hooked = true;
        self.aware.screen_set = false;
    }

    /// A new process in the pane: forget what was learned of the last one.
    pub(super) fn forget_process(&mut self) {
        self.aware = Awareness {
            session_file: self.aware.session_file.take(),
            ..Awareness::default()
        };
    }

    pub(super) fn explain(&mut self) -> Explained {
        let kind = self.current_kind();
        let book = rule_book();
        let rules = match book.rules(kind).map(|r| r.source().clone()) {
            Some(adapters::RulesSource::Override(path)) => path,
            Some(adapters::RulesSource::Bundled) => format!("bundled {kind} rules"),
            None => "none (not an agent)".to_string(),
        };
        let verdict = book.rules(kind).map_or(
            Verdict {
                state: None,
                rule: None,
                evidence: Vec::new(),
            },
            |rules| rules.evaluate(&self.screen.screen_text(Style::Plain), self.screen.title()),
        );
        Explained {
            kind,
            foreground: self
                .aware
                .facts
                .as_ref()
                .map(|f| super::without_secrets(&f.argv)),
            verdict,
            rules,
            session_file: self.aware.session_file.clone(),
            waiting: self.waiters.count(),
        }
    }
}

/// `ctl explain --file`: a saved screen read with `kind`'s rules.
pub fn explain_screen(kind: AgentKind, screen: &str, title: &str) -> Option<(Verdict, String)> {
    let book = rule_book();
    let rules = book.rules(kind)?;
    let source = match rules.source() {
        adapters::RulesSource::Override(path) => path.clone(),
        adapters::RulesSource::Bundled => format!("bundled {kind} rules"),
    };
    Some((rules.evaluate(screen, title), source))
}
