//! A blocked agent's dialog as buttons: its numbered choices, read off
//! the screen, and the keys that pick one.
//!
//! Every agent CLI signaltty knows draws its dialogs (permission, trust,
//! sign-in) as a list of numbered lines, one of them marked as selected:
//! Claude Code with `❯ 1. Yes`, Codex with `› 1. Trust and continue`,
//! Gemini with `│ ● 1. Trust folder │` (see adapters/tests/screens). The
//! list is read from the bottom of the screen, where the dialog is; a
//! choice is made the way a person makes it, moving the selection with
//! the arrows and pressing Enter, which every one of these lists takes.
//! A numbered list with no line marked is no dialog (Gemini's tips are
//! one).

use serde::{Deserialize, Serialize};

/// The most choices a dialog shows as buttons.
pub const MAX_CHOICES: usize = 9;
/// The longest label kept, in characters.
const MAX_LABEL_CHARS: usize = 120;
/// Lines of a choice's label that may wrap below it.
const MAX_WRAPPED_LINES: usize = 2;
/// What marks the selected line.
const MARKS: &[char] = &['❯', '›', '>', '●', '▶', '→', '*'];
/// What frames a dialog's lines, at either end.
const BORDERS: &[char] = &['│', '┃', '║', '|'];

/// One choice of a dialog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choice {
    /// Its number on the screen, from 1.
    pub number: u8,
    pub label: String,
}

/// The dialog at the bottom of a screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dialog {
    pub choices: Vec<Choice>,
    /// The number of the choice the selection is on.
    pub selected: u8,
}

impl Dialog {
    /// The last list of numbered lines on `screen`, numbered 1, 2, … in
    /// turn, one of them marked: at least two of them, or none.
    pub fn read(screen: &str) -> Option<Dialog> {
        let mut found = None;
        let mut current: Option<List> = None;
        let mut since_choice = 0;
        for line in screen.lines() {
            let next = current.as_ref().map_or(1, |list| list.choices.len() + 1);
            match numbered(line) {
                Some((number, marked, label)) if usize::from(number) == next => {
                    current
                        .get_or_insert_with(List::default)
                        .push(number, marked, label);
                    since_choice = 0;
                }
                Some((1, marked, label)) => {
                    keep_if_list(&mut found, current.take());
                    current
                        .get_or_insert_with(List::default)
                        .push(1, marked, label);
                    since_choice = 0;
                }
                _ => {
                    since_choice += 1;
                    if since_choice > MAX_WRAPPED_LINES && !line.trim().is_empty() {
                        keep_if_list(&mut found, current.take());
                    }
                }
            }
            if current
                .as_ref()
                .is_some_and(|list| list.choices.len() >= MAX_CHOICES)
            {
                keep_if_list(&mut found, current.take());
            }
        }
        keep_if_list(&mut found, current);
        let list = found?;
        Some(Dialog {
            choices: list.choices,
            selected: list.selected?,
        })
    }

    /// The choice numbered `number`, if the dialog has it.
    pub fn choice(&self, number: u8) -> Option<&Choice> {
        self.choices.iter().find(|c| c.number == number)
    }

    /// The keys (as `pane.send_keys` names them) that pick `number`: the
    /// arrows from the selection to it, then Enter.
    pub fn keys_for(&self, number: u8) -> Vec<String> {
        let selected = self.selected;
        let (arrow, steps) = if number >= selected {
            ("down", number - selected)
        } else {
            ("up", selected - number)
        };
        let mut keys = vec![arrow.to_string(); usize::from(steps)];
        keys.push("enter".to_string());
        keys
    }
}

/// Numbered lines in turn, as they are read.
#[derive(Default)]
struct List {
    choices: Vec<Choice>,
    selected: Option<u8>,
}

impl List {
    fn push(&mut self, number: u8, marked: bool, label: String) {
        if marked {
            self.selected = Some(number);
        }
        self.choices.push(Choice { number, label });
    }
}

/// Keeps `candidate` as the last list found, if it is one.
fn keep_if_list(found: &mut Option<List>, candidate: Option<List>) {
    if let Some(list) = candidate.filter(|list| list.choices.len() >= 2) {
        *found = Some(list);
    }
}

