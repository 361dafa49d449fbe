//! End to end: the multiplexer runs in a terminal the test owns, its
//! screen emulated; what it shows and what reaches each pane is checked
//! against the server.

mod support;

use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use support::agents::{
    CLAUDE_STAND_IN, end_turn, finish_turn, idle_claude, server_with_agents, start_turn,
};
use support::terminal::Terminal;
use support::{TestServer, all_panes, wait_for};

const PREFIX: &[u8] = b"\x02";
/// Narrow enough that the sidebar hides by itself.
const ROWS: u16 = 24;
const COLS: u16 = 90;

fn mux_command(server: &TestServer, args: &[&str]) -> Command {
    let mut command = server.command();
    command.arg("ui").args(args);
    command
}

/// The multiplexer on `workspace`, once it shows its status line.
fn open(server: &TestServer, workspace: &str, rows: u16, cols: u16) -> Terminal {
    let terminal = Terminal::run(&mux_command(server, &[workspace]), rows, cols);
    terminal.wait_text("the multiplexer", |t| t.contains("? help"));
    terminal
}

fn keys(terminal: &mut Terminal, bytes: &[u8]) {
    terminal.type_bytes(bytes);
}

fn prefix(terminal: &mut Terminal, key: &[u8]) {
    terminal.type_bytes(PREFIX);
    terminal.type_bytes(key);
}

fn workspace<'a>(ls: &'a Value, name: &str) -> &'a Value {
    ls["workspaces"]
        .as_array()
        .and_then(|w| w.iter().find(|w| w["name"] == name))
        .unwrap_or_else(|| panic!("no workspace {name}: {ls}"))
}

/// The active tab of workspace `name`.
fn active_tab(server: &TestServer, name: &str) -> Value {
    let ls = server.ls();
    let ws = workspace(&ls, name);
    let id = ws["active_tab"].clone();
    ws["tabs"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["id"] == id))
        .cloned()
        .unwrap_or_else(|| ws["tabs"][0].clone())
}

