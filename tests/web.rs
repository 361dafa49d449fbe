//! `signaltty web` end to end: a real server, the real web process on a
//! free loopback port, driven over raw HTTP/1.1 and WebSockets as a
//! browser (or an attacker's page) would.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::browser::Browser;
use support::{TestServer, agents, wait_for};
use tungstenite::client::IntoClientRequest;
use tungstenite::http::HeaderValue;
use tungstenite::{Message, WebSocket};

const DEADLINE: Duration = Duration::from_secs(20);

/// A running `signaltty web`, killed when dropped.
struct Web {
    child: Child,
    /// Where to reach it (loopback, when it listens on every address).
    addr: SocketAddr,
    /// `http` or `https`.
    scheme: String,
    /// What it printed after its address.
    _stdout: mpsc::Receiver<String>,
}

impl Drop for Web {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_web(server: &TestServer, flags: &[&str]) -> Web {
    let mut child = server
        .command()
        .arg("web")
        .args(if flags.contains(&"--listen") {
            &[][..]
        } else {
            &["--listen", "127.0.0.1:0"][..]
        })
        .args(flags)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start signaltty web");
    let stdout = child.stdout.take().expect("stdout");
    let (lines_tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if lines_tx.send(line).is_err() {
                return;
            }
        }
    });
    let first = lines
        .recv_timeout(DEADLINE)
        .expect("signaltty web says where it listens");
    let (scheme, addr) = first
        .strip_prefix("signaltty web: listening on ")
        .and_then(|rest| rest.split_once("://"))
        .and_then(|(scheme, rest)| Some((scheme, rest.split('/').next()?)))
        .and_then(|(scheme, addr)| Some((scheme.to_string(), addr.parse::<SocketAddr>().ok()?)))
        .unwrap_or_else(|| panic!("no address in {first:?}"));
    let addr = if addr.ip().is_unspecified() {
        SocketAddr::from(([127, 0, 0, 1], addr.port()))
    } else {
        addr
    };
    Web {
        child,
        addr,
        scheme,
        _stdout: lines,
    }
}

struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// One HTTP/1.1 request on a connection of its own.
fn http(web: &Web, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    let mut stream = TcpStream::connect(web.addr).expect("connect to signaltty web");
    stream.set_read_timeout(Some(DEADLINE)).expect("timeout");
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: {}\r\n",
        web.addr,
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).expect("send");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read the answer");
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    Answer {
        status,
        headers,
        body: body.to_string(),
    }
}

fn origin(web: &Web) -> String {
    format!("{}://{}", web.scheme, web.addr)
}

fn login(web: &Web, token: &str) -> Answer {
    let origin = origin(web);
    http(
        web,
        "POST",
        "/login",
        &[
            ("Origin", &origin),
            ("Content-Type", "application/x-www-form-urlencoded"),
        ],
        &format!("token={token}"),
    )
}

/// Logs in; the session cookie (`name=value`).
fn session(web: &Web, token: &str) -> String {
    let answer = login(web, token);
    assert_eq!(answer.status, 303, "login: {}", answer.body);
    assert_eq!(answer.header("location"), Some("/"));
    let cookie = answer.header("set-cookie").expect("a session cookie");
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    assert!(cookie.contains("SameSite=Strict"), "{cookie}");
    assert!(cookie.contains("Path=/"), "{cookie}");
    cookie
        .split(';')
        .next()
        .expect("name=value")
        .trim()
        .to_string()
}

fn web_token(server: &TestServer, flags: &[&str]) -> String {
    let out = server
        .command()
        .args(["web", "token"])
        .args(flags)
        .output()
        .expect("signaltty web token");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let token = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert_eq!(token.len(), 64, "{token:?}");
    assert!(token.bytes().all(|b| b.is_ascii_hexdigit()));
    token
}

type Socket = WebSocket<TcpStream>;

