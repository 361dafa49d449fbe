//! A real OpenSSH server for remote tests: Debian's `sshd` on 127.0.0.1 at
//! a free port, with its own host key, one client key in its
//! `authorized_keys`, and a client config, all in a temp dir. It lets in
//! only the user running the tests, and only with that key. `.ci/run`
//! installs `openssh-server`.
//!
//! The sessions it opens get `env` (sshd's `SetEnv`), which is how a test
//! points the "remote" signaltty at its own socket and state dir.

use std::fs;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::{short_temp_dir, wait_for};

const SSHD: &str = "/usr/sbin/sshd";
/// The alias the client config gives the server.
pub const HOST: &str = "signaltty-test";

pub struct Sshd {
    pub dir: tempfile::TempDir,
    pub port: u16,
    child: Child,
}

impl Sshd {
    /// Starts sshd; every session it opens gets `env`.
    pub fn start(env: &[(&str, &str)]) -> Sshd {
        assert!(
            Path::new(SSHD).exists(),
            "{SSHD} is missing: install Debian's openssh-server (.ci/run does)"
        );
        privilege_separation_dir();
        let dir = short_temp_dir();
        keygen(&dir.path().join("host_key"));
        keygen(&dir.path().join("client_key"));
        fs::copy(
            dir.path().join("client_key.pub"),
            dir.path().join("authorized_keys"),
        )
        .expect("authorized_keys");
        // A port taken between here and sshd's bind makes sshd exit: try
        // another.
        for _ in 0..5 {
            let port = free_port();
            write_server_config(dir.path(), port, env);
            let mut child = Command::new(SSHD)
                .args(["-D", "-e", "-f"])
                .arg(dir.path().join("sshd_config"))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(log_file(dir.path()))
                .spawn()
                .expect("start sshd");
            let log = dir.path().join("sshd.log");
            let listening = wait_for("sshd to listen", Duration::from_secs(20), || {
                if let Ok(Some(_)) = child.try_wait() {
                    return Some(false);
                }
                let text = fs::read_to_string(&log).unwrap_or_default();
                text.contains("Server listening").then_some(true)
            });
            if listening {
                let sshd = Sshd { dir, port, child };
                sshd.write_client_config();
                return sshd;
            }
            let _ = child.wait();
        }
        panic!(
            "sshd did not start:\n{}",
            fs::read_to_string(dir.path().join("sshd.log")).unwrap_or_default()
        );
    }

    /// `SIGNALTTY_SSH_COMMAND` for this server: ssh with the test's config.
    pub fn ssh_command(&self) -> String {
        format!("ssh -F {}", self.client_config().display())
    }

    /// The same server as an ssh URL.
    pub fn url(&self) -> String {
        format!("ssh://{}@127.0.0.1:{}", user_name(), self.port)
    }

    pub fn client_config(&self) -> PathBuf {
        self.dir.path().join("ssh_config")
    }

    pub fn known_hosts(&self) -> PathBuf {
        self.dir.path().join("known_hosts")
    }

    pub fn log(&self) -> String {
        fs::read_to_string(self.dir.path().join("sshd.log")).unwrap_or_default()
    }

    fn write_client_config(&self) {
        let dir = self.dir.path().display();
        let config = format!(
            "Host {HOST} 127.0.0.1\n\
             \x20 HostName 127.0.0.1\n\
             \x20 Port {port}\n\
             \x20 User {user}\n\
             \x20 IdentityFile {dir}/client_key\n\
             \x20 IdentitiesOnly yes\n\
             \x20 UserKnownHostsFile {dir}/known_hosts\n\
             \x20 GlobalKnownHostsFile /dev/null\n\
             \x20 StrictHostKeyChecking yes\n\
             \x20 BatchMode yes\n\
             \x20 ControlMaster no\n\
             \x20 LogLevel ERROR\n",
            port = self.port,
            user = user_name(),
        );
        fs::write(self.client_config(), config).expect("ssh_config");
        let host_key = fs::read_to_string(self.dir.path().join("host_key.pub")).expect("host key");
        fs::write(
            self.known_hosts(),
            format!("[127.0.0.1]:{} {host_key}", self.port),
        )
        .expect("known_hosts");
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn write_server_config(dir: &Path, port: u16, env: &[(&str, &str)]) {
    let d = dir.display();
    let set_env: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let mut config = format!(
        "Port {port}\n\
         ListenAddress 127.0.0.1\n\
         HostKey {d}/host_key\n\
         AuthorizedKeysFile {d}/authorized_keys\n\
         PidFile none\n\
         UsePAM no\n\
         StrictModes no\n\
         PasswordAuthentication no\n\
         KbdInteractiveAuthentication no\n\
         PubkeyAuthentication yes\n\
         PermitRootLogin prohibit-password\n\
         AllowUsers {user}\n\
         UseDNS no\n\
         LogLevel INFO\n",
        user = user_name(),
    );
    if !set_env.is_empty() {
        config.push_str(&format!("SetEnv {}\n", set_env.join(" ")));
    }
    fs::write(dir.join("sshd_config"), config).expect("sshd_config");
}

fn log_file(dir: &Path) -> fs::File {
    fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("sshd.log"))
        .expect("sshd log")
}

fn keygen(path: &Path) {
    let status = Command::new("ssh-keygen")
        .args([
            "-q",
            "-t",
            "ed25519",
            "-N",
            "",
            "-C",
            "signaltty-test",
            "-f",
        ])
        .arg(path)
        .stdin(Stdio::null())
        .status()
        .expect("run ssh-keygen");
    assert!(status.success(), "ssh-keygen failed");
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// sshd run as root insists on its privilege separation directory, which
/// the init system normally makes at boot (`RuntimeDirectory=sshd`).
fn privilege_separation_dir() {
    // SAFETY: geteuid(2) cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return;
    }
    let dir = Path::new("/run/sshd");
    if !dir.is_dir() {
        fs::create_dir_all(dir).expect("/run/sshd");
        fs::set_permissions(dir, fs::Permissions::from_mode(0o755)).expect("/run/sshd mode");
    }
}

/// The user running the tests, from the password database (CI may have
/// no `$USER`).
pub fn user_name() -> String {
    // SAFETY: getpwuid returns a pointer into static storage or null; the
    // name is copied out at once, and tests do not call getpw* elsewhere.
    unsafe {
        let pw = libc::getpwuid(libc::geteuid());
        assert!(!pw.is_null(), "no password entry for this user");
        std::ffi::CStr::from_ptr((*pw).pw_name)
            .to_string_lossy()
            .into_owned()
    }
}
