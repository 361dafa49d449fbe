//! Running `git` itself, the one way signaltty touches a repository.
//!
//! Every run is a blocking child process on tokio's blocking pool, never on
//! an async worker; it waits for one of [`MAX_RUNNING`] permits first, so a
//! crowd of panes cannot start a crowd of gits. A run that outlives its
//! timeout is killed with everything it started (it leads its own process
//! group: hooks included). What git prints is read up to a bound and the
//! rest thrown away, and a failure carries git's stderr as one short line.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

/// How many gits run at once, over the whole server.
pub const MAX_RUNNING: usize = 4;
/// What is kept of a run's standard output.
const MAX_STDOUT: usize = 1024 * 1024;
/// What is read of its standard error.
const MAX_STDERR: usize = 16 * 1024;
/// What an error message keeps of it, in characters.
const MAX_MESSAGE_CHARS: usize = 300;

/// Variables that would point git at another repository than `-C` names
/// (set when the server was started from inside a git hook).
const REPOSITORY_VARS: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_PREFIX",
];

#[derive(Debug, Clone, thiserror::Error)]
pub enum GitError {
    #[error("git is not installed on the server's machine, or not on its PATH; install git")]
    NotInstalled,
    #[error("could not run git: {0}")]
    Spawn(String),
    #[error("`git {command}` took longer than {secs}s and was stopped; try again")]
    TimedOut { command: String, secs: u64 },
    #[error("`git {command}` failed: {message}")]
    Failed { command: String, message: String },
}

/// A finished run.
#[derive(Debug, Clone)]
pub struct Ran {
    pub success: bool,
    pub stdout: String,
    /// Its stderr, as one short line.
    pub message: String,
    command: String,
}

impl Ran {
    /// The output of a run that succeeded; git's message otherwise.
    pub fn ok(self) -> Result<String, GitError> {
        if self.success {
            Ok(self.stdout)
        } else {
            Err(GitError::Failed {
                command: self.command,
                message: self.message,
            })
        }
    }
}

/// Runs git, a few at a time. Cheap to clone: clones share the permits.
#[derive(Debug, Clone)]
pub struct Git {
    permits: Arc<Semaphore>,
}

impl Default for Git {
    fn default() -> Git {
        Git {
            permits: Arc::new(Semaphore::new(MAX_RUNNING)),
        }
    }
}

impl Git {
    /// `git -C dir args…`, stopped after `timeout`.
    pub async fn run(&self, dir: &Path, args: &[&str], timeout: Duration) -> Result<Ran, GitError> {
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(|e| GitError::Spawn(e.to_string()))?;
        let dir = dir.to_path_buf();
        let args: Vec<String> = args.iter().map(|a| (*a).to_string()).collect();
        tokio::task::spawn_blocking(move || run_blocking(&dir, &args, timeout))
            .await
            .map_err(|e| GitError::Spawn(format!("its task failed: {e}")))?
    }
}

/// The subcommand's words, for messages: `worktree add`, `status`.
fn describe(args: &[String]) -> String {
    args.iter()
        .take_while(|a| !a.starts_with('-'))
        .take(2)
        .cloned()
        .collect::<Vec<_>>()
        .join(" ")
}

fn run_blocking(dir: &Path, args: &[String], timeout: Duration) -> Result<Ran, GitError> {
    let command = describe(args);
    let mut git = Command::new("git");
    git.arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        // Status must not take the index lock an agent's own git wants.
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    for var in REPOSITORY_VARS {
        git.env_remove(var);
    }
    let mut child = git.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => GitError::NotInstalled,
        _ => GitError::Spawn(e.to_string()),
    })?;
    let stdout = child.stdout.take().map(|pipe| drain(pipe, MAX_STDOUT));
    let stderr = child.stderr.take().map(|pipe| drain(pipe, MAX_STDERR));
    let deadline = Instant::now() + timeout;
    let mut nap = Duration::from_millis(1);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(nap);
                nap = (nap * 2).min(Duration::from_millis(20));
            }
            Ok(None) => {
                // SAFETY: killpg(2) with the group the child leads.
                unsafe { libc::killpg(child.id() as i32, libc::SIGKILL) };
                let _ = child.wait();
                return Err(GitError::TimedOut {
                    command,
                    secs: timeout.as_secs(),
                });
            }
            Err(e) => return Err(GitError::Spawn(format!("could not wait for git: {e}"))),
        }
    };
    // A hook git left running may hold the pipes open: wait for them only
    // until the deadline.
    let collect = |pipe: Option<mpsc::Receiver<Vec<u8>>>| {
        let left = deadline
            .saturating_duration_since(Instant::now())
            .max(Duration::from_millis(100));
        pipe.and_then(|rx| rx.recv_timeout(left).ok())
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .unwrap_or_default()
    };
    let stdout = collect(stdout);
    let stderr = collect(stderr);
    Ok(Ran {
        success: status.success(),
        stdout,
        message: one_line(&stderr),
        command,
    })
}

