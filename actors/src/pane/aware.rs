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
use signaltty_persistence::{Attention, Lifecycle};
use signaltty_screen::{Screen, Style};
use signaltty_types::{AgentRecord, PaneRecord};
use tracing::{debug, info};

use super::attention::Axes;
use super::freezer::PaneScreen;
use super::mailbox::Mailbox;
use super::pty::Pty;
use crate::procfs::{self, Foreground};

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

/// Whether `screen` reads as a state of `kind`, by its rules.
pub(super) fn shows_state(kind: AgentKind, screen: &Screen) -> bool {
    rule_book().rules(kind).is_some_and(|rules| {
        rules
            .state(&screen.screen_text(Style::Plain), screen.title())
            .is_some()
    })
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
    hooked: bool,
    /// A turn is running (the screen read working since it last read idle).
    turn: bool,
    discovery_tries: u32,
    /// Where the current session id came from, for `explain`.
    session_file: Option<String>,
}

/// What awareness sends itself: its timers and the reads it runs off the
/// actor.
pub(super) enum AwareEvent {
    /// Look at the foreground process and the screen.
    Inspect,
    /// What `/proc` said about the foreground process group `pgid`.
    Foreground {
        spawn: u64,
        pgid: i32,
        facts: Option<Foreground>,
    },
    /// What the agent's own files said about its session.
    Discovered {
        spawn: u64,
        kind: AgentKind,
        found: Option<adapters::Discovered>,
    },
    /// Time to look for the agent's session again.
    Rediscover,
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
    /// How keys reach its program, in one line (see `KeyTarget::describe`).
    pub keys: String,
    /// Whether it may hibernate now, and if not why (see `hibernate.rs`).
    pub sleep: String,
}

/// The parts of the pane a look at its screen reads and moves.
pub(super) struct Sight<'a> {
    pub(super) record: &'a mut PaneRecord,
    pub(super) screen: &'a mut PaneScreen,
    /// No client is attached: a turn that ends is news.
    pub(super) unwatched: bool,
    /// The process the look is about.
    pub(super) spawn: u64,
}

/// What the foreground process turned out to be, and what that changed.
pub(super) struct Found {
    pub(super) kind: AgentKind,
    /// An agent arrived (the record names it; its session is to be looked
    /// for).
    pub(super) arrived: bool,
    /// The agent that ran inside the shell left (the record says so).
    pub(super) left: bool,
    /// The foreground command's name changed.
    pub(super) command_changed: bool,
}

impl Awareness {
    /// After output: look at the pane soon, once.
    pub(super) fn inspect_soon(&mut self, events: &Mailbox<'_, AwareEvent>) {
        if !self.inspect_due {
            self.inspect_due = true;
            events.after(self.inspect_delay(), AwareEvent::Inspect);
        }
    }

    /// A screen that keeps changing but keeps reading the same is looked
    /// at less often; output after a quiet spell gets a quick look.
    fn inspect_delay(&self) -> Duration {
        let recent = self.last_look.is_some_and(|at| at.elapsed() < QUIET);
        if recent && self.steady >= STEADY_LOOKS {
            STEADY_DELAY
        } else {
            INSPECT_DELAY
        }
    }

    /// The kind whose rules apply now to the pane `record` describes.
    pub(super) fn kind(&self, record: &PaneRecord) -> AgentKind {
        if let Some((_, kind)) = self.foreground
            && kind != AgentKind::Generic
        {
            return kind;
        }
        match &record.agent {
            Some(agent) if !agent.ended => record.agent_kind(),
            _ => AgentKind::Generic,
        }
    }

    /// Time for a look: the foreground process of `process` (the pane's
    /// `spawn`) is read off the actor when it changed. False when no
    /// process runs, and there is no screen to read either.
    pub(super) fn inspect(
        &mut self,
        events: &Mailbox<'_, AwareEvent>,
        spawn: u64,
        process: Option<&dyn Pty>,
    ) -> bool {
        self.inspect_due = false;
        let Some(process) = process else {
            return false;
        };
        let pgid = process.foreground_pgid();
        if let Some(pgid) = pgid
            && Some(pgid) != self.foreground.map(|(p, _)| p)
            && !self.reading
        {
            self.reading = true;
            let events = events.keep();
            tokio::task::spawn_blocking(move || {
                let facts = procfs::foreground(pgid);
                events.send(AwareEvent::Foreground { spawn, pgid, facts });
            });
        }
        true
    }

