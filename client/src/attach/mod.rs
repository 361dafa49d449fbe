//! `signaltty attach PANE`: this terminal shows a pane, exactly.
//!
//! The server sends a snapshot that repaints the screen, then the pane's
//! output from exactly where that snapshot ends. While output pours faster
//! than anyone reads it (over 16 KiB in a 16 ms frame), the server sends a
//! fresh picture of the screen at most once a frame instead of the bytes
//! (`CatchUp::Screen`, as the multiplexer and tmux's client are served),
//! pictures alone while it lasts, and the bytes again once it calms: a
//! flood costs this side and its terminal ~60 pictures a second rather
//! than every byte, while ordinary output still lands in the terminal's
//! own scrollback. `--every-byte`
//! asks for every byte even then (`CatchUp::Exact`). This side puts the
//! terminal in raw mode, forwards keystrokes and size changes, and gives
//! the terminal back in order (raw mode off, every mode reset, the screen
//! cleared) on every way out: the detach key, the server going away, a
//! signal, a panic.
//!
//! When the server upgrades itself in place (`signaltty upgrade`), the
//! connection drops and the same server answers again within a second:
//! this side attaches the same pane again, whose first snapshot repaints
//! the screen (keys typed in between may be lost). Another server, or
//! none, ends the attach as before (see `crate::reconnect`).
//!
//! A pane with no process (RESTORED, RESUMABLE, EXITED) shows its history
//! and offers what the server says bringing it back runs, in one key: `r`
//! runs it, `q` leaves.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::net::UnixStream;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, bail};
use signal_hook::consts::SIGWINCH;
use signaltty_protocol::{CatchUp, PaneState, Revive, ReviveAction, StateFrame, frame, params};

mod keyboard;

use self::keyboard::{KeyRoute, Keyboard};
use crate::client::{Client, ClientError, Connection, Endpoint, connect_stream};
use crate::reconnect::{AfterDrop, UpgradeWatch, is_dropped};
use crate::term::{RawTerminal, SignalGuard, TerminalHandle, watch_signals};
use signaltty_screen::{KeyEvent, Modes, decode_key};

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
    /// Every byte of a flood is written into the terminal, not pictures.
    pub every_byte: bool,
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
fn attach_loop(endpoint: &Endpoint, pane: &str, options: Options) -> Result<End> {
    // Connected before the terminal goes raw: ssh may have to ask for a
    // password or about a host key, and its errors must read as written.
    let connection = connect_stream(endpoint)?;
    let watch = UpgradeWatch::start(endpoint)?;
    let terminal = RawTerminal::enter().context("attach needs a terminal on stdin")?;
    let signals = Signals::install(terminal.handle())?;
    // Across reattaches: the next session's first picture pops what this
    // one pushed before pushing the pane's modes again.
    let mut keyboard = Keyboard::new(terminal.keyboard_undo());
    let unsent = Arc::new(Mutex::new(Vec::new()));
    run_sessions(endpoint, connection, watch, |stream| {
        let keys = KeyContext {
            detach_key: options.detach_key,
            endpoint: endpoint.clone(),
            pane: pane.to_string(),
            unsent: unsent.clone(),
        };
        session(stream, keys, options, &terminal, &signals, &mut keyboard)
    })
}