fn pane_ids(tab: &Value) -> Vec<String> {
    tab["panes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| p["id"].as_str().unwrap().to_string())
        .collect()
}

fn wait_active(server: &TestServer, name: &str, pane: &str) {
    wait_for(
        &format!("pane {pane} focused"),
        Duration::from_secs(15),
        || (active_tab(server, name)["active_pane"] == pane).then_some(()),
    );
}

/// Where `needle` starts on screen: (row, column in characters).
fn find(text: &str, needle: &str) -> Option<(usize, usize)> {
    text.lines().enumerate().find_map(|(row, line)| {
        line.find(needle)
            .map(|byte| (row, line[..byte].chars().count()))
    })
}

/// `stty size` of a shell pane, as it answers.
/// Waits until the pane's program reads `want` (`rows cols`) from `stty
/// size`: a resize reaches the PTY a little after the layout changes.
fn wait_size(server: &TestServer, pane: &str, want: &str) {
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    let mut seen = String::new();
    while seen != want {
        assert!(
            std::time::Instant::now() < deadline,
            "pane {pane} is {seen:?} after 15s, not {want:?}"
        );
        server.ctl_ok(&[
            "send",
            pane,
            "clear; stty size | sed 's/^/size=/'",
            "--enter",
        ]);
        std::thread::sleep(Duration::from_millis(200));
        let screen = server.ctl_ok(&["read", pane]);
        if let Some(size) = screen.lines().find_map(|l| l.strip_prefix("size=")) {
            seen = size.to_string();
        }
    }
}

fn detach(terminal: &mut Terminal) {
    prefix(terminal, b"d");
    assert_eq!(terminal.wait_exit(), 0);
}

#[test]
fn panes_sit_side_by_side_at_the_columns_their_ratios_give() {
    let server = TestServer::start();
    let ws = server.workspace("ratios", &[]);
    let left = server.new_sh(&ws, "echo LEFT-MARK; exec sh");
    let right = server.new_sh(&ws, "echo RIGHT-MARK; exec sh");
    let tab = active_tab(&server, "ratios")["id"]
        .as_str()
        .unwrap()
        .to_string();
    server
        .call(
            "tab.split_ratio",
            serde_json::json!({"tab": tab, "path": [], "ratio": 0.25}),
        )
        .unwrap();
    let mut terminal = open(&server, "ratios", ROWS, COLS);
    let text = terminal.wait_text("both panes", |t| {
        t.contains("LEFT-MARK") && t.contains("RIGHT-MARK")
    });
    // 90 columns: 22 for the left pane (a quarter of 89), a border, 67.
    assert_eq!(find(&text, "LEFT-MARK").map(|p| p.1), Some(0), "{text}");
    assert_eq!(find(&text, "RIGHT-MARK").map(|p| p.1), Some(23), "{text}");
    // Each PTY has exactly its cells: 24 rows less the tab bar, the
    // status line and the pane's own top border.
    wait_size(&server, &left, "21 22");
    wait_size(&server, &right, "21 67");
    detach(&mut terminal);
}

#[test]
fn typing_reaches_the_focused_pane_only_and_the_prefix_twice_sends_it() {
    let server = TestServer::start();
    let ws = server.workspace("typing", &[]);
    let other = server.ctl_ok(&["new", &ws]);
    let focused = server.ctl_ok(&["new", &ws, "--", "cat", "-v"]);
    let mut terminal = open(&server, "typing", ROWS, COLS);
    wait_active(&server, "typing", &focused);
    keys(&mut terminal, b"typed-here");
    prefix(&mut terminal, PREFIX);
    keys(&mut terminal, b"\r");
    server.wait_output(&focused, "typed-here^B");
    assert!(!server.ctl_ok(&["read", &other]).contains("typed-here"));
    detach(&mut terminal);
}

#[test]
fn splits_focus_moves_and_zoom_follow_the_keys() {
    let server = TestServer::start();
    let ws = server.workspace("keys", &[]);
    let first = server.ctl_ok(&["new", &ws]);
    let mut terminal = open(&server, "keys", ROWS, COLS);
    prefix(&mut terminal, b"%");
    let right = wait_for("a pane to the right", Duration::from_secs(15), || {
        let tab = active_tab(&server, "keys");
        (pane_ids(&tab).len() == 2).then(|| pane_ids(&tab)[1].clone())
    });
    wait_active(&server, "keys", &right);
    prefix(&mut terminal, b"\"");
    let below = wait_for("a pane below", Duration::from_secs(15), || {
        let tab = active_tab(&server, "keys");
        (pane_ids(&tab).len() == 3).then(|| pane_ids(&tab)[2].clone())
    });
    let layout = active_tab(&server, "keys")["layout"].clone();
    assert_eq!(layout["direction"], "right");
    assert_eq!(layout["second"]["direction"], "down", "{layout}");
    wait_active(&server, "keys", &below);
    // Of two neighbours, the one used last wins, as in tmux.
    for (key, expect) in [
        (&b"\x1b[D"[..], &first),
        (b"l", &below),
        (b"k", &right),
        (b"h", &first),
        (b"\x1b[C", &right),
        (b"j", &below),
        (b"\x1b[A", &right),
    ] {
        prefix(&mut terminal, key);
        wait_active(&server, "keys", expect);
    }
    wait_size(&server, &right, "10 44");
    prefix(&mut terminal, b"z");
    terminal.wait_text("the zoom badge", |t| t.contains("zoomed"));
    wait_size(&server, &right, "21 90");
    prefix(&mut terminal, b"z");
    terminal.wait_text("unzoomed", |t| !t.contains("zoomed"));
    wait_size(&server, &right, "10 44");
    detach(&mut terminal);
}

#[test]
fn tabs_come_and_go_by_key_and_the_server_keeps_which_is_active() {
    let server = TestServer::start();
    let ws = server.workspace("tabs", &[]);
    server.ctl_ok(&["new", &ws]);
    let mut terminal = open(&server, "tabs", ROWS, COLS);
    let tab_id = |i: usize| {
        let ls = server.ls();
        workspace(&ls, "tabs")["tabs"][i]["id"].clone()
    };
    let wait_tab = |i: usize| {
        wait_for(&format!("tab {i} active"), Duration::from_secs(15), || {
            let ls = server.ls();
            let ws = workspace(&ls, "tabs");
            (ws["active_tab"] == ws["tabs"][i]["id"]).then_some(())
        })
    };
    prefix(&mut terminal, b"c");
    terminal.wait_text("a second tab", |t| t.contains("1:Tab 2"));
    wait_tab(1);
    prefix(&mut terminal, b"c");
    terminal.wait_text("a third tab", |t| t.contains("2:Tab 3"));
    wait_tab(2);
    prefix(&mut terminal, b"0");
    wait_tab(0);
    prefix(&mut terminal, b"p");
    wait_tab(2);
    prefix(&mut terminal, b"n");
    wait_tab(0);
    prefix(&mut terminal, b"n");
    wait_tab(1);
    prefix(&mut terminal, b"7");
    terminal.wait_text("no such tab", |t| t.contains("there is no tab 7"));
    assert!(tab_id(1) != tab_id(0));
    detach(&mut terminal);
}

#[test]
fn renames_by_key_survive_a_sigkill_and_restart() {
    let mut server = TestServer::start();
    let ws = server.workspace("names", &[]);
    let pane = server.ctl_ok(&["new", &ws]);
    let mut terminal = open(&server, "names", ROWS, COLS);
    prefix(&mut terminal, b",");
    terminal.wait_text("the rename prompt", |t| t.contains("rename pane:"));
    keys(&mut terminal, b"\x15my pane\r");
    prefix(&mut terminal, b".");
    terminal.wait_text("the tab prompt", |t| t.contains("rename tab:"));
    keys(&mut terminal, b"\x15my tab\r");
    prefix(&mut terminal, b"$");
    terminal.wait_text("the workspace prompt", |t| t.contains("rename workspace:"));
    keys(&mut terminal, b"\x15renamed\r");
    terminal.wait_text("the new names", |t| {
        t.contains("my pane") && t.contains("0:my tab") && t.contains("renamed")
    });
    // A program's title does not win over the user's name.
    server.ctl_ok(&[
        "send",
        &pane,
        "printf '\\033]2;program\\007'; echo titled",
        "--enter",
    ]);
    server.wait_output(&pane, "titled");
    server.wait_snapshot("the names on disk", |s| {
        let text = s.to_string();
        text.contains("\"my pane\"") && text.contains("\"my tab\"") && text.contains("\"renamed\"")
    });
    detach(&mut terminal);
    server.kill9();
    server.launch();
    let ls = server.ls();
    let ws = workspace(&ls, "renamed");
    assert_eq!(ws["tabs"][0]["title"], "my tab");
    assert_eq!(ws["tabs"][0]["panes"][0]["title"], "my pane");
    let terminal = open(&server, "renamed", ROWS, COLS);
    terminal.wait_text("the names after a restart", |t| {
        t.contains("my pane") && t.contains("my tab")
    });
}

#[test]
fn the_workspace_picker_creates_and_switches_and_tab_finds_who_needs_you() {
    let server = TestServer::start();
    let home = server.workspace("home", &[]);
    server.ctl_ok(&["new", &home]);
    let away = server.workspace("away", &[]);
    let needy = server.ctl_ok(&["new", &away]);
    let mut terminal = open(&server, "home", ROWS, 120);
    // Wide enough: the sidebar shows every workspace and pane.
    terminal.wait_text("the sidebar", |t| {
        t.contains("▸ away") && t.contains("▾ home")
    });
    prefix(&mut terminal, b"s");
    terminal.wait_text("the sidebar hidden", |t| !t.contains("▸ away"));
    prefix(&mut terminal, b"s");
    terminal.wait_text("the sidebar back", |t| t.contains("▸ away"));
    prefix(&mut terminal, b"w");
    terminal.wait_text("the picker", |t| t.contains("+ new workspace"));
    keys(&mut terminal, b"n");
    terminal.wait_text("the name prompt", |t| t.contains("new workspace:"));
    keys(&mut terminal, b"third\r");
    wait_for(
        "workspace third with a shell",
        Duration::from_secs(15),
        || {
            let ls = server.ls();
            ls["workspaces"]
                .as_array()
                .unwrap()
                .iter()
                .find(|w| {
                    w["name"] == "third"
                        && !all_panes(&serde_json::json!({"workspaces": [w]})).is_empty()
                })
                .cloned()
        },
    );
    terminal.wait_text("the new workspace shown", |t| {
        t.contains(" third ") && t.contains("▾ third")
    });
    server.ctl_ok(&[
        "notify",
        "--pane",
        &needy,
        "--severity",
        "error",
        "look here",
    ]);
    terminal.wait_text("the mark on the pane that needs you", |t| t.contains("» "));
    prefix(&mut terminal, b"\t");
    terminal.wait_text("the jump", |t| t.contains("▾ away"));
    wait_active(&server, "away", &needy);
    wait_for("the attention seen", Duration::from_secs(15), || {
        (server.pane(&needy).unwrap()["attention"] == "none").then_some(())
    });
    detach(&mut terminal);
}

#[test]
fn close_asks_first_and_help_lists_the_keys() {
    let server = TestServer::start();
    let ws = server.workspace("close", &[]);
    let keep = server.ctl_ok(&["new", &ws]);
    let doomed = server.ctl_ok(&["new", &ws]);
    let mut terminal = open(&server, "close", ROWS, COLS);
    prefix(&mut terminal, b"?");
    let help = terminal.wait_text("the help", |t| t.contains("split right"));
    for line in ["split down", "zoom", "copy mode", "detach", "tab by number"] {
        assert!(help.contains(line), "{line}: {help}");
    }
    keys(&mut terminal, b"q");
    terminal.wait_text("the help gone", |t| !t.contains("split right"));
    wait_active(&server, "close", &doomed);
    prefix(&mut terminal, b"x");
    terminal.wait_text("the question", |t| {
        t.contains("close pane") && t.contains("y/n")
    });
    keys(&mut terminal, b"n");
    terminal.wait_text("kept", |t| t.contains("not closed"));
    assert!(server.pane(&doomed).is_some());
    prefix(&mut terminal, b"x");
    terminal.wait_text("the question again", |t| t.contains("y/n"));
    keys(&mut terminal, b"y");
    wait_for("the pane closed", Duration::from_secs(15), || {
        server.pane(&doomed).is_none().then_some(())
    });
    assert!(server.pane(&keep).is_some());
    detach(&mut terminal);
}

#[test]
fn detach_leaves_everything_running() {
    let server = TestServer::start();
    let ws = server.workspace("stay", &[]);
    let pane = server.new_sh(
        &ws,
        "i=0; while :; do i=$((i+1)); echo tick-$i; sleep 0.2; done",
    );
    let mut terminal = open(&server, "stay", ROWS, COLS);
    terminal.wait_text("the pane", |t| t.contains("tick-"));
    detach(&mut terminal);
    terminal.wait_text("the goodbye", |t| t.contains("detached"));
    let before = server.ctl_ok(&["read", &pane]);
    wait_for("more ticks", Duration::from_secs(15), || {
        (server.ctl_ok(&["read", &pane]) != before).then_some(())
    });
    assert_eq!(server.pane(&pane).unwrap()["state"], "LIVE");
}

#[test]
fn a_tombstone_says_what_r_runs_and_prefix_r_runs_it() {
    let mut server = TestServer::start();
    let ws = server.workspace("tomb", &[]);
    let pane = server.ctl_ok(&["new", &ws]);
    server.ctl_ok(&["send", &pane, "echo before-$((1+1))", "--enter"]);
    server.wait_output(&pane, "before-2");
    server.wait_tail(&pane, "before-2");
    server.wait_snapshot("the pane on disk", |s| s.to_string().contains(&pane));
    server.kill9();
    server.launch();
    let mut terminal = open(&server, "tomb", ROWS, COLS);
    // The offer can show a moment before the history is painted.
    terminal.wait_text("the history and the offer", |t| {
        t.contains("r respawn: /bin/sh") && t.contains("before-2") && t.contains("RESTORED")
    });
    prefix(&mut terminal, b"r");
    server.wait_pane(&pane, "LIVE after C-b r", |p| p["state"] == "LIVE");
    terminal.wait_text("the offer gone", |t| !t.contains("r respawn"));
    keys(&mut terminal, b"echo back-$((2+2))\r");
    terminal.wait_text("the respawned shell", |t| t.contains("back-4"));
    detach(&mut terminal);
}

/// An SGR mouse report as a terminal sends it, 0-based cell.
fn click(kind: &str, col: u16, row: u16) -> Vec<u8> {
    let (code, end) = match kind {
        "press" => (0, 'M'),
        "drag" => (32, 'M'),
        _ => (0, 'm'),
    };
    format!("\x1b[<{code};{};{}{end}", col + 1, row + 1).into_bytes()
}

#[test]
fn the_mouse_focuses_panes_and_drags_the_border() {
    let server = TestServer::start();
    let ws = server.workspace("mouse", &[]);
    let left = server.ctl_ok(&["new", &ws]);
    let right = server.ctl_ok(&["new", &ws]);
    let mut terminal = open(&server, "mouse", ROWS, COLS);
    assert_eq!(
        terminal.modes().mouse,
        signaltty_screen::MouseReporting::Drags,
        "the mouse is captured by default"
    );
    wait_active(&server, "mouse", &right);
    keys(&mut terminal, &click("press", 5, 10));
    keys(&mut terminal, &click("release", 5, 10));
    wait_active(&server, "mouse", &left);
    // The border is at column 45 (half of 89, rounded); drag it to 30.
    keys(&mut terminal, &click("press", 45, 10));
    keys(&mut terminal, &click("drag", 37, 10));
    keys(&mut terminal, &click("drag", 30, 10));
    keys(&mut terminal, &click("release", 30, 10));
    wait_for("the ratio saved", Duration::from_secs(15), || {
        let ratio = active_tab(&server, "mouse")["layout"]["ratio"]
            .as_f64()
            .unwrap();
        ((ratio - 30.0 / 89.0).abs() < 0.01).then_some(())
    });
    wait_size(&server, &left, "21 30");
    wait_size(&server, &right, "21 59");
    // A click on the tab bar picks a tab.
    server.ctl_ok(&["tab", "new", &ws, "--title", "second"]);
    let text = terminal.wait_text("the second tab", |t| t.contains("1:second"));
    let (row, col) = find(&text, "1:second").unwrap();
    keys(&mut terminal, &click("press", col as u16 + 1, row as u16));
    keys(&mut terminal, &click("release", col as u16 + 1, row as u16));
    wait_for("the clicked tab active", Duration::from_secs(15), || {
        (active_tab(&server, "mouse")["title"] == "second").then_some(())
    });
    detach(&mut terminal);
}

#[test]
fn copy_mode_reaches_lines_that_scrolled_off_before_attach_and_searches() {
    let server = TestServer::start();
    let ws = server.workspace("copy", &[]);
    let pane = server.new_sh(&ws, "seq 1 1500 | sed 's/^/row-/'; exec sh");
    server.wait_output(&pane, "row-1500");
    let mut terminal = open(&server, "copy", ROWS, COLS);
    terminal.wait_text("the end of the output", |t| t.contains("row-1500"));
    prefix(&mut terminal, b"[");
    terminal.wait_text("copy mode", |t| {
        t.contains("copy [") && t.contains("q leave")
    });
    keys(&mut terminal, b"g");
    terminal.wait_text("the first line, long scrolled off", |t| {
        t.lines().any(|l| l.trim() == "row-1")
    });
    keys(&mut terminal, b"/row-777\r");
    terminal.wait_text("the match", |t| t.lines().any(|l| l.trim() == "row-777"));
    keys(&mut terminal, b"n");
    terminal.wait_text("no other match: wrapped to the same", |t| {
        t.lines().any(|l| l.trim() == "row-777")
    });
    keys(&mut terminal, b"q");
    terminal.wait_text("copy mode left", |t| {
        !t.contains("q leave") && t.contains("row-1500")
    });
    detach(&mut terminal);
}

#[test]
fn the_outer_terminal_resized_resizes_every_visible_pane() {
    let server = TestServer::start();
    let ws = server.workspace("resize", &[]);
    let left = server.ctl_ok(&["new", &ws]);
    let right = server.ctl_ok(&["new", &ws]);
    let mut terminal = open(&server, "resize", ROWS, COLS);
    // 89 columns to share: 44.5 rounds to 45 on the left.
    wait_size(&server, &left, "21 45");
    wait_size(&server, &right, "21 44");
    terminal.resize(30, 61);
    wait_size(&server, &left, "27 30");
    wait_size(&server, &right, "27 30");
    detach(&mut terminal);
}

#[test]
fn keys_and_the_mouse_follow_the_config_file() {
    let server = TestServer::start();
    let ws = server.workspace("config", &[]);
    server.ctl_ok(&["new", &ws]);
    let config = server.dir.path().join("config.toml");
    std::fs::write(
        &config,
        "mouse = false\n[keys]\nprefix = \"C-a\"\nsplit-right = \"|\"\n",
    )
    .unwrap();
    let mut command = mux_command(&server, &["config"]);
    command.env("SIGNALTTY_CONFIG", &config);
    let mut terminal = Terminal::run(&command, ROWS, COLS);
    terminal.wait_text("the hint with the new prefix", |t| t.contains("C-a ? help"));
    assert_eq!(
        terminal.modes().mouse,
        signaltty_screen::MouseReporting::Off
    );
    keys(&mut terminal, b"\x01|");
    wait_for(
        "a split by the configured key",
        Duration::from_secs(15),
        || (pane_ids(&active_tab(&server, "config")).len() == 2).then_some(()),
    );
    keys(&mut terminal, b"\x01d");
    assert_eq!(terminal.wait_exit(), 0);

    std::fs::write(&config, "[keys]\nsplit-sideways = \"|\"\n").unwrap();
    let mut bad = Terminal::run(&command, ROWS, COLS);
    assert_eq!(bad.wait_exit(), 1);
    // The line wraps at the terminal's width.
    bad.wait_text("the error naming the file", |t| {
        let line = t.replace('\n', "");
        line.contains("config.toml") && line.contains("not an action")
    });
}

/// Shuts down a server the test did not start itself.
struct Shutdown<'a>(&'a TestServer);

