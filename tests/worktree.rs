//! End to end: a git worktree per pane. Made with `git worktree add` on a
//! new branch, listed, saved, found again after a SIGKILL and a restart,
//! and removed only when asked and clean (or forced). Each test has a real
//! repository of its own in its temp dir; git never touches the network.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use support::git::{git, repository};
use support::{TestServer, wait_for};


/// A server whose git, too, reads no user or system config.
fn server() -> TestServer {
    let mut server = TestServer::prepare(true, Vec::new());
    server.extra_env_push("GIT_CONFIG_GLOBAL", "/dev/null");
    server.extra_env_push("GIT_CONFIG_NOSYSTEM", "1");
    server.launch();
    server
}

/// A repository `project` with one commit, in the test's dir.
fn repo(server: &TestServer) -> PathBuf {
    repository(server.dir.path())
}

/// Where the default root puts worktree `name` of `repo`.
fn default_path(repo: &Path, name: &str) -> PathBuf {
    repo.parent().unwrap().join("project.worktrees").join(name)
}

fn workspace_in(server: &TestServer, name: &str, cwd: &Path) -> String {
    server.ctl_ok(&[
        "workspace",
        "new",
        name,
        "--cwd",
        &cwd.display().to_string(),
    ])
}

/// A pane in a new worktree `name`, printing where it runs.
fn worktree_pane(server: &TestServer, ws: &str, name: &str) -> String {
    server.ctl_ok(&[
        "new",
        ws,
        "--worktree",
        name,
        "--",
        "sh",
        "-c",
        "echo \"at=$(pwd) on=$(git branch --show-current)\"; exec sleep 1000",
    ])
}

/// A server, its repository, a workspace there and one pane running in a
/// new worktree `name`, up.
struct OnePane {
    server: TestServer,
    repo: PathBuf,
    ws: String,
    pane: String,
    /// The worktree's directory.
    path: PathBuf,
}

fn one_pane(name: &str) -> OnePane {
    let server = server();
    let repo = repo(&server);
    let ws = workspace_in(&server, "wt", &repo);
    let pane = worktree_pane(&server, &ws, name);
    let path = default_path(&repo, name);
    server.wait_output(&pane, &format!("at={} on={name}", path.display()));
    OnePane {
        server,
        repo,
        ws,
        pane,
        path,
    }
}

/// `ctl ARGS`, which must fail; its one line of stderr.
fn ctl_err(server: &TestServer, args: &[&str]) -> String {
    let out = server.ctl(args);
    assert!(!out.status.success(), "ctl {args:?} should have failed");
    let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    err
}

#[test]
fn a_worktree_is_made_on_a_new_branch_and_its_pane_runs_there() {
    let OnePane {
        server,
        repo,
        ws,
        pane,
        path,
    } = one_pane("fix-1");
    let listed = git(&repo, &["worktree", "list", "--porcelain"]);
    assert!(
        listed.contains(&format!("worktree {}\n", path.display()))
            && listed.contains("branch refs/heads/fix-1"),
        "{listed}"
    );
    let shown = server.pane(&pane).unwrap();
    assert_eq!(shown["cwd"], path.display().to_string());
    assert_eq!(shown["worktree"]["path"], path.display().to_string());
    assert_eq!(shown["worktree"]["branch"], "fix-1");
    assert_eq!(shown["worktree"]["repo"], repo.display().to_string());
    assert_eq!(shown["worktree"]["dirty"], false);
    let text = server.ctl_ok(&["ls"]);
    assert!(text.contains("worktree fix-1"), "{text}");

    // The same name again is the same worktree: a second pane joins it,
    // and the first cannot take it away from under the second.
    let second = worktree_pane(&server, &ws, "fix-1");
    server.wait_output(&second, &format!("at={} on=fix-1", path.display()));
    let err = ctl_err(&server, &["close", &pane, "--remove-worktree"]);
    assert!(
        err.contains("also used by pane") && err.contains(&second),
        "{err}"
    );
    assert!(
        server.pane(&pane).is_some(),
        "a refused close closes nothing"
    );

    // A split started inside the worktree belongs to it.
    let inside = path.join("sub");
    std::fs::create_dir(&inside).unwrap();
    let split = server.ctl_ok(&["new", &ws, "--cwd", &inside.display().to_string()]);
    assert_eq!(server.pane(&split).unwrap()["worktree"]["branch"], "fix-1");
}

