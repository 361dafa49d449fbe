//! End to end: keys reach a program encoded as it asked its terminal, the
//! kitty keyboard protocol's `CSI … u` or modifyOtherKeys', through the
//! multiplexer, `attach` and `ctl send-keys`; the user's terminal is given
//! back in the keyboard mode it had.

mod support;

use std::process::Command;
use std::time::Duration;

use support::agents::install_stand_in;
use support::terminal::Terminal;
use support::{TestServer, wait_for};

/// What a kitty terminal sends for Shift+Enter.
const SHIFT_ENTER: &[u8] = b"\x1b[13;2u";
/// How `od -c` shows it.
const SHIFT_ENTER_SEEN: &str = "033   [   1   3   ;   2   u";

/// A pane whose program sets `modes`, then shows the next `count` bytes it
/// reads, as `od -c` prints them.
fn reader(server: &TestServer, ws: &str, modes: &str, count: usize) -> String {
    let script = format!(
        "stty raw -echo; printf '{modes}'; echo ready; head -c {count} | od -An -c; exec cat >/dev/null"
    );
    let pane = server.new_sh(ws, &script);
    server.wait_output(&pane, "ready");
    pane
}

/// A stand-in Claude Code that, like claude 2.1.197, asks for no keyboard
/// protocol, and shows the next `count` bytes it reads as `od -c` does.
fn claude_reader(server: &TestServer, ws: &str, count: usize) -> String {
    let body =
        format!("stty raw -echo; echo ready; head -c {count} | od -An -c; exec cat >/dev/null");
    let bin = install_stand_in(server.dir.path(), "claude", &body);
    let claude = bin.join("claude").display().to_string();
    let pane = server.ctl_ok(&["new", ws, "--", &claude]);
    server.wait_output(&pane, "ready");
    pane
}

/// How `od -c` shows ESC CR, Alt+Enter: what Claude Code reads as a new
/// line where Shift+Enter cannot be told from Enter.
const CLAUDE_NEW_LINE_SEEN: &str = "033  \\r";

fn wait_flags(terminal: &Terminal, what: &str, flags: u8) {
    wait_for(what, Duration::from_secs(15), || {
        (terminal.modes().kitty_flags == flags).then_some(())
    });
}

#[test]
fn shift_enter_reaches_a_kitty_program_through_the_multiplexer() {
    let server = TestServer::start();
    let ws = server.workspace("kitty", &[]);
    let pane = reader(&server, &ws, "\\033[>1u", SHIFT_ENTER.len());
    let mut command: Command = server.command();
    command.args(["ui", &ws]);
    let mut terminal = Terminal::answering(&command, 24, 100);
    terminal.wait_text("the multiplexer", |t| t.contains("? help"));
    wait_flags(&terminal, "the terminal to send keys as the pane asked", 1);
    terminal.type_bytes(SHIFT_ENTER);
    server.wait_output(&pane, SHIFT_ENTER_SEEN);

    // A split focuses a new shell: its keys are legacy, and so is what the
    // terminal sends; back on the kitty pane (the prefix works in the
    // kitty protocol's form too), kitty keys again.
    terminal.type_bytes(b"\x1b[98;5u%");
    wait_flags(&terminal, "the terminal back to legacy keys", 0);
    terminal.type_bytes(b"\x1b[98;5uh");
    wait_flags(&terminal, "kitty keys again", 1);

    terminal.type_bytes(b"\x1b[98;5u");
    terminal.type_bytes(b"d");
    assert_eq!(terminal.wait_exit(), 0);
    // The multiplexer pushed onto the alternate screen's stack, which the
    // terminal keeps for its next visit: it must have popped it there.
    terminal.feed_screen(b"\x1b[?1049h");
    assert_eq!(terminal.modes().kitty_flags, 0, "the flags were popped");
}

#[test]
fn keys_the_pane_did_not_ask_for_are_sent_as_it_did() {
    let server = TestServer::start();
    let ws = server.workspace("legacy", &[]);
    let pane = reader(&server, &ws, "", 2);
    let mut command: Command = server.command();
    command.args(["ui", &ws]);
    let mut terminal = Terminal::answering(&command, 24, 100);
    terminal.wait_text("the multiplexer", |t| t.contains("? help"));
    // The terminal answered; a key it sends in kitty form anyway (focus
    // had just moved) reaches the legacy program as legacy bytes.
    terminal.type_bytes(b"\x1b[99;5u\x1b[99;5:3ux");
    server.wait_output(&pane, "003   x");
    assert_eq!(terminal.modes().kitty_flags, 0, "nothing was pushed");
}

