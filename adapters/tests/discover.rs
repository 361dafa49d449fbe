//! discover_session(): session ids from the agents' own files, laid out as
//! claude 2.1.197, gemini 0.61.0, codex-cli 0.171.0 and copilot 1.0.102
//! write them.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use signaltty_adapters::{AgentKind, AgentProcess, discover_session};

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

fn process(home: &Path, cwd: &str, extra: &[(&str, &str)]) -> AgentProcess {
    let mut env = vec![("HOME".to_string(), home.display().to_string())];
    env.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    AgentProcess {
        pid: 4242,
        started_at_ms: now_ms() - 1_000,
        start_ticks: 90964,
        cwd: cwd.into(),
        env,
        children: Vec::new(),
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const ID: &str = "97e82de3-37f5-44bd-b95f-f6644848711f";

#[test]
fn claude_sessions_file_by_pid_checked_against_the_start_time() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join(".claude/sessions/4242.json");
    write(
        &file,
        &format!(
            r#"{{"pid":4242,"sessionId":"{ID}","cwd":"/p","startedAt":1,"procStart":"90964","status":"idle"}}"#
        ),
    );
    let found = discover_session(AgentKind::Claude, &process(home.path(), "/p", &[])).unwrap();
    assert_eq!(found.id.as_str(), ID);
    assert_eq!(found.file, file);

    // A file left by an older process with the same pid is not ours.
    let mut other = process(home.path(), "/p", &[]);
    other.start_ticks = 1;
    assert!(discover_session(AgentKind::Claude, &other).is_none());

    // CLAUDE_CONFIG_DIR moves the store; a bad id is never returned.
    let config = tempfile::tempdir().unwrap();
    write(
        &config.path().join("sessions/4242.json"),
        r#"{"pid":4242,"sessionId":"--resume /etc/passwd","procStart":"90964"}"#,
    );
    let dir = config.path().display().to_string();
    let moved = process(home.path(), "/p", &[("CLAUDE_CONFIG_DIR", &dir)]);
    assert!(discover_session(AgentKind::Claude, &moved).is_none());
}

#[test]
fn gemini_chat_of_the_cwds_project() {
    let home = tempfile::tempdir().unwrap();
    let gemini = home.path().join("g/.gemini");
    write(
        &gemini.join("projects.json"),
        r#"{"projects":{"/work/proj3":"proj3"}}"#,
    );
    write(
        &gemini.join("tmp/proj3/chats/session-2026-12-01T23-05-ad02aa18.jsonl"),
        "{\"sessionId\":\"ad02aa18-b055-44ce-9183-a474f925b318\",\"projectHash\":\"bd\",\"kind\":\"main\"}\n{\"$set\":{}}\n",
    );
    let g = home.path().join("g").display().to_string();
    let p = process(home.path(), "/work/proj3", &[("GEMINI_CLI_HOME", &g)]);
    let found = discover_session(AgentKind::Gemini, &p).unwrap();
    assert_eq!(found.id.as_str(), "ad02aa18-b055-44ce-9183-a474f925b318");
    let elsewhere = process(home.path(), "/work/other", &[("GEMINI_CLI_HOME", &g)]);
    assert!(discover_session(AgentKind::Gemini, &elsewhere).is_none());
}

#[test]
fn codex_rollout_matched_by_cwd_and_time() {
    let home = tempfile::tempdir().unwrap();
    // Today's directory, as `date` names it: an oracle of its own.
    let today = std::process::Command::new("date")
        .args(["-u", "+%Y/%m/%d"])
        .output()
        .unwrap();
    let today = String::from_utf8(today.stdout).unwrap();
    let dir = home.path().join(".codex/sessions").join(today.trim());
    let meta = |id: &str, cwd: &str| {
        format!(
            "{{\"timestamp\":\"2026-12-01T23:05:47.800Z\",\"type\":\"session_meta\",\"payload\":{{\"id\":\"{id}\",\"timestamp\":\"2026-12-01T23:05:23.514Z\",\"cwd\":\"{cwd}\",\"originator\":\"codex-tui\",\"base_instructions\":{{\"text\":\"{}\"}}}}}}\n",
            "x".repeat(20_000)
        )
    };
    let ours = "01a233da-f52a-75e1-9973-0c9e96a9368a";
    write(
        &dir.join(format!("rollout-2026-12-01T23-05-23-{ours}.jsonl")),
        &meta(ours, "/work/proj2"),
    );
    write(
        &dir.join("rollout-2026-12-01T23-06-00-0000aaaa-f52a-75e1-9973-0c9e96a9368a.jsonl"),
        &meta("0000aaaa-f52a-75e1-9973-0c9e96a9368a", "/work/elsewhere"),
    );
    let found =
        discover_session(AgentKind::Codex, &process(home.path(), "/work/proj2", &[])).unwrap();
    assert_eq!(found.id.as_str(), ours);
    // A process that started after the rollout was last written is not its.
    let mut later = process(home.path(), "/work/proj2", &[]);
    later.started_at_ms = now_ms() + 60_000;
    assert!(discover_session(AgentKind::Codex, &later).is_none());
}

/// copilot 1.0.102 at start: `session-state/<uuid>/inuse.<pid>.lock` of
/// its native binary, a child of the `node …/copilot` loader.
#[test]
fn copilot_session_dir_locked_by_the_process_or_its_child() {
    let home = tempfile::tempdir().unwrap();
    let state = home.path().join(".copilot/session-state");
    let mine = "22e2f2f6-c273-49f3-b614-11db43ae0495";
    write(&state.join(mine).join("workspace.yaml"), "id: x\ncwd: /p\n");
    write(&state.join(mine).join("inuse.4343.lock"), "4343");
    // Another copilot's session, and a bad directory name with our lock.
    let other = "0b6f2c4e-1111-2222-3333-444455556666";
    write(&state.join(other).join("inuse.5555.lock"), "5555");
    write(&state.join("--resume x").join("inuse.4242.lock"), "4242");
    // The stray one newest of all: it must not hide ours (under load the
    // writes land apart, and it did).
    std::fs::File::open(state.join("--resume x"))
        .unwrap()
        .set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5))
        .unwrap();

    let mut loader = process(home.path(), "/p", &[]);
    assert!(
        discover_session(AgentKind::Copilot, &loader).is_none(),
        "the loader holds no lock, and a bad name is never an id"
    );
    loader.children = vec![4343];
    let found = discover_session(AgentKind::Copilot, &loader).unwrap();
    assert_eq!(found.id.as_str(), mine);
    assert_eq!(found.file, state.join(mine).join("workspace.yaml"));

    // A lock older than the process is a stale one of a reused pid.
    let mut later = loader.clone();
    later.started_at_ms = now_ms() + 60_000;
    assert!(discover_session(AgentKind::Copilot, &later).is_none());

    // COPILOT_HOME replaces ~/.copilot.
    let moved = tempfile::tempdir().unwrap();
    let dir = moved.path().display().to_string();
    let mut elsewhere = process(home.path(), "/p", &[("COPILOT_HOME", &dir)]);
    elsewhere.children = vec![4343];
    assert!(discover_session(AgentKind::Copilot, &elsewhere).is_none());
    write(
        &moved
            .path()
            .join("session-state")
            .join(other)
            .join("inuse.4343.lock"),
        "4343",
    );
    let found = discover_session(AgentKind::Copilot, &elsewhere).unwrap();
    assert_eq!(found.id.as_str(), other);
}