/// Runs `session` on `first`, then on a new connection each time the pane
/// must be attached again: after a revive, and after an upgrade of the
/// server (`watch` tells one from a crash; the same pane with the same
/// options, whose first snapshot repaints the screen). Ends with the first
/// session that ends otherwise; a server of another version that took over
/// is an error that says so.
fn run_sessions(
    endpoint: &Endpoint,
    first: Connection,
    mut watch: Option<UpgradeWatch>,
    mut session: impl FnMut(Connection) -> Result<End>,
) -> Result<End> {
    let mut connection = Some(first);
    loop {
        let stream = match connection.take() {
            Some(stream) => stream,
            None => connect_stream(endpoint)?,
        };
        // `Some`: the connection dropped in the handshake, with that error.
        let dropped = match session(stream) {
            Ok(End::Reattach) => continue,
            Ok(End::ServerGone) => None,
            Ok(other) => return Ok(other),
            Err(error) if error.downcast_ref::<ClientError>().is_some_and(is_dropped) => {
                Some(error)
            }
            Err(error) => return Err(error),
        };
        match watch.as_mut().map(UpgradeWatch::after_drop) {
            Some(AfterDrop::Upgraded) => {}
            Some(AfterDrop::OtherVersion(refusal)) => {
                return Err(ClientError::Server(refusal).into());
            }
            Some(AfterDrop::Gone) | None => return dropped.map_or(Ok(End::ServerGone), Err),
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
enum End {
    Detached,
    Left,
    ServerGone,
    Signalled,
    /// A remote connection failed: what ssh said.
    ConnectionLost(String),
    /// An action (resume, respawn) worked: attach again for a fresh picture.
    Reattach,
}

/// Why the keyboard side stopped the session, and whether it is over.
#[derive(Debug, Default)]
struct Stop {
    detached: AtomicBool,
    left: AtomicBool,
    reattach: AtomicBool,
    /// The session's frames ended: its keyboard thread must end too,
    /// leaving the next session's keys to the next session's thread.
    over: AtomicBool,
}

/// What the keyboard needs to know about the pane: whether it runs, and
/// if not, what `r` brings back.
#[derive(Debug, Default)]
struct PaneNow {
    live: AtomicBool,
    revive: Mutex<Option<Revive>>,
}

impl PaneNow {
    fn set(&self, live: bool, revive: Option<Revive>) {
        self.live.store(live, Ordering::SeqCst);
        if let Ok(mut slot) = self.revive.lock() {
            *slot = revive;
        }
    }

    fn revive(&self) -> Option<Revive> {
        self.revive.lock().ok().and_then(|r| r.clone())
    }
}

fn session(
    connection: Connection,
    mut keys: KeyContext,
    options: Options,
    terminal: &RawTerminal,
    signals: &Signals,
    keyboard: &mut Keyboard,
) -> Result<End> {
    let (rows, cols) = terminal.size();
    let mut attached = crate::stream::attach(
        connection,
        params::PaneAttach {
            pane: keys.pane.clone().into(),
            rows: Some(rows),
            cols: Some(cols),
            keep_attention: options.keep_attention,
            catch_up: if options.every_byte {
                CatchUp::Exact
            } else {
                CatchUp::Screen
            },
        },
    )?;
    let reply = attached.reply;
    let stream = attached.writer.try_clone()?;
    keys.pane = reply.pane.clone();
    let now = Arc::new(PaneNow::default());
    now.set(reply.state == PaneState::Live, reply.revive.clone());
    let writer = Arc::new(Mutex::new(stream.try_clone()?));
    let stop = Arc::new(Stop::default());
    signals.watch(stream.try_clone()?, writer.clone());
    let carried = (keys.unsent.lock())
        .map(|mut unsent| std::mem::take(&mut *unsent))
        .unwrap_or_default();
    send_keys(&writer, &keys.unsent, &carried);

    let mut out = std::io::stdout().lock();
    keyboard.attached(reply.shift_enter_as);
    let reading_keys = read_keys(
        stream.try_clone()?,
        writer,
        now.clone(),
        stop.clone(),
        keys,
        keyboard.route(),
    );
    let mut shown: Option<(PaneState, Option<i32>)> = Some((reply.state, reply.exit_code));
    while let Some((kind, payload)) = crate::stream::read_frame(&mut attached.reader) {
        match kind {
            frame::OUTPUT => keyboard.output(&mut out, &payload)?,
            frame::SNAPSHOT => keyboard.picture(&mut out, &payload)?,
            frame::STATE => {
                if let Ok(frame) = serde_json::from_slice::<StateFrame>(&payload) {
                    keyboard.shift_enter_as(&mut out, frame.shift_enter_as)?;
                    now.set(frame.state == PaneState::Live, frame.revive.clone());
                    shown = Some((frame.state, frame.exit_code));
                    if !now.live.load(Ordering::SeqCst) {
                        offer(&mut out, &shown, now.revive().as_ref())?;
                    }
                }
            }
            _ => {}
        }
        if kind == frame::SNAPSHOT && !now.live.load(Ordering::SeqCst) {
            offer(&mut out, &shown, now.revive().as_ref())?;
        }
        out.flush()?;
    }
    let _ = stream.shutdown(std::net::Shutdown::Both);
    stop.over.store(true, Ordering::SeqCst);
    if let Some(thread) = reading_keys {
        // It sees `over` within a poll's wait; a panic there is its own.
        let _ = thread.join();
    }
    Ok(if stop.reattach.load(Ordering::SeqCst) {
        End::Reattach
    } else if stop.detached.load(Ordering::SeqCst) {
        End::Detached
    } else if stop.left.load(Ordering::SeqCst) {
        End::Left
    } else if signals.fired() {
        End::Signalled
    } else if let Some(ClientError::Ssh(failure)) = attached.connection.failure() {
        End::ConnectionLost(failure.stderr)
    } else {
        End::ServerGone
    })
}

/// The one-key actions of a pane with no process, on its last line:
/// what `r` runs, as the server said.
fn offer(
    out: &mut impl Write,
    shown: &Option<(PaneState, Option<i32>)>,
    revive: Option<&Revive>,
) -> std::io::Result<()> {
    let (state, exit_code) = match shown {
        Some((state, code)) => (state.as_str(), *code),
        None => ("", None),
    };
    let exit = exit_code
        .map(|c| format!(" (exit {c})"))
        .unwrap_or_default();
    let action = match revive {
        Some(revive) => format!("r {} · ", revive.describe()),
        None => String::new(),
    };
    write!(out, "\r\n\x1b[7m[{state}{exit}] {action}q leave\x1b[0m")
}

struct KeyContext {
    detach_key: u8,
    endpoint: Endpoint,
    pane: String,
    /// Keys a session could not send because its connection had just
    /// closed (an upgrade's exec): the next session sends them first.
    unsent: Arc<Mutex<Vec<u8>>>,
}

/// The most keys kept for the next session: typing, not a paste's worth.
const UNSENT_BOUND: usize = 64 << 10;

/// Forwards keystrokes until the session is over; the detach key ends the
/// session, and a pane with no process reads its one-key actions instead.
fn read_keys(
    stream: UnixStream,
    writer: Arc<Mutex<UnixStream>>,
    now: Arc<PaneNow>,
    stop: Arc<Stop>,
    keys: KeyContext,
    route: Arc<KeyRoute>,
) -> Option<std::thread::JoinHandle<()>> {
    let spawned = std::thread::Builder::new()
        .name("attach-keys".into())
        .spawn(move || {
            // Unbuffered, so that waiting on the descriptor sees every
            // byte not read yet (std's stdin would hold some back).
            let Ok(mut stdin) = std::io::stdin()
                .as_fd()
                .try_clone_to_owned()
                .map(File::from)
            else {
                eprintln!("signaltty: could not read the keyboard");
                return;
            };
            let mut buf = [0u8; 4096];
            let mut paste = false;
            loop {
                if !keys_before_end(&stdin, &stop.over) {
                    break;
                }
                let n = match stdin.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                let input = &buf[..n];
                if let Some(at) = detach_at(input, keys.detach_key) {
                    send(
                        &writer,
                        frame::INPUT,
                        &route.encode(&input[..at], &mut paste),
                    );
                    stop.detached.store(true, Ordering::SeqCst);
                    break;
                }
                if now.live.load(Ordering::SeqCst) {
                    send_keys(&writer, &keys.unsent, &route.encode(input, &mut paste));
                    continue;
                }
                match input.first() {
                    Some(b'q') => {
                        stop.left.store(true, Ordering::SeqCst);
                        break;
                    }
                    Some(b'r' | b'R') => {
                        let Some(revive) = now.revive() else {
                            continue;
                        };
                        match act(&keys, revive.action) {
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
                }
            }
            let _ = stream.shutdown(std::net::Shutdown::Both);
        });
    spawned
        .inspect_err(|e| eprintln!("signaltty: could not read the keyboard: {e}"))
        .ok()
}

/// How long the keyboard thread waits for keys before it looks again
/// whether its session is over.
const KEY_POLL_MS: libc::c_int = 50;

/// Waits until `stdin` has bytes to read (true) or `over` is set (false).
/// Not a blocking read: a session that ended (the server upgraded) must
/// not keep a thread that takes the next session's first keys.
fn keys_before_end(stdin: &File, over: &AtomicBool) -> bool {
    let mut stdin = libc::pollfd {
        fd: stdin.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    while !over.load(Ordering::SeqCst) {
        // SAFETY: one valid pollfd, alive for the whole call.
        let ready = unsafe { libc::poll(&mut stdin, 1, KEY_POLL_MS) };
        // Ready, or an error (EINTR aside) that the read then reports.
        if ready > 0
            || (ready < 0
                && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted)
        {
            return true;
        }
    }
    false
}

/// The longest parameters of a key sequence the detach key is looked for
/// in (`CSI 93 ; 5 : 1 u` and kitty's extra fields fit).
const MAX_KEY_SEQUENCE: usize = 32;

/// Where the detach key starts in `input`: its byte, or the kitty
/// protocol's or modifyOtherKeys' form of it (`C-]` as `CSI 93 ; 5 u`)
/// once the pane asked the terminal for one.
fn detach_at(input: &[u8], detach_key: u8) -> Option<usize> {
    let byte = input.iter().position(|&b| b == detach_key);
    let modern = (0..input.len())
        .filter(|&at| input[at..].starts_with(b"\x1b["))
        .find(|&at| {
            // A key's sequence is short: looking no further keeps a read
            // full of `ESC [` linear.
            let params = &input[at + 2..input.len().min(at + 2 + MAX_KEY_SEQUENCE)];
            let Some(end) = params.iter().position(|b| (0x40..=0x7e).contains(b)) else {
                return false;
            };
            match decode_key(&input[at..at + 2 + end + 1]) {
                Some(KeyEvent::Press(press)) => press.encode(&Modes::default()) == [detach_key],
                _ => false,
            }
        });
    byte.into_iter().chain(modern).min()
}

fn act(keys: &KeyContext, action: ReviveAction) -> Result<(), ClientError> {
    let mut client = Client::connect(&keys.endpoint)?;
    client.call(action.call(keys.pane.clone()))?;
    Ok(())
}

fn send(writer: &Mutex<UnixStream>, kind: u8, payload: &[u8]) {
    let _ = try_send(writer, kind, payload);
}

/// Keys for the pane; kept in `unsent` (up to [`UNSENT_BOUND`]) when the
/// connection refuses them, for the session after a reconnect.
fn send_keys(writer: &Mutex<UnixStream>, unsent: &Mutex<Vec<u8>>, keys: &[u8]) {
    if try_send(writer, frame::INPUT, keys).is_err()
        && let Ok(mut unsent) = unsent.lock()
        && unsent.len() + keys.len() <= UNSENT_BOUND
    {
        unsent.extend_from_slice(keys);
    }
}

fn try_send(writer: &Mutex<UnixStream>, kind: u8, payload: &[u8]) -> std::io::Result<()> {
    if kind == frame::INPUT && payload.is_empty() {
        return Ok(());
    }
    match writer.lock() {
        Ok(mut writer) => writer.write_all(&frame::encode(kind, payload)),
        Err(_) => Err(std::io::ErrorKind::BrokenPipe.into()),
    }
}

/// SIGWINCH resizes the pane; SIGTERM, SIGHUP and SIGINT end the session
/// (and the terminal is given back by the guard's drop).
struct Signals {
    _guard: SignalGuard,
    fired: Arc<AtomicBool>,
    target: Arc<Mutex<Option<SignalTarget>>>,
}

/// The session a signal acts on: its socket and its writer.
struct SignalTarget {
    stream: UnixStream,
    writer: Arc<Mutex<UnixStream>>,
}

impl Signals {
    fn install(terminal: TerminalHandle) -> Result<Signals> {
        let fired = Arc::new(AtomicBool::new(false));
        let target: Arc<Mutex<Option<SignalTarget>>> = Arc::new(Mutex::new(None));
        let (fired_by_thread, target_of_thread) = (fired.clone(), target.clone());
        let guard = watch_signals(move |signal| {
            let Ok(guard) = target_of_thread.lock() else {
                return;
            };
            let Some(SignalTarget { stream, writer }) = guard.as_ref() else {
                return;
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
        })
        .context("could not watch for signals")?;
        Ok(Signals {
            _guard: guard,
            fired,
            target,
        })
    }

    fn watch(&self, stream: UnixStream, writer: Arc<Mutex<UnixStream>>) {
        if let Ok(mut target) = self.target.lock() {
            *target = Some(SignalTarget { stream, writer });
        }
    }

    fn fired(&self) -> bool {
        self.fired.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake_server::{self, FakeServer, OTHER_VERSION, Then, within};
    use signaltty_protocol::Call;
    use std::time::Duration;

    #[test]
    fn keys_a_closed_connection_refuses_are_kept_for_the_next_session_within_a_bound() {
        let (ours, theirs) = UnixStream::pair().expect("a socket pair");
        drop(theirs);
        let (closed, unsent) = (Mutex::new(ours), Mutex::new(Vec::new()));
        send_keys(&closed, &unsent, b"ls\r");
        assert_eq!(*unsent.lock().unwrap(), b"ls\r");
        send_keys(&closed, &unsent, &vec![b'x'; UNSENT_BOUND]);
        assert_eq!(unsent.lock().unwrap().len(), 3, "past the bound: dropped");
        // An open connection takes them, and nothing more is kept.
        let (ours, mut theirs) = UnixStream::pair().expect("a socket pair");
        send_keys(&Mutex::new(ours), &unsent, b"a");
        let mut frame = [0u8; 64];
        let n = theirs.read(&mut frame).expect("the frame");
        assert!(frame[..n].ends_with(b"a"), "{:?}", &frame[..n]);
        assert_eq!(unsent.lock().unwrap().len(), 3);
    }

    #[test]
    fn the_detach_key_is_found_in_every_encoding() {
        assert_eq!(detach_at(b"ls\x1d", 0x1d), Some(2));
        assert_eq!(detach_at(b"ls\x1b[93;5u", 0x1d), Some(2));
        assert_eq!(detach_at(b"\x1b[93;5:1u", 0x1d), Some(0));
        assert_eq!(detach_at(b"x\x1b[27;5;93~", 0x1d), Some(1));
        assert_eq!(detach_at(b"\x1b[93;5:3u", 0x1d), None, "a release");
        assert_eq!(detach_at(b"\x1b[93u\x1b[13;2u\x1b[", 0x1d), None);
        assert_eq!(detach_at(b"\x1b[98;5u", 0x02), Some(0));
        let flood = b"\x1b[".repeat(2000);
        assert_eq!(detach_at(&flood, 0x1d), None);
    }

    /// `attach` without its terminal: the sessions of [`run_sessions`]
    /// against a fake server that hands over `then` while the first one is
    /// attached. Each session attaches to `p1` and reads its frames; the
    /// second one ends (as a detach) at its first picture. Gives how it
    /// ended, the pictures shown, and the server's requests.
    fn attach_across(then: Then) -> (Result<End>, Vec<String>, Vec<fake_server::Asked>) {
        let server = FakeServer::start();
        let endpoint = server.endpoint();
        let attaching = std::thread::spawn(move || {
            let mut pictures = Vec::new();
            let first = connect_stream(&endpoint)?;
            let watch = UpgradeWatch::start(&endpoint)?
                .map(|watch| watch.with_patience(Duration::from_millis(300)));
            let mut sessions = 0;
            let end = run_sessions(&endpoint, first, watch, |connection| {
                sessions += 1;
                let request = params::PaneAttach {
                    pane: "p1".to_string().into(),
                    rows: Some(30),
                    cols: Some(100),
                    keep_attention: false,
                    catch_up: CatchUp::Screen,
                };
                let mut attached = crate::stream::attach(connection, request)?;
                while let Some((kind, payload)) = crate::stream::read_frame(&mut attached.reader) {
                    if kind == frame::SNAPSHOT {
                        pictures.push(String::from_utf8_lossy(&payload).into_owned());
                        if sessions > 1 {
                            return Ok(End::Detached);
                        }
                    }
                }
                Ok(End::ServerGone)
            });
            end.map(|end| (end, pictures))
        });
        server.wait_for_call("pane.attach", false);
        server.hand_over(then);
        let (end, pictures) = match within(move || attaching.join().expect("no panic")) {
            Ok((end, pictures)) => (Ok(end), pictures),
            Err(e) => (Err(e), Vec::new()),
        };
        if then == Then::Upgraded {
            // Logged just after its answer, which the client may beat.
            server.wait_for_call("pane.attach", true);
        }
        (end, pictures, server.asked())
    }

    fn attaches(asked: &[fake_server::Asked]) -> Vec<(bool, String, Option<u16>, Option<u16>)> {
        asked
            .iter()
            .filter_map(|a| match &a.call {
                Call::PaneAttach(p) => Some((a.after_handover, p.pane.to_string(), p.rows, p.cols)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn an_upgrade_attaches_the_same_pane_again_and_repaints() {
        let (end, pictures, asked) = attach_across(Then::Upgraded);
        assert_eq!(end.expect("no error"), End::Detached);
        assert_eq!(pictures, ["picture 0", "picture 1"]);
        assert_eq!(
            attaches(&asked),
            [
                (false, "p1".to_string(), Some(30), Some(100)),
                (true, "p1".to_string(), Some(30), Some(100)),
            ]
        );
    }

    #[test]
    fn a_crash_ends_the_attach_as_before() {
        let (end, pictures, asked) = attach_across(Then::Crashed);
        assert_eq!(end.expect("no error"), End::ServerGone);
        assert_eq!(pictures, ["picture 0"]);
        assert_eq!(attaches(&asked).len(), 1, "{asked:?}");
    }

    #[test]
    fn another_version_after_the_drop_is_its_one_line() {
        let (end, _, asked) = attach_across(Then::OtherVersion);
        let error = end.expect_err("an error");
        match error.downcast_ref::<ClientError>() {
            Some(ClientError::Server(refusal)) => assert_eq!(refusal.message, OTHER_VERSION),
            _ => panic!("{error:#}"),
        }
        assert_eq!(attaches(&asked).len(), 1, "{asked:?}");
    }

    #[test]
    fn detach_keys_parse() {
        assert_eq!(parse_key("C-]").unwrap(), 0x1d);
        assert_eq!(parse_key("^a").unwrap(), 1);
        assert_eq!(parse_key("ctrl-B").unwrap(), 2);
        assert!(parse_key("x").is_err());
        assert!(parse_key("C-1").is_err());
    }
}
