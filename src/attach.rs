//! `signaltty attach PANE`: this terminal shows a pane, exactly.
//!
//! The server sends a snapshot that repaints the screen, then the pane's
//! output from exactly where that snapshot ends. This side puts the
//! terminal in raw mode, forwards keystrokes and size changes, and gives
//! the terminal back in order (raw mode off, every mode reset, the screen
//! cleared) on every way out: the detach key, the server going away, a
//! signal, a panic.
//!
//! A pane with no process (RESTORED, RESUMABLE, EXITED) shows its history
//! and offers its action in one key: `r` resumes or respawns it, `q` leaves.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, bail};
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGWINCH};
use signaltty_protocol::{
    AttachReply, PROTOCOL, Request, Response, StateFrame, frame, method, params,
};

use crate::client::{Client, ClientError, Connection, Endpoint, connect_stream};

/// What the attached session's states mean to the key handler.
const LIVE: u8 = 0;
const RESUMABLE: u8 = 1;
const DEAD: u8 = 2;

/// Parses a detach key such as `C-]`, `^a` or `ctrl-b`.
pub fn parse_key(spec: &str) -> Result<u8> {
    let lower = spec.to_ascii_lowercase();
    let rest = lower
        .strip_prefix("c-")
        .or_else(|| lower.strip_prefix("ctrl-"))
        .or_else(|| lower.strip_prefix('^'));
    match rest.map(str::as_bytes) {
        Some([c @ b'a'..=b'z']) => Ok(c - b'a' + 1),
        Some([c @ (b'[' | b'\\' | b']' | b'^' | b'_')]) => Ok(c - b'@'),
        _ => bail!("detach key {spec:?} is not a control key; use one like C-] or C-b"),
    }
}

/// How to attach.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub detach_key: u8,
    /// Attaching does not count as having seen the pane.
    pub keep_attention: bool,
}

pub fn run(endpoint: &Endpoint, pane: &str, options: Options) -> Result<ExitCode> {
    match attach_loop(endpoint, pane, options)? {
        End::Detached => println!("[detached from pane {pane}; it keeps running]"),
        End::Left => println!("[left pane {pane}]"),
        End::ServerGone => {
            eprintln!("signaltty: the server went away; its panes are gone with it");
            return Ok(ExitCode::from(1));
        }
        End::ConnectionLost(ssh_said) => {
            let host = endpoint.host().unwrap_or("the server");
            if !ssh_said.is_empty() {
                eprintln!("{ssh_said}");
            }
            eprintln!(
                "signaltty: the connection to {host} dropped; nothing there stopped: \
                 attach again to carry on"
            );
            return Ok(ExitCode::from(1));
        }
        // The loop never ends on a reattach.
        End::Signalled | End::Reattach => {}
    }
    Ok(ExitCode::SUCCESS)
}

