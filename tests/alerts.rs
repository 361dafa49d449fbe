//! End to end: the multiplexer's alerts. A stand-in agent out of sight
//! turns blocked and the terminal the test owns hears of it (a bell, an
//! OSC 9, a `notify-send` on PATH); the focused one never rings; a
//! program's own bells pass at most once a second.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use signaltty_screen::NotifySource;
use support::agents::{CLAUDE_STAND_IN, idle_claude, server_with_agents};
use support::terminal::Terminal;
use support::{TestServer, wait_for};

/// Tall and wide enough that a focused stand-in keeps the size its
/// screens were captured at (30x100, less a column); narrow enough that
/// the sidebar hides.
const ROWS: u16 = 33;
const COLS: u16 = 99;

/// The multiplexer on `workspace` with the config file `config` (which
/// need not exist) and `path` as PATH, once it shows its status line.
fn open(server: &TestServer, workspace: &str, config: &Path, path: Option<&str>) -> Terminal {
    let mut command: Command = server.command();
    command
        .args(["ui", workspace])
        .env("SIGNALTTY_CONFIG", config);
    if let Some(path) = path {
        command.env("PATH", path);
    }
    let terminal = Terminal::run(&command, ROWS, COLS);
    terminal.wait_text("the multiplexer", |t| t.contains("? help"));
    terminal
}

fn prefix(terminal: &mut Terminal, key: &[u8]) {
    terminal.type_bytes(b"\x02");
    terminal.type_bytes(key);
}

/// A stand-in Claude Code, idle and seen, in `workspace`, named `name`.
fn agent(server: &TestServer, workspace: &str, name: &str) -> String {
    let pane = idle_claude(server, workspace);
    server.ctl_ok(&["rename", &pane, name, "--kind", "pane"]);
    pane
}

/// Draws the stand-in's permission dialog and waits until the server
/// reads the pane as blocked.
fn ask_permission(server: &TestServer, pane: &str) {
    server.ctl_ok(&["send", pane, "permission", "--enter"]);
    server.wait_pane(pane, "blocked", |p| p["lifecycle"] == "blocked");
}

fn last_used(server: &TestServer, name: &str) -> u64 {
    let ls = server.ls();
    ls["workspaces"]
        .as_array()
        .and_then(|w| w.iter().find(|w| w["name"] == name))
        .and_then(|w| w["last_used_at"].as_u64())
        .unwrap_or_else(|| panic!("no workspace {name}: {ls}"))
}

#[test]
fn an_agent_out_of_sight_turning_blocked_rings_the_bell_and_the_focused_one_does_not() {
    let (server, root) = server_with_agents(&[("claude", CLAUDE_STAND_IN)]);
    let away_ws = server.workspace("away", &[]);
    let away = agent(&server, &away_ws, "away-agent");
    let desk = server.workspace("desk", &[]);
    let front = agent(&server, &desk, "front-agent");
    // No [alerts]: the bell, as tmux users expect.
    let mut terminal = open(&server, "desk", &root.join("none.toml"), None);
    prefix(&mut terminal, b"a");
    terminal.wait_text("nothing to jump to yet", |t| t.contains("no alert yet"));

    ask_permission(&server, &front);
    // Drawn after the listing that showed it blocked was weighed: a bell
    // for it would have come before.
    terminal.wait_text("the focused agent shown blocked", |t| {
        t.contains("front-agent") && t.contains("blocked")
    });
    assert_eq!(terminal.bells(), 0, "the focused pane never rings");

    ask_permission(&server, &away);
    wait_for("the bell", Duration::from_secs(15), || {
        (terminal.bells() == 1).then_some(())
    });
    terminal.wait_text("what rang, on the status line", |t| {
        t.contains("away-agent needs you") && t.contains("C-b a goes there")
    });
    assert!(
        terminal.notifications().is_empty(),
        "no OSC unless asked: {:?}",
        terminal.notifications()
    );

    let before = last_used(&server, "desk");
    prefix(&mut terminal, b"a");
    wait_for(
        "the jump to the alert's workspace",
        Duration::from_secs(15),
        || (last_used(&server, "away") > before).then_some(()),
    );
    terminal.wait_text("the alert's pane in front", |t| {
        t.lines().next().is_some_and(|bar| bar.contains("away"))
    });
    prefix(&mut terminal, b"d");
    assert_eq!(terminal.wait_exit(), 0);
}

/// A `notify-send` that writes each argument on a line of `log`.
fn fake_notify_send(root: &Path) -> (PathBuf, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let bin = root.join("desktop-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = root.join("notify-send.args");
    let script = bin.join("notify-send");
    std::fs::write(
        &script,
        format!("#!/bin/sh\nprintf '%s\\n' \"$@\" >> '{}'\n", log.display()),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    (bin, log)
}

#[test]
fn osc_9_and_notify_send_say_which_pane_needs_you_and_where() {
    let (server, root) = server_with_agents(&[("claude", CLAUDE_STAND_IN)]);
    let away_ws = server.workspace("away", &[]);
    let away = agent(&server, &away_ws, "away-agent");
    let desk = server.workspace("desk", &[]);
    server.new_sh(&desk, "exec sh");
    let config = root.join("config.toml");
    std::fs::write(&config, "[alerts]\nvia = [\"osc\", \"desktop\"]\n").unwrap();
    let (bin, log) = fake_notify_send(&root);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut terminal = open(&server, "desk", &config, Some(&path));

    ask_permission(&server, &away);
    let (source, title, body) = wait_for("an OSC 9", Duration::from_secs(15), || {
        terminal.notifications().into_iter().next()
    });
    assert_eq!(source, NotifySource::Osc9);
    let said = format!("{title} {body}");
    assert!(
        said.contains("signaltty: away-agent needs you (away › "),
        "{said}"
    );
    assert_eq!(terminal.bells(), 0, "no bell unless asked");
    let args = wait_for("notify-send to run", Duration::from_secs(15), || {
        std::fs::read_to_string(&log)
            .ok()
            .filter(|a| a.lines().count() >= 3)
    });
    let args: Vec<&str> = args.lines().collect();
    assert_eq!(args[0], "--app-name=signaltty");
    assert_eq!(args[1], "away-agent needs you");
    assert!(args[2].starts_with("away › "), "{args:?}");
    prefix(&mut terminal, b"d");
    assert_eq!(terminal.wait_exit(), 0);
}

#[test]
fn a_program_s_bells_reach_the_terminal_at_most_once_a_second() {
    let server = TestServer::start();
    let ws = server.workspace("bells", &[]);
    server.new_sh(
        &ws,
        "echo RINGING; while :; do printf '\\a'; sleep 0.05; done",
    );
    let config = server.dir.path().join("none.toml");
    let started = Instant::now();
    let mut terminal = open(&server, "bells", &config, None);
    terminal.wait_text("the ringing pane", |t| t.contains("RINGING"));
    wait_for("two bells", Duration::from_secs(15), || {
        (terminal.bells() >= 2).then_some(())
    });
    // Twenty bells a second ring; the first one passed no earlier than
    // `started` and each next one a second later at the least.
    let bells = terminal.bells();
    let elapsed = started.elapsed().as_secs_f64();
    assert!(
        bells as f64 <= 1.0 + elapsed,
        "{bells} bells in {elapsed:.1}s"
    );
    prefix(&mut terminal, b"d");
    assert_eq!(terminal.wait_exit(), 0);
}
