//! Keys and what they do: the key values the input parser produces, which
//! of the key names `signaltty_screen` reads (the one vocabulary, shared
//! with `ctl send-keys`) the config file can bind, their names in the
//! help, and the bindings table (tmux's defaults, each one replaceable
//! under `[keys]`).

use std::collections::BTreeMap;
use std::fmt;

use signaltty_screen::{KeyPress, NamedKey};

use super::geometry::Towards;

/// One key press, as the multiplexer tells keys apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key {
    Char(char),
    /// Control plus a letter or one of `@ [ \ ] ^ _` (lower-case letters).
    Ctrl(char),
    /// Meta (Alt) plus a character.
    Alt(char),
    Up,
    Down,
    Left,
    Right,
    Home,
    End,
    PageUp,
    PageDown,
    Insert,
    Delete,
    Tab,
    BackTab,
    Enter,
    Backspace,
    Escape,
    F(u8),
    /// Meta (Alt) plus an arrow: `M-Left`.
    AltArrow(Towards),
    /// Control plus an arrow: `C-Left`.
    CtrlArrow(Towards),
    /// A sequence the multiplexer has no name for; it is still forwarded.
    Other,
}

impl Key {
    /// The key a single byte stands for (outside escape sequences).
    pub fn from_byte(byte: u8) -> Key {
        match byte {
            b'\t' => Key::Tab,
            b'\r' => Key::Enter,
            0x7f => Key::Backspace,
            0x1b => Key::Escape,
            0x00 => Key::Ctrl('@'),
            0x01..=0x1a => Key::Ctrl(char::from(b'a' + byte - 1)),
            0x1c..=0x1f => Key::Ctrl(char::from(byte + 0x40)),
            _ => Key::Char(char::from(byte)),
        }
    }

    /// Parses a key name with signaltty's one key vocabulary
    /// ([`KeyPress::parse`], as `ctl send-keys` reads it: `C-a`, `^A`,
    /// `ctrl+a`, `M-x`, `BTab`, `shift+tab`, `PageUp`, `ppage`, `F1`…),
    /// then keeps it if it is a key the multiplexer tells apart.
    pub fn parse(name: &str) -> Result<Key, KeyNameError> {
        let press = KeyPress::parse(name).map_err(|_| KeyNameError::Unknown(name.to_string()))?;
        Key::bindable(press).ok_or_else(|| match press.key {
            NamedKey::Char(_) | NamedKey::Space if press.ctrl && !press.alt && !press.shift => {
                KeyNameError::NotControl(name.to_string())
            }
            _ => KeyNameError::NotBindable(name.to_string()),
        })
    }

    /// The key a press is, as the input parser would tell it from a
    /// terminal's bytes; `None` for a press it has no key of its own for
    /// (Shift+Up, Ctrl+1), which a binding could never match.
    fn bindable(press: KeyPress) -> Option<Key> {
        let key = match press.key {
            NamedKey::Space => NamedKey::Char(' '),
            key => key,
        };
        match (key, press.shift, press.alt, press.ctrl) {
            (NamedKey::Char(c), false, false, false) => Some(Key::Char(c)),
            (NamedKey::Char(c), false, true, false) => Some(Key::Alt(c)),
            (NamedKey::Char(c), false, false, true) => control_key(c),
            (NamedKey::Tab, true, false, false) => Some(Key::BackTab),
            (key, false, true, false) => arrow(key).map(Key::AltArrow),
            (key, false, false, true) => arrow(key).map(Key::CtrlArrow),
            (key, false, false, false) => Some(unmodified(key)),
            _ => None,
        }
    }
}

fn arrow(key: NamedKey) -> Option<Towards> {
    match key {
        NamedKey::Up => Some(Towards::Up),
        NamedKey::Down => Some(Towards::Down),
        NamedKey::Left => Some(Towards::Left),
        NamedKey::Right => Some(Towards::Right),
        _ => None,
    }
}