impl Drop for Shutdown<'_> {
    fn drop(&mut self) {
        let _ = self.0.ctl(&["shutdown"]);
    }
}

#[test]
fn signaltty_alone_starts_the_server_with_a_shell_and_up_comes_back_to_it() {
    let server = TestServer::prepare(false, Vec::new());
    let _shutdown = Shutdown(&server);
    let mut terminal = Terminal::run(&server.command(), ROWS, COLS);
    terminal.wait_text("a new default workspace", |t| {
        t.contains(" default ") && t.contains("? help")
    });
    keys(&mut terminal, b"echo first-$((1+1))\r");
    terminal.wait_text("the shell", |t| t.contains("first-2"));
    detach(&mut terminal);
    let ls = server.ls();
    let panes = all_panes(&ls);
    assert_eq!(panes.len(), 1, "{ls}");
    assert_eq!(panes[0]["state"], "LIVE", "detaching left it running");

    let mut command = server.command();
    command.arg("up");
    let mut terminal = Terminal::run(&command, ROWS, COLS);
    terminal.wait_text("the same shell", |t| {
        t.contains("first-2") && t.contains("? help")
    });
    detach(&mut terminal);
}

#[test]
fn colours_wide_characters_and_the_alternate_screen_reach_the_terminal() {
    let server = TestServer::start();
    let ws = server.workspace("paint", &[]);
    let script = "printf '\\033[1;31mred\\033[0m 漢字 e\\314\\201\\n'; sleep 1000";
    let pane = server.new_sh(&ws, script);
    server.wait_output(&pane, "red");
    let mut terminal = open(&server, "paint", ROWS, COLS);
    let shown = terminal.wait_text("the pane", |t| t.contains("red"));
    assert!(shown.contains("red 漢字 e\u{301}"), "{shown}");
    let ansi = terminal.text_ansi();
    assert!(ansi.contains("\u{1b}[0;1;31mred"), "{ansi:?}");
    // A full-screen program's picture, and the shell's back after it.
    let full = "printf '\\033[?1049h\\033[2J\\033[5;5HFULL-SCREEN'; sleep 1; printf '\\033[?1049l'; sleep 1000";
    let other = server.new_sh(&ws, full);
    terminal.wait_text("the alternate screen", |t| t.contains("FULL-SCREEN"));
    terminal.wait_text("the primary screen back", |t| !t.contains("FULL-SCREEN"));
    assert!(server.pane(&other).is_some());
    detach(&mut terminal);
}

