//! The signaltty clients: everything a person or a script runs against a
//! server, locally or on another machine through ssh.
//!
//! This crate owns the command line's types ([`cli`]), the connection to a
//! server ([`client`], [`remote`]: a local socket after its safety checks,
//! or ssh and the far end's bridge), `ctl` and how its answers are shown,
//! `attach`, and the multiplexer (`mux`). It speaks `signaltty-protocol`
//! and draws with `signaltty-screen`, and must never link the server stack
//! (actors, supervisor, persistence): `.ci/run` checks that with `cargo
//! tree`. It owns no durable state: everything it shows, it asks a server
//! for. It is the command line's edge, reporting errors to a person, so it
//! uses `anyhow` there, with [`client::ClientError`] for what callers
//! branch on.
//!
//! # Layout
//!
//! - [`cli`]: clap's types for every command (the binary dispatches).
//! - [`client`]: connections and typed requests; [`remote`]: ssh.
//! - `reconnect`: telling a live upgrade (same pid, one more handover)
//!   from a crash when a local connection drops, and carrying on after
//!   one: a request sent again, a stream opened again.
//! - `ctl`: one request per command, and its output; `hook`: an agent's
//!   hook payload as a request.
//! - `attach` and `stream`: a pane in this terminal; `term`: raw mode and
//!   signals.
//! - `mux`: the multiplexer.

pub mod alert_rule;
mod attach;
pub mod cli;
pub mod client;
pub mod clock;
mod ctl;
#[cfg(test)]
mod fake_server;
mod hook;
pub mod mux;
mod reconnect;
pub mod remote;
mod stream;
mod term;

use std::io::Write;
use std::process::ExitCode;

pub use attach::{Options as AttachOptions, parse_key, run as attach};
pub use ctl::run as ctl;

/// 3 when an agent waits at a dialog (BLOCKED), 4 when the server asks to
/// try again later (BUSY), 1 for every other error: scripts branch on these.
pub fn exit_code(err: &anyhow::Error) -> ExitCode {
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

/// One line on stderr that says what went wrong; with `--json`, the same
/// as `{"error":{"code","message"}}` on stdout.
pub fn report(err: &anyhow::Error, json: bool) {
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
