//! End to end: `signaltty hooks install|uninstall|status`, the real binary
//! run against a temp HOME (never the user's own config), and a hook it
//! installed reaching the server from a stand-in agent.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

use support::BIN;
use support::agents::server_with_agents;

/// `signaltty hooks ARGS` with only `env` in its environment, in `cwd`.
fn hooks(env: &[(&str, &Path)], cwd: &Path, args: &[&str]) -> Output {
    let mut command = Command::new(BIN);
    command.env_clear().current_dir(cwd).arg("hooks").args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().unwrap()
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// A settings file as Claude Code writes one (two-space JSON).
const SETTINGS: &str = "{\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(ls)\"\n    ]\n  }\n}\n";

#[test]
fn claude_hooks_install_previews_merges_once_and_uninstalls_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let settings = home.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, SETTINGS).unwrap();
    std::fs::set_permissions(&settings, std::fs::Permissions::from_mode(0o640)).unwrap();
    let env = [("HOME", home)];

    let preview = stdout(&hooks(&env, home, &["install", "claude", "--dry-run"]));
    assert!(
        preview.contains("--- ") && preview.contains("+++ "),
        "{preview}"
    );
    assert!(preview.contains("+  \"hooks\": {"), "{preview}");
    assert!(
        preview.contains("signaltty}\\\" ctl hook claude Stop"),
        "{preview}"
    );
    assert!(preview.contains("nothing was written"), "{preview}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), SETTINGS);

    let said = stdout(&hooks(&env, home, &["install", "claude"]));
    assert!(
        said.contains("installed claude's hooks (10 events)"),
        "{said}"
    );
    let installed = std::fs::read_to_string(&settings).unwrap();
    assert!(installed.starts_with("{\n  \"model\": \"opus\",\n  \"permissions\""));
    let value: serde_json::Value = serde_json::from_str(&installed).unwrap();
    let stop = &value["hooks"]["Stop"][0]["hooks"][0];
    assert_eq!(stop["type"], "command");
    assert_eq!(
        stop["command"],
        "[ -z \"$SIGNALTTY_PANE\" ] || \"${SIGNALTTY_BIN:-signaltty}\" ctl hook claude Stop"
    );
    assert_eq!(mode(&settings), 0o640, "the file keeps its mode");

    let again = stdout(&hooks(&env, home, &["install", "claude"]));
    assert!(again.contains("already"), "{again}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), installed);
    let status = stdout(&hooks(&env, home, &["status"]));
    assert!(
        status.contains(&format!("claude    installed  {}", settings.display())),
        "{status}"
    );

    let preview = stdout(&hooks(&env, home, &["uninstall", "claude", "--dry-run"]));
    assert!(preview.contains("-  \"hooks\": {"), "{preview}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), installed);
    stdout(&hooks(&env, home, &["uninstall", "claude"]));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), SETTINGS);
    let status = stdout(&hooks(&env, home, &["status"]));
    assert!(status.contains("claude    not installed"), "{status}");
}

#[test]
fn a_file_that_does_not_parse_is_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let settings = home.join(".gemini/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let broken =
        "{\n  // gemini allows comments; signaltty does not edit around them\n  \"a\": 1\n}\n";
    std::fs::write(&settings, broken).unwrap();
    for args in [
        &["install", "gemini"][..],
        &["install", "gemini", "--dry-run"],
    ] {
        let out = hooks(&[("HOME", home)], home, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(err.contains(&settings.display().to_string()), "{err}");
        assert!(
            err.contains("cannot be parsed") && err.contains("not touched"),
            "{err}"
        );
    }
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), broken);
}

#[test]
fn codex_notify_goes_where_codex_home_says_and_never_over_another() {
    let dir = tempfile::tempdir().unwrap();
    let codex_home = dir.path().join("codex-home");
    std::fs::create_dir_all(&codex_home).unwrap();
    let config = codex_home.join("config.toml");
    let original = "# mine\nmodel = \"o3\"\n\n[tui]\nnotifications = true\n";
    std::fs::write(&config, original).unwrap();
    let env = [("HOME", dir.path()), ("CODEX_HOME", codex_home.as_path())];
    stdout(&hooks(&env, dir.path(), &["install", "codex"]));
    let installed = std::fs::read_to_string(&config).unwrap();
    let parsed: toml::Table = toml::from_str(&installed).unwrap();
    assert_eq!(parsed["notify"][0].as_str(), Some("sh"), "{installed}");
    assert!(installed.starts_with("# mine\n"), "{installed}");
    assert!(!dir.path().join(".codex").exists());
    stdout(&hooks(&env, dir.path(), &["uninstall", "codex"]));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), original);

    let theirs = "notify = [\"notify-send\", \"codex\"]\n";
    std::fs::write(&config, theirs).unwrap();
    let out = hooks(&env, dir.path(), &["install", "codex"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("will not replace it"), "{err}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), theirs);
}

#[test]
fn copilots_project_hooks_go_to_the_repository_root_and_go_away_again() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    let sub = repo.join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::create_dir(repo.join(".git")).unwrap();
    let env = [("HOME", dir.path())];
    let args = ["install", "copilot", "--scope", "project"];
    stdout(&hooks(&env, &sub, &args));
    let file = repo.join(".github/hooks/signaltty.json");
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(value["version"], 1);
    assert!(
        value["hooks"]["sessionEnd"][0]["bash"]
            .as_str()
            .unwrap()
            .ends_with("\"${SIGNALTTY_BIN:-signaltty}\" ctl hook copilot sessionEnd")
    );
    let said = stdout(&hooks(
        &env,
        &sub,
        &["uninstall", "copilot", "--scope", "project"],
    ));
    assert!(said.contains("removed"), "{said}");
    assert!(!file.exists());
}

#[test]
fn an_installed_hook_reaches_the_server_with_signaltty_off_the_path() {
    // A stand-in Claude Code runs its Stop hook the way the real one does:
    // the command from its settings, through a shell, the JSON on stdin —
    // with a PATH that has no signaltty on it, as under systemd.
    let session = "7d3e5a9c-1b2f-4c8d-9e0a-3f6b2d1c4e5a";
    let body = format!(
        r#"cmd=$(grep -o '"command": ".*ctl hook claude Stop"' "$HOME/.claude/settings.json" | sed 's/^"command": "//; s/"$//; s/\\"/"/g')
printf '? for shortcuts\n'
export PATH=/usr/bin:/bin
command -v signaltty && echo 'signaltty is on this PATH after all'
echo '{{"session_id":"{session}","hook_event_name":"Stop"}}' | sh -c "$cmd"
exec sleep 1000"#
    );
    let (server, root) = server_with_agents(&[("claude", &body)]);
    let home = root.join("home");
    stdout(&hooks(&[("HOME", &home)], &home, &["install", "claude"]));
    let ws = server.workspace("hooked", &[]);
    let pane = server.ctl_ok(&["new", &ws, "--", "claude"]);
    let done = server.wait_pane(&pane, "the Stop hook's effect", |p| {
        p["lifecycle"] == "done" && p["agent"]["session_id"] == session
    });
    assert_eq!(done["attention"], "unread");
}