/// Attaches until the user detaches or leaves, the server goes away or a
/// signal arrives; the terminal is back as it was when this returns.
pub fn attach_loop(endpoint: &Endpoint, pane: &str, options: Options) -> Result<End> {
    // Connected before the terminal goes raw: ssh may have to ask for a
    // password or about a host key, and its errors must read as written.
    let mut connection = Some(connect_stream(endpoint)?);
    let terminal = RawTerminal::enter().context("attach needs a terminal on stdin")?;
    let signals = Signals::install()?;
    loop {
        let stream = match connection.take() {
            Some(stream) => stream,
            None => connect_stream(endpoint)?,
        };
        let keys = KeyContext {
            detach_key: options.detach_key,
            endpoint: endpoint.clone(),
            pane: pane.to_string(),
        };
        match session(stream, keys, options, &terminal, &signals)? {
            End::Reattach => continue,
            other => return Ok(other),
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
pub enum End {
    Detached,
    Left,
    ServerGone,
    /// A remote connection failed: what ssh said.
    ConnectionLost(String),
    Signalled,
    /// An action (resume, respawn) worked: attach again for a fresh picture.
    Reattach,
}

/// Why the keyboard side stopped the session.
#[derive(Debug, Default)]
struct Stop {
    detached: AtomicBool,
    left: AtomicBool,
    reattach: AtomicBool,
}

fn session(
    mut stream: Connection,
    mut keys: KeyContext,
    options: Options,
    terminal: &RawTerminal,
    signals: &Signals,
) -> Result<End> {
    let (rows, cols) = terminal.size();
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut writer = stream.try_clone()?;
    let reply = match handshake(&mut reader, &mut writer, &keys.pane, (rows, cols), options) {
        Ok(reply) => reply,
        Err(e) => return Err(stream.explain(e)),
    };
    keys.pane = reply.pane.clone();
    let state = Arc::new(AtomicU8::new(state_code(&reply.state)));
    let writer = Arc::new(Mutex::new(writer));
    let stop = Arc::new(Stop::default());
    signals.watch(stream.try_clone()?, writer.clone(), terminal.clone_handle());

    let mut out = std::io::stdout().lock();
    keyboard(
        stream.try_clone()?,
        writer,
        state.clone(),
        stop.clone(),
        keys,
    );
    let mut offered = false;
    while let Some((kind, payload)) = read_frame(&mut reader) {
        match kind {
            frame::OUTPUT | frame::SNAPSHOT => out.write_all(&payload)?,
            frame::STATE => {
                if let Ok(frame) = serde_json::from_slice::<StateFrame>(&payload) {
                    state.store(state_code(&frame.state), Ordering::SeqCst);
                    offered = false;
                    if frame.state != "LIVE" {
                        offer(&mut out, &frame.state, frame.exit_code)?;
                        offered = true;
                    }
                }
            }
            _ => {}
        }
        if kind == frame::SNAPSHOT && !offered && state.load(Ordering::SeqCst) != LIVE {
            offer(&mut out, &reply.state, reply.exit_code)?;
            offered = true;
        }
        out.flush()?;
    }
    let _ = stream.shutdown(std::net::Shutdown::Both);
    Ok(if stop.reattach.load(Ordering::SeqCst) {
        End::Reattach
    } else if stop.detached.load(Ordering::SeqCst) {
        End::Detached
    } else if stop.left.load(Ordering::SeqCst) {
        End::Left
    } else if signals.fired() {
        End::Signalled
    } else if let Some(ClientError::Ssh(failure)) = stream.failure() {
        End::ConnectionLost(failure.stderr)
    } else {
        End::ServerGone
    })
}

fn state_code(state: &str) -> u8 {
    match state {
        "LIVE" => LIVE,
        "RESUMABLE" => RESUMABLE,
        _ => DEAD,
    }
}

/// The one-key actions of a pane with no process, on its last line.
fn offer(out: &mut impl Write, state: &str, exit_code: Option<i32>) -> std::io::Result<()> {
    let exit = exit_code
        .map(|c| format!(" (exit {c})"))
        .unwrap_or_default();
    let action = if state == "RESUMABLE" {
        "resume"
    } else {
        "respawn"
    };
    write!(
        out,
        "\r\n\x1b[7m[{state}{exit}] r {action} · q leave\x1b[0m"
    )
}

fn handshake(
    reader: &mut BufReader<UnixStream>,
    writer: &mut UnixStream,
    pane: &str,
    (rows, cols): (u16, u16),
    options: Options,
) -> Result<AttachReply> {
    let request = Request {
        v: PROTOCOL.to_string(),
        id: 1,
        method: method::PANE_ATTACH.to_string(),
        params: serde_json::to_value(params::PaneAttach {
            pane: pane.to_string(),
            rows: Some(rows),
            cols: Some(cols),
            keep_attention: options.keep_attention,
        })?,
    };
    let mut line = serde_json::to_vec(&request)?;
    line.push(b'\n');
    writer.write_all(&line)?;
    let mut reply = Vec::new();
    reader.read_until(b'\n', &mut reply)?;
    let response: Response =
        serde_json::from_slice(&reply).map_err(|e| ClientError::Protocol(e.to_string()))?;
    if let Some(error) = response.error {
        return Err(ClientError::Server(error).into());
    }
    let result = response
        .result
        .ok_or_else(|| ClientError::Protocol("an attach reply without a result".into()))?;
    Ok(serde_json::from_value(result)?)
}

fn read_frame(reader: &mut impl Read) -> Option<(u8, Vec<u8>)> {
    let mut header = [0u8; frame::HEADER];
    reader.read_exact(&mut header).ok()?;
    let (kind, len) = frame::parse_header(header).ok()?;
    let mut payload = vec![0u8; len];
    reader.read_exact(&mut payload).ok()?;
    Some((kind, payload))
}

struct KeyContext {
    detach_key: u8,
    endpoint: Endpoint,
    pane: String,
}

/// Forwards keystrokes; the detach key ends the session, and a pane with
/// no process reads its one-key actions instead.
fn keyboard(
    stream: UnixStream,
    writer: Arc<Mutex<UnixStream>>,
    state: Arc<AtomicU8>,
    stop: Arc<Stop>,
    keys: KeyContext,
) {
    let spawned = std::thread::Builder::new()
        .name("attach-keys".into())
        .spawn(move || {
            let mut stdin = std::io::stdin().lock();
            let mut buf = [0u8; 4096];
            loop {
                let n = match stdin.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                let input = &buf[..n];
                if let Some(at) = input.iter().position(|&b| b == keys.detach_key) {
                    send(&writer, frame::INPUT, &input[..at]);
                    stop.detached.store(true, Ordering::SeqCst);
                    break;
                }
                match state.load(Ordering::SeqCst) {
                    LIVE => send(&writer, frame::INPUT, input),
                    current => match input.first() {
                        Some(b'q') => {
                            stop.left.store(true, Ordering::SeqCst);
                            break;
                        }
                        Some(b'r' | b'R') => {
                            let revive = if current == RESUMABLE {
                                method::PANE_RESUME
                            } else {
                                method::PANE_RESPAWN
                            };
                            match act(&keys, revive) {
                                Ok(()) => {
                                    stop.reattach.store(true, Ordering::SeqCst);
                                    break;
                                }
                                Err(e) => {
                                    let line = format!(
                                        "\r\n\x1b[31m{}\x1b[0m",
                                        e.to_string().replace('\n', " ")
                                    );
                                    let _ = std::io::stdout().write_all(line.as_bytes());
                                    let _ = std::io::stdout().flush();
                                }
                            }
                        }
                        _ => {}
                    },
                }
            }
            let _ = stream.shutdown(std::net::Shutdown::Both);
        });
    if let Err(e) = spawned {
        eprintln!("signaltty: could not read the keyboard: {e}");
    }
}

fn act(keys: &KeyContext, action: &str) -> Result<(), ClientError> {
    let mut client = Client::connect(&keys.endpoint)?;
    client.call(
        action,
        params::Pane {
            pane: keys.pane.clone(),
        },
    )?;
    Ok(())
}

fn send(writer: &Mutex<UnixStream>, kind: u8, payload: &[u8]) {
    if kind == frame::INPUT && payload.is_empty() {
        return;
    }
    if let Ok(mut writer) = writer.lock() {
        let _ = writer.write_all(&frame::encode(kind, payload));
    }
}

/// The terminal in raw mode; dropping it puts everything back.
struct RawTerminal {
    fd: i32,
    saved: libc::termios,
}

/// What the signal thread needs to read the size.
#[derive(Clone, Copy)]
struct TerminalHandle {
    fd: i32,
}

impl TerminalHandle {
    fn size(self) -> (u16, u16) {
        // SAFETY: TIOCGWINSZ fills a winsize we own.
        let mut size: libc::winsize = unsafe { std::mem::zeroed() };
        if unsafe { libc::ioctl(self.fd, libc::TIOCGWINSZ, &mut size) } == 0 && size.ws_row > 0 {
            (size.ws_row, size.ws_col)
        } else {
            (24, 80)
        }
    }
}

impl RawTerminal {
    fn enter() -> std::io::Result<RawTerminal> {
        let fd = std::io::stdin().as_raw_fd();
        // SAFETY: tcgetattr fills a termios we own; fd is stdin.
        let mut saved: libc::termios = unsafe { std::mem::zeroed() };
        if unsafe { libc::tcgetattr(fd, &mut saved) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let mut raw = saved;
        // SAFETY: cfmakeraw edits the termios we own.
        unsafe { libc::cfmakeraw(&mut raw) };
        // SAFETY: tcsetattr reads the termios we own.
        if unsafe { libc::tcsetattr(fd, libc::TCSANOW, &raw) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(RawTerminal { fd, saved })
    }

    fn size(&self) -> (u16, u16) {
        self.clone_handle().size()
    }

    fn clone_handle(&self) -> TerminalHandle {
        TerminalHandle { fd: self.fd }
    }
}

impl Drop for RawTerminal {
    fn drop(&mut self) {
        // The pane drew on this terminal directly (its own alternate-screen
        // switches included), so there is no picture of before to go back
        // to: leave any alternate screen, undo every mode a program may have
        // turned on (cursor keys, keypad, mouse, paste, focus), and clear.
        let reset = b"\x1b[0m\x1b[?1049l\x1b[?25h\x1b[?1l\x1b>\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1004l\x1b[?2004l\x1b[r\x1b[H\x1b[2J";
        let mut out = std::io::stdout();
        let _ = out.write_all(reset);
        let _ = out.flush();
        // SAFETY: tcsetattr reads the termios we saved.
        unsafe { libc::tcsetattr(self.fd, libc::TCSANOW, &self.saved) };
    }
}

/// SIGWINCH resizes the pane; SIGTERM, SIGHUP and SIGINT end the session
/// (and the terminal is given back by the guard's drop).
struct Signals {
    handle: signal_hook::iterator::Handle,
    fired: Arc<AtomicBool>,
    target: Arc<Mutex<Option<SignalTarget>>>,
}

/// The session a signal acts on: its socket, its writer, its terminal.
struct SignalTarget {
    stream: UnixStream,
    writer: Arc<Mutex<UnixStream>>,
    terminal: TerminalHandle,
}

impl Signals {
    fn install() -> Result<Signals> {
        let fired = Arc::new(AtomicBool::new(false));
        let target: Arc<Mutex<Option<SignalTarget>>> = Arc::new(Mutex::new(None));
        let mut signals = signal_hook::iterator::Signals::new([SIGWINCH, SIGTERM, SIGHUP, SIGINT])
            .context("could not watch for signals")?;
        let handle = signals.handle();
        let (fired_by_thread, target_of_thread) = (fired.clone(), target.clone());
        std::thread::Builder::new()
            .name("attach-signals".into())
            .spawn(move || {
                for signal in signals.forever() {
                    let Ok(guard) = target_of_thread.lock() else {
                        continue;
                    };
                    let Some(SignalTarget {
                        stream,
                        writer,
                        terminal,
                    }) = guard.as_ref()
                    else {
                        continue;
                    };
                    if signal == SIGWINCH {
                        let (rows, cols) = terminal.size();
                        if let Ok(mut w) = writer.lock() {
                            let _ = w.write_all(&frame::resize(rows, cols));
                        }
                    } else {
                        fired_by_thread.store(true, Ordering::SeqCst);
                        let _ = stream.shutdown(std::net::Shutdown::Both);
                    }
                }
            })?;
        Ok(Signals {
            handle,
            fired,
            target,
        })
    }

    fn watch(&self, stream: UnixStream, writer: Arc<Mutex<UnixStream>>, terminal: TerminalHandle) {
        if let Ok(mut target) = self.target.lock() {
            *target = Some(SignalTarget {
                stream,
                writer,
                terminal,
            });
        }
    }

    fn fired(&self) -> bool {
        self.fired.load(Ordering::SeqCst)
    }
}

impl Drop for Signals {
    fn drop(&mut self) {
        // Ends the signal thread's loop and restores default handling.
        self.handle.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detach_keys_parse() {
        assert_eq!(parse_key("C-]").unwrap(), 0x1d);
        assert_eq!(parse_key("^a").unwrap(), 1);
        assert_eq!(parse_key("ctrl-B").unwrap(), 2);
        assert!(parse_key("x").is_err());
        assert!(parse_key("C-1").is_err());
    }
}
