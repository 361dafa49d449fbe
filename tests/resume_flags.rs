//! End to end: an agent resumed after the server was killed gets back the
//! launch options its data file lists as safe to repeat, its cwd and its
//! saved environment; what a resume leaves out is shown by `ctl explain`
//! and by the tombstone's offer.

mod support;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use support::agents::{runs, server_with_agents_and_env};
use support::terminal::Terminal;
use support::wait_for;

/// A stand-in that logs its cwd and `$CLAUDE_CONFIG_DIR` beside its
/// arguments, then shows `idle` (a screen its kind's rules read as up).
fn stand_in(name: &str, idle: &str) -> String {
    format!(
        "echo \"$PWD $CLAUDE_CONFIG_DIR\" >> \"$HOME/../{name}.env\"\nprintf '{idle}\\n'\nexec sleep 1000"
    )
}

/// A kind whose program is named after it, as launched and as resumed.
struct Case {
    kind: &'static str,
    args: &'static [&'static str],
    /// What its screen shows when it is up.
    idle: &'static str,
    /// An id to report, for a kind that gets no preset one at launch.
    report: Option<&'static str>,
    /// The arguments its resume must get, `{id}` standing for the id.
    resumed: &'static str,
}

const CASES: &[Case] = &[
    Case {
        kind: "claude",
        args: &["--model", "X", "--permission-mode", "plan"],
        idle: "? for shortcuts",
        report: None,
        resumed: "--resume {id} --model X --permission-mode plan",
    },
    Case {
        kind: "codex",
        args: &["-m", "o3", "--profile", "work", "-c", "k=v", "hi"],
        idle: "› Ask Codex to do anything\\n  o3 default · ~/w",
        report: Some("0d1c3e6a-95a8-4bb4-9e40-63a1b2f4c7d8"),
        resumed: "resume {id} -m o3 --profile work",
    },
    Case {
        kind: "gemini",
        args: &[
            "-m",
            "gemini-3",
            "--approval-mode",
            "plan",
            "--include-directories",
            "/a",
            "/b",
        ],
        idle: "Type your message",
        report: None,
        resumed: "--resume {id} -m gemini-3 --approval-mode plan --include-directories /a /b",
    },
    Case {
        kind: "copilot",
        args: &["--model", "gpt-5", "--mode", "plan", "-n", "x"],
        idle: ">",
        report: None,
        resumed: "--resume={id} --model gpt-5 --mode plan",
    },
    Case {
        kind: "qwen",
        args: &["--model", "q3", "--approval-mode", "auto-edit"],
        idle: ">   Type your message",
        report: None,
        resumed: "--resume {id} --model q3 --approval-mode auto-edit",
    },
    Case {
        kind: "opencode",
        args: &["-m", "anthropic/x", "--port", "4096"],
        idle: "ctrl+p commands",
        report: Some("ses_fe1c3a9b2d07Qm4xT8vLr2KpZa"),
        resumed: "--session {id} -m anthropic/x",
    },
    Case {
        kind: "pi",
        args: &["--provider", "openai", "--model", "gpt", "-nt"],
        idle: "0.0%%/200k (auto)",
        report: Some("6f1e2d3c-4b5a-4c6d-8e7f-9a0b1c2d3e4f"),
        resumed: "--session {id} --provider openai --model gpt -nt",
    },
    Case {
        kind: "amp",
        args: &["--mode", "high", "--no-ide"],
        idle: "Would you like to log in to Amp?",
        report: Some("T-7f395a45-7fae-4983-8de0-d02e61d30183"),
        resumed: "threads continue {id} --mode high --no-ide",
    },
];