/// A key pressed alone.
fn unmodified(key: NamedKey) -> Key {
    match key {
        NamedKey::Up => Key::Up,
        NamedKey::Down => Key::Down,
        NamedKey::Left => Key::Left,
        NamedKey::Right => Key::Right,
        NamedKey::Home => Key::Home,
        NamedKey::End => Key::End,
        NamedKey::PageUp => Key::PageUp,
        NamedKey::PageDown => Key::PageDown,
        NamedKey::Insert => Key::Insert,
        NamedKey::Delete => Key::Delete,
        NamedKey::Tab => Key::Tab,
        NamedKey::Enter => Key::Enter,
        NamedKey::Backspace => Key::Backspace,
        NamedKey::Escape => Key::Escape,
        NamedKey::F(n) => Key::F(n),
        NamedKey::Space => Key::Char(' '),
        NamedKey::Char(c) => Key::Char(c),
    }
}

/// Control with `c`, as [`Key::from_byte`] names the byte a terminal sends
/// for it: `C-i` is Tab, `C-m` Enter, `C-[` Escape, `C-Space` `C-@`;
/// `None` for a character Control makes no key of (`C-1`).
fn control_key(c: char) -> Option<Key> {
    match c.to_ascii_lowercase() {
        'i' => Some(Key::Tab),
        'm' => Some(Key::Enter),
        '[' => Some(Key::Escape),
        ' ' => Some(Key::Ctrl('@')),
        c @ ('a'..='z' | '@' | '\\' | ']' | '^' | '_') => Some(Key::Ctrl(c)),
        _ => None,
    }
}

/// A key name under `[keys]` that binds nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyNameError {
    #[error("{0:?} is not a key name; use {BINDABLE}")]
    Unknown(String),
    #[error("{0:?} is not a control key; use C- and a letter or one of @[\\]^_")]
    NotControl(String),
    #[error("{0:?} is a key the multiplexer does not tell apart; use {BINDABLE}")]
    NotBindable(String),
}

/// The keys a binding can name, for the errors.
const BINDABLE: &str = "a character, C-x, M-x, C-Left, M-Left, F1-F12 or one of Up Down Left Right Home End PageUp PageDown Insert Delete Tab BTab Enter Backspace Escape Space";

fn arrow_name(towards: Towards) -> &'static str {
    ARROWS
        .iter()
        .find(|(_, t)| *t == towards)
        .map_or("?", |(name, _)| name)
}

const ARROWS: [(&str, Towards); 4] = [
    ("Up", Towards::Up),
    ("Down", Towards::Down),
    ("Left", Towards::Left),
    ("Right", Towards::Right),
];

/// How the help and the hints print the named keys (each parses back).
const NAMED: [(&str, Key); 16] = [
    ("Up", Key::Up),
    ("Down", Key::Down),
    ("Left", Key::Left),
    ("Right", Key::Right),
    ("Home", Key::Home),
    ("End", Key::End),
    ("PageUp", Key::PageUp),
    ("PageDown", Key::PageDown),
    ("Insert", Key::Insert),
    ("Delete", Key::Delete),
    ("Tab", Key::Tab),
    ("BTab", Key::BackTab),
    ("Enter", Key::Enter),
    ("Backspace", Key::Backspace),
    ("Escape", Key::Escape),
    ("Space", Key::Char(' ')),
];

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Key::Char(' ') => f.write_str("Space"),
            Key::Char(c) => write!(f, "{c}"),
            Key::Ctrl(c) => write!(f, "C-{c}"),
            Key::Alt(c) => write!(f, "M-{c}"),
            Key::F(n) => write!(f, "F{n}"),
            Key::AltArrow(towards) => write!(f, "M-{}", arrow_name(*towards)),
            Key::CtrlArrow(towards) => write!(f, "C-{}", arrow_name(*towards)),
            Key::Other => f.write_str("?"),
            other => {
                let name = NAMED
                    .iter()
                    .find(|(_, key)| key == other)
                    .map_or("?", |(name, _)| name);
                f.write_str(name)
            }
        }
    }
}

/// How long a repeatable binding goes on taking its key without the
/// prefix (tmux's `repeat-time`).
pub const REPEAT_TIME: std::time::Duration = std::time::Duration::from_millis(500);

