//! The IPC listener: accepts connections and runs one task per client.
//!
//! A connection from another uid is refused (SO_PEERCRED). A client's bytes
//! are untrusted: a line that is not JSON gets an error response, a line
//! longer than [`MAX_LINE`] closes that connection, and neither can disturb
//! another client or the server.

use std::os::unix::net::UnixListener as StdUnixListener;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use ractor::{Actor, ActorProcessingErr, ActorRef};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::task::JoinHandle;
use tracing::{Instrument, debug, info_span, warn};

use crate::attach;
use crate::handlers::{self, Ctx};
use crate::server::ServerMsg;
use signaltty_protocol::{
    ErrorCode, Event, MAX_LINE, PROTOCOL, Request, Response, WireError, method,
};

pub struct ListenerArgs {
    pub listener: StdUnixListener,
    pub server: ActorRef<ServerMsg>,
    pub socket_path: PathBuf,
    pub faults_enabled: bool,
    pub changes: tokio::sync::broadcast::Sender<()>,
}

pub enum ListenerMsg {
    /// The accept loop ended with an error: fail, so the server restarts us.
    AcceptFailed(String),
    /// Fault injection: panic inside this handler.
    DebugPanic,
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
            listener: myself.clone(),
            socket_path: args.socket_path,
            faults_enabled: args.faults_enabled,
            changes: args.changes,
        });
        let accept_loop = tokio::spawn(accept_loop(listener, ctx, myself));
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
            ListenerMsg::DebugPanic => panic!("fault injected into the listener"),
        }
    }
}

async fn accept_loop(listener: UnixListener, ctx: Arc<Ctx>, myself: ActorRef<ListenerMsg>) {
    static CONNECTIONS: AtomicU64 = AtomicU64::new(0);
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                let cid = CONNECTIONS.fetch_add(1, Ordering::Relaxed);
                let ctx = ctx.clone();
                tokio::spawn(serve(stream, ctx).instrument(info_span!("conn", cid)));
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

async fn serve(stream: UnixStream, ctx: Arc<Ctx>) {
    match stream.peer_cred() {
        // SAFETY: getuid(2) cannot fail.
        Ok(cred) if cred.uid() == unsafe { libc::getuid() } => {}
        Ok(cred) => {
            warn!(uid = cred.uid(), "refused a connection from another user");
            return;
        }
        Err(e) => {
            warn!(error = %e, "could not read the peer's credentials; refused");
            return;
        }
    }
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    loop {
        let line = match read_line(&mut reader).await {
            Ok(Some(line)) => line,
            Ok(None) => return,
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
                let _ = write_response(&mut write, &response).await;
                return;
            }
            Err(LineError::Io(e)) => {
                debug!(error = %e, "connection read failed");
                return;
            }
        };
        let request = match parse_request(&line) {
            Ok(request) => request,
            Err(response) => {
                if write_response(&mut write, &response).await.is_err() {
                    return;
                }
                continue;
            }
        };
        if request.method == method::PANE_ATTACH {
            return attach::serve(reader, write, request).await;
        }
        if request.method == method::SUBSCRIBE {
            return follow_changes(write, request.id, ctx.changes.subscribe()).await;
        }
        let id = request.id;
        let dispatched = handlers::dispatch(&ctx, &request.method, request.params);
        let result = if request.method == method::PANE_WAIT {
            // A wait may last for ever: give it up as soon as its client
            // is gone, so that the pane forgets the waiter at once.
            tokio::select! {
                result = dispatched => result,
                () = client_gone(&mut reader) => return,
            }
        } else {
            dispatched.await
        };
        let response = match result {
            Ok(result) => Response::ok(id, result),
            Err(error) => Response::err(Some(id), error),
        };
        if write_response(&mut write, &response).await.is_err() {
            return;
        }
    }
}

/// Resolves when the client closes the connection (or its writing half);
/// never, if it sends another request instead (that one is read after).
async fn client_gone(reader: &mut BufReader<tokio::net::unix::OwnedReadHalf>) {
    match reader.fill_buf().await {
        Ok(pending) if !pending.is_empty() => std::future::pending().await,
        _ => {}
    }
}

