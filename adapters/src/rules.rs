//! What an agent is doing, read from its screen: per-kind rules as data.
//!
//! Each kind's rules are the `[screen]` table of its data file
//! (`adapters/agents/<kind>.toml`) bundled into the binary, which a user may
//! replace with `<config dir>/agents/<kind>.toml` holding the same keys at
//! its top level. A rule names a state (`working`, `blocked` with what it
//! needs, or `idle`) and the regular expressions that show it: against the
//! rows at the bottom of the screen (`screen`: any pattern on any row;
//! `all`: every pattern on some row; `last`: any pattern on the last row
//! that is not blank, where a prompt waiting for an answer sits) and against
//! the terminal title (`title`: any pattern). When several rules match, blocked beats working
//! beats idle — a visible prompt beats a busy spinner — and within one state
//! the first rule in the file wins. One kind's rules never apply to another.
//!
//! Whether a screen that reads idle is really idle (it must have been still
//! for a moment), and what a turn that ended means, is the pane's business:
//! this module only reads one screen.

use std::collections::HashMap;
use std::path::Path;

use regex::{Regex, RegexBuilder};
use serde::Deserialize;

use crate::hooks::{AgentActivity, AgentNeeds};
use crate::kind::AgentKind;
use crate::kind::Spec;

/// The most rows a rule file may ask to look at.
pub const MAX_ROWS: usize = 200;
/// The most rules one file may hold, and patterns one rule may hold.
pub const MAX_RULES: usize = 64;
pub const MAX_PATTERNS: usize = 32;
/// The largest compiled pattern (a hostile file cannot eat memory).
const REGEX_SIZE_LIMIT: usize = 1 << 20;
/// The largest rule file read from the config dir.
pub const MAX_RULE_FILE: u64 = 256 * 1024;
/// How many evidence lines a verdict keeps, each at most this many chars.
const MAX_EVIDENCE: usize = 8;
const MAX_EVIDENCE_CHARS: usize = 300;

/// A rule file as written (or a data file's `[screen]` table).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RuleFile {
    #[serde(default)]
    #[allow(dead_code)] // for people: which CLI version the patterns fit
    checked_against: Option<String>,
    #[serde(default = "default_rows")]
    rows: usize,
    #[serde(default, rename = "rule")]
    rules: Vec<RuleText>,
}

fn default_rows() -> usize {
    24
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleText {
    name: String,
    state: StateText,
    #[serde(default)]
    needs: Option<NeedsText>,
    #[serde(default)]
    screen: Vec<String>,
    #[serde(default)]
    all: Vec<String>,
    #[serde(default)]
    last: Vec<String>,
    #[serde(default)]
    title: Vec<String>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum StateText {
    Working,
    Blocked,
    Idle,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum NeedsText {
    Input,
    Permission,
}

/// What one screen shows: a state with what it needs, or nothing known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScreenState {
    Working,
    /// A question, permission or trust prompt is visible.
    Blocked(AgentNeeds),
    Idle,
}

impl ScreenState {
    /// Blocked beats working beats idle.
    fn rank(self) -> u8 {
        match self {
            ScreenState::Blocked(_) => 3,
            ScreenState::Working => 2,
            ScreenState::Idle => 1,
        }
    }

    /// The same state as a hook would report it.
    pub fn activity(self) -> AgentActivity {
        match self {
            ScreenState::Working => AgentActivity::Working,
            ScreenState::Blocked(_) => AgentActivity::Blocked,
            ScreenState::Idle => AgentActivity::Idle,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ScreenState::Working => "working",
            ScreenState::Blocked(AgentNeeds::Permission) => "blocked (permission)",
            ScreenState::Blocked(_) => "blocked (input)",
            ScreenState::Idle => "idle",
        }
    }
}

#[derive(Debug, Clone)]
struct Rule {
    name: String,
    state: ScreenState,
    screen: Vec<Regex>,
    all: Vec<Regex>,
    last: Vec<Regex>,
    title: Vec<Regex>,
}

/// Where a kind's rules came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RulesSource {
    Bundled,
    /// A file in the config dir, by path.
    Override(String),
}

/// One kind's compiled rules.
#[derive(Debug, Clone)]
pub struct Rules {
    rows: usize,
    rules: Vec<Rule>,
    source: RulesSource,
}

/// What the rules say about one screen, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// `None`: no rule matched; the state is unknown.
    pub state: Option<ScreenState>,
    /// The rule that decided it.
    pub rule: Option<String>,
    /// The rows (and the title, prefixed `title: `) that matched it.
    pub evidence: Vec<String>,
}

