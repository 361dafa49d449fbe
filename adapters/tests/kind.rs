//! AgentKind: names, parsing, programs, serde.

use signaltty_adapters::AgentFacts;
use signaltty_adapters::{AdapterError, AgentKind};

/// (kind, name, program, has official resume)
const TABLE: [(AgentKind, &str, Option<&str>, bool); 15] = [
    (AgentKind::Claude, "claude", Some("claude"), true),
    (AgentKind::Codex, "codex", Some("codex"), true),
    (AgentKind::Opencode, "opencode", Some("opencode"), true),
    (AgentKind::Cursor, "cursor", Some("cursor-agent"), true),
    (AgentKind::Gemini, "gemini", Some("gemini"), true),
    (AgentKind::Copilot, "copilot", Some("copilot"), true),
    (AgentKind::Qwen, "qwen", Some("qwen"), true),
    (AgentKind::Amp, "amp", Some("amp"), true),
    (AgentKind::Kiro, "kiro", Some("kiro-cli"), true),
    (AgentKind::Pi, "pi", Some("pi"), true),
    (AgentKind::Grok, "grok", Some("grok"), false),
    (AgentKind::Crush, "crush", Some("crush"), true),
    (AgentKind::Aider, "aider", Some("aider"), false),
    (AgentKind::Goose, "goose", Some("goose"), true),
    (AgentKind::Generic, "generic", None, false),
];

#[test]
fn all_lists_every_kind_once_in_table_order() {
    let kinds: Vec<AgentKind> = TABLE.iter().map(|row| row.0).collect();
    assert_eq!(AgentKind::ALL.to_vec(), kinds);
}

#[test]
fn names_programs_and_resume_support_per_kind() {
    for (kind, name, program, resumes) in TABLE {
        assert_eq!(kind.as_str(), name);
        assert_eq!(kind.to_string(), name);
        assert_eq!(kind.program(), program, "{kind}");
        assert_eq!(kind.has_official_resume(), resumes, "{kind}");
    }
}

#[test]
fn parse_and_from_str_accept_every_name() {
    for (kind, name, _, _) in TABLE {
        assert_eq!(AgentKind::parse(name), Ok(kind));
        assert_eq!(name.parse::<AgentKind>(), Ok(kind));
        assert_eq!(AgentKind::parse(&name.to_uppercase()), Ok(kind));
    }
}

#[test]
fn parse_accepts_a_program_name_that_differs_from_the_kind_name() {
    assert_eq!(AgentKind::parse("cursor-agent"), Ok(AgentKind::Cursor));
    assert_eq!(AgentKind::parse("kiro-cli"), Ok(AgentKind::Kiro));
}

#[test]
fn parse_refuses_other_names_and_escapes_them_in_the_message() {
    for name in ["", "vim", "claude-code", " claude", "claude\n", "gpt"] {
        let err = AgentKind::parse(name).unwrap_err();
        assert!(
            matches!(err, AdapterError::UnknownKind { .. }),
            "{name:?}: {err:?}"
        );
        let message = err.to_string();
        assert!(message.starts_with("unknown agent kind \""), "{message}");
        assert!(message.contains("claude, codex, opencode"), "{message}");
        assert!(!message.chars().any(char::is_control), "{message:?}");
    }
    let err = AgentKind::parse("evil\u{1b}[2J").unwrap_err();
    assert_eq!(
        err,
        AdapterError::UnknownKind {
            name: "evil\\u{1b}[2J".to_owned()
        }
    );
}

#[test]
fn serde_uses_the_lowercase_names() {
    for (kind, name, _, _) in TABLE {
        let json = serde_json::to_string(&kind).unwrap();
        assert_eq!(json, format!("\"{name}\""));
        let back: AgentKind = serde_json::from_str(&json).unwrap();
        assert_eq!(back, kind);
    }
    assert!(serde_json::from_str::<AgentKind>("\"Claude\"").is_err());
    assert!(serde_json::from_str::<AgentKind>("\"vim\"").is_err());
}
