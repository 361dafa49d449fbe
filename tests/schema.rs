//! End to end: `signaltty schema` describes what the server really sends —
//! every method's reply, the event lines and the errors of a running
//! server are validated against it, and a method the test did not call
//! fails it.

mod support;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::process::Command;

use serde_json::{Value, json};
use support::agents::{CLAUDE_STAND_IN, idle_claude, server_with_agents};
use support::{BIN, TestServer, wait_for};

struct Checked {
    schema: Value,
    /// Methods whose reply was validated.
    seen: BTreeSet<String>,
}

impl Checked {
    fn new() -> Checked {
        let out = Command::new(BIN).arg("schema").output().unwrap();
        assert!(out.status.success());
        let schema: Value = serde_json::from_slice(&out.stdout).unwrap();
        jsonschema::meta::validate(&schema).expect("a valid JSON Schema");
        Checked {
            schema,
            seen: BTreeSet::new(),
        }
    }

    /// Validates `value` against the definition at `pointer` (`#/…`).
    fn check(&self, pointer: &str, value: &Value) {
        let mut schema = self.schema.clone();
        schema["$ref"] = json!(pointer);
        if let Err(e) = jsonschema::validate(&schema, value) {
            panic!("{pointer}: {e}\n{value:#}");
        }
    }

    /// One request on a fresh connection; its `result` validated against
    /// the method's reply. Returns the result.
    fn call(&mut self, server: &TestServer, method: &str, params: Value) -> Value {
        let (response, _) = self.open(server, method, params);
        assert!(response["error"].is_null(), "{method}: {response}");
        response["result"].clone()
    }

    /// A request expected to fail: its error validated.
    fn refused(&mut self, server: &TestServer, method: &str, params: Value) -> Value {
        let (response, _) = self.send(server, method, params);
        self.check("#/error", &response["error"]);
        response["error"].clone()
    }

    /// Sends the request and reads its response line; the rest of the
    /// connection is the caller's.
    fn open(
        &mut self,
        server: &TestServer,
        method: &str,
        params: Value,
    ) -> (Value, BufReader<UnixStream>) {
        self.params(method, &params);
        let (response, reader) = self.send(server, method, params);
        if response["error"].is_null() {
            self.check(&format!("#/$defs/{method}.reply"), &response["result"]);
            self.seen.insert(method.to_string());
        }
        (response, reader)
    }

    fn send(
        &mut self,
        server: &TestServer,
        method: &str,
        params: Value,
    ) -> (Value, BufReader<UnixStream>) {
        let mut stream = UnixStream::connect(&server.socket).unwrap();
        let request = json!({"v": "signaltty/2", "id": 7, "method": method, "params": params});
        let mut line = serde_json::to_vec(&request).unwrap();
        line.push(b'\n');
        stream.write_all(&line).unwrap();
        let mut reader = BufReader::new(stream);
        let mut reply = String::new();
        reader.read_line(&mut reply).unwrap();
        let response: Value = serde_json::from_str(&reply).unwrap();
        (response, reader)
    }

    /// What the test sends is a valid request too.
    fn params(&self, method: &str, params: &Value) {
        self.check(&format!("#/params/{method}"), params);
    }