/// Opens a WebSocket at `path` with these headers; the refusal's status
/// when the upgrade is refused.
fn socket(
    web: &Web,
    path: &str,
    origin: Option<&str>,
    cookie: Option<&str>,
) -> Result<Socket, u16> {
    let mut request = format!("ws://{}{path}", web.addr)
        .into_client_request()
        .expect("request");
    let headers = request.headers_mut();
    if let Some(origin) = origin {
        headers.insert("Origin", HeaderValue::from_str(origin).expect("origin"));
    }
    if let Some(cookie) = cookie {
        headers.insert("Cookie", HeaderValue::from_str(cookie).expect("cookie"));
    }
    let stream = TcpStream::connect(web.addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_millis(200)))
        .expect("timeout");
    match tungstenite::client(request, stream) {
        Ok((socket, _)) => Ok(socket),
        Err(tungstenite::HandshakeError::Failure(tungstenite::Error::Http(response))) => {
            Err(response.status().as_u16())
        }
        Err(e) => panic!("websocket {path}: {e}"),
    }
}

/// A logged-in pane socket of this site and its first text message (the
/// attach reply).
fn pane_socket(web: &Web, cookie: &str, pane: &str) -> (Socket, Value) {
    let path = format!("/ws/pane/{pane}");
    let mut socket = socket(web, &path, Some(&origin(web)), Some(cookie)).expect("the pane socket");
    let said = read_until(&mut socket, "the attach reply", |m| match m {
        Message::Text(text) => Some(serde_json::from_str(text.as_str()).expect("json")),
        _ => None,
    });
    (socket, said)
}

/// Reads messages until `found` says yes; panics at the deadline or if
/// the socket closes first.
fn read_until<T>(
    socket: &mut Socket,
    what: &str,
    mut found: impl FnMut(&Message) -> Option<T>,
) -> T {
    let deadline = Instant::now() + DEADLINE;
    loop {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        match socket.read() {
            Ok(message) => {
                if let Some(value) = found(&message) {
                    return value;
                }
            }
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(e) => panic!("the socket ended while waiting for {what}: {e}"),
        }
    }
}

fn listing_ids(message: &Message) -> Option<Vec<String>> {
    let Message::Text(text) = message else {
        return None;
    };
    let listing: Value = serde_json::from_str(text.as_str()).expect("a listing");
    Some(
        listing["panes"]
            .as_array()?
            .iter()
            .filter_map(|p| p["id"].as_str().map(String::from))
            .collect(),
    )
}