#[test]
fn paste_is_bracketed_only_when_asked_and_focus_events_reach_programs_that_want_them() {
    let server = TestServer::start();
    let ws = server.workspace("paste", &[]);
    let plain = server.ctl_ok(&["new", &ws, "--", "cat", "-v"]);
    let asks = "printf '\\033[?2004h\\033[?1004h'; exec cat -v";
    let bracketed = server.new_sh(&ws, asks);
    let mut terminal = open(&server, "paste", ROWS, COLS);
    wait_active(&server, "paste", &bracketed);
    keys(&mut terminal, b"\x1b[200~one\x02two\x1b[201~\r");
    server.wait_output(&bracketed, "^[[200~one^Btwo^[[201~");
    keys(&mut terminal, b"\x1b[O\x1b[I\r");
    server.wait_output(&bracketed, "^[[O^[[I");
    prefix(&mut terminal, b"h");
    wait_active(&server, "paste", &plain);
    keys(&mut terminal, b"\x1b[200~three\x1b[201~\x1b[I\r");
    let text = server.wait_output(&plain, "three");
    assert!(!text.contains("[200~") && !text.contains("^[[I"), "{text}");
    detach(&mut terminal);
}

#[test]
fn the_wheel_scrolls_history_and_goes_to_a_program_that_asked() {
    let server = TestServer::start();
    let ws = server.workspace("wheel", &[]);
    let shell = server.new_sh(&ws, "seq 1 200; exec sh");
    let mouse = "printf '\\033[?1000h\\033[?1006h'; echo mouse-on; exec cat -v";
    let program = server.new_sh(&ws, mouse);
    let mut terminal = open(&server, "wheel", ROWS, COLS);
    // The marker comes after the modes: once it shows, the multiplexer's
    // copy of the pane knows the program asked for the mouse.
    terminal.wait_text("both panes", |t| {
        t.contains("200") && t.contains("mouse-on")
    });
    // Over the program that asked: the report, in its coordinates.
    keys(&mut terminal, b"\x1b[<64;50;5M");
    server.wait_output(&program, "^[[<64;4;3M");
    // Over the shell: its history.
    keys(&mut terminal, b"\x1b[<64;10;5M");
    terminal.wait_text("copy mode from the wheel", |t| t.contains(" copy ["));
    wait_active(&server, "wheel", &shell);
    for _ in 0..3 {
        keys(&mut terminal, b"\x1b[<65;10;5M");
    }
    terminal.wait_text("back at the bottom, copy mode left", |t| {
        !t.contains(" copy [")
    });
    detach(&mut terminal);
}