    fn every_method_seen(&self) {
        let all: BTreeSet<String> = self.schema["methods"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        let missing: Vec<&String> = all.difference(&self.seen).collect();
        assert!(missing.is_empty(), "replies never validated: {missing:?}");
    }
}

#[test]
fn every_reply_event_and_error_matches_the_schema() {
    let (mut server, root) = server_with_agents(&[("claude", CLAUDE_STAND_IN)]);
    let mut api = Checked::new();
    let ws = api.call(
        &server,
        "workspace.new",
        json!({"name": "schema", "cwd": root}),
    )["id"]
        .as_str()
        .unwrap()
        .to_string();
    api.call(
        &server,
        "workspace.set",
        json!({"workspace": ws, "auto_resume": false}),
    );
    let (_, mut changes) = api.open(&server, "subscribe", json!({}));
    let (_, mut events) = api.open(&server, "events", json!({}));
    let tab = api.call(
        &server,
        "tab.new",
        json!({"workspace": ws, "title": "t", "argv": ["cat"]}),
    );
    let shell = tab["pane_id"].as_str().unwrap().to_string();
    // The streams' lines are validated too.
    let mut line = String::new();
    changes.read_line(&mut line).unwrap();
    api.check("#/changed", &serde_json::from_str(&line).unwrap());
    line.clear();
    events.read_line(&mut line).unwrap();
    api.check("#/event", &serde_json::from_str(&line).unwrap());

    let pane = api.call(
        &server,
        "pane.new",
        json!({"workspace": ws, "argv": ["cat"]}),
    )["id"]
        .as_str()
        .unwrap()
        .to_string();
    for (method, params) in [
        ("status", json!({})),
        ("ls", json!({})),
        (
            "pane.send",
            json!({"pane": pane, "text": "hello", "enter": true}),
        ),
        (
            "pane.send_keys",
            json!({"pane": pane, "keys": ["esc", "shift+tab"]}),
        ),
        ("pane.read", json!({"pane": pane, "since": 0})),
        (
            "pane.resize",
            json!({"pane": pane, "rows": 30, "cols": 100}),
        ),
        (
            "pane.report_session",
            json!({"pane": pane, "session_id": "abc-1"}),
        ),
        (
            "notify",
            json!({"pane": pane, "title": "look", "severity": "warning"}),
        ),
        ("notifications", json!({"unread": true})),
        ("next", json!({})),
        ("pane.seen", json!({"pane": pane})),
        ("rename", json!({"target": pane, "name": "mine"})),
        ("focus", json!({"target": pane})),
        (
            "tab.split_ratio",
            json!({"tab": tab["id"], "path": [], "ratio": 0.3}),
        ),
        ("pane.swap", json!({"pane": pane, "with": shell})),
        ("pane.break", json!({"pane": pane, "title": "out"})),
        (
            "pane.move",
            json!({"pane": pane, "tab": tab["id"], "split": shell, "direction": "down"}),
        ),
        ("pane.explain", json!({"pane": pane})),
        (
            "pane.wait",
            json!({"pane": pane, "text": "hello", "timeout_ms": 20_000}),
        ),
        ("pane.kill", json!({"pane": pane, "signal": "TERM"})),
        (
            "pane.wait",
            json!({"pane": pane, "exit": true, "timeout_ms": 20_000}),
        ),
        ("pane.respawn", json!({"pane": pane})),
        ("debug.panic", json!({"target": pane})),
    ] {
        api.call(&server, method, params);
    }
    // The pane the fault took comes back a tombstone.
    wait_for("the tombstone", std::time::Duration::from_secs(20), || {
        server.pane(&pane).filter(|p| p["state"] == "EXITED")
    });
    api.call(&server, "pane.respawn", json!({"pane": pane}));
    let (attached, _) = api.open(
        &server,
        "pane.attach",
        json!({"pane": pane, "keep_attention": true}),
    );
    assert!(attached["result"]["offset"].is_u64(), "{attached}");

    // An agent: started, prompted, waited for, hooked, resumed.
    let agent = api.call(
        &server,
        "agent.start",
        json!({"kind": "claude", "workspace": ws}),
    );
    let agent = agent["id"].as_str().unwrap().to_string();
    api.call(
        &server,
        "agent.prompt",
        json!({"pane": agent, "text": "hi"}),
    );
    api.call(
        &server,
        "agent.wait",
        json!({"pane": agent, "timeout_ms": 30_000}),
    );
    api.call(
        &server,
        "pane.hook",
        json!({"pane": agent, "agent": "claude", "event": "Stop"}),
    );
    let explained = api.call(
        &server,
        "pane.explain",
        json!({"screen": "❯ ", "agent": "claude"}),
    );
    assert!(explained["state"].is_string());
    // Errors, of several kinds, have one shape.
    for (method, params) in [
        ("pane.read", json!({"pane": "nope"})),
        (
            "pane.send_keys",
            json!({"pane": shell, "keys": ["shfit+tab"]}),
        ),
        ("workspace.new", json!({"name": 5})),
        ("no.such.method", json!({})),
    ] {
        let error = api.refused(&server, method, params);
        assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()));
    }

    api.call(&server, "pane.close", json!({"pane": shell}));
    api.call(&server, "tab.close", json!({"tab": tab["id"]}));
    let second = api.call(
        &server,
        "workspace.new",
        json!({"name": "other", "cwd": root}),
    )["id"]
        .clone();
    api.call(&server, "workspace.close", json!({"workspace": second}));
    // After a restart the agent is resumable, and is resumed.
    let idle = idle_claude(&server, &ws);
    server.wait_pane(&idle, "its session id", |p| {
        p["agent"]["session_id"].is_string()
    });
    // Saved with its session id before the SIGKILL, or there is nothing
    // to resume.
    server.wait_snapshot("the agent's session on disk", |s| {
        s["panes"].as_array().is_some_and(|panes| {
            panes
                .iter()
                .any(|p| p["id"] == idle.as_str() && p["agent"]["agent_session_id"].is_string())
        })
    });
    server.kill9();
    server.launch();
    api.call(&server, "pane.resume", json!({"pane": idle}));
    // Put to sleep, listed HIBERNATED, and woken.
    server.wait_pane(&idle, "idle again", |p| p["lifecycle"] == "idle");
    api.call(&server, "pane.pin", json!({"pane": idle, "pinned": false}));
    api.call(&server, "pane.hibernate", json!({"pane": idle}));
    api.call(&server, "ls", json!({}));
    api.call(&server, "pane.wake", json!({"pane": idle}));
    // The new server answers on the connection that asked.
    let binary = server.dir.path().join("new-signaltty");
    std::fs::copy(env!("CARGO_BIN_EXE_signaltty"), &binary).expect("copy the binary");
    let upgraded = api.call(&server, "upgrade", json!({ "binary": binary }));
    assert_eq!(upgraded["upgrades"], 1, "{upgraded}");
    api.call(&server, "shutdown", json!({}));
    api.every_method_seen();
}
