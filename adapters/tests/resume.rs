//! resume_argv(): the official resume command per kind, and the launch
//! options it keeps.

mod common;

use common::{AGENTS, AMP_ID, GOOSE_ID, OPENCODE_ID, OTHER, UUID, good_id, sid, v};
use signaltty_adapters::AgentFacts;
use signaltty_adapters::{
    AdapterError, AgentKind, ResumeCommand, resume_argv, validate_session_id,
};

/// What each kind's resume command is after the program, for id `ID`.
fn expected_tail(kind: AgentKind, id: &str) -> Vec<String> {
    match kind {
        AgentKind::Claude => v(&["--resume", id]),
        AgentKind::Codex => v(&["resume", id]),
        AgentKind::Opencode => v(&["--session", id]),
        AgentKind::Cursor => v(&["--resume", id]),
        AgentKind::Gemini => v(&["--resume", id]),
        AgentKind::Copilot => vec![format!("--resume={id}")],
        AgentKind::Qwen => v(&["--resume", id]),
        AgentKind::Amp => v(&["threads", "continue", id]),
        AgentKind::Kiro => v(&["chat", "--resume-id", id]),
        AgentKind::Pi => v(&["--session", id]),
        AgentKind::Crush => v(&["--session", id]),
        AgentKind::Goose => v(&["session", "--resume", "--session-id", id]),
        AgentKind::Grok | AgentKind::Aider | AgentKind::Generic => {
            unreachable!("{kind} has no resume")
        }
    }
}

fn program(kind: AgentKind) -> &'static str {
    kind.program().unwrap()
}

#[test]
fn official_resume_per_kind_from_a_bare_launch() {
    let table: [(AgentKind, &[&str]); 12] = [
        (AgentKind::Claude, &["claude", "--resume", UUID]),
        (AgentKind::Codex, &["codex", "resume", UUID]),
        (AgentKind::Opencode, &["opencode", "--session", OPENCODE_ID]),
        (AgentKind::Cursor, &["cursor-agent", "--resume", UUID]),
        (AgentKind::Gemini, &["gemini", "--resume", UUID]),
        (
            AgentKind::Copilot,
            &["copilot", "--resume=123e4567-e89b-12d3-a456-426614174000"],
        ),
        (AgentKind::Qwen, &["qwen", "--resume", UUID]),
        (AgentKind::Amp, &["amp", "threads", "continue", AMP_ID]),
        (AgentKind::Kiro, &["kiro-cli", "chat", "--resume-id", UUID]),
        (AgentKind::Pi, &["pi", "--session", UUID]),
        (AgentKind::Crush, &["crush", "--session", UUID]),
        (
            AgentKind::Goose,
            &["goose", "session", "--resume", "--session-id", GOOSE_ID],
        ),
    ];
    for (kind, want) in table {
        let id = sid(kind, good_id(kind));
        let got = resume_argv(kind, &v(&[program(kind)]), &id).unwrap().argv;
        assert_eq!(got, v(want), "{kind}");
    }
}

#[test]
fn launch_words_not_kept_are_dropped_and_listed() {
    for kind in AGENTS {
        let launch = v(&[program(kind), "--bogus-flag", "fix it"]);
        let id = sid(kind, good_id(kind));
        let got = resume_argv(kind, &launch, &id).unwrap();
        let mut want = v(&[program(kind)]);
        want.extend(expected_tail(kind, good_id(kind)));
        assert_eq!(got.argv, want, "{kind}");
        assert_eq!(got.dropped, v(&["--bogus-flag", "fix it"]), "{kind}");
        assert!(got.kept.is_empty(), "{kind}");
    }
}

#[test]
fn the_program_path_is_kept_when_its_basename_matches() {
    for kind in AGENTS {
        let p = program(kind);
        for path in [
            format!("/opt/bin/{p}"),
            format!("./node_modules/.bin/{p}"),
            format!("../{p}"),
        ] {
            let launch = vec![path.clone(), "--flag".to_owned()];
            let id = sid(kind, good_id(kind));
            let got = resume_argv(kind, &launch, &id).unwrap().argv;
            assert_eq!(got[0], path, "{kind}");
            assert_eq!(got[1..], expected_tail(kind, good_id(kind))[..], "{kind}");
        }
    }
}

