//! The `signaltty` command: the clients (`signaltty-client`) and the
//! server (`signaltty-supervisor`) wired together, and the commands that
//! are neither — starting a server (`up`, `bridge`), listing saved
//! sessions off the disk, installing agents' hooks, printing docs.

mod bridge;
mod docs;
mod hooks_install;
mod sessions;
mod up;
mod upgrade;

use std::process::ExitCode;

use signaltty_client::cli::{Cli, Command, Up};
use signaltty_client::{exit_code, report};

fn main() -> ExitCode {
    let cli = match Cli::parse_with_env() {
        Ok(cli) => cli,
        Err(e) => {
            let err = anyhow::Error::from(e).context(signaltty_protocol::socket_path::SESSION_ENV);
            report(&err, std::env::args().any(|a| a == "--json"));
            return ExitCode::from(1);
        }
    };
    let json = cli.json;
    match run(&cli) {
        Ok(code) => code,
        Err(err) => {
            report(&err, json);
            exit_code(&err)
        }
    }
}

fn run(cli: &Cli) -> anyhow::Result<ExitCode> {
    match &cli.command {
        // Plain `signaltty` is `signaltty up`: start if needed, then on a
        // terminal open the multiplexer.
        None => up::run(cli, &Up::default()),
        Some(Command::Up(up)) => up::run(cli, up),
        Some(Command::Ctl(ctl)) => signaltty_client::ctl(cli, ctl),
        Some(Command::Attach {
            pane,
            detach_key,
            keep_attention,
            every_byte,
        }) => {
            let options = signaltty_client::AttachOptions {
                detach_key: signaltty_client::parse_key(detach_key)?,
                keep_attention: *keep_attention,
                every_byte: *every_byte,
            };
            signaltty_client::attach(&cli.endpoint()?, pane, options)
        }
        Some(Command::Ui { workspace }) => up::open_mux(cli, workspace.as_deref()),
        Some(Command::Sessions) => sessions::run(cli),
        Some(Command::Web(web)) => signaltty_web::run(
            cli,
            web,
            &signaltty_persistence::StateDir::resolve_path(
                cli.state_dir.clone(),
                cli.session.as_ref(),
            )?,
        ),
        Some(Command::Hooks(cmd)) => hooks_install::run(cmd, &mut std::io::stdout().lock()),
        Some(Command::Bridge) => bridge::run(cli),
        Some(Command::Upgrade { binary }) => upgrade::run(cli, binary.as_deref()),
        Some(Command::HandoverCheck) => upgrade::check(),
        Some(Command::Completions { shell }) => docs::completions(*shell, cli.json),
        Some(Command::Man) => docs::man(cli.json),
        Some(Command::Schema) => docs::schema(),
        Some(Command::AgentGuide) => docs::agent_guide(),
    }
}
