//! Processes seen through /proc: which bridges still serve a socket, which
//! children a process has. Linux only, as the rest of the suite.

use std::path::Path;

/// Every process, as (pid, parent pid, command name).
fn all() -> Vec<(i32, i32, String)> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // `pid (comm) state ppid …`; comm may hold spaces and parens.
            let open = stat.find('(')?;
            let close = stat.rfind(')')?;
            let comm = stat[open + 1..close].to_string();
            let ppid = stat[close + 1..].split_whitespace().nth(1)?.parse().ok()?;
            Some((pid, ppid, comm))
        })
        .collect()
}

/// The children of `parent` whose command name is `comm`.
pub fn children_named(parent: u32, comm: &str) -> Vec<i32> {
    all()
        .into_iter()
        .filter(|(_, ppid, name)| *ppid == parent as i32 && name == comm)
        .map(|(pid, _, _)| pid)
        .collect()
}

/// The `signaltty bridge` processes whose environment points at `socket`.
pub fn bridges_serving(socket: &Path) -> Vec<i32> {
    let wanted = format!("SIGNALTTY_SOCKET={}", socket.display());
    all()
        .into_iter()
        .filter(|(pid, _, _)| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let is_bridge = cmdline.split(|&b| b == 0).any(|arg| arg == b"bridge");
            let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            is_bridge
                && environ
                    .split(|&b| b == 0)
                    .any(|var| var == wanted.as_bytes())
        })
        .map(|(pid, _, _)| pid)
        .collect()
}

/// Whether a process with `pid` exists (a zombie counts as gone).
pub fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let close = stat.rfind(')')?;
            stat[close + 1..]
                .split_whitespace()
                .next()
                .map(|s| s != "Z")
        })
        .unwrap_or(false)
}
