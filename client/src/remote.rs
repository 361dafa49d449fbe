//! Servers on other machines, through OpenSSH.
//!
//! signaltty has no transport of its own. A remote connection is
//! `ssh -T DEST 'signaltty' bridge` with one end of a socket pair as ssh's
//! stdin and stdout; the client keeps the other end and speaks the same
//! protocol over it as over a local socket. The bridge on the far side
//! connects to that user's server with every check a local client makes
//! (starting the server if none runs), so nothing here trusts more than a
//! local connection does: ssh authenticated the user, the bridge runs as
//! them.
//!
//! ssh's stderr is kept (bounded) and shown, as ssh wrote it, when the
//! connection fails, with a one-line hint chosen by ssh's exit status.

use std::io::Read;
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use signaltty_protocol::socket_path::SessionName;
use signaltty_protocol::{Response, WireError};

use crate::client::ClientError;

/// Replaces the `ssh` command line, split on whitespace like
/// `GIT_SSH_COMMAND` (e.g. `ssh -F ./ssh_config`).
pub const SSH_COMMAND_ENV: &str = "SIGNALTTY_SSH_COMMAND";
/// The program run on the far side unless `--remote-bin` says otherwise.
pub const DEFAULT_REMOTE_BIN: &str = "signaltty";
/// How much of ssh's stderr is kept to show when the connection fails.
pub const MAX_SSH_STDERR: usize = 16 * 1024;
/// How long a closed connection's ssh may take to end by itself before it
/// is killed.
const SSH_EXIT_GRACE: Duration = Duration::from_secs(2);
/// How long, after ssh ended, its last stderr may take to arrive: a
/// `ControlPersist` master it started may hold the pipe open for good.
const STDERR_GRACE: Duration = Duration::from_millis(300);

/// A server on another machine, reached with `ssh DEST`.
#[derive(Debug, Clone)]
pub struct Remote {
    destination: String,
    remote_bin: String,
    session: Option<SessionName>,
    /// The ssh program and its own arguments.
    ssh: Vec<String>,
}

impl Remote {
    /// `destination` is anything ssh takes (`box`, `user@box`,
    /// `ssh://user@box:2222`); `ssh_command` is the value of
    /// [`SSH_COMMAND_ENV`], if set.
    pub fn new(
        destination: &str,
        remote_bin: Option<&str>,
        session: Option<SessionName>,
        ssh_command: Option<&str>,
    ) -> Result<Remote, ClientError> {
        // A destination that starts with '-' would be read by ssh as an
        // option (`-oProxyCommand=…`): never pass one on.
        if destination.is_empty()
            || destination.starts_with('-')
            || destination
                .chars()
                .any(|c| c.is_whitespace() || c.is_control())
        {
            return Err(ClientError::BadRemote(format!(
                "host {destination:?} is not an ssh destination; give one like box, \
                 user@box or ssh://user@box:2222"
            )));
        }
        let remote_bin = remote_bin
            .filter(|b| !b.is_empty())
            .unwrap_or(DEFAULT_REMOTE_BIN);
        if remote_bin.chars().any(char::is_control) {
            return Err(ClientError::BadRemote(format!(
                "remote binary {remote_bin:?} has control characters; give its path"
            )));
        }
        let ssh: Vec<String> = ssh_command
            .unwrap_or_default()
            .split_whitespace()
            .map(str::to_string)
            .collect();
        Ok(Remote {
            destination: destination.to_string(),
            remote_bin: remote_bin.to_string(),
            session,
            ssh: if ssh.is_empty() {
                vec!["ssh".to_string()]
            } else {
                ssh
            },
        })
    }

    pub fn destination(&self) -> &str {
        &self.destination
    }

    /// The one string ssh hands the remote user's shell:
    /// `'BIN' [--session 'NAME'] ARGS…`, each word quoted for a POSIX
    /// shell (fish reads the same quoting), a leading `~/` left unquoted
    /// so the shell expands it.
    pub fn remote_command(&self, args: &[&str]) -> String {
        let mut words = vec![quote_path(&self.remote_bin)];
        if let Some(session) = &self.session {
            words.push("--session".to_string());
            words.push(quote(session.as_str()));
        }
        words.extend(args.iter().map(|a| quote(a)));
        words.join(" ")
    }

