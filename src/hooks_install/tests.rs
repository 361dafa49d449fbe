use super::*;

fn current_of(dir: &Path, name: &str, text: Option<&str>) -> Current {
    let path = dir.join(name);
    if let Some(text) = text {
        std::fs::write(&path, text).unwrap();
    }
    file::read(&path).unwrap()
}

fn plan(kind: AgentKind, current: &Current, install: bool) -> Result<After, InstallError> {
    planned(kind, config_of(kind).unwrap(), current, install)
}

/// `command` as it reads inside a JSON string.
fn in_json(command: &str) -> String {
    let quoted = serde_json::to_string(command).unwrap();
    quoted[1..quoted.len() - 1].to_string()
}

fn written(after: After) -> String {
    match after {
        After::Write(text) => text,
        other => panic!("{other:?}"),
    }
}

#[test]
fn claude_gets_every_event_of_its_data_file_once() {
    let dir = tempfile::tempdir().unwrap();
    let current = current_of(dir.path(), "settings.json", None);
    let text = written(plan(AgentKind::Claude, &current, true).unwrap());
    let value = json::parse(&text).unwrap();
    let hooks = value.get("hooks").unwrap();
    for event in adapters::hook_events(AgentKind::Claude) {
        // With its closing quote: Stop's command is the start of
        // StopFailure's.
        let command = format!("{}\"", in_json(&edit::hook_command("claude", event)));
        assert_eq!(text.matches(&command).count(), 1, "{event}");
        assert!(hooks.get(event).is_some(), "{event}");
    }
    // Installed, it is installed: a second install is no change at all.
    let current = current_of(dir.path(), "settings.json", Some(&text));
    assert_eq!(
        plan(AgentKind::Claude, &current, true).unwrap(),
        After::Unchanged
    );
    let config = config_of(AgentKind::Claude).unwrap();
    assert_eq!(state_of(AgentKind::Claude, config, &current), "installed");
    let removed = written(plan(AgentKind::Claude, &current, false).unwrap());
    assert_eq!(removed, "{}\n");
}

#[test]
fn gemini_and_qwen_share_claudes_layout_with_their_own_events() {
    let dir = tempfile::tempdir().unwrap();
    let current = current_of(dir.path(), "settings.json", Some("{\"theme\": \"dark\"}"));
    for kind in [AgentKind::Gemini, AgentKind::Qwen] {
        let text = written(plan(kind, &current, true).unwrap());
        assert!(
            text.starts_with("{\n  \"theme\": \"dark\",\n  \"hooks\""),
            "{text}"
        );
        let first = adapters::hook_events(kind)[0];
        let command = in_json(&edit::hook_command(kind.as_str(), first));
        assert!(text.contains(&command), "{text}");
    }
}

#[test]
fn copilots_own_file_goes_away_when_it_holds_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let current = current_of(dir.path(), "signaltty.json", None);
    let text = written(plan(AgentKind::Copilot, &current, true).unwrap());
    assert!(text.starts_with("{\n  \"version\": 1,"), "{text}");
    assert!(text.contains("\"bash\""), "{text}");
    let current = current_of(dir.path(), "signaltty.json", Some(&text));
    assert_eq!(
        plan(AgentKind::Copilot, &current, false).unwrap(),
        After::Remove
    );
    let mixed = text.replacen("{\n", "{\n  \"mine\": true,\n", 1);
    let current = current_of(dir.path(), "signaltty.json", Some(&mixed));
    let kept = written(plan(AgentKind::Copilot, &current, false).unwrap());
    assert!(
        kept.contains("\"mine\": true") && !kept.contains("bash"),
        "{kept}"
    );
}

#[test]
fn codex_gets_a_notify_program_and_keeps_its_comments() {
    let dir = tempfile::tempdir().unwrap();
    let original = "# codex settings\nmodel = \"o3\"\n\n[tui]\nnotifications = true\n";
    let current = current_of(dir.path(), "config.toml", Some(original));
    let text = written(plan(AgentKind::Codex, &current, true).unwrap());
    assert!(text.contains("notify = ["), "{text}");
    assert!(text.contains("# codex settings"), "{text}");
    let current = current_of(dir.path(), "config.toml", Some(&text));
    assert_eq!(
        plan(AgentKind::Codex, &current, true).unwrap(),
        After::Unchanged
    );
    assert_eq!(
        written(plan(AgentKind::Codex, &current, false).unwrap()),
        original
    );
}

#[test]
fn a_file_that_does_not_parse_is_named_and_never_written() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (AgentKind::Claude, "settings.json", "{\"model\": \"opus\",}"),
        (AgentKind::Gemini, "settings.json", "// comments\n{}"),
        (AgentKind::Codex, "config.toml", "model = \n"),
    ];
    for (kind, name, text) in cases {
        let current = current_of(dir.path(), name, Some(text));
        let err = plan(kind, &current, true).unwrap_err().to_string();
        assert!(
            err.contains(name) && err.contains("cannot be parsed"),
            "{err}"
        );
        assert!(err.contains("not touched"), "{err}");
        assert!(!err.contains('\n'), "one line: {err}");
    }
    let taken = current_of(dir.path(), "config.toml", Some("notify = [\"say\"]\n"));
    let err = plan(AgentKind::Codex, &taken, true)
        .unwrap_err()
        .to_string();
    assert!(err.contains("will not replace it"), "{err}");
}

#[test]
fn kinds_without_a_hook_file_say_which_have_one() {
    let err = config_of(AgentKind::Opencode).unwrap_err().to_string();
    assert!(err.contains("claude") && err.contains("codex"), "{err}");
    let err = config_path(
        AgentKind::Codex,
        config_of(AgentKind::Codex).unwrap(),
        HookScope::Project,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("--scope project"), "{err}");
}

#[test]
fn copilots_project_file_is_at_the_root_of_the_repository() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("a/b");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    assert_eq!(project_root(&sub, ProjectRoot::GitRoot), dir.path());
    assert_eq!(project_root(&sub, ProjectRoot::Cwd), sub);
}

#[test]
fn the_diff_shows_the_change_and_no_control_characters() {
    let dir = tempfile::tempdir().unwrap();
    let current = current_of(dir.path(), "settings.json", Some("{\"a\": \"\u{9b}x\"}\n"));
    let text = written(plan(AgentKind::Claude, &current, true).unwrap());
    let shown = diff(&current, &text);
    assert!(shown.starts_with("--- "), "{shown}");
    assert!(shown.contains("+    \"SessionStart\": ["), "{shown}");
    assert!(
        !shown.contains('\u{9b}') && shown.contains("\\u{9b}"),
        "{shown}"
    );
}
