//! End to end: `signaltty attach` runs in a terminal the test owns; what
//! that terminal shows must be exactly what the pane's own screen shows.

mod support;

use std::process::Command;
use std::time::Duration;

use support::terminal::Terminal;
use support::{TestServer, wait_for};

const DETACH: &[u8] = b"\x1d";

fn attach(server: &TestServer, pane: &str, rows: u16, cols: u16) -> Terminal {
    attach_with(server, pane, &[], rows, cols)
}

fn attach_with(server: &TestServer, pane: &str, flags: &[&str], rows: u16, cols: u16) -> Terminal {
    let mut command: Command = server.command();
    command.args(["attach", pane]).args(flags);
    Terminal::run(&command, rows, cols)
}

/// The pane's screen as the server holds it.
fn pane_screen(server: &TestServer, pane: &str) -> String {
    let out = server.ctl(&["read", pane]);
    String::from_utf8_lossy(&out.stdout).trim_end().to_string()
}

/// Waits until the attached terminal shows exactly the pane's screen.
fn wait_mirror(server: &TestServer, terminal: &Terminal, pane: &str) -> String {
    wait_mirror_of(server, terminal, pane, "")
}

/// Waits until the attached terminal shows exactly the pane's screen, and
/// that screen holds `needle`.
fn wait_mirror_of(server: &TestServer, terminal: &Terminal, pane: &str, needle: &str) -> String {
    wait_for(
        &format!("the attached screen to match the pane's, with {needle:?}"),
        Duration::from_secs(30),
        || {
            let theirs = pane_screen(server, pane);
            let ours = terminal.text().trim_end().to_string();
            (ours == theirs && !ours.is_empty() && ours.contains(needle)).then_some(ours)
        },
    )
}

fn detach(terminal: &mut Terminal) {
    terminal.type_bytes(DETACH);
    assert_eq!(terminal.wait_exit(), 0);
}

#[test]
fn plain_output_is_mirrored_and_typing_reaches_the_pane() {
    let server = TestServer::start();
    let ws = server.workspace("plain", &[]);
    let pane = server.ctl_ok(&["new", &ws]);
    server.ctl_ok(&["send", &pane, "echo before-attach", "--enter"]);
    server.wait_output(&pane, "before-attach");
    let mut terminal = attach(&server, &pane, 24, 80);
    wait_mirror(&server, &terminal, &pane);
    terminal.type_bytes(b"echo typed-$((6*7))\r");
    terminal.wait_text("the typed command's output", |t| t.contains("typed-42"));
    wait_mirror(&server, &terminal, &pane);
    detach(&mut terminal);
    // Detaching left the pane running.
    assert_eq!(server.pane(&pane).unwrap()["state"], "LIVE");
}

#[test]
fn a_full_screen_program_looks_right_after_detach_and_reattach() {
    let server = TestServer::start();
    let ws = server.workspace("full", &[]);
    let script = "printf '\\033[?1049h\\033[2J\\033[3;5Htop-left\\033[10;20H\\033[1;31mred\\033[0m\\033[24;1Hbottom-line\\033[12;30H'; sleep 1000";
    let pane = server.new_sh(&ws, script);
    server.wait_output(&pane, "bottom-line");
    let mut terminal = attach(&server, &pane, 24, 80);
    let first = wait_mirror(&server, &terminal, &pane);
    assert!(first.contains("top-left") && first.contains("red"));
    detach(&mut terminal);

    let terminal = attach(&server, &pane, 24, 80);
    let again = wait_mirror(&server, &terminal, &pane);
    assert_eq!(again, first);
    let lines: Vec<&str> = again.lines().collect();
    assert_eq!(
        lines.len(),
        24,
        "the bottom line is on the last row: {again}"
    );
    assert_eq!(lines[2].trim(), "top-left");
}

/// The numbers on screen: consecutive, each once.
fn assert_consecutive(screen: &str) -> Vec<u64> {
    let numbers: Vec<u64> = screen
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    for pair in numbers.windows(2) {
        assert_eq!(
            pair[1],
            pair[0] + 1,
            "a gap or a repeat on screen:\n{screen}"
        );
    }
    numbers
}