fn direction_word(towards: Towards) -> &'static str {
    match towards {
        Towards::Left => "left",
        Towards::Right => "right",
        Towards::Up => "up",
        Towards::Down => "down",
    }
}

/// What a binding does (after the prefix).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    SendPrefix,
    SplitRight,
    SplitDown,
    NewWorktree,
    FocusLeft,
    FocusDown,
    FocusUp,
    FocusRight,
    Zoom,
    /// Trade places with the previous (`false`) or next pane of the tab.
    Swap(bool),
    /// Move a border of the focused pane by this many cells (tmux
    /// resize-pane): repeatable without the prefix for a moment.
    Resize(Towards, u8),
    BreakPane,
    MoveToTab,
    Close,
    NewTab,
    NextTab,
    PrevTab,
    Tab(u8),
    Workspaces,
    RenamePane,
    RenameTab,
    RenameWorkspace,
    CopyMode,
    Revive,
    NextAttention,
    /// Go to the pane that raised the last alert (see `alerts`).
    LastAlert,
    Sidebar,
    Detach,
    Help,
}

impl Action {
    /// Every action, in the order the help lists them.
    pub fn all() -> impl Iterator<Item = Action> {
        [
            Action::SplitRight,
            Action::SplitDown,
            Action::NewWorktree,
            Action::FocusLeft,
            Action::FocusDown,
            Action::FocusUp,
            Action::FocusRight,
            Action::Zoom,
            Action::Swap(false),
            Action::Swap(true),
        ]
        .into_iter()
        .chain(
            [1, 5]
                .into_iter()
                .flat_map(|cells| ARROWS.map(|(_, towards)| Action::Resize(towards, cells))),
        )
        .chain([
            Action::BreakPane,
            Action::MoveToTab,
            Action::Close,
            Action::NewTab,
            Action::NextTab,
            Action::PrevTab,
        ])
        .chain((0..10).map(Action::Tab))
        .chain([
            Action::Workspaces,
            Action::RenamePane,
            Action::RenameTab,
            Action::RenameWorkspace,
            Action::CopyMode,
            Action::Revive,
            Action::NextAttention,
            Action::LastAlert,
            Action::Sidebar,
            Action::Detach,
            Action::Help,
            Action::SendPrefix,
        ])
    }

    /// The action's name under `[keys]`.
    pub fn name(self) -> String {
        match self {
            Action::Tab(n) => format!("tab-{n}"),
            Action::Resize(towards, 1) => format!("resize-{}", direction_word(towards)),
            Action::Resize(towards, cells) => {
                format!("resize-{}-{cells}", direction_word(towards))
            }
            other => other.fixed_name().to_string(),
        }
    }

