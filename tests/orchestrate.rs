//! End to end: agents driven from scripts — started and waited for,
//! prompted the way they expect (refused at a dialog or while they work,
//! or queued), and sent named keys — with stand-in agent CLIs.

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use serde_json::Value;
use support::agents::{
    CLAUDE_STAND_IN, end_turn, idle_claude, prompts, server_with_agents, start_turn,
};
use support::{TestServer, wait_for};

fn home(root: &Path) -> PathBuf {
    root.join("home")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn json_error(server: &TestServer, args: &[&str]) -> (Option<i32>, Value) {
    let out = server.ctl(&[&["--json"][..], args].concat());
    let value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code(), value)
}

#[test]
fn agent_start_answers_only_once_the_agents_prompt_is_ready() {
    let (server, root) = server_with_agents(&[("claude", CLAUDE_STAND_IN)]);
    std::fs::write(home(&root).join("start-delay"), "1").unwrap();
    let ws = server.workspace("team", &[]);
    let started = server.ctl_json(&["agent", "start", "claude", "--workspace", &ws]);
    let pane = started["id"].as_str().unwrap().to_string();
    // Read straight away: the agent is at its prompt, not still starting.
    let listed = server.pane(&pane).unwrap();
    assert_eq!(listed["lifecycle"], "idle", "{listed}");
    assert_eq!(listed["state"], "LIVE");
    assert_eq!(started["kind"], "claude");
    // Claude takes a session id at launch: the pane is resumable at once.
    let session = started["session_id"].as_str().unwrap();
    assert_eq!(listed["agent"]["session_id"], session);
    assert_eq!(listed["argv"][0], "claude");
    // In a tab of its own, named after the agent.
    let ls = server.ls();
    let tab = ls["workspaces"][0]["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == started["tab"])
        .cloned()
        .unwrap();
    assert_eq!(tab["title"], "claude");
    // Plain output is the pane id alone, for `pane=$(…)`.
    let plain = server.ctl_ok(&["agent", "start", "claude", "--workspace", &ws]);
    assert_eq!(server.pane(&plain).unwrap()["lifecycle"], "idle");
}

#[test]
fn agent_start_says_blocked_when_a_dialog_comes_first_and_keeps_the_pane() {
    let (server, root) = server_with_agents(&[("claude", CLAUDE_STAND_IN)]);
    std::fs::write(home(&root).join("first-screen"), "trust").unwrap();
    let ws = server.workspace("trusting", &[]);
    let (code, reply) = json_error(&server, &["agent", "start", "claude", "--workspace", &ws]);
    assert_eq!(code, Some(3), "{reply}");
    assert_eq!(reply["error"]["code"], "BLOCKED", "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("trust this folder"), "{message}");
    let pane = support::all_panes(&server.ls())[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.contains(&pane), "names the pane: {message}");
    // Answered with a key, the agent comes to its prompt.
    server.ctl_ok(&["send-keys", &pane, "enter"]);
    server.ctl_ok(&["wait", &pane, "--lifecycle", "idle", "--timeout", "20"]);
}

#[test]
fn agent_start_names_the_dialog_codex_waits_at_without_a_login() {
    // Codex 0.171.0's real first screen with no saved login.
    let signing_in = r#"cat "$SCREENS/codex-sign-in.txt"; exec sleep 1000"#;
    let (server, _root) = server_with_agents(&[("codex", signing_in)]);
    let ws = server.workspace("signing-in", &[]);
    let (code, reply) = json_error(&server, &["agent", "start", "codex", "--workspace", &ws]);
    assert_eq!(code, Some(3), "{reply}");
    assert_eq!(reply["error"]["code"], "BLOCKED", "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("codex in pane") && message.contains("waits at its sign-in dialog"),
        "{message}"
    );
    assert!(
        message.contains("Choose how you want to use Codex"),
        "{message}"
    );
    let pane = support::all_panes(&server.ls())[0].clone();
    assert_eq!(pane["lifecycle"], "blocked", "{pane}");
    assert_eq!(pane["attention"], "input_required", "{pane}");
}

#[test]
fn agent_start_fails_with_what_the_agent_printed_when_it_ends_first() {
    let broken = "echo 'error: no credentials found; run codex login'; exit 7";
    let (server, _root) = server_with_agents(&[("codex", broken)]);
    let ws = server.workspace("broken", &[]);
    let out = server.ctl(&["agent", "start", "codex", "--workspace", &ws]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("exited with code 7"), "{err}");
    assert!(err.contains("no credentials found"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(
        support::all_panes(&server.ls()).is_empty(),
        "its pane is closed"
    );
    // Nonsense is refused before anything starts.
    let out = server.ctl(&["agent", "start", "generic", "--workspace", &ws]);
    assert!(stderr(&out).contains("not an agent"), "{}", stderr(&out));
    let out = server.ctl(&["agent", "start", "vim", "--workspace", &ws]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn agent_start_gives_up_at_its_timeout_and_keeps_the_pane() {
    let silent = "echo warming up; exec sleep 1000";
    let (server, _root) = server_with_agents(&[("gemini", silent)]);
    let ws = server.workspace("slow", &[]);
    let (code, reply) = json_error(
        &server,
        &[
            "agent",
            "start",
            "gemini",
            "--workspace",
            &ws,
            "--timeout",
            "1",
        ],
    );
    assert_eq!(code, Some(1), "{reply}");
    assert_eq!(reply["error"]["code"], "TIMED_OUT", "{reply}");
    assert!(reply["error"]["message"].to_string().contains("warming up"));
    assert_eq!(support::all_panes(&server.ls()).len(), 1);
}

#[test]
fn a_prompt_is_pasted_and_submitted_refused_at_a_dialog_and_busy_while_working() {
    let (server, root) = server_with_agents(&[("claude", CLAUDE_STAND_IN)]);
    let ws = server.workspace("prompting", &[]);
    let pane = idle_claude(&server, &ws);
    server.ctl_ok(&["agent", "prompt", &pane, "say hi"]);
    wait_for("the prompt read", Duration::from_secs(20), || {
        let got = prompts(&home(&root), &pane);
        (!got.is_empty()).then_some(got)
    });
    // A bracketed paste (the stand-in asked for one), then Enter.
    assert_eq!(
        prompts(&home(&root), &pane),
        vec!["\x1b[200~say hi\x1b[201~".to_string()]
    );
    // The agent answered in a turn, which `agent wait` waits out.
    assert_eq!(
        server.ctl_ok(&["agent", "wait", &pane, "--timeout", "20"]),
        "done"
    );

    // At a permission prompt the text would answer it: refused.
    server.ctl_ok(&["send", &pane, "permission", "--enter"]);
    server.wait_pane(&pane, "blocked", |p| p["lifecycle"] == "blocked");
    let (code, reply) = json_error(&server, &["agent", "prompt", &pane, "go on"]);
    assert_eq!(code, Some(3), "{reply}");
    assert_eq!(reply["error"]["code"], "BLOCKED");
    assert_eq!(prompts(&home(&root), &pane).len(), 1);

    // While it works: BUSY, unless queued.
    server.ctl_ok(&["send", &pane, "idle", "--enter"]);
    server.wait_pane(&pane, "idle", |p| p["lifecycle"] == "idle");
    start_turn(&server, &pane);
    let (code, reply) = json_error(&server, &["agent", "prompt", &pane, "next task"]);
    assert_eq!(code, Some(4), "{reply}");
    assert_eq!(reply["error"]["code"], "BUSY");
    assert!(reply["error"]["message"].to_string().contains("--queue"));
    assert_eq!(
        server.ctl_ok(&["agent", "prompt", &pane, "queued task", "--queue"]),
        "queued (1)"
    );
    assert_eq!(prompts(&home(&root), &pane).len(), 1, "held while working");
    end_turn(&home(&root), &pane);
    wait_for("the queued prompt typed", Duration::from_secs(20), || {
        let got = prompts(&home(&root), &pane);
        (got.len() == 2).then_some(got)
    });
    assert!(prompts(&home(&root), &pane)[1].contains("queued task"));
}

#[test]
fn a_pane_holds_a_bounded_number_of_queued_prompts() {
    let (server, root) = server_with_agents(&[("claude", CLAUDE_STAND_IN)]);
    let ws = server.workspace("many", &[]);
    let pane = idle_claude(&server, &ws);
    start_turn(&server, &pane);
    for i in 1..=16 {
        let queued = server.ctl_ok(&["agent", "prompt", &pane, &format!("task {i}"), "--queue"]);
        assert_eq!(queued, format!("queued ({i})"));
    }
    let out = server.ctl(&["agent", "prompt", &pane, "one too many", "--queue"]);
    assert_eq!(out.status.code(), Some(4));
    assert!(stderr(&out).contains("16 prompts"), "{}", stderr(&out));
    end_turn(&home(&root), &pane);
    // A shell is not an agent to prompt.
    let shell = server.ctl_ok(&["new", &ws, "--", "cat"]);
    let out = server.ctl(&["agent", "prompt", &shell, "hello"]);
    assert!(stderr(&out).contains("ctl send"), "{}", stderr(&out));
}

#[test]
fn send_keys_reach_the_program_encoded_as_its_modes_ask() {
    let server = TestServer::start();
    let ws = server.workspace("keys", &[]);
    let pane = server.new_sh(&ws, "stty -icanon -isig -echo; echo ready; exec od -An -c");
    server.wait_output(&pane, "ready");
    server.ctl_ok(&["send-keys", &pane, "shift+tab", "C-c", "a", "up"]);
    // od prints what arrives once it has a full line of 16 bytes.
    server.ctl_ok(&["send-keys", &pane, "f5", "esc", "x", "y"]);
    let screen = server.wait_output(&pane, "033   [   Z");
    assert!(
        screen.contains("033   [   Z 003   a 033   [   A"),
        "{screen}"
    );
    // Cursor keys in application mode (DECCKM), as vim and agents set it.
    let app = server.new_sh(
        &ws,
        "printf '\\033[?1h'; stty -icanon -isig -echo; echo ready; exec od -An -c",
    );
    server.wait_output(&app, "ready");
    server.ctl_ok(&["send-keys", &app, "up", "down", "left", "right"]);
    server.ctl_ok(&["send-keys", &app, "C-a", "C-b", "C-d", "C-e"]);
    server.wait_output(&app, "033   O   A 033   O   B 033   O   D 033   O   C");
    // A name that means nothing is refused, and nothing is sent.
    let out = server.ctl(&["send-keys", &pane, "enter", "shfit+tab"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("\"shfit+tab\" is not a key"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn agent_wait_right_after_a_prompt_waits_for_the_turn_it_starts() {
    let (server, root) = server_with_agents(&[("claude", CLAUDE_STAND_IN)]);
    let ws = server.workspace("waiting", &[]);
    let pane = idle_claude(&server, &ws);
    // Idle before the prompt: the wait must not take that for the end.
    server.ctl_ok(&["agent", "prompt", &pane, "write the tests"]);
    assert_eq!(
        server.ctl_ok(&["agent", "wait", &pane, "--timeout", "30"]),
        "done"
    );
    assert_eq!(
        prompts(&home(&root), &pane),
        vec!["\x1b[200~write the tests\x1b[201~"]
    );
    assert!(
        server.ctl_ok(&["read", &pane]).contains("Cooked for"),
        "the answer is on screen"
    );
    // At a dialog the wait ends too, saying so (exit 3).
    server.ctl_ok(&["send", &pane, "permission", "--enter"]);
    server.wait_pane(&pane, "blocked", |p| p["lifecycle"] == "blocked");
    let out = server.ctl(&["agent", "wait", &pane, "--timeout", "30"]);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "blocked");
    // And when the agent ends (exit 1, with its code).
    server.ctl_ok(&["send", &pane, "quit", "--enter"]);
    let out = server.ctl(&["agent", "wait", &pane, "--timeout", "30"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "exit 0");
}

#[test]
fn incremental_reads_return_exactly_the_new_lines_and_scrollback_reads_go_back() {
    let server = TestServer::start();
    let ws = server.workspace("reading", &[]);
    let pane = server.new_sh(
        &ws,
        "seq 1 100; read go; printf 'alpha\\nbeta\\n'; read go; echo gamma; sleep 1000",
    );
    server.wait_output(&pane, "100");
    let first = server.ctl_json(&["read", &pane, "--since", "0"]);
    let all: Vec<String> = (1..=100).map(|i| i.to_string()).collect();
    assert_eq!(first["text"], format!("{}\n", all.join("\n")), "{first}");
    assert_eq!(first["missed"], 0);
    let offset = first["offset"].as_u64().unwrap();
    assert_eq!(
        server.ctl_ok(&["read", &pane, "--offset"]),
        offset.to_string()
    );
    server.ctl_ok(&["send", &pane, "go", "--enter"]);
    server.wait_output(&pane, "beta");
    let next = server.ctl_json(&["read", &pane, "--since", &offset.to_string()]);
    // The typed answer's row, then the two new lines.
    assert_eq!(next["text"], "go\nalpha\nbeta\n", "{next}");
    let offset = next["offset"].as_u64().unwrap();
    assert_eq!(
        server.ctl_json(&["read", &pane, "--since", &offset.to_string()])["text"],
        "",
        "nothing new, nothing repeated"
    );
    server.ctl_ok(&["send", &pane, "go", "--enter"]);
    server.wait_output(&pane, "gamma");
    let plain = server.ctl_ok(&["read", &pane, "--since", &offset.to_string(), "--plain"]);
    assert_eq!(plain, "go\ngamma");

    // Back through the scrollback: N lines above the screen, or all.
    let back = server.ctl_ok(&["read", &pane, "--scrollback", "10"]);
    let screen = server.ctl_ok(&["read", &pane]);
    assert!(back.ends_with(&screen), "{back}");
    assert_eq!(back.lines().count(), screen.lines().count() + 10, "{back}");
    let everything = server.ctl_ok(&["read", &pane, "--all"]);
    assert!(everything.starts_with("1\n2\n3\n"), "{everything}");
    assert!(everything.contains("gamma"));
    let out = server.ctl(&["read", &pane, "--all", "--tail", "3"]);
    assert_eq!(out.status.code(), Some(2), "clap refuses two at once");
}