impl Rules {
    /// Compiles a rule file; the error says what is wrong with it.
    pub fn parse(text: &str, source: RulesSource) -> Result<Rules, String> {
        let file: RuleFile = toml::from_str(text).map_err(|e| e.message().to_string())?;
        Rules::compile(file, source)
    }

    /// Compiles rules already read from TOML.
    pub(crate) fn compile(file: RuleFile, source: RulesSource) -> Result<Rules, String> {
        if !(1..=MAX_ROWS).contains(&file.rows) {
            return Err(format!("rows must be 1 to {MAX_ROWS}, not {}", file.rows));
        }
        if file.rules.len() > MAX_RULES {
            return Err(format!(
                "at most {MAX_RULES} rules, not {}",
                file.rules.len()
            ));
        }
        let rules = file
            .rules
            .into_iter()
            .map(compile_rule)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Rules {
            rows: file.rows,
            rules,
            source,
        })
    }

    /// How many rows at the bottom of the screen the rules look at.
    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn source(&self) -> &RulesSource {
        &self.source
    }

    /// Reads `screen` (the visible screen as text, one row per line) and
    /// `title`, and says why. Only the last [`Rules::rows`] rows count,
    /// after trailing blank rows are left out.
    pub fn evaluate(&self, screen: &str, title: &str) -> Verdict {
        let rows = bottom_rows(screen, self.rows);
        match self.decide(&rows, title) {
            Some(rule) => Verdict {
                state: Some(rule.state),
                rule: Some(rule.name.clone()),
                evidence: rule.evidence(&rows, title),
            },
            None => Verdict {
                state: None,
                rule: None,
                evidence: Vec::new(),
            },
        }
    }

    /// What [`Rules::evaluate`] decides, without gathering the evidence:
    /// the pane reads its screen this way several times a second.
    pub fn state(&self, screen: &str, title: &str) -> Option<ScreenState> {
        self.decide(&bottom_rows(screen, self.rows), title)
            .map(|rule| rule.state)
    }

    /// The rule that decides: the first that holds of the highest state.
    fn decide(&self, rows: &[&str], title: &str) -> Option<&Rule> {
        let mut best: Option<&Rule> = None;
        for rule in &self.rules {
            if best.is_some_and(|b| b.state.rank() >= rule.state.rank()) {
                continue;
            }
            if rule.holds(rows, title) {
                best = Some(rule);
            }
        }
        best
    }
}

impl Rule {
    fn on_screen(&self, row: &str) -> bool {
        self.screen.iter().any(|p| p.is_match(row))
    }

    fn on_last(&self, row: &str) -> bool {
        self.last.iter().any(|p| p.is_match(row))
    }

    fn holds(&self, rows: &[&str], title: &str) -> bool {
        (self.screen.is_empty() || rows.iter().any(|row| self.on_screen(row)))
            && self
                .all
                .iter()
                .all(|p| rows.iter().any(|row| p.is_match(row)))
            && (self.last.is_empty() || rows.last().is_some_and(|row| self.on_last(row)))
            && (self.title.is_empty() || self.title.iter().any(|p| p.is_match(title)))
    }