#[test]
fn numbers_flowing_through_detach_and_reattach_are_never_doubled_or_lost() {
    let server = TestServer::start();
    let ws = server.workspace("flow", &[]);
    let count = "i=0; while [ $i -lt 3000 ]; do i=$((i+1)); echo $i; [ $((i % 40)) -eq 0 ] && sleep 0.05; done; echo done-counting; sleep 1000";
    let pane = server.new_sh(&ws, count);
    let mut terminal = attach(&server, &pane, 24, 80);
    let seen = terminal.wait_text("numbers past 200", |t| {
        t.lines()
            .filter_map(|l| l.trim().parse::<u64>().ok())
            .any(|n| n > 200)
    });
    assert_consecutive(&seen);
    detach(&mut terminal);
    let mut terminal = attach(&server, &pane, 24, 80);
    let middle = terminal.text();
    assert_consecutive(&middle);
    let done = terminal.wait_text("the count to finish", |t| t.contains("done-counting"));
    let numbers = assert_consecutive(&done);
    assert_eq!(numbers.last(), Some(&3000));
    wait_mirror(&server, &terminal, &pane);
    detach(&mut terminal);
}

#[test]
fn the_client_size_goes_to_the_pane_on_attach_and_on_resize() {
    let server = TestServer::start();
    let ws = server.workspace("size", &[]);
    let pane = server.ctl_ok(&["new", &ws]);
    let mut terminal = attach(&server, &pane, 30, 100);
    terminal.wait_text("a prompt", |t| !t.trim().is_empty());
    terminal.type_bytes(b"stty size\r");
    terminal.wait_text("the first size", |t| t.contains("30 100"));
    terminal.resize(40, 120);
    wait_for("the new size in the pane", Duration::from_secs(15), || {
        server.ctl_ok(&["send", &pane, "stty size", "--enter"]);
        std::thread::sleep(Duration::from_millis(100));
        pane_screen(&server, &pane).contains("40 120").then_some(())
    });
    wait_mirror(&server, &terminal, &pane);
    detach(&mut terminal);
}

#[test]
fn a_slow_client_never_slows_the_pane_and_catches_up_with_a_snapshot() {
    let server = TestServer::start();
    let ws = server.workspace("slow", &[]);
    let pane = server.ctl_ok(&["new", &ws]);
    let terminal = attach(&server, &pane, 24, 80);
    wait_mirror(&server, &terminal, &pane);
    // The client's terminal stops reading: its writes block, it stops
    // reading the socket, and its queue in the server fills up.
    terminal
        .paused
        .store(true, std::sync::atomic::Ordering::SeqCst);
    // The marker is computed, so the echoed command line cannot match it.
    server.ctl_ok(&[
        "send",
        &pane,
        "seq 1 3000000; echo flood-$((1+1))-over",
        "--enter",
    ]);
    // The pane is not held back: it finishes while nobody reads.
    server.wait_output(&pane, "flood-2-over");
    terminal
        .paused
        .store(false, std::sync::atomic::Ordering::SeqCst);
    let mirrored = wait_mirror(&server, &terminal, &pane);
    assert!(mirrored.contains("flood-2-over"));
}

#[test]
fn a_restored_pane_shows_its_history_and_comes_back_with_one_key() {
    let mut server = TestServer::start();
    let ws = server.workspace("restored", &[]);
    let pane = server.ctl_ok(&["new", &ws]);
    server.ctl_ok(&["send", &pane, "echo history-marker", "--enter"]);
    server.wait_output(&pane, "history-marker");
    server.wait_tail(&pane, "history-marker");
    server.wait_snapshot("the pane on disk", |s| s.to_string().contains(&pane));
    server.kill9();
    server.launch();

    let mut terminal = attach(&server, &pane, 24, 80);
    let shown = terminal.wait_text("the history and the offer", |t| t.contains("r respawn"));
    assert!(
        shown.contains("history-marker") && shown.contains("restored"),
        "{shown}"
    );
    terminal.type_bytes(b"r");
    server.wait_pane(&pane, "LIVE after one key", |p| p["state"] == "LIVE");
    terminal.type_bytes(b"echo back-$((1+1))\r");
    terminal.wait_text("the respawned shell", |t| t.contains("back-2"));
    wait_mirror(&server, &terminal, &pane);
    detach(&mut terminal);
}

