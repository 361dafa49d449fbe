//! End to end: every agent kind reads the screens captured from its real
//! CLI the same way through `ctl explain`, and the newer kinds come back
//! after a restart the way their data files say — resumed with their
//! official command, or, with none, as a tombstone that respawns.

mod support;

use support::TestServer;
use support::agents::{captured_screen, runs, server_with_agents};

/// (kind, capture in adapters/tests/screens, title at the time, state)
const CAPTURES: &[(&str, &str, &str, &str)] = &[
    ("claude", "claude-trust", "", "blocked (input)"),
    ("claude", "claude-api-key", "", "blocked (input)"),
    (
        "claude",
        "claude-permission",
        "✳ Claude Code",
        "blocked (permission)",
    ),
    ("claude", "claude-working", "⠐ Claude Code", "working"),
    (
        "claude",
        "claude-working-spinner",
        "⠂ Claude Code",
        "working",
    ),
    ("claude", "claude-idle", "Claude Code", "idle"),
    ("claude", "claude-done", "Claude Code", "idle"),
    ("claude", "claude-idle-draft", "Claude Code", "idle"),
    ("claude", "claude-theme", "", "blocked (input)"),
    ("claude", "claude-security", "", "blocked (input)"),
    ("claude", "claude-login", "", "blocked (input)"),
    ("codex", "codex-idle", "proj", "idle"),
    ("codex", "codex-idle-draft", "proj", "idle"),
    ("codex", "codex-starting", "proj", "unknown"),
    ("codex", "codex-sign-in", "", "blocked (input)"),
    ("codex", "codex-trust", "", "blocked (input)"),
    ("codex", "codex-working", "⠼ say hi | proj2", "working"),
    (
        "gemini",
        "gemini-trust",
        "◇  Ready (proj3)",
        "blocked (input)",
    ),
    (
        "gemini",
        "gemini-auth",
        "◇  Ready (proj3)",
        "blocked (input)",
    ),
    (
        "gemini",
        "gemini-api-key",
        "◇  Ready (proj3)",
        "blocked (input)",
    ),
    ("gemini", "gemini-idle", "◇  Ready (proj3)", "idle"),
    ("gemini", "gemini-working", "✦  Working… (proj3)", "working"),
    (
        "copilot",
        "copilot-trust",
        "GitHub Copilot",
        "blocked (input)",
    ),
    ("copilot", "copilot-idle", "GitHub Copilot", "idle"),
    ("opencode", "opencode-idle", "OpenCode", "idle"),
    ("opencode", "opencode-resumed", "OpenCode", "idle"),
    ("opencode", "opencode-working", "OpenCode", "working"),
    ("opencode", "opencode-1.0.0-working", "OpenCode", "working"),
    ("qwen", "qwen-auth", "Qwen - p-qwen", "blocked (input)"),
    ("qwen", "qwen-idle", "Qwen - p-qwen", "idle"),
    ("qwen", "qwen-working", "Qwen - p-qwen", "working"),
    ("qwen", "qwen-error", "Qwen - p-qwen", "idle"),
    ("qwen", "qwen-0.24.4-idle", "Qwen - p-qwen", "idle"),
    ("amp", "amp-login", "", "blocked (input)"),
    ("amp", "amp-offline", "", "unknown"),
    ("pi", "pi-idle", "π - p-pi", "idle"),
    ("pi", "pi-working", "π - p-pi", "working"),
    ("pi", "pi-retrying", "π - p-pi", "working"),
    ("grok", "grok-idle", "", "idle"),
    ("grok", "grok-working", "", "working"),
    ("grok", "grok-error", "", "idle"),
    ("aider", "aider-git-question", "", "blocked (input)"),
    ("aider", "aider-question", "", "blocked (input)"),
    ("aider", "aider-idle", "", "idle"),
    ("aider", "aider-working", "", "working"),
];

