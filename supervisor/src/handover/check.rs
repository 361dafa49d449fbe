//! The new binary proves it can take over before anything is given up: it
//! runs as a child (`signaltty __handover-check`), reads the handover from
//! its stdin as the takeover will, and answers `ok NONCE`. A binary that
//! fails to start, exits with an error, panics, says anything else or
//! takes longer than [`CHECK_TIMEOUT`] leaves the old server serving.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;

/// How long the new binary has to read the handover and answer.
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(10);
/// The most of its output that is kept for the error.
const MAX_OUTPUT: u64 = 64 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error("could not run {binary}: {source}")]
    Start {
        binary: String,
        source: std::io::Error,
    },
    #[error("{binary} did not answer within {}s; it was stopped", CHECK_TIMEOUT.as_secs())]
    Timeout { binary: String },
    #[error("{binary} refused the handover ({status}): {said}")]
    Refused {
        binary: String,
        status: String,
        said: String,
    },
}

/// Runs `binary`'s check on `handover`, read through a descriptor of its
/// own (so the check's reading leaves the memfd's offset alone).
pub async fn run(binary: &Path, handover: &File, nonce: &str) -> Result<(), CheckError> {
    let name = binary.display().to_string();
    let start = |source| CheckError::Start {
        binary: name.clone(),
        source,
    };
    let input = File::open(format!("/proc/self/fd/{}", handover.as_raw_fd())).map_err(start)?;
    let mut child = tokio::process::Command::new(binary)
        .arg("__handover-check")
        .stdin(Stdio::from(input))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        // Its own group, so that a stopped check takes what it started along.
        .process_group(0)
        .spawn()
        .map_err(start)?;
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(start(std::io::Error::other("no pipes to the check")));
    };
    let pid = child.id().and_then(|pid| i32::try_from(pid).ok());
    let output = async {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let (mut stdout, mut stderr) = (stdout.take(MAX_OUTPUT), stderr.take(MAX_OUTPUT));
        let _ = tokio::join!(stdout.read_to_end(&mut out), stderr.read_to_end(&mut err));
        let status = child.wait().await;
        (status, out, err)
    };
    let Ok((status, out, err)) = tokio::time::timeout(CHECK_TIMEOUT, output).await else {
        if let Some(pid) = pid {
            // SAFETY: kill(2) with plain integers; the group is the check's
            // own, and its leader is not reaped yet (dropping it does).
            unsafe { libc::kill(-pid, libc::SIGKILL) };
        }
        return Err(CheckError::Timeout { binary: name });
    };
    let out = String::from_utf8_lossy(&out);
    let answered = out.lines().any(|line| line == format!("ok {nonce}"));
    match status {
        Ok(status) if status.success() && answered => Ok(()),
        status => Err(CheckError::Refused {
            binary: name,
            status: match status {
                Ok(status) => status.to_string(),
                Err(e) => e.to_string(),
            },
            said: last_line(&String::from_utf8_lossy(&err))
                .or_else(|| last_line(&out))
                .unwrap_or_else(|| "nothing".into()),
        }),
    }
}

fn last_line(text: &str) -> Option<String> {
    text.lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .map(|line| signaltty_screen::sanitize(line, 300))
}