/// A line `[mark] N. label` (or `N)`), inside a dialog's borders: its
/// number, whether it is marked, and its label.
fn numbered(line: &str) -> Option<(u8, bool, String)> {
    let inner = line
        .trim()
        .trim_start_matches(BORDERS)
        .trim_end_matches(BORDERS)
        .trim();
    let (marked, rest) = match inner.strip_prefix(MARKS) {
        Some(rest) => (true, rest.trim_start()),
        None => (false, inner),
    };
    let digits = rest.find(|c: char| !c.is_ascii_digit())?;
    let number: u8 = rest[..digits].parse().ok().filter(|n| *n >= 1)?;
    let after = rest[digits..]
        .strip_prefix(['.', ')'])?
        .strip_prefix(char::is_whitespace)?;
    let label: String = after.trim().chars().take(MAX_LABEL_CHARS).collect();
    (!label.is_empty()).then_some((number, marked, label))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(name: &str) -> String {
        let path = format!(
            "{}/../adapters/tests/screens/{name}.txt",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    fn labels(dialog: &Dialog) -> Vec<&str> {
        dialog.choices.iter().map(|c| c.label.as_str()).collect()
    }

    #[test]
    fn claude_codes_permission_dialog_gives_its_three_choices() {
        let dialog = Dialog::read(&capture("claude-permission")).expect("a dialog");
        assert_eq!(
            labels(&dialog),
            [
                "Yes",
                "Yes, and always allow access to proj/ from this project",
                "No"
            ]
        );
        assert_eq!(dialog.selected, 1);
        assert_eq!(dialog.keys_for(1), ["enter"]);
        assert_eq!(dialog.keys_for(3), ["down", "down", "enter"]);
    }

    #[test]
    fn codex_and_gemini_dialogs_are_read_inside_their_marks_and_borders() {
        let codex = Dialog::read(&capture("codex-trust")).expect("codex");
        assert_eq!(
            labels(&codex),
            ["Trust and continue", "Back to Agent Command Center"]
        );
        assert_eq!(codex.selected, 1);
        let gemini = Dialog::read(&capture("gemini-trust")).expect("gemini");
        assert_eq!(
            labels(&gemini),
            [
                "Trust folder (proj3)",
                "Trust parent folder (agents)",
                "Don't trust"
            ]
        );
        assert_eq!(gemini.keys_for(2), ["down", "enter"]);
    }

    #[test]
    fn an_idle_screen_has_no_dialog() {
        for name in ["claude-idle", "codex-idle", "gemini-idle", "claude-working"] {
            assert_eq!(Dialog::read(&capture(name)), None, "{name}");
        }
    }

    #[test]
    fn only_the_last_list_counts_and_numbers_must_follow_on() {
        let screen =
            "> 1. old\n2. list\nsome talk\nmore talk\nand more\n  1. new\n  2. one\n› 3. here\n";
        let dialog = Dialog::read(screen).expect("a dialog");
        assert_eq!(labels(&dialog), ["new", "one", "here"]);
        assert_eq!(dialog.selected, 3);
        assert_eq!(dialog.keys_for(1), ["up", "up", "enter"]);
        assert_eq!(
            Dialog::read("1. no\n2. mark\n"),
            None,
            "a list, not a dialog"
        );
        assert_eq!(Dialog::read("❯ 1. alone\n"), None);
        assert_eq!(Dialog::read("❯ 1. a\n3. skips\n"), None);
        assert_eq!(Dialog::read("2024. a year\n1.5 a number\n"), None);
    }

    #[test]
    fn a_wrapped_label_does_not_end_the_list_and_a_label_is_bounded() {
        let long = "x".repeat(500);
        let screen = format!("❯ 1. Yes\n   because\n 2. {long}\n");
        let dialog = Dialog::read(&screen).expect("a dialog");
        assert_eq!(dialog.choices.len(), 2);
        assert_eq!(dialog.choices[1].label.chars().count(), MAX_LABEL_CHARS);
        let many: String = (1..=30).map(|n| format!("> {n}. c{n}\n")).collect();
        assert!(Dialog::read(&many).is_some_and(|d| d.choices.len() <= MAX_CHOICES));
    }
}
