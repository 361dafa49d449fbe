//! The notification command: `[notify] command = [...]` runs (an argv,
//! never a shell) when a pane nobody is looking at becomes blocked,
//! finishes or fails; rate-limited, its errors logged, never holding up a
//! pane.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use support::terminal::Terminal;
use support::{TestServer, wait_for};

const DETACH: &[u8] = b"\x1d";
/// Separates the arguments the recorder writes.
const SEP: char = '\u{1f}';

/// A stand-in for notify-send: appends its arguments, one call a line, to
/// `calls`, then waits until `release` exists (at most 30 s).
struct Recorder {
    dir: tempfile::TempDir,
}

impl Recorder {
    fn new() -> Recorder {
        let dir = support::short_temp_dir();
        let script = format!(
            "#!/bin/sh\n\
             for a in \"$@\"; do printf '%s\\037' \"$a\"; done >> '{calls}'\n\
             printf '\\n' >> '{calls}'\n\
             i=0; while [ ! -e '{release}' ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done\n",
            calls = dir.path().join("calls").display(),
            release = dir.path().join("release").display(),
        );
        let path = dir.path().join("notify");
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        Recorder { dir }
    }

    fn program(&self) -> PathBuf {
        self.dir.path().join("notify")
    }

    /// Every call so far, as its arguments.
    fn calls(&self) -> Vec<Vec<String>> {
        std::fs::read_to_string(self.dir.path().join("calls"))
            .unwrap_or_default()
            .lines()
            .map(|l| {
                l.trim_end_matches(SEP)
                    .split(SEP)
                    .map(str::to_string)
                    .collect()
            })
            .collect()
    }

    /// Waits for a call whose arguments include `pane`.
    fn wait_call(&self, pane: &str) -> Vec<String> {
        wait_for(
            &format!("a notification for pane {pane}"),
            Duration::from_secs(15),
            || {
                self.calls()
                    .into_iter()
                    .find(|c| c.iter().any(|a| a == pane))
            },
        )
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        // Lets every waiting call end.
        let _ = std::fs::write(self.dir.path().join("release"), b"");
    }
}

/// A server whose config runs `command` (a TOML array) to notify.
fn server_with(command: &str) -> (tempfile::TempDir, TestServer) {
    let config_dir = support::short_temp_dir();
    let config = config_dir.path().join("config.toml");
    std::fs::write(&config, format!("[notify]\ncommand = {command}\n")).unwrap();
    let server = TestServer::start_with(
        true,
        vec![("SIGNALTTY_CONFIG".into(), config.display().to_string())],
    );
    (config_dir, server)
}

fn recorder_server(recorder: &Recorder) -> (tempfile::TempDir, TestServer) {
    server_with(&format!(
        "[\"{}\", \"{{state}}\", \"{{title}}\", \"{{body}}\", \"{{pane}}\", \"{{workspace}}\"]",
        recorder.program().display()
    ))
}

