//! An attached pane: the `pane.attach` handshake and the binary frames
//! that follow it. `attach` and the multiplexer both open panes here.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;

use anyhow::Result;
use signaltty_protocol::{AttachReply, Method, Request, Response, frame, method, params};

use crate::client::{ClientError, Connection};

/// The reading half of an attached pane, and its reply.
pub struct Attached {
    pub reply: AttachReply,
    pub reader: BufReader<UnixStream>,
    /// For input and resize frames; a clone of the same socket.
    pub writer: UnixStream,
    /// The connection itself, held as long as the pane is attached (for a
    /// remote server, the ssh that carries it), and asked why it ended.
    pub connection: Connection,
}

/// Attaches `connection` to a pane; frames follow on `reader`.
pub fn attach(mut connection: Connection, request: params::PaneAttach) -> Result<Attached> {
    match handshake(&connection, request) {
        Ok((reply, reader, writer)) => Ok(Attached {
            reply,
            reader,
            writer,
            connection,
        }),
        Err(e) => Err(connection.explain(e)),
    }
}

fn handshake(
    connection: &Connection,
    request: params::PaneAttach,
) -> Result<(AttachReply, BufReader<UnixStream>, UnixStream)> {
    let mut reader = BufReader::new(connection.try_clone()?);
    let mut writer = connection.try_clone()?;
    let request = Request::new(1, method::PaneAttach::call(request));
    let mut line = serde_json::to_vec(&request)?;
    line.push(b'\n');
    writer.write_all(&line)?;
    let mut reply = Vec::new();
    let read = (&mut reader)
        .take(signaltty_protocol::MAX_LINE as u64 + 1)
        .read_until(b'\n', &mut reply)?;
    if read == 0 {
        // Closed before it answered (an upgrade does that): a dropped
        // connection, not an unreadable reply.
        return Err(ClientError::Io(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "the server closed the connection",
        ))
        .into());
    }
    let response: Response =
        serde_json::from_slice(&reply).map_err(|e| ClientError::Protocol(e.to_string()))?;
    if let Some(error) = response.error {
        return Err(ClientError::Server(error).into());
    }
    let result = response
        .result
        .ok_or_else(|| ClientError::Protocol("an attach reply without a result".into()))?;
    Ok((serde_json::from_value(result)?, reader, writer))
}

/// The next frame, or `None` once the connection is closed or broken.
pub fn read_frame(reader: &mut impl Read) -> Option<(u8, Vec<u8>)> {
    let mut header = [0u8; frame::HEADER];
    reader.read_exact(&mut header).ok()?;
    let (kind, len) = frame::parse_header(header).ok()?;
    let mut payload = vec![0u8; len];
    reader.read_exact(&mut payload).ok()?;
    Some((kind, payload))
}
