//! Stand-in agent CLIs for end-to-end tests (the suite never needs the
//! real ones).

use std::path::{Path, PathBuf};

/// Agent CLIs a developer's or CI machine may have installed for real.
const REAL_AGENTS: [&str; 6] = [
    "claude",
    "codex",
    "gemini",
    "copilot",
    "cursor-agent",
    "opencode",
];

/// A directory on PATH with a fake `claude` that logs
/// "<SIGNALTTY_PANE> <args>" to `claude.argv`, prints a line and waits.
pub struct FakeAgents {
    bin: PathBuf,
    log: PathBuf,
}

impl FakeAgents {
    pub fn new(root: &Path) -> FakeAgents {
        let bin = root.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let fake = FakeAgents {
            log: root.join("claude.argv"),
            bin,
        };
        fake.install("echo \"fake claude ready $*\"\nexec sleep 1000");
        fake
    }

    pub fn install(&self, body: &str) {
        use std::os::unix::fs::PermissionsExt;
        let script = self.bin.join("claude");
        let text = format!(
            "#!/bin/sh\necho \"$SIGNALTTY_PANE $*\" >> '{}'\n{body}\n",
            self.log.display()
        );
        // Write beside, then rename: a running copy is never half-written.
        let temp = self.bin.join(".claude.tmp");
        std::fs::write(&temp, text).unwrap();
        std::fs::set_permissions(&temp, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::rename(temp, script).unwrap();
    }

    pub fn remove(&self) {
        std::fs::remove_file(self.bin.join("claude")).unwrap();
    }

    /// PATH with the fakes first and no real agent CLI anywhere after them:
    /// a machine that has Claude Code installed must not make "claude is
    /// gone" tests find it.
    pub fn path_env(&self) -> (String, String) {
        let path = std::env::var("PATH").unwrap_or_default();
        let mut dirs = vec![self.bin.display().to_string()];
        for (i, dir) in path.split(':').filter(|d| !d.is_empty()).enumerate() {
            dirs.push(self.without_agents(Path::new(dir), i));
        }
        ("PATH".into(), dirs.join(":"))
    }

    /// `dir` itself, or when it holds a real agent CLI, a mirror of it (a
    /// directory of links to every other entry) beside the fakes.
    fn without_agents(&self, dir: &Path, index: usize) -> String {
        if !REAL_AGENTS.iter().any(|name| dir.join(name).exists()) {
            return dir.display().to_string();
        }
        let mirror = self.bin.with_file_name(format!("path-mirror-{index}"));
        std::fs::create_dir_all(&mirror).unwrap();
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let name = entry.file_name();
            if REAL_AGENTS.iter().any(|agent| name == *agent) {
                continue;
            }
            let _ = std::os::unix::fs::symlink(entry.path(), mirror.join(&name));
        }
        mirror.display().to_string()
    }

    /// The argument lists logged for `pane`, in order.
    pub fn runs(&self, pane: &str) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.strip_prefix(&format!("{pane} ")).map(str::to_string))
            .collect()
    }
}
