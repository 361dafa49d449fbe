//! The two WebSockets: the dashboard's listing, and a pane attached.
//!
//! A pane's socket carries the `pane.attach` stream: first a text message
//! `{"type":"attached",…}` with the attach reply, then one binary message
//! per frame of the server, its kind byte and then its payload (the
//! snapshot first, then output, sizes and states). The page sends binary
//! messages of the same shape, [`frame::INPUT`] or [`frame::RESIZE`]
//! only; its actions (keys by name, a prompt) go to `POST /api/pane/ID`
//! like the dashboard's.
//! Both sockets end when the session's token is rotated.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::ws::{CloseFrame, Message, WebSocket};
use serde_json::json;
use signaltty_client::client::{ClientError, Connection, connect_stream};
use signaltty_protocol::{
    AttachReply, CatchUp, MAX_LINE, Method, Request, Response, frame, method, params,
};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::sync::{mpsc, watch};

use crate::http::{App, READ_ONLY};
use crate::token::Token;

/// The close code of a socket whose session ended (a token rotation).
const CLOSE_SESSION_ENDED: u16 = 4001;
/// The close code of a socket whose pane could not be attached or ended.
const CLOSE_PANE_GONE: u16 = 4004;

/// Sends the listing, then every new one, until the browser leaves or
/// the session ends.
pub async fn events(app: Arc<App>, mut socket: WebSocket, token: Token) {
    let mut listings = app.listings.clone();
    let mut tokens = app.token.clone();
    loop {
        let listing = listings.borrow_and_update().clone();
        if socket
            .send(Message::Text(listing.as_str().into()))
            .await
            .is_err()
        {
            return;
        }
        tokio::select! {
            changed = listings.changed() => if changed.is_err() { return },
            () = session_ended(&mut tokens, &token) => {
                return close(socket, CLOSE_SESSION_ENDED, "the token was rotated: log in again").await;
            }
            message = socket.recv() => match message {
                // The dashboard says nothing; what it sends is dropped.
                Some(Ok(_)) => {}
                _ => return,
            },
        }
    }
}

/// Resolves once the token the file holds is no longer `mine`.
async fn session_ended(tokens: &mut watch::Receiver<Option<Token>>, mine: &Token) {
    let _ = tokens
        .wait_for(|current| current.as_ref() != Some(mine))
        .await;
}

async fn close(mut socket: WebSocket, code: u16, reason: &str) {
    let _ = socket
        .send(Message::Close(Some(CloseFrame {
            code,
            reason: reason.into(),
        })))
        .await;
}

