//! Session ids from the agents' own files, with no hook wired.
//!
//! Each kind's store (see `SessionStore` in `kinds.rs`, `[sessions]` in its
//! data file) is found from the agent process's own environment — its
//! `$HOME`, or the kind's override such as `CLAUDE_CONFIG_DIR` — and matched
//! to the process by pid, cwd and start time. Every read is bounded and only of regular files; every id
//! found passes [`crate::validate_session_id`] before it is returned.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Deserialize;

use crate::files::{first_line, read_bounded};
use crate::kind::AgentKind;
use crate::kind::Spec;
use crate::kinds::{StoreFormat, StoreRoot};
use crate::session_id::{SessionId, validate_session_id};

/// A file written this long before the process's start still counts: the
/// clocks of `/proc` and of the file system are not exactly in step.
const START_SLACK_MS: u64 = 2_000;
/// The largest session file or first line read.
const MAX_FILE: u64 = 1024 * 1024;
/// The most directory entries looked at in one directory, and the most
/// files opened in one discovery.
const MAX_ENTRIES: usize = 4_096;
const MAX_OPENED: usize = 64;
/// How many days of codex's dated directories are looked at, at most.
const MAX_DAYS: u64 = 8;

/// The agent process whose session is wanted.
#[derive(Debug, Clone)]
pub struct AgentProcess {
    pub pid: i32,
    /// When it started, in milliseconds since the Unix epoch.
    pub started_at_ms: u64,
    /// When it started, in clock ticks since boot (`/proc/PID/stat` field
    /// 22), which Claude Code writes as `procStart`.
    pub start_ticks: u64,
    /// Its working directory.
    pub cwd: String,
    /// Its direct children: an agent started through a loader (copilot's
    /// npm package runs its native binary as a child) writes its files
    /// under the child's pid.
    pub children: Vec<i32>,
    /// Variables of its environment: `HOME` and those of
    /// [`store_env_names`] (others are ignored).
    pub env: Vec<(String, String)>,
}

impl AgentProcess {
    fn var(&self, name: &str) -> Option<&str> {
        self.env
            .iter()
            .find(|(k, v)| k == name && !v.is_empty())
            .map(|(_, v)| v.as_str())
    }

    fn root(&self, root: &StoreRoot) -> Option<PathBuf> {
        for (name, suffix) in &root.env {
            if let Some(dir) = self.var(name) {
                return Some(Path::new(dir).join(suffix));
            }
        }
        Some(Path::new(self.var("HOME")?).join(&root.home_path))
    }
}

/// The environment variables that move a session store, plus `HOME`.
pub fn store_env_names() -> Vec<&'static str> {
    let mut names = vec!["HOME"];
    for kind in AgentKind::ALL {
        if let Some(store) = &kind.spec().sessions {
            names.extend(store.root.env.iter().map(|(name, _)| name.as_str()));
        }
    }
    names
}

/// A session id found in an agent's files, and the file it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discovered {
    pub id: SessionId,
    pub file: PathBuf,
}

/// The session `process`, an agent of `kind`, is in, from its own files.
pub fn discover_session(kind: AgentKind, process: &AgentProcess) -> Option<Discovered> {
    let store = kind.spec().sessions.as_ref()?;
    let root = process.root(&store.root)?;
    let (file, id) = match &store.format {
        StoreFormat::PidFile => pid_file(&root, process)?,
        StoreFormat::ProjectChats => project_chats(&root, process)?,
        StoreFormat::DatedRollouts => dated_rollouts(&root, process)?,
        StoreFormat::SessionFiles => session_files(&root, process)?,
        StoreFormat::StateDirs => state_dirs(kind, &root, process)?,
        StoreFormat::JsonlHeads {
            files,
            id_field,
            cwd_field,
        } => jsonl_heads(&root, files, (id_field, cwd_field), process)?,
        StoreFormat::HashedChatDirs => hashed_chat_dirs(&root, process)?,
    };
    let id = validate_session_id(kind, &id).ok()?;
    Some(Discovered { id, file })
}

