//! A real browser for the tests: Debian's headless Chromium, driven over
//! the DevTools protocol (JSON over a WebSocket, with tungstenite).
//!
//! Only what the web tests need: open a page, run JavaScript in it and
//! read the value, type, set the viewport, take a screenshot. A driver
//! crate (chromiumoxide) would bring the whole generated protocol, minutes
//! of build on two cores, for these six calls.

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{Value, json};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

/// Where `.ci/run` installs it (Debian's `chromium` package).
const CHROMIUM: &str = "/usr/bin/chromium";
const DEADLINE: Duration = Duration::from_secs(30);

/// A headless Chromium with one page, ended when dropped.
pub struct Browser {
    child: Child,
    page: WebSocket<MaybeTlsStream<TcpStream>>,
    next_id: u64,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Browser {
    /// Starts Chromium with an empty profile and attaches to its page.
    pub fn start() -> Browser {
        assert!(
            Path::new(CHROMIUM).exists(),
            "the web tests need Chromium at {CHROMIUM}: apt-get install chromium (.ci/run does)"
        );
        let profile = tempfile::tempdir().expect("a profile dir");
        // The flags keep it off the network (this machine's is closed, and
        // every refused connection costs time) and out of the sandbox
        // (CI runs as root, where Chromium's sandbox cannot start).
        let mut child = Command::new(CHROMIUM)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--remote-debugging-port=0",
                // The TLS test's certificate is self-signed.
                "--ignore-certificate-errors",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start chromium");
        let port = devtools_port(&mut child);
        let page = page_socket(port);
        let (page, _) = tungstenite::connect(page.as_str()).expect("attach to the page");
        // A page that never answers fails the test instead of hanging it.
        if let MaybeTlsStream::Plain(stream) = page.get_ref() {
            stream
                .set_read_timeout(Some(DEADLINE))
                .expect("a read timeout on the DevTools socket");
        }
        let mut browser = Browser {
            child,
            page,
            next_id: 0,
            _profile: profile,
        };
        browser.call("Page.enable", json!({}));
        browser.call("Runtime.enable", json!({}));
        browser
    }

    /// Calls a DevTools method; its result (events in between are
    /// dropped).
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        match self.try_call(method, &params) {
            Ok(result) => result,
            Err(error) => panic!("{method} failed: {error}"),
        }
    }

    /// Calls a DevTools method; its result, or the error DevTools gave.
    fn try_call(&mut self, method: &str, params: &Value) -> Result<Value, Value> {
        self.next_id += 1;
        let id = self.next_id;
        let request = json!({"id": id, "method": method, "params": params});
        self.page
            .send(Message::Text(request.to_string().into()))
            .expect("send to chromium");
        loop {
            let message = self.page.read().expect("read from chromium");
            let Message::Text(text) = message else {
                continue;
            };
            let said: Value = serde_json::from_str(text.as_str()).expect("devtools json");
            if said["id"] != id {
                continue;
            }
            if let Some(error) = said.get("error") {
                return Err(error.clone());
            }
            return Ok(said["result"].clone());
        }
    }

    /// Goes to `url` and waits for the page to have loaded.
    pub fn open(&mut self, url: &str) {
        self.call("Page.navigate", json!({"url": url}));
        self.wait_for(
            &format!("{url} to load"),
            "document.readyState === 'complete'",
        );
    }

    /// The value of `expression` (awaited if it is a promise).
    pub fn eval(&mut self, expression: &str) -> Value {
        match self.try_eval(expression) {
            Ok(value) => value,
            Err(error) => panic!("Runtime.evaluate failed: {error}"),
        }
    }

    /// The value of `expression`, or DevTools' error (a page navigating
    /// away while it ran, say).
    fn try_eval(&mut self, expression: &str) -> Result<Value, Value> {
        let params = json!({"expression": expression, "returnByValue": true, "awaitPromise": true});
        let result = self.try_call("Runtime.evaluate", &params)?;
        if let Some(thrown) = result.get("exceptionDetails") {
            panic!("{expression} threw: {thrown}");
        }
        Ok(result["result"]["value"].clone())
    }