    /// The foreground process group `pgid` was read: which agent it is.
    /// `unwatched`: no client is attached.
    pub(super) fn on_foreground(
        &mut self,
        pgid: i32,
        facts: Option<Foreground>,
        record: &mut PaneRecord,
        unwatched: bool,
    ) -> Found {
        self.reading = false;
        let kind = facts
            .as_ref()
            .map_or(AgentKind::Generic, |f| adapters::detect_process(&f.facts()));
        let before = self.kind(record);
        let command_before = self.command();
        self.foreground = Some((pgid, kind));
        self.facts = facts.map(Arc::new);
        let arrived = kind != AgentKind::Generic;
        let left = if arrived {
            self.agent_arrived(record, kind);
            false
        } else {
            self.agent_left(record, before, unwatched)
        };
        Found {
            kind,
            arrived,
            left,
            command_changed: self.command() != command_before,
        }
    }

    fn agent_arrived(&mut self, record: &mut PaneRecord, kind: AgentKind) {
        let agent = record.agent.get_or_insert_with(AgentRecord::default);
        if agent.kind != kind {
            info!(kind = kind.as_str(), "agent detected");
            *agent = AgentRecord::of(kind);
            self.session_file = None;
        }
        agent.ended = false;
        self.hooked = false;
        self.discovery_tries = 0;
    }

    /// The foreground is no agent: one that ran inside the pane's shell has
    /// ended, and the pane is a shell again (its session id kept). True
    /// when that changed the record.
    fn agent_left(&mut self, record: &mut PaneRecord, before: AgentKind, unwatched: bool) -> bool {
        let launched = adapters::detect(&record.argv);
        let Some(agent) = record.agent.as_mut() else {
            return false;
        };
        if before == AgentKind::Generic || launched == before || agent.ended {
            return false;
        }
        info!(kind = before.as_str(), "agent ended; the shell is back");
        agent.ended = true;
        self.turn = false;
        self.screen_set = false;
        record.set_lifecycle(Lifecycle::Unknown);
        if unwatched {
            record.raise(Attention::Unread);
        }
        true
    }

    /// Reads the session id from the agent's own files, off the actor.
    pub(super) fn discover(
        &self,
        events: &Mailbox<'_, AwareEvent>,
        record: &PaneRecord,
        spawn: u64,
    ) {
        let kind = self.kind(record);
        let Some(facts) = self.facts.clone() else {
            return;
        };
        if kind == AgentKind::Generic {
            return;
        }
        let mut process = facts.agent_process(&record.cwd);
        let events = events.keep();
        tokio::task::spawn_blocking(move || {
            process.children = procfs::children(process.pid);
            let found = adapters::discover_session(kind, &process);
            events.send(AwareEvent::Discovered { spawn, kind, found });
        });
    }

    /// What the `kind` agent's files said of its session; true when that
    /// changed `record`.
    pub(super) fn on_discovered(
        &mut self,
        events: &Mailbox<'_, AwareEvent>,
        record: &mut PaneRecord,
        kind: AgentKind,
        found: Option<adapters::Discovered>,
    ) -> bool {
        if kind != self.kind(record) {
            return false;
        }
        let Some(found) = found else {
            self.discovery_tries += 1;
            if self.discovery_tries < DISCOVERY_TRIES {
                events.after(DISCOVERY_RETRY, AwareEvent::Rediscover);
            }
            return false;
        };
        let agent = record.agent.get_or_insert_with(AgentRecord::default);
        self.session_file = Some(found.file.display().to_string());
        if agent.agent_session_id.as_deref() == Some(found.id.as_str()) {
            return false;
        }
        info!(kind = kind.as_str(), file = %found.file.display(), "session id discovered");
        agent.kind = kind.into();
        agent.agent_session_id = Some(found.id.as_str().to_string());
        true
    }

    /// Reads the screen against the current kind's rules and moves the
    /// lifecycle accordingly; true when the record changed.
    pub(super) fn read_screen(
        &mut self,
        events: &Mailbox<'_, AwareEvent>,
        mut sight: Sight<'_>,
    ) -> bool {
        let kind = self.kind(sight.record);
        let book = rule_book();
        let Some(rules) = book.rules(kind) else {
            return false;
        };
        let text = sight.screen.screen_text(Style::Plain);
        let title = sight.screen.title().to_string();
        let now = Instant::now();
        self.note_screen(&text, &title, now);
        let state = rules.state(&text, &title);
        self.note_state(state, now);
        let still_for = self.still_since.map_or(Duration::ZERO, |since| now - since);
        match state {
            Some(ScreenState::Idle) if still_for < STILL => {
                events.after(STILL - still_for, AwareEvent::Inspect);
                self.inspect_due = true;
                false
            }
            Some(state) => self.apply_screen(events, &mut sight, kind, state),
            None => false,
        }
    }