/// The multiplexer's Tab goes where `ctl next` does: to the agent whose
/// turn ended, not to one that is working again with newer attention.
#[test]
fn tab_goes_to_the_finished_agent_not_the_working_one() {
    let (server, root) = server_with_agents(&[("claude", CLAUDE_STAND_IN)]);
    let home = root.join("home");
    let agents = server.workspace("agents", &[]);
    let finished = idle_claude(&server, &agents);
    let busy = idle_claude(&server, &agents);
    for pane in [&finished, &busy] {
        start_turn(&server, pane);
        finish_turn(&server, &home, pane);
    }
    start_turn(&server, &busy);
    let desk = server.workspace("desk", &[]);
    let shell = server.ctl_ok(&["new", &desk]);
    let mut terminal = open(&server, "desk", ROWS, COLS);
    wait_active(&server, "desk", &shell);
    prefix(&mut terminal, b"\t");
    wait_active(&server, "agents", &finished);
    terminal.wait_text("the pane it went to", |t| t.contains("unread"));
    assert_eq!(server.pane(&busy).unwrap()["lifecycle"], "working");
    end_turn(&home, &busy);
    detach(&mut terminal);
}

/// Regression: three shells of a tab were `● bash ● bash ● bash` in the
/// sidebar even when one ran `top`. A pane is named by its agent, else its
/// foreground command, as tmux's automatic-rename does.
#[test]
fn the_sidebar_and_ctl_ls_name_panes_by_agent_and_foreground_command() {
    let (server, _root) = server_with_agents(&[("claude", CLAUDE_STAND_IN)]);
    let ws = server.workspace("names", &[]);
    let shell = ["--", "bash", "--norc", "--noprofile"];
    let plain = server.ctl_ok(&[&["new", &ws][..], &shell].concat());
    let busy = server.ctl_ok(&[&["new", &ws][..], &shell].concat());
    let agent = server.ctl_ok(&["new", &ws, "--", "claude"]);
    server.ctl_ok(&["send", &busy, "top -d 0.5", "--enter"]);
    for (pane, name) in [(&plain, "bash"), (&busy, "top"), (&agent, "claude")] {
        server.wait_pane(pane, name, |p| p["name"] == name);
    }
    let listed = server.ctl_ok(&["ls"]);
    let line = listed.lines().find(|l| l.contains(busy.as_str())).unwrap();
    assert!(line.contains(" top "), "{listed}");
    let mut terminal = open(&server, "names", 30, 150);
    terminal.wait_text("the sidebar's names", |t| {
        t.contains("● bash") && t.contains("● top") && t.contains("● claude")
    });
    server.ctl_ok(&["send", &busy, "q"]);
    server.wait_pane(&busy, "bash again", |p| p["name"] == "bash");
    terminal.wait_text("the sidebar after top", |t| !t.contains("● top"));
    detach(&mut terminal);
}