#[test]
fn a_browser_logs_in_watches_the_dashboard_and_types_into_a_pane() {
    let server = TestServer::start_with(false, Vec::new());
    let workspace = server.workspace("w", &[]);
    let first = server.new_sh(&workspace, "echo first-pane-here; exec sh");
    let web = start_web(&server, &[]);
    let token = web_token(&server, &[]);

    // Nothing without a session: the API and the sockets refuse, pages
    // send the browser to the login page, unknown paths do not exist.
    assert_eq!(http(&web, "GET", "/api/session", &[], "").status, 401);
    let page = http(&web, "GET", "/", &[], "");
    assert_eq!(
        (page.status, page.header("location")),
        (303, Some("/login"))
    );
    let page = http(&web, "GET", &format!("/pane/{first}"), &[], "");
    assert_eq!(page.status, 303);
    assert_eq!(http(&web, "GET", "/login", &[], "").status, 200);
    assert_eq!(http(&web, "GET", "/no/such/page", &[], "").status, 404);
    assert_eq!(
        socket(&web, "/ws/events", Some(&origin(&web)), None).err(),
        Some(401)
    );

    let cookie = session(&web, &token);
    assert_eq!(
        http(&web, "GET", "/api/session", &[("Cookie", &cookie)], "").status,
        204
    );
    let page = http(&web, "GET", "/", &[("Cookie", &cookie)], "");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("dashboard.js"), "{}", page.body);
    assert_eq!(
        http(&web, "GET", "/nope", &[("Cookie", &cookie)], "").status,
        404
    );

    // Another site's page: its Origin is its own, and nothing it sends
    // is taken, not even with the cookie.
    let evil = "http://evil.example";
    let foreign = [("Origin", evil), ("Cookie", cookie.as_str())];
    assert_eq!(http(&web, "POST", "/logout", &foreign, "").status, 403);
    let foreign_login = http(
        &web,
        "POST",
        "/login",
        &[
            ("Origin", evil),
            ("Content-Type", "application/x-www-form-urlencoded"),
        ],
        &format!("token={token}"),
    );
    assert_eq!(foreign_login.status, 403);
    assert_eq!(
        http(&web, "POST", "/logout", &[("Cookie", &cookie)], "").status,
        403
    );
    assert_eq!(
        socket(&web, "/ws/events", Some(evil), Some(&cookie)).err(),
        Some(403)
    );
    assert_eq!(
        socket(
            &web,
            &format!("/ws/pane/{first}"),
            Some(evil),
            Some(&cookie)
        )
        .err(),
        Some(403)
    );
    assert_eq!(
        socket(&web, "/ws/events", None, Some(&cookie)).err(),
        Some(403)
    );

    // The dashboard lists the pane, and a new one as soon as it exists.
    let mut events =
        socket(&web, "/ws/events", Some(&origin(&web)), Some(&cookie)).expect("the events socket");
    read_until(&mut events, "the first pane listed", |m| {
        listing_ids(m).filter(|ids| ids.contains(&first))
    });
    let second = server.new_sh(&workspace, "exec sh");
    read_until(&mut events, "the new pane listed", |m| {
        listing_ids(m).filter(|ids| ids.contains(&first) && ids.contains(&second))
    });

    // A pane: its screen, then what is typed through the page comes back.
    let (mut pane, said) = pane_socket(&web, &cookie, &first);
    assert_eq!(said["type"], "attached", "{said}");
    assert_eq!(said["reply"]["pane"], first.as_str());
    let mut seen = String::new();
    read_until(&mut pane, "the snapshot", |m| match m {
        Message::Binary(bytes) if bytes.first() == Some(&2) => {
            seen.push_str(&String::from_utf8_lossy(&bytes[1..]));
            seen.contains("first-pane-here").then_some(())
        }
        _ => None,
    });
    let mut input = vec![11u8];
    input.extend_from_slice(b"echo web-$((6*7))\r");
    pane.send(Message::Binary(input.into()))
        .expect("send input");
    let mut output = String::new();
    read_until(&mut pane, "the command's output", |m| match m {
        Message::Binary(bytes) if matches!(bytes.first(), Some(1 | 2)) => {
            output.push_str(&String::from_utf8_lossy(&bytes[1..]));
            output.contains("web-42").then_some(())
        }
        _ => None,
    });
    // Actions are posted, with the session and from this site only.
    let action = format!("/api/pane/{first}");
    let json = ("Content-Type", "application/json");
    let keys = r#"{"action":"keys","keys":["ctrl+c"]}"#;
    let own = origin(&web);
    let answer = http(&web, "POST", &action, &[("Origin", &own), json], keys);
    assert_eq!(answer.status, 401, "no cookie");
    let answer = http(
        &web,
        "POST",
        &action,
        &[("Origin", evil), ("Cookie", &cookie), json],
        keys,
    );
    assert_eq!(answer.status, 403, "another site");
    let answer = http(
        &web,
        "POST",
        &action,
        &[("Origin", &own), ("Cookie", &cookie), json],
        keys,
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    let nonsense = r#"{"action":"shutdown"}"#;
    let answer = http(
        &web,
        "POST",
        &action,
        &[("Origin", &own), ("Cookie", &cookie), json],
        nonsense,
    );
    assert_eq!(answer.status, 422, "{}", answer.body);
    let big = format!(r#"{{"action":"prompt","text":"{}"}}"#, "x".repeat(200_000));
    let answer = http(
        &web,
        "POST",
        &action,
        &[("Origin", &own), ("Cookie", &cookie), json],
        &big,
    );
    assert_eq!(answer.status, 413, "a body beyond the bound");
    let shell = r#"{"action":"prompt","text":"hello"}"#;
    let answer = http(
        &web,
        "POST",
        &action,
        &[("Origin", &own), ("Cookie", &cookie), json],
        shell,
    );
    assert_eq!(answer.status, 422, "a shell is no agent: {}", answer.body);
    // A text message on the pane's socket is no way in.
    pane.send(Message::Text(keys.into())).expect("send text");

    // A new token ends every session: requests at once, open sockets soon.
    let rotated = web_token(&server, &["--rotate"]);
    assert_ne!(rotated, token);
    assert_eq!(
        http(&web, "GET", "/api/session", &[("Cookie", &cookie)], "").status,
        401
    );
    assert_eq!(login(&web, &token).status, 401, "the old token is refused");
    for (socket, name) in [(&mut events, "events"), (&mut pane, "pane")] {
        wait_for(
            &format!("the {name} socket to close"),
            DEADLINE,
            || match socket.read() {
                Ok(Message::Close(_)) | Err(tungstenite::Error::ConnectionClosed) => Some(()),
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    None
                }
                Ok(_) => None,
                Err(_) => Some(()),
            },
        );
    }
    let fresh = session(&web, &rotated);
    assert_eq!(
        http(&web, "GET", "/api/session", &[("Cookie", &fresh)], "").status,
        204
    );
}