#[test]
fn bad_names_and_taken_names_are_refused_with_one_clear_line() {
    let server = server();
    let repo = repo(&server);
    let ws = workspace_in(&server, "wt", &repo);
    for bad in ["a b", "../x", "-rf", "x.lock", "a/b", ""] {
        let flag = format!("--worktree={bad}");
        let err = ctl_err(&server, &["new", &ws, &flag]);
        assert!(err.contains("is not allowed"), "{bad:?}: {err}");
    }
    git(&repo, &["branch", "taken"]);
    let err = ctl_err(&server, &["new", &ws, "--worktree", "taken"]);
    assert!(err.contains("branch taken already exists"), "{err}");
    std::fs::create_dir_all(default_path(&repo, "here")).unwrap();
    let err = ctl_err(&server, &["new", &ws, "--worktree", "here"]);
    assert!(err.contains("already exists"), "{err}");
    let err = ctl_err(&server, &["new", &ws, "--worktree", "main"]);
    assert!(err.contains("already checked out at"), "{err}");

    let plain = server.dir.path().join("plain");
    std::fs::create_dir(&plain).unwrap();
    let elsewhere = workspace_in(&server, "plain", &plain);
    let err = ctl_err(&server, &["new", &elsewhere, "--worktree", "x"]);
    assert!(err.contains("is not inside a git repository"), "{err}");
    let err = ctl_err(
        &server,
        &[
            "workspace",
            "new",
            "w2",
            "--cwd",
            &plain.display().to_string(),
            "--worktree",
            "x",
        ],
    );
    assert!(err.contains("is not inside a git repository"), "{err}");
    let panes = support::all_panes(&server.ls());
    assert!(panes.is_empty(), "nothing was made: {panes:?}");
}

#[test]
fn a_worktree_pane_survives_a_sigkill_and_restart_and_respawns_in_it() {
    let OnePane {
        mut server,
        pane,
        path,
        ..
    } = one_pane("keep");
    let path = path.display().to_string();
    server.wait_snapshot("the pane's worktree saved", |s| {
        s["panes"].as_array().is_some_and(|p| {
            p.iter()
                .any(|p| p["id"] == pane && p["worktree"]["path"] == path)
        })
    });
    server.kill9();
    server.launch();
    let back = server.pane(&pane).expect("the pane is back");
    assert_eq!(back["state"], "RESTORED");
    assert_eq!(back["worktree"]["path"], path);
    assert_eq!(back["worktree"]["branch"], "keep");
    server.ctl_ok(&["respawn", &pane]);
    server.wait_output(&pane, &format!("at={path} on=keep"));
}

#[test]
fn a_worktree_deleted_while_the_server_was_down_leaves_its_pane_exited_saying_so() {
    let OnePane {
        mut server,
        repo,
        pane,
        path,
        ..
    } = one_pane("doomed");
    let shown = path.display().to_string();
    server.wait_snapshot("the pane's worktree saved", |s| {
        s["panes"]
            .as_array()
            .is_some_and(|p| p.iter().any(|p| p["worktree"]["path"] == shown))
    });
    server.kill9();
    std::fs::remove_dir_all(&path).unwrap();
    server.launch();
    let back = server.pane(&pane).expect("the pane is back");
    assert_eq!(back["state"], "EXITED");
    assert_eq!(back["worktree"]["gone"], true);
    let message = back["last_message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!("the worktree at {shown} is gone")),
        "{message}"
    );
    let text = server.ctl_ok(&["ls"]);
    assert!(text.contains("worktree doomed GONE"), "{text}");
    for revive in ["respawn", "resume"] {
        let err = ctl_err(&server, &[revive, &pane]);
        assert!(
            err.contains("is gone") && err.contains("will not run in another directory"),
            "{revive}: {err}"
        );
    }
    // Closing it with removal prunes git's record of it.
    let closed = server.ctl_ok(&["close", &pane, "--remove-worktree"]);
    assert!(closed.contains("removed worktree"), "{closed}");
    let listed = git(&repo, &["worktree", "list", "--porcelain"]);
    assert!(!listed.contains("doomed"), "{listed}");
}

