//! The IPC listener: accepts connections and runs one task per client,
//! which reads request lines, hands each to [`handlers::dispatch`] and
//! writes the reply it is given, or hands the connection to the stream a
//! request opened.
//!
//! A connection from another uid is refused (SO_PEERCRED). A client's bytes
//! are untrusted: a line that is not JSON gets an error response, a line
//! longer than [`MAX_LINE`] closes that connection, and neither can disturb
//! another client or the server. Connections, and the input they hold, are
//! bounded over all clients together (see [`crate::limits`]).

use std::os::fd::AsRawFd;
use std::os::unix::net::UnixListener as StdUnixListener;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use ractor::{Actor, ActorProcessingErr, ActorRef};
use signaltty_actors::snapshot::Change;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::task::JoinHandle;
use tracing::{Instrument, debug, info_span, warn};

use crate::connection::{Connection, client_gone};
use crate::ctx::Ctx;
use crate::handlers::{self, Answer, Reply};
use crate::limits::{ClientLimits, ConnectionSlot, HeldInput, MAX_CONNECTIONS, SMALL_INPUT};
use crate::listing::ListingCache;
use crate::messages::{ListenerMsg, ServerMsg};
use serde::Serialize;
use serde_json::value::RawValue;
use signaltty_protocol::{ErrorCode, MAX_LINE, PROTOCOL, Request, Response, WireError};

pub struct ListenerArgs {
    pub listener: StdUnixListener,
    pub server: ActorRef<ServerMsg>,
    pub socket_path: PathBuf,
    /// `ctl debug panic` is allowed (tests only).
    #[cfg(any(debug_assertions, feature = "fault-injection"))]
    pub faults_enabled: bool,
    pub changes: tokio::sync::broadcast::Sender<Change>,
    /// The model as the snapshot actor last published it.
    pub model: signaltty_actors::snapshot::read::ModelReader,
    /// Shared with the listener this one may replace.
    pub limits: ClientLimits,
    pub orphans: tokio::sync::watch::Receiver<crate::orphans::OrphanReport>,
    pub worktrees: Arc<crate::worktree::Worktrees>,
}

pub struct ListenerActor;

pub struct Listener {
    accept_loop: JoinHandle<()>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.accept_loop.abort();
    }
}

impl Actor for ListenerActor {
    type Msg = ListenerMsg;
    type State = Listener;
    type Arguments = ListenerArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<ListenerMsg>,
        args: ListenerArgs,
    ) -> Result<Listener, ActorProcessingErr> {
        args.listener.set_nonblocking(true)?;
        let listener = UnixListener::from_std(args.listener)?;
        let ctx = Arc::new(Ctx {
            server: args.server,
            #[cfg(any(debug_assertions, feature = "fault-injection"))]
            listener: myself.clone(),
            socket_path: args.socket_path,
            #[cfg(any(debug_assertions, feature = "fault-injection"))]
            faults_enabled: args.faults_enabled,
            changes: args.changes,
            model: args.model,
            listing: ListingCache::default(),
            orphans: args.orphans,
            worktrees: args.worktrees,
        });
        let accept_loop = tokio::spawn(accept_loop(listener, ctx, args.limits, myself));
        Ok(Listener { accept_loop })
    }

    async fn handle(
        &self,
        _myself: ActorRef<ListenerMsg>,
        msg: ListenerMsg,
        _state: &mut Listener,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            ListenerMsg::AcceptFailed(e) => Err(e.into()),
            #[cfg(any(debug_assertions, feature = "fault-injection"))]
            ListenerMsg::DebugPanic => panic!("fault injected into the listener"),
        }
    }
}

async fn accept_loop(
    listener: UnixListener,
    ctx: Arc<Ctx>,
    limits: ClientLimits,
    myself: ActorRef<ListenerMsg>,
) {
    static CONNECTIONS: AtomicU64 = AtomicU64::new(0);
    let mut refusing = false;
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                let Some(slot) = limits.connection() else {
                    if !std::mem::replace(&mut refusing, true) {
                        warn!("{MAX_CONNECTIONS} connections are open; refusing new ones");
                    }
                    if let Some(slot) = limits.refusal() {
                        tokio::spawn(refuse_busy(stream, slot));
                    }
                    continue;
                };
                refusing = false;
                let cid = CONNECTIONS.fetch_add(1, Ordering::Relaxed);
                let ctx = ctx.clone();
                let limits = limits.clone();
                tokio::spawn(serve(stream, ctx, limits, slot).instrument(info_span!("conn", cid)));
            }
            Err(e) if is_transient(&e) => {
                // Out of descriptors or a connection reset before accept:
                // wait a little rather than spin.
                warn!(error = %e, "accept failed; retrying");
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            Err(e) => {
                let _ = myself.cast(ListenerMsg::AcceptFailed(e.to_string()));
                return;
            }
        }
    }
}