/// qwen 0.15.10 / 0.24.4 after the first prompt:
/// `projects/<cwd with / as ->/chats/<id>.jsonl`, first line with
/// sessionId and cwd.
#[test]
fn qwen_chat_of_the_cwd_written_since_the_start() {
    let home = tempfile::tempdir().unwrap();
    let chats = home.path().join(".qwen/projects/-work-proj/chats");
    let ours = "f56e3624-245b-4c52-8ac1-5d23f760111e";
    let line = |id: &str, cwd: &str| {
        format!(
            "{{\"uuid\":\"5fe4a504-f2f0-4088-bf5d-c0e8e6a24257\",\"parentUuid\":null,\"sessionId\":\"{id}\",\"timestamp\":\"2026-12-02T17:28:19.783Z\",\"type\":\"user\",\"cwd\":\"{cwd}\",\"version\":\"0.15.10\"}}\n{{\"uuid\":\"x\",\"sessionId\":\"{id}\"}}\n"
        )
    };
    write(
        &chats.join(format!("{ours}.jsonl")),
        &line(ours, "/work/proj"),
    );
    // Another project's chat, and a runtime file beside ours.
    let other = "11111111-2222-4333-8444-555555555555";
    write(
        &home
            .path()
            .join(".qwen/projects/-work-other/chats")
            .join(format!("{other}.jsonl")),
        &line(other, "/work/other"),
    );
    write(&chats.join(format!("{ours}.runtime.json")), "{\"pid\":1}");

    let p = process(home.path(), "/work/proj", &[]);
    let found = discover_session(AgentKind::Qwen, &p).unwrap();
    assert_eq!(found.id.as_str(), ours);
    assert_eq!(found.file, chats.join(format!("{ours}.jsonl")));
    let there = process(home.path(), "/work/other", &[]);
    assert_eq!(
        discover_session(AgentKind::Qwen, &there)
            .unwrap()
            .id
            .as_str(),
        other
    );
    let mut later = process(home.path(), "/work/proj", &[]);
    later.started_at_ms = now_ms() + 60_000;
    assert!(discover_session(AgentKind::Qwen, &later).is_none());

    // QWEN_RUNTIME_DIR wins over QWEN_HOME, which wins over ~/.qwen.
    let runtime = tempfile::tempdir().unwrap();
    let dir = runtime.path().display().to_string();
    let moved = process(
        home.path(),
        "/work/proj",
        &[("QWEN_RUNTIME_DIR", &dir), ("QWEN_HOME", "/nowhere")],
    );
    assert!(discover_session(AgentKind::Qwen, &moved).is_none());
    write(
        &runtime.path().join("projects/x/chats/a.jsonl"),
        &line(other, "/work/proj"),
    );
    assert_eq!(
        discover_session(AgentKind::Qwen, &moved)
            .unwrap()
            .id
            .as_str(),
        other
    );
}

