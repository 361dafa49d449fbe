//! End to end: an idle agent put to sleep (`ctl hibernate`) gives its
//! process back, stays HIBERNATED through a SIGKILL of the server, and
//! wakes where it was through its official resume command.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::agents::{CLAUDE_STAND_IN, idle_claude, prompts, runs, server_with_agents};
use support::terminal::Terminal;
use support::{TestServer, wait_for};

const SESSION: &str = "5b0e3c1a-7d2f-4e8b-9a6c-1f2e3d4c5b6a";

fn home(root: &Path) -> PathBuf {
    root.join("home")
}

/// A stand-in claude in a new workspace `name`, idle, unwatched, its
/// session id found.
fn sleepy_claude(server: &TestServer, name: &str) -> String {
    let ws = server.workspace(name, &[]);
    let pane = idle_claude(server, &ws);
    server.wait_pane(&pane, "its session id", |p| {
        p["agent"]["session_id"] == SESSION
    });
    pane
}

/// `ctl hibernate`'s error for `pane`, which must be refused.
fn refusal(server: &TestServer, pane: &str) -> String {
    let out = server.ctl(&["hibernate", pane]);
    assert!(!out.status.success(), "hibernate should be refused");
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// Whether a process with `pid` still runs (a zombie has ended).
fn alive(pid: i64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| {
            !stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
        .unwrap_or(false)
}

/// The pid of the process `pane` started (it leads its own session), as
/// the snapshot records it.
fn pid_of(server: &TestServer, pane: &str) -> i64 {
    let saved = server.wait_snapshot("the pane's process", |s| {
        s["panes"].as_array().is_some_and(|panes| {
            panes
                .iter()
                .any(|p| p["id"] == pane && p["process"]["session"].is_i64())
        })
    });
    let panes = saved["panes"].as_array().unwrap();
    let record = panes.iter().find(|p| p["id"] == pane).unwrap();
    record["process"]["session"].as_i64().unwrap()
}

#[test]
fn an_idle_agent_sleeps_stays_asleep_through_a_kill_and_wakes_to_a_queued_prompt() {
    let (mut server, root) = server_with_agents(&[("claude", CLAUDE_STAND_IN)]);
    let pane = sleepy_claude(&server, "sleepy");
    let pid = pid_of(&server, &pane);
    assert!(
        server
            .ctl_ok(&["explain", &pane])
            .contains("sleep       may sleep")
    );

    let history = server.ctl_ok(&["read", &pane, "--all"]);
    server.ctl_ok(&["hibernate", &pane]);
    let asleep = server.pane(&pane).unwrap();
    assert_eq!(asleep["state"], "HIBERNATED");
    let kept = server.ctl_ok(&["read", &pane, "--all"]);
    assert!(
        kept.contains(history.trim_end()),
        "its history is all still there:\n{kept}"
    );
    assert_eq!(asleep["lifecycle"], "idle", "it sleeps as idle as it was");
    assert!(!alive(pid), "the agent's process {pid} has ended");
    assert!(
        server
            .ctl_ok(&["explain", &pane])
            .contains("sleep       asleep;")
    );
    assert_eq!(runs(&root, "claude").len(), 1, "nothing ran since");
    // Its last screen stays readable, and nothing can be typed into it.
    assert!(server.ctl_ok(&["read", &pane]).contains('❯'));
    let send = server.ctl(&["send", &pane, "hello"]);
    assert!(!send.status.success());
    assert!(String::from_utf8_lossy(&send.stderr).contains("wake it first"));
    // A wait for the agent's turn to end is over at once.
    server.ctl_ok(&["agent", "wait", &pane, "--timeout", "5"]);

    server.wait_snapshot("the sleep on disk", |s| {
        s["panes"]
            .as_array()
            .is_some_and(|panes| panes.iter().any(|p| p["hibernated_at"].is_u64()))
    });
    server.kill9();
    server.launch();
    assert_eq!(server.pane(&pane).unwrap()["state"], "HIBERNATED");
    assert_eq!(runs(&root, "claude").len(), 1, "a restart wakes nothing");
    let restored = server.ctl_ok(&["read", &pane, "--all"]);
    assert!(restored.contains("? for shortcuts"), "{restored}");

    // A prompt wakes it and is typed once it is up, exactly once. It takes
    // its time to start: until its prompt shows, the pane is not LIVE.
    std::fs::write(home(&root).join("start-delay"), "2").unwrap();
    let reply = server.ctl_ok(&["agent", "prompt", &pane, "where were we"]);
    assert!(reply.contains("queued"), "{reply}");
    assert_eq!(
        server.pane(&pane).unwrap()["state"],
        "HIBERNATED",
        "starting"
    );
    server.wait_pane(&pane, "awake", |p| p["state"] == "LIVE");
    assert_eq!(
        runs(&root, "claude").last().unwrap(),
        &format!("--resume {SESSION}"),
        "it woke through its resume command"
    );
    server.ctl_ok(&["agent", "wait", &pane, "--timeout", "20"]);
    wait_for("the prompt", std::time::Duration::from_secs(20), || {
        (!prompts(&home(&root), &pane).is_empty()).then_some(())
    });
    server.wait_pane(&pane, "its turn's end", |p| p["lifecycle"] == "done");
    // A bracketed paste (the stand-in asked for one), exactly once.
    assert_eq!(
        prompts(&home(&root), &pane),
        vec!["\x1b[200~where were we\x1b[201~"]
    );
}

#[test]
fn an_agent_that_cannot_safely_sleep_is_refused_with_the_reason() {
    let (server, root) = server_with_agents(&[("claude", CLAUDE_STAND_IN)]);
    let pane = sleepy_claude(&server, "sleepy");

    // Text typed into its input box but not sent.
    server.ctl_ok(&["send", &pane, "idle-draft", "--enter"]);
    wait_for("the draft", std::time::Duration::from_secs(10), || {
        server
            .ctl_ok(&["read", &pane])
            .contains("draft text")
            .then_some(())
    });
    assert!(refusal(&server, &pane).contains("typed in its input box"));
    let explained = server.ctl_ok(&["explain", &pane]);
    assert!(
        explained.contains("sleep       stays awake: text is typed"),
        "{explained}"
    );

    // Working on a turn.
    support::agents::start_turn(&server, &pane);
    assert!(refusal(&server, &pane).contains("its agent is working"));
    support::agents::finish_turn(&server, &home(&root), &pane);

    // Blocked at a permission prompt.
    server.ctl_ok(&["send", &pane, "permission", "--enter"]);
    server.wait_pane(&pane, "blocked", |p| p["lifecycle"] == "blocked");
    assert!(refusal(&server, &pane).contains("not idle or done"));

    // Shown by a client.
    server.ctl_ok(&["send", &pane, "idle", "--enter"]);
    server.wait_pane(&pane, "idle", |p| p["lifecycle"] == "idle");
    let mut command: Command = server.command();
    command.args(["attach", "--keep-attention", &pane]);
    let viewer = Terminal::run(&command, 30, 100);
    viewer.wait_text("the pane", |text| text.contains('❯'));
    assert!(refusal(&server, &pane).contains("a client shows it"));
    drop(viewer);

    // A shell is no agent.
    let ws = server.workspace("shells", &[]);
    let shell = server.new_sh(&ws, "sleep 1000");
    assert!(refusal(&server, &shell).contains("no agent"));
    assert_eq!(server.pane(&pane).unwrap()["state"], "LIVE");
}

#[test]
fn an_agent_typed_into_a_shell_sleeps_back_to_the_shell_and_a_job_keeps_it_awake() {
    let (server, root) = server_with_agents(&[("claude", CLAUDE_STAND_IN)]);
    let ws = server.workspace("typed", &[]);
    let pane = server.ctl_ok(&["new", &ws, "--", "bash", "--norc", "--noprofile"]);
    server.ctl_ok(&["resize", &pane, "--rows", "30", "--cols", "100"]);
    server.ctl_ok(&["send", &pane, "sleep 1000 & claude", "--enter"]);
    server.wait_pane(&pane, "claude idle, its session found", |p| {
        p["lifecycle"] == "idle" && p["agent"]["session_id"] == SESSION
    });
    server.ctl_ok(&["seen", &pane]);
    let said = refusal(&server, &pane);
    assert!(said.contains("still runs: sleep"), "{said}");

    // Without the job it sleeps, shell and all.
    server.ctl_ok(&["send", &pane, "quit", "--enter"]);
    server.wait_pane(&pane, "claude gone", |p| p["agent"]["ended"] == true);
    server.ctl_ok(&["send", &pane, "kill %1; claude", "--enter"]);
    server.wait_pane(&pane, "claude back", |p| {
        p["lifecycle"] == "idle" && p["agent"]["ended"] == false
    });
    server.ctl_ok(&["seen", &pane]);
    let shell = pid_of(&server, &pane);
    server.ctl_ok(&["hibernate", &pane]);
    assert_eq!(server.pane(&pane).unwrap()["state"], "HIBERNATED");
    assert!(!alive(shell), "the shell around it has ended too");

    server.ctl_ok(&["wake", &pane]);
    let awake = server.pane(&pane).unwrap();
    assert_eq!(awake["state"], "LIVE");
    assert_eq!(awake["argv"][0], "bash", "it woke inside a fresh shell");
    assert_eq!(
        runs(&root, "claude").last().unwrap(),
        &format!("--resume {SESSION}")
    );
}

#[test]
fn an_agent_that_fails_to_wake_is_exited_with_its_own_words_and_attach_wakes_one() {
    let (server, root) = server_with_agents(&[("claude", CLAUDE_STAND_IN)]);
    let pane = sleepy_claude(&server, "sleepy");
    server.ctl_ok(&["hibernate", &pane]);
    let prompted = sleepy_claude(&server, "prompted");
    server.ctl_ok(&["hibernate", &prompted]);

    // Its session is gone by the time it is woken.
    let broken = "echo \"No conversation found with session ID: $2\"; sleep 1; exit 1";
    support::agents::install_stand_in(&root, "claude", broken);
    let out = server.ctl(&["wake", &pane]);
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("No conversation found"), "{said}");
    let after = server.pane(&pane).unwrap();
    assert_eq!(after["state"], "EXITED", "never a silent shell, nor asleep");
    // A prompt that was to wake it is not lost without a word.
    server.ctl_ok(&["agent", "prompt", &prompted, "anyone there"]);
    server.wait_pane(&prompted, "failed to wake", |p| p["state"] == "EXITED");
    let said = server.ctl_json(&["notifications"]).to_string();
    assert!(said.contains("1 queued prompt(s) were not typed"), "{said}");

    // Looking at a sleeping agent wakes it.
    support::agents::install_stand_in(&root, "claude", CLAUDE_STAND_IN);
    let other = sleepy_claude(&server, "other");
    server.ctl_ok(&["hibernate", &other]);
    let mut command: Command = server.command();
    command.args(["attach", &other]);
    let viewer = Terminal::run(&command, 30, 100);
    server.wait_pane(&other, "awake", |p| p["state"] == "LIVE");
    viewer.wait_text("its prompt", |text| text.contains('❯'));
    assert_eq!(
        runs(&root, "claude").last().unwrap(),
        &format!("--resume {SESSION}")
    );
}

/// A server with stand-in claudes whose config file says `config`; the
/// config's directory must outlive the server.
fn server_with_config(config: &str) -> (TestServer, PathBuf, tempfile::TempDir) {
    let dir = support::short_temp_dir();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, config).unwrap();
    let path = path.display().to_string();
    let (server, root) = support::agents::server_with_agents_and_env(
        &[("claude", CLAUDE_STAND_IN)],
        &[("SIGNALTTY_CONFIG", path.as_str())],
    );
    (server, root, dir)
}