    /// `ssh … -T DEST COMMAND`, ready to be given its stdio.
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.ssh[0]);
        // -T: a terminal on the far side would mangle the protocol, even
        // if the user's ssh_config asks for one.
        command
            .args(&self.ssh[1..])
            .arg("-T")
            .arg(&self.destination)
            .arg(self.remote_command(args));
        command
    }

    /// Opens a connection to the remote server through `ssh … bridge`.
    pub fn open(&self) -> Result<(UnixStream, SshChild), ClientError> {
        let (ours, theirs) = UnixStream::pair()?;
        let theirs_out = theirs.try_clone()?;
        let mut command = self.command(&["bridge"]);
        command
            .stdin(Stdio::from(OwnedFd::from(theirs)))
            .stdout(Stdio::from(OwnedFd::from(theirs_out)));
        // `theirs` is closed here once the child has it, so our end sees
        // EOF when ssh ends. (`ours` is close-on-exec: ssh never holds it.)
        let child = self.spawn(command)?;
        Ok((ours, child))
    }

    /// Runs `signaltty ARGS` on the far side (not a server connection:
    /// `sessions`, `up -d`) and returns what it printed. A remote error
    /// printed as `{"error":…}` comes back as that error.
    pub fn output(&self, args: &[&str]) -> Result<Vec<u8>, ClientError> {
        let mut command = self.command(args);
        command.stdin(Stdio::null()).stdout(Stdio::piped());
        let mut child = self.spawn(command)?;
        let mut stdout = Vec::new();
        if let Some(out) = child.child.stdout.take() {
            // The remote program's output is ours to bound as any reply.
            out.take(signaltty_protocol::MAX_LINE as u64)
                .read_to_end(&mut stdout)?;
        }
        let failure = child.finish(None);
        match failure {
            None => Ok(stdout),
            Some(failure) => match remote_error(&stdout) {
                Some(error) => Err(ClientError::Server(error)),
                None => Err(ClientError::Ssh(failure)),
            },
        }
    }

    fn spawn(&self, mut command: Command) -> Result<SshChild, ClientError> {
        command.stderr(Stdio::piped());
        let mut child = command.spawn().map_err(|source| ClientError::SshSpawn {
            program: self.ssh[0].clone(),
            source,
        })?;
        let stderr = child.stderr.take().map(collect_stderr);
        Ok(SshChild {
            child,
            stderr,
            kept: Vec::new(),
            destination: self.destination.clone(),
            ssh: self.ssh.join(" "),
        })
    }
}

/// The `{"error":…}` a remote signaltty printed before failing, if any.
fn remote_error(stdout: &[u8]) -> Option<WireError> {
    let line = stdout.split(|&b| b == b'\n').find(|l| !l.is_empty())?;
    if let Ok(Response {
        error: Some(error), ..
    }) = serde_json::from_slice::<Response>(line)
    {
        return Some(error);
    }
    #[derive(serde::Deserialize)]
    struct Printed {
        error: WireError,
    }
    serde_json::from_slice::<Printed>(line)
        .ok()
        .map(|p| p.error)
}

/// A running `ssh`: reaped (killed if it will not end) when dropped.
#[derive(Debug)]
pub struct SshChild {
    child: Child,
    stderr: Option<Receiver<Vec<u8>>>,
    kept: Vec<u8>,
    destination: String,
    /// The ssh command line, for the hint.
    ssh: String,
}

impl SshChild {
    /// Waits for ssh to end (at most `timeout`, if given) and says why the
    /// connection failed: `None` when ssh ended well or is still running.
    pub fn finish(&mut self, timeout: Option<Duration>) -> Option<SshFailure> {
        let status = match timeout {
            None => self.child.wait().ok()?,
            Some(timeout) => wait_until(&mut self.child, Instant::now() + timeout)?,
        };
        if status.success() {
            return None;
        }
        self.drain_stderr();
        Some(SshFailure {
            destination: self.destination.clone(),
            ssh: self.ssh.clone(),
            status: status.code(),
            stderr: String::from_utf8_lossy(&self.kept).trim_end().to_string(),
        })
    }

