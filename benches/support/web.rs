//! The web app's cost (`signaltty web`): a keystroke's round trip from the
//! browser to the pane and back over the pane's WebSocket, a pane's flood
//! with a web viewer against the same flood with no client, and the web
//! process's RSS with 50 panes on the dashboard. The "browser" is a
//! WebSocket client that speaks what pane.js and dashboard.js speak; a
//! real browser's rendering is its own cost, not the web app's.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use signaltty_protocol::frame;
use tungstenite::client::IntoClientRequest;
use tungstenite::http::HeaderValue;
use tungstenite::{Message, WebSocket};

use super::throughput::flood_watched;
use super::{Report, Scale, Server, procfs, spawn_idle_panes};

type Socket = WebSocket<TcpStream>;

/// Panes on the dashboard when its RSS is read.
const DASHBOARD_PANES: usize = 50;
/// The web process's RSS is read once it holds still to 1%.
const SETTLE: procfs::Settle = procfs::Settle {
    first: Duration::from_secs(1),
    every: Duration::from_millis(500),
    readings: 10,
    percent: 1,
};

pub(super) fn web(scale: &Scale, log: &Path, dir: &Path, report: &mut Report) {
    let server = Server::start(dir, "web");
    let app = WebApp::start(&server);
    report.latency(
        "web keystroke round trip",
        keystrokes(&server, &app, scale.keystrokes),
    );
    let mut none = Vec::new();
    let mut watched = Vec::new();
    // What the viewers were sent: proof that they watched.
    let received = Arc::new(AtomicUsize::new(0));
    let bytes = std::fs::metadata(log).map(|m| m.len()).unwrap_or(0) as f64;
    for round in 0..scale.throughput_rounds {
        let alone = || {
            let tag = format!("web-none-{round}");
            bytes / flood_watched(&server, log, &tag, |_| None::<((), u32)>).seconds / 1e6
        };
        let viewed = || {
            let tag = format!("web-{round}");
            let watch = |pane: &str| {
                let watcher = Watcher::start(&app, pane, Arc::clone(&received));
                Some((watcher, app.child.id()))
            };
            bytes / flood_watched(&server, log, &tag, watch).seconds / 1e6
        };
        // Which goes first alternates: the machine's swing between two
        // floods in a row falls on both sides alike.
        let (a, w) = if round % 2 == 0 {
            let a = alone();
            (a, viewed())
        } else {
            let w = viewed();
            (alone(), w)
        };
        none.push(a);
        watched.push(w);
    }
    let received = received.load(Ordering::Relaxed) / none.len().max(1);
    report.web_flood(&none, &watched, received);
    spawn_idle_panes(&server, DASHBOARD_PANES, &["sh"]);
    let mut dashboard = app.socket("/ws/events");
    wait_listing(&mut dashboard, DASHBOARD_PANES);
    let rss = procfs::settled_rss(app.child.id(), &SETTLE);
    report.web_rss(DASHBOARD_PANES, rss);
}

/// `count` keys typed into `cat` through the pane's socket, each timed
/// until its echo comes back on the same socket, ms.
fn keystrokes(server: &Server, app: &WebApp, count: usize) -> Vec<f64> {
    let pane = server.new_pane(&["cat"]);
    let mut socket = app.socket(&format!("/ws/pane/{pane}"));
    std::thread::sleep(Duration::from_millis(300));
    let mut samples = Vec::with_capacity(count);
    for i in 0..count {
        let key = b'a' + (i % 26) as u8;
        drain(&mut socket);
        let start = Instant::now();
        socket
            .send(Message::Binary(vec![frame::INPUT, key].into()))
            .expect("send a key");
        let echoed = read_until(
            &mut socket,
            Duration::from_secs(5),
            |message| matches!(message, Message::Binary(b) if b.first() == Some(&frame::OUTPUT) && b[1..].contains(&key)),
        );
        if echoed {
            samples.push(start.elapsed().as_secs_f64() * 1000.0);
        }
    }
    drop(socket);
    server.call("pane.close", json!({"pane": pane}));
    samples
}

