//! plan_launch(): presetting session ids, and leaving argv alone when the
//! user already chose a session.

mod common;

use common::{FRESH, OPENCODE_ID, OTHER, PRESETTABLE, UUID, sid, v};
use signaltty_adapters::AgentFacts;
use signaltty_adapters::{AgentKind, LaunchPlan, detect, plan_launch};

/// The argv tokens that preset `id` for `kind`.
fn preset(kind: AgentKind, id: &str) -> Vec<String> {
    match kind {
        AgentKind::Claude | AgentKind::Gemini | AgentKind::Qwen => v(&["--session-id", id]),
        AgentKind::Copilot => vec![format!("--session-id={id}")],
        _ => unreachable!("{kind} has no preset flag"),
    }
}

fn program(kind: AgentKind) -> &'static str {
    kind.program().unwrap()
}

/// Asserts argv comes back exactly as given, with `id` as the session id.
fn assert_kept(argv: &[String], id: Option<&str>) {
    let plan = plan_launch(argv, FRESH);
    assert_eq!(plan.argv, argv, "argv changed");
    assert_eq!(
        plan.session_id.as_ref().map(|s| s.as_str()),
        id,
        "session id for {argv:?}"
    );
    if let Some(sid) = &plan.session_id {
        assert_eq!(sid.kind(), detect(argv), "{argv:?}");
    }
}

/// Asserts the preset id was inserted right after the program at `program_at`.
fn assert_inserted(argv: &[String], program_at: usize) {
    let kind = detect(argv);
    let plan = plan_launch(argv, FRESH);
    let mut want = argv[..=program_at].to_vec();
    want.extend(preset(kind, FRESH));
    want.extend_from_slice(&argv[program_at + 1..]);
    assert_eq!(plan.argv, want, "{argv:?}");
    assert_eq!(plan.session_id, Some(sid(kind, FRESH)), "{argv:?}");
}

#[test]
fn claude_gemini_and_copilot_get_a_preset_id() {
    for kind in PRESETTABLE {
        let p = program(kind);
        assert_inserted(&v(&[p]), 0);
        assert_inserted(&v(&[p, "--model", "x"]), 0);
        assert_inserted(&v(&[&format!("/opt/bin/{p}"), "-p"]), 0);
        assert_inserted(&v(&[&format!("./node_modules/.bin/{p}")]), 0);
        assert_inserted(&v(&["env", "A=1", "B=2", p, "--yolo"]), 3);
        assert_inserted(&v(&["env", "-i", "-u", "X", "HOME=/h", p]), 5);
    }
}

#[test]
fn the_exact_preset_shapes() {
    let cases: [(&[&str], &[&str]); 3] = [
        (
            &["claude", "--model", "opus"],
            &["claude", "--session-id", FRESH, "--model", "opus"],
        ),
        (&["gemini"], &["gemini", "--session-id", FRESH]),
        (
            &["copilot", "--yolo"],
            &[
                "copilot",
                "--session-id=0cb916db-26aa-40f2-86b5-1ba81b225fd2",
                "--yolo",
            ],
        ),
    ];
    for (argv, want) in cases {
        let plan = plan_launch(&v(argv), FRESH);
        assert_eq!(plan.argv, v(want));
        assert_eq!(plan.session_id.unwrap().as_str(), FRESH);
    }
}

#[test]
fn a_prompt_or_options_before_the_prompt_still_get_a_preset_id() {
    // A value of a known option that happens to be a subcommand word is not
    // a subcommand.
    assert_inserted(&v(&["claude", "fix the failing test"]), 0);
    assert_inserted(&v(&["claude", "--agent", "doctor"]), 0);
    assert_inserted(&v(&["claude", "-n", "update", "go"]), 0);
    assert_inserted(&v(&["claude", "--model=mcp"]), 0);
    assert_inserted(&v(&["gemini", "-m", "gemini-2.5-pro", "-i", "mcp"]), 0);
    assert_inserted(&v(&["copilot", "--agent", "login"]), 0);
    // After `--` nothing is an option any more.
    assert_inserted(&v(&["claude", "--", "--resume"]), 0);
    assert_inserted(&v(&["claude", "--", "-c", "--session-id", UUID]), 0);
}

#[test]
fn kinds_without_a_preset_flag_never_get_one() {
    let argvs = [
        v(&["codex"]),
        v(&["codex", "--model", "o3", "fix it"]),
        v(&["env", "A=1", "/opt/bin/codex"]),
        v(&["opencode"]),
        v(&["opencode", "/repo"]),
        v(&["cursor-agent"]),
        v(&["cursor-agent", "fix it"]),
        v(&["bash"]),
        v(&["bash", "-lc", "claude"]),
        v(&["claude-foo"]),
        v(&["npx", "claude"]),
        v(&["env", "-S", "claude"]),
        v(&["env"]),
        v(&[]),
    ];
    for argv in argvs {
        assert_kept(&argv, None);
    }
}