    /// Waits until `expression` is truthy; its value.
    pub fn wait_for(&mut self, what: &str, expression: &str) -> Value {
        let deadline = Instant::now() + DEADLINE;
        loop {
            // A form that posts navigates the page: an evaluation caught
            // in between is refused and simply tried again.
            let value = self
                .try_eval(&format!(
                    "(() => {{ try {{ return {expression}; }} catch (e) {{ return null; }} }})()"
                ))
                .unwrap_or(Value::Null);
            let truthy = match &value {
                Value::Null => false,
                Value::Bool(b) => *b,
                Value::String(s) => !s.is_empty(),
                Value::Number(n) => n.as_f64() != Some(0.0),
                _ => true,
            };
            if truthy {
                return value;
            }
            if Instant::now() >= deadline {
                let page =
                    self.eval("location.href + ': ' + document.body.innerText.slice(0, 600)");
                panic!("timed out waiting for {what} ({expression}); the page: {page}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Types `text` into whatever has the focus, as a keyboard would.
    pub fn type_text(&mut self, text: &str) {
        self.call("Input.insertText", json!({"text": text}));
    }

    /// Presses a key (`Enter`, `Escape`) with `modifiers` (1 Alt, 2 Ctrl,
    /// 4 Meta, 8 Shift).
    pub fn press(&mut self, key: &str, code: u32, modifiers: u32) {
        let text = if key == "Enter" { "\r" } else { "" };
        for kind in ["keyDown", "keyUp"] {
            self.call(
                "Input.dispatchKeyEvent",
                json!({
                    "type": kind, "key": key, "code": key, "modifiers": modifiers,
                    "windowsVirtualKeyCode": code, "text": if kind == "keyDown" { text } else { "" },
                }),
            );
        }
    }

    /// The viewport of a phone (touch, `mobile`) or a desktop.
    pub fn viewport(&mut self, width: u32, height: u32, mobile: bool) {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}),
        );
        self.call(
            "Emulation.setTouchEmulationEnabled",
            json!({"enabled": mobile}),
        );
    }

    /// A PNG of what the page shows now, written to `path`.
    pub fn screenshot(&mut self, path: &Path) {
        let shot = self.call("Page.captureScreenshot", json!({"format": "png"}));
        let data = shot["data"].as_str().expect("screenshot data");
        let png = base64::engine::general_purpose::STANDARD
            .decode(data)
            .expect("base64");
        std::fs::write(path, png).expect("write the screenshot");
    }
}

/// The port Chromium says its DevTools listen on.
fn devtools_port(child: &mut Child) -> u16 {
    let stderr = child.stderr.take().expect("chromium's stderr");
    let (found, port) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(rest) = line.strip_prefix("DevTools listening on ws://127.0.0.1:") {
                let number = rest.split('/').next().and_then(|p| p.parse::<u16>().ok());
                let _ = found.send(number);
            }
        }
    });
    port.recv_timeout(DEADLINE)
        .ok()
        .flatten()
        .expect("chromium says where its DevTools listen")
}

/// The WebSocket of Chromium's first page.
fn page_socket(port: u16) -> String {
    let deadline = Instant::now() + DEADLINE;
    loop {
        if let Some(url) = list_pages(port) {
            return url;
        }
        assert!(Instant::now() < deadline, "chromium shows no page");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn list_pages(port: u16) -> Option<String> {
    let body = http_get(port, "/json/list")?;
    let targets: Value = serde_json::from_slice(&body).ok()?;
    targets
        .as_array()?
        .iter()
        .find(|t| t["type"] == "page")
        .and_then(|t| t["webSocketDebuggerUrl"].as_str())
        .map(str::to_string)
}

/// The body of a GET to Chromium's DevTools HTTP server, which keeps the
/// connection open whatever the request asks: read to `Content-Length`.
fn http_get(port: u16, path: &str) -> Option<Vec<u8>> {
    use std::io::{Read, Write};
    let stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    (&stream).write_all(request.as_bytes()).ok()?;
    let mut reader = BufReader::new(stream);
    let mut length = None;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    Some(body)
}
