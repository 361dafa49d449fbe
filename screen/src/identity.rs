//! What the screen says when a program asks which terminal it runs in.
//!
//! Agent CLIs decide what to turn on from these answers: Claude Code asks
//! XTVERSION (`CSI > 0 q`) and, with no answer, treats the terminal as a
//! plain one. Every answer names signaltty and claims only what the screen
//! does: alacritty's own answers call the terminal a VT102 and give
//! alacritty's version, which describes neither.

/// signaltty's version, which is the workspace's (every crate shares it).
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The answer to XTVERSION: `DCS > | signaltty VERSION ST`.
pub(crate) fn version_report() -> String {
    format!("\x1bP>|signaltty {VERSION}\x1b\\")
}

/// The answer to DA1 (`CSI c`) or DA2 (`CSI > c`); `None` for a kind of
/// device attributes the screen does not report (DA3's `CSI = c`).
pub(crate) fn device_attributes(intermediate: Option<char>) -> Option<String> {
    match intermediate {
        // A VT220-class terminal (62) with ANSI colour (22): what a program
        // may rely on here (xterm lists more, tmux less).
        None => Some("\x1b[?62;22c".to_string()),
        // Kind 1 (VT220), the version as one number (0.1.0 is 100), and no
        // ROM cartridge, as xterm formats it.
        Some('>') => Some(format!("\x1b[>1;{};0c", version_number(VERSION))),
        Some(_) => None,
    }
}

/// `major.minor.patch` as `major * 10000 + minor * 100 + patch`; a part
/// that is not a number counts as 0.
fn version_number(version: &str) -> u32 {
    let mut parts = version
        .split(['.', '-', '+'])
        .map(|part| part.parse::<u32>().unwrap_or(0));
    let mut next = || parts.next().unwrap_or(0);
    next() * 10_000 + next() * 100 + next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_become_one_number() {
        assert_eq!(version_number("0.1.0"), 100);
        assert_eq!(version_number("1.22.3"), 12_203);
        assert_eq!(version_number("2.0.0-rc1"), 20_000);
        assert_eq!(version_number("junk"), 0);
    }

    #[test]
    fn the_answers_name_signaltty() {
        assert_eq!(
            version_report(),
            format!("\x1bP>|signaltty {VERSION}\x1b\\")
        );
        assert_eq!(device_attributes(None).as_deref(), Some("\x1b[?62;22c"));
        assert!(device_attributes(Some('>')).is_some_and(|a| a.starts_with("\x1b[>1;")));
        assert_eq!(device_attributes(Some('=')), None);
    }
}