#[test]
fn an_invalid_fresh_uuid_is_never_inserted() {
    let bad = [
        "",
        "--help",
        "-r",
        "not-a-uuid",
        "0cb916db26aa40f286b51ba81b225fd2",
        "0cb916db-26aa-40f2-86b5-1ba81b225fd2\n",
        " 0cb916db-26aa-40f2-86b5-1ba81b225fd2",
        OPENCODE_ID,
        "../x",
    ];
    for kind in PRESETTABLE {
        let argv = v(&[program(kind), "--model", "x"]);
        for fresh in bad {
            let plan = plan_launch(&argv, fresh);
            assert_eq!(
                plan,
                LaunchPlan {
                    argv: argv.clone(),
                    session_id: None
                },
                "{kind} {fresh:?}"
            );
        }
    }
}

#[test]
fn argv_is_left_alone_when_the_user_already_chose_a_session() {
    let chose: [&[&str]; 14] = [
        &["--resume"],
        &["--resume=picker-term"],
        &["--resume", "my feature"],
        &["-r"],
        &["-r", "5"],
        &["--continue"],
        &["-c"],
        &["--session-id", "not-a-uuid"],
        &["--session-id=not-a-uuid"],
        &["--session-id"],
        &["--fork-session"],
        &["--session", "x"],
        &["--fork"],
        &["--resume="],
    ];
    for kind in PRESETTABLE {
        for flags in chose {
            for position in ["first", "later"] {
                let mut argv = v(&[program(kind)]);
                if position == "later" {
                    argv.extend(v(&["--model", "x"]));
                }
                argv.extend(v(flags));
                assert_kept(&argv, None);
            }
        }
    }
}

#[test]
fn kind_specific_hands_off_flags_leave_argv_alone() {
    let cases: &[&[&str]] = &[
        &["claude", "--from-pr", "12"],
        &["claude", "--no-session-persistence", "-p", "hi"],
        &["claude", "--bg"],
        &["claude", "--background"],
        &["claude", "--help"],
        &["claude", "-h"],
        &["claude", "--version"],
        &["claude", "-v"],
        &["claude", "-pc"],
        &["claude", "-cp"],
        &["claude", "-pr", "x"],
        &["gemini", "--session-file", "s.json"],
        &["gemini", "--list-sessions"],
        &["gemini", "--delete-session", "3"],
        &["gemini", "-l"],
        &["gemini", "--list-extensions"],
        &["gemini", "--acp"],
        &["gemini", "--experimental-acp"],
        &["gemini", "-v"],
        &["gemini", "--help"],
        &["copilot", "--connect"],
        &["copilot", "--connect", UUID],
        &["copilot", "--acp"],
        &["copilot", "--version"],
        &["copilot", "-h"],
    ];
    for argv in cases {
        assert_kept(&v(argv), None);
    }
}

#[test]
fn non_interactive_subcommands_leave_argv_alone() {
    let subcommands: [(AgentKind, &[&str]); 3] = [
        (
            AgentKind::Claude,
            &[
                "agents",
                "auth",
                "auto-mode",
                "config",
                "doctor",
                "gateway",
                "install",
                "mcp",
                "migrate-installer",
                "plugin",
                "plugins",
                "project",
                "remote-control",
                "setup-token",
                "ultrareview",
                "update",
                "upgrade",
            ],
        ),
        (
            AgentKind::Gemini,
            &[
                "mcp",
                "extensions",
                "extension",
                "skills",
                "skill",
                "hooks",
                "hook",
                "gemma",
            ],
        ),
        (
            AgentKind::Copilot,
            &[
                "app",
                "login",
                "help",
                "init",
                "config",
                "update",
                "version",
                "workflow",
                "sessions",
                "memories",
                "plugin",
                "mcp",
                "skill",
                "instruction",
                "lsp",
                "sandbox",
                "completion",
            ],
        ),
    ];
    for (kind, subs) in subcommands {
        let p = program(kind);
        for sub in subs {
            assert_kept(&v(&[p, sub]), None);
            assert_kept(&v(&[p, sub, "list"]), None);
            assert_kept(&v(&["env", "A=1", p, "--model", "x", sub]), None);
            // A subcommand word after `--` still counts, to be safe.
            assert_kept(&v(&[p, "--", sub]), None);
            // A subcommand with a session flag: nothing learned.
            assert_kept(&v(&[p, sub, "--resume", UUID]), None);
        }
    }
}