#[test]
fn the_multiplexer_resumes_a_resumable_pane_with_one_key() {
    let root = support::short_temp_dir();
    let fake = support::agents::FakeAgents::new(root.path());
    let mut server = TestServer::start_with(true, vec![fake.path_env()]);
    let ws = server.workspace("agents", &[]);
    let pane = server.ctl_ok(&["new", &ws, "--", "claude"]);
    server.wait_output(&pane, "fake claude ready");
    wait_for("the session id on disk", Duration::from_secs(10), || {
        server
            .snapshot()
            .filter(|s| s.to_string().contains("agent_session_id"))
    });
    server.kill9();
    server.launch();
    let resumable = server.pane(&pane).unwrap();
    assert_eq!(resumable["state"], "RESUMABLE");
    let session = resumable["agent"]["session_id"]
        .as_str()
        .unwrap()
        .to_string();

    let mut command = server.command();
    command.arg("ui");
    let mut ui = Terminal::run(&command, 24, 120);
    let offer = format!("r resume: claude --resume {session}");
    ui.wait_text("the offer on the pane", |t| {
        t.contains("RESUMABLE") && t.contains(&offer)
    });
    ui.type_bytes(b"r");
    server.wait_pane(&pane, "LIVE after one key", |p| p["state"] == "LIVE");
    // The multiplexer follows the server: the agent shows without a key.
    ui.wait_text("the resumed agent", |t| {
        t.contains("fake claude ready --resume")
    });
    ui.type_bytes(b"\x02d");
    assert_eq!(ui.wait_exit(), 0);
    assert_eq!(
        server.pane(&pane).unwrap()["state"],
        "LIVE",
        "leaving the multiplexer leaves the server running"
    );
}

#[test]
fn two_clients_see_the_same_pane() {
    let server = TestServer::start();
    let ws = server.workspace("two", &[]);
    let pane = server.ctl_ok(&["new", &ws]);
    let mut first = attach(&server, &pane, 24, 80);
    let second = attach(&server, &pane, 24, 80);
    wait_mirror(&server, &first, &pane);
    first.type_bytes(b"echo from-the-$((1+1))nd\r");
    second.wait_text("the other client's command", |t| t.contains("from-the-2nd"));
    wait_mirror(&server, &second, &pane);
    wait_mirror(&server, &first, &pane);
    detach(&mut first);
    assert_eq!(server.pane(&pane).unwrap()["state"], "LIVE");
}

#[test]
fn the_client_says_so_and_gives_the_terminal_back_when_the_server_dies() {
    let mut server = TestServer::start();
    let ws = server.workspace("dies", &[]);
    let pane = server.new_sh(&ws, "echo pane-is-up; sleep 1000");
    let mut terminal = attach(&server, &pane, 24, 80);
    terminal.wait_text("the pane", |t| t.contains("pane-is-up"));
    server.kill9();
    assert_eq!(terminal.wait_exit(), 1);
    let after = terminal.wait_text("the message", |t| t.contains("server went away"));
    // Back on the main screen: the pane's picture is gone with the
    // alternate screen.
    assert!(!after.contains("pane-is-up"), "{after}");
}

#[test]
fn an_exited_agent_pane_says_that_r_resumes_it_and_r_does_exactly_that() {
    // Issue 10 §7: the offer said "respawn" and ran the agent's resume.
    let root = support::short_temp_dir();
    let fake = support::agents::FakeAgents::new(root.path());
    let server = TestServer::start_with(true, vec![fake.path_env()]);
    let ws = server.workspace("offer", &[]);
    fake.install("echo \"fake claude ran $*\"\nexit 0");
    let pane = server.ctl_ok(&["new", &ws, "--", "claude"]);
    let exited = server.wait_pane(&pane, "the agent to exit", |p| p["state"] == "EXITED");
    let session = exited["agent"]["session_id"].as_str().unwrap().to_string();
    fake.install("echo \"fake claude back $*\"\nexec sleep 1000");

    let mut terminal = attach(&server, &pane, 24, 100);
    let offer = format!("r resume: claude --resume {session}");
    terminal.wait_text("the offer naming the resume", |t| t.contains(&offer));
    terminal.type_bytes(b"r");
    server.wait_pane(&pane, "LIVE after one key", |p| p["state"] == "LIVE");
    terminal.wait_text("the resumed agent", |t| t.contains("fake claude back"));
    let runs = fake.runs(&pane);
    assert_eq!(
        runs.last().unwrap(),
        &format!("--resume {session}"),
        "{runs:?}"
    );
    detach(&mut terminal);
}

