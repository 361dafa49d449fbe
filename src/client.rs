//! A blocking client for the server's socket.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use signaltty_protocol::{MAX_LINE, PROTOCOL, Request, Response, WireError};

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("no signaltty server is running on {}; start one with `signaltty up -d`", .0.display())]
    NotRunning(PathBuf),
    #[error("lost the connection to the server: {0}")]
    Io(#[from] std::io::Error),
    #[error("the server sent something unreadable: {0}")]
    Protocol(String),
    #[error("{0}")]
    Server(WireError),
}

pub struct Client {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    next_id: u64,
}

/// Opens a connection to the server at `path`. Every client connection
/// (requests, attach, event streams) goes through here, so whatever must be
/// checked before a byte is sent is checked in one place.
pub fn connect_stream(path: &Path) -> Result<UnixStream, ClientError> {
    UnixStream::connect(path).map_err(|_| ClientError::NotRunning(path.to_path_buf()))
}

impl Client {
    pub fn connect(path: &Path) -> Result<Client, ClientError> {
        let stream = connect_stream(path)?;
        let writer = stream.try_clone()?;
        Ok(Client {
            reader: BufReader::new(stream),
            writer,
            next_id: 1,
        })
    }

    /// Sends one request and waits for its response.
    pub fn call(&mut self, method: &str, params: impl Serialize) -> Result<Value, ClientError> {
        let id = self.next_id;
        self.next_id += 1;
        let request = Request {
            v: PROTOCOL.to_string(),
            id,
            method: method.to_string(),
            params: serde_json::to_value(params)
                .map_err(|e| ClientError::Protocol(e.to_string()))?,
        };
        let mut line =
            serde_json::to_vec(&request).map_err(|e| ClientError::Protocol(e.to_string()))?;
        line.push(b'\n');
        self.writer.write_all(&line)?;

        let mut reply = Vec::new();
        let read = (&mut self.reader)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut reply)?;
        if read == 0 {
            return Err(ClientError::Io(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the server closed the connection",
            )));
        }
        let response: Response =
            serde_json::from_slice(&reply).map_err(|e| ClientError::Protocol(e.to_string()))?;
        // An error without an id answers whatever was sent before the
        // server could read an id (a line too long, a server too busy).
        if response.id.is_none()
            && let Some(error) = response.error
        {
            return Err(ClientError::Server(error));
        }
        if response.id != Some(id) {
            return Err(ClientError::Protocol(format!(
                "response for request {:?}, expected {id}",
                response.id
            )));
        }
        match (response.result, response.error) {
            (_, Some(error)) => Err(ClientError::Server(error)),
            (Some(result), None) => Ok(result),
            (None, None) => Err(ClientError::Protocol(
                "a response with neither result nor error".into(),
            )),
        }
    }
}
