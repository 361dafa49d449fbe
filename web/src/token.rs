//! The login token: 256 random bits, made on first start, kept in a file
//! only its owner can read, in a directory only its owner can enter.
//!
//! The file is read again for every login and every request that needs a
//! session (64 bytes: cheaper than any way to be told it changed), so a
//! `signaltty web token --rotate` in another process takes effect on the
//! next request: a session remembers the token it logged in with, and
//! one whose token is no longer the file's is ended.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use signaltty_types::private_dir::{DirError, create_private_dir, my_uid};
use subtle::ConstantTimeEq;

/// The token's length in bytes: 256 bits.
const TOKEN_BYTES: usize = 32;
/// The file's name in the web directory.
const TOKEN_FILE: &str = "token";

#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("the web token's directory {0}")]
    Dir(DirError),
    #[error("could not {action} the web token {}: {source}", .path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "the web token {} {why}; remove it and run `signaltty web token --rotate` to make a new one",
        .path.display()
    )]
    Unsafe { path: PathBuf, why: String },
    #[error("the system's random number generator failed: {0}")]
    Random(getrandom::Error),
}

/// The token, as the hex text a person pastes into the login page.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    fn random() -> Result<Token, TokenError> {
        let mut bytes = [0u8; TOKEN_BYTES];
        getrandom::fill(&mut bytes).map_err(TokenError::Random)?;
        Ok(Token(hex(&bytes)))
    }

    #[cfg(test)]
    pub(crate) fn for_test(text: String) -> Token {
        Token(text)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `offered` is this token, in time that does not depend on
    /// where they differ (only on the offered length, which is no secret).
    pub fn matches(&self, offered: &str) -> bool {
        self.0.as_bytes().ct_eq(offered.trim().as_bytes()).into()
    }
}

/// Never shown by accident: a token in a log or a panic message is leaked.
impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(…)")
    }
}

/// Lowercase hex, two digits a byte.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0xf)]));
    }
    out
}

/// Where the token lives: `web/token` in the session's state dir.
#[derive(Debug, Clone)]
pub struct TokenFile {
    dir: PathBuf,
}

impl TokenFile {
    pub fn in_state_dir(state_dir: &Path) -> TokenFile {
        TokenFile {
            dir: state_dir.join("web"),
        }
    }

    pub fn path(&self) -> PathBuf {
        self.dir.join(TOKEN_FILE)
    }

    /// The token, made now if there is none yet.
    pub fn load_or_create(&self) -> Result<Token, TokenError> {
        create_private_dir(&self.dir).map_err(TokenError::Dir)?;
        match self.read() {
            Err(TokenError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                self.write_new()
            }
            other => other,
        }
    }

    /// A new token in place of the old one: every session of the old one
    /// ends at its next request.
    pub fn rotate(&self) -> Result<Token, TokenError> {
        create_private_dir(&self.dir).map_err(TokenError::Dir)?;
        self.write_new()
    }

    /// The token as the file holds it now. The directory is checked each
    /// time, and the file is opened without following a link and must be
    /// a regular file of this user that nobody else may read.
    pub fn read(&self) -> Result<Token, TokenError> {
        signaltty_types::private_dir::check_private_dir(&self.dir).map_err(TokenError::Dir)?;
        let path = self.path();
        let io = |action, source| TokenError::Io {
            action,
            path: path.clone(),
            source,
        };
        let mut file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&path)
            .map_err(|e| io("open", e))?;
        check_private_file(&file, &path)?;
        let mut text = String::new();
        (&mut file)
            .take(4 * TOKEN_BYTES as u64)
            .read_to_string(&mut text)
            .map_err(|e| io("read", e))?;
        let text = text.trim();
        if text.len() != 2 * TOKEN_BYTES || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(TokenError::Unsafe {
                path,
                why: format!("does not hold {} hex digits", 2 * TOKEN_BYTES),
            });
        }
        Ok(Token(text.to_ascii_lowercase()))
    }

    /// Writes a new token beside the file and renames it into place, so a
    /// reader sees the old token or the new one, never half of one.
    fn write_new(&self) -> Result<Token, TokenError> {
        let token = Token::random()?;
        let path = self.path();
        let fresh = self
            .dir
            .join(format!(".{TOKEN_FILE}.{}", std::process::id()));
        let io = |action, source| TokenError::Io {
            action,
            path: path.clone(),
            source,
        };
        // A leftover of a crashed rotation is ours to replace; create_new
        // then refuses anything that appeared in between.
        let _ = std::fs::remove_file(&fresh);
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&fresh)
            .map_err(|e| io("create", e))?;
        file.write_all(format!("{}\n", token.as_str()).as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(|e| io("write", e))?;
        std::fs::rename(&fresh, &path).map_err(|e| io("replace", e))?;
        Ok(token)
    }
}