    fn fixed_name(self) -> &'static str {
        match self {
            Action::SendPrefix => "send-prefix",
            Action::SplitRight => "split-right",
            Action::SplitDown => "split-down",
            Action::NewWorktree => "new-worktree",
            Action::FocusLeft => "focus-left",
            Action::FocusDown => "focus-down",
            Action::FocusUp => "focus-up",
            Action::FocusRight => "focus-right",
            Action::Zoom => "zoom",
            Action::Swap(false) => "swap-prev",
            Action::Swap(true) => "swap-next",
            Action::Resize(..) => "resize-DIRECTION",
            Action::BreakPane => "break-pane",
            Action::MoveToTab => "move-to-tab",
            Action::Close => "close",
            Action::NewTab => "new-tab",
            Action::NextTab => "next-tab",
            Action::PrevTab => "prev-tab",
            Action::Tab(_) => "tab-N",
            Action::Workspaces => "workspaces",
            Action::RenamePane => "rename-pane",
            Action::RenameTab => "rename-tab",
            Action::RenameWorkspace => "rename-workspace",
            Action::CopyMode => "copy-mode",
            Action::Revive => "revive",
            Action::NextAttention => "next-attention",
            Action::LastAlert => "last-alert",
            Action::Sidebar => "sidebar",
            Action::Detach => "detach",
            Action::Help => "help",
        }
    }

    /// What it does, for the help.
    pub fn describe(self) -> String {
        match self {
            Action::SendPrefix => "send the prefix key itself".into(),
            Action::SplitRight => "split right".into(),
            Action::SplitDown => "split down".into(),
            Action::NewWorktree => "split into a new git worktree (asks)".into(),
            Action::FocusLeft => "focus the pane to the left".into(),
            Action::FocusDown => "focus the pane below".into(),
            Action::FocusUp => "focus the pane above".into(),
            Action::FocusRight => "focus the pane to the right".into(),
            Action::Zoom => "zoom / unzoom the pane".into(),
            Action::Swap(false) => "swap with the previous pane".into(),
            Action::Swap(true) => "swap with the next pane".into(),
            Action::Resize(towards, cells) => {
                let unit = if cells == 1 { "cell" } else { "cells" };
                format!(
                    "move a border {} {cells} {unit} (repeats)",
                    direction_word(towards)
                )
            }
            Action::BreakPane => "break the pane out into a new tab".into(),
            Action::MoveToTab => "move the pane to tab N (asks)".into(),
            Action::Close => "close the pane (asks)".into(),
            Action::NewTab => "new tab".into(),
            Action::NextTab => "next tab".into(),
            Action::PrevTab => "previous tab".into(),
            Action::Tab(n) => format!("tab {n}"),
            Action::Workspaces => "workspaces (switch or create)".into(),
            Action::RenamePane => "rename the pane".into(),
            Action::RenameTab => "rename the tab".into(),
            Action::RenameWorkspace => "rename the workspace".into(),
            Action::CopyMode => "scroll / copy mode".into(),
            Action::Revive => "resume or respawn a pane with no process".into(),
            Action::NextAttention => "go to the pane that needs you".into(),
            Action::LastAlert => "go to the pane of the last alert".into(),
            Action::Sidebar => "show / hide the sidebar".into(),
            Action::Detach => "detach (everything keeps running)".into(),
            Action::Help => "this help".into(),
        }
    }

    fn from_name(name: &str) -> Option<Action> {
        Action::all().find(|a| a.name() == name)
    }

    /// Pressed again without the prefix within [`REPEAT_TIME`], it acts
    /// again (tmux's `bind -r`).
    pub fn repeats(self) -> bool {
        matches!(self, Action::Resize(..))
    }

    fn default_keys(self, prefix: Key) -> Vec<Key> {
        let chars = |s: &str| s.chars().map(Key::Char).collect::<Vec<_>>();
        match self {
            Action::SendPrefix => vec![prefix],
            Action::SplitRight => chars("%"),
            Action::SplitDown => chars("\""),
            Action::NewWorktree => chars("W"),
            Action::FocusLeft => vec![Key::Left, Key::Char('h')],
            Action::FocusDown => vec![Key::Down, Key::Char('j')],
            Action::FocusUp => vec![Key::Up, Key::Char('k')],
            Action::FocusRight => vec![Key::Right, Key::Char('l')],
            Action::Zoom => chars("z"),
            Action::Swap(false) => chars("{"),
            Action::Swap(true) => chars("}"),
            Action::Resize(towards, 1) => vec![Key::CtrlArrow(towards)],
            Action::Resize(towards, _) => vec![Key::AltArrow(towards)],
            Action::BreakPane => chars("!"),
            Action::MoveToTab => chars("m"),
            Action::Close => chars("x"),
            Action::NewTab => chars("c"),
            Action::NextTab => chars("n"),
            Action::PrevTab => chars("p"),
            Action::Tab(n) => vec![Key::Char(char::from(b'0' + n))],
            Action::Workspaces => chars("w"),
            Action::RenamePane => chars(","),
            Action::RenameTab => chars("."),
            Action::RenameWorkspace => chars("$"),
            Action::CopyMode => chars("["),
            Action::Revive => chars("r"),
            Action::NextAttention => vec![Key::Tab],
            Action::LastAlert => chars("a"),
            Action::Sidebar => chars("s"),
            Action::Detach => chars("d"),
            Action::Help => chars("?"),
        }
    }
}