#[test]
fn wrong_tokens_are_refused_then_rate_limited() {
    let server = TestServer::start_with(false, Vec::new());
    let web = start_web(&server, &[]);
    let token = web_token(&server, &[]);
    for _ in 0..5 {
        let answer = login(&web, &"0".repeat(64));
        assert_eq!(answer.status, 401);
        assert!(answer.header("set-cookie").is_none());
        assert!(answer.body.contains("not the token"), "{}", answer.body);
    }
    // Even the right token waits now: a limit that the right guess
    // passes would not limit guessing.
    let limited = login(&web, &token);
    assert_eq!(limited.status, 429);
    assert!(limited.header("retry-after").is_some());
    assert!(limited.header("set-cookie").is_none());
    // And once the wait is over, the right token gets in.
    wait_for("the wait to end", DEADLINE, || {
        (login(&web, &token).status == 303).then_some(())
    });
}

#[test]
fn a_read_only_web_server_sends_nothing_to_a_pane() {
    let server = TestServer::start_with(false, Vec::new());
    let workspace = server.workspace("w", &[]);
    let pane_id = server.new_sh(&workspace, "echo ready-for-input; exec sh");
    server.wait_output(&pane_id, "ready-for-input");
    let web = start_web(&server, &["--read-only"]);
    let cookie = session(&web, &web_token(&server, &[]));
    let (mut pane, said) = pane_socket(&web, &cookie, &pane_id);
    assert_eq!(said["read_only"], true, "{said}");
    let mut input = vec![11u8];
    input.extend_from_slice(b"echo typed-$((6*7))\r");
    pane.send(Message::Binary(input.into()))
        .expect("send input");
    let refusal = |m: &Message| match m {
        Message::Text(text) => {
            let said: Value = serde_json::from_str(text.as_str()).expect("json");
            (said["type"] == "refused").then(|| said["message"].to_string())
        }
        _ => None,
    };
    let why = read_until(&mut pane, "the input refused", refusal);
    assert!(why.contains("read-only"), "{why}");
    pane.send(Message::Binary(vec![12u8, 0, 10, 0, 20].into()))
        .expect("send a resize");
    read_until(&mut pane, "the resize refused", refusal);
    let cookie_header = ("Cookie", cookie.as_str());
    let own = origin(&web);
    let answer = http(
        &web,
        "POST",
        &format!("/api/pane/{pane_id}"),
        &[
            ("Origin", &own),
            cookie_header,
            ("Content-Type", "application/json"),
        ],
        r#"{"action":"keys","keys":["enter"]}"#,
    );
    assert_eq!(answer.status, 422);
    assert!(answer.body.contains("read-only"), "{}", answer.body);
    // The refusals came after the decisions: had anything been sent, the
    // shell would have run it by the time the pane is read again.
    let screen = server.ctl_ok(&["read", &pane_id]);
    assert!(
        !screen.contains("typed-42") && !screen.contains("typed-"),
        "{screen}"
    );
    let size = server.pane(&pane_id).expect("the pane");
    assert_eq!(size["state"], "LIVE");
}

#[test]
fn listening_beyond_loopback_needs_tls_or_a_word_of_warning() {
    let server = TestServer::prepare(false, Vec::new());
    let out = server
        .command()
        .args(["web", "--listen", "0.0.0.0:7681"])
        .stdin(Stdio::null())
        .output()
        .expect("signaltty web");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    for needed in [
        "SSH tunnel",
        "Tailscale serve",
        "reverse proxy",
        "--insecure-http",
    ] {
        assert!(stderr.contains(needed), "{needed}: {stderr}");
    }
    assert!(out.stdout.is_empty(), "nothing served");

    // The token is made on first use, 0600 in a 0700 directory.
    let first = web_token(&server, &[]);
    assert_eq!(web_token(&server, &[]), first, "kept");
    let dir = server.state_dir.join("web");
    assert_eq!(support::mode(&dir), 0o700);
    assert_eq!(support::mode(&dir.join("token")), 0o600);
}

