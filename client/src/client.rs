//! A blocking client for the server's socket, on this machine or, through
//! ssh, on another.

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use serde_json::Value;
use signaltty_protocol::socket_path::{self, DirError, DirProblem, my_uid};
use signaltty_protocol::{
    Call, MAX_LINE, Method, PROTOCOL, Request, Response, WireError, version_error,
};

use crate::remote::{Remote, SshChild, SshFailure};

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error(
        "no signaltty server is running on {}; start one with `signaltty up -d` \
         (with the same --session or --socket, if you gave one)",
        .0.display()
    )]
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
    /// Parameters refused before anything was sent, as the server would
    /// refuse them (`BAD_PARAMS`).
    #[error("{0}")]
    BadParams(String),
    #[error("{0}")]
    BadRemote(String),
    #[error(
        "could not run {program}: {source}; install OpenSSH's client, or set \
         SIGNALTTY_SSH_COMMAND to the ssh command line to use"
    )]
    SshSpawn {
        program: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Ssh(SshFailure),
}

/// Where the server a client talks to is.
#[derive(Debug, Clone)]
pub enum Endpoint {
    /// A socket on this machine.
    Local(PathBuf),
    /// A server on another machine, through `ssh DEST signaltty bridge`.
    Remote(Remote),
}

impl Endpoint {
    /// The machine, for a person: `None` for this one.
    pub fn host(&self) -> Option<&str> {
        match self {
            Endpoint::Local(_) => None,
            Endpoint::Remote(remote) => Some(remote.destination()),
        }
    }
}

/// A connection to the server: a socket, and for a remote server the ssh
/// that carries it. It reads and writes like the socket (and derefs to it,
/// for `try_clone` and `shutdown`); dropping a remote one closes the socket
/// (every clone of it) and reaps ssh, killing it if it will not end.
pub struct Connection {
    stream: UnixStream,
    ssh: Option<SshChild>,
}

impl Connection {
    /// Why the connection ended, when the transport knows more than an
    /// end of file says: ssh's own error or the remote program's, with a
    /// hint. `None` for a local socket, or an ssh that ended well.
    pub fn failure(&mut self) -> Option<ClientError> {
        let ssh = self.ssh.as_mut()?;
        ssh.finish(Some(SSH_END_WAIT)).map(ClientError::Ssh)
    }

    /// `error`, unless the transport knows better why the connection
    /// failed.
    pub fn explain(&mut self, error: impl Into<anyhow::Error>) -> anyhow::Error {
        match self.failure() {
            Some(failure) => failure.into(),
            None => error.into(),
        }
    }
}

/// How long a client that lost its connection waits for ssh to say why.
const SSH_END_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

impl std::ops::Deref for Connection {
    type Target = UnixStream;

    fn deref(&self) -> &UnixStream {
        &self.stream
    }
}

impl Read for Connection {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.stream.read(buf)
    }
}

impl Write for Connection {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.stream.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.stream.flush()
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        if self.ssh.is_some() {
            // ssh sees the end of its input and ends; so does the bridge
            // on the far side. `ssh`'s own drop then reaps it.
            let _ = self.stream.shutdown(std::net::Shutdown::Both);
        }
    }
}

pub struct Client {
    reader: BufReader<Connection>,
    writer: UnixStream,
    next_id: u64,
}

/// Opens a connection to the server at `endpoint`. Every client connection
/// (requests, attach, event streams) goes through here, so whatever must be
/// checked before a byte is sent is checked in one place: the socket's
/// directory is this user's alone (not a link, not another user's, mode
/// 0700), and the process listening runs as this user. A remote server is
/// reached through ssh and the bridge, which makes the same checks there.
pub fn connect_stream(endpoint: &Endpoint) -> Result<Connection, ClientError> {
    match endpoint {
        Endpoint::Local(path) => Ok(Connection {
            stream: connect_local(path)?,
            ssh: None,
        }),
        Endpoint::Remote(remote) => {
            let (stream, ssh) = remote.open()?;
            Ok(Connection {
                stream,
                ssh: Some(ssh),
            })
        }
    }
}

