//! A client's connection: its two halves and the bounds it shares with
//! every other client, read a request line at a time by the listener and
//! handed whole to a stream once a request turns it into one.

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};

use crate::limits::ClientLimits;

pub struct Connection {
    pub reader: BufReader<OwnedReadHalf>,
    pub writer: OwnedWriteHalf,
    /// What all clients together may make the server hold.
    pub limits: ClientLimits,
}

/// Resolves when the client closes the connection (or its writing half);
/// never, if it sends another request instead (that one is read after).
pub async fn client_gone(reader: &mut BufReader<OwnedReadHalf>) {
    match reader.fill_buf().await {
        Ok(pending) if !pending.is_empty() => std::future::pending().await,
        _ => {}
    }
}
