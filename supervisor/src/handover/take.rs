//! The new image's side: the handover read back, checked, and turned into
//! what the server starts from.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd, RawFd};

use signaltty_actors::pane::handover::HandedPane;
use signaltty_protocol::{ErrorCode, Response, UpgradeReply, WireError};
use tracing::warn;

use super::state::{self, Caller, Header, StateError};

/// What a server taken over by handover starts from.
pub struct Taken {
    pub header: Header,
    /// Each pane as it was handed over, by id.
    pub panes: HashMap<String, HandedPane>,
    /// Set when the binary this one handed over to gave everything back
    /// (see [`super::fallback`]): why.
    pub refused: Option<String>,
}

/// Reads the handover this image was exec'd with.
///
/// # Safety
/// `fd` and every descriptor the handover names were inherited by this
/// process and are owned by nothing else: call it once, at start.
pub unsafe fn take(fd: RawFd) -> Result<Taken, StateError> {
    // SAFETY: the caller's promise.
    let file = File::from(unsafe { OwnedFd::from_raw_fd(fd) });
    let handover = state::read(file)?;
    handover.check()?;
    // SAFETY: the caller's promise.
    let (header, panes) = unsafe { handover.into_panes()? };
    let panes = panes
        .into_iter()
        .map(|pane| (pane.record.id.to_string(), pane))
        .collect();
    Ok(Taken {
        header,
        panes,
        refused: None,
    })
}

/// `signaltty __handover-check`: reads a handover from `input` as a
/// takeover would, descriptors aside, and returns the line to answer.
pub fn check(input: impl Read) -> Result<String, StateError> {
    let handover = state::read(input)?;
    handover.check()?;
    Ok(format!("ok {}", handover.header.nonce))
}

/// Answers the connection that asked for the upgrade, then closes it.
///
/// # Safety
/// As for [`take`]: `caller.fd` was inherited and nothing else owns it.
pub unsafe fn answer(caller: Caller, reply: PendingReply) {
    // SAFETY: the caller's promise.
    let mut stream = File::from(unsafe { OwnedFd::from_raw_fd(caller.fd) });
    let response = match reply.finish() {
        Ok(reply) => match serde_json::to_value(reply) {
            Ok(result) => Response::ok(caller.request, result),
            Err(_) => return,
        },
        Err(refusal) => Response::err(Some(caller.request), refusal),
    };
    let Ok(mut line) = serde_json::to_vec(&response) else {
        return;
    };
    line.push(b'\n');
    // A line this short fits the socket's buffer; the client reads it.
    if let Err(e) = stream.write_all(&line) {
        warn!(error = %e, "could not answer the upgrade's caller");
    }
}

/// The caller's answer, but for the time taken, known once the new server
/// is up.
pub struct PendingReply {
    reply: UpgradeReply,
    requested_at: u64,
    /// Why the new binary gave everything back to this one, if it did.
    refused: Option<String>,
}

impl PendingReply {
    pub fn of(taken: &Taken) -> PendingReply {
        let header = &taken.header;
        PendingReply {
            reply: UpgradeReply {
                from_version: header.from_version.clone(),
                to_version: env!("CARGO_PKG_VERSION").to_string(),
                binary: header.binary.clone(),
                live_panes: taken.panes.values().filter(|p| p.process.is_some()).count(),
                panes: header.snapshot.panes.len(),
                millis: 0,
                pid: std::process::id(),
                upgrades: header.upgrades,
                reconnecting: header.caller.map_or(0, |c| c.other_connections),
            },
            requested_at: header.requested_at,
            refused: taken.refused.clone(),
        }
    }

    /// The answer, timed from the request until now; a refusal if the
    /// new binary fell back to this one.
    pub fn finish(mut self) -> Result<UpgradeReply, WireError> {
        if let Some(why) = self.refused {
            let message = format!(
                "upgrade failed: {} could not take over ({why}); signaltty {} took everything \
                 back and goes on, every pane with its process",
                self.reply.binary, self.reply.to_version
            );
            return Err(WireError::new(
                ErrorCode::Refused,
                message.replace('\n', " "),
            ));
        }
        self.reply.millis = super::now_ms().saturating_sub(self.requested_at);
        Ok(self.reply)
    }
}