/// Regression (issue 20 §5): `prefix z` twice in one go left the other
/// panes blank: the connection dropped by the zoom reported its end after
/// the new one was made, and took the new one down with it.
#[test]
fn zoom_twice_gives_the_exact_layout_back() {
    let server = TestServer::start();
    let ws = server.workspace("zoom", &[]);
    let left = server.new_sh(&ws, "echo LEFT-MARK; exec sh");
    let right = server.new_sh(&ws, "echo RIGHT-MARK; exec sh");
    let mut terminal = open(&server, "zoom", ROWS, COLS);
    terminal.wait_text("both panes", |t| {
        t.contains("LEFT-MARK") && t.contains("RIGHT-MARK")
    });
    let before = terminal.text();
    for round in 0..3 {
        // Both presses in one write, as a script (or a fast hand) sends
        // them; then the left pane is typed into: it must be attached.
        keys(&mut terminal, b"\x02z\x02z\x02h");
        wait_active(&server, "zoom", &left);
        keys(
            &mut terminal,
            format!("echo typed-$((40+{round}))\r").as_bytes(),
        );
        terminal.wait_text("the left pane attached again", |t| {
            t.contains(&format!("typed-{}", 40 + round)) && t.contains("RIGHT-MARK")
        });
        keys(&mut terminal, b"clear; echo LEFT-MARK\r\x02l");
        wait_active(&server, "zoom", &right);
    }
    let after = terminal.wait_text("both marks", |t| t.contains("LEFT-MARK"));
    // The border where it was: the right pane starts at the same column.
    assert_eq!(find(&after, "RIGHT-MARK"), find(&before, "RIGHT-MARK"));
    assert_eq!(find(&after, "LEFT-MARK"), find(&before, "LEFT-MARK"));
    wait_size(&server, &left, "21 45");
    wait_size(&server, &right, "21 44");
    detach(&mut terminal);
}

