//! Input on its way to a pane: `ctl send` text and attached keystrokes.
//!
//! Room in the pane's bounded input queue is reserved before each piece is
//! handed to the pane, so a program that does not read holds back whoever
//! types at it instead of growing the server: `send` waits up to
//! [`SEND_DEADLINE`] for the program to take some of it and then answers
//! `BUSY`; an attached client simply is not read from until there is room.

use std::time::{Duration, Instant};

use ractor::ActorRef;
use signaltty_actors::ActorError;
use signaltty_actors::pane::PaneMsg;
use signaltty_actors::pane::input::{INPUT_QUEUE_BYTES, InputQueue, pieces};
use signaltty_protocol::{ErrorCode, WireError};

use crate::ctx::wire_error;

/// How long `send` waits for a pane that takes none of its input.
pub const SEND_DEADLINE: Duration = Duration::from_secs(5);
/// How long handing one piece to the pane actor may take.
const HAND_OVER_MS: u64 = 10_000;

/// Why input did not reach the pane.
#[derive(Debug)]
pub enum SendError {
    /// The queue stayed full until the deadline; `sent` bytes went in.
    Busy {
        sent: usize,
        total: usize,
    },
    Pane(ActorError),
    Unavailable(String),
}

/// Sends `bytes` to `pane` piece by piece, each once its queue has room,
/// waiting at most `patience` for each piece (forever with `None`).
pub async fn send(
    pane: &ActorRef<PaneMsg>,
    queue: &InputQueue,
    bytes: Vec<u8>,
    patience: Option<Duration>,
) -> Result<(), SendError> {
    let total = bytes.len();
    let mut sent = 0;
    for part in pieces(bytes) {
        let len = part.len();
        let deadline = patience.map(|wait| Instant::now() + wait);
        let piece = queue
            .reserve(part, deadline)
            .await
            .map_err(|_| SendError::Busy { sent, total })?;
        ractor::call_t!(pane, PaneMsg::Input, HAND_OVER_MS, piece)
            .map_err(|e| SendError::Unavailable(e.to_string()))?
            .map_err(SendError::Pane)?;
        sent += len;
    }
    Ok(())
}

impl SendError {
    pub fn to_wire(&self, pane: &str) -> WireError {
        match self {
            SendError::Busy { sent, total } => WireError::new(
                ErrorCode::Busy,
                format!(
                    "pane {pane} is not reading its input: its queue ({} KiB) is full and took \
                     nothing for {}s ({sent} of {total} bytes were sent); look at it with \
                     `signaltty attach {pane}` (a stopped program needs \
                     `signaltty ctl kill {pane} --signal CONT`)",
                    INPUT_QUEUE_BYTES / 1024,
                    SEND_DEADLINE.as_secs()
                ),
            ),
            SendError::Pane(e) => wire_error(e.clone()),
            SendError::Unavailable(e) => WireError::new(
                ErrorCode::Unavailable,
                format!("pane {pane} did not take its input in time ({e}); try again"),
            ),
        }
    }
}
