//! What crosses `execve`: the handover, written into a memfd the new
//! binary inherits.
//!
//! Layout: [`MAGIC`], the format (`u32`, little-endian) read before
//! anything else so a binary refuses a format it does not know with one
//! clear line, the header's length (`u64`), the header as JSON (the
//! snapshot, every pane's record and state, pids and descriptor numbers),
//! then the panes' encoded screens back to back, which the header points
//! into. Every length is checked against what was read.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::fd::{FromRawFd, OwnedFd, RawFd};

use serde::{Deserialize, Serialize};
use signaltty_actors::PaneState;
use signaltty_actors::pane::handover::{self, HandedChild, HandedPane, HandedScreen};
use signaltty_persistence::{SavedPane, Snapshot};
use signaltty_types::ProcessRecord;

/// The handover's first bytes.
pub const MAGIC: &[u8; 8] = b"sttyhand";
/// The format this binary writes, and the only one it reads.
pub const FORMAT: u32 = 1;
/// The most a handover may hold: hundreds of panes' screens and
/// scrollback fit many times over.
const MAX_BYTES: u64 = 4 << 30;

#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("the handover is not one (no signaltty handover header)")]
    NotAHandover,
    #[error(
        "the handover is format {found}, but this signaltty reads only format {FORMAT}; \
         upgrade to a build that reads it (nothing was changed)"
    )]
    Format { found: u32 },
    #[error("the handover is damaged: {0}")]
    Damaged(String),
    #[error("could not read or write the handover: {0}")]
    Io(#[from] std::io::Error),
}

