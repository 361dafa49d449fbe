//! Where the config file is: the server reads its workspace settings from
//! it and the multiplexer its keys, so both must find the same file.

use std::path::PathBuf;

/// `$SIGNALTTY_CONFIG`, else `$XDG_CONFIG_HOME/signaltty/config.toml`, else
/// `~/.config/signaltty/config.toml`; `None` without any of them.
pub fn resolve() -> Option<PathBuf> {
    resolve_with(|name| std::env::var_os(name))
}

fn resolve_with(env: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    if let Some(path) = env("SIGNALTTY_CONFIG").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let base = env("XDG_CONFIG_HOME")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("signaltty").join("config.toml"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_then_xdg_then_home() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                vars.iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            }
        };
        assert_eq!(
            resolve_with(env(&[("SIGNALTTY_CONFIG", "/c.toml"), ("HOME", "/h")])),
            Some(PathBuf::from("/c.toml"))
        );
        assert_eq!(
            resolve_with(env(&[("XDG_CONFIG_HOME", "/x"), ("HOME", "/h")])),
            Some(PathBuf::from("/x/signaltty/config.toml"))
        );
        assert_eq!(
            resolve_with(env(&[("HOME", "/h")])),
            Some(PathBuf::from("/h/.config/signaltty/config.toml"))
        );
        assert_eq!(resolve_with(env(&[])), None);
    }
}
