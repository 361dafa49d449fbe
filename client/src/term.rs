//! The user's terminal in raw mode, and giving it back.

use std::io::Write;
use std::os::fd::AsRawFd;
use std::sync::{Arc, Mutex, PoisonError};

/// What leaves every mode a program (or a client) may have turned on:
/// alternate screen, cursor keys, keypad, mouse, focus events, paste, the
/// scrolling region, the pen, a hidden cursor; then the screen is cleared.
pub const RESET: &[u8] = b"\x1b[0m\x1b[?1049l\x1b[?25h\x1b[?1l\x1b>\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1004l\x1b[?2004l\x1b[r\x1b[ q\x1b[H\x1b[2J";

/// The terminal on stdin in raw mode; dropping it puts everything back.
pub struct RawTerminal {
    fd: i32,
    saved: libc::termios,
    undo: KeyboardUndo,
}

/// The bytes that take back the keyboard protocols a client set on the
/// terminal (kitty flags it pushed, modifyOtherKeys), shared with whoever
/// sets them: they are stacked modes, which [`RESET`] cannot reset without
/// popping the user's shell's own, so each client undoes exactly its own.
#[derive(Clone, Debug, Default)]
pub struct KeyboardUndo(Arc<Mutex<Vec<u8>>>);

impl KeyboardUndo {
    /// What to write when the terminal is given back, replacing what was.
    pub fn set(&self, bytes: Vec<u8>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = bytes;
    }

    pub fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// A terminal's size, readable from any thread.
#[derive(Clone, Copy)]
pub struct TerminalHandle {
    fd: i32,
}

impl TerminalHandle {
    /// The terminal on stdin.
    pub fn stdin() -> TerminalHandle {
        TerminalHandle {
            fd: std::io::stdin().as_raw_fd(),
        }
    }

    /// Rows and columns; 24x80 if the terminal does not say.
    pub fn size(self) -> (u16, u16) {
        // SAFETY: TIOCGWINSZ fills a winsize we own.
        let mut size: libc::winsize = unsafe { std::mem::zeroed() };
        if unsafe { libc::ioctl(self.fd, libc::TIOCGWINSZ, &mut size) } == 0
            && size.ws_row > 0
            && size.ws_col > 0
        {
            (size.ws_row, size.ws_col)
        } else {
            (24, 80)
        }
    }
}

impl RawTerminal {
    pub fn enter() -> std::io::Result<RawTerminal> {
        let fd = std::io::stdin().as_raw_fd();
        // SAFETY: tcgetattr fills a termios we own; fd is stdin.
        let mut saved: libc::termios = unsafe { std::mem::zeroed() };
        if unsafe { libc::tcgetattr(fd, &mut saved) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let mut raw = saved;
        // SAFETY: cfmakeraw edits the termios we own.
        unsafe { libc::cfmakeraw(&mut raw) };
        // SAFETY: tcsetattr reads the termios we own.
        if unsafe { libc::tcsetattr(fd, libc::TCSANOW, &raw) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(RawTerminal {
            fd,
            saved,
            undo: KeyboardUndo::default(),
        })
    }

    /// Where to leave the bytes that undo keyboard protocols set on this
    /// terminal; they are written first when it is given back.
    pub fn keyboard_undo(&self) -> KeyboardUndo {
        self.undo.clone()
    }

    pub fn size(&self) -> (u16, u16) {
        self.handle().size()
    }

    pub fn handle(&self) -> TerminalHandle {
        TerminalHandle { fd: self.fd }
    }
}

impl Drop for RawTerminal {
    fn drop(&mut self) {
        // What was drawn has no picture of "before" to go back to: reset
        // every mode and clear.
        let mut out = std::io::stdout();
        // Before RESET, which leaves the alternate screen: a stack pushed
        // there is popped there.
        let _ = out.write_all(&self.undo.take());
        let _ = out.write_all(RESET);
        let _ = out.flush();
        // SAFETY: tcsetattr reads the termios we saved.
        unsafe { libc::tcsetattr(self.fd, libc::TCSANOW, &self.saved) };
    }
}

/// Signals a client acts on: SIGWINCH (the terminal was resized) and the
/// ones that end it (SIGTERM, SIGHUP, SIGINT).
pub const WATCHED: [i32; 4] = [
    signal_hook::consts::SIGWINCH,
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGHUP,
    signal_hook::consts::SIGINT,
];

/// Calls `on_signal` on a thread of its own for each of [`WATCHED`] until
/// the guard is dropped, which also restores their default handling.
pub fn watch_signals(
    mut on_signal: impl FnMut(i32) + Send + 'static,
) -> std::io::Result<SignalGuard> {
    let mut signals = signal_hook::iterator::Signals::new(WATCHED)?;
    let handle = signals.handle();
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                on_signal(signal);
            }
        })?;
    Ok(SignalGuard { handle })
}

pub struct SignalGuard {
    handle: signal_hook::iterator::Handle,
}

impl Drop for SignalGuard {
    fn drop(&mut self) {
        self.handle.close();
    }
}