/// Where the browser tests leave their screenshots (docs/ keeps copies).
fn screenshot_dir() -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("web-screenshots");
    std::fs::create_dir_all(&dir).expect("the screenshot dir");
    dir
}

/// Logs `browser` in through the login page, as a person would.
fn log_in(browser: &mut Browser, web: &Web, token: &str) {
    browser.open(&format!("{}/login", origin(web)));
    browser.eval("document.getElementById('token').focus()");
    browser.type_text(token);
    browser.press("Enter", 13, 0);
    browser.wait_for(
        "the dashboard",
        "location.pathname === '/' && document.getElementById('panes') !== null",
    );
}

/// What xterm.js shows of the pane, row by row.
const XTERM_TEXT: &str = "(() => { const b = term.buffer.active; const rows = []; \
     for (let i = 0; i < b.length; i++) { rows.push(b.getLine(i).translateToString(true)); } \
     return rows.join('\\n'); })()";

#[test]
fn in_a_real_browser_a_blocked_agent_comes_first_is_answered_and_panes_are_typed_into() {
    let (server, root) = agents::server_with_agents(&[("claude", agents::CLAUDE_STAND_IN)]);
    let home = root.join("home");
    let workspace = server.workspace("w", &[]);
    let shell = server.new_sh(&workspace, "echo shell-here; exec sh");
    let claude = agents::idle_claude(&server, &workspace);
    let web = start_web(&server, &[]);
    let token = web_token(&server, &[]);
    let shots = screenshot_dir();
    let mut browser = Browser::start();
    browser.viewport(1280, 800, false);

    // The wrong token is refused, on the page.
    browser.open(&format!("{}/login", origin(&web)));
    browser.eval("document.getElementById('token').focus()");
    browser.type_text("not-the-token");
    browser.press("Enter", 13, 0);
    browser.wait_for(
        "the refusal",
        "document.body.innerText.includes('not the token')",
    );

    log_in(&mut browser, &web, &token);
    server.ctl_ok(&["send", &claude, "permission", "--enter"]);
    server.wait_pane(&claude, "blocked", |p| p["lifecycle"] == "blocked");
    let first = format!(
        "document.querySelector('.pane-card') && document.querySelector('.pane-card').dataset.pane === '{claude}' \
         && document.querySelectorAll('.pane-card .choice').length === 3"
    );
    browser.wait_for("the blocked agent first, with its choices", &first);
    let labels = browser
        .eval("[...document.querySelectorAll('.pane-card .choice')].map(b => b.textContent)");
    assert_eq!(labels[0], "1. Yes", "{labels}");
    assert_eq!(browser.eval("document.title"), "(1) signaltty");
    browser.screenshot(&shots.join("dashboard-desktop.png"));

    // A phone: everything fits across, nothing scrolls sideways.
    browser.viewport(390, 844, true);
    browser.open(&format!("{}/", origin(&web)));
    browser.wait_for(
        "the cards",
        "document.querySelectorAll('.pane-card').length === 2",
    );
    let fits = browser.eval("document.documentElement.scrollWidth <= window.innerWidth");
    assert_eq!(fits, true, "the dashboard scrolls sideways on a phone");
    browser.screenshot(&shots.join("dashboard-phone.png"));

    // The dialog's first button: the agent goes on, the choices go.
    browser.eval("document.querySelector('.pane-card .choice').click()");
    server.wait_pane(&claude, "the agent going on", |p| {
        p["lifecycle"] != "blocked"
    });
    browser.wait_for(
        "the choices gone",
        "document.querySelectorAll('.pane-card .choice').length === 0",
    );

    // A pane, live: typed into through xterm.js, its output comes back.
    browser.viewport(1280, 800, false);
    browser.open(&format!("{}/pane/{shell}", origin(&web)));
    browser.wait_for(
        "the pane's screen",
        &format!("{XTERM_TEXT}.includes('shell-here')"),
    );
    browser.eval("term.focus()");
    browser.type_text("echo browser-$((6*7))");
    browser.press("Enter", 13, 0);
    server.wait_output(&shell, "browser-42");
    browser.wait_for(
        "the output in the page",
        &format!("{XTERM_TEXT}.includes('browser-42')"),
    );
    browser.screenshot(&shots.join("pane-desktop.png"));
    // Watching did not resize the pane for the person at the terminal.
    let before = server.pane(&shell).expect("the shell pane");
    browser.viewport(390, 844, true);
    browser.open(&format!("{}/pane/{shell}", origin(&web)));
    browser.wait_for(
        "the pane on a phone",
        &format!("{XTERM_TEXT}.includes('browser-42')"),
    );
    browser.wait_for(
        "the phone's keys",
        "!document.getElementById('keys').hidden",
    );
    let prompt_shown = browser.eval("document.getElementById('prompt').offsetParent !== null");
    assert_eq!(prompt_shown, false, "a shell's page offers no prompt box");
    browser.screenshot(&shots.join("pane-phone.png"));
    let after = server.pane(&shell).expect("the shell pane");
    assert_eq!(
        (&before["rows"], &before["cols"]),
        (&after["rows"], &after["cols"])
    );

    // A prompt from the agent's page, as `agent prompt` sends it.
    browser.viewport(1280, 800, false);
    browser.open(&format!("{}/pane/{claude}", origin(&web)));
    browser.wait_for(
        "the prompt box",
        "!document.getElementById('prompt').hidden",
    );
    browser.eval("document.getElementById('prompt-text').focus()");
    browser.type_text("write the tests");
    browser.eval("document.getElementById('prompt').requestSubmit()");
    let outcome = browser.wait_for(
        "an outcome",
        "document.getElementById('outcome').textContent",
    );
    assert_eq!(outcome, "sent", "the prompt's outcome");
    // A bracketed paste (the stand-in asked for one), as `agent prompt`.
    wait_for("the prompt to reach the agent", DEADLINE, || {
        agents::prompts(&home, &claude)
            .contains(&"\x1b[200~write the tests\x1b[201~".to_string())
            .then_some(())
    });
}

