//! The `signaltty` command line: the server's front door and its clients.
//!
//! This crate owns argument parsing, the IPC client (to a local socket, or
//! through ssh to a server on another machine), the `up` command that
//! starts a server (in this process or in the background), the `bridge`
//! that is the far end of a remote connection, the output of `ctl`,
//! `attach` and the multiplexer (`mux`). It must never own durable state:
//! everything it shows, it asks the server (or, for sessions that are not
//! running, the saved files) for. Its clients (`ctl`, `attach`, `mux`) use
//! `signaltty-protocol` and `signaltty-screen` only, never the server
//! stack, and open every connection through `client::connect_stream`.
//! `hooks install` edits agents' config files with the pure facts of
//! `signaltty-adapters` (no I/O of its own, no server), and never talks to
//! a server.

mod attach;
mod bridge;
pub mod cli;
pub mod client;
mod clock;
mod ctl;
mod docs;
mod hook;
mod hooks_install;
mod mux;
pub mod remote;
mod sessions;
mod stream;
mod term;
mod up;

use std::io::Write;
use std::process::ExitCode;

use cli::{Cli, Command, Up};

pub fn main() -> ExitCode {
    let cli = match Cli::parse_with_env() {
        Ok(cli) => cli,
        Err(e) => {
            let err = anyhow::Error::from(e).context(signaltty_protocol::socket_path::SESSION_ENV);
            report(&err, std::env::args().any(|a| a == "--json"));
            return ExitCode::from(1);
        }
    };
    let json = cli.json;
    let result = run(&cli);
    match result {
        Ok(code) => code,
        Err(err) => {
            report(&err, json);
            exit_code(&err)
        }
    }
}

/// 3 when an agent waits at a dialog (BLOCKED), 4 when the server asks to
/// try again later (BUSY), 1 for every other error: scripts branch on these.
fn exit_code(err: &anyhow::Error) -> ExitCode {
    use signaltty_protocol::ErrorCode;
    match err.downcast_ref::<client::ClientError>() {
        Some(client::ClientError::Server(wire)) if wire.code == ErrorCode::Blocked => {
            ExitCode::from(3)
        }
        Some(client::ClientError::Server(wire)) if wire.code == ErrorCode::Busy => {
            ExitCode::from(4)
        }
        _ => ExitCode::from(1),
    }
}

fn run(cli: &Cli) -> anyhow::Result<ExitCode> {
    match &cli.command {
        // Plain `signaltty` is `signaltty up`: start if needed, then on a
        // terminal open the multiplexer.
        None => up::run(cli, &Up::default()),
        Some(Command::Up(up)) => up::run(cli, up),
        Some(Command::Ctl(ctl)) => ctl::run(cli, ctl),
        Some(Command::Attach {
            pane,
            detach_key,
            keep_attention,
        }) => {
            let options = attach::Options {
                detach_key: attach::parse_key(detach_key)?,
                keep_attention: *keep_attention,
            };
            attach::run(&cli.endpoint()?, pane, options)
        }
        Some(Command::Ui { workspace }) => up::open_mux(cli, workspace.as_deref()),
        Some(Command::Sessions) => sessions::run(cli),
        Some(Command::Hooks(cmd)) => hooks_install::run(cmd, &mut std::io::stdout().lock()),
        Some(Command::Bridge) => bridge::run(cli),
        Some(Command::Completions { shell }) => docs::completions(*shell, cli.json),
        Some(Command::Man) => docs::man(cli.json),
        Some(Command::Schema) => docs::schema(),
        Some(Command::AgentGuide) => docs::agent_guide(),
    }
}

/// One line on stderr that says what went wrong; with `--json`, the same
/// as `{"error":{"code","message"}}` on stdout.
fn report(err: &anyhow::Error, json: bool) {
    let (code, message) = match err.downcast_ref::<client::ClientError>() {
        Some(client::ClientError::Server(wire)) => (wire.code.as_str(), wire.message.clone()),
        Some(client::ClientError::BadParams(message)) => ("BAD_PARAMS", message.clone()),
        Some(client::ClientError::Ssh(failure)) if !json => {
            // ssh's own words, as it wrote them; then the hint, one line.
            if !failure.stderr.is_empty() {
                let _ = writeln!(std::io::stderr(), "{}", failure.stderr);
            }
            ("SSH", failure.hint())
        }
        Some(client::ClientError::Ssh(failure)) => ("SSH", failure.to_string()),
        Some(spawn @ client::ClientError::SshSpawn { .. }) => ("SSH", spawn.to_string()),
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