#[test]
fn shift_enter_reaches_a_kitty_program_through_attach_and_detach_pops_its_flags() {
    let server = TestServer::start();
    let ws = server.workspace("attached", &[]);
    let pane = reader(&server, &ws, "\\033[>1u", SHIFT_ENTER.len());
    let mut command: Command = server.command();
    command.args(["attach", &pane]);
    let mut terminal = Terminal::answering(&command, 24, 80);
    wait_flags(&terminal, "the pane's flags on the terminal", 1);
    terminal.type_bytes(SHIFT_ENTER);
    server.wait_output(&pane, SHIFT_ENTER_SEEN);
    // The detach key (C-]) as the kitty protocol sends it.
    terminal.type_bytes(b"\x1b[93;5u");
    assert_eq!(terminal.wait_exit(), 0);
    assert_eq!(terminal.modes().kitty_flags, 0, "detach popped the flags");
}

#[test]
fn send_keys_and_queries_follow_the_protocol_the_program_set() {
    let server = TestServer::start();
    let ws = server.workspace("modes", &[]);
    let kitty = reader(&server, &ws, "\\033[>1u", SHIFT_ENTER.len());
    server.ctl_ok(&["send-keys", &kitty, "shift+enter"]);
    server.wait_output(&kitty, SHIFT_ENTER_SEEN);

    let xterm = reader(&server, &ws, "\\033[>4;2m", 10);
    server.ctl_ok(&["send-keys", &xterm, "shift+enter"]);
    server.wait_output(&xterm, "033   [   2   7   ;   2   ;   1   3   ~");

    let legacy = reader(&server, &ws, "", 1);
    server.ctl_ok(&["send-keys", &legacy, "shift+enter"]);
    server.wait_output(&legacy, "\\r");

    // The program asks which flags it has, and hears the truth.
    let asking = reader(&server, &ws, "\\033[>5u\\033[?u", 5);
    server.wait_output(&asking, "033   [   ?   5   u");
}

/// Regression: Claude Code asks for no keyboard protocol, so a
/// Shift+Enter sent as CR submitted the prompt instead of a new line.
#[test]
fn shift_enter_is_an_agents_new_line_through_send_keys_when_it_asked_no_protocol() {
    let server = TestServer::start();
    let ws = server.workspace("claude", &[]);
    let pane = claude_reader(&server, &ws, 2);
    let explained = server.ctl_ok(&["explain", &pane]);
    assert!(
        explained.contains("Shift+Enter is sent as alt+enter (ESC CR)"),
        "{explained}"
    );
    server.ctl_ok(&["send-keys", &pane, "shift+enter"]);
    server.wait_output(&pane, CLAUDE_NEW_LINE_SEEN);
}

#[test]
fn shift_enter_is_an_agents_new_line_through_the_multiplexer() {
    let server = TestServer::start();
    let ws = server.workspace("claude", &[]);
    let pane = claude_reader(&server, &ws, 3);
    let mut command: Command = server.command();
    command.args(["ui", &ws]);
    let mut terminal = Terminal::answering(&command, 24, 100);
    terminal.wait_text("the multiplexer", |t| t.contains("? help"));
    wait_flags(&terminal, "the terminal to tell Shift+Enter apart", 1);
    // Shift+Enter, then a plain `x` as the kitty terminal sends it.
    terminal.type_bytes(b"\x1b[13;2ux");
    server.wait_output(&pane, "033  \\r   x");
    terminal.type_bytes(b"\x1b[98;5u");
    terminal.type_bytes(b"d");
    assert_eq!(terminal.wait_exit(), 0);
    terminal.feed_screen(b"\x1b[?1049h");
    assert_eq!(terminal.modes().kitty_flags, 0, "the flag was popped");
}

#[test]
fn shift_enter_is_an_agents_new_line_through_attach() {
    let server = TestServer::start();
    let ws = server.workspace("claude", &[]);
    let pane = claude_reader(&server, &ws, 3);
    let mut command: Command = server.command();
    command.args(["attach", &pane]);
    let mut terminal = Terminal::answering(&command, 24, 80);
    wait_flags(
        &terminal,
        "attach to make the terminal tell Shift+Enter apart",
        1,
    );
    // A terminal that speaks modifyOtherKeys, not kitty's, sends this.
    terminal.type_bytes(b"\x1b[27;2;13~x");
    server.wait_output(&pane, "033  \\r   x");
    terminal.type_bytes(b"\x1b[93;5u");
    assert_eq!(terminal.wait_exit(), 0);
    let modes = terminal.modes();
    assert_eq!(
        (modes.kitty_flags, modes.modify_other_keys),
        (0, 0),
        "detach took back what attach set"
    );
}
