//! The bundled screen rules against screens captured from the real CLIs
//! (claude 2.1.197, codex-cli 0.171.0, gemini 0.61.0, copilot 1.0.102,
//! opencode 1.18.33 and 1.0.0, qwen 0.15.10 and 0.24.4, amp
//! 0.0.1790142911, pi 0.73.1, grok-cli 0.0.34, aider 0.86.2, run in tmux
//! 100x30; see `adapters/agents/*.toml`).

use signaltty_adapters::{AgentKind, AgentNeeds, RuleBook, ScreenState};

fn screen(name: &str) -> String {
    let path = format!("{}/tests/screens/{name}.txt", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

const PERMISSION: Option<ScreenState> = Some(ScreenState::Blocked(AgentNeeds::Permission));
const INPUT: Option<ScreenState> = Some(ScreenState::Blocked(AgentNeeds::Input));
const WORKING: Option<ScreenState> = Some(ScreenState::Working);
const IDLE: Option<ScreenState> = Some(ScreenState::Idle);

/// (kind, capture, title at the time, state, rule)
type Case<'a> = (AgentKind, &'a str, &'a str, Option<ScreenState>, &'a str);

/// Each capture reads as its state, by its rule, with evidence.
fn assert_read_as(cases: &[Case<'_>]) {
    let book = RuleBook::bundled();
    for (kind, name, title, state, rule) in cases {
        let rules = book.rules(*kind).unwrap();
        let verdict = rules.evaluate(&screen(name), title);
        assert_eq!(verdict.state, *state, "{name}: {verdict:?}");
        assert_eq!(verdict.rule.as_deref(), Some(*rule), "{name}: {verdict:?}");
        assert!(!verdict.evidence.is_empty(), "{name}");
        // The pane's quick read decides the same.
        assert_eq!(rules.state(&screen(name), title), *state, "{name}");
    }
}

#[test]
fn recorded_screens_read_as_what_they_show() {
    let cases: &[Case<'_>] = &[
        (AgentKind::Claude, "claude-theme", "", INPUT, "theme picker"),
        (
            AgentKind::Claude,
            "claude-security",
            "",
            INPUT,
            "security notes",
        ),
        (AgentKind::Claude, "claude-trust", "", INPUT, "trust dialog"),
        (
            AgentKind::Claude,
            "claude-api-key",
            "",
            INPUT,
            "API key dialog",
        ),
        (
            AgentKind::Claude,
            "claude-login",
            "",
            INPUT,
            "login method choice",
        ),
        (
            AgentKind::Claude,
            "claude-permission",
            "✳ Claude Code",
            PERMISSION,
            "permission prompt",
        ),
        (
            AgentKind::Claude,
            "claude-working",
            "⠐ Claude Code",
            WORKING,
            "busy",
        ),
        (
            AgentKind::Claude,
            "claude-working-spinner",
            "⠂ Claude Code",
            WORKING,
            "busy",
        ),
        (
            AgentKind::Claude,
            "claude-idle",
            "Claude Code",
            IDLE,
            "prompt box",
        ),
        (
            AgentKind::Claude,
            "claude-done",
            "Claude Code",
            IDLE,
            "prompt box",
        ),
        (
            AgentKind::Codex,
            "codex-sign-in",
            "",
            INPUT,
            "sign-in dialog",
        ),
        (AgentKind::Codex, "codex-trust", "", INPUT, "trust dialog"),
        (AgentKind::Codex, "codex-idle", "proj", IDLE, "prompt"),
        (AgentKind::Codex, "codex-idle-draft", "proj", IDLE, "prompt"),
        (
            AgentKind::Copilot,
            "copilot-trust",
            "GitHub Copilot",
            INPUT,
            "trust prompt",
        ),
        (
            AgentKind::Copilot,
            "copilot-idle",
            "GitHub Copilot",
            IDLE,
            "prompt",
        ),
        (
            AgentKind::Codex,
            "codex-working",
            "⠼ say hi | proj2",
            WORKING,
            "busy",
        ),
        (
            AgentKind::Gemini,
            "gemini-trust",
            "◇  Ready (proj3)",
            INPUT,
            "trust dialog",
        ),
        (
            AgentKind::Gemini,
            "gemini-auth",
            "◇  Ready (proj3)",
            INPUT,
            "auth dialog",
        ),
        (
            AgentKind::Gemini,
            "gemini-api-key",
            "◇  Ready (proj3)",
            INPUT,
            "API key dialog",
        ),
        (
            AgentKind::Gemini,
            "gemini-idle",
            "◇  Ready (proj3)",
            IDLE,
            "prompt",
        ),
        (
            AgentKind::Gemini,
            "gemini-working",
            "✦  Working… (proj3)",
            WORKING,
            "busy",
        ),
    ];
    assert_read_as(cases);
}

#[test]
fn recorded_screens_of_the_newer_agents_read_as_what_they_show() {
    let cases: &[Case<'_>] = &[
        (
            AgentKind::Opencode,
            "opencode-idle",
            "OpenCode",
            IDLE,
            "prompt",
        ),
        (
            AgentKind::Opencode,
            "opencode-resumed",
            "OpenCode",
            IDLE,
            "prompt",
        ),
        (
            AgentKind::Opencode,
            "opencode-working",
            "OpenCode",
            WORKING,
            "busy",
        ),
        (
            AgentKind::Opencode,
            "opencode-1.0.0-working",
            "OpenCode",
            WORKING,
            "busy",
        ),
        (
            AgentKind::Qwen,
            "qwen-auth",
            "Qwen - p-qwen",
            INPUT,
            "auth dialog",
        ),
        (
            AgentKind::Qwen,
            "qwen-idle",
            "Qwen - p-qwen",
            IDLE,
            "prompt",
        ),
        (
            AgentKind::Qwen,
            "qwen-working",
            "Qwen - p-qwen",
            WORKING,
            "busy",
        ),
        (
            AgentKind::Qwen,
            "qwen-error",
            "Qwen - p-qwen",
            IDLE,
            "prompt",
        ),
        (
            AgentKind::Qwen,
            "qwen-0.24.4-idle",
            "Qwen - p-qwen",
            IDLE,
            "prompt",
        ),
        (AgentKind::Amp, "amp-login", "", INPUT, "login question"),
        (AgentKind::Pi, "pi-idle", "π - p-pi", IDLE, "status line"),
        (AgentKind::Pi, "pi-working", "π - p-pi", WORKING, "busy"),
        (AgentKind::Pi, "pi-retrying", "π - p-pi", WORKING, "busy"),
        (AgentKind::Grok, "grok-idle", "", IDLE, "prompt"),
        (AgentKind::Grok, "grok-working", "", WORKING, "busy"),
        (AgentKind::Grok, "grok-error", "", IDLE, "prompt"),
        (
            AgentKind::Aider,
            "aider-git-question",
            "",
            INPUT,
            "question",
        ),
        (AgentKind::Aider, "aider-question", "", INPUT, "question"),
        (AgentKind::Aider, "aider-idle", "", IDLE, "prompt"),
        (
            AgentKind::Aider,
            "aider-working",
            "",
            WORKING,
            "waiting for the model",
        ),
    ];
    assert_read_as(cases);
}

#[test]
fn a_screen_no_rule_knows_reads_as_unknown() {
    let book = RuleBook::bundled();
    // amp with no server to reach: an error, neither working nor waiting.
    let amp = book.rules(AgentKind::Amp).unwrap();
    assert_eq!(amp.evaluate(&screen("amp-offline"), "").state, None);
    // Codex drawing its composer before it is ready: an Enter typed now
    // is lost, so it is not idle yet.
    let codex = book.rules(AgentKind::Codex).unwrap();
    assert_eq!(codex.evaluate(&screen("codex-starting"), "").state, None);
}

#[test]
fn a_deny_esc_menu_is_a_permission_prompt() {
    let rules = RuleBook::bundled();
    let rules = rules.rules(AgentKind::Claude).unwrap();
    let menu = "Allow this tool?\n ❯ 1. Allow\n   2. Allow always\n   3. Deny (esc)\n";
    assert_eq!(rules.evaluate(menu, "").state, PERMISSION);
}

#[test]
fn one_kinds_rules_never_apply_to_another() {
    let book = RuleBook::bundled();
    // "Esc to cancel" under a claude dialog is a question, but gemini's
    // busy line says "esc to cancel" too: each kind reads only its own.
    let gemini_busy = screen("gemini-working");
    let claude = book.rules(AgentKind::Claude).unwrap();
    assert_ne!(claude.evaluate(&gemini_busy, "").state, WORKING);
    let claude_trust = screen("claude-trust");
    let gemini = book.rules(AgentKind::Gemini).unwrap();
    assert_eq!(gemini.evaluate(&claude_trust, "").state, None);
    assert!(book.rules(AgentKind::Generic).is_none());
}

#[test]
fn an_override_replaces_the_bundled_rules_and_a_broken_one_is_ignored() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("claude.toml"),
        "[[rule]]\nname = \"mine\"\nstate = \"working\"\nscreen = [\"Welcome back\"]\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("codex.toml"), "[[rule]]\nname = ").unwrap();
    let (book, warnings) = RuleBook::with_overrides(dir.path());
    let verdict = book
        .rules(AgentKind::Claude)
        .unwrap()
        .evaluate(&screen("claude-idle"), "");
    assert_eq!(verdict.rule.as_deref(), Some("mine"));
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("codex.toml"), "{warnings:?}");
    let codex = book.rules(AgentKind::Codex).unwrap();
    assert_eq!(codex.evaluate(&screen("codex-working"), "").state, WORKING);
}

#[test]
fn the_input_box_reads_empty_only_with_nothing_typed_in_it() {
    use signaltty_adapters::AgentFacts;
    let cases = [
        (AgentKind::Claude, "claude-idle", Some(true)),
        (AgentKind::Claude, "claude-done", Some(true)),
        (AgentKind::Claude, "claude-idle-draft", Some(false)),
        (AgentKind::Codex, "codex-idle", Some(true)),
        (AgentKind::Codex, "codex-idle-draft", Some(false)),
        // A kind whose data file does not say where its input box is.
        (AgentKind::Gemini, "gemini-idle", None),
    ];
    for (kind, name, empty) in cases {
        assert_eq!(kind.input_is_empty(&screen(name)), empty, "{name}");
    }
    assert_eq!(AgentKind::Claude.exit_command(), Some("/exit"));
    assert_eq!(AgentKind::Gemini.exit_command(), None);
}
