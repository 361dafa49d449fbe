//! Names a client writes in its parameters — a signal, a severity, a
//! lifecycle, a split direction — read into their enums strictly: a name
//! this build does not know is refused with the names it does, rather than
//! read as a default (which the saved records do, for what a newer version
//! wrote).

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use signaltty_types::{AgentKind, Direction, Lifecycle, Severity};

/// An enum a client names by a word.
pub trait Named: Sized + Copy + PartialEq + 'static {
    /// What the word names, for the error (`signal`, `lifecycle`).
    const WHAT: &'static str;
    /// Every value with its name, as a client writes it.
    const NAMES: &'static [(&'static str, Self)];

    /// The value `word` names (case-insensitive), or an error listing them.
    fn from_word(word: &str) -> Result<Self, String> {
        Self::NAMES
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(word))
            .map(|(_, value)| *value)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::NAMES.iter().map(|(n, _)| *n).collect();
                format!(
                    "{} {:?} is not one of {}",
                    Self::WHAT,
                    shown(word),
                    names.join(", ")
                )
            })
    }

    fn word(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(_, value)| *value == self)
            .map_or("", |(name, _)| name)
    }
}

/// A word as an error quotes it: at most 64 characters of it.
fn shown(word: &str) -> String {
    const SHOWN: usize = 64;
    match word.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}…", &word[..cut]),
        None => word.to_string(),
    }
}

/// For `#[serde(deserialize_with)]` on a named field that must be there.
pub fn strict_one<'de, D: Deserializer<'de>, T: Named>(d: D) -> Result<T, D::Error> {
    let word = String::deserialize(d)?;
    T::from_word(&word).map_err(serde::de::Error::custom)
}

/// For `#[serde(deserialize_with)]` on an optional named field.
pub fn strict<'de, D: Deserializer<'de>, T: Named>(d: D) -> Result<Option<T>, D::Error> {
    let word: Option<String> = Option::deserialize(d)?;
    word.map(|w| T::from_word(&w))
        .transpose()
        .map_err(serde::de::Error::custom)
}

impl Named for Lifecycle {
    const WHAT: &'static str = "lifecycle";
    const NAMES: &'static [(&'static str, Self)] = &[
        ("working", Lifecycle::Working),
        ("blocked", Lifecycle::Blocked),
        ("done", Lifecycle::Done),
        ("idle", Lifecycle::Idle),
        ("failed", Lifecycle::Failed),
        ("exited", Lifecycle::Exited),
        ("unknown", Lifecycle::Unknown),
    ];
}

impl Named for Severity {
    const WHAT: &'static str = "severity";
    const NAMES: &'static [(&'static str, Self)] = &[
        ("info", Severity::Info),
        ("warning", Severity::Warning),
        ("error", Severity::Error),
    ];
}

impl Named for Direction {
    const WHAT: &'static str = "direction";
    const NAMES: &'static [(&'static str, Self)] =
        &[("right", Direction::Right), ("down", Direction::Down)];
}

impl Named for AgentKind {
    const WHAT: &'static str = "agent kind";
    const NAMES: &'static [(&'static str, Self)] = &[];

    fn from_word(word: &str) -> Result<Self, String> {
        word.parse().map_err(|_| {
            let names: Vec<&str> = AgentKind::ALL.iter().map(|k| k.as_str()).collect();
            format!(
                "unknown agent kind {:?}; use one of {}",
                shown(word),
                names.join(", ")
            )
        })
    }

    fn word(self) -> &'static str {
        self.as_str()
    }
}

/// The signals a client may send a pane's process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, JsonSchema)]
#[schemars(with = "String")]
pub enum Signal {
    Hup,
    Int,
    Quit,
    Term,
    Kill,
    Usr1,
    Usr2,
    Cont,
    Stop,
    Tstp,
    Winch,
}

impl Named for Signal {
    const WHAT: &'static str = "signal";
    const NAMES: &'static [(&'static str, Self)] = &[
        ("HUP", Signal::Hup),
        ("INT", Signal::Int),
        ("QUIT", Signal::Quit),
        ("TERM", Signal::Term),
        ("KILL", Signal::Kill),
        ("USR1", Signal::Usr1),
        ("USR2", Signal::Usr2),
        ("CONT", Signal::Cont),
        ("STOP", Signal::Stop),
        ("TSTP", Signal::Tstp),
        ("WINCH", Signal::Winch),
    ];

    /// With or without `SIG`, in any case.
    fn from_word(word: &str) -> Result<Self, String> {
        let bare = word.trim();
        let bare = match bare.get(..3) {
            Some(prefix) if prefix.eq_ignore_ascii_case("SIG") => &bare[3..],
            _ => bare,
        };
        Self::NAMES
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(bare))
            .map(|(_, value)| *value)
            .ok_or_else(|| {
                format!(
                    "signal {:?} is not allowed; use one of HUP INT QUIT TERM KILL USR1 USR2 \
                     CONT STOP TSTP WINCH",
                    shown(word)
                )
            })
    }
}

impl fmt::Display for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

impl Serialize for Signal {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.word())
    }
}

impl<'de> Deserialize<'de> for Signal {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let word = String::deserialize(d)?;
        Signal::from_word(&word).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_strictly_with_the_list_in_the_error() {
        assert_eq!(Lifecycle::from_word("IDLE"), Ok(Lifecycle::Idle));
        let err = Lifecycle::from_word("sleepy").unwrap_err();
        assert!(
            err.contains("not one of") && err.contains("working"),
            "{err}"
        );
        assert_eq!(Signal::from_word("sigterm"), Ok(Signal::Term));
        assert_eq!(Signal::from_word("KILL"), Ok(Signal::Kill));
        assert!(
            Signal::from_word("SEGV")
                .unwrap_err()
                .contains("not allowed")
        );
        assert_eq!(Severity::from_word("Warning"), Ok(Severity::Warning));
        assert!(Direction::from_word("up").is_err());
        let signal: Signal = serde_json::from_str("\"int\"").unwrap();
        assert_eq!(serde_json::to_string(&signal).unwrap(), "\"INT\"");
    }
}