/// The prefix and what each key after it does, and the keys that act
/// without it (`[keys.root]`, none by default).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bindings {
    pub prefix: Key,
    by_key: BTreeMap<Key, Action>,
    root: BTreeMap<Key, Action>,
}

/// A key name, or a list of them, under `[keys]`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(untagged)]
pub enum KeySpec {
    One(String),
    Many(Vec<String>),
}

impl Default for Bindings {
    fn default() -> Bindings {
        let mut bindings = Bindings {
            prefix: Key::Ctrl('b'),
            by_key: BTreeMap::new(),
            root: BTreeMap::new(),
        };
        for action in Action::all() {
            for key in action.default_keys(bindings.prefix) {
                bindings.by_key.insert(key, action);
            }
        }
        bindings
    }
}

impl Bindings {
    /// tmux's defaults with `[keys]` applied: `prefix` sets the prefix,
    /// every other entry replaces an action's keys (an empty list unbinds
    /// it); `root` (`[keys.root]`) binds keys that act without the prefix.
    /// Unknown actions, bad key names and a key bound twice are errors
    /// that name what is wrong.
    pub fn from_config(
        keys: &BTreeMap<String, KeySpec>,
        root: &BTreeMap<String, KeySpec>,
    ) -> Result<Bindings, String> {
        let prefix = match keys.get("prefix") {
            Some(KeySpec::One(name)) => Key::parse(name).map_err(|e| format!("prefix: {e}"))?,
            Some(KeySpec::Many(_)) => return Err("prefix is one key, not a list".into()),
            None => Key::Ctrl('b'),
        };
        let mut chosen: BTreeMap<Action, Vec<Key>> = Action::all()
            .map(|action| (action, action.default_keys(prefix)))
            .collect();
        chosen.extend(parse_table(
            keys.iter().filter(|(name, _)| *name != "prefix"),
        )?);
        let by_key = keyed(chosen)?;
        let root = keyed(parse_table(root.iter())?).map_err(|e| format!("root: {e}"))?;
        if let Some(action) = root.get(&prefix) {
            return Err(format!(
                "root: {prefix} is the prefix; bind {} to another key",
                action.name()
            ));
        }
        Ok(Bindings {
            prefix,
            by_key,
            root,
        })
    }

    pub fn action(&self, key: Key) -> Option<Action> {
        self.by_key.get(&key).copied()
    }

    /// What `key` does without the prefix, if `[keys.root]` binds it.
    pub fn root(&self, key: Key) -> Option<Action> {
        self.root.get(&key).copied()
    }

    /// The keys bound to `action`, in order.
    pub fn keys_of(&self, action: Action) -> Vec<Key> {
        let mut keys: Vec<Key> = self
            .by_key
            .iter()
            .filter(|(_, a)| **a == action)
            .map(|(k, _)| *k)
            .collect();
        // Named keys (arrows) first, as tmux lists them.
        keys.sort_by_key(|k| matches!(k, Key::Char(_)));
        keys
    }

    /// `C-b %` — how to press an action, for hints; `None` if unbound.
    pub fn hint(&self, action: Action) -> Option<String> {
        let key = self.keys_of(action).into_iter().next()?;
        Some(format!("{} {key}", self.prefix))
    }
}

/// `action = key` entries, each key name parsed.
fn parse_table<'a>(
    entries: impl Iterator<Item = (&'a String, &'a KeySpec)>,
) -> Result<BTreeMap<Action, Vec<Key>>, String> {
    let mut chosen = BTreeMap::new();
    for (name, spec) in entries {
        let action = Action::from_name(name).ok_or_else(|| {
            format!(
                "{name:?} is not an action; the actions are {}",
                action_names()
            )
        })?;
        let names = match spec {
            KeySpec::One(name) => vec![name.clone()],
            KeySpec::Many(names) => names.clone(),
        };
        let parsed = names
            .iter()
            .map(|n| Key::parse(n).map_err(|e| format!("{}: {e}", action.name())))
            .collect::<Result<Vec<Key>, String>>()?;
        chosen.insert(action, parsed);
    }
    Ok(chosen)
}