#[test]
fn over_tls_it_listens_beyond_loopback_its_cookie_is_secure_and_plain_http_gets_nothing() {
    let server = TestServer::start_with(false, Vec::new());
    let workspace = server.workspace("w", &[]);
    server.new_sh(&workspace, "exec sh");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/web-tls");
    let (cert, key) = (fixtures.join("cert.pem"), fixtures.join("key.pem"));
    // Every address and no --insecure-http: TLS is what that needs.
    let web = start_web(
        &server,
        &[
            "--listen",
            "0.0.0.0:0",
            "--tls-cert",
            cert.to_str().expect("a UTF-8 path"),
            "--tls-key",
            key.to_str().expect("a UTF-8 path"),
        ],
    );
    assert_eq!(web.scheme, "https");

    // Plain HTTP on its port: the handshake fails, no page comes back.
    let mut plain = TcpStream::connect(web.addr).expect("connect");
    plain
        .set_read_timeout(Some(DEADLINE))
        .expect("a read timeout");
    plain
        .write_all(b"GET /login HTTP/1.1\r\nHost: x\r\n\r\n")
        .expect("send");
    let mut answer = Vec::new();
    let _ = plain.read_to_end(&mut answer);
    assert!(
        !answer.starts_with(b"HTTP/"),
        "{}",
        String::from_utf8_lossy(&answer)
    );

    // A browser logs in over HTTPS; its session cookie is Secure.
    let token = web_token(&server, &[]);
    let mut browser = Browser::start();
    log_in(&mut browser, &web, &token);
    browser.wait_for(
        "the pane's card",
        "document.querySelectorAll('.pane-card').length === 1",
    );
    let cookies = browser.call("Network.getCookies", json!({}));
    let session = cookies["cookies"]
        .as_array()
        .and_then(|all| all.first())
        .cloned()
        .unwrap_or_default();
    assert_eq!(session["secure"], true, "{cookies}");
    assert_eq!(session["httpOnly"], true, "{cookies}");
}
