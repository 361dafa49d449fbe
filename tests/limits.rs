//! No string can stop saving: every string a client sends is bounded at the
//! IPC edge with an error naming the field, every count is bounded, and a
//! snapshot that holds more (written by hand, or by an older build) is cut
//! on load with the cut logged.

mod support;

use std::time::Duration;

use serde_json::{Value, json};
use support::{TestServer, all_panes, hook, wait_for};

/// The error a raw request got, as (code, message).
fn refused(server: &TestServer, method: &str, params: Value) -> (String, String) {
    let reply = server.raw_call(method, params);
    let error = &reply["error"];
    assert!(error.is_object(), "{method} was accepted: {reply}");
    (
        error["code"].as_str().unwrap().to_string(),
        error["message"].as_str().unwrap().to_string(),
    )
}

#[test]
fn a_huge_workspace_name_is_refused_by_name_and_saving_goes_on() {
    let server = TestServer::start();
    let name = "n".repeat(100_000);
    let out = server.ctl(&["workspace", "new", &name]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("workspace name") && err.contains("at most 256"),
        "{err}"
    );
    let cwd = server.dir.path().display().to_string();
    let (code, message) = refused(
        &server,
        "workspace.new",
        json!({"name": "n".repeat(1 << 20), "cwd": cwd}),
    );
    assert_eq!(code, "BAD_PARAMS");
    assert!(message.contains("1048576 bytes"), "{message}");

    server.workspace("after", &[]);
    server.wait_snapshot("the next change saved", |s| {
        s["workspaces"][0]["name"] == "after"
    });
    let status = server.ctl_json(&["status"]);
    assert!(status["snapshot"]["last_error"].is_null(), "{status}");
}

#[test]
fn every_string_a_client_sends_is_bounded() {
    let server = TestServer::start();
    let long = |n: usize| "x".repeat(n);
    let many_words: Vec<String> = vec!["w".into(); 257];
    let cases = [
        (
            "workspace.new",
            json!({"name": "w", "cwd": long(5000)}),
            "working directory",
        ),
        (
            "tab.new",
            json!({"workspace": "w", "title": long(2000)}),
            "tab title",
        ),
        (
            "tab.new",
            json!({"workspace": "w", "argv": many_words}),
            "257 words",
        ),
        (
            "pane.new",
            json!({"workspace": "w", "argv": ["sh", long(20_000)]}),
            "the command",
        ),
        (
            "pane.new",
            json!({"workspace": "w", "title": "a\u{1b}[2Jb"}),
            "control characters",
        ),
        (
            "pane.new",
            json!({"workspace": long(300)}),
            "workspace is 300 bytes",
        ),
        (
            "pane.send",
            json!({"pane": long(300), "text": "x"}),
            "pane is 300 bytes",
        ),
        ("notify", json!({"title": long(2000)}), "notification title"),
        (
            "notify",
            json!({"title": "t", "body": long(5000)}),
            "notification body",
        ),
        (
            "pane.report_session",
            json!({"pane": "p", "session_id": long(300)}),
            "session id",
        ),
        (
            "pane.hook",
            json!({"pane": "p", "agent": "claude", "event": "Stop", "message": long(5000)}),
            "hook message",
        ),
        (
            "pane.kill",
            json!({"pane": "p", "signal": long(100)}),
            "signal",
        ),
    ];
    for (method, params, field) in cases {
        let (code, message) = refused(&server, method, params);
        assert_eq!(code, "BAD_PARAMS", "{method}: {message}");
        assert!(message.contains(field), "{method}: {message}");
    }
    // Nothing of it reached the state.
    assert!(server.ls()["workspaces"].as_array().unwrap().is_empty());
}

#[test]
fn a_hook_with_a_long_message_is_shortened_not_refused() {
    let server = TestServer::start();
    let ws = server.workspace("w", &[]);
    let pane = server.new_sh(&ws, "exec sleep 600");
    let payload =
        json!({"type": "agent-turn-complete", "last-assistant-message": "y".repeat(100_000)});
    let out = hook(
        &server,
        "codex",
        "notify",
        &pane,
        payload.to_string().as_bytes(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shown = server.wait_pane(&pane, "the message shown", |p| {
        p["last_message"].is_string()
    });
    assert!(shown["last_message"].as_str().unwrap().len() <= 4096);
}

#[test]
fn the_number_of_workspaces_is_bounded() {
    let server = TestServer::start();
    let cwd = server.dir.path().display().to_string();
    for n in 0..256 {
        let reply = server.raw_call(
            "workspace.new",
            json!({"name": format!("w{n}"), "cwd": cwd}),
        );
        assert!(reply["result"].is_object(), "{reply}");
    }
    let (code, message) = refused(
        &server,
        "workspace.new",
        json!({"name": "one more", "cwd": cwd}),
    );
    assert_eq!(code, "REFUSED");
    assert!(message.contains("256 workspaces"), "{message}");
    server.wait_snapshot("all of them saved", |s| {
        s["workspaces"].as_array().is_some_and(|w| w.len() == 256)
    });
}

#[test]
fn an_over_long_saved_field_is_cut_on_load_and_the_cut_logged() {
    let mut server = TestServer::start();
    let ws = server.workspace("w", &[]);
    let pane = server.new_sh(&ws, "exec sleep 600");
    server.wait_snapshot("the pane saved", |s| s["panes"][0]["id"] == pane.as_str());
    server.kill9();

    let mut snapshot = server.snapshot().unwrap();
    snapshot["workspaces"][0]["name"] = json!("n".repeat(10_000));
    snapshot["panes"][0]["argv"] = json!(vec!["word"; 1000]);
    snapshot["panes"][0]["last_message"] = json!("m".repeat(100_000));
    std::fs::write(server.snapshot_path(), snapshot.to_string()).unwrap();
    server.launch();

    let ls = server.ls();
    assert_eq!(ls["workspaces"][0]["name"].as_str().unwrap().len(), 256);
    let restored = &all_panes(&ls)[0];
    assert_eq!(restored["argv"].as_array().unwrap().len(), 260);
    assert_eq!(restored["last_message"].as_str().unwrap().len(), 4096);
    let log = server.log();
    assert!(log.contains("name cut from 10000 to 256 bytes"), "{log}");
    assert!(log.contains("argv cut from 1000 words"), "{log}");
    // And what is saved from now on is the cut version.
    server.ctl_ok(&["workspace", "new", "more", "--cwd", "/"]);
    wait_for("the cut state saved", Duration::from_secs(10), || {
        server.snapshot().filter(|s| {
            s["workspaces"].as_array().is_some_and(|w| w.len() == 2)
                && s["workspaces"][0]["name"]
                    .as_str()
                    .is_some_and(|n| n.len() == 256)
        })
    });
}