#[test]
fn other_kinds_subcommands_leave_argv_alone_too() {
    let cases: &[&[&str]] = &[
        &["codex", "exec", "fix it"],
        &["codex", "e", "fix it"],
        &["codex", "login"],
        &["codex", "mcp", "list"],
        &["codex", "fork", UUID],
        &["codex", "exec", "resume", UUID],
        &["codex", "review"],
        &["codex", "apply"],
        &["opencode", "run", "--session", OPENCODE_ID, "hi"],
        &["opencode", "serve"],
        &["opencode", "session", "list"],
        &["opencode", "export", OPENCODE_ID],
        &["cursor-agent", "ls"],
        &["cursor-agent", "resume"],
        &["cursor-agent", "create-chat"],
        &["cursor-agent", "mcp", "--resume", UUID],
    ];
    for argv in cases {
        assert_kept(&v(argv), None);
    }
}

#[test]
fn a_user_given_id_is_learned() {
    for kind in PRESETTABLE {
        let p = program(kind);
        let given: [&[&str]; 7] = [
            &["--resume", UUID],
            &["--resume=123e4567-e89b-12d3-a456-426614174000"],
            &["-r", UUID],
            &["--session-id", UUID],
            &["--session-id=123e4567-e89b-12d3-a456-426614174000"],
            &["--model", "x", "--resume", UUID, "go on"],
            &["--session-id", UUID, "--session-id", UUID],
        ];
        for flags in given {
            let mut argv = v(&[p]);
            argv.extend(v(flags));
            assert_kept(&argv, Some(UUID));
            let mut with_env = v(&["env", "A=1"]);
            with_env.extend(argv);
            assert_kept(&with_env, Some(UUID));
        }
    }
    let others: &[(&[&str], &str)] = &[
        (&["opencode", "--session", OPENCODE_ID], OPENCODE_ID),
        (&["opencode", "-s", OPENCODE_ID], OPENCODE_ID),
        (
            &["opencode", "--session=ses_fe1c3a9b2d07Qm4xT8vLr2KpZa"],
            OPENCODE_ID,
        ),
        (
            &["opencode", "-m", "x/y", "--session", OPENCODE_ID, "/repo"],
            OPENCODE_ID,
        ),
        (&["cursor-agent", "--resume", UUID], UUID),
        (
            &[
                "cursor-agent",
                "--resume=123e4567-e89b-12d3-a456-426614174000",
            ],
            UUID,
        ),
    ];
    for (argv, id) in others {
        assert_kept(&v(argv), Some(id));
    }
}

#[test]
fn a_user_given_id_is_not_learned_when_forked_ambiguous_or_invalid() {
    let cases: &[&[&str]] = &[
        &["claude", "--resume", UUID, "--fork-session"],
        &[
            "claude",
            "--fork-session",
            "--session-id",
            UUID,
            "--resume",
            OTHER,
        ],
        &["claude", "--resume", UUID, "--session-id", OTHER],
        &["claude", "--resume", UUID, "--continue"],
        &["claude", "--resume", UUID, "--help"],
        &["claude", "--resume", "0cb916d"],
        &["claude", "--resume", "--session-id", UUID],
        &["claude", "--resume", OPENCODE_ID],
        &["gemini", "--resume", "latest"],
        &["gemini", "-r", "5"],
        &["gemini", "--resume", UUID, "--session-id", OTHER],
        &["copilot", "--resume=0cb916d"],
        &["copilot", "--resume", "my feature"],
        &["copilot", "--resume", UUID, "--continue"],
        &["opencode", "--session", OPENCODE_ID, "--fork"],
        &["opencode", "-c"],
        &["opencode", "--session", UUID],
        &["opencode", "-s"],
        &["cursor-agent", "--resume"],
        &["cursor-agent", "--resume", "latest"],
        &["cursor-agent", "--continue", "--resume", UUID],
        // Short clusters hide the value: not learned.
        &["claude", "-pr", UUID],
        // generic panes never interpret flags.
        &["bash", "--resume", UUID],
        &["claude-foo", "--session-id", UUID],
    ];
    for argv in cases {
        assert_kept(&v(argv), None);
    }
}

