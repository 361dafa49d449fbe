//! The `signaltty` command line: the server's front door and its clients.
//!
//! This crate owns argument parsing, the IPC client, the `up` command that
//! starts a server (in this process or in the background), the output of
//! `ctl`, `attach` and the multiplexer (`mux`). It must never own durable
//! state: everything it shows, it asks the server for. Its clients (`ctl`,
//! `attach`, `mux`) use `signaltty-protocol` and `signaltty-screen` only,
//! never the server stack, and open every connection through
//! `client::connect_stream`.

mod attach;
pub mod cli;
pub mod client;
mod ctl;
mod hook;
mod mux;
mod stream;
mod term;
mod up;

use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command};

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let json = cli.json;
    let result = match cli.command {
        None => up::open_mux(&cli, None),
        Some(Command::Ui { ref workspace }) => up::open_mux(&cli, workspace.as_deref()),
        Some(Command::Up(ref up)) => up::run(&cli, up),
        Some(Command::Ctl(ref ctl)) => ctl::run(&cli, ctl),
        Some(Command::Attach {
            ref pane,
            ref detach_key,
            keep_attention,
        }) => attach::parse_key(detach_key).and_then(|detach_key| {
            let socket = signaltty_protocol::socket_path::resolve(cli.socket.clone());
            let options = attach::Options {
                detach_key,
                keep_attention,
            };
            attach::run(&socket, pane, options)
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
    if json {
        println!(
            "{}",
            serde_json::json!({ "error": { "code": code, "message": message } })
        );
    } else {
        eprintln!("signaltty: {}", message.replace('\n', " "));
    }
}
