//! End to end: running panes change places and tabs through `ctl pane
//! swap`, `ctl pane break` and `ctl pane move`; each keeps its process
//! (the same pid), and the new arrangement survives a SIGKILL.

mod support;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use support::{TestServer, wait_for};

fn workspace<'a>(ls: &'a Value, name: &str) -> &'a Value {
    ls["workspaces"]
        .as_array()
        .and_then(|w| w.iter().find(|w| w["name"] == name))
        .unwrap_or_else(|| panic!("no workspace {name} in {ls}"))
}

fn tabs(ls: &Value, name: &str) -> Vec<Value> {
    workspace(ls, name)["tabs"].as_array().unwrap().clone()
}

/// A layout drawn small: `a | (b / c)`, with pane ids given names.
fn shape(layout: &Value, names: &HashMap<String, &str>) -> String {
    match layout["type"].as_str() {
        Some("pane") => {
            let id = layout["pane_id"].as_str().unwrap();
            names.get(id).map_or(id.to_string(), |n| n.to_string())
        }
        _ => {
            let sign = if layout["direction"] == "right" {
                "|"
            } else {
                "/"
            };
            let side = |child: &Value| {
                let text = shape(child, names);
                if child["type"] == "split" {
                    format!("({text})")
                } else {
                    text
                }
            };
            format!(
                "{} {sign} {}",
                side(&layout["first"]),
                side(&layout["second"])
            )
        }
    }
}

/// Every tab of workspace `name` drawn, in order.
fn shapes(server: &TestServer, name: &str, names: &HashMap<String, &str>) -> Vec<String> {
    tabs(&server.ls(), name)
        .iter()
        .map(|t| shape(&t["layout"], names))
        .collect()
}

/// The pid of the shell in `pane`, as it says itself.
fn shell_pid(server: &TestServer, pane: &str) -> String {
    // A mark of this call alone, which the echoed command line does not
    // hold (the quotes split it): the wait can end neither on the command
    // nor on an earlier call's answer.
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let mark = format!("end{}", CALLS.fetch_add(1, Ordering::Relaxed));
    let command = format!("echo pid-$$-'{}'{}", &mark[..1], &mark[1..]);
    server.ctl_ok(&["send", pane, &command, "--enter"]);
    let text = server.wait_output(pane, &format!("-{mark}\n"));
    text.lines()
        .filter_map(|l| l.strip_prefix("pid-")?.strip_suffix(&format!("-{mark}")))
        .next_back()
        .unwrap_or_else(|| panic!("no pid in pane {pane}: {text}"))
        .to_string()
}

fn pids(server: &TestServer, panes: &[&String]) -> Vec<String> {
    panes.iter().map(|p| shell_pid(server, p)).collect()
}