fn check_private_file(file: &File, path: &Path) -> Result<(), TokenError> {
    let unsafe_because = |why: String| TokenError::Unsafe {
        path: path.to_path_buf(),
        why,
    };
    let meta = file.metadata().map_err(|source| TokenError::Io {
        action: "inspect",
        path: path.to_path_buf(),
        source,
    })?;
    if !meta.is_file() {
        return Err(unsafe_because("is not a regular file".into()));
    }
    if meta.uid() != my_uid() {
        return Err(unsafe_because(format!(
            "belongs to uid {}, not to you",
            meta.uid()
        )));
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o077 != 0 {
        return Err(unsafe_because(format!(
            "has mode {mode:04o}, so other users can read it (it must be 0600)"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn a_token_is_made_once_kept_private_and_rotated() {
        let tmp = tempfile::tempdir().unwrap();
        let file = TokenFile::in_state_dir(tmp.path());
        let first = file.load_or_create().unwrap();
        assert_eq!(first.as_str().len(), 64);
        assert_eq!(file.load_or_create().unwrap(), first, "kept, not remade");
        let mode = std::fs::metadata(file.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let dir_mode = std::fs::metadata(tmp.path().join("web"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(dir_mode & 0o777, 0o700);
        let second = file.rotate().unwrap();
        assert_ne!(second, first);
        assert_eq!(file.read().unwrap(), second);
        assert_eq!(format!("{second:?}"), "Token(…)", "never printed");
    }

    #[test]
    fn a_token_others_can_read_or_a_link_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let file = TokenFile::in_state_dir(tmp.path());
        file.load_or_create().unwrap();
        std::fs::set_permissions(file.path(), std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = file.read().unwrap_err().to_string();
        assert!(err.contains("mode 0644"), "{err}");

        let elsewhere = tmp.path().join("elsewhere");
        std::fs::write(&elsewhere, "a".repeat(64)).unwrap();
        std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::remove_file(file.path()).unwrap();
        std::os::unix::fs::symlink(&elsewhere, file.path()).unwrap();
        assert!(file.read().is_err(), "never through a link");

        let linked_dir = tempfile::tempdir().unwrap();
        let state = linked_dir.path().join("state");
        std::fs::create_dir(&state).unwrap();
        std::os::unix::fs::symlink(tmp.path().join("web"), state.join("web")).unwrap();
        let err = TokenFile::in_state_dir(&state).read().unwrap_err();
        assert!(matches!(err, TokenError::Dir(_)), "{err}");
    }

    #[test]
    fn only_the_token_itself_matches() {
        let token = Token(hex(&[0xab; TOKEN_BYTES]));
        assert!(token.matches(&"ab".repeat(32)));
        assert!(token.matches(&format!(" {}\n", "ab".repeat(32))));
        assert!(!token.matches(&"ab".repeat(31)));
        assert!(!token.matches(&format!("{}ac", "ab".repeat(31))));
        assert!(!token.matches(""));
        assert_eq!(hex(&[0x00, 0x0f, 0xf0]), "000ff0");
    }
}
