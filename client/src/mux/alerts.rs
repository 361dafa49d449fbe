//! Alerts: telling the user, through their own terminal or desktop, that a
//! pane they are not looking at needs them.
//!
//! One job: from the listing before and after a change and the focused
//! pane, decide which panes alert (by the rule the web app shares,
//! [`crate::alert_rule`]), then word them for the outer terminal (BEL,
//! OSC 9, OSC 777) or the desktop (`notify-send`). A pane alerts when its
//! lifecycle *enters* blocked, done or failed — never for new lines, never
//! for the focused pane, and at most once per
//! [`PANE_INTERVAL`](crate::alert_rule::PANE_INTERVAL), so an
//! agent flapping between working and blocked rings once. A program's own
//! BEL is passed on at most once per [`BELL_INTERVAL`].
//!
//! Nothing here blocks the event loop: `notify-send` runs detached, is
//! reaped (and killed after [`DESKTOP_TIMEOUT`]) on a thread of its own,
//! with at most [`DESKTOP_AT_ONCE`] running.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

pub use crate::alert_rule::Alert;
use crate::alert_rule::AlertRule;

use super::Mux;
use super::keys::Action;
use super::view::View;

/// The least time between two program bells passed to the terminal.
pub const BELL_INTERVAL: Duration = Duration::from_secs(1);
/// How long `notify-send` may run before it is killed.
const DESKTOP_TIMEOUT: Duration = Duration::from_secs(10);
/// How many `notify-send`s may run at once; more are dropped.
const DESKTOP_AT_ONCE: usize = 4;

/// A way to alert, as `[alerts] via` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// BEL to the outer terminal.
    Bell,
    /// OSC 9 (iTerm2, WezTerm, Windows Terminal, ghostty, kitty).
    Osc,
    /// OSC 777 (foot, rxvt-unicode, WezTerm, ghostty).
    Osc777,
    /// `notify-send`, where it is on PATH.
    Desktop,
}

const VIA_NAMES: [(&str, Via); 4] = [
    ("bell", Via::Bell),
    ("osc", Via::Osc),
    ("osc777", Via::Osc777),
    ("desktop", Via::Desktop),
];

impl Via {
    /// Parses one `via` word; the error names it and the allowed ones.
    pub fn parse(name: &str) -> Result<Via, String> {
        VIA_NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, via)| *via)
            .ok_or_else(|| {
                format!("{name:?} is not a way to alert; use bell, osc, osc777, desktop or off")
            })
    }
}

/// `[alerts]`: how lifecycle alerts reach the user, and whether programs'
/// bells do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlertsConfig {
    /// Empty: lifecycle alerts are off.
    pub via: Vec<Via>,
    pub program_bell: bool,
}

impl Default for AlertsConfig {
    /// The bell, as tmux users expect.
    fn default() -> AlertsConfig {
        AlertsConfig {
            via: vec![Via::Bell],
            program_bell: true,
        }
    }
}

impl AlertsConfig {
    /// `via` as the file gives it: `"off"`, one word or a list of them.
    pub fn parse_via(names: &[String]) -> Result<Vec<Via>, String> {
        if names.len() == 1 && names[0] == "off" {
            return Ok(Vec::new());
        }
        let mut via = Vec::new();
        for name in names {
            let one = Via::parse(name)?;
            if !via.contains(&one) {
                via.push(one);
            }
        }
        Ok(via)
    }
}

/// What alerts remember between listings.
#[derive(Debug, Default)]
pub struct Alerts {
    rule: AlertRule,
    /// The last alert, for the jump key.
    pub last: Option<Alert>,
    last_bell: Option<Instant>,
    desktop: Desktop,
}

impl Alerts {
    /// The panes of `after` whose lifecycle entered blocked, done or
    /// failed since `before` (see [`AlertRule::decide`]); the last is
    /// kept for the jump key.
    pub fn decide(
        &mut self,
        before: &View,
        after: &View,
        focused: Option<&str>,
        now: Instant,
    ) -> Vec<Alert> {
        let alerts = self.rule.decide(&before.ls, &after.ls, focused, now);
        if let Some(last) = alerts.last() {
            self.last = Some(last.clone());
        }
        alerts
    }