#[test]
fn swap_break_and_move_keep_each_process_and_survive_a_sigkill() {
    let mut server = TestServer::start();
    let ws = server.workspace("arrange", &[]);
    let a = server.ctl_ok(&["new", &ws]);
    let b = server.ctl_ok(&["new", &ws]);
    let c = server.ctl_ok(&["new", &ws, "--split", &b, "--direction", "down"]);
    let names: HashMap<String, &str> =
        [(a.clone(), "a"), (b.clone(), "b"), (c.clone(), "c")].into();
    let first_tab = tabs(&server.ls(), "arrange")[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    server
        .call(
            "tab.split_ratio",
            json!({"tab": first_tab, "path": [], "ratio": 0.3}),
        )
        .unwrap();
    let before = pids(&server, &[&a, &b, &c]);
    assert_eq!(shapes(&server, "arrange", &names), ["a | (b / c)"]);

    // Swap: the leaves trade places, the splits and ratio stay.
    server.ctl_ok(&["pane", "swap", &a, &c]);
    assert_eq!(shapes(&server, "arrange", &names), ["c | (b / a)"]);
    let tab = &tabs(&server.ls(), "arrange")[0];
    assert!((tab["layout"]["ratio"].as_f64().unwrap() - 0.3).abs() < 1e-6);
    assert_eq!(tab["active_pane"], c.as_str(), "focus follows the pane");

    // Break: b alone in a new tab, which is where the user is now.
    let second_tab = server.ctl_ok(&["pane", "break", &b, "--title", "broken"]);
    assert_eq!(shapes(&server, "arrange", &names), ["c | a", "b"]);
    let ls = server.ls();
    assert_eq!(workspace(&ls, "arrange")["active_tab"], second_tab.as_str());
    assert_eq!(tabs(&ls, "arrange")[1]["title"], "broken");

    // Move: a below b; then c beside a, which empties and closes the
    // first tab.
    let moved = server.ctl_json(&[
        "pane",
        "move",
        &a,
        "--tab",
        &second_tab,
        "--split",
        &b,
        "--direction",
        "down",
    ]);
    assert_eq!(moved["closed_tab"], Value::Null);
    let moved = server.ctl_json(&["pane", "move", &c, "--tab", &second_tab, "--split", &a]);
    assert_eq!(moved["closed_tab"], first_tab.as_str(), "{moved}");
    assert_eq!(shapes(&server, "arrange", &names), ["b / (a | c)"]);
    let ls = server.ls();
    assert_eq!(tabs(&ls, "arrange")[0]["active_pane"], c.as_str());
    for pane in [&a, &b, &c] {
        assert_eq!(server.pane(pane).unwrap()["state"], "LIVE");
    }
    assert_eq!(pids(&server, &[&a, &b, &c]), before, "nothing restarted");

    // Typing still reaches each pane, and each pane's own tab is right.
    server.ctl_ok(&["send", &c, "echo still-$((6*7))", "--enter"]);
    server.wait_output(&c, "still-42");
    server.wait_snapshot("the new arrangement on disk", |s| {
        let tabs = s["tabs"].as_array().map_or(0, Vec::len);
        let placed = s["panes"].as_array().is_some_and(|panes| {
            panes.len() == 3 && panes.iter().all(|p| p["tab_id"] == second_tab.as_str())
        });
        tabs == 1 && placed
    });
    server.kill9();
    server.launch();
    assert_eq!(shapes(&server, "arrange", &names), ["b / (a | c)"]);
    let ls = server.ls();
    assert_eq!(tabs(&ls, "arrange")[0]["title"], "broken");
}

#[test]
fn a_swap_between_two_tabs_trades_their_panes_and_their_supervisors() {
    let server = TestServer::start_with(true, Vec::new());
    let ws = server.workspace("two", &[]);
    let x = server.ctl_ok(&["new", &ws]);
    let tab2 = server.ctl_ok(&["tab", "new", &ws]);
    let y = tabs(&server.ls(), "two")[1]["panes"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let before = pids(&server, &[&x, &y]);
    let swapped = server.ctl_json(&["pane", "swap", &x, &y]);
    assert_eq!(swapped["tab"], tab2.as_str(), "{swapped}");
    let ls = server.ls();
    let ids = |tab: &Value| tab["panes"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(
        (ids(&tabs(&ls, "two")[0]), ids(&tabs(&ls, "two")[1])),
        (y.clone(), x.clone())
    );
    assert_eq!(pids(&server, &[&x, &y]), before);
    // x's new tab supervises it: its actor failing leaves a tombstone in
    // x's new place, not a hole.
    server.ctl_ok(&["debug", "panic", &x]);
    server.wait_pane(&x, "x a tombstone", |p| p["state"] == "EXITED");
    let ls = server.ls();
    assert_eq!(ids(&tabs(&ls, "two")[1]), x);
    assert_eq!(server.pane(&y).unwrap()["state"], "LIVE");
}

#[test]
fn rearranging_refuses_what_it_cannot_do_and_says_why() {
    let server = TestServer::start();
    let ws = server.workspace("one", &[]);
    let other = server.workspace("other", &[]);
    let a = server.ctl_ok(&["new", &ws]);
    let b = server.ctl_ok(&["new", &ws]);
    let far = server.ctl_ok(&["new", &other]);
    let far_tab = tabs(&server.ls(), "other")[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let own_tab = tabs(&server.ls(), "one")[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    for (args, needle) in [
        (vec!["pane", "swap", &a, &a], "itself"),
        (vec!["pane", "swap", &a, &far], "one workspace"),
        (vec!["pane", "break", &far], "alone in its tab"),
        (vec!["pane", "move", &a, "--tab", &far_tab], "one workspace"),
        (vec!["pane", "move", &a, "--tab", &own_tab], "already"),
        (
            vec!["pane", "move", &a, "--tab", &own_tab, "--split", &a],
            "beside itself",
        ),
        (
            vec!["pane", "move", &far, "--tab", &far_tab, "--split", &a],
            "not in tab",
        ),
        (vec!["pane", "swap", &a, "nothing-here"], "nothing-here"),
        (
            vec!["pane", "move", &a, "--tab", "nothing-here"],
            "nothing-here",
        ),
    ] {
        let out = server.ctl(&args);
        assert!(!out.status.success(), "{args:?} was accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    }
    let long = "x".repeat(300);
    let err = server
        .call("pane.break", json!({"pane": a, "title": long}))
        .unwrap_err();
    assert_eq!(err["code"], "BAD_PARAMS");
    let err = server
        .call(
            "pane.move",
            json!({"pane": a, "tab": own_tab, "split": "y".repeat(5000)}),
        )
        .unwrap_err();
    assert!(err["message"].as_str().unwrap().contains("split"), "{err}");
    // Nothing moved.
    let ls = server.ls();
    let panes: Vec<String> = tabs(&ls, "one")[0]["panes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(panes, [a.clone(), b.clone()]);
    wait_for("the panes still live", Duration::from_secs(5), || {
        (server.pane(&a)?["state"] == "LIVE").then_some(())
    });
}
