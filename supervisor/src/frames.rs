//! An attached client's queued frames, written together in one vectored
//! write.
//!
//! A pane's output reaches here as chunks shared with the pane's ring and
//! every other client. The frames waiting in a client's queue are taken at
//! once and written, headers and payloads, with one `writev` from where
//! they already are: no frame is copied into a buffer of its own, and a
//! client that fell a few frames behind costs one system call, not one per
//! frame.

use std::io::IoSlice;

use bytes::Bytes;
use serde_json::json;
use signaltty_actors::pane::subscribers::{self, PaneFrame};
use signaltty_protocol::{Revive, ReviveAction, StateFrame, frame};
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc::Receiver;

/// The most frames taken from the queue for one write. A frame is at most
/// three pieces: well under the 1024 a `writev` accepts.
pub const BATCH_FRAMES: usize = 64;

/// A piece of the bytes on the wire.
enum Piece {
    Header([u8; frame::HEADER]),
    /// A payload shared with the pane.
    Shared(Bytes),
    /// A small frame made here (a size, a state).
    Owned(Vec<u8>),
}

impl AsRef<[u8]> for Piece {
    fn as_ref(&self) -> &[u8] {
        match self {
            Piece::Header(header) => header,
            Piece::Shared(bytes) => bytes,
            Piece::Owned(bytes) => bytes,
        }
    }
}

/// Writes the frames of `queue` to `writer` as they come, until the queue
/// closes or a write fails (the client went away).
pub async fn forward(queue: &mut Receiver<PaneFrame>, writer: &mut (impl AsyncWrite + Unpin)) {
    let mut batch = Vec::with_capacity(BATCH_FRAMES);
    let mut pieces = Vec::with_capacity(3 * BATCH_FRAMES);
    while queue.recv_many(&mut batch, BATCH_FRAMES).await > 0 {
        pieces.clear();
        for next in batch.drain(..) {
            encode(next, &mut pieces);
        }
        if write_all(writer, &pieces).await.is_err() {
            return;
        }
    }
}

fn encode(next: PaneFrame, pieces: &mut Vec<Piece>) {
    match next {
        PaneFrame::Output(bytes) => {
            pieces.push(Piece::Header(frame::header(frame::OUTPUT, bytes.len())));
            pieces.push(Piece::Shared(bytes));
        }
        PaneFrame::Snapshot { bytes, rows, cols } => {
            // The size first, so the client paints at the right size.
            pieces.push(Piece::Owned(frame::size(rows, cols)));
            pieces.push(Piece::Header(frame::header(frame::SNAPSHOT, bytes.len())));
            pieces.push(Piece::Shared(bytes));
        }
        PaneFrame::State(status) => {
            let payload = json!(StateFrame {
                state: status.state,
                exit_code: status.exit_code,
                revive: status.revive.map(wire_revive),
                shift_enter_as: status.shift_enter_as,
            })
            .to_string();
            pieces.push(Piece::Owned(frame::encode(
                frame::STATE,
                payload.as_bytes(),
            )));
        }
    }
}

/// What reviving a pane runs, as the attach reply and state frames tell it.
pub(crate) fn wire_revive(revive: subscribers::Revive) -> Revive {
    match revive {
        subscribers::Revive::Resume { argv, dropped } => Revive {
            action: ReviveAction::Resume,
            argv,
            dropped,
        },
        subscribers::Revive::Respawn(argv) => Revive {
            action: ReviveAction::Respawn,
            argv,
            dropped: Vec::new(),
        },
    }
}