#[test]
fn the_program_path_is_dropped_when_its_basename_differs() {
    for kind in AGENTS {
        let p = program(kind);
        let launches = [
            v(&[&format!("/opt/bin/{p}-beta")]),
            v(&["bash", "-l"]),
            v(&["/usr/bin/node", &format!("/x/{p}")]),
            v(&[&format!("/opt/{p}/")]),
            v(&[]),
        ];
        for launch in launches {
            let id = sid(kind, good_id(kind));
            let got = resume_argv(kind, &launch, &id).unwrap().argv;
            let mut want = v(&[p]);
            want.extend(expected_tail(kind, good_id(kind)));
            assert_eq!(got, want, "{kind} from {launch:?}");
        }
    }
}

#[test]
fn an_env_prefix_is_kept_verbatim() {
    let prefixes: [&[&str]; 5] = [
        &["env", "CLAUDE_CONFIG_DIR=/home/u/.claude-work"],
        &["env", "A=1", "B=2"],
        &["/usr/bin/env", "-i", "-u", "X", "HOME=/h"],
        &["env", "-C", "/repo", "--", "A=1"],
        &["env", "A=1", "env", "B=2"],
    ];
    for kind in AGENTS {
        for prefix in prefixes {
            let mut launch = v(prefix);
            launch.extend(v(&[&format!("/opt/{}", program(kind)), "--bogus", "x"]));
            let id = sid(kind, good_id(kind));
            let got = resume_argv(kind, &launch, &id).unwrap().argv;
            let mut want = v(prefix);
            want.push(format!("/opt/{}", program(kind)));
            want.extend(expected_tail(kind, good_id(kind)));
            assert_eq!(got, want, "{kind} {prefix:?}");
        }
    }
}

#[test]
fn an_env_prefix_is_kept_even_when_the_program_differs() {
    // The agent was started from a shell launched with env: it inherited
    // that environment, and needs it again.
    let launch = v(&["env", "CODEX_HOME=/c", "bash"]);
    let id = sid(AgentKind::Codex, UUID);
    let got = resume_argv(AgentKind::Codex, &launch, &id).unwrap().argv;
    assert_eq!(got, v(&["env", "CODEX_HOME=/c", "codex", "resume", UUID]));
}

#[test]
fn an_unreadable_env_prefix_is_not_copied() {
    let launch = v(&["env", "-S", "A=1 claude --resume x"]);
    let id = sid(AgentKind::Claude, UUID);
    let got = resume_argv(AgentKind::Claude, &launch, &id).unwrap().argv;
    assert_eq!(got, v(&["claude", "--resume", UUID]));
}

#[test]
fn generic_has_no_official_resume() {
    let id = sid(AgentKind::Generic, "thread-1");
    for launch in [v(&[]), v(&["bash"]), v(&["claude"])] {
        let err = resume_argv(AgentKind::Generic, &launch, &id).unwrap_err();
        assert_eq!(
            err,
            AdapterError::NoOfficialResume {
                kind: AgentKind::Generic
            }
        );
        let message = err.to_string();
        assert!(message.starts_with("generic panes have no official resume command"));
        assert!(message.contains("report-session"), "{message}");
    }
}