#[test]
fn removal_is_refused_while_the_worktree_is_dirty_and_done_with_force() {
    let OnePane {
        server,
        repo,
        ws,
        pane,
        path,
    } = one_pane("dirty");
    std::fs::write(path.join("notes.txt"), "work in progress\n").unwrap();
    let err = ctl_err(&server, &["close", &pane, "--remove-worktree"]);
    assert!(
        err.contains("uncommitted changes") && err.contains("notes.txt") && err.contains("--force"),
        "{err}"
    );
    assert!(server.pane(&pane).is_some(), "the pane is still there");
    assert!(path.join("notes.txt").exists(), "nothing was removed");
    let done = server.ctl_ok(&["close", &pane, "--remove-worktree", "--force"]);
    assert!(done.contains("removed worktree"), "{done}");
    assert!(server.pane(&pane).is_none());
    assert!(!path.exists(), "the worktree is gone");
    assert_eq!(
        git(&repo, &["branch", "--list", "dirty"]),
        "dirty",
        "its branch stays"
    );

    // Without the flag a worktree is kept, and the reply says where.
    let kept = worktree_pane(&server, &ws, "kept");
    server.wait_output(&kept, "on=kept");
    let said = server.ctl_ok(&["close", &kept]);
    let kept_path = default_path(&repo, "kept");
    assert!(
        said.contains(&format!("kept worktree {}", kept_path.display())),
        "{said}"
    );
    assert!(kept_path.is_dir());
    // A clean one is removed without --force.
    let clean = worktree_pane(&server, &ws, "clean");
    server.wait_output(&clean, "on=clean");
    let json = server.ctl_json(&["close", &clean, "--remove-worktree"]);
    assert_eq!(json["worktrees"][0]["removed"], true, "{json}");
    assert!(!default_path(&repo, "clean").exists());
}

/// Attaches to `pane` over the socket and stays attached while the
/// stream lives, as a client that shows the pane does.
fn attach(server: &TestServer, pane: &str) -> UnixStream {
    let mut stream = UnixStream::connect(&server.socket).unwrap();
    let request = serde_json::json!({"v": "signaltty/1", "id": 1, "method": "pane.attach",
                                     "params": {"pane": pane, "keep_attention": true}});
    let mut line = serde_json::to_vec(&request).unwrap();
    line.push(b'\n');
    stream.write_all(&line).unwrap();
    let mut reply = String::new();
    BufReader::new(stream.try_clone().unwrap())
        .read_line(&mut reply)
        .unwrap();
    assert!(reply.contains("\"result\""), "{reply}");
    stream
}

fn worktree_of(server: &TestServer, pane: &str) -> Value {
    server.pane(pane).unwrap()["worktree"].clone()
}

#[test]
fn a_shown_worktree_pane_s_dirty_mark_and_branch_follow_git() {
    let OnePane {
        server, pane, path, ..
    } = one_pane("live");
    let _shown = attach(&server, &pane);
    std::fs::write(path.join("new.txt"), "x\n").unwrap();
    wait_for("the dirty mark", Duration::from_secs(15), || {
        (worktree_of(&server, &pane)["dirty"] == true).then_some(())
    });
    assert!(server.ctl_ok(&["ls"]).contains("worktree live*"));
    git(&path, &["add", "new.txt"]);
    git(&path, &["commit", "-q", "-m", "new"]);
    git(&path, &["switch", "-q", "-c", "renamed"]);
    wait_for("clean, on the new branch", Duration::from_secs(15), || {
        let w = worktree_of(&server, &pane);
        (w["dirty"] == false && w["branch"] == "renamed").then_some(())
    });
}

