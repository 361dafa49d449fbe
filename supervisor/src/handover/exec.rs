//! The exec itself: the process becomes the new binary, keeping its pid
//! (so the panes' children stay its children, and their exit codes reach
//! it), and keeping the descriptors the handover names.

use std::ffi::CString;
use std::os::fd::RawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::state::set_inherited;

/// Where the new binary finds the handover: the memfd's number.
pub const HANDOVER_FD_ENV: &str = "SIGNALTTY_HANDOVER_FD";

/// Execs `binary` with this process's own arguments, `keep` and the
/// handover (`handover_fd`) inherited. Returns only if the exec failed,
/// with every descriptor close-on-exec again.
pub fn exec(binary: &Path, keep: &[RawFd], handover_fd: RawFd) -> std::io::Error {
    let (argv, envp) = match arguments(binary, handover_fd) {
        Ok(both) => both,
        Err(e) => return e,
    };
    let all: Vec<RawFd> = keep.iter().copied().chain([handover_fd]).collect();
    for (done, &fd) in all.iter().enumerate() {
        if let Err(e) = set_inherited(fd, true) {
            restore(&all[..done]);
            return e;
        }
    }
    let program = argv[0].clone();
    let argv_ptrs = pointers(&argv);
    let envp_ptrs = pointers(&envp);
    // SAFETY: every pointer is to a NUL-terminated string that outlives
    // the call, and both arrays end with a null pointer. execve(2) only
    // returns on failure.
    unsafe { libc::execve(program.as_ptr(), argv_ptrs.as_ptr(), envp_ptrs.as_ptr()) };
    let error = std::io::Error::last_os_error();
    restore(&all);
    error
}

fn restore(fds: &[RawFd]) {
    for &fd in fds {
        let _ = set_inherited(fd, false);
    }
}

/// The new binary's argv (this process's, the program replaced) and its
/// environment (this one's, with [`HANDOVER_FD_ENV`]).
fn arguments(binary: &Path, handover_fd: RawFd) -> std::io::Result<(Vec<CString>, Vec<CString>)> {
    let c = |bytes: &[u8]| {
        CString::new(bytes).map_err(|_| std::io::Error::other("an argument holds a NUL byte"))
    };
    let mut argv = vec![c(binary.as_os_str().as_bytes())?];
    for arg in std::env::args_os().skip(1) {
        argv.push(c(arg.as_bytes())?);
    }
    let mut envp = Vec::new();
    for (key, value) in std::env::vars_os() {
        if key == HANDOVER_FD_ENV {
            continue;
        }
        let mut pair = key;
        pair.push("=");
        pair.push(value);
        envp.push(c(pair.as_bytes())?);
    }
    envp.push(c(format!("{HANDOVER_FD_ENV}={handover_fd}").as_bytes())?);
    Ok((argv, envp))
}

fn pointers(strings: &[CString]) -> Vec<*const libc::c_char> {
    strings
        .iter()
        .map(|s| s.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect()
}
