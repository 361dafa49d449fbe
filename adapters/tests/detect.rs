//! detect(): which agent an argv starts.

mod common;

use common::v;
use signaltty_adapters::{AgentKind, detect};

#[test]
fn bare_program_names() {
    let cases = [
        ("claude", AgentKind::Claude),
        ("codex", AgentKind::Codex),
        ("opencode", AgentKind::Opencode),
        ("cursor-agent", AgentKind::Cursor),
        ("gemini", AgentKind::Gemini),
        ("copilot", AgentKind::Copilot),
        ("bash", AgentKind::Generic),
        ("cursor", AgentKind::Generic),
        ("agent", AgentKind::Generic),
    ];
    for (program, want) in cases {
        assert_eq!(detect(&v(&[program])), want, "{program}");
        assert_eq!(
            detect(&v(&[program, "--flag", "x"])),
            want,
            "{program} with args"
        );
    }
}

#[test]
fn absolute_and_relative_paths() {
    let cases: &[(&[&str], AgentKind)] = &[
        (&["/opt/bin/claude"], AgentKind::Claude),
        (
            &["./node_modules/.bin/claude", "--model", "opus"],
            AgentKind::Claude,
        ),
        (&["../bin/codex", "resume"], AgentKind::Codex),
        (&["/home/u/.local/bin/cursor-agent"], AgentKind::Cursor),
        (&["/usr/local/bin/gemini"], AgentKind::Gemini),
        (&["bin/copilot"], AgentKind::Copilot),
        (&["/x/opencode"], AgentKind::Opencode),
        (&["/opt/claude/bin/node", "claude"], AgentKind::Generic),
        (&["/opt/bin/"], AgentKind::Generic),
    ];
    for (argv, want) in cases {
        assert_eq!(detect(&v(argv)), *want, "{argv:?}");
    }
}

#[test]
fn through_an_env_prefix() {
    let cases: &[(&[&str], AgentKind)] = &[
        (&["env", "A=1", "B=2", "claude"], AgentKind::Claude),
        (
            &["env", "CLAUDE_CONFIG_DIR=/x", "/opt/bin/claude", "-p"],
            AgentKind::Claude,
        ),
        (
            &["/usr/bin/env", "CODEX_HOME=/c", "codex"],
            AgentKind::Codex,
        ),
        // -i empties the environment; the program is still the agent.
        (&["env", "-i", "claude"], AgentKind::Claude),
        (&["env", "-i", "HOME=/h", "gemini"], AgentKind::Gemini),
        (&["env", "-u", "OPENAI_API_KEY", "codex"], AgentKind::Codex),
        (&["env", "-uX", "--unset=Y", "copilot"], AgentKind::Copilot),
        (&["env", "-C", "/repo", "opencode"], AgentKind::Opencode),
        (&["env", "--", "A=1", "cursor-agent"], AgentKind::Cursor),
        (&["env", "A=1", "env", "B=2", "claude"], AgentKind::Claude),
        (&["env", "A=1", "bash", "-c", "claude"], AgentKind::Generic),
        // env options this crate does not model: not claimed.
        (&["env", "-S", "claude --resume", "x"], AgentKind::Generic),
        (&["env", "--frobnicate", "claude"], AgentKind::Generic),
        // env with nothing to run.
        (&["env"], AgentKind::Generic),
        (&["env", "A=1"], AgentKind::Generic),
        (&["env", "-u"], AgentKind::Generic),
    ];
    for (argv, want) in cases {
        assert_eq!(detect(&v(argv)), *want, "{argv:?}");
    }
}

#[test]
fn near_misses_are_generic() {
    for program in [
        "claude-foo",
        "claudex",
        "Claude",
        "CLAUDE",
        "claude.exe",
        "claude ",
        "codex-cli",
        "npx",
        "",
        "-claude",
    ] {
        assert_eq!(detect(&v(&[program])), AgentKind::Generic, "{program:?}");
    }
    assert_eq!(detect(&v(&["npx", "claude"])), AgentKind::Generic);
    assert_eq!(detect(&v(&["node", "/x/claude"])), AgentKind::Generic);
}

#[test]
fn empty_argv_is_generic() {
    assert_eq!(detect(&[]), AgentKind::Generic);
}

#[test]
fn the_newer_agents_by_program_name() {
    let cases = [
        ("qwen", AgentKind::Qwen),
        ("amp", AgentKind::Amp),
        ("kiro-cli", AgentKind::Kiro),
        ("pi", AgentKind::Pi),
        ("grok", AgentKind::Grok),
        ("crush", AgentKind::Crush),
        ("aider", AgentKind::Aider),
        ("goose", AgentKind::Goose),
        ("kiro", AgentKind::Generic),
        ("qwen-code", AgentKind::Generic),
        ("aider-chat", AgentKind::Generic),
    ];
    for (program, want) in cases {
        assert_eq!(detect(&v(&[program])), want, "{program}");
        let path = format!("/home/u/.local/bin/{program}");
        assert_eq!(detect(&v(&["env", "A=1", &path, "x"])), want, "{path}");
    }
}

/// The processes the real CLIs run as, seen in `/proc` (qwen 0.24.4, amp
/// 0.0.1790142911, pi 0.73.1, grok-cli 0.0.34, aider 0.86.2); kiro, crush
/// and goose by their documented program names.
#[test]
fn the_newer_agents_running_processes() {
    use signaltty_adapters::{ProcessFacts, detect_process};
    let cases: &[(&[&str], Option<&str>, AgentKind)] = &[
        (
            &["node", "/usr/bin/qwen", "--auth-type", "openai"],
            Some("/usr/bin/node"),
            AgentKind::Qwen,
        ),
        (
            &[
                "/usr/bin/node",
                "--expose-gc",
                "/usr/lib/node_modules/@qwen-code/qwen-code/cli.js",
            ],
            Some("/usr/bin/node"),
            AgentKind::Qwen,
        ),
        (
            &["/x/node_modules/.bin/amp"],
            Some("/x/node_modules/@ampcode/cli/bin/amp.exe"),
            AgentKind::Amp,
        ),
        (&["pi"], Some("/usr/bin/node"), AgentKind::Pi),
        (
            &["node", "/x/node_modules/.bin/grok"],
            Some("/usr/bin/node"),
            AgentKind::Grok,
        ),
        (
            &["/x/aider/bin/python3", "/x/aider/bin/aider", "--model", "m"],
            Some("/usr/bin/python3.11"),
            AgentKind::Aider,
        ),
        (&["python3", "-m", "aider"], None, AgentKind::Aider),
        (&["kiro-cli", "chat"], None, AgentKind::Kiro),
        (&["crush"], Some("/usr/local/bin/crush"), AgentKind::Crush),
        (&["goose", "session"], None, AgentKind::Goose),
        (&["node", "/x/pilot.js"], None, AgentKind::Generic),
    ];
    for (argv, exe, want) in cases {
        let argv = v(argv);
        let facts = ProcessFacts {
            exe: *exe,
            argv: &argv,
            agent_env: None,
        };
        assert_eq!(detect_process(&facts), *want, "{argv:?}");
    }
    let wrapper = v(&["my-wrapper"]);
    let named = ProcessFacts {
        exe: None,
        argv: &wrapper,
        agent_env: Some("kiro-cli"),
    };
    assert_eq!(detect_process(&named), AgentKind::Kiro);
}