/// Each key's action; a key bound twice is an error.
fn keyed(chosen: BTreeMap<Action, Vec<Key>>) -> Result<BTreeMap<Key, Action>, String> {
    let mut by_key = BTreeMap::new();
    for (action, keys) in chosen {
        for key in keys {
            if let Some(other) = by_key.insert(key, action) {
                return Err(format!(
                    "{key} is bound to both {} and {}; bind it to one",
                    other.name(),
                    action.name()
                ));
            }
        }
    }
    Ok(by_key)
}

fn action_names() -> String {
    let mut names: Vec<String> = Action::all()
        .filter(|a| !matches!(a, Action::Tab(n) if *n > 0))
        .map(|a| match a {
            Action::Tab(_) => "tab-0…tab-9".to_string(),
            other => other.name(),
        })
        .collect();
    names.insert(0, "prefix".into());
    names.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_names_parse_and_print_back() {
        for name in [
            "%", "\"", "C-b", "M-x", "Left", "PageUp", "Tab", "F5", "Space", "BTab",
        ] {
            assert_eq!(Key::parse(name).unwrap().to_string(), name);
        }
        assert_eq!(Key::parse("C-a").unwrap(), Key::Ctrl('a'));
        assert_eq!(Key::parse("^A").unwrap(), Key::Ctrl('a'));
        assert_eq!(Key::parse("C-m").unwrap(), Key::Enter);
        assert_eq!(Key::parse("escape").unwrap(), Key::Escape);
        assert!(Key::parse("C-1").is_err());
        assert!(
            Key::parse("Banana")
                .unwrap_err()
                .to_string()
                .contains("not a key name")
        );
    }

    /// `[keys]` reads names as `ctl send-keys` does: the multiplexer's
    /// spellings and the screen's own name the same key.
    #[test]
    fn both_vocabularies_name_the_same_key() {
        let same = [
            (Key::BackTab, &["BTab", "btab", "shift+tab", "S-Tab"][..]),
            (Key::PageUp, &["PageUp", "ppage", "pgup", "pageup"]),
            (Key::PageDown, &["PageDown", "npage", "pgdn"]),
            (Key::Insert, &["Insert", "ic"]),
            (Key::Delete, &["Delete", "dc", "del"]),
            (Key::Backspace, &["Backspace", "bspace"]),
            (Key::Escape, &["Escape", "esc", "C-["]),
            (Key::Enter, &["Enter", "return", "C-m"]),
            (Key::Tab, &["Tab", "C-i"]),
            (Key::Char(' '), &["Space", "space", " "]),
            (
                Key::Ctrl('a'),
                &["C-a", "C-A", "^A", "^a", "ctrl+a", "control+a"],
            ),
            (Key::Ctrl('@'), &["C-@", "C- ", "ctrl+space"]),
            (Key::Ctrl(']'), &["C-]", "ctrl+]"]),
            (Key::Alt('x'), &["M-x", "alt+x", "meta+x"]),
            (Key::Alt('+'), &["M-+", "alt++"]),
            (Key::Alt('-'), &["M--", "alt+-"]),
            (
                Key::CtrlArrow(Towards::Left),
                &["C-Left", "C-left", "ctrl+left"],
            ),
            (Key::AltArrow(Towards::Up), &["M-Up", "alt+up"]),
            (Key::F(5), &["F5", "f5"]),
            (Key::Char('%'), &["%"]),
        ];
        for (key, names) in same {
            for name in names {
                assert_eq!(Key::parse(name), Ok(key), "{name:?}");
            }
        }
    }

    #[test]
    fn presses_the_multiplexer_cannot_tell_apart_are_refused() {
        for name in ["S-Up", "C-Home", "C-M-a", "M-Enter", "shift+a", "C-Tab"] {
            let err = Key::parse(name).unwrap_err();
            assert_eq!(err, KeyNameError::NotBindable(name.to_string()), "{name}");
        }
        for name in ["C-1", "ctrl+%"] {
            let err = Key::parse(name).unwrap_err();
            assert_eq!(err, KeyNameError::NotControl(name.to_string()), "{name}");
        }
    }

    #[test]
    fn every_key_the_help_prints_parses_back() {
        let bindings = Bindings::default();
        for action in Action::all() {
            for key in bindings.keys_of(action) {
                assert_eq!(Key::parse(&key.to_string()), Ok(key), "{key}");
            }
        }
        for key in [
            Key::Home,
            Key::End,
            Key::PageDown,
            Key::Insert,
            Key::Delete,
            Key::BackTab,
            Key::Enter,
            Key::Backspace,
            Key::Escape,
            Key::F(12),
            Key::Alt('x'),
            Key::Ctrl('_'),
        ] {
            assert_eq!(Key::parse(&key.to_string()), Ok(key), "{key}");
        }
    }

    #[test]
    fn bytes_become_keys() {
        assert_eq!(Key::from_byte(2), Key::Ctrl('b'));
        assert_eq!(Key::from_byte(0x1d), Key::Ctrl(']'));
        assert_eq!(Key::from_byte(b'\t'), Key::Tab);
        assert_eq!(Key::from_byte(b'\r'), Key::Enter);
        assert_eq!(Key::from_byte(b'%'), Key::Char('%'));
    }

    #[test]
    fn defaults_are_tmux_s() {
        let b = Bindings::default();
        assert_eq!(b.prefix, Key::Ctrl('b'));
        assert_eq!(b.action(Key::Char('%')), Some(Action::SplitRight));
        assert_eq!(b.action(Key::Char('"')), Some(Action::SplitDown));
        assert_eq!(b.action(Key::Char('h')), Some(Action::FocusLeft));
        assert_eq!(b.action(Key::Up), Some(Action::FocusUp));
        assert_eq!(b.action(Key::Char('7')), Some(Action::Tab(7)));
        assert_eq!(b.action(Key::Ctrl('b')), Some(Action::SendPrefix));
        assert_eq!(b.action(Key::Tab), Some(Action::NextAttention));
        assert_eq!(b.action(Key::Char('a')), Some(Action::LastAlert));
        assert_eq!(b.action(Key::Char('W')), Some(Action::NewWorktree));
        assert_eq!(b.hint(Action::Help).unwrap(), "C-b ?");
    }

    fn config(text: &str) -> Result<Bindings, String> {
        let keys: BTreeMap<String, KeySpec> = toml::from_str(text).unwrap();
        Bindings::from_config(&keys, &BTreeMap::new())
    }

    #[test]
    fn the_config_replaces_keys_per_action() {
        let b = config(
            "prefix = \"C-a\"\nsplit-right = \"|\"\nsplit-down = [\"-\", \"_\"]\nzoom = []\n",
        )
        .unwrap();
        assert_eq!(b.prefix, Key::Ctrl('a'));
        assert_eq!(b.action(Key::Ctrl('a')), Some(Action::SendPrefix));
        assert_eq!(b.action(Key::Ctrl('b')), None);
        assert_eq!(b.action(Key::Char('|')), Some(Action::SplitRight));
        assert_eq!(b.action(Key::Char('%')), None);
        assert_eq!(b.action(Key::Char('_')), Some(Action::SplitDown));
        assert_eq!(b.action(Key::Char('z')), None);
        assert_eq!(
            b.action(Key::Char('x')),
            Some(Action::Close),
            "the rest stay"
        );
    }

    #[test]
    fn a_bad_config_names_what_is_wrong() {
        assert!(
            config("splt-right = \"|\"")
                .unwrap_err()
                .contains("not an action")
        );
        assert!(config("zoom = \"C-1\"").unwrap_err().contains("zoom"));
        let twice = config("zoom = \"x\"").unwrap_err();
        assert!(twice.contains("x is bound to both"), "{twice}");
        assert!(config("prefix = [\"C-a\"]").unwrap_err().contains("prefix"));
    }
}