    fn drain_stderr(&mut self) {
        let Some(chunks) = self.stderr.take() else {
            return;
        };
        let deadline = Instant::now() + STDERR_GRACE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match chunks.recv_timeout(left) {
                Ok(chunk) => {
                    let room = MAX_SSH_STDERR.saturating_sub(self.kept.len());
                    self.kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
                }
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return,
            }
        }
    }
}

impl Drop for SshChild {
    fn drop(&mut self) {
        if wait_until(&mut self.child, Instant::now() + SSH_EXIT_GRACE).is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Polls `child` until it ends or `deadline` passes.
fn wait_until(child: &mut Child, deadline: Instant) -> Option<std::process::ExitStatus> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            _ => return None,
        }
    }
}

/// A thread that reads ssh's stderr to its end (so ssh never blocks on
/// it) and passes on the first [`MAX_SSH_STDERR`] bytes.
fn collect_stderr(mut stderr: std::process::ChildStderr) -> Receiver<Vec<u8>> {
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("ssh-stderr".into())
        .spawn(move || {
            let mut passed = 0;
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = stderr.read(&mut buf) {
                if passed < MAX_SSH_STDERR {
                    passed += n;
                    if tx.send(buf[..n].to_vec()).is_err() {
                        // Nobody will ask any more; keep draining.
                        passed = MAX_SSH_STDERR;
                    }
                }
            }
        });
    // Without the thread ssh's messages are lost, nothing else.
    drop(spawned);
    rx
}

/// ssh (or what it ran) failed: what it said, and what to do about it.
#[derive(Debug, Clone)]
pub struct SshFailure {
    pub destination: String,
    /// The ssh command line used (`ssh`, or `$SIGNALTTY_SSH_COMMAND`).
    pub ssh: String,
    /// ssh's exit status: 255 for its own errors, else the remote
    /// command's.
    pub status: Option<i32>,
    /// ssh's stderr as it wrote it (which carries the remote command's).
    pub stderr: String,
}

impl SshFailure {
    /// One line saying what probably went wrong and what to do.
    pub fn hint(&self) -> String {
        let dest = &self.destination;
        match self.status {
            Some(255) => format!(
                "ssh could not connect to {dest} (its message is above); check that \
                 `{} {dest} true` works, or set SIGNALTTY_SSH_COMMAND",
                self.ssh
            ),
            Some(126 | 127) => format!(
                "signaltty was not found or cannot run on {dest}; install it there, or give \
                 its path with --remote-bin PATH (or SIGNALTTY_REMOTE_BIN)"
            ),
            Some(code) => format!("signaltty on {dest} failed (exit {code}); its message is above"),
            None => format!("ssh to {dest} was killed by a signal"),
        }
    }
}

impl std::fmt::Display for SshFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.stderr.is_empty() {
            f.write_str(&self.hint())
        } else {
            write!(f, "{}\n{}", self.stderr, self.hint())
        }
    }
}