    /// The screen shows `text` under `title` at `now`: since when it has
    /// been still.
    fn note_screen(&mut self, text: &str, title: &str, now: Instant) {
        let mut hasher = DefaultHasher::new();
        (text, title).hash(&mut hasher);
        let hash = hasher.finish();
        if hash != self.screen_hash || self.still_since.is_none() {
            self.screen_hash = hash;
            self.still_since = Some(now);
        }
    }

    /// The screen read as `state` at `now`: how many looks in a row did.
    fn note_state(&mut self, state: Option<ScreenState>, now: Instant) {
        if state == self.last_state {
            self.steady = self.steady.saturating_add(1);
        } else {
            self.steady = 0;
        }
        self.last_state = state;
        self.last_look = Some(now);
    }

    /// Moves the lifecycle to what the screen reads as; true when the
    /// record changed.
    fn apply_screen(
        &mut self,
        events: &Mailbox<'_, AwareEvent>,
        sight: &mut Sight<'_>,
        kind: AgentKind,
        state: ScreenState,
    ) -> bool {
        let activity = state.activity();
        if self.hooked && hooks_report(kind, activity) && !self.screen_set {
            return false;
        }
        let record = &mut *sight.record;
        let was_blocked = record.lifecycle == Lifecycle::Blocked && self.screen_set;
        let mut changed = false;
        match state {
            ScreenState::Blocked(needs) => {
                changed |= record.set_lifecycle(Lifecycle::Blocked);
                changed |= record.raise(match needs {
                    AgentNeeds::Permission => Attention::PermissionRequired,
                    _ => Attention::InputRequired,
                });
            }
            ScreenState::Working => {
                let started = !std::mem::replace(&mut self.turn, true);
                let known = record
                    .agent
                    .as_ref()
                    .is_some_and(|agent| agent.agent_session_id.is_some());
                // Codex writes its session's file with the first prompt, and
                // offline its turn never ends: look as the turn starts.
                if started && !known {
                    self.discovery_tries = 0;
                    self.discover(events, record, sight.spawn);
                }
                changed |= record.set_lifecycle(Lifecycle::Working);
            }
            ScreenState::Idle => changed |= self.turn_over(events, sight),
        }
        let record = &mut *sight.record;
        // The prompt is gone: whoever answered it has engaged.
        if was_blocked
            && !matches!(state, ScreenState::Blocked(_))
            && matches!(
                record.attention,
                Attention::InputRequired | Attention::PermissionRequired
            )
        {
            record.attention = Attention::None;
            record.attention_at = crate::now_millis();
            changed = true;
        }
        self.screen_set = true;
        if changed {
            debug!(state = state.as_str(), "lifecycle from the screen");
        }
        changed
    }

    /// The screen reads idle: a turn that ran has ended, which is news
    /// to nobody attached, and may have started a new conversation. True
    /// when the record changed.
    fn turn_over(&mut self, events: &Mailbox<'_, AwareEvent>, sight: &mut Sight<'_>) -> bool {
        let ended = std::mem::take(&mut self.turn);
        let record = &mut *sight.record;
        // Done stays done until someone looks (`seen`).
        let next = if (ended && sight.unwatched) || record.lifecycle == Lifecycle::Done {
            Lifecycle::Done
        } else {
            Lifecycle::Idle
        };
        let mut changed = record.set_lifecycle(next);
        if ended {
            if sight.unwatched {
                changed |= record.raise(Attention::Unread);
            }
            // A new conversation may have started with the turn.
            self.discovery_tries = 0;
            self.discover(events, sight.record, sight.spawn);
        }
        changed
    }

    /// A hook spoke: from now on it is authoritative for what it reports.
    pub(super) fn hook_spoke(&mut self) {
        self.hooked = true;
        self.screen_set = false;
    }

    /// A new process in the pane: forget what was learned of the last one.
    pub(super) fn forget_process(&mut self) {
        *self = Awareness {
            session_file: self.session_file.take(),
            ..Awareness::default()
        };
    }

    /// `ctl explain` of the pane `record` and `screen` describe, on which
    /// `waiting` clients wait, whose program gets keys as `keys` says, and
    /// whose word on hibernation is `sleep`.
    pub(super) fn explain(
        &self,
        record: &PaneRecord,
        screen: &mut PaneScreen,
        waiting: usize,
        (keys, sleep): (String, String),
    ) -> Explained {
        let kind = self.kind(record);
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
            |rules| rules.evaluate(&screen.screen_text(Style::Plain), screen.title()),
        );
        Explained {
            kind,
            foreground: self
                .facts
                .as_ref()
                .map(|f| super::process::without_secrets(&f.argv)),
            verdict,
            rules,
            session_file: self.session_file.clone(),
            waiting,
            keys,
            sleep,
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
