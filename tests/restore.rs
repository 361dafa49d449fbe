//! End to end: a SIGKILLed server comes back with everything its snapshot
//! promised, and agents come back through their official resume commands.

mod support;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::Value;
use support::agents::FakeAgents;
use support::{TestServer, all_panes, wait_for};

/// The time the snapshot promises: a change older than this survives a kill.
const PROMISE: Duration = Duration::from_millis(2500);

fn session_id_of(pane: &Value) -> String {
    pane["agent"]["session_id"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn layouts(ls: &Value) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for ws in ls["workspaces"].as_array().unwrap() {
        for tab in ws["tabs"].as_array().unwrap() {
            out.push((
                ws["name"].as_str().unwrap().to_string(),
                tab["title"].as_str().unwrap().to_string(),
                tab["layout"].clone(),
            ));
        }
    }
    out
}

/// Sleeps out the snapshot's promise: `at` plus [`PROMISE`] and a margin.
/// This is the contract under test, not a guess at how long something takes.
fn wait_out_the_promise(at: Instant) {
    let until = at + PROMISE;
    let now = Instant::now();
    if until > now {
        std::thread::sleep(until - now);
    }
}

#[test]
fn a_killed_server_comes_back_with_everything_and_agents_resume() {
    let root = support::short_temp_dir();
    let fake = FakeAgents::new(root.path());
    let mut server = TestServer::start_with(true, vec![fake.path_env()]);
    let project = server.dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    let project = project.canonicalize().unwrap().display().to_string();

    let main = server.workspace("main", &[]);
    let shell = server.ctl_ok(&["new", &main, "--title", "my shell"]);
    server.ctl_ok(&[
        "send",
        &shell,
        &format!("cd '{project}' && echo shell-marker"),
        "--enter",
    ]);
    server.wait_output(&shell, "shell-marker");
    let claude = server.ctl_ok(&[
        "new",
        &main,
        "--split",
        &shell,
        "--direction",
        "down",
        "--",
        "claude",
    ]);
    let reporter = server.ctl_ok(&["new", &main, "--split", &claude, "--", "sleep", "1000"]);
    let reported = "0192f3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b";
    server.ctl_ok(&["report-session", &reporter, reported, "--agent", "codex"]);
    let bad = server.ctl(&["report-session", &reporter, "../x", "--agent", "codex"]);
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("codex") && err.contains("UUID"), "{err}");

    let tab2 = server.ctl_ok(&[
        "tab",
        "new",
        &main,
        "--title",
        "second",
        "--",
        "sh",
        "-c",
        "echo exit-marker; exit 3",
    ]);
    let exited = all_panes(&server.ls())
        .into_iter()
        .find(|p| p["argv"][0] == "sh")
        .map(|p| p["id"].as_str().unwrap().to_string())
        .unwrap();
    let closed = server.ctl_ok(&[
        "new",
        &main,
        "--tab",
        &tab2,
        "--",
        "sh",
        "-c",
        "echo closed-marker; sleep 1000",
    ]);
    server.wait_output(&closed, "closed-marker");
    wait_for("the closed pane's tail", Duration::from_secs(10), || {
        server.tail_path(&closed).exists().then_some(())
    });
    server.ctl_ok(&["close", &closed]);

    let auto = server.workspace("auto", &["--auto-resume"]);
    let auto_claude = server.ctl_ok(&["new", &auto, "--", "claude"]);
    let auto_shell = server.ctl_ok(&["new", &auto, "--split", &auto_claude]);

    // Launched without a session id, each claude was given one.
    for pane in [&claude, &auto_claude] {
        wait_for("claude to start", Duration::from_secs(10), || {
            fake.runs(pane).first().cloned()
        });
    }
    server.wait_pane(&exited, "EXITED", |p| p["state"] == "EXITED");
    let before = server.ls();
    let claude_id = session_id_of(&server.pane(&claude).unwrap());
    let auto_id = session_id_of(&server.pane(&auto_claude).unwrap());
    assert_eq!(fake.runs(&claude), [format!("--session-id {claude_id}")]);
    assert_eq!(fake.runs(&auto_claude), [format!("--session-id {auto_id}")]);
    let last_change = Instant::now();
    server.wait_output(&claude, "fake claude ready");

    wait_out_the_promise(last_change);
    server.kill9();
    assert!(
        !server.tail_path(&closed).exists(),
        "a closed pane's tail is gone"
    );
    server.launch();

    let after = server.ls();
    assert_eq!(
        layouts(&after),
        layouts(&before),
        "layouts and titles come back"
    );
    let state = |id: &str| {
        server.pane(id).unwrap()["state"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let shell_pane = server.pane(&shell).unwrap();
    assert_eq!(shell_pane["state"], "RESTORED");
    assert_eq!(shell_pane["cwd"], project.as_str());
    assert_eq!(shell_pane["title"], "my shell");
    let text = server.ctl_ok(&["read", &shell]);
    assert!(
        text.contains("shell-marker") && text.contains("restored"),
        "{text}"
    );

    let claude_pane = server.pane(&claude).unwrap();
    assert_eq!(claude_pane["state"], "RESUMABLE");
    assert_eq!(claude_pane["agent"]["kind"], "claude");
    assert_eq!(session_id_of(&claude_pane), claude_id);
    let reporter_pane = server.pane(&reporter).unwrap();
    assert_eq!(reporter_pane["state"], "RESUMABLE");
    assert_eq!(reporter_pane["agent"]["kind"], "codex");
    assert_eq!(session_id_of(&reporter_pane), reported);

    let exited_pane = server.pane(&exited).unwrap();
    assert_eq!(exited_pane["state"], "EXITED");
    assert_eq!(exited_pane["exit_code"], 3);
    assert!(server.ctl_ok(&["read", &exited]).contains("exit-marker"));
    assert!(
        server.pane(&closed).is_none(),
        "what is closed stays closed"
    );

    // auto_resume: that workspace's agent runs its official resume command
    // with no command from anyone; its shell does not run by itself, and
    // neither does the other workspace's agent.
    server.wait_pane(&auto_claude, "auto-resume", |p| p["state"] == "LIVE");
    wait_for("the auto-resumed claude", Duration::from_secs(10), || {
        (fake.runs(&auto_claude).len() == 2).then_some(())
    });
    assert_eq!(fake.runs(&auto_claude)[1], format!("--resume {auto_id}"));
    assert_eq!(state(&auto_shell), "RESTORED");
    assert_eq!(state(&claude), "RESUMABLE");
    assert_eq!(
        fake.runs(&claude).len(),
        1,
        "nothing ran in the other workspace"
    );

    // One command resumes it, with exactly the official argv, in place.
    server.ctl_ok(&["resume", &claude]);
    assert_eq!(state(&claude), "LIVE");
    assert_eq!(
        fake.runs(&claude),
        [
            format!("--session-id {claude_id}"),
            format!("--resume {claude_id}")
        ]
    );
    let text = server.wait_output(&claude, &format!("fake claude ready --resume {claude_id}"));
    assert!(
        text.contains("restored"),
        "history kept above the new output: {text}"
    );
    // A live pane is refused, with the reason.
    let again = server.ctl(&["resume", &claude]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("LIVE"));
    // A pane with no session id is refused too.
    let no_id = server.ctl(&["resume", &shell]);
    assert!(!no_id.status.success());
    assert!(String::from_utf8_lossy(&no_id.stderr).contains("no agent session id"));

    // A shell comes back only when asked, in its saved cwd.
    server.ctl_ok(&["respawn", &shell]);
    assert_eq!(state(&shell), "LIVE");
    server.ctl_ok(&[
        "send",
        &shell,
        "echo \"R=$SIGNALTTY_RESTORED in $(pwd)\"",
        "--enter",
    ]);
    server.wait_output(&shell, &format!("R=1 in {project}"));
}

#[test]
fn resume_fails_visibly_and_the_tombstone_keeps_its_tail() {
    let root = support::short_temp_dir();
    let fake = FakeAgents::new(root.path());
    let mut server = TestServer::start_with(true, vec![fake.path_env()]);
    let ws = server.workspace("gone", &[]);
    let pane = server.ctl_ok(&["new", &ws, "--", "claude"]);
    server.wait_output(&pane, "fake claude ready");
    server.wait_tail(&pane, "fake claude ready");
    server.kill9();
    fake.remove();
    server.launch();

    let out = server.ctl(&["resume", &pane]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("claude") && err.contains("PATH"), "{err}");
    assert_eq!(server.pane(&pane).unwrap()["state"], "RESUMABLE");
    assert!(
        server
            .ctl_ok(&["read", &pane])
            .contains("fake claude ready")
    );

    // A resume whose process fails at once reports what it printed.
    fake.install("echo 'No conversation found with that session ID'\nexit 1");
    let out = server.ctl(&["resume", &pane]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("No conversation found"), "{err}");
    assert_eq!(server.pane(&pane).unwrap()["state"], "RESUMABLE");
    assert!(
        server
            .ctl_ok(&["read", &pane])
            .contains("fake claude ready")
    );
}

#[test]
fn a_resume_that_fails_after_drawing_a_line_fails_with_that_line_only() {
    // The restored screen holds the old agent's prompt, which reads as a
    // state of its kind: only what the resumed child draws may say it is up.
    let root = support::short_temp_dir();
    let fake = FakeAgents::new(root.path());
    fake.install("echo 'restored-history-marker'\nprintf '? for shortcuts\\n'\nexec sleep 1000");
    let mut server = TestServer::start_with(true, vec![fake.path_env()]);
    let ws = server.workspace("stale", &[]);
    let pane = server.ctl_ok(&["new", &ws, "--", "claude"]);
    server.wait_output(&pane, "? for shortcuts");
    server.wait_tail(&pane, "? for shortcuts");
    server.kill9();
    fake.install("echo 'No previous sessions found for this project.'\nsleep 2.2\nexit 42");
    server.launch();

    let out = server.ctl(&["resume", &pane]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("No previous sessions found"), "{err}");
    assert!(!err.contains("restored-history-marker"), "{err}");
    assert_eq!(server.pane(&pane).unwrap()["state"], "RESUMABLE");
    assert!(
        server
            .ctl_ok(&["read", &pane])
            .contains("restored-history-marker")
    );

    // One that draws its prompt and stays up is resumed.
    fake.install("printf '? for shortcuts\\n'\nexec sleep 1000");
    server.ctl_ok(&["resume", &pane]);
    assert_eq!(server.pane(&pane).unwrap()["state"], "LIVE");
}

fn status(server: &TestServer) -> Value {
    server.ctl_json(&["status"])
}

fn archive_entries(server: &TestServer) -> Vec<PathBuf> {
    std::fs::read_dir(server.state_dir.join("archive"))
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default()
}

fn workspace_names(server: &TestServer) -> Vec<String> {
    server.ls()["workspaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_corrupt_snapshot_falls_back_to_the_previous_one_loudly() {
    let mut server = TestServer::start();
    server.workspace("one", &[]);
    server.wait_snapshot("one on disk", |s| {
        s["workspaces"].as_array().is_some_and(|w| w.len() == 1)
    });
    server.workspace("two", &[]);
    wait_for(
        "two on disk, one kept as prev",
        Duration::from_secs(5),
        || {
            let newest = server.snapshot()?;
            let prev = std::fs::read_to_string(server.state_dir.join("snapshot.prev.json")).ok()?;
            (newest["workspaces"].as_array()?.len() == 2 && prev.contains("\"one\"")).then_some(())
        },
    );
    server.kill9();
    std::fs::write(
        server.snapshot_path(),
        b"{\"snapshot_version\": 1, \"workspa",
    )
    .unwrap();
    server.launch();
    assert_eq!(workspace_names(&server), ["one"]);
    let status = status(&server);
    assert_eq!(status["restore"]["degraded"], true, "{status}");
    assert!(
        status["restore"]["note"]
            .as_str()
            .unwrap()
            .contains("previous snapshot")
    );
    assert_eq!(archive_entries(&server).len(), 1);
    assert!(server.log().contains("SNAPSHOT PROBLEM"));
}

#[test]
fn a_corrupt_snapshot_with_no_fallback_is_archived_and_the_server_starts_empty() {
    let mut server = TestServer::prepare(true, Vec::new());
    std::fs::write(server.snapshot_path(), b"\x00\xffnot json at all").unwrap();
    server.launch();
    assert!(workspace_names(&server).is_empty());
    let status = status(&server);
    assert_eq!(status["restore"]["degraded"], true);
    assert!(
        status["restore"]["note"]
            .as_str()
            .unwrap()
            .contains("starting empty")
    );
    let archived = archive_entries(&server);
    assert_eq!(archived.len(), 1);
    assert_eq!(
        std::fs::read(&archived[0]).unwrap(),
        b"\x00\xffnot json at all"
    );
}

#[test]
fn a_snapshot_from_the_future_refuses_to_start_and_touches_nothing() {
    let server = TestServer::prepare(true, Vec::new());
    let future = br#"{"snapshot_version": 99, "workspaces": "a shape from the future"}"#;
    std::fs::write(server.snapshot_path(), future).unwrap();
    std::fs::write(server.state_dir.join("snapshot.prev.json"), b"prev bytes").unwrap();
    let out = server
        .command()
        .args(["up", "--foreground"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    let path = server.snapshot_path().display().to_string();
    assert!(
        err.contains(&path) && err.contains("99") && err.contains("up to 1"),
        "{err}"
    );
    assert_eq!(std::fs::read(server.snapshot_path()).unwrap(), future);
    assert_eq!(
        std::fs::read(server.state_dir.join("snapshot.prev.json")).unwrap(),
        b"prev bytes"
    );
    assert!(archive_entries(&server).is_empty());
}

#[test]
fn no_restore_sets_the_snapshot_aside_and_says_where() {
    let mut server = TestServer::start();
    server.workspace("kept", &[]);
    server.wait_snapshot("kept on disk", |s| {
        s["workspaces"].as_array().is_some_and(|w| w.len() == 1)
    });
    server.kill9();
    server.launch_with(&["--no-restore"]);
    assert!(workspace_names(&server).is_empty());
    let note = status(&server)["restore"]["note"]
        .as_str()
        .unwrap()
        .to_string();
    let archived = archive_entries(&server);
    let set_aside = archived
        .iter()
        .find(|p| {
            p.display().to_string().contains("set-aside") && note.contains(&p.display().to_string())
        })
        .unwrap_or_else(|| panic!("{note} / {archived:?}"));
    assert!(
        std::fs::read_to_string(set_aside)
            .unwrap()
            .contains("\"kept\"")
    );
}

#[test]
fn auto_resume_can_be_set_live_and_from_the_config_file() {
    let root = support::short_temp_dir();
    let config = root.path().join("config.toml");
    std::fs::write(&config, "[workspace.cfg]\nauto_resume = true\n").unwrap();
    let mut server = TestServer::start_with(
        true,
        vec![("SIGNALTTY_CONFIG".into(), config.display().to_string())],
    );
    server.workspace("cfg", &[]);
    let plain = server.workspace("plain", &[]);
    let auto = |server: &TestServer, name: &str| {
        server.ls()["workspaces"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["name"] == name)
            .map(|w| w["auto_resume"].as_bool().unwrap())
            .unwrap()
    };
    assert!(auto(&server, "cfg"));
    assert!(!auto(&server, "plain"));
    server.ctl_ok(&["workspace", "set", &plain, "--auto-resume", "true"]);
    assert!(auto(&server, "plain"));
    server.wait_snapshot("auto_resume persisted", |s| {
        s["workspaces"]
            .as_array()
            .is_some_and(|w| w.iter().all(|w| w["auto_resume"] == true))
    });
    server.kill9();
    server.launch();
    assert!(auto(&server, "plain") && auto(&server, "cfg"));

    // A broken config file stops the server with a clear message.
    std::fs::write(&config, "[workspace.cfg]\nauto_resume = \"yes\"\n").unwrap();
    server.kill9();
    let out = server
        .command()
        .args(["up", "--foreground"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("config.toml") && err.contains("not valid"),
        "{err}"
    );
}

/// A small deterministic generator, so a failure can be replayed.
struct Lcg(u64);

impl Lcg {
    fn next_below(&mut self, bound: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % bound
    }
}

#[test]
fn every_change_older_than_the_promise_survives_twenty_kills() {
    let mut server = TestServer::start();
    let mut rng = Lcg(0x5eed);
    let mut made: Vec<(String, Instant)> = Vec::new();
    for round in 0..20 {
        let name = format!("w{round}");
        server.workspace(&name, &[]);
        made.push((name, Instant::now()));
        std::thread::sleep(Duration::from_millis(rng.next_below(3500)));
        let killed_at = Instant::now();
        server.kill9();
        let text = std::fs::read_to_string(server.snapshot_path()).unwrap_or_default();
        if !text.is_empty() {
            assert!(
                serde_json::from_str::<Value>(&text).is_ok(),
                "round {round}: unparseable snapshot"
            );
        }
        server.launch();
        let status = status(&server);
        assert_eq!(
            status["restore"]["degraded"], false,
            "round {round}: {status}"
        );
        let names = workspace_names(&server);
        for (name, at) in &made {
            if killed_at.duration_since(*at) >= PROMISE {
                assert!(
                    names.contains(name),
                    "round {round}: {name} made {:?} before the kill is missing: {names:?}",
                    killed_at.duration_since(*at)
                );
            }
        }
        // A younger change may or may not have made it; what came back is
        // what the next rounds must keep.
        made.retain(|(name, _)| names.contains(name));
    }
}

#[test]
fn an_agent_kind_from_a_newer_build_survives_a_restart_and_a_save() {
    let mut server = TestServer::start();
    let ws = server.workspace("future", &[]);
    let pane = server.new_sh(&ws, "sleep 600");
    let saved = server.wait_snapshot("the pane on disk", |s| {
        s["panes"].as_array().is_some_and(|p| p.len() == 1)
    });
    server.kill9();
    let mut edited = saved;
    edited["panes"][0]["agent"] =
        serde_json::json!({"kind": "hal9000", "agent_session_id": "s-1", "model": "x"});
    std::fs::write(server.snapshot_path(), edited.to_string()).unwrap();
    server.launch();
    let shown = server.pane(&pane).expect("the pane is restored");
    assert_eq!(shown["agent"]["kind"], "hal9000", "{shown}");
    // Unknown to this build, it has no resume: it comes back as what its
    // process was, never RESUMABLE.
    assert_eq!(shown["state"], "RESTORED", "{shown}");
    // A save of anything else writes the kind back as it was read.
    server.ctl_ok(&["rename", &pane, "renamed"]);
    let after = server.wait_snapshot("the rename on disk", |s| {
        s["panes"][0]["user_title"] == "renamed"
    });
    assert_eq!(after["panes"][0]["agent"]["kind"], "hal9000", "{after}");
    assert_eq!(after["panes"][0]["agent"]["agent_session_id"], "s-1");
    assert_eq!(after["panes"][0]["agent"]["model"], "x");
}