    /// Whether a program's bell at `now` goes to the terminal: one per
    /// [`BELL_INTERVAL`], the rest dropped.
    pub fn program_bell(&mut self, now: Instant) -> bool {
        if self
            .last_bell
            .is_some_and(|at| now.saturating_duration_since(at) < BELL_INTERVAL)
        {
            return false;
        }
        self.last_bell = Some(now);
        true
    }

    /// Shows `alerts` on the desktop; `Err` says why it could not.
    pub fn to_desktop(&self, alerts: &[Alert]) -> Result<(), String> {
        let program = find_on_path("notify-send")
            .ok_or("desktop alerts need notify-send on PATH (libnotify-bin)")?;
        for alert in alerts {
            self.desktop.show(&program, alert)?;
        }
        Ok(())
    }
}

/// What the terminal gets for `alerts`: one BEL for them all (a burst
/// rings once), an OSC 9 and/or OSC 777 for each.
pub fn terminal_bytes(alerts: &[Alert], via: &[Via]) -> Vec<u8> {
    let mut out = Vec::new();
    if alerts.is_empty() {
        return out;
    }
    if via.contains(&Via::Bell) {
        out.push(0x07);
    }
    for alert in alerts {
        let text = format!("{} ({})", alert.headline, alert.place);
        if via.contains(&Via::Osc) {
            // Never starting with a digit: `9;4;…` is ConEmu's progress bar.
            out.extend_from_slice(format!("\x1b]9;signaltty: {text}\x07").as_bytes());
        }
        if via.contains(&Via::Osc777) {
            out.extend_from_slice(format!("\x1b]777;notify;signaltty;{text}\x07").as_bytes());
        }
    }
    out
}

/// `notify-send` runs: how many are running now.
#[derive(Debug, Default)]
struct Desktop {
    running: Arc<AtomicUsize>,
}

impl Desktop {
    fn show(&self, program: &Path, alert: &Alert) -> Result<(), String> {
        if self.running.load(Ordering::Acquire) >= DESKTOP_AT_ONCE {
            // A desktop that does not answer must not pile up processes.
            return Ok(());
        }
        let body = match &alert.message {
            Some(message) => format!("{} · {message}", alert.place),
            None => alert.place.clone(),
        };
        let child = Command::new(program)
            .arg("--app-name=signaltty")
            .arg(not_an_option(&alert.headline))
            .arg(not_an_option(&body))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("could not run {}: {e}", program.display()))?;
        self.running.fetch_add(1, Ordering::AcqRel);
        let running = self.running.clone();
        let reaped = std::thread::Builder::new()
            .name("mux-notify".into())
            .spawn(move || {
                reap(child);
                running.fetch_sub(1, Ordering::AcqRel);
            });
        reaped
            .map(|_| ())
            .map_err(|e| format!("could not wait for notify-send: {e}"))
    }
}

