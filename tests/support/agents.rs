//! Stand-in agent CLIs for end-to-end tests (the suite never needs the
//! real ones).

use std::path::{Path, PathBuf};

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

    pub fn path_env(&self) -> (String, String) {
        let path = std::env::var("PATH").unwrap_or_default();
        ("PATH".into(), format!("{}:{path}", self.bin.display()))
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
