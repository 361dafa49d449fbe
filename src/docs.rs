//! `signaltty completions SHELL` and `signaltty man`: the command line,
//! described for shells and for `man`, generated from the clap types so
//! they can never disagree with it.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use clap::CommandFactory;
use clap_complete::Shell;

use signaltty_client::cli::Cli;

const BIN: &str = "signaltty";

/// Prints the completion script for `shell` (with `--json`, as
/// `{"shell","script"}`).
pub fn completions(shell: Shell, json: bool) -> Result<ExitCode> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), BIN, &mut script);
    if json {
        let shell = shell.to_string();
        let script = String::from_utf8_lossy(&script);
        print_json(&serde_json::json!({ "shell": shell, "script": script }))
    } else {
        print_bytes(&script)
    }
}

/// The guide `signaltty agent-guide` prints (docs/agent-guide.md).
pub const AGENT_GUIDE: &str = include_str!("../docs/agent-guide.md");

pub fn agent_guide() -> Result<ExitCode> {
    print_bytes(AGENT_GUIDE.as_bytes())
}

/// Prints the protocol's JSON Schema (it is JSON whether or not `--json`).
pub fn schema() -> Result<ExitCode> {
    let text = serde_json::to_string_pretty(&signaltty_protocol::schema::document())?;
    print_bytes(format!("{text}\n").as_bytes())
}

/// Prints the man page, roff for `man -l -` (with `--json`, as
/// `{"name","roff"}`).
pub fn man(json: bool) -> Result<ExitCode> {
    let mut roff = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut roff)?;
    if json {
        let roff = String::from_utf8_lossy(&roff);
        print_json(&serde_json::json!({ "name": "signaltty.1", "roff": roff }))
    } else {
        print_bytes(&roff)
    }
}

fn print_json(value: &serde_json::Value) -> Result<ExitCode> {
    print_bytes(format!("{value}\n").as_bytes())
}

fn print_bytes(bytes: &[u8]) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        // `signaltty man | head`: the reader went away; that is fine.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(ExitCode::SUCCESS),
    }
}
