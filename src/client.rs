//! A blocking client for the server's socket.

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use signaltty_protocol::socket_path::{self, DirError, DirProblem, my_uid};
use signaltty_protocol::{MAX_LINE, PROTOCOL, Request, Response, WireError};

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("no signaltty server is running on {}; start one with `signaltty up -d`", .0.display())]
    NotRunning(PathBuf),
    #[error(
        "socket directory {0}; nothing is sent through a directory that is not \
         yours alone (another user could be listening in it): fix it (`chmod 700` if it is \
         yours) or choose another socket with --socket or SIGNALTTY_SOCKET"
    )]
    UnsafeDir(DirError),
    #[error(
        "the server on {} runs as uid {peer}, not as you (uid {me}); nothing was sent to it: \
         remove that socket, or choose one of your own with --socket or SIGNALTTY_SOCKET",
        .path.display()
    )]
    ForeignServer { path: PathBuf, peer: u32, me: u32 },
    #[error("could not connect to {}: {source}", .path.display())]
    Connect {
        path: PathBuf,
        source: std::io::Error,
    },
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
/// checked before a byte is sent is checked in one place: the socket's
/// directory is this user's alone (not a link, not another user's, mode
/// 0700), and the process listening runs as this user.
pub fn connect_stream(path: &Path) -> Result<UnixStream, ClientError> {
    match socket_path::check_socket_dir(path) {
        Ok(()) => {}
        Err(DirError {
            problem: DirProblem::Missing,
            ..
        }) => return Err(ClientError::NotRunning(path.to_path_buf())),
        Err(e) => return Err(ClientError::UnsafeDir(e)),
    }
    let stream = UnixStream::connect(path).map_err(|source| match source.kind() {
        ErrorKind::NotFound | ErrorKind::ConnectionRefused => {
            ClientError::NotRunning(path.to_path_buf())
        }
        _ => ClientError::Connect {
            path: path.to_path_buf(),
            source,
        },
    })?;
    let peer = socket_path::peer_uid(&stream).map_err(|source| ClientError::Connect {
        path: path.to_path_buf(),
        source,
    })?;
    let me = my_uid();
    if peer != me {
        return Err(ClientError::ForeignServer {
            path: path.to_path_buf(),
            peer,
            me,
        });
    }
    Ok(stream)
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
        if let Err(e) = self.writer.write_all(&line) {
            // A server that refuses a connection says why before it closes
            // it: that line is a better error than the broken pipe.
            return Err(match self.read_response() {
                Ok(Response {
                    error: Some(error), ..
                }) => ClientError::Server(error),
                _ => ClientError::Io(e),
            });
        }
        let response = self.read_response()?;
        match (response.id, response.result, response.error) {
            (Some(got), _, _) if got != id => Err(ClientError::Protocol(format!(
                "response for request {got}, expected {id}"
            ))),
            // Without an id, an error answers the connection rather than a
            // request: a refusal, a line too long.
            (_, _, Some(error)) => Err(ClientError::Server(error)),
            (Some(_), Some(result), None) => Ok(result),
            (None, Some(_), None) => Err(ClientError::Protocol(format!(
                "a result without an id, expected {id}"
            ))),
            (_, None, None) => Err(ClientError::Protocol(
                "a response with neither result nor error".into(),
            )),
        }
    }

    fn read_response(&mut self) -> Result<Response, ClientError> {
        let mut reply = Vec::new();
        let read = (&mut self.reader)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut reply)?;
        if read == 0 {
            return Err(ClientError::Io(std::io::Error::new(
                ErrorKind::UnexpectedEof,
                "the server closed the connection",
            )));
        }
        serde_json::from_slice(&reply).map_err(|e| ClientError::Protocol(e.to_string()))
    }
}
