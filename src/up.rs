//! `signaltty up`: start a server in this process or in the background.
//!
//! A background start never forks a process that already runs tokio: it
//! re-executes this binary as `up --foreground` in a new session, with its
//! output appended to `server.log`, and waits until the new server answers.

use std::io::{IsTerminal, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use signaltty_persistence::StateDir;
use signaltty_protocol::socket_path;
use signaltty_protocol::{method, params};
use signaltty_supervisor::ServerConfig;

use signaltty_client::cli::{Cli, Up};
use signaltty_client::client::{Client, Endpoint};

/// How long a background start may take before `up -d` gives up.
const START_DEADLINE: Duration = Duration::from_secs(15);

pub fn run(cli: &Cli, up: &Up) -> Result<ExitCode> {
    if let Some(host) = cli.host() {
        return remote(cli, up, &host);
    }
    let socket = cli.local_socket();
    socket_path::check_length(&socket)?;
    if up.foreground {
        // The server opens the state dir itself, once it can log what it
        // had to fix.
        let state_dir = StateDir::resolve_path(cli.state_dir.clone(), cli.session.as_ref())?;
        return foreground(&socket, &state_dir, up.no_restore);
    }
    let started = start_unless_running(cli, up.no_restore)?;
    if interactive(up) {
        return signaltty_client::mux::run(&Endpoint::Local(socket), None);
    }
    if !started {
        println!(
            "a signaltty server is already running on {}",
            socket.display()
        );
    } else {
        println!("signaltty server started on {}", socket.display());
    }
    if !up.detach {
        print_usage();
    }
    Ok(ExitCode::SUCCESS)
}

/// `signaltty ui [WORKSPACE]`: the server is started if it is not running
/// (on a `--host` machine, the bridge starts it), then the multiplexer
/// opens.
pub fn open_mux(cli: &Cli, workspace: Option<&str>) -> Result<ExitCode> {
    if cli.host().is_none() {
        socket_path::check_length(&cli.local_socket())?;
        start_unless_running(cli, false)?;
    }
    signaltty_client::mux::run(&cli.endpoint()?, workspace)
}

fn interactive(up: &Up) -> bool {
    !up.detach && std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

/// `up` for the `--host` machine: its own `up -d` there (through ssh),
/// then, on a terminal, the multiplexer here.
fn remote(cli: &Cli, up: &Up, host: &str) -> Result<ExitCode> {
    if up.foreground {
        bail!(
            "`up --foreground` runs a server in this process, on this machine; it takes no --host"
        );
    }
    let mut args = vec!["up", "-d"];
    if up.no_restore {
        args.push("--no-restore");
    }
    let said = cli.remote(host)?.output(&args)?;
    if interactive(up) {
        return signaltty_client::mux::run(&cli.endpoint()?, None);
    }
    let mut out = std::io::stdout().lock();
    write!(out, "{host}: ")?;
    out.write_all(&said)?;
    Ok(ExitCode::SUCCESS)
}

/// Starts this machine's server for `cli` unless one answers (the bridge
/// does this before it connects).
pub fn ensure_running(cli: &Cli) -> Result<()> {
    start_unless_running(cli, false).map(|_| ())
}

/// Starts the server in the background unless one answers; true when this
/// call started it. Starters wait for each other on `<socket>.start` (a
/// multiplexer opens several remote connections at once, each through a
/// bridge that may find no server), so exactly one of them starts it and
/// the others find it answering.
fn start_unless_running(cli: &Cli, no_restore: bool) -> Result<bool> {
    let socket = cli.local_socket();
    socket_path::check_length(&socket)?;
    if answers(&socket) {
        return Ok(false);
    }
    let _starting = signaltty_supervisor::socket::hold_start_lock(&socket)?;
    if answers(&socket) {
        return Ok(false);
    }
    let state_dir = StateDir::resolve(cli.state_dir.clone(), cli.session.as_ref())?;
    start_in_background(&socket, &state_dir, no_restore)?;
    Ok(true)
}

fn print_usage() {
    println!("try: signaltty ctl workspace new NAME    then: signaltty ctl new NAME -- CMD");
    println!("     signaltty ctl ls                    signaltty ctl read PANE");
}

fn answers(socket: &Path) -> bool {
    Client::connect(&Endpoint::Local(socket.to_path_buf()))
        .and_then(|mut c| c.request::<method::Status>(params::Empty {}))
        .is_ok()
}

fn foreground(socket: &Path, state_dir: &Path, no_restore: bool) -> Result<ExitCode> {
    let filter = tracing_subscriber::EnvFilter::try_from_env("SIGNALTTY_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let faults_enabled = std::env::var("SIGNALTTY_ENABLE_FAULTS").is_ok_and(|v| v == "1");
    let config = ServerConfig {
        socket_path: socket.to_path_buf(),
        state_dir: state_dir.to_path_buf(),
        faults_enabled,
        fsync_delay: if faults_enabled {
            fsync_delay()?
        } else {
            Duration::ZERO
        },
        no_restore,
        config_path: signaltty_supervisor::config::path(),
        taken: taken_over(),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("signaltty")
        .build()
        .context("could not start the async runtime")?;
    if let Err(e) = runtime.block_on(signaltty_supervisor::run(config)) {
        // A takeover that fails gives everything back, if it still can.
        signaltty_supervisor::handover::fallback::fall_back(&format!("its start failed: {e}"));
        return Err(e.into());
    }
    Ok(ExitCode::SUCCESS)
}

/// What the image this process replaced handed over, if it was exec'd by
/// an upgrade (see the supervisor's `handover`). A handover that cannot be
/// read (the new binary's check read it, so only a fault gets here) is
/// logged, and the server starts from disk as after a crash.
fn taken_over() -> Option<signaltty_supervisor::handover::Taken> {
    use signaltty_supervisor::handover::exec::{FALLBACK_FD_ENV, HANDOVER_FD_ENV, REFUSED_ENV};
    use signaltty_supervisor::handover::{fallback, take};
    let [fd, previous, refused] = [HANDOVER_FD_ENV, FALLBACK_FD_ENV, REFUSED_ENV].map(|name| {
        let value = std::env::var(name).ok();
        // SAFETY: still one thread (the runtime is not built yet); the
        // panes' children must not inherit the variables.
        unsafe { std::env::remove_var(name) };
        value
    });
    let fd = fd?;
    let Ok(fd) = fd.parse::<i32>() else {
        tracing::error!(
            value = fd,
            "{HANDOVER_FD_ENV} is not a descriptor; starting from disk"
        );
        return None;
    };
    let previous = previous.and_then(|previous| previous.parse().ok());
    // SAFETY: the previous image exec'd this one with both inherited, and
    // nothing else takes `previous`.
    let fallback = previous.and_then(|previous| unsafe { fallback::Fallback::new(previous, fd) });
    // SAFETY: the previous image exec'd this one with `fd` and the
    // descriptors it names inherited; they are taken once, here.
    match unsafe { take(fd) } {
        Ok(mut taken) => {
            if let Some(fallback) = fallback {
                fallback.arm(&taken.header);
            }
            taken.refused = refused;
            Some(taken)
        }
        Err(e) => {
            if let Some(fallback) = fallback {
                let error = fallback.fall_back(&format!("it could not read the handover: {e}"));
                tracing::error!(error = %error, "could not give everything back");
            }
            tracing::error!(error = %e, "the handover could not be taken; starting from disk");
            None
        }
    }
}

/// The most a test may slow every fsync down by.
const MAX_FSYNC_DELAY_MS: u64 = 60_000;

/// `SIGNALTTY_FAULT_FSYNC_MS`: a slow disk for tests and benchmarks,
/// honoured only with `SIGNALTTY_ENABLE_FAULTS=1`.
fn fsync_delay() -> Result<Duration> {
    let Some(value) = std::env::var_os("SIGNALTTY_FAULT_FSYNC_MS") else {
        return Ok(Duration::ZERO);
    };
    match value.to_str().and_then(|v| v.parse::<u64>().ok()) {
        Some(ms) if ms <= MAX_FSYNC_DELAY_MS => Ok(Duration::from_millis(ms)),
        _ => bail!(
            "SIGNALTTY_FAULT_FSYNC_MS={value:?} is not a number of milliseconds up to \
             {MAX_FSYNC_DELAY_MS}; unset it or give e.g. 1000"
        ),
    }
}

fn start_in_background(socket: &Path, state_dir: &StateDir, no_restore: bool) -> Result<()> {
    let log_path = state_dir.log_path();
    let mut log = state_dir.open_log()?;
    // Opening the state dir here fixed what the server would have logged.
    for warning in state_dir.warnings() {
        writeln!(log, "WARN signaltty up: {warning}")
            .with_context(|| format!("could not write to {}", log_path.display()))?;
    }
    let exe = std::env::current_exe().context("could not find this program's path")?;
    let mut command = Command::new(exe);
    command
        .arg("--socket")
        .arg(socket)
        .arg("--state-dir")
        .arg(state_dir.root())
        .args(["up", "--foreground"])
        .args(no_restore.then_some("--no-restore"))
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log);
    // SAFETY: setsid(2) is async-signal-safe, the only kind of call allowed
    // between fork and exec.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = command.spawn().context("could not start the server")?;
    let deadline = Instant::now() + START_DEADLINE;
    loop {
        if answers(socket) {
            return Ok(());
        }
        if let Some(status) = child.try_wait()? {
            bail!(
                "the server exited at start ({status}); see {}: {}",
                log_path.display(),
                last_line(&log_path)
            );
        }
        if Instant::now() > deadline {
            bail!(
                "the server did not answer within {}s; see {}",
                START_DEADLINE.as_secs(),
                log_path.display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn last_line(path: &Path) -> String {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|log| {
            log.lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .map(str::to_string)
        })
        .unwrap_or_default()
}