    /// The rows (and the title) that show this rule holds.
    fn evidence(&self, rows: &[&str], title: &str) -> Vec<String> {
        let mut evidence: Vec<String> = rows
            .iter()
            .filter(|row| self.on_screen(row))
            .map(|row| shorten(row))
            .collect();
        for pattern in &self.all {
            if let Some(row) = rows
                .iter()
                .find(|row| pattern.is_match(row))
                .map(|r| shorten(r))
                && !evidence.contains(&row)
            {
                evidence.push(row);
            }
        }
        if let Some(row) = rows
            .last()
            .filter(|row| self.on_last(row))
            .map(|r| shorten(r))
            && !evidence.contains(&row)
        {
            evidence.push(row);
        }
        if !self.title.is_empty() {
            evidence.push(format!("title: {}", shorten(title)));
        }
        evidence.truncate(MAX_EVIDENCE);
        evidence
    }
}

fn shorten(row: &str) -> String {
    row.trim_end().chars().take(MAX_EVIDENCE_CHARS).collect()
}

/// The last `count` rows of `screen`, trailing blank rows left out.
fn bottom_rows(screen: &str, count: usize) -> Vec<&str> {
    let mut rows: Vec<&str> = screen.lines().collect();
    while rows.last().is_some_and(|r| r.trim().is_empty()) {
        rows.pop();
    }
    let start = rows.len().saturating_sub(count);
    rows.split_off(start)
}

fn compile_rule(text: RuleText) -> Result<Rule, String> {
    let at = |what: &str| format!("rule {:?}: {what}", text.name);
    let state = match (text.state, text.needs) {
        (StateText::Blocked, Some(NeedsText::Permission)) => {
            ScreenState::Blocked(AgentNeeds::Permission)
        }
        (StateText::Blocked, Some(NeedsText::Input) | None) => {
            ScreenState::Blocked(AgentNeeds::Input)
        }
        (StateText::Working, None) => ScreenState::Working,
        (StateText::Idle, None) => ScreenState::Idle,
        (_, Some(_)) => return Err(at("`needs` belongs only to blocked rules")),
    };
    if text.screen.is_empty()
        && text.all.is_empty()
        && text.last.is_empty()
        && text.title.is_empty()
    {
        return Err(at("needs at least one of screen, all, last, title"));
    }
    let compile = |patterns: &[String]| -> Result<Vec<Regex>, String> {
        if patterns.len() > MAX_PATTERNS {
            return Err(at(&format!("at most {MAX_PATTERNS} patterns per list")));
        }
        patterns
            .iter()
            .map(|p| {
                RegexBuilder::new(p)
                    .size_limit(REGEX_SIZE_LIMIT)
                    .build()
                    .map_err(|e| at(&format!("pattern {p:?}: {e}")))
            })
            .collect()
    };
    Ok(Rule {
        state,
        screen: compile(&text.screen)?,
        all: compile(&text.all)?,
        last: compile(&text.last)?,
        title: compile(&text.title)?,
        name: text.name,
    })
}

/// Every kind's rules: the bundled ones, or the user's where they gave
/// a file that compiles.
#[derive(Debug)]
pub struct RuleBook {
    kinds: HashMap<AgentKind, Rules>,
}

impl RuleBook {
    /// Only the rules bundled in the binary.
    pub fn bundled() -> RuleBook {
        let kinds = AgentKind::ALL
            .into_iter()
            .filter_map(|kind| Some((kind, kind.spec().screen.clone()?)))
            .collect();
        RuleBook { kinds }
    }

    /// The bundled rules, each replaced by `<dir>/<kind>.toml` where that
    /// file exists. A file that cannot be read or does not compile is
    /// ignored; the returned warnings name it and say what is wrong, and
    /// name any bundled data file that failed its checks (which the tests
    /// make sure never ships).
    pub fn with_overrides(dir: &Path) -> (RuleBook, Vec<String>) {
        let mut book = RuleBook::bundled();
        let mut warnings: Vec<String> = crate::data::load_errors().to_vec();
        for kind in AgentKind::ALL {
            if kind.spec().screen.is_none() {
                continue;
            }
            let path = dir.join(format!("{}.toml", kind.as_str()));
            let text = match crate::files::read_bounded(&path, MAX_RULE_FILE) {
                Ok(Some(text)) => text,
                Ok(None) => continue,
                Err(e) => {
                    warnings.push(format!(
                        "agent rules {} ignored (the bundled ones are used): {e}",
                        path.display()
                    ));
                    continue;
                }
            };
            match Rules::parse(&text, RulesSource::Override(path.display().to_string())) {
                Ok(rules) => {
                    book.kinds.insert(kind, rules);
                }
                Err(e) => warnings.push(format!(
                    "agent rules {} ignored (the bundled ones are used): {e}",
                    path.display()
                )),
            }
        }
        (book, warnings)
    }

