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
/// The binary of the image that handed over, opened: the new image execs
/// it again if it fails to take over (see [`super::fallback`]).
pub const FALLBACK_FD_ENV: &str = "SIGNALTTY_HANDOVER_FALLBACK_FD";
/// Set for an image the new one gave everything back to: why it did.
pub const REFUSED_ENV: &str = "SIGNALTTY_HANDOVER_REFUSED";

/// What to exec.
enum Program<'a> {
    /// The new binary, by its path.
    Path(&'a Path),
    /// The binary that handed over, by an open descriptor.
    Descriptor(RawFd),
}

/// Execs `binary` with this process's own arguments, `keep` and the
/// handover (`handover_fd`) inherited, and this binary opened for the new
/// image to fall back on. Returns only if the exec failed, with every
/// descriptor close-on-exec again.
pub fn exec(binary: &Path, keep: &[RawFd], handover_fd: RawFd) -> std::io::Error {
    // SAFETY: open(2) with a NUL-terminated path; the descriptor is ours.
    let this_binary = unsafe { libc::open(c"/proc/self/exe".as_ptr(), libc::O_RDONLY) };
    if this_binary < 0 {
        return std::io::Error::last_os_error();
    }
    let fallback = (FALLBACK_FD_ENV, this_binary.to_string());
    let error = replace_image(Program::Path(binary), keep, handover_fd, &[fallback]);
    // SAFETY: opened above and not given to anything else.
    unsafe { libc::close(this_binary) };
    error
}

/// Execs the binary open at `program` (the one that handed over) with
/// the handover, saying `refused`. Returns only if the exec failed.
pub fn exec_fallback(
    program: RawFd,
    keep: &[RawFd],
    handover_fd: RawFd,
    refused: &str,
) -> std::io::Error {
    let refused = (REFUSED_ENV, refused.to_string());
    replace_image(Program::Descriptor(program), keep, handover_fd, &[refused])
}

fn replace_image(
    program: Program,
    keep: &[RawFd],
    handover_fd: RawFd,
    extra_env: &[(&str, String)],
) -> std::io::Error {
    let handover = (HANDOVER_FD_ENV, handover_fd.to_string());
    let env: Vec<(&str, String)> = extra_env.iter().cloned().chain([handover]).collect();
    let (argv, envp) = match arguments(&program, &env) {
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
    let argv_ptrs = pointers(&argv);
    let envp_ptrs = pointers(&envp);
    // SAFETY: every pointer is to a NUL-terminated string that outlives
    // the call, and both arrays end with a null pointer. execve(2) and
    // fexecve(3) only return on failure.
    unsafe {
        match program {
            Program::Path(_) => {
                libc::execve(argv[0].as_ptr(), argv_ptrs.as_ptr(), envp_ptrs.as_ptr())
            }
            Program::Descriptor(fd) => libc::fexecve(fd, argv_ptrs.as_ptr(), envp_ptrs.as_ptr()),
        }
    };
    let error = std::io::Error::last_os_error();
    restore(&all);
    error
}

fn restore(fds: &[RawFd]) {
    for &fd in fds {
        let _ = set_inherited(fd, false);
    }
}

/// The argv (this process's, the program replaced when it is a path) and
/// the environment (this one's, the handover's variables replaced by
/// `env`).
fn arguments(
    program: &Program,
    env: &[(&str, String)],
) -> std::io::Result<(Vec<CString>, Vec<CString>)> {
    let c = |bytes: &[u8]| {
        CString::new(bytes).map_err(|_| std::io::Error::other("an argument holds a NUL byte"))
    };
    let mut args = std::env::args_os();
    let first = args.next().unwrap_or_default();
    let mut argv = vec![match program {
        Program::Path(binary) => c(binary.as_os_str().as_bytes())?,
        Program::Descriptor(_) => c(first.as_bytes())?,
    }];
    for arg in args {
        argv.push(c(arg.as_bytes())?);
    }
    let ours = [HANDOVER_FD_ENV, FALLBACK_FD_ENV, REFUSED_ENV];
    let mut envp = Vec::new();
    for (key, value) in std::env::vars_os() {
        if ours.iter().any(|name| key == *name) {
            continue;
        }
        let mut pair = key;
        pair.push("=");
        pair.push(value);
        envp.push(c(pair.as_bytes())?);
    }
    for (key, value) in env {
        envp.push(c(format!("{key}={value}").as_bytes())?);
    }
    Ok((argv, envp))
}

fn pointers(strings: &[CString]) -> Vec<*const libc::c_char> {
    strings
        .iter()
        .map(|s| s.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect()
}
