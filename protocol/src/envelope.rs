//! The envelope every line carries: a request, its response, and the
//! errors a response can hold.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Call, PROTOCOL};

/// A request: the envelope and the call it carries.
#[derive(Debug, Clone, Serialize)]
pub struct Request {
    pub v: String,
    pub id: u64,
    #[serde(flatten)]
    pub call: Call,
}

/// What a request line must hold before its call is read.
#[derive(Deserialize)]
struct Envelope {
    v: String,
    id: u64,
    method: String,
    #[serde(default)]
    params: Value,
}

impl Request {
    pub fn new(id: u64, call: Call) -> Request {
        Request {
            v: PROTOCOL.to_string(),
            id,
            call,
        }
    }

    /// Reads one line as a request, or gives the response that refuses
    /// it: not JSON, no envelope, another protocol version, an unknown
    /// method or bad parameters.
    pub fn parse(line: &[u8]) -> Result<Request, Response> {
        let value: Value = serde_json::from_slice(line).map_err(|e| {
            Response::err(
                None,
                WireError::new(
                    ErrorCode::BadRequest,
                    format!("the request is not valid JSON: {e}"),
                ),
            )
        })?;
        let id = value.get("id").and_then(Value::as_u64);
        let envelope: Envelope = serde_json::from_value(value).map_err(|e| {
            Response::err(
                id,
                WireError::new(
                    ErrorCode::BadRequest,
                    format!("the request needs \"v\", \"id\" and \"method\": {e}"),
                ),
            )
        })?;
        if envelope.v != PROTOCOL {
            return Err(Response::err(id, version_error(&envelope.v)));
        }
        let call =
            Call::parse(&envelope.method, envelope.params).map_err(|e| Response::err(id, e))?;
        Ok(Request {
            v: envelope.v,
            id: envelope.id,
            call,
        })
    }
}

/// A peer speaking another version of the protocol.
pub fn version_error(theirs: &str) -> WireError {
    WireError::new(
        ErrorCode::BadVersion,
        format!(
            "protocol {theirs:?} is not spoken here (this side speaks {PROTOCOL}): the client and \
             the server are different versions of signaltty; restart the server with this one \
             (`signaltty ctl shutdown`, then `signaltty up -d`) or use a matching client"
        ),
    )
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Response {
    pub v: String,
    /// The request's id; absent when the request was too broken to have one.
    #[serde(default)]
    pub id: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<WireError>,
}

impl Response {
    pub fn ok(id: u64, result: Value) -> Response {
        Response {
            v: PROTOCOL.to_string(),
            id: Some(id),
            result: Some(result),
            error: None,
        }
    }

    pub fn err(id: Option<u64>, error: WireError) -> Response {
        Response {
            v: PROTOCOL.to_string(),
            id,
            result: None,
            error: Some(error),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, thiserror::Error)]
#[error("{message}")]
pub struct WireError {
    pub code: ErrorCode,
    pub message: String,
}

impl WireError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> WireError {
        WireError {
            code,
            message: message.into(),
        }
    }
}

/// Stable error codes: clients branch on these, so they never change
/// meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// The line is not a JSON request envelope.
    BadRequest,
    /// The envelope's `v` is not [`PROTOCOL`].
    BadVersion,
    LineTooLong,
    UnknownMethod,
    BadParams,
    NoSuchPane,
    NoSuchTab,
    NoSuchWorkspace,
    PaneNotLive,
    NameTaken,
    SpawnFailed,
    /// The request is understood but not allowed (e.g. faults disabled).
    Refused,
    /// The server could not answer in time, or is shutting down.
    Unavailable,
    Internal,
    /// A bound was reached: a pane's input queue stayed full until the
    /// deadline, or the server holds as many connections or as much
    /// unfinished input as it accepts. Try again later.
    Busy,
    /// A `pane.wait` whose condition did not hold in time.
    TimedOut,
    /// An agent waits at a permission, trust or question prompt, which
    /// the request would answer; answer it first.
    Blocked,
    /// A code from a newer server.
    #[serde(other)]
    Unknown,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadRequest => "BAD_REQUEST",
            ErrorCode::BadVersion => "BAD_VERSION",
            ErrorCode::LineTooLong => "LINE_TOO_LONG",
            ErrorCode::UnknownMethod => "UNKNOWN_METHOD",
            ErrorCode::BadParams => "BAD_PARAMS",
            ErrorCode::NoSuchPane => "NO_SUCH_PANE",
            ErrorCode::NoSuchTab => "NO_SUCH_TAB",
            ErrorCode::NoSuchWorkspace => "NO_SUCH_WORKSPACE",
            ErrorCode::PaneNotLive => "PANE_NOT_LIVE",
            ErrorCode::NameTaken => "NAME_TAKEN",
            ErrorCode::SpawnFailed => "SPAWN_FAILED",
            ErrorCode::Refused => "REFUSED",
            ErrorCode::Unavailable => "UNAVAILABLE",
            ErrorCode::Internal => "INTERNAL",
            ErrorCode::Busy => "BUSY",
            ErrorCode::TimedOut => "TIMED_OUT",
            ErrorCode::Blocked => "BLOCKED",
            ErrorCode::Unknown => "UNKNOWN",
        }
    }
}