/// The number of the `row-N` line at the top of the pane (the screen's
/// third row: the tab bar and the pane's border are above it).
fn top_row(text: &str) -> Option<u32> {
    text.lines()
        .nth(2)?
        .trim()
        .strip_prefix("row-")?
        .parse()
        .ok()
}

/// Regression (issue 20 §5): PageUp in copy mode moved the cursor, not the
/// view. As tmux's page-up, a page is the pane's height less two lines
/// kept for context, half a page is half its height, and the cursor keeps
/// its row on screen.
#[test]
fn copy_mode_pages_by_the_pane_s_height_as_tmux_does() {
    let server = TestServer::start();
    let ws = server.workspace("pages", &[]);
    let pane = server.new_sh(&ws, "seq 1 1500 | sed 's/^/row-/'; exec sh");
    server.wait_output(&pane, "row-1500");
    let mut terminal = open(&server, "pages", ROWS, COLS);
    terminal.wait_text("the end of the output", |t| t.contains("row-1500"));
    prefix(&mut terminal, b"[");
    let text = terminal.wait_text("copy mode", |t| t.contains("q leave"));
    let bottom = top_row(&text).expect("a row at the top of the pane");
    // 24 rows: the pane shows 21, a page is 19, half a page 10.
    for (key, expect) in [
        (&b"\x1b[5~"[..], bottom - 19),
        (b"\x1b[5~", bottom - 38),
        (b"\x1b[6~", bottom - 19),
        (b"\x15", bottom - 29),
        (b"\x04", bottom - 19),
        // C-b is the prefix, as in tmux: emacs's M-v pages up instead.
        (b"\x1bv", bottom - 38),
        (b"\x06", bottom - 19),
        (b"\x06", bottom),
        (b"\x06", bottom),
    ] {
        keys(&mut terminal, key);
        terminal.wait_text(&format!("row-{expect} at the top after {key:?}"), |t| {
            top_row(t) == Some(expect)
        });
    }
    keys(&mut terminal, b"q");
    detach(&mut terminal);
}

fn root_ratio(server: &TestServer, name: &str) -> f64 {
    active_tab(server, name)["layout"]["ratio"]
        .as_f64()
        .unwrap()
}

