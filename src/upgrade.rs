//! `signaltty upgrade`: asks the running server to hand itself over to a
//! new binary (see the supervisor's `handover`), and `__handover-check`,
//! which that server runs to ask the new binary whether it can.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use signaltty_client::cli::Cli;
use signaltty_client::client::Client;
use signaltty_protocol::text::Text;
use signaltty_protocol::{UpgradeReply, method, params};

/// Longer than the server's own limits (each pane's pause, the new
/// binary's check): its answer, either way, comes first.
const UPGRADE_TIMEOUT: Duration = Duration::from_secs(60);

pub fn run(cli: &Cli, binary: Option<&Path>) -> Result<ExitCode> {
    // A path is the server's to open: made absolute here, where it was
    // typed.
    let binary = match binary {
        Some(path) if cli.host().is_none() => Some(
            std::fs::canonicalize(path)
                .with_context(|| format!("{}: no such binary", path.display()))?,
        ),
        other => other.map(Path::to_path_buf),
    };
    let binary = binary
        .map(|path| Text::new(path.display().to_string()))
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let mut client = Client::connect(&cli.endpoint()?)?;
    client.set_timeout(UPGRADE_TIMEOUT)?;
    let reply = client.request::<method::Upgrade>(params::Upgrade { binary })?;
    let mut out = std::io::stdout().lock();
    if cli.json {
        writeln!(out, "{}", serde_json::to_string(&reply)?)?;
    } else {
        writeln!(out, "{}", summary(&reply))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn summary(reply: &UpgradeReply) -> String {
    format!(
        "upgraded signaltty {} -> {} ({}) in {} ms: {} of {} panes kept their processes, \
         {} client connections reconnect; pid {} (upgrade {})",
        reply.from_version,
        reply.to_version,
        reply.binary,
        reply.millis,
        reply.live_panes,
        reply.panes,
        reply.reconnecting,
        reply.pid,
        reply.upgrades
    )
}

/// Reads the handover on stdin as a takeover would and answers `ok NONCE`.
pub fn check() -> Result<ExitCode> {
    let answer = signaltty_supervisor::handover::take::check(std::io::stdin().lock())?;
    println!("{answer}");
    Ok(ExitCode::SUCCESS)
}
