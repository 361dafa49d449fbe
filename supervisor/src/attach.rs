//! The server side of an attached client.
//!
//! The pane answers one `Attach` message with a snapshot and a queue that
//! continues from exactly where the snapshot ends; this task writes that
//! queue to the client as frames (several at once, in one vectored write:
//! see `frames`) and turns the client's frames into keystrokes and resizes. The pane never waits for it: a slow client
//! falls behind and is sent a fresh snapshot (see the pane's subscribers).
//! The other way round, the client waits for the pane: while the pane's
//! input queue is full its next frame is not read, and a frame's payload
//! counts against the input all clients may make the server hold.

use ractor::{ActorRef, RpcReplyPort};
use signaltty_actors::ActorError;
use signaltty_actors::pane::PaneMsg;
use signaltty_actors::pane::input::InputQueue;
use signaltty_actors::pane::subscribers::{self, PaneFrame};
use signaltty_protocol::{AttachReply, CatchUp, WireError, frame, params};
use tokio::io::AsyncReadExt;
use tokio::sync::mpsc;
use tracing::debug;

use crate::connection::Connection;
use crate::ctx::{Ctx, find_pane};
use crate::frames;
use crate::input;
use crate::limits::HeldInput;

/// How long an attaching client waits for the pane.
const ATTACH_MS: u64 = 10_000;

/// What an attached connection carries after its reply: the pane's frames
/// one way, the client's keystrokes and resizes the other.
pub struct Attached {
    pane: ActorRef<PaneMsg>,
    frames: mpsc::Receiver<PaneFrame>,
    input: InputQueue,
}

impl Attached {
    /// Serves the attachment until either side ends it.
    pub async fn serve(self, conn: Connection) {
        let Attached {
            pane,
            mut frames,
            input,
        } = self;
        let Connection {
            mut reader,
            mut writer,
            limits,
        } = conn;
        let to_client = frames::forward(&mut frames, &mut writer);
        let from_client = async {
            loop {
                let mut header = [0u8; frame::HEADER];
                if reader.read_exact(&mut header).await.is_err() {
                    return;
                }
                let Ok((kind, len)) = frame::parse_header(header) else {
                    return;
                };
                let mut held = HeldInput::default();
                if let Err(e) = limits.hold(&mut held, len) {
                    debug!(error = %e, "attached client's frame refused");
                    return;
                }
                let mut payload = vec![0u8; len];
                if reader.read_exact(&mut payload).await.is_err() {
                    return;
                }
                match kind {
                    frame::INPUT => {
                        // A tombstone refuses input; the client offers its
                        // one-key actions instead, so the refusal is dropped.
                        // While the queue is full this waits, and the client's
                        // next frames wait in its socket.
                        let _ = input::send(&pane, &input, payload, None).await;
                    }
                    frame::RESIZE => {
                        if let Some((rows, cols)) = frame::parse_resize(&payload) {
                            let _ = ractor::call_t!(
                                pane,
                                |reply| PaneMsg::Resize { rows, cols, reply },
                                ATTACH_MS
                            );
                        }
                    }
                    other => debug!(kind = other, "unknown frame from an attached client"),
                }
            }
        };
        tokio::select! {
            () = to_client => {}
            () = from_client => {}
        }
    }
}

/// Attaches to the pane `p` names: the reply, and what follows it.
pub async fn open(ctx: &Ctx, p: params::PaneAttach) -> Result<(AttachReply, Attached), WireError> {
    let view = find_pane(ctx, &p.pane).await?;
    let pane = crate::ctx::pane_actor(&view)?;
    let size = match (p.rows, p.cols) {
        (Some(rows), Some(cols)) => Some((rows, cols)),
        _ => None,
    };
    let attached = ractor::call_t!(
        pane,
        |reply: RpcReplyPort<_>| PaneMsg::Attach {
            size,
            keep_attention: p.keep_attention,
            catch_up: match p.catch_up {
                CatchUp::Exact => subscribers::CatchUp::Exact,
                CatchUp::Screen => subscribers::CatchUp::Screen,
            },
            reply
        },
        ATTACH_MS
    )
    .map_err(|e| {
        crate::ctx::wire_error(ActorError::Unavailable(format!(
            "pane {} did not answer: {e}",
            view.record.id
        )))
    })?;
    let reply = AttachReply {
        pane: view.record.id.to_string(),
        state: attached.status.state,
        exit_code: attached.status.exit_code,
        offset: attached.offset,
        rows: attached.size.rows,
        cols: attached.size.cols,
        revive: attached.status.revive.map(frames::wire_revive),
        shift_enter_as: attached.status.shift_enter_as,
    };
    let attached = Attached {
        pane,
        frames: attached.frames,
        input: attached.input,
    };
    Ok((reply, attached))
}
