//! Stand-in agent CLIs for end-to-end tests (the suite never needs the
//! real ones).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::TestServer;

/// Agent CLIs a developer's or CI machine may have installed for real.
const REAL_AGENTS: [&str; 14] = [
    "claude",
    "codex",
    "gemini",
    "copilot",
    "cursor-agent",
    "opencode",
    "qwen",
    "amp",
    "kiro-cli",
    "pi",
    "grok",
    "crush",
    "aider",
    "goose",
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

/// A screen captured from a real agent CLI (see `adapters/tests/screens`).
pub fn captured_screen(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("adapters/tests/screens")
        .join(format!("{name}.txt"))
}

/// Installs `bin/NAME`, a stand-in agent: a shell script (so it runs as
/// `sh …/NAME`, an interpreter running a script named after the agent)
/// that logs its arguments to `NAME.argv` and then runs `body`.
pub fn install_stand_in(root: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = root.join(format!("{name}.argv"));
    let text = format!("#!/bin/sh\necho \"$*\" >> '{}'\n{body}\n", log.display());
    let script = bin.join(name);
    let temp = bin.join(format!(".{name}.tmp"));
    std::fs::write(&temp, text).unwrap();
    std::fs::set_permissions(&temp, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::rename(temp, &script).unwrap();
    bin
}

/// A stand-in Claude Code: writes `$HOME/.claude/sessions/<pid>.json` as
/// claude 2.1.197 does (with its own start time as `procStart`), draws the
/// captured idle screen, then draws the screen named by each line it
/// reads (`permission`, `working`, `idle`…; an empty line draws idle
/// again); `quit` or `/exit` (its exit command) ends it. Any other line is a prompt: it is logged (see
/// [`prompts`]) and answered in a turn of a second (working, then done). `$HOME/first-screen` names the
/// screen it starts on, `$HOME/start-delay` how long it takes to start; it
/// asks for bracketed paste, as the real ones do. `work` is a
/// turn drawn the way Ink draws one: the whole screen repainted from the
/// top every 200 ms, each frame a few rows longer than the idle one and
/// numbered (`frame N`), until [`end_turn`] — then the turn's answer.
pub const CLAUDE_STAND_IN: &str = r#"
sid=${FAKE_SESSION:-5b0e3c1a-7d2f-4e8b-9a6c-1f2e3d4c5b6a}
dir=${CLAUDE_CONFIG_DIR:-$HOME/.claude}/sessions
mkdir -p "$dir"
ticks=$(cut -d')' -f2 /proc/$$/stat | awk '{print $20}')
printf '{"pid":%s,"sessionId":"%s","cwd":"%s","startedAt":0,"procStart":"%s","status":"idle"}' $$ "$sid" "$PWD" "$ticks" > "$dir/$$.json"
draw() { printf '\033[H\033[2J'; sed 's/$/\r/' "$SCREENS/claude-$1.txt"; }
work() {
  n=0
  while [ ! -e "$HOME/turn-ends.$SIGNALTTY_PANE" ]; do
    n=$((n+1))
    printf '\033[H\033[J'
    head -n 22 "$SCREENS/claude-working.txt" | sed 's/$/\r/'
    printf '\342\234\273 Working (frame %s)\r\n  step %s\r\n  step %s' $n $n $n
    sleep 0.2
  done
  rm -f "$HOME/turn-ends.$SIGNALTTY_PANE"
  draw done
}
answer() {
  n=0
  while [ $n -lt 5 ]; do
    n=$((n+1))
    printf '\033[H\033[J'
    head -n 22 "$SCREENS/claude-working.txt" | sed 's/$/\r/'
    printf 'answering (%s)' $n
    sleep 0.2
  done
  draw done
}
[ -f "$HOME/start-delay" ] && { echo "starting..."; sleep "$(cat "$HOME/start-delay")"; }
draw "$(cat "$HOME/first-screen" 2>/dev/null || echo idle)"
printf '\033[?2004h'
while read -r what; do
  case "$what" in
    quit|/exit) exit 0 ;;
    work) work ;;
    "") draw idle ;;
    *) if [ -f "$SCREENS/claude-$what.txt" ]; then draw "$what"; else
         printf '%s\n' "$what" >> "$HOME/prompts.$SIGNALTTY_PANE"; answer; fi ;;
  esac
done
"#;

/// The prompts a [`CLAUDE_STAND_IN`] in `pane` was given, as it read them.
pub fn prompts(home: &Path, pane: &str) -> Vec<String> {
    std::fs::read_to_string(home.join(format!("prompts.{pane}")))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Ends the turn a [`CLAUDE_STAND_IN`] in `pane` is working on (`home` is
/// the HOME its server gives panes).
pub fn end_turn(home: &Path, pane: &str) {
    std::fs::write(home.join(format!("turn-ends.{pane}")), "").unwrap();
}

/// The number of the last frame a working [`CLAUDE_STAND_IN`] drew on
/// `screen`, 0 for none.
pub fn frame_number(screen: &str) -> u64 {
    screen
        .lines()
        .filter_map(|line| line.split("(frame ").nth(1))
        .filter_map(|rest| rest.split(')').next()?.parse().ok())
        .max()
        .unwrap_or(0)
}

/// A server whose panes find stand-in agents on PATH and whose HOME is
/// the test's own; `$SCREENS` is where the captured screens are.
pub fn server_with_agents(agents: &[(&str, &str)]) -> (TestServer, std::path::PathBuf) {
    server_with_agents_and_env(agents, &[])
}

/// [`server_with_agents`], the server also started with `env`.
pub fn server_with_agents_and_env(
    agents: &[(&str, &str)],
    env: &[(&str, &str)],
) -> (TestServer, std::path::PathBuf) {
    let mut server = TestServer::prepare(true, Vec::new());
    for (key, value) in env {
        server.extra_env_push(key, value);
    }
    let root = server.dir.path().to_path_buf();
    let mut bin = root.join("bin");
    for (name, body) in agents {
        bin = install_stand_in(&root, name, body);
    }
    let home = root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let screens = captured_screen("claude-idle")
        .parent()
        .unwrap()
        .to_path_buf();
    let path = std::env::var("PATH").unwrap_or_default();
    server.extra_env_push("PATH", &format!("{}:{path}", bin.display()));
    server.extra_env_push("HOME", &home.display().to_string());
    server.extra_env_push("SCREENS", &screens.display().to_string());
    server.launch();
    (server, root)
}

/// The argument lists the stand-in `name` was run with, in order.
pub fn runs(root: &Path, name: &str) -> Vec<String> {
    std::fs::read_to_string(root.join(format!("{name}.argv")))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// A stand-in Claude Code in a pane of its own, at the size its screens
/// were captured at, idle and seen.
pub fn idle_claude(server: &TestServer, ws: &str) -> String {
    let pane = server.ctl_ok(&["new", ws, "--", "claude"]);
    server.ctl_ok(&["resize", &pane, "--rows", "30", "--cols", "100"]);
    server.wait_pane(&pane, "idle", |p| p["lifecycle"] == "idle");
    server.ctl_ok(&["seen", &pane]);
    pane
}

/// Starts a turn of [`idle_claude`]'s stand-in and waits until it is
/// read as working.
pub fn start_turn(server: &TestServer, pane: &str) {
    server.ctl_ok(&["send", pane, "work", "--enter"]);
    server.wait_pane(pane, "working", |p| p["lifecycle"] == "working");
}

pub fn finish_turn(server: &TestServer, home: &Path, pane: &str) -> Value {
    end_turn(home, pane);
    server.wait_pane(pane, "the turn's end", |p| p["lifecycle"] == "done")
}
