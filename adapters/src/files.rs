//! Reading the few files this crate is asked to read, safely.
//!
//! Agents' session stores and users' rule files are read on the server's
//! behalf, so a read must never block (a FIFO where a file was expected),
//! never follow the file into something huge, and never take more than a
//! bound.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Opens `path` if it is a regular file: `Ok(None)` when it does not exist.
fn open_regular(path: &Path) -> std::io::Result<Option<File>> {
    let file = match OpenOptions::new()
        .read(true)
        // Opening a FIFO for reading would otherwise wait for a writer.
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    Ok(Some(file))
}

/// The whole of `path` as UTF-8 text if it is a regular file of at most
/// `max` bytes. `Ok(None)` when it does not exist.
pub(crate) fn read_bounded(path: &Path, max: u64) -> std::io::Result<Option<String>> {
    let Some(file) = open_regular(path)? else {
        return Ok(None);
    };
    let mut text = String::new();
    file.take(max + 1).read_to_string(&mut text)?;
    if text.len() as u64 > max {
        return Err(std::io::Error::other(format!("larger than {max} bytes")));
    }
    Ok(Some(text))
}

/// The first line of `path` (without its newline), read up to `max` bytes;
/// `None` if the file is missing, not regular, or its first line longer.
pub(crate) fn first_line(path: &Path, max: u64) -> Option<String> {
    let file = open_regular(path).ok()??;
    let mut line = Vec::new();
    BufReader::new(file.take(max + 1))
        .read_until(b'\n', &mut line)
        .ok()?;
    if line.last() == Some(&b'\n') {
        line.pop();
    } else if line.len() as u64 > max {
        return None;
    }
    String::from_utf8(line).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_bounded_and_only_of_regular_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, "one\ntwo\n").unwrap();
        assert_eq!(read_bounded(&path, 100).unwrap().unwrap(), "one\ntwo\n");
        assert!(read_bounded(&path, 4).is_err(), "larger than the bound");
        assert_eq!(first_line(&path, 100).unwrap(), "one");
        assert!(first_line(&path, 2).is_none());
        assert!(
            read_bounded(&dir.path().join("none"), 10)
                .unwrap()
                .is_none()
        );
        assert!(read_bounded(dir.path(), 10).is_err(), "a directory");
        let fifo = dir.path().join("fifo");
        let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid C string; mkfifo touches nothing else.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        assert!(read_bounded(&fifo, 10).is_err(), "a FIFO never blocks");
        assert!(first_line(&fifo, 10).is_none());
    }
}