#[test]
fn a_workspace_on_a_worktree_gives_it_to_its_panes_and_removes_it_when_closed() {
    let server = server();
    let repo = repo(&server);
    let cwd = repo.display().to_string();
    let ws = server.ctl_ok(&[
        "workspace",
        "new",
        "feature",
        "--cwd",
        &cwd,
        "--worktree",
        "feat",
    ]);
    let path = default_path(&repo, "feat").display().to_string();
    let ls = server.ls();
    let shown = &ls["workspaces"][0];
    assert_eq!(shown["cwd"], path);
    assert_eq!(shown["worktree"]["branch"], "feat");
    let err = ctl_err(
        &server,
        &[
            "workspace",
            "new",
            "feature",
            "--cwd",
            &cwd,
            "--worktree",
            "other",
        ],
    );
    assert!(err.contains("already exists"), "{err}");
    assert!(
        !default_path(&repo, "other").exists(),
        "no worktree made for a name refused"
    );
    let pane = server.new_sh(&ws, "echo \"at=$(pwd)\"; exec sleep 1000");
    server.wait_output(&pane, &format!("at={path}"));
    assert_eq!(worktree_of(&server, &pane)["path"], path);
    let err = ctl_err(&server, &["close", &pane, "--remove-worktree"]);
    assert!(err.contains("workspace feature's directory"), "{err}");
    std::fs::write(Path::new(&path).join("wip"), "").unwrap();
    let err = ctl_err(
        &server,
        &["workspace", "close", "feature", "--remove-worktree"],
    );
    assert!(err.contains("uncommitted changes"), "{err}");
    assert!(server.pane(&pane).is_some());
    let done = server.ctl_ok(&[
        "workspace",
        "close",
        "feature",
        "--remove-worktree",
        "--force",
    ]);
    assert!(done.contains("removed worktree"), "{done}");
    assert!(!Path::new(&path).exists());
}

#[test]
fn the_config_file_chooses_where_worktrees_go() {
    let mut server = TestServer::prepare(true, Vec::new());
    let config = server.dir.path().join("config.toml");
    let root = server.dir.path().join("trees");
    std::fs::write(
        &config,
        format!("[worktree]\nroot = \"{}/{{repo}}\"\n", root.display()),
    )
    .unwrap();
    server.extra_env_push("SIGNALTTY_CONFIG", &config.display().to_string());
    server.extra_env_push("GIT_CONFIG_GLOBAL", "/dev/null");
    server.launch();
    let repo = repo(&server);
    let ws = workspace_in(&server, "wt", &repo);
    let pane = worktree_pane(&server, &ws, "elsewhere");
    let path = root.join("project").join("elsewhere");
    server.wait_output(&pane, &format!("at={}", path.display()));
}

#[test]
fn the_multiplexer_makes_a_worktree_by_key_shows_its_state_and_offers_removal_on_close() {
    use support::terminal::Terminal;
    let server = server();
    let repo = repo(&server);
    let ws = workspace_in(&server, "wt", &repo);
    let first = server.ctl_ok(&["new", &ws]);
    let mut command = server.command();
    command.args(["ui", "wt"]);
    let mut terminal = Terminal::run(&command, 30, 130);
    terminal.wait_text("the multiplexer", |t| t.contains("? help"));
    terminal.type_bytes(b"\x02W");
    terminal.wait_text("the name prompt", |t| {
        t.contains("new worktree (and branch):")
    });
    terminal.type_bytes(b"agent\r");
    let pane = wait_for("a pane in worktree agent", Duration::from_secs(15), || {
        support::all_panes(&server.ls())
            .into_iter()
            .find(|p| p["worktree"]["branch"] == "agent")
            .map(|p| p["id"].as_str().unwrap().to_string())
    });
    assert_ne!(pane, first);
    let path = default_path(&repo, "agent");
    assert_eq!(
        server.pane(&pane).unwrap()["cwd"],
        path.display().to_string()
    );
    terminal.wait_text("the branch in the sidebar", |t| t.contains("⎇ agent"));
    std::fs::write(path.join("draft.txt"), "x\n").unwrap();
    terminal.wait_text("the dirty mark", |t| t.contains("⎇ agent*"));

    // The new pane has the focus; closing it offers the worktree's removal,
    // which is refused while it is dirty and leaves the pane.
    terminal.type_bytes(b"\x02x");
    terminal.wait_text("the question", |t| t.contains("r removes it"));
    terminal.type_bytes(b"r");
    terminal.wait_text("the refusal", |t| t.contains("uncommitted changes"));
    assert!(server.pane(&pane).is_some());
    std::fs::remove_file(path.join("draft.txt")).unwrap();
    terminal.wait_text("clean again", |t| {
        t.contains("⎇ agent") && !t.contains("⎇ agent*")
    });
    terminal.type_bytes(b"\x02x");
    terminal.wait_text("the question again", |t| t.contains("r removes it"));
    terminal.type_bytes(b"r");
    terminal.wait_text("removed", |t| t.contains("removed worktree"));
    assert!(server.pane(&pane).is_none());
    assert!(!path.exists());
    terminal.type_bytes(b"\x02d");
    assert_eq!(terminal.wait_exit(), 0);
}
