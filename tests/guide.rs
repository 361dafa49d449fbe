//! End to end: every command `signaltty agent-guide` shows runs, in order,
//! against a real server with stand-in agents, from inside a git
//! repository as a lead agent would run them — and the README's example
//! of three agents in three worktrees is the guide's own.

mod support;

use std::process::Command;

use serde_json::Value;
use support::agents::{CLAUDE_STAND_IN, server_with_agents};
use support::git::repository;
use support::{BIN, all_panes};

/// The shell blocks of a Markdown text, in order.
fn shell_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match (&mut current, line.trim_end()) {
            (None, "```sh") => current = Some(String::new()),
            (Some(block), "```") => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            (Some(block), text) => {
                block.push_str(text);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}



#[test]
fn every_command_of_the_agent_guide_runs_as_shown() {
    let printed = Command::new(BIN).arg("agent-guide").output().unwrap();
    assert!(printed.status.success());
    let guide = String::from_utf8(printed.stdout).unwrap();
    let blocks = shell_blocks(&guide);
    assert!(blocks.len() >= 7, "{blocks:?}");

    let (server, root) = server_with_agents(&[("claude", CLAUDE_STAND_IN)]);
    let repo = repository(&root);
    let ws = server.ctl_ok(&[
        "workspace",
        "new",
        "lead",
        "--cwd",
        &repo.display().to_string(),
    ]);
    // `signaltty` on PATH, as an installed one would be.
    let bin = root.join("guide-bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(BIN, bin.join("signaltty")).unwrap();
    let script = format!("set -euo pipefail\n{}", blocks.concat());
    let out = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(&repo)
        .env(
            "PATH",
            format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()),
        )
        .env("SIGNALTTY_SOCKET", &server.socket)
        .env("SIGNALTTY_WORKSPACE", &ws)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the guide failed:\n{stdout}\n{stderr}"
    );

    // What it did: four agents, each in a worktree of its own; the first
    // closed with its worktree, the other three idle after their work.
    let panes = all_panes(&server.ls());
    let agents: Vec<&Value> = panes
        .iter()
        .filter(|p| p["agent"]["kind"] == "claude")
        .collect();
    assert_eq!(agents.len(), 3, "{panes:?}");
    for task in ["api", "ui", "docs"] {
        let path = repo.parent().unwrap().join("project.worktrees").join(task);
        assert!(path.is_dir(), "{}", path.display());
        let pane = std::fs::read_to_string(repo.join(format!("{task}.pane"))).unwrap();
        let listed = server.pane(pane.trim()).unwrap();
        assert_eq!(listed["cwd"], path.display().to_string());
        assert_eq!(listed["lifecycle"], "done", "{listed}");
    }
    assert!(
        !repo
            .parent()
            .unwrap()
            .join("project.worktrees/fix-login")
            .exists(),
        "closed with its worktree"
    );
    let events = std::fs::read_to_string(repo.join("events.log")).unwrap();
    assert!(events.contains("\"event\":\"lifecycle\""), "{events}");
    assert!(stdout.contains("started "), "{stdout}");
}

#[test]
fn the_readme_example_of_three_agents_is_the_guides() {
    let readme = include_str!("../README.md");
    let guide = include_str!("../docs/agent-guide.md");
    let three = shell_blocks(guide)
        .into_iter()
        .find(|b| b.contains("for task in api ui docs"))
        .unwrap();
    assert!(
        shell_blocks(readme).contains(&three),
        "README's example of several agents differs from the guide's"
    );
}