fn hook(server: &TestServer, event: &str, pane: &str, message: &str) {
    let payload = serde_json::json!({ "message": message }).to_string();
    let out = support::hook(server, "claude", event, pane, payload.as_bytes());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Waits until the server log says the notifier ran (or skipped) for
/// `pane`; the notifier logs in the order changes reach it.
fn wait_log(server: &TestServer, what: &str, pane: &str) -> String {
    wait_for(
        &format!("{what:?} for pane {pane} in the log"),
        Duration::from_secs(15),
        || {
            let log = server.log();
            log.lines()
                .any(|l| l.contains(what) && l.contains(pane))
                .then_some(log)
        },
    )
}

#[test]
fn a_pane_nobody_watches_notifies_when_it_fails_finishes_or_blocks() {
    let recorder = Recorder::new();
    let (_config, server) = recorder_server(&recorder);
    let ws = server.workspace("notes", &[]);

    let failed = server.ctl_ok(&["new", &ws, "--title", "build", "--", "sh", "-c", "exit 3"]);
    let call = recorder.wait_call(&failed);
    assert_eq!(
        call,
        [
            "failed",
            "build failed (exit 3)",
            &format!("notes · {}", server.dir.path().display()),
            &failed,
            "notes"
        ]
    );

    let finished = server.ctl_ok(&["new", &ws, "--title", "tests", "--", "true"]);
    let call = recorder.wait_call(&finished);
    assert_eq!(call[..2], ["done", "tests is done"]);

    let agent = server.ctl_ok(&["new", &ws, "--title", "agent"]);
    hook(
        &server,
        "PermissionRequest",
        &agent,
        "Allow Bash(rm -rf target)?",
    );
    let call = recorder.wait_call(&agent);
    assert_eq!(
        call[..3],
        ["blocked", "agent needs you", "Allow Bash(rm -rf target)?"]
    );
}

#[test]
fn a_watched_pane_stays_quiet_and_values_never_reach_a_shell_or_an_option() {
    let recorder = Recorder::new();
    let (_config, server) = recorder_server(&recorder);
    let ws = server.workspace("quiet", &[]);
    let watched = server.ctl_ok(&["new", &ws]);
    let other = server.ctl_ok(&["new", &ws]);

    let mut command: Command = server.command();
    command.args(["attach", &watched]);
    let mut terminal = Terminal::run(&command, 24, 80);
    wait_for("the client to attach", Duration::from_secs(15), || {
        (!terminal.text().trim().is_empty()).then_some(())
    });
    hook(&server, "PermissionRequest", &watched, "while watched");
    let mark = server.dir.path().join("mark");
    let hostile = format!("-rf $(touch {})", mark.display());
    hook(&server, "Stop", &other, &hostile);
    let call = recorder.wait_call(&other);
    // The changes reach the notifier in order: the watched one came first
    // and was never run.
    let log = wait_log(&server, "running the notification command", &other);
    assert!(!log.contains(&format!("pane={watched}")), "{log}");
    assert!(recorder.calls().iter().all(|c| !c.contains(&watched)));
    // Taken literally, and not as an option.
    assert_eq!(call[2], format!(" {hostile}"));
    assert!(!Path::new(&mark).exists(), "nothing ran through a shell");

    // Detached, the same pane notifies again.
    terminal.type_bytes(DETACH);
    assert_eq!(terminal.wait_exit(), 0);
    hook(&server, "Stop", &watched, "after detach");
    let call = recorder.wait_call(&watched);
    assert_eq!(call[..3], ["done", "sh is done", "after detach"]);
}

#[test]
fn notifications_are_rate_limited_and_a_hanging_command_holds_nothing_up() {
    let recorder = Recorder::new();
    let (_config, server) = recorder_server(&recorder);
    let ws = server.workspace("busy", &[]);
    let first = server.new_sh(&ws, "exit 1");
    recorder.wait_call(&first);
    // That call still hangs; another pane's runs beside it.
    let second = server.new_sh(&ws, "exit 2");
    recorder.wait_call(&second);
    // And every pane goes on as before.
    let shell = server.ctl_ok(&["new", &ws]);
    server.ctl_ok(&["send", &shell, "echo alive-$((2+2))", "--enter"]);
    server.wait_output(&shell, "alive-4");

    // The same pane again within the interval: logged, not run.
    hook(&server, "PermissionRequest", &shell, "first");
    recorder.wait_call(&shell);
    hook(&server, "UserPromptSubmit", &shell, "");
    hook(&server, "PermissionRequest", &shell, "second");
    wait_log(&server, "rate-limited", &shell);
    assert_eq!(
        recorder
            .calls()
            .iter()
            .filter(|c| c.contains(&shell))
            .count(),
        1
    );
}

#[test]
fn a_command_that_cannot_run_is_logged_and_the_server_goes_on() {
    let (_config, server) = server_with("[\"/nonexistent/notifier\", \"{title}\"]");
    let ws = server.workspace("broken", &[]);
    let pane = server.new_sh(&ws, "exit 5");
    let log = wait_log(&server, "notification command failed", &pane);
    assert!(log.contains("could not run /nonexistent/notifier"), "{log}");
    let shell = server.ctl_ok(&["new", &ws]);
    server.ctl_ok(&["send", &shell, "echo fine-$((1+1))", "--enter"]);
    server.wait_output(&shell, "fine-2");
}

#[test]
fn a_bad_notify_command_stops_the_server_naming_the_file() {
    let config_dir = support::short_temp_dir();
    let config = config_dir.path().join("config.toml");
    std::fs::write(
        &config,
        "[notify]\ncommand = [\"notify-send\", \"{titel}\"]\n",
    )
    .unwrap();
    let mut server = TestServer::prepare(
        true,
        vec![("SIGNALTTY_CONFIG".into(), config.display().to_string())],
    );
    let out = server
        .command()
        .args(["up", "--foreground"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("config.toml") && err.contains("{titel}") && err.contains("{title}"),
        "{err}"
    );
    server.kill9();
}
