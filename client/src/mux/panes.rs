//! The connection to each visible pane: attached with `pane.attach` (a
//! snapshot, then output from exactly where it ends; a fresh screen when
//! this client falls behind), parsed on a thread of its own into a local
//! screen the renderer copies from. Input and resizes go back on the same
//! connection.

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use anyhow::Result;
use signaltty_protocol::{CatchUp, NewlineKey, PaneState, Revive, StateFrame, frame, params};
use signaltty_screen::{KeyTarget, Screen, ScreenEvent, Size};

use super::Event;
use crate::client::{Connection, Endpoint, connect_stream};

/// How long input to a pane may wait on its socket before it is dropped:
/// a stuck server must not freeze the multiplexer.
const WRITE_TIMEOUT: Duration = Duration::from_secs(2);

/// Numbers links, so that the end of a dropped connection is never taken
/// for the end of the one that replaced it.
static LINKS_OPENED: AtomicU64 = AtomicU64::new(0);

/// What the server last said about a pane's process.
#[derive(Debug, Clone, PartialEq)]
pub struct PaneStatus {
    pub state: PaneState,
    pub exit_code: Option<i32>,
    /// What `r` runs, for a pane with no process.
    pub revive: Option<Revive>,
    /// What Shift+Enter is sent as (see [`KeyTarget`]).
    pub shift_enter_as: Option<NewlineKey>,
}

impl PaneStatus {
    pub fn live(&self) -> bool {
        self.state == PaneState::Live
    }
}

/// What the reader thread and the renderer share.
pub struct Shared {
    pub screen: Mutex<Screen>,
    pub status: Mutex<PaneStatus>,
    /// Set by the reader when the screen changed, cleared by the renderer.
    pub dirty: AtomicBool,
    /// Bytes parsed since the renderer last copied the screen.
    pub fed: AtomicUsize,
}

impl Shared {
    pub fn screen(&self) -> std::sync::MutexGuard<'_, Screen> {
        self.screen.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// What decides the bytes a key becomes for the pane's program.
    pub fn key_target(&self) -> KeyTarget {
        let shift_enter_as = self
            .status
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .shift_enter_as;
        KeyTarget {
            modes: self.screen().modes(),
            shift_enter_as,
        }
    }

    pub fn status(&self) -> PaneStatus {
        self.status
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

pub struct PaneLink {
    writer: UnixStream,
    /// Held while the pane is on screen: for a remote server, the ssh that
    /// carries it.
    _connection: Connection,
    pub shared: Arc<Shared>,
    /// The size this client last asked the pane to be.
    pub asked: (u16, u16),
    pub broken: bool,
    /// Keys typed after the connection broke (an upgrade's exec closes
    /// it), for the pane's next link: the multiplexer takes them at its
    /// next listing or when this link's reader ends.
    unsent: Vec<u8>,
    /// Which connection to the pane this is (see [`Event::PaneClosed`]).
    pub serial: u64,
}

impl PaneLink {
    /// Attaches to `pane` at `size` (rows, cols); frames are read on a
    /// thread that reports to `events`.
    pub fn open(
        endpoint: &Endpoint,
        pane: &str,
        size: (u16, u16),
        events: Sender<Event>,
    ) -> Result<PaneLink> {
        let attached = crate::stream::attach(
            connect_stream(endpoint)?,
            params::PaneAttach {
                pane: pane.to_string().into(),
                rows: Some(size.0),
                cols: Some(size.1),
                // Being on screen is not being looked at: focus says that.
                keep_attention: true,
                catch_up: CatchUp::Screen,
            },
        )?;
        let reply = attached.reply;
        let shared = Arc::new(Shared {
            screen: Mutex::new(Screen::new(
                Size {
                    rows: reply.rows,
                    cols: reply.cols,
                },
                0,
            )),
            status: Mutex::new(PaneStatus {
                state: reply.state,
                exit_code: reply.exit_code,
                revive: reply.revive,
                shift_enter_as: reply.shift_enter_as,
            }),
            dirty: AtomicBool::new(false),
            fed: AtomicUsize::new(0),
        });
        attached.writer.set_write_timeout(Some(WRITE_TIMEOUT))?;
        let reader_shared = shared.clone();
        let id = pane.to_string();
        let mut reader = attached.reader;
        let serial = LINKS_OPENED.fetch_add(1, Ordering::Relaxed);
        std::thread::Builder::new()
            .name("mux-pane".into())
            .spawn(move || {
                read_frames(&mut reader, &reader_shared, &id, &events);
                let _ = events.send(Event::PaneClosed(id, serial));
            })?;
        Ok(PaneLink {
            writer: attached.writer,
            _connection: attached.connection,
            shared,
            asked: size,
            broken: false,
            unsent: Vec::new(),
            serial,
        })
    }

    /// Keys for the pane. If another client has sized it since, it takes
    /// this client's size again: the client in use wins, as in tmux.
    pub fn input(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let size = self.shared.screen().size();
        if (size.rows, size.cols) != self.asked {
            self.send(&frame::resize(self.asked.0, self.asked.1));
        }
        self.send(&frame::encode(frame::INPUT, bytes));
        if self.broken && self.unsent.len() + bytes.len() <= super::UNSENT_BOUND {
            self.unsent.extend_from_slice(bytes);
        }
    }

    /// The keys this link could not send (see [`PaneLink::input`]).
    pub fn take_unsent(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.unsent)
    }

    /// Asks the pane to take `size`, unless it was the last size asked.
    pub fn resize(&mut self, size: (u16, u16)) {
        if size != self.asked {
            self.asked = size;
            self.send(&frame::resize(size.0, size.1));
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        if self.writer.write_all(bytes).is_err() {
            self.broken = true;
        }
    }
}

impl Drop for PaneLink {
    fn drop(&mut self) {
        // Ends the reader thread too.
        let _ = self.writer.shutdown(std::net::Shutdown::Both);
    }
}

fn read_frames(reader: &mut impl std::io::Read, shared: &Shared, id: &str, events: &Sender<Event>) {
    let mut screen_events = Vec::new();
    while let Some((kind, payload)) = crate::stream::read_frame(reader) {
        match kind {
            frame::SIZE => {
                if let Some((rows, cols)) = frame::parse_resize(&payload) {
                    shared.screen().resize(Size { rows, cols });
                }
                continue;
            }
            frame::SNAPSHOT | frame::OUTPUT => {
                shared.screen().feed(&payload, &mut screen_events);
                shared.fed.fetch_add(payload.len(), Ordering::AcqRel);
                // The server answered the program's queries already; a
                // bell is passed on to the user's terminal.
                if screen_events.drain(..).any(|e| e == ScreenEvent::Bell) {
                    let _ = events.send(Event::Bell(id.to_string()));
                }
            }
            frame::STATE => {
                let Ok(state) = serde_json::from_slice::<StateFrame>(&payload) else {
                    continue;
                };
                *shared.status.lock().unwrap_or_else(PoisonError::into_inner) = PaneStatus {
                    state: state.state,
                    exit_code: state.exit_code,
                    revive: state.revive,
                    shift_enter_as: state.shift_enter_as,
                };
            }
            _ => continue,
        }
        if !shared.dirty.swap(true, Ordering::AcqRel) && events.send(Event::PaneDirty).is_err() {
            return;
        }
    }
}
