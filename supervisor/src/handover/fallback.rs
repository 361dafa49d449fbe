//! The new image gives everything back if it fails to take over.
//!
//! The check ([`super::check`]) proves the new binary reads the handover,
//! but its takeover can still fail after the exec: an error in its start,
//! or a panic, before it answered the caller. Then it execs the binary
//! that handed over (opened by that image before its exec, so a file that
//! `cargo install` replaced still runs) with the same handover, and that
//! one takes over again and tells the caller why. For that, every
//! descriptor the handover names is duplicated while it is armed: a
//! failing start may already have closed some, and they are put back at
//! their numbers before the exec.

use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::Mutex;

use tracing::warn;

use super::exec::exec_fallback;
use super::state::{Header, set_inherited};

/// What a fall back needs, kept from the takeover's start to its answer.
pub struct Fallback {
    /// The binary of the image that handed over.
    previous: OwnedFd,
    /// A copy of the handover's memfd (the takeover consumes its own).
    handover: File,
    /// Each named descriptor's number, and a copy of it.
    copies: Vec<(RawFd, OwnedFd)>,
}

static ARMED: Mutex<Option<Fallback>> = Mutex::new(None);

impl Fallback {
    /// Prepares a fall back to the binary open at `previous` with the
    /// handover at `handover`; `None` (logged) if either cannot be kept.
    ///
    /// # Safety
    /// `previous` was inherited across the exec and nothing else owns it;
    /// `handover` is open.
    pub unsafe fn new(previous: RawFd, handover: RawFd) -> Option<Fallback> {
        // SAFETY: the caller's promise.
        let previous = unsafe { OwnedFd::from_raw_fd(previous) };
        let made = set_inherited(previous.as_raw_fd(), false)
            .and_then(|()| copy(handover))
            .map(|handover| Fallback {
                previous,
                handover: File::from(handover),
                copies: Vec::new(),
            });
        made.map_err(|e| warn!(error = %e, "no way back if this takeover fails"))
            .ok()
    }

    /// Keeps a copy of every descriptor `header` names, and [`arm`]s.
    pub fn arm(mut self, header: &Header) {
        for fd in header.inherited_fds() {
            match copy(fd) {
                Ok(copied) => self.copies.push((fd, copied)),
                Err(e) => {
                    warn!(error = %e, "no way back if this takeover fails");
                    return;
                }
            }
        }
        arm(self);
    }

    /// Execs the previous binary with the handover, saying `why`. Returns
    /// only if that failed.
    pub fn fall_back(mut self, why: &str) -> std::io::Error {
        for (number, copy) in &self.copies {
            // SAFETY: dup2(2) onto a number this process may reuse: it is
            // about to exec, and the number is the handover's to name.
            if unsafe { libc::dup2(copy.as_raw_fd(), *number) } < 0 {
                return std::io::Error::last_os_error();
            }
        }
        if let Err(e) = self.handover.seek(SeekFrom::Start(0)) {
            return e;
        }
        let keep: Vec<RawFd> = self.copies.iter().map(|(number, _)| *number).collect();
        exec_fallback(
            self.previous.as_raw_fd(),
            &keep,
            self.handover.as_raw_fd(),
            why,
        )
    }
}

/// A close-on-exec copy of `fd`.
fn copy(fd: RawFd) -> Result<OwnedFd, std::io::Error> {
    // SAFETY: fcntl(2) with plain integers; the copy is ours alone.
    let copied = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) };
    if copied < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: just made, owned by nothing else.
    Ok(unsafe { OwnedFd::from_raw_fd(copied) })
}

/// From now until [`disarm`], a panic anywhere gives everything back to
/// the previous binary (the panic is reported first, as ever).
fn arm(fallback: Fallback) {
    if let Ok(mut armed) = ARMED.lock() {
        *armed = Some(fallback);
    }
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        previous_hook(info);
        // "it panicked at FILE:LINE:COL: MESSAGE"
        fall_back(&format!("it {info}"));
    }));
}

/// The takeover is done (the caller answered): nothing falls back, and
/// the copies are closed.
pub fn disarm() {
    if let Ok(mut armed) = ARMED.lock() {
        armed.take();
    }
}

/// Gives everything back to the previous binary if armed, saying `why`
/// the takeover failed. Returns if not armed, or if that exec failed.
pub fn fall_back(why: &str) {
    // `try_lock`: a panic while the lock is held must not wait on itself.
    let fallback = ARMED.try_lock().ok().and_then(|mut armed| armed.take());
    if let Some(fallback) = fallback {
        tracing::error!(why, "the takeover failed; giving everything back");
        let error = fallback.fall_back(why);
        tracing::error!(error = %error, "could not give everything back");
    }
}
