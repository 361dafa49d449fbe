//! How the server's freed memory goes back to the system.
//!
//! The server runs on glibc's allocator, which this module tunes and
//! nudges; it must never allocate for anyone or keep anything.
//!
//! **Large blocks stay mapped on their own** ([`keep_large_blocks_mapped`]).
//! glibc maps a block of 128 KiB or more by itself and unmaps it when it
//! is freed, unless its threshold has moved: freeing such a block raises
//! the threshold to that block's size. The first pane screen to freeze
//! frees its parser's 2 MiB buffer (vte reserves it for synchronized
//! updates and almost never touches it), and from then on every block up
//! to 2 MiB came from the arenas instead: the 1 MiB blocks a screen copies
//! a flood's rows into, each pane's parser buffer. Carved out between the
//! small allocations that outlive them, they left the arenas in pieces no
//! trim could give back whole. 100 panes that each ran `seq 1 12000`
//! (`/tmp` script, 3 alternating rounds) held 169–257 KiB a pane 1 s after
//! their output at 80x24 and 181–256 at 200x50; with the threshold pinned
//! at 128 KiB, 78–81 and 86–93, and the spread was gone (docs/bench/HISTORY.md,
//! "Large blocks mapped on their own", has the benchmark's figures).
//!
//! **Free pages go back once a screen freezes or lets go of much**
//! ([`trim_soon`]): small blocks freed into an arena stay with it until
//! something trims it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The size from which a block is mapped on its own: glibc's default,
/// pinned.
const MAPPED_FROM: usize = 128 * 1024;

/// How long after a freeze (or a screen letting go of a flood's rows) the
/// server's free memory is given back, and so how often at most: the
/// screens of a batch of quiet panes freeze within moments of each other,
/// and one trim serves them all. Short enough that a user switching tabs a second after a
/// flood does not meet its peak (at 1 s, half the readings 1 s after 100
/// panes' floods still saw it: 308 against 198 KiB a pane); a trim walks
/// the arenas on a blocking thread, off the workers.
const TRIM_EVERY: Duration = Duration::from_millis(250);

/// A trim is scheduled; the one flag the panes share.
static TRIM_DUE: AtomicBool = AtomicBool::new(false);

/// Pins the size from which blocks are mapped on their own, so that
/// freeing one never sends the next ones into the arenas. Once, as the
/// server starts.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn keep_large_blocks_mapped() {
    // SAFETY: mallopt takes two plain integers and only sets a parameter
    // of the allocator, under its lock.
    let set = unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, MAPPED_FROM as libc::c_int) };
    if set != 1 {
        tracing::warn!("could not pin the allocator's mmap threshold");
    }
}

/// Other allocators place large blocks by rules of their own.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn keep_large_blocks_mapped() {}

/// Gives the allocator's free pages back to the system a moment from now,
/// unless that is already planned (or there is no runtime to plan it on:
/// a screen used outside the server).
pub(crate) fn trim_soon() {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    if TRIM_DUE.swap(true, Ordering::AcqRel) {
        return;
    }
    runtime.spawn(async {
        tokio::time::sleep(TRIM_EVERY).await;
        TRIM_DUE.store(false, Ordering::Release);
        // It walks every arena, holding its lock: not on a worker thread.
        let _ = tokio::task::spawn_blocking(release_free_memory).await;
    });
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn release_free_memory() {
    // SAFETY: malloc_trim takes a plain integer and only touches the
    // allocator's own state, under its locks.
    unsafe { libc::malloc_trim(0) };
}

/// Other allocators return memory by themselves, or not at all.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn release_free_memory() {}