fn is_transient(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(
            libc::EMFILE
                | libc::ENFILE
                | libc::ENOBUFS
                | libc::ENOMEM
                | libc::ECONNABORTED
                | libc::EINTR
        )
    )
}

/// Tells a client over [`MAX_CONNECTIONS`] why it is turned away: the
/// answer to its first request if it sends one within [`REFUSAL_GRACE`],
/// and the rest of what it sends is read and dropped (briefly), so that it
/// sees the reason rather than a broken pipe.
async fn refuse_busy(stream: UnixStream, _slot: ConnectionSlot) {
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    let id = tokio::time::timeout(REFUSAL_GRACE, first_request_id(&mut read))
        .await
        .ok()
        .flatten();
    let response = Response::err(
        id,
        WireError::new(
            ErrorCode::Busy,
            format!(
                "the server already serves {MAX_CONNECTIONS} connections; close some clients \
                 (attach, ui) and try again"
            ),
        ),
    );
    let refused = async {
        write_line(&mut write, &response).await?;
        let mut sink = [0u8; 4096];
        while read.read(&mut sink).await? > 0 {}
        Ok::<(), std::io::Error>(())
    };
    let _ = tokio::time::timeout(REFUSAL_GRACE, refused).await;
}

/// How long a refused client has to send its request, and then to read
/// the answer.
const REFUSAL_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// The id of the request on the first line, if that line is short.
async fn first_request_id(read: &mut BufReader<tokio::net::unix::OwnedReadHalf>) -> Option<u64> {
    let mut line = Vec::new();
    (&mut *read)
        .take(SMALL_INPUT as u64)
        .read_until(b'\n', &mut line)
        .await
        .ok()?;
    let value: serde_json::Value = serde_json::from_slice(&line).ok()?;
    value.get("id").and_then(serde_json::Value::as_u64)
}

/// Serves one client; `_slot` is its place among the connections, given
/// back when it leaves.
async fn serve(mut stream: UnixStream, ctx: Arc<Ctx>, limits: ClientLimits, _slot: ConnectionSlot) {
    match stream.peer_cred() {
        // SAFETY: getuid(2) cannot fail.
        Ok(cred) if cred.uid() == unsafe { libc::getuid() } => {}
        Ok(cred) => {
            warn!(uid = cred.uid(), "refused a connection from another user");
            // One line saying why, so the refused client need not guess
            // from a closed connection. A fresh socket's buffer takes it
            // without waiting.
            let refusal = Response::err(
                None,
                WireError::new(
                    ErrorCode::Refused,
                    "this signaltty server serves only the user who started it; \
                     start your own with `signaltty up -d`",
                ),
            );
            if let Ok(mut line) = serde_json::to_vec(&refusal) {
                line.push(b'\n');
                let _ = stream.write_all(&line).await;
            }
            return;
        }
        Err(e) => {
            warn!(error = %e, "could not read the peer's credentials; refused");
            return;
        }
    }
    let (read, writer) = stream.into_split();
    let mut conn = Connection {
        reader: BufReader::new(read),
        writer,
        limits,
    };
    loop {
        // The line's bytes count against every client's budget until its
        // request has been answered.
        let mut held = HeldInput::default();
        let line = match read_line(&mut conn.reader, &conn.limits, &mut held).await {
            Ok(Some(line)) => line,
            Ok(None) => return,
            Err(LineError::Busy(e)) => {
                let response = Response::err(None, WireError::new(ErrorCode::Busy, e.to_string()));
                let _ = write_line(&mut conn.writer, &response).await;
                return;
            }
            Err(LineError::TooLong) => {
                let response = Response::err(
                    None,
                    WireError::new(
                        ErrorCode::LineTooLong,
                        format!(
                            "a request line may be at most {MAX_LINE} bytes; the connection is closed"
                        ),
                    ),
                );
                let _ = write_line(&mut conn.writer, &response).await;
                return;
            }
            Err(LineError::Io(e)) => {
                debug!(error = %e, "connection read failed");
                return;
            }
        };
        let parsed = Request::parse(&line);
        drop(line);
        let Request { id, call, .. } = match parsed {
            Ok(request) => request,
            Err(response) => {
                if write_line(&mut conn.writer, &response).await.is_err() {
                    return;
                }
                continue;
            }
        };
        let answer = match handlers::dispatch(&ctx, call).await {
            Reply::Unary(answer) => answer,
            Reply::Pending(answer) => tokio::select! {
                answer = answer => answer,
                () = client_gone(&mut conn.reader) => return,
            },
            Reply::Stream(Ok((reply, stream))) => {
                // For as long as the stream lasts: no longer held.
                drop(held);
                if write_line(&mut conn.writer, &Response::ok(id, reply))
                    .await
                    .is_ok()
                {
                    stream.serve(conn).await;
                }
                return;
            }
            Reply::HandOver(params) => {
                let caller = crate::handover::state::Caller {
                    fd: conn.writer.as_ref().as_raw_fd(),
                    request: id,
                    // Every other one drops at the exec, and its client
                    // reconnects by itself.
                    other_connections: conn.limits.open().saturating_sub(1),
                };
                Err(handlers::server::upgrade(&ctx, params, caller).await)
            }
            Reply::Stream(Err(error)) => {
                let _ = write_line(&mut conn.writer, &Response::err(Some(id), error)).await;
                return;
            }
        };
        if write_answer(&mut conn.writer, id, answer).await.is_err() {
            return;
        }
    }
}

