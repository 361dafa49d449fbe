//! End to end with the real agent CLIs, pinned, offline: Claude Code and
//! Codex as npm ships them, not stand-ins. `.ci/run` installs the pinned
//! versions (`tests/real_agents.pins`) and points `SIGNALTTY_REAL_AGENTS` at their `bin`
//! directory; without it every test here says it skipped, and why.
//!
//! Offline means a temp `HOME`, dummy keys and an API address where
//! nothing listens: each CLI draws its real screens, writes its real
//! session files, and fails its requests. What is checked is what
//! signaltty reads and does with them: the kind, launched and typed into a
//! shell; the session id with no hook; blocked at first-run dialogs and
//! idle at the prompt; Shift+Enter a new line; a resume with the launch
//! flags after the server is SIGKILLed; hooks that run without signaltty
//! on the agent's `PATH`.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};
use support::{TestServer, wait_for};

/// The versions the agents' data files were checked against, one CLI a
/// line (`command package version`); `.ci/run` installs these.
const PINS: &str = include_str!("real_agents.pins");

/// The pinned version of the `name` CLI.
fn pinned(name: &str) -> &'static str {
    PINS.lines()
        .filter(|line| !line.starts_with('#'))
        .find_map(
            |line| match line.split_whitespace().collect::<Vec<_>>()[..] {
                [command, _package, version] if command == name => Some(version),
                _ => None,
            },
        )
        .expect("a pinned version in tests/real_agents.pins")
}

/// Real CLIs start in seconds on an idle machine; a loaded one is slower.
const DEADLINE: Duration = Duration::from_secs(90);

/// An API key for no account: the CLIs take it and fail their requests.
const DUMMY_KEY: &str = "sk-ant-dummy-offline-key-for-signaltty-00000000";

/// The pinned `name` CLI, or `None` after saying why the test `test` is
/// skipped. A CLI that is there in another version fails the test: the
/// screens and files it checks are those of the pinned one.
fn real_cli(name: &str, test: &str) -> Option<PathBuf> {
    let report = |line: String| {
        eprintln!("{line}");
        if let Some(path) = std::env::var_os("SIGNALTTY_REAL_AGENTS_REPORT") {
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .expect("the report file");
            std::io::Write::write_all(&mut file, format!("{line}\n").as_bytes())
                .expect("a report line");
        }
    };
    let Some(dir) = std::env::var_os("SIGNALTTY_REAL_AGENTS") else {
        report(format!(
            "skipped {test}: SIGNALTTY_REAL_AGENTS is not set (.ci/run installs the pinned \
             agent CLIs from npm and sets it)"
        ));
        return None;
    };
    let bin = PathBuf::from(dir).join(name);
    if !bin.exists() {
        report(format!(
            "skipped {test}: no {name} in SIGNALTTY_REAL_AGENTS ({})",
            bin.display()
        ));
        return None;
    }
    let pinned = pinned(name);
    let version = Command::new(&bin)
        .arg("--version")
        .output()
        .expect("the CLI's --version");
    let version = String::from_utf8_lossy(&version.stdout).to_string();
    assert!(
        version.contains(pinned),
        "{} is {version:?}, these tests are pinned to {name} {pinned} (.ci/run installs it)",
        bin.display()
    );
    report(format!("ran {test} with {name} {pinned}"));
    Some(bin)
}

/// A server whose panes run the real CLIs offline: a temp `HOME`, and a
/// `PATH` of the CLIs and the system's, without signaltty's own directory
/// (as under systemd).
struct Offline {
    server: TestServer,
    home: PathBuf,
    project: PathBuf,
    workspace: String,
}