/// Issue 21 §1: tmux's pane keys. `{` `}` swap, M-arrows resize by 5 and
/// C-arrows by 1 (again without the prefix within the repeat time), `!`
/// breaks the pane out into a tab of its own, `m` moves it to another.
#[test]
fn panes_swap_resize_break_and_move_by_key() {
    let server = TestServer::start();
    let ws = server.workspace("pkeys", &[]);
    let left = server.ctl_ok(&["new", &ws]);
    let right = server.ctl_ok(&["new", &ws]);
    let mut terminal = open(&server, "pkeys", ROWS, COLS);
    wait_active(&server, "pkeys", &right);
    wait_size(&server, &right, "21 44");

    // Swap: right is first now, and still focused.
    prefix(&mut terminal, b"{");
    wait_for("the swap", Duration::from_secs(15), || {
        (pane_ids(&active_tab(&server, "pkeys")) == [right.clone(), left.clone()]).then_some(())
    });
    wait_active(&server, "pkeys", &right);
    wait_size(&server, &right, "21 45");
    prefix(&mut terminal, b"}");
    wait_for("swapped back", Duration::from_secs(15), || {
        (pane_ids(&active_tab(&server, "pkeys")) == [left.clone(), right.clone()]).then_some(())
    });

    // M-Left: the border left of the last pane moves 5 to the left; a
    // second M-Left without the prefix repeats it; C-Right moves it 1.
    prefix(&mut terminal, b"\x1b[1;3D");
    keys(&mut terminal, b"\x1b[1;3D");
    wait_for("the border 10 cells left", Duration::from_secs(15), || {
        ((root_ratio(&server, "pkeys") - 35.0 / 89.0).abs() < 0.001).then_some(())
    });
    wait_size(&server, &right, "21 54");
    wait_size(&server, &left, "21 35");
    prefix(&mut terminal, b"\x1b[1;5C");
    wait_for("the border 1 cell right", Duration::from_secs(15), || {
        ((root_ratio(&server, "pkeys") - 36.0 / 89.0).abs() < 0.001).then_some(())
    });
    // Past the repeat time the key is the pane's again. The sleep starts
    // once the move is seen, after the client took the key, so load only
    // lengthens the gap: it cannot land inside the repeat time.
    std::thread::sleep(Duration::from_millis(600));
    keys(&mut terminal, b"echo after-$((3+4))\r");
    server.wait_output(&right, "after-7");
    assert!((root_ratio(&server, "pkeys") - 36.0 / 89.0).abs() < 0.001);

    // Break: the pane alone in a new tab, the same shell.
    // Quoted, so the echoed command line cannot hold the mark the wait
    // looks for before the answer comes.
    server.ctl_ok(&["send", &right, "echo pid-$$-'e'nd", "--enter"]);
    let pid = server.wait_output(&right, "-end\n");
    prefix(&mut terminal, b"!");
    terminal.wait_text("the new tab", |t| t.contains("1:Tab 2"));
    wait_for("a tab of its own", Duration::from_secs(15), || {
        (pane_ids(&active_tab(&server, "pkeys")) == [right.clone()]).then_some(())
    });
    wait_size(&server, &right, "21 90");
    // Move: back into tab 0, beside its active pane.
    prefix(&mut terminal, b"m");
    terminal.wait_text("the question", |t| t.contains("move the pane to tab"));
    keys(&mut terminal, b"0\r");
    wait_for("back in the first tab", Duration::from_secs(15), || {
        let ls = server.ls();
        let tabs = workspace(&ls, "pkeys")["tabs"].as_array().unwrap().clone();
        (tabs.len() == 1 && pane_ids(&tabs[0]) == [left.clone(), right.clone()]).then_some(())
    });
    server.ctl_ok(&["send", &right, "clear; echo pid-$$-'e'nd", "--enter"]);
    let again = server.wait_output(&right, "-end\n");
    let last_pid = |text: &str| {
        text.lines()
            .rfind(|l| l.starts_with("pid-"))
            .map(String::from)
    };
    assert_eq!(last_pid(&again), last_pid(&pid), "the same process");

    // The help is drawn in more than one write: wait for all of it.
    prefix(&mut terminal, b"?");
    let lines = [
        "split right",
        "swap with the next pane",
        "resize by 5",
        "M-arrows",
        "C-arrows",
        "break",
    ];
    terminal.wait_text("the help", |t| lines.iter().all(|line| t.contains(line)));
    keys(&mut terminal, b"q");
    detach(&mut terminal);
}

#[test]
fn keys_bound_in_keys_root_act_without_the_prefix() {
    let server = TestServer::start();
    let ws = server.workspace("root", &[]);
    let left = server.ctl_ok(&["new", &ws]);
    let right = server.ctl_ok(&["new", &ws]);
    let config = server.dir.path().join("config.toml");
    std::fs::write(
        &config,
        "[keys.root]\nfocus-left = \"M-h\"\nzoom = \"M-z\"\n",
    )
    .unwrap();
    let mut command = mux_command(&server, &["root"]);
    command.env("SIGNALTTY_CONFIG", &config);
    let mut terminal = Terminal::run(&command, ROWS, COLS);
    terminal.wait_text("the multiplexer", |t| t.contains("? help"));
    wait_active(&server, "root", &right);
    keys(&mut terminal, b"\x1bh");
    wait_active(&server, "root", &left);
    keys(&mut terminal, b"\x1bz");
    terminal.wait_text("zoomed without the prefix", |t| t.contains("zoomed"));
    // Every other key still reaches the pane.
    keys(&mut terminal, b"echo typed-$((1+1))\r");
    server.wait_output(&left, "typed-2");
    assert!(!server.ctl_ok(&["read", &right]).contains("typed-2"));
    detach(&mut terminal);
}

/// A hibernated agent shown beside the focused pane stays asleep and says
/// so; focusing it wakes it through its resume command.
#[test]
fn a_sleeping_agent_says_so_and_wakes_when_focused() {
    let (server, root) = server_with_agents(&[("claude", CLAUDE_STAND_IN)]);
    let ws = server.workspace("sleepers", &[]);
    let sleeper = idle_claude(&server, &ws);
    server.wait_pane(&sleeper, "its session id", |p| {
        p["agent"]["session_id"].is_string()
    });
    let other = server.ctl_ok(&["new", &ws]);
    wait_active(&server, "sleepers", &other);
    server.ctl_ok(&["hibernate", &sleeper]);

    // Wide enough for the sidebar, which marks it `z`.
    let mut terminal = open(&server, "sleepers", ROWS, 120);
    terminal.wait_text("the sleeper's line and mark", |t| {
        t.contains("HIBERNATED") && t.contains("focus wakes it") && t.contains("z claude")
    });
    assert_eq!(
        server.pane(&sleeper).unwrap()["state"],
        "HIBERNATED",
        "shown, not focused: it sleeps on"
    );
    prefix(&mut terminal, b"h");
    server.wait_pane(&sleeper, "awake on focus", |p| p["state"] == "LIVE");
    let resumed = support::agents::runs(&root, "claude");
    assert!(
        resumed
            .last()
            .is_some_and(|run| run.starts_with("--resume ")),
        "{resumed:?}"
    );
    terminal.wait_text("the line gone", |t| !t.contains("focus wakes it"));
    detach(&mut terminal);
}