/// Waits for `child`, killing it after [`DESKTOP_TIMEOUT`].
fn reap(mut child: std::process::Child) {
    let deadline = Instant::now() + DESKTOP_TIMEOUT;
    while Instant::now() < deadline {
        match child.try_wait() {
            Ok(Some(_)) | Err(_) => return,
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// A pane named `--urgency` must not pass for a flag.
fn not_an_option(text: &str) -> String {
    if text.starts_with('-') {
        format!(" {text}")
    } else {
        text.to_string()
    }
}

/// The first executable `name` in `$PATH`.
fn find_on_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|file| {
            file.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// The multiplexer's side: what a listing or a program's bell sets off,
/// and the jump key.
impl Mux {
    /// After a listing replaced `before`: alerts for the panes it shows
    /// needing the user, the way `[alerts] via` says.
    pub(super) fn alert_changes(&mut self, before: &View) {
        let focused = self.focused_pane();
        let alerts = self
            .alerts
            .decide(before, &self.view, focused.as_deref(), Instant::now());
        let via = self.config.alerts.via.clone();
        let Some(last) = alerts.last().filter(|_| !via.is_empty()) else {
            return;
        };
        let said = format!(
            "{} ({}) · {} goes there",
            last.headline,
            last.place,
            self.hint(Action::LastAlert)
        );
        self.write(&terminal_bytes(&alerts, &via));
        self.say(said);
        if via.contains(&Via::Desktop)
            && let Err(e) = self.alerts.to_desktop(&alerts)
        {
            self.complain(e);
        }
    }

    /// A program rang its bell in pane `id`, on screen: passed on, at most
    /// once per [`BELL_INTERVAL`], unless `program-bell = false`.
    pub(super) fn program_bell(&mut self, id: &str) {
        if self.config.alerts.program_bell
            && self.links.contains_key(id)
            && self.alerts.program_bell(Instant::now())
        {
            self.write(b"\x07");
        }
    }

    /// Focuses the pane of the last alert, in whichever workspace and tab
    /// it now is.
    pub(super) fn go_to_last_alert(&mut self) {
        let Some(last) = self.alerts.last.clone() else {
            return self.say("no alert yet");
        };
        if self.go_to_pane(&last.pane) {
            self.say(last.headline);
        } else {
            self.alerts.last = None;
            self.say("the pane of the last alert is gone");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alert_rule::{MAX_NAME, PANE_INTERVAL, word};
    use signaltty_protocol::{Lifecycle, LsPane, LsReply, LsTab, LsWorkspace};

    fn pane(id: &str, lifecycle: Lifecycle) -> LsPane {
        serde_json::from_value(serde_json::json!({
            "id": id, "name": format!("agent-{id}"), "title": "", "cwd": "/",
            "argv": [], "state": "LIVE", "agent": null, "lifecycle": lifecycle,
            "attention": "none", "exit_code": null,
        }))
        .expect("a pane")
    }

    /// One workspace `api`, one tab `agents`, these panes.
    fn view(panes: Vec<LsPane>) -> View {
        let tab: LsTab = serde_json::from_value(serde_json::json!({
            "id": "t1", "title": "agents", "layout": {"type": "pane", "pane_id": "p1"}, "panes": [],
            "active_pane": "p1",
        }))
        .expect("a tab");
        let ws: LsWorkspace = serde_json::from_value(serde_json::json!({
            "id": "w1", "name": "api", "cwd": "/", "auto_resume": false, "attention": "none",
            "tabs": [], "active_tab": "t1",
        }))
        .expect("a workspace");
        let mut ls = LsReply::default();
        ls.workspaces.push(LsWorkspace {
            tabs: vec![LsTab { panes, ..tab }],
            ..ws
        });
        View {
            ls,
            needs_you: None,
        }
    }

    fn ids(alerts: &[Alert]) -> Vec<&str> {
        alerts.iter().map(|a| a.pane.as_str()).collect()
    }

    #[test]
    fn entering_blocked_done_or_failed_alerts_but_staying_there_does_not() {
        let mut alerts = Alerts::default();
        let now = Instant::now();
        let before = view(vec![
            pane("p2", Lifecycle::Working),
            pane("p3", Lifecycle::Working),
            pane("p4", Lifecycle::Working),
            pane("p5", Lifecycle::Blocked),
        ]);
        let after = view(vec![
            pane("p2", Lifecycle::Blocked),
            pane("p3", Lifecycle::Done),
            pane("p4", Lifecycle::Failed),
            pane("p5", Lifecycle::Blocked),
        ]);
        let got = alerts.decide(&before, &after, Some("p1"), now);
        assert_eq!(ids(&got), ["p2", "p3", "p4"]);
        assert_eq!(got[0].headline, "agent-p2 needs you");
        assert_eq!(got[1].headline, "agent-p3 is done");
        assert_eq!(got[2].place, "api › agents");
        assert_eq!(alerts.last.as_ref().map(|a| a.pane.as_str()), Some("p4"));
        let again = alerts.decide(&after, &after, None, now + PANE_INTERVAL * 2);
        assert!(again.is_empty(), "no change, no alert: {again:?}");
    }

    #[test]
    fn working_idle_and_new_panes_never_alert() {
        let mut alerts = Alerts::default();
        let before = view(vec![pane("p2", Lifecycle::Blocked)]);
        let after = view(vec![
            pane("p2", Lifecycle::Working),
            pane("p3", Lifecycle::Blocked),
        ]);
        assert!(
            alerts
                .decide(&before, &after, None, Instant::now())
                .is_empty()
        );
        let first = alerts.decide(&View::default(), &after, None, Instant::now());
        assert!(first.is_empty(), "the first listing is not news");
        assert_eq!(alerts.last, None);
    }

    #[test]
    fn the_focused_pane_never_alerts() {
        let mut alerts = Alerts::default();
        let before = view(vec![pane("p1", Lifecycle::Working)]);
        let after = view(vec![pane("p1", Lifecycle::Blocked)]);
        assert!(
            alerts
                .decide(&before, &after, Some("p1"), Instant::now())
                .is_empty()
        );
        assert_eq!(alerts.last, None);
    }

    #[test]
    fn a_flapping_pane_alerts_once_per_interval() {
        let mut alerts = Alerts::default();
        let working = view(vec![pane("p2", Lifecycle::Working)]);
        let blocked = view(vec![pane("p2", Lifecycle::Blocked)]);
        let t0 = Instant::now();
        assert_eq!(alerts.decide(&working, &blocked, None, t0).len(), 1);
        let soon = t0 + Duration::from_secs(1);
        assert!(alerts.decide(&blocked, &working, None, soon).is_empty());
        assert!(alerts.decide(&working, &blocked, None, soon).is_empty());
        let later = t0 + PANE_INTERVAL;
        assert_eq!(alerts.decide(&working, &blocked, None, later).len(), 1);
    }

    #[test]
    fn program_bells_pass_at_most_once_a_second() {
        let mut alerts = Alerts::default();
        let t0 = Instant::now();
        assert!(alerts.program_bell(t0));
        assert!(!alerts.program_bell(t0 + Duration::from_millis(300)));
        assert!(!alerts.program_bell(t0 + Duration::from_millis(999)));
        assert!(alerts.program_bell(t0 + BELL_INTERVAL));
    }

    #[test]
    fn the_terminal_gets_one_bell_for_a_burst_and_an_osc_for_each() {
        let alert = |pane: &str| Alert {
            pane: pane.into(),
            headline: format!("{pane} needs you"),
            place: "api › agents".into(),
            message: None,
        };
        let two = [alert("a"), alert("b")];
        assert_eq!(terminal_bytes(&two, &[Via::Bell]), b"\x07");
        assert_eq!(
            terminal_bytes(&two[..1], &[Via::Osc, Via::Osc777]),
            "\x1b]9;signaltty: a needs you (api › agents)\x07\
             \x1b]777;notify;signaltty;a needs you (api › agents)\x07"
                .as_bytes()
        );
        assert_eq!(
            terminal_bytes(&two, &[Via::Osc])
                .iter()
                .filter(|b| **b == 0x07)
                .count(),
            2
        );
        assert!(terminal_bytes(&two, &[]).is_empty(), "off");
        assert!(terminal_bytes(&[], &[Via::Bell]).is_empty());
    }

    #[test]
    fn what_a_program_named_its_pane_cannot_end_the_sequence_or_run_long() {
        let mut evil = pane("p2", Lifecycle::Blocked);
        evil.name = format!("x\x07\x1b]0;pwned\x07;y\u{9b}2J{}", "z".repeat(500));
        evil.last_message = Some("ok\x1b[31m; red\n".into());
        let alert = word("api", "agents", &evil);
        assert!(!alert.headline.chars().any(char::is_control), "{alert:?}");
        assert!(!alert.headline.contains(';'));
        assert!(alert.headline.chars().count() <= MAX_NAME + " needs you".len());
        assert_eq!(alert.message.as_deref(), Some("ok, red"));
        assert_eq!(not_an_option("--help"), " --help");
    }

    #[test]
    fn via_takes_known_words_or_off_and_names_a_bad_one() {
        let words = |w: &[&str]| {
            AlertsConfig::parse_via(&w.iter().map(|s| s.to_string()).collect::<Vec<_>>())
        };
        assert_eq!(words(&["off"]), Ok(vec![]));
        assert_eq!(words(&[]), Ok(vec![]));
        assert_eq!(
            words(&["bell", "osc", "bell", "desktop"]),
            Ok(vec![Via::Bell, Via::Osc, Via::Desktop])
        );
        let err = words(&["bell", "beep"]).unwrap_err();
        assert!(
            err.contains("\"beep\"") && err.contains("bell, osc, osc777, desktop or off"),
            "{err}"
        );
        assert!(words(&["off", "bell"]).is_err(), "off alone or not at all");
    }

    #[test]
    fn notify_send_is_found_only_where_it_is_executable() {
        assert_eq!(find_on_path("signaltty-surely-not-a-program"), None);
        assert!(find_on_path("sh").is_some());
    }
}