/// Everything but the screens.
#[derive(Debug, Serialize, Deserialize)]
pub struct Header {
    /// Echoed by the check, so a binary that exits 0 without reading the
    /// handover does not pass.
    pub nonce: String,
    pub from_version: String,
    /// The new server's count of handovers, this one included.
    pub upgrades: u32,
    /// When the upgrade was asked for (ms since the epoch).
    pub requested_at: u64,
    pub binary: String,
    /// The listening socket and its lock, kept open across the exec: a
    /// client connecting meanwhile waits in the backlog.
    pub listener_fd: RawFd,
    pub lock_fd: RawFd,
    /// The connection that asked, answered by the new server.
    pub caller: Option<Caller>,
    pub snapshot: Snapshot,
    pub panes: Vec<PaneEntry>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Caller {
    pub fd: RawFd,
    pub request: u64,
    /// The server's other connections when it asked.
    #[serde(default)]
    pub other_connections: usize,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct PaneEntry {
    pub record: SavedPane,
    pub state: PaneState,
    pub spawn: u64,
    pub screen: ScreenEntry,
    pub child: Option<ChildEntry>,
}

#[derive(Debug, Serialize, Deserialize)]
pub enum ScreenEntry {
    /// Where its encoded screen lies among the blobs.
    Encoded {
        offset: u64,
        len: u64,
    },
    Tail(String),
}

#[derive(Debug, Serialize, Deserialize)]
pub struct ChildEntry {
    pub pid: i32,
    pub master_fd: RawFd,
    pub identity: Option<ProcessRecord>,
    pub exit_code: Option<i32>,
}

/// A handover as read back: the header and the screens it points into.
pub struct Handover {
    pub header: Header,
    blobs: Vec<u8>,
}

impl Header {
    /// Every descriptor the handover names: what crosses the exec with it.
    pub fn inherited_fds(&self) -> Vec<RawFd> {
        let masters = self.panes.iter().filter_map(|p| p.child.as_ref());
        masters
            .map(|child| child.master_fd)
            .chain([self.listener_fd, self.lock_fd])
            .chain(self.caller.map(|caller| caller.fd))
            .collect()
    }

    /// The header for `panes`, their screens moved into `blobs`.
    pub fn entries(panes: Vec<HandedPane<RawFd>>, blobs: &mut Vec<u8>) -> Vec<PaneEntry> {
        panes
            .into_iter()
            .map(|pane| PaneEntry {
                record: SavedPane::from_live(&pane.record),
                state: pane.state,
                spawn: pane.spawn,
                screen: match pane.screen {
                    HandedScreen::Encoded(bytes) => {
                        let offset = blobs.len() as u64;
                        blobs.extend_from_slice(&bytes);
                        ScreenEntry::Encoded {
                            offset,
                            len: bytes.len() as u64,
                        }
                    }
                    HandedScreen::Tail(tail) => ScreenEntry::Tail(tail),
                },
                child: pane.process.map(|child| ChildEntry {
                    pid: child.pid,
                    master_fd: child.master,
                    identity: child.identity,
                    exit_code: child.exit_code,
                }),
            })
            .collect()
    }
}

/// Writes the handover into a fresh memfd, which stays close-on-exec until
/// the exec itself.
pub fn write(header: &Header, blobs: &[u8]) -> Result<File, StateError> {
    let json = serde_json::to_vec(header).map_err(|e| StateError::Damaged(e.to_string()))?;
    // SAFETY: memfd_create(2) with a NUL-terminated name; the descriptor it
    // returns is ours alone.
    let fd = unsafe { libc::memfd_create(c"signaltty-handover".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error().into());
    }
    // SAFETY: as above.
    let mut file = File::from(unsafe { OwnedFd::from_raw_fd(fd) });
    file.write_all(MAGIC)?;
    file.write_all(&FORMAT.to_le_bytes())?;
    file.write_all(&(json.len() as u64).to_le_bytes())?;
    file.write_all(&json)?;
    file.write_all(blobs)?;
    file.seek(SeekFrom::Start(0))?;
    Ok(file)
}

/// Reads a handover from its start; a format other than [`FORMAT`] is
/// refused before the rest is looked at.
pub fn read(mut file: impl Read) -> Result<Handover, StateError> {
    let mut magic = [0; 8];
    file.read_exact(&mut magic)
        .map_err(|_| StateError::NotAHandover)?;
    if &magic != MAGIC {
        return Err(StateError::NotAHandover);
    }
    let mut word = [0; 4];
    file.read_exact(&mut word)?;
    let found = u32::from_le_bytes(word);
    if found != FORMAT {
        return Err(StateError::Format { found });
    }
    let mut len = [0; 8];
    file.read_exact(&mut len)?;
    let len = u64::from_le_bytes(len);
    if len > MAX_BYTES {
        return Err(StateError::Damaged(format!("a header of {len} bytes")));
    }
    let mut json = Vec::new();
    (&mut file).take(len).read_to_end(&mut json)?;
    if json.len() as u64 != len {
        return Err(StateError::Damaged("the header is cut short".into()));
    }
    let header: Header =
        serde_json::from_slice(&json).map_err(|e| StateError::Damaged(e.to_string()))?;
    let mut blobs = Vec::new();
    file.take(MAX_BYTES).read_to_end(&mut blobs)?;
    Ok(Handover { header, blobs })
}

impl Handover {
    /// The screen `entry` points at.
    fn screen(&self, entry: &ScreenEntry) -> Result<HandedScreen, StateError> {
        match entry {
            ScreenEntry::Tail(tail) => Ok(HandedScreen::Tail(tail.clone())),
            ScreenEntry::Encoded { offset, len } => {
                let bytes = usize::try_from(*offset)
                    .ok()
                    .zip(usize::try_from(*len).ok())
                    .and_then(|(offset, len)| self.blobs.get(offset..offset.checked_add(len)?))
                    .ok_or_else(|| StateError::Damaged("a screen lies past the end".into()))?;
                Ok(HandedScreen::Encoded(bytes.to_vec()))
            }
        }
    }

    /// Checks everything a takeover will read, descriptors aside: what the
    /// new binary's check runs before the old server gives anything up.
    pub fn check(&self) -> Result<(), StateError> {
        for pane in &self.header.panes {
            if let HandedScreen::Encoded(bytes) = self.screen(&pane.screen)? {
                handover::decode_screen(&bytes).map_err(|e| StateError::Damaged(e.to_string()))?;
            }
            if let Some(child) = &pane.child
                && (child.pid <= 0 || child.master_fd < 0)
            {
                return Err(StateError::Damaged(format!(
                    "pane {} has pid {} on descriptor {}",
                    pane.record.id, child.pid, child.master_fd
                )));
            }
        }
        Ok(())
    }

    /// The panes, each owning the terminal it inherited.
    ///
    /// # Safety
    /// Only in the process the handover was written for, right after the
    /// exec: every descriptor it names was inherited and nothing else owns
    /// it.
    pub unsafe fn into_panes(self) -> Result<(Header, Vec<HandedPane>), StateError> {
        let mut panes = Vec::with_capacity(self.header.panes.len());
        for entry in &self.header.panes {
            let screen = self.screen(&entry.screen)?;
            let process = entry.child.as_ref().map(|child| HandedChild {
                pid: child.pid,
                // SAFETY: the caller's promise.
                master: unsafe { OwnedFd::from_raw_fd(child.master_fd) },
                identity: child.identity,
                exit_code: child.exit_code,
            });
            panes.push(HandedPane {
                record: entry.record.clone().into_live(),
                state: entry.state,
                spawn: entry.spawn,
                screen,
                process,
            });
        }
        Ok((self.header, panes))
    }
}

/// Clears (`inherit`) or sets close-on-exec on `fd`.
pub fn set_inherited(fd: RawFd, inherit: bool) -> std::io::Result<()> {
    let flags = if inherit { 0 } else { libc::FD_CLOEXEC };
    // SAFETY: fcntl(2) with plain integers on a descriptor this process
    // holds open.
    if unsafe { libc::fcntl(fd, libc::F_SETFD, flags) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}