/// pi 0.73.1 after the first prompt:
/// `sessions/--<cwd>--/<time>_<uuid>.jsonl`, first line the session header.
#[test]
fn pi_session_header_of_the_cwd() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".pi/agent/sessions/--work-proj--");
    let ours = "01a237ce-4c00-71d6-a3f0-2ca51d4e89d5";
    let file = dir.join(format!("2026-12-02T17-29-56-481Z_{ours}.jsonl"));
    write(
        &file,
        &format!(
            "{{\"type\":\"session\",\"version\":3,\"id\":\"{ours}\",\"timestamp\":\"2026-12-02T17:29:56.481Z\",\"cwd\":\"/work/proj\"}}\n{{\"type\":\"model_change\",\"id\":\"f8ec115e\"}}\n"
        ),
    );
    // A header whose id is not a UUID is never returned.
    write(
        &home.path().join(".pi/agent/sessions/--work-bad--/x.jsonl"),
        "{\"type\":\"session\",\"id\":\"--help\",\"cwd\":\"/work/bad\"}\n",
    );
    let found = discover_session(AgentKind::Pi, &process(home.path(), "/work/proj/", &[])).unwrap();
    assert_eq!(found.id.as_str(), ours);
    assert_eq!(found.file, file);
    assert!(discover_session(AgentKind::Pi, &process(home.path(), "/work/bad", &[])).is_none());
    // PI_CODING_AGENT_DIR moves the agent directory, sessions/ inside it.
    let agent = tempfile::tempdir().unwrap();
    let moved = agent.path().display().to_string();
    let p = process(
        home.path(),
        "/work/proj",
        &[("PI_CODING_AGENT_DIR", &moved)],
    );
    assert!(discover_session(AgentKind::Pi, &p).is_none());
    write(
        &agent.path().join("sessions/--work-proj--/s.jsonl"),
        &std::fs::read_to_string(&file).unwrap(),
    );
    assert_eq!(
        discover_session(AgentKind::Pi, &p).unwrap().id.as_str(),
        ours
    );
}

/// cursor-agent, as published: `~/.cursor/chats/<md5(cwd)>/<chat id>/`.
#[test]
fn cursor_chat_directory_under_the_hash_of_the_cwd() {
    let home = tempfile::tempdir().unwrap();
    // md5("/work/proj"), as `printf %s /work/proj | md5sum` prints it.
    let hash = std::process::Command::new("sh")
        .args(["-c", "printf %s /work/proj | md5sum"])
        .output()
        .unwrap();
    let hash = String::from_utf8(hash.stdout).unwrap();
    let hash = hash.split_whitespace().next().unwrap();
    let chat = "ac437fdf-3e7e-4a54-98a4-7bb04fd3efc6";
    let dir = home.path().join(".cursor/chats").join(hash).join(chat);
    write(&dir.join("store.db"), "SQLite format 3\0");
    let found =
        discover_session(AgentKind::Cursor, &process(home.path(), "/work/proj", &[])).unwrap();
    assert_eq!(found.id.as_str(), chat);
    assert_eq!(found.file, dir.join("store.db"));
    assert!(
        discover_session(AgentKind::Cursor, &process(home.path(), "/work/other", &[])).is_none()
    );
}