#[test]
fn codex_resume_reports_its_uuid() {
    let learned: &[&[&str]] = &[
        &["codex", "resume", UUID],
        &["codex", "resume", UUID, "keep going"],
        &["codex", "resume", "-m", "o3", UUID],
        &["codex", "-c", "model=\"o3\"", "resume", UUID],
        &["codex", "resume", "--all", UUID],
        &["env", "CODEX_HOME=/c", "/opt/bin/codex", "resume", UUID],
        &["codex", "resume", "0199A213-81C0-7800-8AA1-BBAB2A035A53"],
    ];
    for argv in learned {
        let argv = v(argv);
        let want = argv.iter().find(|t| t.len() == 36).cloned();
        assert_kept(&argv, want.as_deref());
    }
    let not_learned: &[&[&str]] = &[
        &["codex", "resume"],
        &["codex", "resume", "--last"],
        &["codex", "resume", "--last", UUID],
        &["codex", "resume", "my-session-name"],
        &["codex", "resume", "my-session-name", UUID],
        &["codex", "resume", "--help"],
        &["codex", "resume", OPENCODE_ID],
        &["codex", "--", "resume", UUID],
        &["codex", "fix", "resume", UUID],
        &["codex", UUID],
    ];
    for argv in not_learned {
        assert_kept(&v(argv), None);
    }
}

/// Whatever the input, an argv that comes back changed differs from the
/// input only by the preset tokens, which carry the validated fresh id, and
/// no argv ever ends in a bare session flag that was not there before.
#[test]
fn no_planned_argv_carries_an_unvalidated_id_or_a_bare_resume() {
    let heads: [&[&str]; 4] = [
        &[],
        &["env", "A=1"],
        &["env", "-i"],
        &["/usr/bin/env", "--"],
    ];
    let programs = [
        "claude",
        "/opt/claude",
        "codex",
        "opencode",
        "cursor-agent",
        "gemini",
        "copilot",
        "bash",
        "claude-foo",
    ];
    let tails: [&[&str]; 8] = [
        &[],
        &["--model", "x"],
        &["--resume"],
        &["mcp"],
        &["-r", "latest"],
        &["--", "--resume"],
        &["resume", UUID],
        &["fix it"],
    ];
    let freshes = [FRESH, "", "--resume", "bad id", OPENCODE_ID];
    for head in heads {
        for program in programs {
            for tail in tails {
                let mut argv = v(head);
                argv.push(program.to_owned());
                argv.extend(v(tail));
                for fresh in freshes {
                    let plan = plan_launch(&argv, fresh);
                    if plan.argv == argv {
                        continue;
                    }
                    assert_eq!(fresh, FRESH, "{argv:?} changed with {fresh:?}");
                    let id = plan.session_id.as_ref().expect("changed without an id");
                    assert_eq!(id.as_str(), FRESH);
                    let at = head.len() + 1;
                    let inserted = &plan.argv[at..plan.argv.len() - (argv.len() - at)];
                    assert_eq!(inserted, preset(detect(&argv), FRESH), "{argv:?}");
                    assert_eq!(plan.argv[..at], argv[..at]);
                    assert_eq!(plan.argv[plan.argv.len() - (argv.len() - at)..], argv[at..]);
                    for bare in ["--resume", "-r", "--session-id", "--session"] {
                        assert!(
                            plan.argv.last().map(String::as_str) != Some(bare)
                                || argv.last().map(String::as_str) == Some(bare),
                            "{:?}",
                            plan.argv
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn the_newer_agents_report_the_session_their_command_line_names() {
    use common::{AMP_ID, GOOSE_ID};
    let cases: &[(&[&str], Option<&str>)] = &[
        (&["amp", "threads", "continue", AMP_ID], Some(AMP_ID)),
        (&["amp", "threads", "continue", "--last"], None),
        (&["amp", "threads", "list"], None),
        (&["amp"], None),
        (&["kiro-cli", "chat", "--resume-id", UUID], Some(UUID)),
        (&["kiro-cli", "chat", "--resume"], None),
        (&["pi", "--session", UUID], Some(UUID)),
        (&["pi", "--session", "01a237ce"], None),
        (&["crush", "-s", UUID], Some(UUID)),
        (&["crush", "--cwd", "/p", "--session", UUID], Some(UUID)),
        (&["crush", "-C"], None),
        (
            &["goose", "session", "--resume", "--session-id", GOOSE_ID],
            Some(GOOSE_ID),
        ),
        (&["goose", "session", "list"], None),
        (&["qwen", "--resume", UUID], Some(UUID)),
        (&["qwen", "--continue"], None),
        (&["grok"], None),
        (&["grok", "--prompt", "hi"], None),
        (&["aider", "--restore-chat-history"], None),
        (&["aider", "--model", "sonnet"], None),
    ];
    for (argv, id) in cases {
        assert_kept(&v(argv), *id);
    }
}