/// Connects to the socket at `path` on this machine, after the checks.
fn connect_local(path: &Path) -> Result<UnixStream, ClientError> {
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
    pub fn connect(endpoint: &Endpoint) -> Result<Client, ClientError> {
        let stream = connect_stream(endpoint)?;
        let writer = stream.try_clone()?;
        Ok(Client {
            reader: BufReader::new(stream),
            writer,
            next_id: 1,
        })
    }

    /// Gives up on a read or write that takes longer than `timeout`.
    pub fn set_timeout(&self, timeout: std::time::Duration) -> std::io::Result<()> {
        self.writer.set_read_timeout(Some(timeout))?;
        self.writer.set_write_timeout(Some(timeout))
    }

    /// Calls method `M` and reads its typed reply.
    pub fn request<M: Method>(&mut self, params: M::Params) -> Result<M::Reply, ClientError> {
        let result = self.call(M::call(params))?;
        serde_json::from_value(result).map_err(|e| {
            ClientError::Protocol(format!(
                "the server's answer to {} is unreadable: {e}",
                M::NAME
            ))
        })
    }

    /// Sends one request and waits for its response; the result as JSON.
    pub fn call(&mut self, call: Call) -> Result<Value, ClientError> {
        let id = self.next_id;
        self.next_id += 1;
        let mut line = serde_json::to_vec(&Request::new(id, call))
            .map_err(|e| ClientError::Protocol(e.to_string()))?;
        line.push(b'\n');
        if let Err(e) = self.writer.write_all(&line) {
            // A server that refuses a connection says why before it closes
            // it: that line is a better error than the broken pipe.
            return Err(match self.read_response() {
                Ok(Response {
                    error: Some(error), ..
                }) => ClientError::Server(error),
                _ => self
                    .reader
                    .get_mut()
                    .failure()
                    .unwrap_or(ClientError::Io(e)),
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
            (Some(_), Some(_), None) if response.v != PROTOCOL => {
                Err(ClientError::Server(version_error(&response.v)))
            }
            (Some(_), Some(result), None) => Ok(result),
            (None, Some(_), None) => Err(ClientError::Protocol(format!(
                "a result without an id, expected {id}"
            ))),
            (_, None, None) => Err(ClientError::Protocol(
                "a response with neither result nor error".into(),
            )),
        }
    }

    /// The next line the server sends unasked (on a connection whose
    /// request started a stream), without its newline; `None` once the
    /// server closed the stream.
    pub fn next_line(&mut self) -> Result<Option<String>, ClientError> {
        let mut line = Vec::new();
        let read = (&mut self.reader)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut line)?;
        if read == 0 {
            return Ok(None);
        }
        if line.last() != Some(&b'\n') && read > MAX_LINE {
            return Err(ClientError::Protocol(format!(
                "the server sent a line longer than {MAX_LINE} bytes"
            )));
        }
        let text = String::from_utf8(line).map_err(|e| ClientError::Protocol(e.to_string()))?;
        Ok(Some(text.trim_end_matches('\n').to_string()))
    }

    fn read_response(&mut self) -> Result<Response, ClientError> {
        let mut reply = Vec::new();
        let read = match (&mut self.reader)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut reply)
        {
            Ok(read) => read,
            // ssh that ended before reading the request resets the socket.
            Err(e) => {
                return Err(self
                    .reader
                    .get_mut()
                    .failure()
                    .unwrap_or(ClientError::Io(e)));
            }
        };
        if read == 0 {
            return Err(self.reader.get_mut().failure().unwrap_or(ClientError::Io(
                std::io::Error::new(ErrorKind::UnexpectedEof, "the server closed the connection"),
            )));
        }
        serde_json::from_slice(&reply).map_err(|e| ClientError::Protocol(e.to_string()))
    }
}
