//! A pane handed from this server to the binary that replaces it in place
//! (`signaltty upgrade`; the supervisor's `handover` runs it).
//!
//! The child keeps running on its terminal throughout: the pane stops
//! reading it ([`PaneMsg::Pause`](super::PaneMsg::Pause)), so what the
//! child prints meanwhile waits in the terminal for the next server; then
//! it describes itself ([`HandedPane`]): its record and state, its screen
//! frozen and encoded, its child's pid and the terminal's descriptor, which
//! `execve` carries over. If the handover fails, it reads again
//! ([`PaneMsg::Unpause`](super::PaneMsg::Unpause)) and nothing changed.
//! After the exec the new server starts each pane from its description
//! ([`PaneStart::Adopt`](super::PaneStart::Adopt)).

use std::os::fd::OwnedFd;

use signaltty_persistence::ProcessRecord;
use signaltty_screen::{DecodeError, FrozenScreen};
use signaltty_types::PaneRecord;

use crate::model::PaneState;

/// Everything a pane is, for the server that takes over. `Master` is the
/// terminal's descriptor: a number while this server still owns it, an
/// [`OwnedFd`] once the next one has taken it.
#[derive(Debug)]
pub struct HandedPane<Master = OwnedFd> {
    pub record: PaneRecord,
    pub state: PaneState,
    /// The incarnation of the pane's process (see `Pane::spawn`).
    pub spawn: u64,
    pub screen: HandedScreen,
    pub process: Option<HandedChild<Master>>,
}

/// A pane's screen: encoded, or (a restored pane nobody looked at yet) its
/// saved tail, still unparsed.
#[derive(Debug)]
pub enum HandedScreen {
    Encoded(Vec<u8>),
    Tail(String),
}

/// The pane's child on its terminal.
#[derive(Debug)]
pub struct HandedChild<Master = OwnedFd> {
    pub pid: i32,
    pub master: Master,
    pub identity: Option<ProcessRecord>,
    /// Reaped already, its last output still draining: its exit code.
    pub exit_code: Option<i32>,
}

/// The screen's bytes for the next server (its scrollback, modes and
/// the parser's unfinished sequence included).
pub(super) fn encode_screen(frozen: &FrozenScreen) -> Vec<u8> {
    frozen.encode()
}

/// The screen `encode_screen` made, frozen again.
pub fn decode_screen(bytes: &[u8]) -> Result<FrozenScreen, DecodeError> {
    FrozenScreen::decode(bytes)
}
