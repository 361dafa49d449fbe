//! End to end: names, where the user is, and split ratios — each saved and
//! read back after a SIGKILL.

mod support;

use serde_json::{Value, json};
use support::TestServer;

fn workspace<'a>(ls: &'a Value, name: &str) -> &'a Value {
    ls["workspaces"]
        .as_array()
        .and_then(|w| w.iter().find(|w| w["name"] == name))
        .unwrap_or_else(|| panic!("no workspace {name} in {ls}"))
}

#[test]
fn names_survive_a_sigkill_and_a_pane_s_beats_its_program_s_title() {
    let mut server = TestServer::start();
    let ws = server.workspace("before", &[]);
    let pane = server.ctl_ok(&["new", &ws]);
    let tab = server.ls()["workspaces"][0]["tabs"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    server.ctl_ok(&["rename", &pane, "my agent"]);
    server.ctl_ok(&["rename", &tab, "work"]);
    server.ctl_ok(&["rename", "before", "after"]);
    // The program names itself; the user's name stays.
    server.ctl_ok(&[
        "send",
        &pane,
        "printf '\\033]2;%s\\007' program-title",
        "--enter",
    ]);
    server.ctl_ok(&["send", &pane, "echo titled-$((1+1))", "--enter"]);
    server.wait_output(&pane, "titled-2");
    assert_eq!(server.pane(&pane).unwrap()["title"], "my agent");
    server.wait_snapshot("the names on disk", |s| {
        let text = s.to_string();
        text.contains("my agent") && text.contains("\"work\"") && text.contains("\"after\"")
    });
    server.kill9();
    server.launch();

    let ls = server.ls();
    let ws = workspace(&ls, "after");
    assert_eq!(ws["tabs"][0]["title"], "work");
    assert_eq!(ws["tabs"][0]["panes"][0]["title"], "my agent");
    // An empty name gives the pane back its program's name.
    server.ctl_ok(&["respawn", &pane]);
    server.ctl_ok(&["rename", &pane, ""]);
    server.wait_pane(&pane, "the program's name back", |p| p["title"] == "sh");
}

#[test]
fn a_bad_rename_says_what_is_wrong_and_changes_nothing() {
    let server = TestServer::start();
    let ws = server.workspace("one", &[]);
    server.workspace("two", &[]);
    let pane = server.ctl_ok(&["new", &ws]);
    let tab = server.ls()["workspaces"][0]["tabs"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    for (args, needle) in [
        (vec!["rename", "one", "two"], "two"),
        (vec!["rename", &tab, ""], "needs a name"),
        (
            vec!["rename", "nothing-here", "x"],
            "no workspace, tab or pane",
        ),
        (vec!["rename", &pane, "a\u{7}b"], "control characters"),
    ] {
        let out = server.ctl(&args);
        assert!(!out.status.success(), "{args:?} was accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    let long = "x".repeat(300);
    let err = server
        .call("rename", json!({"target": pane, "name": long}))
        .unwrap_err();
    assert_eq!(err["code"], "BAD_PARAMS");
    assert!(err["message"].as_str().unwrap().contains("256"), "{err}");
    let ls = server.ls();
    assert!(workspace(&ls, "one")["tabs"][0]["title"] != "");
    assert_eq!(server.pane(&pane).unwrap()["title"], "sh");
}

#[test]
fn focus_makes_a_pane_current_at_every_level_and_is_saved() {
    let mut server = TestServer::start();
    let first = server.workspace("first", &[]);
    let second = server.workspace("second", &[]);
    let a = server.ctl_ok(&["new", &first]);
    let b = server.ctl_ok(&["new", &first]);
    let c = server.ctl_ok(&["new", &second]);
    server.ctl_ok(&["tab", "new", &second]);
    // The newest pane of `first` is active; focus the older one, in the
    // other workspace's opposite order.
    server
        .call("focus", json!({"target": c, "kind": "pane"}))
        .unwrap();
    server
        .call("focus", json!({"target": a, "kind": "pane"}))
        .unwrap();
    let check = |ls: &Value| {
        let (one, two) = (workspace(ls, "first"), workspace(ls, "second"));
        assert_eq!(one["tabs"][0]["active_pane"], a.as_str());
        assert_eq!(one["active_tab"], one["tabs"][0]["id"]);
        assert_eq!(
            two["active_tab"], two["tabs"][0]["id"],
            "c's tab, not the new one"
        );
        assert!(one["last_used_at"].as_u64() > two["last_used_at"].as_u64());
    };
    check(&server.ls());
    assert!(b != a);
    server.wait_snapshot("focus on disk", |s| {
        let stamp = |name: &str| {
            s["workspaces"]
                .as_array()
                .and_then(|w| w.iter().find(|w| w["name"] == name))
                .and_then(|w| w["last_used_at"].as_u64())
        };
        let active = s["tabs"]
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["active_pane_id"] == a.as_str()));
        active && stamp("first") > stamp("second")
    });
    server.kill9();
    server.launch();
    check(&server.ls());
    let err = server
        .call("focus", json!({"target": "zzzz", "kind": "tab"}))
        .unwrap_err();
    assert_eq!(err["code"], "NO_SUCH_TAB");
}

#[test]
fn a_split_ratio_is_set_clamped_and_saved() {
    let mut server = TestServer::start();
    let ws = server.workspace("ratio", &[]);
    let left = server.ctl_ok(&["new", &ws]);
    let right = server.ctl_ok(&["new", &ws]);
    server.ctl_ok(&["new", &ws, "--split", &right, "--direction", "down"]);
    let tab = server.ls()["workspaces"][0]["tabs"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let set = |path: Value, ratio: f64| {
        server.call(
            "tab.split_ratio",
            json!({"tab": tab, "path": path, "ratio": ratio}),
        )
    };
    assert_eq!(set(json!([]), 0.3).unwrap()["ratio"], json!(0.3_f32));
    assert_eq!(
        set(json!(["second"]), 7.0).unwrap()["ratio"],
        json!(0.95_f32)
    );
    let err = set(json!(["first"]), 0.5).unwrap_err();
    assert!(
        err["message"].as_str().unwrap().contains("no split"),
        "{err}"
    );
    let ratios = |ls: &Value| {
        let layout = &ls["workspaces"][0]["tabs"][0]["layout"];
        let ratio = |v: &Value| (v.as_f64().unwrap() * 1000.0).round() / 1000.0;
        (ratio(&layout["ratio"]), ratio(&layout["second"]["ratio"]))
    };
    assert_eq!(ratios(&server.ls()), (0.3, 0.95));
    // Both ratios: the second may reach disk in a later save.
    server.wait_snapshot("the ratios on disk", |s| {
        let layout = &s["tabs"][0]["layout"];
        let near = |v: &Value, want: f64| v.as_f64().is_some_and(|r| (r - want).abs() < 1e-6);
        near(&layout["ratio"], 0.3) && near(&layout["second"]["ratio"], 0.95)
    });
    server.kill9();
    server.launch();
    assert_eq!(ratios(&server.ls()), (0.3, 0.95));
    assert_eq!(
        server.ls()["workspaces"][0]["tabs"][0]["panes"][0]["id"],
        left.as_str()
    );
}