#[test]
fn ctl_explain_reads_every_captured_screen_with_its_agents_rules() {
    let server = TestServer::start();
    for (kind, capture, title, state) in CAPTURES {
        let file = captured_screen(capture);
        let out = server.ctl_json(&[
            "explain",
            "--file",
            file.to_str().unwrap(),
            "--agent",
            kind,
            "--title",
            title,
        ]);
        assert_eq!(out["kind"], *kind, "{capture}");
        assert_eq!(out["state"], *state, "{capture}: {out}");
        let known = *state != "unknown";
        assert_eq!(out["rule"].is_string(), known, "{capture}: {out}");
        assert_eq!(
            out["evidence"].as_array().is_some_and(|e| !e.is_empty()),
            known,
            "{capture}: {out}"
        );
        assert_eq!(out["rules"], format!("bundled {kind} rules"), "{capture}");
    }
}

#[test]
fn every_capture_is_checked() {
    let dir = captured_screen("claude-idle")
        .parent()
        .unwrap()
        .to_path_buf();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let capture = name.trim_end_matches(".txt");
        assert!(
            CAPTURES.iter().any(|(_, c, _, _)| *c == capture),
            "{name} is in adapters/tests/screens but not in CAPTURES"
        );
    }
}

/// Prints the prompt kiro-cli waits at (see agents/kiro.toml), then waits.
const KIRO_STAND_IN: &str = "printf '> '\nexec sleep 1000";
/// Prints aider's prompt, then waits.
const AIDER_STAND_IN: &str = "printf 'Aider v0.86.2\\n> '\nexec sleep 1000";

#[test]
fn a_kind_with_a_resume_comes_back_resumable_and_resumes_with_its_own_command() {
    let (mut server, root) = server_with_agents(&[("kiro-cli", KIRO_STAND_IN)]);
    let ws = server.workspace("kiro", &[]);
    let pane = server.ctl_ok(&["new", &ws, "--", "kiro-cli", "chat"]);
    server.wait_pane(&pane, "kiro, idle", |p| {
        p["agent"]["kind"] == "kiro" && p["lifecycle"] == "idle"
    });
    let id = "f2946a26-3735-4b08-8d05-c928010302d5";
    server.ctl_ok(&["report-session", &pane, id, "--agent", "kiro"]);
    server.wait_snapshot("the session id on disk", |s| s.to_string().contains(id));

    server.kill9();
    server.launch();
    assert_eq!(server.pane(&pane).unwrap()["state"], "RESUMABLE");
    server.ctl_ok(&["resume", &pane]);
    assert_eq!(server.pane(&pane).unwrap()["state"], "LIVE");
    assert_eq!(
        runs(&root, "kiro-cli").last().unwrap(),
        &format!("chat --resume-id {id}")
    );
}

#[test]
fn a_kind_with_no_official_resume_comes_back_as_a_tombstone_that_respawns() {
    let (mut server, root) = server_with_agents(&[("aider", AIDER_STAND_IN)]);
    let ws = server.workspace("aider", &[]);
    let pane = server.ctl_ok(&["new", &ws, "--", "aider", "--model", "m"]);
    server.wait_pane(&pane, "aider, idle", |p| {
        p["agent"]["kind"] == "aider" && p["lifecycle"] == "idle"
    });
    // Even a reported id does not make a resume out of nothing.
    server.ctl_ok(&["report-session", &pane, "chat-1", "--agent", "aider"]);
    server.wait_snapshot("the reported id on disk", |s| {
        s.to_string().contains("chat-1")
    });

    server.kill9();
    server.launch();
    assert_eq!(server.pane(&pane).unwrap()["state"], "RESTORED");
    let refused = server.ctl(&["resume", &pane]);
    assert_eq!(refused.status.code(), Some(1));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("respawn"), "{said}");

    server.ctl_ok(&["respawn", &pane]);
    server.wait_output(&pane, "Aider v0.86.2");
    assert_eq!(server.pane(&pane).unwrap()["state"], "LIVE");
    assert_eq!(runs(&root, "aider"), vec!["--model m", "--model m"]);
}