/// Reads until `found`; false at the deadline or the socket's end.
fn read_until(socket: &mut Socket, within: Duration, found: impl Fn(&Message) -> bool) -> bool {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        match socket.read() {
            Ok(message) if found(&message) => return true,
            Ok(_) => {}
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return false,
        }
    }
    false
}

fn drain(socket: &mut Socket) {
    while socket.read().is_ok() {}
}

/// Waits for a dashboard listing with at least `panes` panes.
fn wait_listing(socket: &mut Socket, panes: usize) {
    let listed = read_until(socket, Duration::from_secs(60), |message| {
        let Message::Text(text) = message else {
            return false;
        };
        serde_json::from_str::<Value>(text.as_str())
            .ok()
            .and_then(|listing| listing["panes"].as_array().map(Vec::len))
            .is_some_and(|n| n >= panes)
    });
    assert!(listed, "the dashboard never listed {panes} panes");
}

/// A pane's socket read to the end on a thread of its own, as a browser
/// tab watching it would, until dropped.
struct Watcher {
    stop: Arc<AtomicBool>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Watcher {
    /// Adds the bytes of every message it reads to `received`.
    fn start(app: &WebApp, pane: &str, received: Arc<AtomicUsize>) -> Watcher {
        let mut socket = app.socket(&format!("/ws/pane/{pane}"));
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        let reader = std::thread::spawn(move || {
            while !stopping.load(Ordering::Relaxed) {
                match socket.read() {
                    Ok(message) => {
                        received.fetch_add(message.len(), Ordering::Relaxed);
                    }
                    Err(tungstenite::Error::Io(e))
                        if matches!(
                            e.kind(),
                            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                        ) => {}
                    Err(_) => return,
                }
            }
        });
        std::thread::sleep(Duration::from_millis(300));
        Watcher {
            stop,
            reader: Some(reader),
        }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}

/// `signaltty web` for `server`, logged in.
struct WebApp {
    child: Child,
    addr: SocketAddr,
    cookie: String,
}

impl WebApp {
    fn start(server: &Server) -> WebApp {
        let command = |args: &[&str]| {
            let mut command = Command::new(&server.bin);
            command
                .env("SIGNALTTY_SOCKET", &server.socket)
                .env("SIGNALTTY_STATE_DIR", &server.state)
                .args(args);
            command
        };
        let mut child = command(&["web", "--listen", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("signaltty web");
        let mut first = String::new();
        let stdout = child.stdout.take().expect("its stdout");
        BufReader::new(stdout)
            .read_line(&mut first)
            .expect("where it listens");
        let addr = first
            .trim()
            .strip_prefix("signaltty web: listening on http://")
            .and_then(|rest| rest.split('/').next())
            .and_then(|addr| addr.parse().ok())
            .unwrap_or_else(|| panic!("no address in {first:?}"));
        let token = command(&["web", "token"]).output().expect("web token");
        let token = String::from_utf8_lossy(&token.stdout).trim().to_string();
        let cookie = log_in(addr, &token);
        WebApp {
            child,
            addr,
            cookie,
        }
    }

    fn socket(&self, path: &str) -> Socket {
        let mut request = format!("ws://{}{path}", self.addr)
            .into_client_request()
            .expect("a request");
        let origin = format!("http://{}", self.addr);
        let headers = request.headers_mut();
        headers.insert("Origin", HeaderValue::from_str(&origin).expect("origin"));
        headers.insert(
            "Cookie",
            HeaderValue::from_str(&self.cookie).expect("cookie"),
        );
        let stream = TcpStream::connect(self.addr).expect("connect");
        stream.set_nodelay(true).expect("nodelay");
        stream
            .set_read_timeout(Some(Duration::from_millis(20)))
            .expect("a read timeout");
        let (socket, _) = tungstenite::client(request, stream).expect("the socket");
        socket
    }
}

impl Drop for WebApp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Posts the login form; the session cookie (`name=value`).
fn log_in(addr: SocketAddr, token: &str) -> String {
    let body = format!("token={token}");
    let request = format!(
        "POST /login HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.write_all(request.as_bytes()).expect("log in");
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("set-cookie").then_some(value)
        })
        .and_then(|cookie| cookie.split(';').next())
        .map(str::trim)
        .unwrap_or_else(|| panic!("no session cookie in {answer:?}"))
        .to_string()
}
