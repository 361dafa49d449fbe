//! `signaltty bridge`: the far end of `--host`.
//!
//! `ssh HOST signaltty bridge` runs this on the server's machine, with the
//! ssh channel as its stdin and stdout. It connects to this user's server
//! (starting it as `up -d` would, when none answers) through the same
//! checked connect as every local client, then copies bytes both ways
//! until either side closes: the client's end of file, or the server's.
//! It never touches a terminal and prints nothing on stdout but the
//! server's bytes; an error before the connection goes to stderr (ssh shows
//! it to the client) and, as a protocol error line, to stdout.
//!
//! Nothing the server runs depends on the bridge: when ssh drops, the
//! bridge ends and the server and its panes go on.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::AsFd;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Result, bail};
use signaltty_protocol::{ErrorCode, Response, WireError};

use signaltty_client::cli::Cli;
use signaltty_client::client::{Endpoint, connect_stream};

/// After the client's end of file, how long the server may take to send
/// what it still owes (a client may close its writing half after its last
/// request); a stream that never ends (`subscribe`) is cut then.
const DRAIN_AFTER_CLIENT_EOF: Duration = Duration::from_secs(2);
/// The most one read moves: a flood travels in large chunks.
const PUMP_BUFFER: usize = 64 * 1024;

pub fn run(cli: &Cli) -> Result<ExitCode> {
    if cli.host.is_some() {
        bail!("`bridge` serves this machine's server to ssh; it takes no --host");
    }
    let mut stdout = raw_stdio(std::io::stdout().as_fd())?;
    let connection = match connect(cli) {
        Ok(connection) => connection,
        Err(e) => {
            let message = format!("signaltty on {}: {e:#}", hostname());
            let refusal = Response::err(None, WireError::new(ErrorCode::Unavailable, &message));
            if let Ok(mut line) = serde_json::to_vec(&refusal) {
                line.push(b'\n');
                let _ = stdout.write_all(&line);
            }
            bail!(message);
        }
    };
    let mut to_server = connection.try_clone()?;
    let mut from_server = connection.try_clone()?;
    let mut stdin = raw_stdio(std::io::stdin().as_fd())?;
    let (client_done, client_gone) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("bridge-in".into())
        .spawn(move || {
            pump(&mut stdin, &mut to_server);
            let _ = to_server.shutdown(std::net::Shutdown::Write);
            let _ = client_done.send(());
        })?;
    std::thread::Builder::new()
        .name("bridge-out".into())
        .spawn(move || {
            pump(&mut from_server, &mut stdout);
            // The server closed (or the client can no longer be written
            // to): nothing more can pass; end.
            std::process::exit(0);
        })?;
    // The client closed: let the server finish what it owes, then end.
    let _ = client_gone.recv();
    std::thread::sleep(DRAIN_AFTER_CLIENT_EOF);
    let _ = connection.shutdown(std::net::Shutdown::Both);
    Ok(ExitCode::SUCCESS)
}

/// Copies `from` to `to` until either ends, with plain reads and writes.
/// Not `std::io::copy`: on Linux it splices, and a splice from a socket into
/// a pipe holds the pipe's lock while it waits for the socket, so sshd could
/// not read the bytes already in the pipe until more arrived.
fn pump(from: &mut impl Read, to: &mut impl Write) {
    let mut buf = vec![0u8; PUMP_BUFFER];
    loop {
        match from.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                if to.write_all(&buf[..n]).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

/// This machine's server for `cli`, started if none answers.
fn connect(cli: &Cli) -> Result<signaltty_client::client::Connection> {
    crate::up::ensure_running(cli)?;
    Ok(connect_stream(&Endpoint::Local(cli.local_socket()))?)
}

/// A standard stream as an unbuffered file: std's stdout buffers by line,
/// which would hold back a frame until a newline happened to follow.
fn raw_stdio(fd: std::os::fd::BorrowedFd<'_>) -> Result<File> {
    Ok(File::from(fd.try_clone_to_owned()?))
}

/// This machine's name, for errors the client shows.
fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most `buf.len()` bytes into `buf`.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return "the remote host".to_string();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}