/// Claude Code: `sessions/<pid>.json`, checked against the start time.
fn pid_file(root: &Path, process: &AgentProcess) -> Option<(PathBuf, String)> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct PidFile {
        session_id: String,
        #[serde(default)]
        pid: Option<i64>,
        #[serde(default)]
        proc_start: Option<String>,
    }
    let path = root.join("sessions").join(format!("{}.json", process.pid));
    let text = read_bounded(&path, MAX_FILE).ok()??;
    let file: PidFile = serde_json::from_str(&text).ok()?;
    // A file left by an earlier process with the same pid is not ours.
    let same_pid = file.pid.is_none_or(|pid| pid == i64::from(process.pid));
    let same_start = file
        .proc_start
        .as_deref()
        .is_none_or(|ticks| ticks.trim() == process.start_ticks.to_string());
    (same_pid && same_start).then_some((path, file.session_id))
}

/// Gemini: the project's newest chat written since the process started.
fn project_chats(root: &Path, process: &AgentProcess) -> Option<(PathBuf, String)> {
    #[derive(Deserialize)]
    struct Projects {
        projects: std::collections::HashMap<String, String>,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct ChatHead {
        session_id: String,
    }
    let text = read_bounded(&root.join("projects.json"), MAX_FILE).ok()??;
    let projects: Projects = serde_json::from_str(&text).ok()?;
    let project = projects.projects.get(&process.cwd)?;
    if project.contains('/') || project.starts_with('.') {
        return None;
    }
    let chats = root.join("tmp").join(project).join("chats");
    let files = recent(&chats, process, Entry::File, |name| {
        name.starts_with("session-") && name.ends_with(".jsonl")
    });
    files.into_iter().find_map(|(_, path)| {
        let head: ChatHead = serde_json::from_str(&first_line(&path, MAX_FILE)?).ok()?;
        Some((path, head.session_id))
    })
}

/// Codex: the newest rollout for the process's cwd written since it
/// started, looked for in the dated directories of the days since then.
fn dated_rollouts(root: &Path, process: &AgentProcess) -> Option<(PathBuf, String)> {
    #[derive(Deserialize)]
    struct Line {
        #[serde(rename = "type")]
        kind: String,
        payload: Meta,
    }
    #[derive(Deserialize)]
    struct Meta {
        id: String,
        cwd: String,
    }
    let sessions = root.join("sessions");
    let mut files = Vec::new();
    for day in days_since(process.started_at_ms) {
        let dir = sessions
            .join(format!("{:04}", day.0))
            .join(format!("{:02}", day.1))
            .join(format!("{:02}", day.2));
        files.extend(recent(&dir, process, Entry::File, |name| {
            name.starts_with("rollout-") && name.ends_with(".jsonl")
        }));
    }
    newest_first(&mut files);
    files.into_iter().find_map(|(_, path)| {
        let line: Line = serde_json::from_str(&first_line(&path, MAX_FILE)?).ok()?;
        (line.kind == "session_meta" && same_dir(&line.payload.cwd, &process.cwd))
            .then_some((path, line.payload.id))
    })
}

/// opencode: the newest session of the process's directory updated since
/// it started.
fn session_files(root: &Path, process: &AgentProcess) -> Option<(PathBuf, String)> {
    #[derive(Deserialize)]
    struct Session {
        id: String,
        directory: String,
    }
    let projects = root.join("storage").join("session");
    let mut files = Vec::new();
    for project in std::fs::read_dir(&projects)
        .ok()?
        .take(MAX_ENTRIES)
        .flatten()
    {
        files.extend(recent(&project.path(), process, Entry::File, |name| {
            name.starts_with("ses_") && name.ends_with(".json")
        }));
    }
    newest_first(&mut files);
    files.into_iter().find_map(|(_, path)| {
        let session: Session = serde_json::from_str(&read_bounded(&path, MAX_FILE).ok()??).ok()?;
        same_dir(&session.directory, &process.cwd).then_some((path, session.id))
    })
}

/// Copilot: the session directory holding a lock of the process or of
/// one of its children, made since it started; the directory's name is
/// the session id. The newest wins (a `/new` inside copilot moves on).
/// A directory whose name is no id of `kind` is passed over, so a newer
/// stray one cannot hide the session.
fn state_dirs(kind: AgentKind, root: &Path, process: &AgentProcess) -> Option<(PathBuf, String)> {
    let is_id = |name: &str| validate_session_id(kind, name).is_ok();
    let sessions = recent(&root.join("session-state"), process, Entry::Dir, is_id);
    let since = process.started_at_ms.saturating_sub(START_SLACK_MS);
    let pids = std::iter::once(process.pid).chain(process.children.iter().copied());
    let locks: Vec<String> = pids.map(|pid| format!("inuse.{pid}.lock")).collect();
    sessions.into_iter().find_map(|(_, dir)| {
        let held = locks.iter().any(|lock| {
            std::fs::symlink_metadata(dir.join(lock))
                .ok()
                .filter(std::fs::Metadata::is_file)
                .and_then(|meta| meta.modified().ok())
                .is_some_and(|at| millis(at) >= since)
        });
        let id = dir.file_name()?.to_str()?.to_string();
        held.then(|| (dir.join("workspace.yaml"), id))
    })
}

/// qwen, pi: the newest JSON Lines file at `pattern` under the root
/// written since the process started whose first line names the process's
/// cwd; that line's id field is the session id.
fn jsonl_heads(
    root: &Path,
    pattern: &str,
    (id_field, cwd_field): (&str, &str),
    process: &AgentProcess,
) -> Option<(PathBuf, String)> {
    let (dirs, file_glob) = pattern.rsplit_once('/').unwrap_or(("", pattern));
    let mut files = Vec::new();
    for dir in expand_dirs(root, dirs) {
        files.extend(recent(&dir, process, Entry::File, |name| {
            glob_match(file_glob, name)
        }));
    }
    newest_first(&mut files);
    files.into_iter().find_map(|(_, path)| {
        let head: serde_json::Value = serde_json::from_str(&first_line(&path, MAX_FILE)?).ok()?;
        let cwd = head.get(cwd_field)?.as_str()?;
        let id = head.get(id_field)?.as_str()?;
        same_dir(cwd, &process.cwd).then(|| (path.clone(), id.to_string()))
    })
}

/// The directories `pattern` (`projects/*/chats`: `/`-separated names,
/// `*` in a name standing for any text) names under `root`, at most
/// [`MAX_ENTRIES`] of them.
fn expand_dirs(root: &Path, pattern: &str) -> Vec<PathBuf> {
    let mut dirs = vec![root.to_path_buf()];
    for part in pattern.split('/').filter(|p| !p.is_empty()) {
        if !part.contains('*') {
            dirs.iter_mut().for_each(|dir| dir.push(part));
            continue;
        }
        let mut next = Vec::new();
        for dir in &dirs {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            next.extend(
                entries
                    .take(MAX_ENTRIES)
                    .flatten()
                    .filter(|e| e.file_name().to_str().is_some_and(|n| glob_match(part, n)))
                    // `DirEntry::file_type` does not follow a symlink.
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                    .map(|e| e.path()),
            );
        }
        next.truncate(MAX_ENTRIES);
        dirs = next;
    }
    dirs
}

/// Whether `name` matches `glob`, where one `*` stands for any text.
fn glob_match(glob: &str, name: &str) -> bool {
    match glob.split_once('*') {
        None => glob == name,
        Some((head, tail)) => {
            name.len() >= head.len() + tail.len() && name.starts_with(head) && name.ends_with(tail)
        }
    }
}

/// Cursor's agent: the newest chat directory of the cwd's workspace (named
/// by the MD5 of its path) made or changed since the process started; the
/// directory's name is the chat id.
fn hashed_chat_dirs(root: &Path, process: &AgentProcess) -> Option<(PathBuf, String)> {
    let digest = <md5::Md5 as md5::Digest>::digest(process.cwd.trim_end_matches('/').as_bytes());
    let hash: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    let chats = recent(&root.join("chats").join(hash), process, Entry::Dir, |_| {
        true
    });
    chats.into_iter().find_map(|(_, dir)| {
        let id = dir.file_name()?.to_str()?.to_string();
        Some((dir.join("store.db"), id))
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Entry {
    File,
    Dir,
}

/// Entries of `dir` of one `kind` whose name passes `wanted` and that were
/// modified since the process started, newest first, with their times.
fn recent(
    dir: &Path,
    process: &AgentProcess,
    kind: Entry,
    wanted: impl Fn(&str) -> bool,
) -> Vec<(u64, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let since = process.started_at_ms.saturating_sub(START_SLACK_MS);
    let mut found: Vec<(u64, PathBuf)> = entries
        .take(MAX_ENTRIES)
        .flatten()
        .filter(|e| e.file_name().to_str().is_some_and(&wanted))
        .filter_map(|e| {
            // `DirEntry::metadata` does not follow a symlink.
            let meta = e.metadata().ok()?;
            let right_kind = match kind {
                Entry::File => meta.is_file(),
                Entry::Dir => meta.is_dir(),
            };
            let modified = millis(meta.modified().ok().filter(|_| right_kind)?);
            (modified >= since).then(|| (modified, e.path()))
        })
        .collect();
    newest_first(&mut found);
    found
}

/// Sorts (modified, path) pairs newest first and keeps [`MAX_OPENED`].
fn newest_first(files: &mut Vec<(u64, PathBuf)>) {
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    files.truncate(MAX_OPENED);
}

fn same_dir(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}

fn millis(at: SystemTime) -> u64 {
    at.duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// The (year, month, day) dates from the day before `since_ms` to the day
/// after now, in UTC (a day either side covers any local time zone), at
/// most [`MAX_DAYS`] + 2 of them, newest first.
fn days_since(since_ms: u64) -> Vec<(i64, u32, u32)> {
    let day_ms = Duration::from_secs(86_400).as_millis() as u64;
    let today = millis(SystemTime::now()) / day_ms + 1;
    let first = (since_ms / day_ms)
        .saturating_sub(1)
        .max(today.saturating_sub(MAX_DAYS + 1));
    (first..=today)
        .rev()
        .map(|day| civil_from_days(day as i64))
        .collect()
}

/// Howard Hinnant's `civil_from_days`: days since 1970-01-01 → date.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_names_at_most_max_entries_directories() {
        let root = tempfile::tempdir().unwrap();
        for i in 0..MAX_ENTRIES + 5 {
            std::fs::create_dir_all(root.path().join(format!("p{i}/chats"))).unwrap();
        }
        let dirs = expand_dirs(root.path(), "*/chats");
        assert_eq!(dirs.len(), MAX_ENTRIES);
        assert!(dirs.iter().all(|d| d.ends_with("chats")));
        assert_eq!(
            expand_dirs(root.path(), "p1/chats"),
            vec![root.path().join("p1/chats")]
        );
        assert!(glob_match("*.jsonl", "a.jsonl") && !glob_match("*.jsonl", "a.json"));
        assert!(glob_match("ses_*", "ses_") && !glob_match("ab*ba", "aba"));
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(20_513), (2026, 3, 1));
    }

    #[test]
    fn the_store_follows_the_override_then_home() {
        let process = AgentProcess {
            pid: 1,
            started_at_ms: 0,
            start_ticks: 0,
            cwd: "/".into(),
            children: Vec::new(),
            env: vec![
                ("HOME".into(), "/home/u".into()),
                ("GEMINI_CLI_HOME".into(), "/g".into()),
            ],
        };
        let root = |kind: AgentKind| process.root(&kind.spec().sessions.as_ref().unwrap().root);
        assert_eq!(
            root(AgentKind::Claude).unwrap(),
            Path::new("/home/u/.claude")
        );
        assert_eq!(root(AgentKind::Gemini).unwrap(), Path::new("/g/.gemini"));
        assert_eq!(
            root(AgentKind::Opencode).unwrap(),
            Path::new("/home/u/.local/share/opencode")
        );
        assert!(store_env_names().contains(&"CODEX_HOME"));
    }
}