#[test]
fn idle_agents_sleep_by_themselves_after_their_workspace_window_unless_pinned() {
    let (server, _root, _config) = server_with_config("");
    let ws = server.workspace("team", &[]);
    let pinned = idle_claude(&server, &ws);
    let free = idle_claude(&server, &ws);
    for pane in [&pinned, &free] {
        server.wait_pane(pane, "its session id", |p| {
            p["agent"]["session_id"] == SESSION
        });
    }
    server.ctl_ok(&["pin", &pinned]);
    assert_eq!(server.pane(&pinned).unwrap()["pinned"], true);

    // No window yet (the config sets none): both stay awake. Then one.
    server.ctl_ok(&["workspace", "set", &ws, "--hibernate-after", "1s"]);
    server.wait_pane(&free, "asleep by itself", |p| p["state"] == "HIBERNATED");
    assert_eq!(server.pane(&pinned).unwrap()["state"], "LIVE", "pinned");

    let bad = server.ctl(&["workspace", "set", &ws, "--hibernate-after", "soon"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no sleep window"));
}

#[test]
fn with_keep_awake_the_longest_idle_agent_sleeps_when_another_wakes() {
    let (server, _root, _config) = server_with_config("[hibernate]\nkeep-awake = 1\n");
    let ws = server.workspace("team", &[]);
    let first = idle_claude(&server, &ws);
    server.wait_pane(&first, "its session id", |p| {
        p["agent"]["session_id"] == SESSION
    });
    let second = idle_claude(&server, &ws);
    server.wait_pane(&first, "the longest idle asleep", |p| {
        p["state"] == "HIBERNATED"
    });
    assert_eq!(server.pane(&second).unwrap()["state"], "LIVE");

    // Waking the first makes two awake: now the second has been idle
    // longest, and it sleeps.
    server.ctl_ok(&["wake", &first]);
    server.wait_pane(&first, "idle again", |p| {
        p["state"] == "LIVE" && p["lifecycle"] == "idle"
    });
    server.wait_pane(&second, "asleep", |p| p["state"] == "HIBERNATED");
    assert_eq!(server.pane(&first).unwrap()["state"], "LIVE");
}

#[test]
fn a_server_the_agent_started_with_it_keeps_it_awake_while_it_works() {
    // Started with the agent, as an MCP server is, and busy.
    let busy = format!("sh -c 'while :; do :; done' &\n{CLAUDE_STAND_IN}");
    let (server, _root) = server_with_agents(&[("claude", busy.as_str())]);
    let pane = sleepy_claude(&server, "busy");
    let said = refusal(&server, &pane);
    assert!(said.contains("still runs: sh (pid"), "{said}");
    assert_eq!(server.pane(&pane).unwrap()["state"], "LIVE");
}