/// A pane nobody watches has its screen frozen a few seconds after it goes
/// quiet. Side by side with a twin that a client keeps live, everything
/// stays the same: an attach (served from the frozen screen, which does
/// not thaw for it), reads, and output that finishes an escape sequence
/// the frozen screen was in the middle of.
#[test]
fn a_frozen_screen_attaches_reads_and_continues_like_a_live_one() {
    let server = TestServer::start_with(
        false,
        vec![(
            "SIGNALTTY_LOG".to_string(),
            "info,signaltty_actors::pane::freezer=debug".to_string(),
        )],
    );
    let ws = server.workspace("frozen", &[]);
    let script = "printf '\\033]2;quiet-title\\007'; i=0; while [ $i -lt 60 ]; do i=$((i+1)); \
                  printf '\\033[3%dmline %d\\033[0m\\n' $((i % 8)) $i; done; \
                  printf 'end \\033[1'; exec cat";
    let live = server.new_sh(&ws, script);
    let mut live_client = attach(&server, &live, 24, 80);
    live_client.wait_text("the live twin's output", |t| t.contains("end"));
    let frozen = server.new_sh(&ws, script);
    server.wait_output(&frozen, "end");
    let logged = |pane: &str, what: &str| {
        server
            .log()
            .lines()
            .any(|l| l.contains(&format!("pane={pane}")) && l.contains(what))
    };
    wait_for(
        "the quiet pane's screen to freeze",
        Duration::from_secs(30),
        || logged(&frozen, "screen frozen").then_some(()),
    );
    assert!(!logged(&live, "screen frozen"), "a watched pane stays live");

    let mut frozen_client = attach(&server, &frozen, 24, 80);
    wait_for("the same picture", Duration::from_secs(15), || {
        let (ours, theirs) = (frozen_client.text_ansi(), live_client.text_ansi());
        (ours == theirs && ours.contains("end")).then_some(())
    });
    assert!(
        !logged(&frozen, "screen thawed"),
        "an attach is served frozen"
    );
    detach(&mut frozen_client);

    let read = |pane: &str, args: &[&str]| {
        let mut all = vec!["read", pane, "--ansi"];
        all.extend_from_slice(args);
        server.ctl_ok(&all)
    };
    assert_eq!(read(&frozen, &[]), read(&live, &[]));
    assert_eq!(
        read(&frozen, &["--tail", "100"]),
        read(&live, &["--tail", "100"])
    );
    assert!(logged(&frozen, "screen thawed"), "a read thaws");

    // `m` finishes the SGR both screens were left inside: bold from here on.
    for pane in [&frozen, &live] {
        server.ctl_ok(&["send", pane, "m"]);
        server.ctl_ok(&["send", pane, "bold", "--enter"]);
        server.wait_output(pane, "bold\nmbold");
    }
    assert_eq!(
        read(&frozen, &["--tail", "100"]),
        read(&live, &["--tail", "100"])
    );
    detach(&mut live_client);
}

/// What `seq 1 LAST` prints into a pane's terminal (which turns each
/// newline into CR LF).
fn seq_output(last: u64) -> Vec<u8> {
    (1..=last)
        .flat_map(|i| format!("{i}\r\n").into_bytes())
        .collect()
}

/// Where `needle` first starts in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// How many pictures of the whole screen `bytes` hold: each starts by
/// erasing the display, which the pane's own output in these tests never
/// does.
fn pictures(bytes: &[u8]) -> usize {
    bytes.windows(4).filter(|w| w == b"\x1b[2J").count()
}

