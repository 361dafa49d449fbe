//! End to end: which pane needs the user, from terminal output, hooks and
//! `ctl notify` — and it survives a restart.

mod support;

use std::time::Duration;

use serde_json::Value;
use support::terminal::Terminal;
use support::{TestServer, hook, wait_for};

fn notifications(server: &TestServer, unread: bool) -> Vec<Value> {
    let args: &[&str] = if unread {
        &["notifications", "--unread"]
    } else {
        &["notifications"]
    };
    server.ctl_json(args)["notifications"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn osc_notifications_split_across_writes_raise_attention_with_clean_text() {
    let server = TestServer::start();
    let ws = server.workspace("osc", &[]);
    let script = "printf '\\033]9;build '; sleep 0.3; printf 'finished\\007'; \
                  printf '\\033]777;notify;Deploy\\tnow;all \\001green'; sleep 0.3; printf '\\007'; sleep 1000";
    let pane = server.new_sh(&ws, script);
    let list = wait_for("both notifications", Duration::from_secs(15), || {
        let list = notifications(&server, false);
        (list.len() >= 2).then_some(list)
    });
    let osc9 = list.iter().find(|n| n["source"] == "osc9").expect("osc9");
    assert_eq!(osc9["body"], "build finished");
    assert_eq!(osc9["pane_id"], pane.as_str());
    let osc777 = list
        .iter()
        .find(|n| n["source"] == "osc777")
        .expect("osc777");
    assert_eq!(osc777["title"], "Deploy now");
    assert_eq!(osc777["body"], "all green", "control characters removed");
    let listed = server.pane(&pane).unwrap();
    assert_ne!(listed["attention"], "none");
    assert_eq!(listed["last_message"], "all green");
}

#[test]
fn output_nobody_watches_and_a_bell_raise_unread_and_seen_clears_it() {
    let server = TestServer::start();
    let ws = server.workspace("bell", &[]);
    let pane = server.ctl_ok(&["new", &ws]);
    server.wait_pane(&pane, "unread from output", |p| p["attention"] == "unread");
    server.ctl_ok(&["seen", &pane]);
    assert_eq!(server.pane(&pane).unwrap()["attention"], "none");

    // While someone watches, output is not news — but a bell still is.
    let mut command = server.command();
    command.args(["attach", "--keep-attention", &pane]);
    let mut terminal = Terminal::run(&command, 24, 80);
    terminal.wait_text("the prompt", |t| !t.trim().is_empty());
    terminal.type_bytes(b"echo quiet-output\r");
    terminal.wait_text("the echo", |t| t.contains("quiet-output"));
    assert_eq!(server.pane(&pane).unwrap()["attention"], "none");
    terminal.type_bytes(b"printf '\\a'\r");
    server.wait_pane(&pane, "unread from a bell", |p| p["attention"] == "unread");
    terminal.type_bytes(b"\x1d");
    assert_eq!(terminal.wait_exit(), 0);
    // A plain attach counts as seeing the pane.
    let mut command = server.command();
    command.args(["attach", &pane]);
    let mut terminal = Terminal::run(&command, 24, 80);
    server.wait_pane(&pane, "seen by attaching", |p| p["attention"] == "none");
    terminal.type_bytes(b"\x1d");
    assert_eq!(terminal.wait_exit(), 0);
}

/// Reports `event` of `agent` with `payload`, which ends a turn of
/// session `session`: the pane shows the turn done and unread, and knows
/// the agent and its session.
fn hook_ends_turn(
    server: &TestServer,
    agent: &str,
    event: &str,
    pane: &str,
    payload: &str,
    session: &str,
) {
    let out = hook(server, agent, event, pane, payload.as_bytes());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = server.pane(pane).unwrap();
    assert_eq!(listed["lifecycle"], "done");
    assert_eq!(listed["attention"], "unread");
    assert_eq!(listed["agent"]["kind"], agent);
    assert_eq!(listed["agent"]["session_id"], session);
}

#[test]
fn claude_hooks_set_lifecycle_attention_and_the_session_id() {
    let server = TestServer::start();
    let ws = server.workspace("hooks", &[]);
    let pane = server.ctl_ok(&["new", &ws, "--", "sleep", "1000"]);
    server.ctl_ok(&["seen", &pane]);
    let session = "7d3e5a9c-1b2f-4c8d-9e0a-3f6b2d1c4e5a";
    let stop = format!(
        r#"{{"session_id":"{session}","transcript_path":"/home/u/.claude/projects/x/{session}.jsonl","cwd":"/home/u/x","hook_event_name":"Stop","stop_hook_active":false}}"#
    );
    hook_ends_turn(&server, "claude", "Stop", &pane, &stop, session);

    let ask = format!(
        r#"{{"session_id":"{session}","hook_event_name":"Notification","message":"Claude needs your permission to use Bash"}}"#
    );
    let out = hook(&server, "claude", "Notification", &pane, ask.as_bytes());
    assert!(out.status.success());
    let listed = server.pane(&pane).unwrap();
    assert_eq!(listed["attention"], "permission_required");
    assert_eq!(listed["lifecycle"], "blocked");
    assert!(
        notifications(&server, true)
            .iter()
            .any(|n| n["source"] == "hook:claude")
    );

    // The user answers: the agent works again and the pane no longer asks.
    let out = hook(
        &server,
        "claude",
        "UserPromptSubmit",
        &pane,
        format!(r#"{{"session_id":"{session}","prompt":"go"}}"#).as_bytes(),
    );
    assert!(out.status.success());
    let listed = server.pane(&pane).unwrap();
    assert_eq!(listed["lifecycle"], "working");
    assert_eq!(listed["attention"], "none");

    // ctl seen marks the notifications read; a turn that ended and has
    // now been looked at is no longer `done` but `idle`.
    hook(&server, "claude", "Stop", &pane, stop.as_bytes());
    server.ctl_ok(&["seen", &pane]);
    let listed = server.pane(&pane).unwrap();
    assert_eq!(listed["attention"], "none");
    assert_eq!(listed["lifecycle"], "idle");
    assert!(notifications(&server, true).is_empty());
}

/// codex runs one notify program for every event, naming the event in the
/// payload's `type`: its data file says so, and the server reports that
/// event.
#[test]
fn codex_notify_reports_the_event_its_payload_names() {
    let server = TestServer::start();
    let ws = server.workspace("codex-notify", &[]);
    let pane = server.ctl_ok(&["new", &ws, "--", "sleep", "1000"]);
    server.ctl_ok(&["seen", &pane]);
    let thread = "0f9e8d7c-6b5a-4c3d-8e2f-1a0b9c8d7e6f";
    let turn = format!(
        r#"{{"type":"agent-turn-complete","thread-id":"{thread}","turn-id":"1","input-messages":["go"],"last-assistant-message":"all done"}}"#
    );
    hook_ends_turn(&server, "codex", "notify", &pane, &turn, thread);

    let out = hook(&server, "codex", "notify", &pane, br#"{"thread-id":"x"}"#);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("codex's notify payload has no \"type\"; nothing to report"),
        "{stderr}"
    );
}

#[test]
fn attention_and_unread_notifications_survive_a_kill() {
    let mut server = TestServer::start();
    let ws = server.workspace("survive", &[]);
    let pane = server.ctl_ok(&["new", &ws, "--", "sleep", "1000"]);
    server.ctl_ok(&[
        "notify",
        "--pane",
        &pane,
        "--severity",
        "error",
        "tests failed",
        "3 of 120",
    ]);
    assert_eq!(server.pane(&pane).unwrap()["attention"], "error");
    wait_for("the notification on disk", Duration::from_secs(5), || {
        server
            .snapshot()
            .filter(|s| s.to_string().contains("tests failed"))
    });
    server.kill9();
    server.launch();
    let listed = server.pane(&pane).unwrap();
    assert_eq!(listed["attention"], "error", "unread stays unread");
    let unread = notifications(&server, true);
    assert_eq!(unread.len(), 1);
    assert_eq!(unread[0]["title"], "tests failed");
    assert_eq!(unread[0]["body"], "3 of 120");
    assert_eq!(unread[0]["severity"], "error");
    assert_eq!(server.ctl_ok(&["next"]), pane);
}

#[test]
fn next_names_the_most_severe_then_the_most_recent() {
    let server = TestServer::start();
    let ws = server.workspace("next", &[]);
    let quiet = server.ctl_ok(&["new", &ws, "--", "sleep", "1000"]);
    let warned = server.ctl_ok(&["new", &ws, "--", "sleep", "1000"]);
    let later = server.ctl_ok(&["new", &ws, "--", "sleep", "1000"]);
    for pane in [&quiet, &warned, &later] {
        server.ctl_ok(&["seen", pane]);
    }
    let out = server.ctl(&["next"]);
    assert!(!out.status.success(), "nothing needs the user yet");
    server.ctl_ok(&["notify", "--pane", &quiet, "hello"]);
    server.ctl_ok(&[
        "notify",
        "--pane",
        &warned,
        "--severity",
        "warning",
        "careful",
    ]);
    // Recency is kept in milliseconds: let the clock move on.
    let at = std::time::Instant::now();
    wait_for("the clock to move", Duration::from_secs(15), || {
        (at.elapsed() >= Duration::from_millis(3)).then_some(())
    });
    server.ctl_ok(&[
        "notify",
        "--pane",
        &later,
        "--severity",
        "warning",
        "careful too",
    ]);
    assert_eq!(server.ctl_ok(&["next"]), later);
    server.ctl_ok(&["seen", &later]);
    assert_eq!(server.ctl_ok(&["next"]), warned);
    let ls = server.ls();
    assert_eq!(
        ls["workspaces"][0]["attention"], "warning",
        "a workspace shows its worst pane"
    );
}

#[test]
fn hostile_hook_payloads_and_titles_are_refused_or_cleaned() {
    let server = TestServer::start();
    let ws = server.workspace("hostile", &[]);
    let pane = server.ctl_ok(&["new", &ws, "--", "sleep", "1000"]);
    let huge = vec![b'{'; 2 * 1024 * 1024];
    let out = hook(&server, "claude", "Stop", &pane, &huge);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("larger"));
    let out = hook(
        &server,
        "claude",
        "Stop",
        &pane,
        br#"{"session_id": ["not", "a", "string"]}"#,
    );
    assert_eq!(out.status.code(), Some(1));
    let out = hook(
        &server,
        "claude",
        "Stop",
        &pane,
        br#"{"session_id": "../../etc/passwd"}"#,
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "an id that fails the adapter's rule is refused"
    );
    let out = hook(&server, "claude", "NoSuchEvent", &pane, b"{}");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("known events"));

    let evil = "\u{1b}]0;pwned\u{7}Hello\u{1b}[31m world\u{202e}!";
    server.ctl_ok(&["notify", "--pane", &pane, evil, &"x".repeat(4000)]);
    let list = notifications(&server, false);
    let last = list.last().unwrap();
    assert_eq!(last["title"], "Hello world!");
    assert!(last["body"].as_str().unwrap().chars().count() <= 1024);
    server.ctl_ok(&["status"]);
}
