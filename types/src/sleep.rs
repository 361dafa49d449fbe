//! How long an idle agent stays awake before it is put to sleep
//! (`[hibernate] after` in the config, `workspace set --hibernate-after`).

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The longest window that can be set: a week.
pub const MAX_SLEEP_AFTER: Duration = Duration::from_secs(7 * 24 * 3600);

/// `off`, or a window such as `90s`, `30m` or `2h` (whole seconds, minutes
/// or hours; at most [`MAX_SLEEP_AFTER`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(try_from = "String", into = "String")]
#[schemars(with = "String")]
pub enum SleepAfter {
    Off,
    After(Duration),
}

impl SleepAfter {
    /// The window, unless it is off.
    pub fn window(self) -> Option<Duration> {
        match self {
            SleepAfter::Off => None,
            SleepAfter::After(window) => Some(window),
        }
    }
}

impl std::str::FromStr for SleepAfter {
    type Err = String;

    fn from_str(text: &str) -> Result<SleepAfter, String> {
        let shown: String = text.chars().take(40).collect();
        let bad = || {
            format!(
                "{shown:?} is no sleep window; give \"off\" or a number with s, m or h (\"30m\")"
            )
        };
        let text = text.trim();
        if text.eq_ignore_ascii_case("off") {
            return Ok(SleepAfter::Off);
        }
        let unit_at = text.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?;
        let (number, unit) = text.split_at(unit_at);
        let number: u64 = number.parse().map_err(|_| bad())?;
        let scale = match unit {
            "s" => 1,
            "m" => 60,
            "h" => 3600,
            _ => return Err(bad()),
        };
        let seconds = number.checked_mul(scale).ok_or_else(bad)?;
        if seconds == 0 || seconds > MAX_SLEEP_AFTER.as_secs() {
            return Err(format!(
                "a sleep window must be from 1s to {}h, not {shown:?}; or \"off\"",
                MAX_SLEEP_AFTER.as_secs() / 3600
            ));
        }
        Ok(SleepAfter::After(Duration::from_secs(seconds)))
    }
}

impl TryFrom<String> for SleepAfter {
    type Error = String;

    fn try_from(text: String) -> Result<SleepAfter, String> {
        text.parse()
    }
}

impl From<SleepAfter> for String {
    fn from(after: SleepAfter) -> String {
        after.to_string()
    }
}

impl std::fmt::Display for SleepAfter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let seconds = match self {
            SleepAfter::Off => return f.write_str("off"),
            SleepAfter::After(window) => window.as_secs(),
        };
        match seconds {
            s if s % 3600 == 0 => write!(f, "{}h", s / 3600),
            s if s % 60 == 0 => write!(f, "{}m", s / 60),
            s => write!(f, "{s}s"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_read_and_print_the_same() {
        for (text, seconds) in [("90s", 90), ("30m", 1800), ("2h", 7200), ("1s", 1)] {
            let after: SleepAfter = text.parse().unwrap();
            assert_eq!(after, SleepAfter::After(Duration::from_secs(seconds)));
            assert_eq!(after.to_string(), text);
        }
        assert_eq!("OFF".parse::<SleepAfter>(), Ok(SleepAfter::Off));
        assert_eq!(
            serde_json::to_string(&SleepAfter::After(Duration::from_secs(60))).unwrap(),
            "\"1m\""
        );
    }

    #[test]
    fn a_bad_window_says_what_would_do() {
        for text in [
            "",
            "30",
            "m",
            "30 m",
            "-5m",
            "1d",
            "0s",
            "169h",
            "99999999999999999999h",
        ] {
            let said = text.parse::<SleepAfter>().unwrap_err();
            assert!(said.contains("off"), "{text:?}: {said}");
        }
        assert!(serde_json::from_str::<SleepAfter>("\"1y\"").is_err());
    }
}