async fn write_response(
    write: &mut tokio::net::unix::OwnedWriteHalf,
    response: &Response,
) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec(response).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    write.write_all(&bytes).await
}

/// A client that follows the server: after the reply, one `changed`
/// event line whenever anything it could list changed (bursts coalesced).
async fn follow_changes(
    mut write: tokio::net::unix::OwnedWriteHalf,
    id: u64,
    mut changes: tokio::sync::broadcast::Receiver<()>,
) {
    use tokio::sync::broadcast::error::RecvError;
    if write_response(&mut write, &Response::ok(id, serde_json::json!({})))
        .await
        .is_err()
    {
        return;
    }
    let mut line = serde_json::to_vec(&Event::changed()).unwrap_or_default();
    line.push(b'\n');
    loop {
        match changes.recv().await {
            Ok(()) | Err(RecvError::Lagged(_)) => {}
            Err(RecvError::Closed) => return,
        }
        tokio::time::sleep(COALESCE_EVENTS).await;
        while changes.try_recv().is_ok() {}
        if write.write_all(&line).await.is_err() {
            return;
        }
    }
}

/// How long a burst of changes gathers into one event.
const COALESCE_EVENTS: std::time::Duration = std::time::Duration::from_millis(30);

enum LineError {
    TooLong,
    Io(std::io::Error),
}

/// Reads one line without ever holding more than [`MAX_LINE`] bytes.
async fn read_line<R: tokio::io::AsyncBufRead + Unpin>(
    reader: &mut R,
) -> Result<Option<Vec<u8>>, LineError> {
    let mut line = Vec::new();
    loop {
        let available = reader.fill_buf().await.map_err(LineError::Io)?;
        if available.is_empty() {
            // EOF: a last line without a newline still counts.
            return Ok((!line.is_empty()).then_some(line));
        }
        let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], true),
            None => (available, false),
        };
        if line.len() + chunk.len() > MAX_LINE {
            return Err(LineError::TooLong);
        }
        line.extend_from_slice(chunk);
        let consumed = chunk.len() + usize::from(done);
        reader.consume(consumed);
        if done {
            return Ok(Some(line));
        }
    }
}

/// Parses one request line; a line that is not a request gets the error
/// response to send back.
fn parse_request(line: &[u8]) -> Result<Request, Response> {
    let value: serde_json::Value = serde_json::from_slice(line).map_err(|e| {
        Response::err(
            None,
            WireError::new(
                ErrorCode::BadRequest,
                format!("the request is not valid JSON: {e}"),
            ),
        )
    })?;
    let id = value.get("id").and_then(serde_json::Value::as_u64);
    let request: Request = serde_json::from_value(value).map_err(|e| {
        Response::err(
            id,
            WireError::new(
                ErrorCode::BadRequest,
                format!("the request needs \"v\", \"id\" and \"method\": {e}"),
            ),
        )
    })?;
    if request.v != PROTOCOL {
        return Err(Response::err(
            id,
            WireError::new(
                ErrorCode::BadVersion,
                format!(
                    "protocol {:?} is not spoken here (this server speaks {PROTOCOL}); use a matching signaltty",
                    request.v
                ),
            ),
        ));
    }
    Ok(request)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_are_split_and_bounded() {
        let data: &[u8] = b"one\ntwo\nthree";
        let mut reader = BufReader::new(data);
        assert_eq!(read_line(&mut reader).await.ok().flatten().unwrap(), b"one");
        assert_eq!(read_line(&mut reader).await.ok().flatten().unwrap(), b"two");
        assert_eq!(
            read_line(&mut reader).await.ok().flatten().unwrap(),
            b"three"
        );
        assert!(matches!(read_line(&mut reader).await, Ok(None)));

        let huge = vec![b'x'; MAX_LINE + 1];
        let mut reader = BufReader::new(huge.as_slice());
        assert!(matches!(
            read_line(&mut reader).await,
            Err(LineError::TooLong)
        ));
    }
}