#[test]
fn a_flood_reaches_the_client_as_pictures_and_ends_on_the_pane_s_exact_screen() {
    let server = TestServer::start();
    let ws = server.workspace("flood", &[]);
    let pane = server.ctl_ok(&["new", &ws]);
    let terminal = attach(&server, &pane, 24, 80);
    wait_mirror(&server, &terminal, &pane);
    let before = terminal.received_count();
    // The marker is computed, so the echoed command line cannot match it.
    server.ctl_ok(&[
        "send",
        &pane,
        "seq 1 1000000; echo flood-$((1+1))-over",
        "--enter",
    ]);
    wait_mirror_of(&server, &terminal, &pane, "flood-2-over");
    let printed = seq_output(1_000_000).len();
    let received = terminal.received_count() - before;
    assert!(
        received < printed / 4,
        "the client was sent {received} bytes of a {printed}-byte flood"
    );
    let theirs = server.ctl_ok(&["read", &pane, "--screen", "--ansi"]);
    assert_eq!(
        terminal.text_ansi().trim_end(),
        theirs.trim_end(),
        "colours and all"
    );
    // Once it calms, output is exact bytes again.
    let quiet = terminal.received().len();
    server.ctl_ok(&["send", &pane, "echo calm-$((1+1))", "--enter"]);
    terminal.wait_text("the calm output", |t| t.contains("calm-2"));
    let after = &terminal.received()[quiet..];
    assert!(find(after, b"calm-2\r\n").is_some(), "{after:?}");
    assert_eq!(pictures(after), 0, "{after:?}");
}

#[test]
fn every_byte_writes_all_of_a_flood_into_the_terminal() {
    let server = TestServer::start();
    let ws = server.workspace("every", &[]);
    let pane = server.ctl_ok(&["new", &ws]);
    let terminal = attach_with(&server, &pane, &["--every-byte"], 24, 80);
    wait_mirror(&server, &terminal, &pane);
    // Less than the pane's output ring, so even a client that fell behind
    // is owed every byte.
    server.ctl_ok(&[
        "send",
        &pane,
        "seq 1 100000; echo flood-$((1+1))-over",
        "--enter",
    ]);
    wait_mirror_of(&server, &terminal, &pane, "flood-2-over");
    let received = terminal.received();
    let all = seq_output(100_000);
    let start = find(&received, &all[..64]).expect("the flood's first lines");
    assert!(
        received[start..].starts_with(&all),
        "the flood is not all there, in one piece"
    );
}

#[test]
fn slow_output_arrives_as_exact_bytes_with_no_picture_between() {
    let server = TestServer::start();
    let ws = server.workspace("slow", &[]);
    let pane = server.ctl_ok(&["new", &ws]);
    let terminal = attach(&server, &pane, 24, 80);
    wait_mirror(&server, &terminal, &pane);
    let attached = terminal.received().len();
    server.ctl_ok(&[
        "send",
        &pane,
        "for i in 1 2 3 4 5 6 7 8; do echo slow-$((i*11)); sleep 0.2; done",
        "--enter",
    ]);
    terminal.wait_text("the last line", |t| t.contains("slow-88"));
    let received = terminal.received();
    let stream = &received[attached..];
    assert_eq!(pictures(stream), 0, "{stream:?}");
    let mut from = 0;
    for i in 1..=8 {
        let line = format!("slow-{}\r\n", i * 11);
        let at = find(&stream[from..], line.as_bytes())
            .unwrap_or_else(|| panic!("{line:?} after byte {from} of {stream:?}"));
        from += at + line.len();
    }
}

#[test]
fn pictures_of_a_flood_keep_the_terminal_s_keyboard_flags_in_step_with_the_pane() {
    let server = TestServer::start();
    let ws = server.workspace("flags", &[]);
    let pane = server.ctl_ok(&["new", &ws]);
    let mut terminal = attach(&server, &pane, 24, 80);
    wait_mirror(&server, &terminal, &pane);
    server.ctl_ok(&[
        "send",
        &pane,
        "printf '\\033[>1u'; echo pushed-$((1+1))",
        "--enter",
    ]);
    terminal.wait_text("the push", |t| t.contains("pushed-2"));
    assert_eq!(terminal.modes().kitty_flags, 1);
    let flood_from = terminal.received().len();
    // Every picture of the flood pushes the pane's flags again; the pop
    // after it must leave the terminal with none, as the pane has.
    server.ctl_ok(&[
        "send",
        &pane,
        "seq 1 1000000; printf '\\033[<u'; echo popped-$((1+1))",
        "--enter",
    ]);
    wait_mirror_of(&server, &terminal, &pane, "popped-2");
    let during = pictures(&terminal.received()[flood_from..]);
    assert!(during >= 2, "the flood came as {during} pictures");
    assert_eq!(terminal.modes().kitty_flags, 0, "the flags were stacked");
    detach(&mut terminal);
    assert_eq!(terminal.modes().kitty_flags, 0);
}
