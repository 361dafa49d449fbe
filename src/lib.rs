//! The `signaltty` command line: the server's front door and its clients.
//!
//! This crate owns argument parsing, the IPC client, the `up` command that
//! starts a server (in this process or in the background) and the output
//! of `ctl`. It must never own durable state: everything it shows, it asks
//! the server for.

mod attach;
pub mod cli;
pub mod client;
mod clock;
mod ctl;
mod hook;
mod ui;
mod up;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command};

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let json = cli.json;
    let result = match cli.command {
        Command::Up(ref up) => up::run(&cli, up),
        Command::Ctl(ref ctl) => ctl::run(&cli, ctl),
        Command::Attach {
            ref pane,
            ref detach_key,
            keep_attention,
        } => attach::parse_key(detach_key).and_then(|detach_key| {
            let socket = signaltty_protocol::socket_path::resolve(cli.socket.clone());
            let options = attach::Options {
                detach_key,
                keep_attention,
            };
            attach::run(&socket, pane, options)
        }),
        Command::Ui { ref detach_key } => attach::parse_key(detach_key).and_then(|key| {
            let socket = signaltty_protocol::socket_path::resolve(cli.socket.clone());
            ui::run(&socket, key)
        }),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            report(&err, json);
            ExitCode::from(1)
        }
    }
}

/// One line on stderr that says what went wrong; with `--json`, the same
/// as `{"error":{"code","message"}}` on stdout.
fn report(err: &anyhow::Error, json: bool) {
    let (code, message) = match err.downcast_ref::<client::ClientError>() {
        Some(client::ClientError::Server(wire)) => (wire.code.as_str(), wire.message.clone()),
        Some(other) => ("CLIENT", other.to_string()),
        None => ("CLIENT", format!("{err:#}")),
    };
    // Nowhere to say it if the reader is gone: never panic over that.
    if json {
        let _ = writeln!(
            std::io::stdout(),
            "{}",
            serde_json::json!({ "error": { "code": code, "message": message } })
        );
    } else {
        let _ = writeln!(
            std::io::stderr(),
            "signaltty: {}",
            message.replace('\n', " ")
        );
    }
}