/// Quotes `word` for a POSIX shell: `'…'`, with each `'` as `'\''`.
fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// Quotes a path, leaving a leading `~/` for the shell to expand.
fn quote_path(path: &str) -> String {
    match path.strip_prefix("~/") {
        Some(rest) => format!("~/{}", quote(rest)),
        None => quote(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn remote(dest: &str, bin: Option<&str>, session: Option<&str>, ssh: Option<&str>) -> Remote {
        let session = session.map(|s| SessionName::parse(s).unwrap());
        Remote::new(dest, bin, session, ssh).unwrap()
    }

    #[test]
    fn the_command_line_is_ssh_dest_and_one_quoted_remote_command() {
        let r = remote("user@box", None, None, None);
        let cmd = r.command(&["bridge"]);
        let args: Vec<_> = cmd.get_args().map(|a| a.to_string_lossy()).collect();
        assert_eq!(cmd.get_program(), "ssh");
        assert_eq!(args, ["-T", "user@box", "'signaltty' 'bridge'"]);

        let r = remote(
            "ssh://u@h:2222",
            Some("~/my bin/signal'tty"),
            Some("work"),
            Some("  ssh -F ./ssh_config   -o  BatchMode=yes "),
        );
        let cmd = r.command(&["bridge"]);
        let args: Vec<_> = cmd.get_args().map(|a| a.to_string_lossy()).collect();
        assert_eq!(
            args,
            [
                "-F",
                "./ssh_config",
                "-o",
                "BatchMode=yes",
                "-T",
                "ssh://u@h:2222",
                r"~/'my bin/signal'\''tty' --session 'work' 'bridge'"
            ]
        );
    }

    #[test]
    fn the_quoting_survives_a_real_shell() {
        let r = remote("h", Some("/x/it's a $HOME `bin`"), Some("w"), None);
        let out = Command::new("/bin/sh")
            .arg("-c")
            .arg(format!(
                "printf '%s\\n' {}",
                r.remote_command(&["a;b", "$(c)"])
            ))
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            "/x/it's a $HOME `bin`\n--session\nw\na;b\n$(c)\n"
        );
    }

    #[test]
    fn a_destination_ssh_would_read_as_an_option_is_refused() {
        for bad in ["", "-oProxyCommand=evil", "a b", "box\n"] {
            let err = Remote::new(bad, None, None, None).unwrap_err().to_string();
            assert!(err.contains("not an ssh destination"), "{bad:?}: {err}");
        }
        assert!(Remote::new("b", Some("bin\u{7}"), None, None).is_err());
        // An empty SIGNALTTY_SSH_COMMAND means plain ssh.
        assert_eq!(remote("b", None, None, Some("  ")).ssh, ["ssh"]);
    }

    #[test]
    fn hints_follow_the_exit_status() {
        let failure = |status| SshFailure {
            destination: "box".into(),
            ssh: "ssh".into(),
            status,
            stderr: "ssh: connect to host box port 22: Connection refused".into(),
        };
        assert!(failure(Some(255)).hint().contains("ssh box true"));
        assert!(failure(Some(127)).hint().contains("--remote-bin"));
        assert!(failure(Some(1)).hint().contains("exit 1"));
        let shown = failure(Some(255)).to_string();
        assert!(
            shown.starts_with("ssh: connect to host box port 22: Connection refused\n"),
            "ssh's words come first, as they are: {shown}"
        );
    }

    #[test]
    fn a_remote_error_line_is_recognised() {
        let line = br#"{"error":{"code":"NO_SUCH_PANE","message":"no pane x"}}"#;
        assert_eq!(remote_error(line).unwrap().message, "no pane x");
        let response =
            br#"{"v":"signaltty/2","id":null,"error":{"code":"UNAVAILABLE","message":"down"}}"#;
        assert_eq!(remote_error(response).unwrap().message, "down");
        assert!(remote_error(b"plain text\n").is_none());
    }

    #[test]
    fn a_missing_ssh_program_says_what_to_do() {
        let r = remote("box", None, None, Some("/nonexistent/ssh"));
        let err = r.open().unwrap_err().to_string();
        assert!(
            err.contains("/nonexistent/ssh") && err.contains("SIGNALTTY_SSH_COMMAND"),
            "{err}"
        );
    }

    #[test]
    fn stderr_is_kept_bounded_and_the_child_reaped() {
        // A stand-in for ssh: floods stderr, then fails like ssh does.
        let script = format!(
            "head -c {} /dev/zero | tr '\\0' x >&2; echo; exit 255",
            MAX_SSH_STDERR * 4
        );
        let mut command = Command::new("/bin/sh");
        command
            .args(["-c", &script])
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        let r = remote("box", None, None, None);
        let mut child = r.spawn(command).unwrap();
        let failure = child.finish(None).unwrap();
        assert_eq!(failure.status, Some(255));
        assert_eq!(failure.stderr.len(), MAX_SSH_STDERR);
    }
}
