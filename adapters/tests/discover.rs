//! discover_session(): session ids from the agents' own files, laid out as
//! claude 2.1.197, gemini 0.61.0 and codex-cli 0.171.0 write them.

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
    let day = |ms: u64| {
        let days = (ms / 86_400_000) as i64;
        // A tiny civil-from-days for the test's own dates.
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = doy - (153 * mp + 2) / 5 + 1;
        let m = if mp < 10 { mp + 3 } else { mp - 9 };
        let y = yoe + era * 400 + i64::from(m <= 2);
        format!("{y:04}/{m:02}/{d:02}")
    };
    let dir = home.path().join(".codex/sessions").join(day(now_ms()));
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