#[test]
fn an_id_of_another_rule_is_refused() {
    let opencode = sid(AgentKind::Opencode, OPENCODE_ID);
    let generic = sid(AgentKind::Generic, "thread-1");
    let uuid = sid(AgentKind::Claude, UUID);
    for kind in AGENTS {
        for id in [&opencode, &generic, &uuid] {
            let same_rule = validate_session_id(kind, id.as_str()).is_ok();
            match resume_argv(kind, &v(&[program(kind)]), id) {
                Ok(ResumeCommand { argv, .. }) => {
                    assert!(same_rule, "{kind} took {id:?}: {argv:?}");
                    assert_eq!(argv.last().unwrap().rsplit('=').next(), Some(id.as_str()));
                }
                Err(err) => {
                    assert!(!same_rule, "{kind} refused {id:?}: {err}");
                    assert!(
                        matches!(err, AdapterError::InvalidSessionId { kind: k, .. } if k == kind),
                        "{err:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_resume_words_always_end_with_the_validated_id_never_a_bare_flag() {
    let launches = [
        v(&[]),
        v(&["claude"]),
        v(&["env", "A=1", "/opt/bin/codex", "--resume"]),
        v(&["bash", "--resume"]),
    ];
    for kind in AGENTS {
        for launch in &launches {
            let id = sid(kind, good_id(kind));
            let command = resume_argv(kind, launch, &id).unwrap();
            let at = command.argv.len() - command.kept.len();
            let last = &command.argv[at - 1];
            assert!(
                last == good_id(kind) || *last == format!("--resume={}", good_id(kind)),
                "{kind}: {command:?}"
            );
            for bare in ["--resume", "-r", "--session", "resume"] {
                assert_ne!(last, bare, "{kind}: {command:?}");
            }
            // The id appears once, ending the resume words.
            let mentions = command
                .argv
                .iter()
                .filter(|t| t.contains(good_id(kind)))
                .count();
            assert_eq!(mentions, 1, "{kind}: {command:?}");
        }
    }
}

/// A launch with options a kind's data file keeps.
struct Case {
    kind: AgentKind,
    launch: Vec<String>,
    /// The words after the program a resume of its session runs.
    resumed: Vec<String>,
    dropped: Vec<String>,
}

fn launches_with_kept_options() -> Vec<Case> {
    let case = |kind, launch: &[&str], resumed: &[&str], dropped: &[&str]| Case {
        kind,
        launch: v(launch),
        resumed: v(resumed),
        dropped: v(dropped),
    };
    vec![
        case(
            AgentKind::Claude,
            &["claude", "--model", "X", "--permission-mode", "plan"],
            &[
                "--resume",
                UUID,
                "--model",
                "X",
                "--permission-mode",
                "plan",
            ],
            &[],
        ),
        case(
            AgentKind::Claude,
            &[
                "claude",
                "--session-id",
                OTHER,
                "--add-dir",
                "/a",
                "/b",
                "-p",
                "--print",
                "--model=opus",
                "--dangerously-skip-permissions",
                "fix it",
            ],
            &[
                "--resume",
                UUID,
                "--add-dir",
                "/a",
                "/b",
                "--model=opus",
                "--dangerously-skip-permissions",
            ],
            &["-p", "--print", "fix it"],
        ),
        case(
            AgentKind::Codex,
            &["codex", "-m", "o3", "--profile", "work", "-c", "k=v", "hi"],
            &["resume", UUID, "-m", "o3", "--profile", "work"],
            &["-c", "k=v", "hi"],
        ),
        case(
            AgentKind::Codex,
            &[
                "codex",
                "resume",
                OTHER,
                "--sandbox",
                "read-only",
                "--worktree",
            ],
            &["resume", UUID, "--sandbox", "read-only"],
            &["--worktree"],
        ),
        case(
            AgentKind::Gemini,
            &[
                "gemini",
                "-m",
                "gemini-3",
                "--approval-mode",
                "plan",
                "--include-directories",
                "/a",
                "/b",
                "-y",
                "-p",
                "say hi",
            ],
            &[
                "--resume",
                UUID,
                "-m",
                "gemini-3",
                "--approval-mode",
                "plan",
                "--include-directories",
                "/a",
                "/b",
                "-y",
            ],
            &["-p", "say hi"],
        ),
        case(
            AgentKind::Copilot,
            &[
                "copilot",
                "--model",
                "gpt-5",
                "--mode",
                "plan",
                "--allow-tool",
                "shell",
                "-n",
                "x",
            ],
            &[
                &format!("--resume={UUID}"),
                "--model",
                "gpt-5",
                "--mode",
                "plan",
                "--allow-tool",
                "shell",
            ],
            &["-n", "x"],
        ),
        case(
            AgentKind::Qwen,
            &[
                "qwen",
                "--model",
                "q3",
                "--approval-mode",
                "auto-edit",
                "--proxy",
                "http://u:p@h",
            ],
            &[
                "--resume",
                UUID,
                "--model",
                "q3",
                "--approval-mode",
                "auto-edit",
            ],
            &["--proxy", "http://u:p@h"],
        ),
        case(
            AgentKind::Opencode,
            &[
                "opencode",
                "/some/project",
                "-m",
                "anthropic/x",
                "--port",
                "4096",
            ],
            &["--session", OPENCODE_ID, "-m", "anthropic/x"],
            &["/some/project", "--port", "4096"],
        ),
        case(
            AgentKind::Pi,
            &[
                "pi",
                "--provider",
                "openai",
                "--model",
                "gpt",
                "-nt",
                "--print",
                "hi",
            ],
            &[
                "--session",
                UUID,
                "--provider",
                "openai",
                "--model",
                "gpt",
                "-nt",
            ],
            &["--print", "hi"],
        ),
        case(
            AgentKind::Amp,
            &["amp", "--mode", "high", "--no-ide", "-x", "go"],
            &["threads", "continue", AMP_ID, "--mode", "high", "--no-ide"],
            &["-x", "go"],
        ),
    ]
}

#[test]
fn the_options_a_kind_keeps_come_back_after_the_resume_words_and_the_rest_is_listed() {
    for Case {
        kind,
        launch,
        resumed,
        dropped,
    } in launches_with_kept_options()
    {
        let id = sid(kind, good_id(kind));
        let got = resume_argv(kind, &launch, &id).unwrap();
        let mut want = v(&[program(kind)]);
        want.extend(resumed);
        assert_eq!(got.argv, want, "{kind} from {launch:?}");
        assert_eq!(got.dropped, dropped, "{kind} from {launch:?}");
        let at = want.len() - got.kept.len();
        assert_eq!(got.kept, want[at..], "{kind} from {launch:?}");
    }
}

#[test]
fn a_resumed_command_resumes_again_the_same() {
    // After a resume the pane's saved command is the resume command; a
    // second resume must give the same command back, nothing dropped.
    for Case { kind, launch, .. } in launches_with_kept_options() {
        let id = sid(kind, good_id(kind));
        let first = resume_argv(kind, &launch, &id).unwrap();
        let second = resume_argv(kind, &first.argv, &id).unwrap();
        assert_eq!(second.argv, first.argv, "{kind}");
        assert_eq!(second.kept, first.kept, "{kind}");
        assert!(second.dropped.is_empty(), "{kind}: {:?}", second.dropped);
    }
}

#[test]
fn session_words_are_replaced_not_listed() {
    let cases: [(AgentKind, &[&str]); 5] = [
        (AgentKind::Claude, &["claude", "--resume", "--model", "m"]),
        (AgentKind::Claude, &["claude", "-r", OTHER, "--model", "m"]),
        (AgentKind::Kiro, &["kiro-cli", "chat", "--resume-id", OTHER]),
        (
            AgentKind::Goose,
            &["goose", "session", "--resume", "--session-id", "1_1"],
        ),
        (
            AgentKind::Copilot,
            &["copilot", &format!("--session-id={OTHER}")],
        ),
    ];
    for (kind, launch) in cases {
        let id = sid(kind, good_id(kind));
        let got = resume_argv(kind, &v(launch), &id).unwrap();
        assert!(got.dropped.is_empty(), "{kind}: {got:?}");
        assert!(
            !got.argv.iter().any(|w| w.contains(OTHER)),
            "{kind}: {got:?}"
        );
    }
}

#[test]
fn after_a_double_dash_everything_is_dropped() {
    let id = sid(AgentKind::Claude, UUID);
    let launch = v(&["claude", "--model", "m", "--", "--model", "n"]);
    let got = resume_argv(AgentKind::Claude, &launch, &id).unwrap();
    assert_eq!(got.kept, v(&["--model", "m"]));
    assert_eq!(got.dropped, v(&["--", "--model", "n"]));
}

#[test]
fn a_shells_arguments_are_neither_kept_nor_dropped() {
    // The agent was typed into the shell; the shell's words are not its.
    let id = sid(AgentKind::Claude, UUID);
    let got = resume_argv(AgentKind::Claude, &v(&["bash", "-l", "--model", "m"]), &id).unwrap();
    assert_eq!(got.argv, v(&["claude", "--resume", UUID]));
    assert!(got.kept.is_empty() && got.dropped.is_empty(), "{got:?}");
}