/// Reads `pipe` to its end on a thread of its own, keeping at most `cap`
/// bytes; the result arrives on the channel.
fn drain(mut pipe: impl Read + Send + 'static, cap: usize) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    // Without a thread the pipe closes with the closure: git gets EPIPE
    // rather than blocking, and the output reads as empty.
    let _ = std::thread::Builder::new()
        .name("git-output".into())
        .spawn(move || {
            let mut kept = Vec::new();
            let mut buf = [0u8; 8192];
            loop {
                match pipe.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let room = cap.saturating_sub(kept.len());
                        kept.extend_from_slice(&buf[..n.min(room)]);
                    }
                }
            }
            let _ = tx.send(kept);
        });
    rx
}

/// Git's stderr as one line: its non-empty lines joined, control
/// characters dropped, at most [`MAX_MESSAGE_CHARS`] characters.
pub fn one_line(stderr: &str) -> String {
    let joined = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ");
    let clean: String = joined.chars().filter(|c| !c.is_control()).collect();
    if clean.is_empty() {
        return "it printed no reason".to_string();
    }
    match clean.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((cut, _)) => format!("{}…", &clean[..cut]),
        None => clean,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_s_stderr_becomes_one_bounded_line() {
        assert_eq!(
            one_line("fatal: a\n\n  hint: b\x1b[1m\n"),
            "fatal: a; hint: b[1m"
        );
        assert_eq!(one_line(""), "it printed no reason");
        let long = one_line(&"x".repeat(10_000));
        assert_eq!(long.chars().count(), MAX_MESSAGE_CHARS + 1);
    }

    #[test]
    fn the_subcommand_names_a_run() {
        let args: Vec<String> = ["worktree", "add", "-b", "x", "/p"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(describe(&args), "worktree add");
    }

    #[test]
    fn output_past_its_bound_is_read_and_thrown_away() {
        let big = std::io::Cursor::new(vec![b'x'; MAX_STDERR * 3]);
        let kept = drain(big, MAX_STDERR)
            .recv_timeout(Duration::from_secs(10))
            .unwrap();
        assert_eq!(kept.len(), MAX_STDERR);
    }

    /// Each run notes how many others run beside it as it starts.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn no_more_than_max_running_gits_run_at_once() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("running")).unwrap();
        let git = Git::default();
        let alias = "alias.count=!ls running | wc -l >> seen; touch running/$$; \
                     sleep 0.2; rm running/$$";
        let runs = (0..MAX_RUNNING * 2).map(|_| {
            let git = git.clone();
            let dir = dir.path().to_path_buf();
            async move {
                git.run(&dir, &["-c", alias, "count"], Duration::from_secs(30))
                    .await
                    .unwrap()
                    .ok()
                    .unwrap();
            }
        });
        futures_util::future::join_all(runs).await;
        let seen = std::fs::read_to_string(dir.path().join("seen")).unwrap();
        let counts: Vec<usize> = seen.lines().map(|l| l.trim().parse().unwrap()).collect();
        assert_eq!(counts.len(), MAX_RUNNING * 2, "every run ran");
        assert!(
            counts.iter().all(|&n| n < MAX_RUNNING),
            "at most {MAX_RUNNING} at once: {counts:?}"
        );
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_run_reports_git_s_words_and_a_slow_one_is_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let git = Git::default();
        let ran = git
            .run(
                dir.path(),
                &["rev-parse", "--show-toplevel"],
                Duration::from_secs(10),
            )
            .await
            .unwrap();
        let err = ran.ok().unwrap_err().to_string();
        assert!(
            err.contains("rev-parse") && err.contains("not a git repository"),
            "{err}"
        );
        // An alias that runs a shell command that never ends.
        let started = Instant::now();
        let err = git
            .run(
                dir.path(),
                &["-c", "alias.hang=!sleep 30", "hang"],
                Duration::from_millis(300),
            )
            .await
            .unwrap_err();
        assert!(matches!(err, GitError::TimedOut { .. }), "{err}");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the whole group was stopped"
        );
    }
}