impl Offline {
    fn start(bin: &Path) -> Offline {
        let mut server = TestServer::prepare(false, Vec::new());
        let home = server.dir.path().join("home");
        let project = server.dir.path().join("project");
        std::fs::create_dir_all(&home).expect("home");
        std::fs::create_dir_all(&project).expect("project");
        let bin_dir = bin.parent().expect("the CLIs' directory");
        let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin_dir.display());
        for (key, value) in [
            ("HOME", home.display().to_string()),
            ("PATH", path),
            ("ANTHROPIC_API_KEY", DUMMY_KEY.to_string()),
            ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9".to_string()),
            ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1".to_string()),
            ("DISABLE_AUTOUPDATER", "1".to_string()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_string()),
            ("TERM", "xterm-256color".to_string()),
        ] {
            server.extra_env_push(key, &value);
        }
        server.launch();
        let cwd = project.display().to_string();
        let workspace = server.ctl_ok(&["workspace", "new", "real", "--cwd", &cwd]);
        Offline {
            server,
            home,
            project,
            workspace,
        }
    }

    /// `~/.claude.json` as it is after claude's onboarding: the theme
    /// chosen, and (with `trusted`) the project trusted and the dummy key
    /// declined, so it starts at its prompt and answers every prompt at
    /// once with "Not logged in" (an approved key would retry a dead
    /// address for minutes).
    fn onboard_claude(&self, trusted: bool) {
        let mut config = json!({ "hasCompletedOnboarding": true, "theme": "dark" });
        if trusted {
            let key_end = &DUMMY_KEY[DUMMY_KEY.len() - 20..];
            config["customApiKeyResponses"] = json!({ "approved": [], "rejected": [key_end] });
            config["projects"] = json!({
                self.project.display().to_string(): { "hasTrustDialogAccepted": true }
            });
        }
        std::fs::write(self.home.join(".claude.json"), config.to_string()).expect(".claude.json");
    }

    /// Saves the dummy key as codex's login, as `codex login --with-api-key`
    /// does.
    fn log_codex_in(&self, codex: &Path) {
        let mut login = Command::new(codex)
            .args(["login", "--with-api-key"])
            .env("HOME", &self.home)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("codex login");
        std::io::Write::write_all(
            login.stdin.as_mut().expect("its stdin"),
            format!("{DUMMY_KEY}\n").as_bytes(),
        )
        .expect("the key");
        drop(login.stdin.take());
        assert!(login.wait().expect("codex login ends").success());
    }

    /// `agent start KIND`, which must fail as BLOCKED at a dialog whose
    /// name holds `dialog`; the agent's pane, blocked on input.
    fn start_blocked(&self, kind: &str, dialog: &str) -> String {
        let out = self.server.ctl(&[
            "agent",
            "start",
            kind,
            "--workspace",
            &self.workspace,
            "--json",
        ]);
        assert_eq!(out.status.code(), Some(3), "{out:?}");
        let error: Value = serde_json::from_slice(&out.stdout)
            .or_else(|_| serde_json::from_slice(&out.stderr))
            .expect("a JSON error");
        assert_eq!(error["error"]["code"], "BLOCKED", "{error}");
        let message = error["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(dialog), "names the dialog: {message}");
        let pane = self.server.ls()["workspaces"][0]["tabs"][0]["panes"][0]["id"]
            .as_str()
            .expect("the agent's pane")
            .to_string();
        let blocked = self.wait_lifecycle(&pane, "blocked");
        assert_eq!(blocked["attention"], "input_required", "{blocked}");
        pane
    }

    fn new_pane(&self, argv: &[&str]) -> String {
        let mut args = vec!["new", &self.workspace, "--"];
        args.extend_from_slice(argv);
        self.server.ctl_ok(&args)
    }

    /// The pane's screen, each row without its trailing blanks.
    fn screen(&self, pane: &str) -> String {
        let out = self.server.ctl(&["read", pane, "--screen"]);
        let text = String::from_utf8_lossy(&out.stdout);
        let rows: Vec<&str> = text.lines().map(str::trim_end).collect();
        rows.join("\n")
    }

    /// Waits until the pane's screen satisfies `check`.
    fn wait_screen(&self, pane: &str, what: &str, check: impl Fn(&str) -> bool) -> String {
        let deadline = std::time::Instant::now() + DEADLINE;
        loop {
            let screen = self.screen(pane);
            if check(&screen) {
                return screen;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "timed out after {DEADLINE:?} waiting for {what}; pane {pane} shows:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until `ctl ls` shows the pane as `check` wants it.
    fn wait_pane(&self, pane: &str, what: &str, check: impl Fn(&Value) -> bool) -> Value {
        let deadline = std::time::Instant::now() + DEADLINE;
        loop {
            let listed = self.server.pane(pane);
            if let Some(listed) = listed.as_ref().filter(|p| check(p)) {
                return listed.clone();
            }
            assert!(
                std::time::Instant::now() < deadline,
                "timed out after {DEADLINE:?} waiting for {what}; pane {pane} is {listed:?} \
                 and shows:\n{}",
                self.screen(pane)
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until claude's transcript of session `id` holds `text`.
    fn wait_transcript(&self, id: &str, text: &str) {
        let projects = self.home.join(".claude/projects");
        wait_for("the prompt in claude's transcript", DEADLINE, || {
            let transcript = projects
                .read_dir()
                .ok()?
                .filter_map(Result::ok)
                .map(|dir| dir.path().join(format!("{id}.jsonl")))
                .find(|path| path.exists())?;
            std::fs::read_to_string(transcript)
                .ok()?
                .contains(text)
                .then_some(())
        });
    }

    /// Waits until the saved state holds session `id` for the pane: what a
    /// server killed now comes back with.
    fn wait_saved_session(&self, pane: &str, id: &str) {
        self.server
            .wait_snapshot("the session id saved", |snapshot| {
                snapshot.to_string().contains(id) && snapshot.to_string().contains(pane)
            });
    }

    fn wait_lifecycle(&self, pane: &str, lifecycle: &str) -> Value {
        self.wait_pane(pane, &format!("pane {pane} {lifecycle}"), |p| {
            p["lifecycle"] == lifecycle
        })
    }

    /// Puts the agent in `pane` to sleep — by its own exit command, well
    /// before any signal — then wakes it, and says how long each took.
    fn sleep_and_wake(&self, pane: &str, agent: &str) {
        let asleep = std::time::Instant::now();
        self.server.ctl_ok(&["hibernate", pane]);
        let took = asleep.elapsed();
        assert_eq!(
            self.server.pane(pane).expect("the pane")["state"],
            "HIBERNATED"
        );
        assert!(
            took < Duration::from_secs(10),
            "asleep in {took:?}: by /exit, not SIGTERM"
        );
        let woke = std::time::Instant::now();
        self.server.ctl_ok(&["wake", pane]);
        eprintln!(
            "{agent}: asleep in {took:?}, up again in {:?}",
            woke.elapsed()
        );
    }

    /// The command line of the pane's foreground process, as `ctl explain`
    /// shows it.
    fn foreground(&self, pane: &str) -> String {
        let explained = self.server.ctl_json(&["explain", pane]);
        explained["foreground"]
            .as_array()
            .map(|words| {
                let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
                words.join(" ")
            })
            .unwrap_or_default()
    }
}

fn session_id(pane: &Value) -> Option<String> {
    pane["agent"]["session_id"].as_str().map(str::to_string)
}

/// Claude Code's prompt box, empty or not.
fn claude_prompt(screen: &str) -> bool {
    screen.contains("? for shortcuts") || screen.lines().any(|l| l.starts_with('❯'))
}

/// Codex starts a `codex app-server` daemon of its own (parent 1) that
/// outlives the session; the test ends it with everything else it started.
impl Drop for Offline {
    fn drop(&mut self) {
        let _ = Command::new("pkill")
            .args(["-KILL", "-f"])
            .arg(self.home.join(".codex"))
            .status();
    }
}

/// Codex at its composer, past its start-up splash (an Enter typed during
/// the splash is lost).
fn codex_ready(screen: &str) -> bool {
    screen.contains("← for agents")
}

/// A row ending in `first` and the next one in `second`: two lines in an
/// input box.
fn two_lines(screen: &str, first: &str, second: &str) -> bool {
    let rows: Vec<&str> = screen.lines().collect();
    rows.windows(2)
        .any(|pair| pair[0].ends_with(first) && pair[1].trim() == second)
}

#[test]
fn real_claude_is_known_launched_and_typed_with_its_session_and_no_hook() {
    let Some(claude) = real_cli("claude", "real_claude_is_known_launched_and_typed") else {
        return;
    };
    let offline = Offline::start(&claude);
    offline.onboard_claude(true);

    let launched = offline.new_pane(&["claude"]);
    offline.wait_screen(&launched, "claude's prompt", claude_prompt);
    let pane = offline.wait_lifecycle(&launched, "idle");
    assert_eq!(pane["agent"]["kind"], "claude", "{pane}");
    let preset = session_id(&pane).expect("the id signaltty gave it at launch");
    assert!(
        offline
            .home
            .join(".claude/sessions")
            .read_dir()
            .expect("its sessions dir")
            .filter_map(Result::ok)
            .any(|f| std::fs::read_to_string(f.path()).is_ok_and(|t| t.contains(&preset))),
        "claude runs the session signaltty named"
    );

    let shell = offline.new_pane(&["sh"]);
    offline
        .server
        .ctl_ok(&["send", &shell, "claude", "--enter"]);
    offline.wait_screen(&shell, "claude's prompt in the shell", claude_prompt);
    let pane = offline.wait_pane(&shell, "claude's session id, from its files", |p| {
        p["agent"]["kind"] == "claude" && session_id(p).is_some()
    });
    assert_ne!(session_id(&pane), Some(preset), "its own session");
    let explained = offline.server.ctl_ok(&["explain", &shell]);
    assert!(explained.contains(".claude/sessions/"), "{explained}");
}

#[test]
fn real_claude_reads_shift_enter_as_a_new_line() {
    let Some(claude) = real_cli("claude", "real_claude_reads_shift_enter_as_a_new_line") else {
        return;
    };
    let offline = Offline::start(&claude);
    offline.onboard_claude(true);
    let pane = offline.new_pane(&["claude"]);
    offline.wait_screen(&pane, "claude's prompt", claude_prompt);
    let explained = offline.server.ctl_ok(&["explain", &pane]);
    assert!(
        explained.contains("Shift+Enter is sent as alt+enter (ESC CR)"),
        "claude asks for no keyboard protocol: {explained}"
    );
    offline.server.ctl_ok(&["send", &pane, "first line"]);
    offline.server.ctl_ok(&["send-keys", &pane, "shift+enter"]);
    offline.server.ctl_ok(&["send", &pane, "second line"]);
    offline.wait_screen(&pane, "two lines in claude's prompt box", |s| {
        two_lines(s, "first line", "second line")
    });
    // Enter sends both lines as one prompt: its transcript holds them.
    offline.server.ctl_ok(&["send-keys", &pane, "enter"]);
    let id = session_id(&offline.wait_lifecycle(&pane, "idle")).expect("its session");
    offline.wait_transcript(&id, r"first line\nsecond line");
}

#[test]
fn real_claude_resumes_with_its_flags_after_the_server_is_killed() {
    let Some(claude) = real_cli("claude", "real_claude_resumes_after_a_kill") else {
        return;
    };
    let mut offline = Offline::start(&claude);
    offline.onboard_claude(true);
    let pane = offline.new_pane(&["claude", "--model", "sonnet", "--permission-mode", "plan"]);
    offline.wait_screen(&pane, "claude's prompt", claude_prompt);
    // A conversation to resume: claude saves it with its first prompt.
    offline.wait_lifecycle(&pane, "idle");
    offline.server.ctl_ok(&["agent", "prompt", &pane, "hello"]);
    let id = session_id(&offline.server.pane(&pane).expect("the pane")).expect("its session");
    offline.wait_transcript(&id, "hello");
    offline.wait_saved_session(&pane, &id);

    offline.server.kill9();
    offline.server.launch();
    offline.wait_pane(&pane, "the pane resumable", |p| p["state"] == "RESUMABLE");
    offline.server.ctl_ok(&["resume", &pane]);
    offline.wait_screen(&pane, "claude's prompt again", claude_prompt);
    assert_eq!(
        offline.foreground(&pane),
        format!("claude --resume {id} --model sonnet --permission-mode plan")
    );
    let screen = offline.screen(&pane);
    assert!(
        screen.contains("hello"),
        "the conversation is back: {screen}"
    );
}

#[test]
fn real_claude_hibernates_with_its_exit_command_and_wakes_to_its_conversation() {
    let Some(claude) = real_cli("claude", "real_claude_hibernates_and_wakes") else {
        return;
    };
    let offline = Offline::start(&claude);
    offline.onboard_claude(true);
    let pane = offline.new_pane(&["claude", "--model", "sonnet"]);
    offline.wait_screen(&pane, "claude's prompt", claude_prompt);
    offline.wait_lifecycle(&pane, "idle");
    offline.server.ctl_ok(&["agent", "prompt", &pane, "hello"]);
    let id = session_id(&offline.server.pane(&pane).expect("the pane")).expect("its session");
    offline.wait_transcript(&id, "hello");
    offline
        .server
        .ctl_ok(&["agent", "wait", &pane, "--timeout", "30"]);

    offline.sleep_and_wake(&pane, "claude");
    assert_eq!(
        offline.foreground(&pane),
        format!("claude --resume {id} --model sonnet")
    );
    offline.wait_screen(&pane, "the conversation back", |s| s.contains("hello"));
}

#[test]
fn real_claude_runs_its_installed_hooks_with_signaltty_off_its_path() {
    let Some(claude) = real_cli("claude", "real_claude_runs_its_installed_hooks") else {
        return;
    };
    let offline = Offline::start(&claude);
    offline.onboard_claude(true);
    let installed = offline
        .server
        .command()
        .env("HOME", &offline.home)
        .args(["hooks", "install", "claude"])
        .output()
        .expect("signaltty hooks install");
    assert!(installed.status.success(), "{installed:?}");

    let pane = offline.new_pane(&["claude"]);
    offline.wait_screen(&pane, "claude's prompt", claude_prompt);
    offline.wait_lifecycle(&pane, "idle");
    offline.server.ctl_ok(&["agent", "prompt", &pane, "hello"]);
    // The turn fails at once offline; only its hooks tell signaltty it
    // ended (the screen never showed it working).
    offline.wait_lifecycle(&pane, "done");
    let screen = offline.screen(&pane);
    assert!(!screen.contains("hook error"), "{screen}");
}

#[test]
fn real_claude_waits_at_its_first_run_dialogs_as_blocked() {
    let Some(claude) = real_cli("claude", "real_claude_waits_at_its_first_run_dialogs") else {
        return;
    };
    let offline = Offline::start(&claude);
    offline.onboard_claude(false);
    let pane = offline.start_blocked("claude", "trust");
    // Trusted: the next question is the key's.
    offline.server.ctl_ok(&["send-keys", &pane, "enter"]);
    offline.wait_screen(&pane, "the API key question", |s| {
        s.contains("Do you want to use this API key?")
    });
    offline.wait_lifecycle(&pane, "blocked");
    offline.server.ctl_ok(&["send-keys", &pane, "up", "enter"]);
    offline.wait_screen(&pane, "claude's prompt", claude_prompt);
    offline.wait_lifecycle(&pane, "idle");
}

#[test]
fn real_codex_is_known_and_reads_shift_enter_as_a_new_line() {
    let Some(codex) = real_cli("codex", "real_codex_is_known_and_reads_shift_enter") else {
        return;
    };
    let offline = Offline::start(&codex);
    offline.log_codex_in(&codex);
    let launched = offline.new_pane(&["codex"]);
    offline.wait_screen(&launched, "codex ready", codex_ready);
    let pane = offline.wait_lifecycle(&launched, "idle");
    assert_eq!(pane["agent"]["kind"], "codex", "{pane}");
    let explained = offline.server.ctl_ok(&["explain", &launched]);
    assert!(explained.contains("kitty keyboard protocol"), "{explained}");

    offline.server.ctl_ok(&["send", &launched, "first line"]);
    offline
        .server
        .ctl_ok(&["send-keys", &launched, "shift+enter"]);
    offline.server.ctl_ok(&["send", &launched, "second line"]);
    offline.wait_screen(&launched, "two lines in codex's composer", |s| {
        two_lines(s, "first line", "second line")
    });
    // Sent: codex writes its rollout, whose id signaltty reads.
    offline.server.ctl_ok(&["send-keys", &launched, "enter"]);
    let pane = offline.wait_pane(&launched, "codex's session id, from its rollout", |p| {
        session_id(p).is_some()
    });
    let id = session_id(&pane).expect("an id");
    let rollouts = offline.home.join(".codex/sessions");
    assert!(
        walk(&rollouts)
            .iter()
            .any(|f| f.to_string_lossy().contains(&id)),
        "{id} is a rollout's"
    );

    let shell = offline.new_pane(&["sh"]);
    offline.server.ctl_ok(&["send", &shell, "codex", "--enter"]);
    offline.wait_pane(&shell, "codex typed into a shell", |p| {
        p["agent"]["kind"] == "codex"
    });
}

#[test]
fn real_codex_resumes_with_its_flags_after_the_server_is_killed() {
    let Some(codex) = real_cli("codex", "real_codex_resumes_after_a_kill") else {
        return;
    };
    let mut offline = Offline::start(&codex);
    offline.log_codex_in(&codex);
    let pane = offline.new_pane(&["codex", "--model", "o3", "--sandbox", "read-only"]);
    // Idle only once codex is ready: a prompt typed during its start-up
    // splash loses its Enter.
    offline.wait_lifecycle(&pane, "idle");
    offline.server.ctl_ok(&["agent", "prompt", &pane, "hello"]);
    let id =
        session_id(&offline.wait_pane(&pane, "codex's session id", |p| session_id(p).is_some()))
            .expect("an id");
    offline.wait_saved_session(&pane, &id);

    offline.server.kill9();
    offline.server.launch();
    offline.wait_pane(&pane, "the pane resumable", |p| p["state"] == "RESUMABLE");
    offline.server.ctl_ok(&["resume", &pane]);
    assert!(
        offline
            .foreground(&pane)
            .ends_with(&format!("resume {id} --model o3 --sandbox read-only")),
        "{}",
        offline.foreground(&pane)
    );
    offline.wait_screen(&pane, "the conversation back", |s| s.contains("hello"));
}

#[test]
fn real_codex_hibernates_with_its_exit_command_and_wakes_to_its_conversation() {
    let Some(codex) = real_cli("codex", "real_codex_hibernates_and_wakes") else {
        return;
    };
    let offline = Offline::start(&codex);
    offline.log_codex_in(&codex);
    let pane = offline.new_pane(&["codex", "--model", "o3"]);
    offline.wait_lifecycle(&pane, "idle");
    offline.server.ctl_ok(&["agent", "prompt", &pane, "hello"]);
    let id =
        session_id(&offline.wait_pane(&pane, "codex's session id", |p| session_id(p).is_some()))
            .expect("an id");
    // Offline, codex retries the dead address for minutes: Esc ends the
    // turn, as a user would.
    offline.wait_lifecycle(&pane, "working");
    offline.server.ctl_ok(&["send-keys", &pane, "escape"]);
    offline.wait_pane(&pane, "its turn over", |p| {
        p["lifecycle"] == "idle" || p["lifecycle"] == "done"
    });
    offline.wait_screen(&pane, "its composer empty again", |s| {
        s.lines().any(|l| l.starts_with("› Ask"))
    });

    offline.sleep_and_wake(&pane, "codex");
    assert!(
        offline
            .foreground(&pane)
            .ends_with(&format!("resume {id} --model o3")),
        "{}",
        offline.foreground(&pane)
    );
    offline.wait_screen(&pane, "the conversation back", |s| s.contains("hello"));
}

#[test]
fn real_codex_waits_at_its_sign_in_dialog_as_blocked() {
    let Some(codex) = real_cli("codex", "real_codex_waits_at_its_sign_in_dialog") else {
        return;
    };
    // No saved login: codex asks how it is to be used.
    let offline = Offline::start(&codex);
    offline.start_blocked("codex", "sign-in dialog");
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in dir.read_dir().into_iter().flatten().filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files
}
