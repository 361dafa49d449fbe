//! resume_argv(): the official resume command per kind.

mod common;

use common::{AGENTS, AMP_ID, GOOSE_ID, OPENCODE_ID, UUID, good_id, sid, v};
use signaltty_adapters::{AdapterError, AgentKind, resume_argv, validate_session_id};

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
        let got = resume_argv(kind, &v(&[program(kind)]), &id).unwrap();
        assert_eq!(got, v(want), "{kind}");
    }
}

#[test]
fn launch_flags_are_dropped() {
    for kind in AGENTS {
        let launch = v(&[
            program(kind),
            "--model",
            "opus",
            "--resume",
            "other",
            "fix it",
        ]);
        let id = sid(kind, good_id(kind));
        let got = resume_argv(kind, &launch, &id).unwrap();
        let mut want = v(&[program(kind)]);
        want.extend(expected_tail(kind, good_id(kind)));
        assert_eq!(got, want, "{kind}");
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
            let got = resume_argv(kind, &launch, &id).unwrap();
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
            let got = resume_argv(kind, &launch, &id).unwrap();
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
            launch.extend(v(&[&format!("/opt/{}", program(kind)), "--model", "x"]));
            let id = sid(kind, good_id(kind));
            let got = resume_argv(kind, &launch, &id).unwrap();
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
    let got = resume_argv(AgentKind::Codex, &launch, &id).unwrap();
    assert_eq!(got, v(&["env", "CODEX_HOME=/c", "codex", "resume", UUID]));
}

#[test]
fn an_unreadable_env_prefix_is_not_copied() {
    let launch = v(&["env", "-S", "A=1 claude --resume x"]);
    let id = sid(AgentKind::Claude, UUID);
    let got = resume_argv(AgentKind::Claude, &launch, &id).unwrap();
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
                Ok(argv) => {
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
fn every_resume_argv_ends_with_the_validated_id_and_never_a_bare_flag() {
    let launches = [
        v(&[]),
        v(&["claude"]),
        v(&["env", "A=1", "/opt/bin/codex", "--resume"]),
        v(&["bash", "--resume"]),
    ];
    for kind in AGENTS {
        for launch in &launches {
            let id = sid(kind, good_id(kind));
            let argv = resume_argv(kind, launch, &id).unwrap();
            let last = argv.last().unwrap();
            assert!(
                last == good_id(kind) || *last == format!("--resume={}", good_id(kind)),
                "{kind}: {argv:?}"
            );
            for bare in ["--resume", "-r", "--session", "resume"] {
                assert_ne!(last, bare, "{kind}: {argv:?}");
            }
            // The id appears once, in the final slot only.
            let mentions = argv.iter().filter(|t| t.contains(good_id(kind))).count();
            assert_eq!(mentions, 1, "{kind}: {argv:?}");
        }
    }
}