/// Writes every piece, in as few `writev`s as the connection takes.
async fn write_all(
    writer: &mut (impl AsyncWrite + Unpin),
    pieces: &[Piece],
) -> std::io::Result<()> {
    let mut slices: Vec<IoSlice<'_>> = pieces.iter().map(|p| IoSlice::new(p.as_ref())).collect();
    let mut rest: &mut [IoSlice<'_>] = &mut slices;
    while !rest.is_empty() {
        let written = writer.write_vectored(rest).await?;
        if written == 0 {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        IoSlice::advance_slices(&mut rest, written);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use signaltty_actors::model::PaneState;
    use signaltty_actors::pane::subscribers::PaneStatus;
    use tokio::sync::mpsc;

    use super::*;

    /// A connection that takes at most `max` bytes per write and counts
    /// the writes.
    struct Trickle {
        max: usize,
        writes: usize,
        out: Vec<u8>,
    }

    impl AsyncWrite for Trickle {
        fn poll_write(
            self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<std::io::Result<usize>> {
            self.poll_write_vectored(cx, &[IoSlice::new(buf)])
        }

        fn poll_write_vectored(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
            bufs: &[IoSlice<'_>],
        ) -> Poll<std::io::Result<usize>> {
            self.writes += 1;
            let mut room = self.max;
            let mut written = 0;
            for buf in bufs {
                let take = buf.len().min(room);
                self.out.extend_from_slice(&buf[..take]);
                (room, written) = (room - take, written + take);
            }
            Poll::Ready(Ok(written))
        }

        fn is_write_vectored(&self) -> bool {
            true
        }

        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Ok(()))
        }

        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    /// A closed queue holding `frames`, and the bytes they stand for on
    /// the wire, encoded one frame at a time.
    fn queued(frames: Vec<PaneFrame>) -> (Receiver<PaneFrame>, Vec<u8>) {
        let (tx, rx) = mpsc::channel(frames.len());
        let mut wire = Vec::new();
        for next in frames {
            let mut pieces = Vec::new();
            encode(next.clone(), &mut pieces);
            for piece in &pieces {
                wire.extend_from_slice(piece.as_ref());
            }
            tx.try_send(next).unwrap();
        }
        (rx, wire)
    }

    fn mixed(outputs: usize) -> Vec<PaneFrame> {
        let mut frames = vec![PaneFrame::Snapshot {
            bytes: Bytes::from_static(b"\x1b[Hpicture"),
            rows: 24,
            cols: 80,
        }];
        frames.extend((0..outputs).map(|i| PaneFrame::Output(Bytes::from(format!("line {i}\n")))));
        frames.push(PaneFrame::State(PaneStatus {
            state: PaneState::Exited,
            exit_code: Some(3),
            revive: None,
            shift_enter_as: None,
        }));
        frames
    }

    #[tokio::test]
    async fn queued_frames_go_out_in_one_write() {
        let (mut queue, wire) = queued(mixed(20));
        let mut conn = Trickle {
            max: usize::MAX,
            writes: 0,
            out: Vec::new(),
        };
        forward(&mut queue, &mut conn).await;
        assert_eq!(conn.writes, 1);
        assert_eq!(conn.out, wire);
        // Exactly what the frames encode to, one by one.
        assert_eq!(
            &wire[..frame::HEADER],
            &frame::size(24, 80)[..frame::HEADER]
        );
        assert!(String::from_utf8_lossy(&wire).ends_with("EXITED\"}"));
    }

    #[tokio::test]
    async fn a_batch_is_bounded_and_a_short_write_continues_where_it_stopped() {
        let (mut queue, wire) = queued(mixed(3 * BATCH_FRAMES));
        let mut conn = Trickle {
            max: 7,
            writes: 0,
            out: Vec::new(),
        };
        forward(&mut queue, &mut conn).await;
        assert_eq!(conn.out, wire, "nothing lost, doubled or reordered");
        assert!(conn.writes >= wire.len() / 7);

        let (mut queue, wire) = queued(mixed(3 * BATCH_FRAMES));
        let mut conn = Trickle {
            max: usize::MAX,
            writes: 0,
            out: Vec::new(),
        };
        forward(&mut queue, &mut conn).await;
        assert_eq!(conn.out, wire);
        let frames = 3 * BATCH_FRAMES + 2;
        assert_eq!(conn.writes, frames.div_ceil(BATCH_FRAMES));
    }
}