    /// `kind`'s rules; `None` for kinds without any (generic).
    pub fn rules(&self, kind: AgentKind) -> Option<&Rules> {
        self.kinds.get(&kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_agent_has_bundled_rules_and_generic_has_none() {
        let book = RuleBook::bundled();
        for kind in AgentKind::ALL {
            let has = book.rules(kind).is_some();
            assert_eq!(has, kind != AgentKind::Generic, "{kind}");
        }
    }

    #[test]
    fn a_prompt_beats_a_spinner_and_the_first_rule_of_a_state_wins() {
        let rules = Rules::parse(
            r#"
            [[rule]]
            name = "busy"
            state = "working"
            screen = ["esc to interrupt"]
            [[rule]]
            name = "ask"
            state = "blocked"
            needs = "permission"
            screen = ["Proceed\\?"]
            [[rule]]
            name = "ask again"
            state = "blocked"
            screen = ["Proceed"]
            "#,
            RulesSource::Bundled,
        )
        .unwrap();
        let verdict = rules.evaluate("⠋ thinking (esc to interrupt)\nProceed?\n\n\n", "");
        assert_eq!(
            verdict.state,
            Some(ScreenState::Blocked(AgentNeeds::Permission))
        );
        assert_eq!(verdict.rule.as_deref(), Some("ask"));
        assert_eq!(verdict.evidence, vec!["Proceed?".to_string()]);
        assert_eq!(rules.evaluate("nothing here", "").state, None);
    }

    #[test]
    fn only_the_bottom_rows_count() {
        let rules = Rules::parse(
            "rows = 2\n[[rule]]\nname = \"x\"\nstate = \"idle\"\nscreen = [\"^> \"]\n",
            RulesSource::Bundled,
        )
        .unwrap();
        assert!(rules.evaluate("> old\na\nb\n\n", "").state.is_none());
        assert!(rules.evaluate("a\n> new\nb\n\n\n", "").state.is_some());
    }

    #[test]
    fn a_last_pattern_reads_only_the_last_row_that_is_not_blank() {
        let rules = Rules::parse(
            "[[rule]]\nname = \"q\"\nstate = \"blocked\"\nlast = ['\\[Yes\\]: ?$']\n",
            RulesSource::Bundled,
        )
        .unwrap();
        let asking = "Add it? (Y)es/(N)o [Yes]: \n\n\n";
        let verdict = rules.evaluate(asking, "");
        assert!(verdict.state.is_some());
        assert_eq!(
            verdict.evidence,
            vec!["Add it? (Y)es/(N)o [Yes]:".to_string()]
        );
        // Answered: the question is still on screen, but not last.
        assert!(
            rules
                .evaluate("Add it? (Y)es/(N)o [Yes]:\n> \n", "")
                .state
                .is_none()
        );
    }

    #[test]
    fn broken_files_say_what_is_wrong() {
        for (text, needle) in [
            ("rows = 0", "rows"),
            ("[[rule]]\nname = \"a\"\nstate = \"idle\"\n", "at least one"),
            (
                "[[rule]]\nname = \"a\"\nstate = \"idle\"\nscreen = [\"(\"]\n",
                "pattern",
            ),
            (
                "[[rule]]\nname = \"a\"\nstate = \"idle\"\nneeds = \"input\"\nscreen = [\"x\"]\n",
                "needs",
            ),
            ("[[rule]]\nname = \"a\"\nstate = \"sleeping\"\n", "sleeping"),
            ("bogus = 1", "bogus"),
        ] {
            let err = Rules::parse(text, RulesSource::Bundled).unwrap_err();
            assert!(err.contains(needle), "{text:?}: {err}");
        }
    }
}
