//! A private tmux server, driven from the command line, for measuring
//! beside it. Std only: both the harness (`signaltty.rs`) and the screen
//! crate's `memory` example include this file with `#[path]`.
//!
//! Every call names its own socket (`tmux -L`) and no configuration file,
//! so a user's tmux and its settings are never touched.

use std::process::Command;

/// Whether a `tmux` runs here at all.
pub fn installed() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `tmux args` against the server on `socket`.
pub fn command(socket: &str, args: &[&str]) -> Command {
    let mut command = Command::new("tmux");
    command.args(["-L", socket, "-f", "/dev/null"]).args(args);
    command
}

/// Runs `tmux args`; whether it succeeded.
pub fn run(socket: &str, args: &[&str]) -> bool {
    command(socket, args)
        .status()
        .is_ok_and(|status| status.success())
}

/// Starts a detached session `name` of `cols`x`rows` running `command`
/// (which starts the server on `socket`).
pub fn session(socket: &str, name: &str, cols: u16, rows: u16, command: &str) -> bool {
    let (cols, rows) = (cols.to_string(), rows.to_string());
    run(
        socket,
        &[
            "new-session",
            "-d",
            "-s",
            name,
            "-x",
            &cols,
            "-y",
            &rows,
            command,
        ],
    )
}

/// Opens a window in the background of `session`, running `command`.
pub fn new_window(socket: &str, session: &str, command: &str) -> bool {
    run(socket, &["new-window", "-d", "-t", session, command])
}

/// The pid of the server on `socket`, if one answers.
pub fn server_pid(socket: &str) -> Option<u32> {
    let out = command(socket, &["display-message", "-p", "#{pid}"])
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

pub fn kill_server(socket: &str) {
    run(socket, &["kill-server"]);
}