#[derive(Debug, thiserror::Error)]
enum AttachError {
    #[error("{0}")]
    Client(#[from] ClientError),
    #[error("lost the connection to the server: {0}")]
    Io(#[from] std::io::Error),
    #[error("the server's attach reply is unreadable: {0}")]
    Reply(#[from] serde_json::Error),
    #[error("{0}")]
    Refused(String),
}

/// An attached pane: the socket to the server, and the connection held
/// for as long as it is (for a remote server, the ssh that carries it).
struct Attached {
    reply: AttachReply,
    reader: BufReader<tokio::net::unix::OwnedReadHalf>,
    writer: tokio::net::unix::OwnedWriteHalf,
    _connection: Connection,
}

async fn attach(app: &App, pane: String) -> Result<Attached, AttachError> {
    let endpoint = app.endpoint.clone();
    let connection = tokio::task::spawn_blocking(move || connect_stream(&endpoint))
        .await
        .map_err(|e| AttachError::Refused(e.to_string()))??;
    let stream = connection.try_clone()?;
    stream.set_nonblocking(true)?;
    let (read, mut writer) = UnixStream::from_std(stream)?.into_split();
    let request = params::PaneAttach {
        pane: pane.into(),
        // Without a size the pane keeps its own: a viewer never shrinks
        // it; the page sends one when the user takes the pane.
        rows: None,
        cols: None,
        // A view-only page leaves no mark, not even "seen".
        keep_attention: app.read_only,
        // A flood comes as pictures, and never slows the pane.
        catch_up: CatchUp::Screen,
    };
    let mut line = serde_json::to_vec(&Request::new(1, method::PaneAttach::call(request)))?;
    line.push(b'\n');
    writer.write_all(&line).await?;
    let mut reader = BufReader::new(read);
    let mut reply = Vec::new();
    (&mut reader)
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', &mut reply)
        .await?;
    let response: Response = serde_json::from_slice(&reply)?;
    if let Some(error) = response.error {
        return Err(AttachError::Client(ClientError::Server(error)));
    }
    let result = response
        .result
        .ok_or_else(|| AttachError::Refused("an attach reply without a result".into()))?;
    Ok(Attached {
        reply: serde_json::from_value(result)?,
        reader,
        writer,
        _connection: connection,
    })
}

/// Bridges pane `id` and the page, until either leaves or the session
/// ends.
pub async fn pane(app: Arc<App>, mut socket: WebSocket, token: Token, id: String) {
    let attached = match attach(&app, id.clone()).await {
        Ok(attached) => attached,
        Err(e) => {
            let _ = socket
                .send(Message::Text(
                    json!({"type": "error", "message": e.to_string()})
                        .to_string()
                        .into(),
                ))
                .await;
            return close(socket, CLOSE_PANE_GONE, "could not attach the pane").await;
        }
    };
    let Attached {
        reply,
        mut reader,
        mut writer,
        _connection,
    } = attached;
    let hello = json!({"type": "attached", "reply": reply, "read_only": app.read_only});
    if socket
        .send(Message::Text(hello.to_string().into()))
        .await
        .is_err()
    {
        return;
    }
    // Reading a frame is not cancel-safe, so it has a task of its own.
    let (frames_tx, mut frames) = mpsc::channel::<Bytes>(8);
    let _pump = AbortOnDrop(tokio::spawn(async move {
        while let Some(bytes) = read_frame(&mut reader).await {
            if frames_tx.send(bytes).await.is_err() {
                return;
            }
        }
    }));
    let mut tokens = app.token.clone();
    loop {
        tokio::select! {
            frame = frames.recv() => match frame {
                Some(bytes) => {
                    if socket.send(Message::Binary(bytes)).await.is_err() {
                        return;
                    }
                }
                None => return close(socket, CLOSE_PANE_GONE, "the pane's stream ended").await,
            },
            message = socket.recv() => match message {
                Some(Ok(Message::Binary(bytes))) => {
                    match input_frame(&bytes, app.read_only) {
                        Ok(frame) => {
                            if writer.write_all(&frame).await.is_err() {
                                return;
                            }
                        }
                        Err(why) => {
                            if refuse(&mut socket, why).await.is_err() {
                                return;
                            }
                        }
                    }
                }
                Some(Ok(Message::Text(_))) => {
                    let why = "a page sends its actions to POST /api/pane/ID, not on this socket";
                    if refuse(&mut socket, why).await.is_err() {
                        return;
                    }
                }
                Some(Ok(_)) => {}
                _ => return,
            },
            () = session_ended(&mut tokens, &token) => {
                return close(socket, CLOSE_SESSION_ENDED, "the token was rotated: log in again").await;
            }
        }
    }
}

/// Ends a task when its owner is done with it.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

async fn refuse(socket: &mut WebSocket, why: &str) -> Result<(), axum::Error> {
    socket
        .send(Message::Text(
            json!({"type": "refused", "message": why})
                .to_string()
                .into(),
        ))
        .await
}

/// The next frame of the server as one message: its kind, its payload.
async fn read_frame(reader: &mut BufReader<tokio::net::unix::OwnedReadHalf>) -> Option<Bytes> {
    let mut header = [0u8; frame::HEADER];
    reader.read_exact(&mut header).await.ok()?;
    let (kind, len) = frame::parse_header(header).ok()?;
    let mut message = vec![0u8; 1 + len];
    message[0] = kind;
    reader.read_exact(&mut message[1..]).await.ok()?;
    Some(Bytes::from(message))
}

/// The frame a page's binary message asks for: keystrokes, or a size
/// when the user takes the pane; nothing else, and nothing when
/// read-only.
fn input_frame(message: &[u8], read_only: bool) -> Result<Vec<u8>, &'static str> {
    if read_only {
        return Err(READ_ONLY);
    }
    match message.split_first() {
        Some((&frame::INPUT, keys)) if !keys.is_empty() => Ok(frame::encode(frame::INPUT, keys)),
        Some((&frame::RESIZE, size)) => match frame::parse_resize(size) {
            Some((rows, cols)) if rows > 0 && cols > 0 => Ok(frame::resize(rows, cols)),
            _ => Err("a resize needs rows and cols, u16 big-endian, not zero"),
        },
        _ => Err("a page may send only input and resize frames"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_sends_input_and_sizes_only_and_nothing_when_read_only() {
        assert_eq!(
            input_frame(b"\x0bls\r", false).unwrap(),
            frame::encode(frame::INPUT, b"ls\r")
        );
        assert_eq!(
            input_frame(&[frame::RESIZE, 0, 24, 0, 80], false).unwrap(),
            frame::resize(24, 80)
        );
        assert!(input_frame(&[frame::RESIZE, 0, 0, 0, 80], false).is_err());
        assert!(input_frame(&[frame::RESIZE, 0, 24], false).is_err());
        assert!(input_frame(&[frame::OUTPUT, b'x'], false).is_err());
        assert!(input_frame(b"", false).is_err());
        assert_eq!(input_frame(b"\x0bls\r", true), Err(READ_ONLY));
        assert_eq!(
            input_frame(&[frame::RESIZE, 0, 24, 0, 80], true),
            Err(READ_ONLY)
        );
    }
}