#[test]
fn every_kind_resumes_with_the_options_it_was_launched_with_its_cwd_and_its_env() {
    let stand_ins: Vec<(&str, String)> = CASES
        .iter()
        .map(|case| (case.kind, stand_in(case.kind, case.idle)))
        .collect();
    let agents: Vec<(&str, &str)> = stand_ins
        .iter()
        .map(|(name, body)| (*name, body.as_str()))
        .collect();
    let (mut server, root) =
        server_with_agents_and_env(&agents, &[("CLAUDE_CONFIG_DIR", "/first/claude")]);
    let ws = server.workspace("kinds", &[]);
    let cwd = root.join("project");
    std::fs::create_dir_all(&cwd).unwrap();
    let cwd_arg = cwd.display().to_string();

    let mut panes = Vec::new();
    for case in CASES {
        let kind = case.kind;
        let mut new = vec!["new", ws.as_str(), "--cwd", &cwd_arg, "--", kind];
        new.extend_from_slice(case.args);
        let pane = server.ctl_ok(&new);
        server.wait_pane(&pane, &format!("{kind}, up"), |p| {
            p["agent"]["kind"] == kind && p["lifecycle"] != "unknown"
        });
        if let Some(id) = case.report {
            server.ctl_ok(&["report-session", &pane, id, "--agent", kind]);
        }
        let id = server.wait_pane(&pane, &format!("{kind}'s session id"), |p| {
            p["agent"]["session_id"].is_string()
        })["agent"]["session_id"]
            .as_str()
            .unwrap()
            .to_string();
        panes.push((pane, id));
    }
    server.wait_snapshot("every session id on disk", |s| {
        panes
            .iter()
            .all(|(_, id)| s.to_string().contains(id.as_str()))
    });

    // The next server starts with another value: the pane's own comes back.
    server.kill9();
    server.extra_env_push("CLAUDE_CONFIG_DIR", "/second/claude");
    server.launch();
    for (case, (pane, id)) in CASES.iter().zip(&panes) {
        let kind = case.kind;
        assert_eq!(server.pane(pane).unwrap()["state"], "RESUMABLE", "{kind}");
        server.ctl_ok(&["resume", pane]);
        assert_eq!(server.pane(pane).unwrap()["state"], "LIVE", "{kind}");
        let ran = resumed_run(&root, kind);
        assert_eq!(ran.len(), 2, "{kind}: {ran:?}");
        assert_eq!(ran[1], case.resumed.replace("{id}", id), "{kind}: {ran:?}");
        // Written by the program itself, after its launcher logged its run.
        let env = wait_for("its environment logged", Duration::from_secs(15), || {
            let env = std::fs::read_to_string(root.join(format!("{kind}.env"))).ok()?;
            (env.lines().count() >= 2).then_some(env)
        });
        let lines: Vec<&str> = env.lines().collect();
        assert_eq!(
            lines,
            vec![format!("{cwd_arg} /first/claude"); 2],
            "{kind}: its cwd and saved environment, both times"
        );
    }
}

/// The stand-in's two runs, once it recorded the second: the pane is LIVE
/// as the process starts, and the process writes its record a little later.
fn resumed_run(root: &Path, kind: &str) -> Vec<String> {
    wait_for("the resumed run", Duration::from_secs(15), || {
        let ran = runs(root, kind);
        (ran.len() >= 2).then_some(ran)
    })
}

#[test]
fn ctl_explain_and_the_tombstone_say_what_a_resume_keeps_and_drops() {
    let body = stand_in("claude", "? for shortcuts");
    let (mut server, root) = server_with_agents_and_env(&[("claude", &body)], &[]);
    let ws = server.workspace("explain", &[]);
    let launch = ["--model", "X", "--permission-mode", "plan", "-p", "fix it"];
    let mut new = vec!["new", ws.as_str(), "--", "claude"];
    new.extend_from_slice(&launch);
    let pane = server.ctl_ok(&new);
    let id = server.wait_pane(&pane, "claude's preset session id", |p| {
        p["agent"]["session_id"].is_string()
    })["agent"]["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    server.wait_snapshot("the session id on disk", |s| {
        s.to_string().contains(id.as_str())
    });
    server.kill9();
    server.launch();

    let command = format!("claude --resume {id} --model X --permission-mode plan");
    let explained = server.ctl_ok(&["explain", &pane]);
    for line in [
        format!("resume      {command}"),
        "  keeps     --model X --permission-mode plan".to_string(),
        "  drops     -p \"fix it\"".to_string(),
    ] {
        assert!(explained.contains(&line), "{line:?} in:\n{explained}");
    }
    let json = server.ctl_json(&["explain", &pane]);
    assert_eq!(
        json["resume"]["dropped"],
        serde_json::json!(["-p", "fix it"])
    );

    let mut attach: Command = server.command();
    attach.args(["attach", &pane]);
    let mut terminal = Terminal::run(&attach, 24, 160);
    let offer = format!("r resume: {command} (drops: -p \"fix it\")");
    terminal.wait_text("the offer naming what it drops", |t| t.contains(&offer));
    terminal.type_bytes(b"r");
    server.wait_pane(&pane, "LIVE after r", |p| p["state"] == "LIVE");
    let ran = resumed_run(&root, "claude");
    assert_eq!(
        ran[1],
        format!("--resume {id} --model X --permission-mode plan")
    );
    // Ctrl-], attach's detach key.
    terminal.type_bytes(b"\x1d");
    assert_eq!(terminal.wait_exit(), 0);
}
