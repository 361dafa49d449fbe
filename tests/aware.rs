//! End to end: agents known, their state read and their sessions found
//! with no setup — stand-in agents draw screens captured from the real
//! CLIs and write the files the real ones write.

mod support;

use std::time::Duration;

use serde_json::{Value, json};
use support::agents::{
    CLAUDE_STAND_IN, captured_screen, end_turn, finish_turn, frame_number, idle_claude, runs,
    server_with_agents, start_turn,
};
use support::{TestServer, wait_for};

fn agent(pane: &Value) -> (String, String) {
    (
        pane["agent"]["kind"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        pane["agent"]["session_id"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    )
}

const SESSION: &str = "5b0e3c1a-7d2f-4e8b-9a6c-1f2e3d4c5b6a";

#[test]
fn claude_typed_in_a_shell_is_found_resumable_after_a_kill_and_resumes_inside_a_shell() {
    let (mut server, root) = server_with_agents(&[("claude", CLAUDE_STAND_IN)]);
    let ws = server.workspace("typed", &[]);
    let pane = server.ctl_ok(&["new", &ws, "--", "bash", "--norc", "--noprofile"]);
    server.ctl_ok(&["send", &pane, "claude", "--enter"]);
    let found = server.wait_pane(&pane, "claude and its session id", |p| {
        agent(p) == ("claude".to_string(), SESSION.to_string())
    });
    assert_eq!(found["argv"][0], "bash", "the pane's own command is kept");
    server.wait_pane(&pane, "idle read from the screen", |p| {
        p["lifecycle"] == "idle"
    });
    server.wait_snapshot("the session id on disk", |s| {
        s.to_string().contains(SESSION)
    });

    server.kill9();
    server.launch();
    assert_eq!(server.pane(&pane).unwrap()["state"], "RESUMABLE");
    server.ctl_ok(&["resume", &pane]);
    let listed = server.pane(&pane).unwrap();
    assert_eq!(listed["state"], "LIVE");
    assert_eq!(listed["argv"][0], "bash", "it came back inside a shell");
    assert_eq!(
        runs(&root, "claude").last().unwrap(),
        &format!("--resume {SESSION}")
    );

    // The agent ends: the user is at the shell prompt, the pane LIVE.
    server.ctl_ok(&["send", &pane, "quit", "--enter"]);
    server.wait_pane(&pane, "the agent to end", |p| p["agent"]["ended"] == true);
    server.ctl_ok(&["send", &pane, "echo back-in-the-shell", "--enter"]);
    server.wait_output(&pane, "back-in-the-shell");
    assert_eq!(server.pane(&pane).unwrap()["state"], "LIVE");
}

/// Pushed, not polled: a `pane.wait` registered before the prompt shows
/// is answered by the state changing, not by its timeout.
#[test]
fn a_permission_prompt_raises_permission_required_and_wakes_a_waiter_with_no_hooks() {
    let (server, _root) = server_with_agents(&[("claude", CLAUDE_STAND_IN)]);
    let ws = server.workspace("ask", &[]);
    let pane = server.ctl_ok(&["new", &ws, "--", "claude"]);
    server.wait_pane(&pane, "idle", |p| p["lifecycle"] == "idle");
    server.ctl_ok(&["seen", &pane]);
    let waiter = {
        let (socket, pane) = (server.socket.clone(), pane.clone());
        let params = json!({"pane": pane, "lifecycle": "blocked", "timeout_ms": 10_000});
        std::thread::spawn(move || support::raw_call(&socket, "pane.wait", params))
    };
    wait_for("the wait registered", Duration::from_secs(10), || {
        let explained = server.raw_call("pane.explain", json!({"pane": pane}));
        (explained["result"]["waiting"] == 1).then_some(())
    });
    let sent = server.raw_call(
        "pane.send",
        json!({"pane": pane, "text": "permission", "enter": true}),
    );
    assert!(sent["error"].is_null(), "{sent}");
    let waited = waiter.join().expect("the waiting thread");
    // Met by the change, not by its timeout: woken, not polled.
    assert_eq!(waited["result"]["met"], "lifecycle", "{waited}");
    let p = server.pane(&pane).expect("the pane");
    assert_eq!(p["attention"], "permission_required", "{p}");

    let explained = server.ctl_json(&["explain", &pane]);
    assert_eq!(explained["kind"], "claude");
    assert_eq!(explained["state"], "blocked (permission)");
    assert_eq!(explained["rule"], "permission prompt");
    assert!(
        explained["evidence"]
            .to_string()
            .contains("Do you want to proceed?")
    );
    let text = server.ctl_ok(&["explain", &pane]);
    assert!(
        text.contains("permission prompt") && text.contains("│"),
        "{text}"
    );

    // The user answers: the prompt is gone and so is the attention.
    server.ctl_ok(&["send", &pane, "working", "--enter"]);
    server.wait_pane(&pane, "working again", |p| {
        p["lifecycle"] == "working" && p["attention"] == "none"
    });
    // The turn ends with nobody looking: done, and unread until seen.
    server.ctl_ok(&["send", &pane, "done", "--enter"]);
    server.wait_pane(&pane, "done", |p| {
        p["lifecycle"] == "done" && p["attention"] == "unread"
    });
    server.ctl_ok(&["seen", &pane]);
    let seen = server.pane(&pane).unwrap();
    assert_eq!(
        (seen["lifecycle"].as_str(), seen["attention"].as_str()),
        (Some("idle"), Some("none"))
    );
}

#[test]
fn explain_reads_a_saved_screen_with_the_named_agents_rules() {
    let server = TestServer::start();
    let file = captured_screen("gemini-working");
    let out = server.ctl_json(&[
        "explain",
        "--file",
        file.to_str().unwrap(),
        "--agent",
        "gemini",
    ]);
    assert_eq!(out["state"], "working");
    assert_eq!(out["rule"], "busy");
    let out = server.ctl_json(&[
        "explain",
        "--file",
        file.to_str().unwrap(),
        "--agent",
        "claude",
    ]);
    assert_ne!(out["state"], "working", "claude's rules do not read gemini");
    let bad = server.ctl(&[
        "explain",
        "--file",
        file.to_str().unwrap(),
        "--agent",
        "nope",
    ]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown agent kind"));
}

#[test]
fn a_spinner_and_top_redrawing_never_raise_unread() {
    let server = TestServer::start();
    let ws = server.workspace("quiet", &[]);
    let spinner = server.new_sh(&ws, "echo start; i=0; while :; do i=$((i+1)); printf '\\r%s working %s' '|/-\\' $i; sleep 0.05; done");
    let top = server.ctl_ok(&["new", &ws, "--", "top", "-d", "0.2"]);
    server.wait_output(&top, "load average");
    server.wait_output(&spinner, "working");
    for pane in [&spinner, &top] {
        server.ctl_ok(&["seen", pane]);
    }
    // Watch both redraw many times over.
    let mut frames = std::collections::HashSet::new();
    wait_for("20 different frames", Duration::from_secs(20), || {
        for pane in [&spinner, &top] {
            frames.insert(server.ctl_ok(&["read", pane]));
        }
        (frames.len() >= 20).then_some(())
    });
    for pane in [&spinner, &top] {
        assert_eq!(
            server.pane(pane).unwrap()["attention"],
            "none",
            "pane {pane}"
        );
    }
    // New lines are news.
    let lines = server.new_sh(&ws, "sleep 0.5; echo one; echo two; sleep 1000");
    server.ctl_ok(&["seen", &lines]);
    server.wait_pane(&lines, "unread from new lines", |p| {
        p["attention"] == "unread"
    });
}

#[test]
fn ctl_wait_for_text_lifecycle_exit_and_a_timeout() {
    let (server, _root) = server_with_agents(&[("claude", CLAUDE_STAND_IN)]);
    let ws = server.workspace("wait", &[]);
    let pane = server.new_sh(&ws, "echo ready-now; read x; echo later-$x; read y; exit 3");
    // Text already on screen matches at once, and prints the line.
    assert_eq!(
        server.ctl_ok(&["wait", &pane, "--text", "ready-\\w+", "--timeout", "10"]),
        "ready-now"
    );
    // Text still to come: the wait is answered when it arrives.
    let waiter = server
        .command()
        .args([
            "ctl",
            "wait",
            &pane,
            "--text",
            "later-[0-9]+",
            "--timeout",
            "20",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    server.ctl_ok(&["send", &pane, "42", "--enter"]);
    let out = waiter.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "later-42");
    // A timeout exits 1 and says so.
    let out = server.ctl(&["wait", &pane, "--text", "never-seen", "--timeout", "0.3"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("within 0.3s"));
    // Exit, with its code.
    server.ctl_ok(&["send", &pane, "x", "--enter"]);
    assert_eq!(
        server.ctl_ok(&["wait", &pane, "--exit", "--timeout", "20"]),
        "exit 3"
    );

    // A lifecycle read from an agent's screen.
    let agent = server.ctl_ok(&["new", &ws, "--", "claude"]);
    assert_eq!(
        server.ctl_ok(&["wait", &agent, "--lifecycle", "idle", "--timeout", "20"]),
        ""
    );
    let out = server.ctl(&["wait", &agent, "--lifecycle", "sleepy"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not one of"));
}

/// gemini 0.61.0 as it behaves offline: started fresh it writes its
/// project map and its chat file (first line `sessionId`) and draws its
/// prompt; asked to resume a session it no longer has, it draws nothing,
/// and after ~2.2 s prints "No previous sessions found" and exits 42.
const GEMINI_STAND_IN: &str = r#"
sid=$(printf '%08x-0000-4000-8000-%012x' $$ $$)
resume=
while [ $# -gt 0 ]; do
  case $1 in --session-id) sid=$2; shift;; --resume) resume=$2; shift;; esac
  shift
done
if [ -n "$resume" ]; then
  sleep 2.2
  echo 'Error resuming session: No previous sessions found for this project.' >&2
  exit 42
fi
home=${GEMINI_CLI_HOME:-$HOME}/.gemini
project=$(basename "$PWD")
mkdir -p "$home/tmp/$project/chats"
echo "$PWD $project" >> "$home/projects.list"
awk 'BEGIN { printf "{\"projects\":{" } { printf "%s\"%s\":\"%s\"", (NR > 1 ? "," : ""), $1, $2 } END { print "}}" }' \
  "$home/projects.list" > "$home/projects.$$" && mv "$home/projects.$$" "$home/projects.json"
printf '{"sessionId":"%s","projectHash":"x","kind":"main"}\n' "$sid" > "$home/tmp/$project/chats/session-x-${sid%%-*}.jsonl"
sed 's/$/\r/' "$SCREENS/gemini-idle.txt"
echo "gemini-history-of-$project"
sleep 1000
"#;

/// A resume that gemini accepts and then gives up on: `ctl resume` waits,
/// fails with what gemini printed after the resume (not the history), and
/// the pane stays the tombstone it was — started directly, or typed into
/// a shell and resumed inside a fresh one.
#[test]
fn a_resumed_agent_that_exits_within_the_wait_fails_the_resume() {
    let (mut server, root) = server_with_agents(&[("gemini", GEMINI_STAND_IN)]);
    let ws = server.workspace("gem", &[]);
    let mut panes = Vec::new();
    for (name, argv) in [
        ("direct", &["gemini"][..]),
        ("typed", &["bash", "--norc", "--noprofile"][..]),
    ] {
        let cwd = root.join(name);
        std::fs::create_dir_all(&cwd).unwrap();
        let mut args = vec!["new", &ws, "--cwd", cwd.to_str().unwrap(), "--"];
        args.extend_from_slice(argv);
        let pane = server.ctl_ok(&args);
        if name == "typed" {
            server.ctl_ok(&["send", &pane, "gemini", "--enter"]);
        }
        server.wait_output(&pane, &format!("gemini-history-of-{name}"));
        server.wait_pane(&pane, "gemini's session id from its chat file", |p| {
            p["agent"]["kind"] == "gemini" && p["agent"]["session_id"].is_string()
        });
        panes.push(pane);
    }
    server.wait_snapshot("both session ids on disk", |s| {
        s.to_string().matches("agent_session_id").count() >= 2
    });
    server.kill9();
    server.launch();

    for pane in &panes {
        assert_eq!(server.pane(pane).unwrap()["state"], "RESUMABLE");
        let started = std::time::Instant::now();
        let out = server.ctl(&["resume", pane]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "pane {pane}: {err}");
        assert!(err.contains("No previous sessions found"), "{err}");
        assert!(
            !err.contains("gemini-history"),
            "the history is not news: {err}"
        );
        assert!(
            started.elapsed() >= Duration::from_secs(2),
            "answered only once gemini had given up"
        );
        let listed = server.pane(pane).unwrap();
        assert_eq!(listed["state"], "RESUMABLE", "pane {pane}");
        assert!(server.ctl_ok(&["read", pane]).contains("gemini-history-of"));
    }
    let resumed = runs(&root, "gemini");
    assert_eq!(
        resumed
            .iter()
            .filter(|r| r.starts_with("--resume "))
            .count(),
        2,
        "{resumed:?}"
    );
}

/// Copilot CLI 1.0.102 as installed from npm: `node …/copilot` runs its
/// native binary as a child, and that child makes
/// `~/.copilot/session-state/<id>/inuse.<its pid>.lock` at start.
const COPILOT_STAND_IN: &str = r#"
state=${COPILOT_HOME:-$HOME/.copilot}/session-state
sh -c '
sid=$(printf "%08x-0000-4000-8000-%012x" $$ $$)
mkdir -p "$1/$sid"
printf "id: %s\ncwd: %s\n" "$sid" "$PWD" > "$1/$sid/workspace.yaml"
echo $$ > "$1/$sid/inuse.$$.lock"
echo "copilot-session $sid"
exec sleep 1000' native "$state"
"#;

#[test]
fn copilot_is_found_with_the_session_its_native_child_locked() {
    let (server, _root) = server_with_agents(&[("copilot", COPILOT_STAND_IN)]);
    let ws = server.workspace("cop", &[]);
    let pane = server.ctl_ok(&["new", &ws, "--", "bash", "--norc", "--noprofile"]);
    server.ctl_ok(&["send", &pane, "copilot", "--enter"]);
    let text = server.wait_output(&pane, "copilot-session ");
    let id = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("copilot-session "))
        .unwrap()
        .to_string();
    server.wait_pane(&pane, "copilot's session id from its lock", |p| {
        agent(p) == ("copilot".to_string(), id.clone())
    });
    let explained = server.ctl_json(&["explain", &pane]);
    assert!(
        explained["session_file"]
            .as_str()
            .is_some_and(|f| f.ends_with(&format!("{id}/workspace.yaml"))),
        "{explained}"
    );
}

/// A `ctl wait` whose client went away (killed, or timed out) must not
/// stay registered until something happens in the pane: on a pane that
/// prints nothing, only the reply port closing can remove it. And at most
/// 32 clients wait on one pane.
#[test]
fn waits_are_bounded_and_a_wait_whose_client_is_gone_is_forgotten_at_once() {
    let server = TestServer::start();
    let ws = server.workspace("gone", &[]);
    let pane = server.ctl_ok(&["new", &ws, "--", "sleep", "1000"]);
    let waiting = || server.ctl_json(&["explain", &pane])["waiting"].as_u64();
    let mut clients: Vec<std::process::Child> = (0..32)
        .map(|_| {
            server
                .command()
                .args(["ctl", "wait", &pane, "--text", "never-printed"])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    wait_for("32 waiters registered", Duration::from_secs(20), || {
        (waiting() == Some(32)).then_some(())
    });
    let refused = server.ctl(&["wait", &pane, "--exit", "--timeout", "5"]);
    assert_eq!(refused.status.code(), Some(1));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("32 clients already wait"), "{err}");

    for client in &mut clients {
        client.kill().unwrap();
        client.wait().unwrap();
    }
    wait_for("the waiters forgotten", Duration::from_secs(5), || {
        (waiting() == Some(0)).then_some(())
    });
    // A wait that timed out is gone as soon as its client is told.
    let out = server.ctl(&["wait", &pane, "--exit", "--timeout", "0.2"]);
    assert_eq!(out.status.code(), Some(1));
    wait_for(
        "the timed-out waiter forgotten",
        Duration::from_secs(5),
        || (waiting() == Some(0)).then_some(()),
    );
}

/// codex 0.171.0 writes its rollout from a shared daemon after the first
/// prompt; the stand-in writes one the same way, for its cwd.
const CODEX_STAND_IN: &str = r#"
read -r prompt
id=0190f3a2-7c4e-7b1d-9e8f-123456789abc
day=$(date -u +%Y/%m/%d)
dir=${CODEX_HOME:-$HOME/.codex}/sessions/$day
mkdir -p "$dir"
printf '{"timestamp":"x","type":"session_meta","payload":{"id":"%s","timestamp":"x","cwd":"%s","originator":"codex-tui"}}\n' $id "$PWD" > "$dir/rollout-x-$id.jsonl"
printf '{"timestamp":"x","type":"session_meta","payload":{"id":"0190f3a2-0000-7b1d-9e8f-123456789abc","timestamp":"x","cwd":"/elsewhere","originator":"codex-tui"}}\n' > "$dir/rollout-y.jsonl"
printf '\033[H\033[2J'; sed 's/$/\r/' "$SCREENS/codex-working.txt"
sleep 1
printf '\033[H\033[2J'; sed 's/$/\r/' "$SCREENS/codex-idle.txt"
exec sleep 1000
"#;

#[test]
fn a_codex_rollout_is_matched_by_cwd_and_time() {
    let (server, _root) = server_with_agents(&[("codex", CODEX_STAND_IN)]);
    let ws = server.workspace("codex", &[]);
    let pane = server.ctl_ok(&["new", &ws, "--", "bash", "--norc", "--noprofile"]);
    server.ctl_ok(&["send", &pane, "codex", "--enter"]);
    server.wait_pane(&pane, "codex detected", |p| p["agent"]["kind"] == "codex");
    server.ctl_ok(&["send", &pane, "say hi", "--enter"]);
    server.wait_pane(&pane, "the rollout's id", |p| {
        p["agent"]["session_id"] == "0190f3a2-7c4e-7b1d-9e8f-123456789abc"
    });
    server.wait_pane(&pane, "the turn's end, with nobody looking", |p| {
        p["lifecycle"] == "done" && p["attention"] == "unread"
    });
}

/// Regression: an agent repainting its whole screen while it worked
/// (`ESC[H ESC[J` and a frame a few rows longer than the idle one) was
/// `unread` within 2 s, as if the repaint were new lines.
#[test]
fn a_repainting_agent_stays_quiet_while_it_works_and_is_unread_when_its_turn_ends() {
    let (server, root) = server_with_agents(&[("claude", CLAUDE_STAND_IN)]);
    let home = root.join("home");
    let ws = server.workspace("repaint", &[]);
    let pane = idle_claude(&server, &ws);
    start_turn(&server, &pane);
    // Five seconds of repaints that nobody watches.
    wait_for("25 frames drawn", Duration::from_secs(60), || {
        let p = server.pane(&pane).expect("the pane");
        assert_eq!(p["attention"], "none", "while working: {p}");
        assert_eq!(p["lifecycle"], "working", "{p}");
        (frame_number(&server.ctl_ok(&["read", &pane])) >= 25).then_some(())
    });
    let done = finish_turn(&server, &home, &pane);
    assert_eq!(done["attention"], "unread", "the turn ended unseen: {done}");
}

/// The same repainting, by a program that is no agent: a repaint is not
/// new lines, and lines that scroll in are.
#[test]
fn a_program_repainting_from_the_top_raises_no_unread_until_it_scrolls() {
    let server = TestServer::start();
    let ws = server.workspace("painter", &[]);
    let script = "n=0; while [ $n -lt 40 ]; do n=$((n+1)); printf '\\033[H\\033[Jheader\\r\\n'; \
                  i=0; while [ $i -lt $((n % 5 + 3)) ]; do i=$((i+1)); printf 'row %s\\r\\n' $i; done; \
                  printf '(frame %s)' $n; sleep 0.05; done; read go; seq 1 60; sleep 1000";
    let pane = server.new_sh(&ws, script);
    server.wait_output(&pane, "frame 1");
    server.ctl_ok(&["seen", &pane]);
    wait_for("the last frame", Duration::from_secs(60), || {
        let p = server.pane(&pane).expect("the pane");
        assert_eq!(p["attention"], "none", "while repainting: {p}");
        (frame_number(&server.ctl_ok(&["read", &pane])) >= 40).then_some(())
    });
    assert_eq!(server.pane(&pane).unwrap()["attention"], "none");
    server.ctl_ok(&["send", &pane, "go", "--enter"]);
    server.wait_pane(&pane, "unread from lines that scroll in", |p| {
        p["attention"] == "unread"
    });
}

/// `ctl next` (and so the multiplexer's Tab) goes to an agent whose turn
/// ended over one that is working again, even when the working one's
/// attention is newer.
#[test]
fn next_picks_a_finished_agent_over_a_working_one() {
    let (server, root) = server_with_agents(&[("claude", CLAUDE_STAND_IN)]);
    let home = root.join("home");
    let ws = server.workspace("agents", &[]);
    let finished = idle_claude(&server, &ws);
    let busy = idle_claude(&server, &ws);
    start_turn(&server, &finished);
    finish_turn(&server, &home, &finished);
    start_turn(&server, &busy);
    let unread = finish_turn(&server, &home, &busy);
    assert_eq!(unread["attention"], "unread");
    assert_eq!(
        server.ctl_ok(&["next"]),
        busy,
        "the newest unread of two finished agents"
    );
    // A script prompts it again without anybody looking.
    start_turn(&server, &busy);
    assert_eq!(server.pane(&busy).unwrap()["attention"], "unread");
    assert_eq!(server.ctl_ok(&["next"]), finished);
    end_turn(&home, &busy);
}