async fn write_answer(
    write: &mut tokio::net::unix::OwnedWriteHalf,
    id: u64,
    answer: Result<Answer, WireError>,
) -> std::io::Result<()> {
    match answer {
        Ok(Answer::Value(result)) => write_line(write, &Response::ok(id, result)).await,
        Ok(Answer::Serialized(result)) => {
            let response = Serialized {
                v: PROTOCOL,
                id,
                result: &result,
            };
            write_line(write, &response).await
        }
        Err(error) => write_line(write, &Response::err(Some(id), error)).await,
    }
}

/// A successful `Response` whose result is serialized already.
#[derive(Serialize)]
struct Serialized<'a> {
    v: &'a str,
    id: u64,
    result: &'a RawValue,
}

/// Writes one JSON line.
async fn write_line(
    write: &mut tokio::net::unix::OwnedWriteHalf,
    line: &impl Serialize,
) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec(line).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    write.write_all(&bytes).await
}

enum LineError {
    TooLong,
    Busy(crate::limits::InputBudgetExhausted),
    Io(std::io::Error),
}

/// Reads one line without ever holding more than [`MAX_LINE`] bytes, and
/// only as much as `limits` lets `held` hold.
async fn read_line<R: tokio::io::AsyncBufRead + Unpin>(
    reader: &mut R,
    limits: &ClientLimits,
    held: &mut HeldInput,
) -> Result<Option<Vec<u8>>, LineError> {
    let mut line = Vec::new();
    loop {
        let available = reader.fill_buf().await.map_err(LineError::Io)?;
        if available.is_empty() {
            // EOF: a last line without a newline still counts.
            return Ok((!line.is_empty()).then_some(line));
        }
        // memchr: a search byte by byte, in an unoptimized build, holds a
        // worker thread back for long on a 16 MiB line.
        let (chunk, done) = match memchr::memchr(b'\n', available) {
            Some(i) => (&available[..i], true),
            None => (available, false),
        };
        let needed = line.len() + chunk.len();
        if needed > MAX_LINE {
            return Err(LineError::TooLong);
        }
        if needed > line.capacity() {
            // Grow by doubling, as a Vec would, but count what is allocated.
            let capacity = needed.max(line.capacity() * 2).min(MAX_LINE);
            limits.hold(held, capacity).map_err(LineError::Busy)?;
            line.reserve_exact(capacity - line.len());
        }
        line.extend_from_slice(chunk);
        let consumed = chunk.len() + usize::from(done);
        reader.consume(consumed);
        if done {
            return Ok(Some(line));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_are_split_and_bounded() {
        let limits = ClientLimits::default();
        let mut held = HeldInput::default();
        let data: &[u8] = b"one\ntwo\nthree";
        let mut reader = BufReader::new(data);
        let mut next = async || read_line(&mut reader, &limits, &mut held).await;
        assert_eq!(next().await.ok().flatten().unwrap(), b"one");
        assert_eq!(next().await.ok().flatten().unwrap(), b"two");
        assert_eq!(next().await.ok().flatten().unwrap(), b"three");
        assert!(matches!(next().await, Ok(None)));

        let huge = vec![b'x'; MAX_LINE + 1];
        let mut reader = BufReader::new(huge.as_slice());
        let mut held = HeldInput::default();
        assert!(matches!(
            read_line(&mut reader, &limits, &mut held).await,
            Err(LineError::TooLong)
        ));
    }

    #[tokio::test]
    async fn unfinished_lines_of_all_clients_share_one_budget() {
        use crate::limits::MAX_HELD_INPUT;
        let limits = ClientLimits::default();
        let line = vec![b'x'; MAX_HELD_INPUT * 3 / 8];
        let read = async |held: &mut HeldInput| {
            let mut reader = BufReader::new(line.as_slice());
            read_line(&mut reader, &limits, held).await
        };
        let mut first = HeldInput::default();
        let mut second = HeldInput::default();
        assert!(read(&mut first).await.is_ok());
        assert!(first.bytes() >= line.len(), "what is held is counted");
        assert!(read(&mut second).await.is_ok());
        let mut third = HeldInput::default();
        assert!(matches!(read(&mut third).await, Err(LineError::Busy(_))));
        drop(first);
        let mut fourth = HeldInput::default();
        assert!(read(&mut fourth).await.is_ok(), "room again once answered");
    }
}
