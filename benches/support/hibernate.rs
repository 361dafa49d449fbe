//! Hibernation's figures: what idle agents holding memory give back when
//! they sleep, how long a sleep and a wake take, and what the server's
//! idle check costs with many agent panes. A module of the harness
//! (`signaltty.rs`), whose helpers it uses.
//!
//! The agents are a stand-in Claude Code written in Python (`claude` on
//! PATH, so the pane is a claude pane with a session id from its launch):
//! it holds `HOLD_MB` of touched memory, draws the captured idle screen,
//! and ends on `/exit`, as the real one does.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;

use super::procfs::rss_kib;
use super::{Report, Server, cpu_ticks, percentile};

/// Agents put to sleep, and what each holds.
const AGENTS: usize = 20;
const HOLD_MB: usize = 200;
/// Agent panes the idle check runs over, and for how long.
const CHECK_PANES: usize = 200;
const CHECK_WINDOW: Duration = Duration::from_secs(30);

const STAND_IN: &str = r#"#!/usr/bin/env python3
import os, sys
hold = bytearray(int(os.environ.get("HOLD_MB", "200")) << 20)
for at in range(0, len(hold), 4096):
    hold[at] = 1
screen = open(os.path.join(os.environ["SCREENS"], "claude-idle.txt")).read()
sys.stdout.write("\033[H\033[2J" + screen.replace("\n", "\r\n"))
sys.stdout.flush()
for line in sys.stdin:
    if line.strip() == "/exit":
        break
"#;

pub(super) fn hibernation(dir: &Path, report: &mut Report) {
    let (bin, home) = stand_in(dir);
    eprintln!("hibernation: {AGENTS} idle agents holding {HOLD_MB} MB each");
    let server = agents_server(dir, "hib", &bin, &home, HOLD_MB, "");
    let panes: Vec<String> = (0..AGENTS).map(|_| new_agent(&server)).collect();
    wait_idle(&server, &panes);
    let trees_before = pane_trees_kib(server.pid());
    let server_before = rss_kib(server.pid());
    let mut sleeps = Vec::new();
    for pane in &panes {
        let start = Instant::now();
        server
            .call("pane.hibernate", json!({"pane": pane}))
            .expect("an idle agent hibernates");
        sleeps.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    let trees_after = pane_trees_kib(server.pid());
    let server_after = rss_kib(server.pid());
    let mut wakes = Vec::new();
    for pane in panes.iter().take(5) {
        let start = Instant::now();
        server
            .call("pane.wake", json!({"pane": pane}))
            .expect("a sleeping agent wakes");
        wakes.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    drop(server);
    report.hibernation(Hibernated {
        trees_before,
        trees_after,
        server_before,
        server_after,
        sleep_ms: sleeps,
        wake_ms: wakes,
    });

    eprintln!("hibernation: the idle check over {CHECK_PANES} idle agent panes");
    // A window they never reach, so every look weighs every pane.
    let config = "[hibernate]\nafter = \"168h\"\n";
    let server = agents_server(dir, "hibcheck", &bin, &home, 0, config);
    // A tab each: one tab's layout holds far fewer.
    let panes: Vec<String> = (0..CHECK_PANES)
        .map(|_| {
            let tab = json!({"workspace": server.workspace, "argv": ["claude"]});
            let created = server.call("tab.new", tab).expect("a new tab");
            created["pane_id"].as_str().unwrap_or_default().to_string()
        })
        .collect();
    wait_idle(&server, &panes);
    std::thread::sleep(Duration::from_secs(3));
    let before = cpu_ticks(server.pid());
    std::thread::sleep(CHECK_WINDOW);
    let ticks = cpu_ticks(server.pid()) - before;
    // SAFETY: sysconf takes a plain integer.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let cpu = ticks as f64 / hz / CHECK_WINDOW.as_secs_f64() * 100.0;
    report.hibernation_check(CHECK_PANES, CHECK_WINDOW, cpu, look_cpu(CHECK_PANES));
}

/// The percent of a core the hibernator's look (`hibernator::due`, once
/// per `LOOK_EVERY`) takes over a model of `panes` idle agents, none due.
fn look_cpu(panes: usize) -> f64 {
    use signaltty_actors::model::{Model, PaneState, PaneView};
    use signaltty_persistence::Lifecycle;
    use signaltty_supervisor::config::HibernateConfig;
    use signaltty_supervisor::hibernator::{LOOK_EVERY, due};
    use signaltty_types::{AgentKind, AgentRecord, PaneRecord};
    let mut model = Model::default();
    for n in 0..panes {
        let mut record = PaneRecord::new(format!("p{n}"), "w", "t");
        record.argv = vec!["claude".into()];
        record.lifecycle = Lifecycle::Idle;
        record.lifecycle_at = signaltty_actors::now_millis();
        record.agent = Some(AgentRecord {
            agent_session_id: Some("5b0e3c1a-7d2f-4e8b-9a6c-1f2e3d4c5b6a".into()),
            ..AgentRecord::of(AgentKind::Claude)
        });
        let view = PaneView {
            record,
            state: PaneState::Live,
            watched: false,
            command: None,
        };
        model.panes.insert(
            signaltty_types::id::PaneId::trusted(format!("p{n}")),
            std::sync::Arc::new(view),
        );
    }
    let config = HibernateConfig {
        after: Some("168h".parse().expect("a window")),
        keep_awake: None,
    };
    let rounds = 2_000;
    let start = Instant::now();
    for _ in 0..rounds {
        let chosen = due(&model, &config, signaltty_actors::now_millis());
        assert!(chosen.is_empty());
    }
    let per_look = start.elapsed().as_secs_f64() / f64::from(rounds);
    per_look / LOOK_EVERY.as_secs_f64() * 100.0
}

/// What [`hibernation`] measured.
pub(super) struct Hibernated {
    /// RSS of every pane's processes, KiB.
    pub trees_before: u64,
    pub trees_after: u64,
    /// The server's own RSS, KiB.
    pub server_before: u64,
    pub server_after: u64,
    pub sleep_ms: Vec<f64>,
    pub wake_ms: Vec<f64>,
}

impl Hibernated {
    pub(super) fn lines(&self) -> Vec<String> {
        let mib = |kib: u64| kib as f64 / 1024.0;
        let freed = 1.0 - self.trees_after as f64 / self.trees_before.max(1) as f64;
        vec![
            format!(
                "hibernation, {AGENTS} agents of {HOLD_MB} MB: their processes {:.0} → {:.0} MiB \
                 ({:.1}% freed); server {:.1} → {:.1} MiB",
                mib(self.trees_before),
                mib(self.trees_after),
                freed * 100.0,
                mib(self.server_before),
                mib(self.server_after)
            ),
            format!(
                "hibernation: asleep in p50 {:.0} ms, p99 {:.0} ms; awake again in p50 {:.0} ms, \
                 max {:.0} ms (ctl wake → its prompt on screen)",
                percentile(&self.sleep_ms, 0.5),
                percentile(&self.sleep_ms, 0.99),
                percentile(&self.wake_ms, 0.5),
                percentile(&self.wake_ms, 1.0)
            ),
        ]
    }
}

/// Writes the stand-in as `bin/claude`; returns its directory and a HOME.
fn stand_in(dir: &Path) -> (PathBuf, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("hib-bin");
    let home = dir.join("hib-home");
    std::fs::create_dir_all(&bin).expect("bin");
    std::fs::create_dir_all(&home).expect("home");
    let script = bin.join("claude");
    std::fs::write(&script, STAND_IN).expect("the stand-in");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("mode");
    (bin, home)
}

fn agents_server(
    dir: &Path,
    name: &str,
    bin: &Path,
    home: &Path,
    hold_mb: usize,
    config: &str,
) -> Server {
    let screens = Path::new(env!("CARGO_MANIFEST_DIR")).join("adapters/tests/screens");
    let config_path = dir.join(format!("{name}.toml"));
    std::fs::write(&config_path, config).expect("config");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let (home, screens, config_path) = (
        home.display().to_string(),
        screens.display().to_string(),
        config_path.display().to_string(),
    );
    let hold = hold_mb.to_string();
    Server::start_with_env(
        dir,
        name,
        true,
        &[
            ("PATH", path.as_str()),
            ("HOME", home.as_str()),
            ("SCREENS", screens.as_str()),
            ("HOLD_MB", hold.as_str()),
            ("SIGNALTTY_CONFIG", config_path.as_str()),
        ],
    )
}

/// A stand-in claude at the size its screen was captured at.
fn new_agent(server: &Server) -> String {
    server.create_pane(json!({"argv": ["claude"], "rows": 30, "cols": 100}))
}

/// Waits until every pane's agent reads as idle.
fn wait_idle(server: &Server, panes: &[String]) {
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        let ls = server.call("ls", json!({})).unwrap_or_default();
        let idle = ls.to_string().matches("\"lifecycle\":\"idle\"").count();
        if idle >= panes.len() {
            return;
        }
        assert!(Instant::now() < deadline, "{idle} of {} idle", panes.len());
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The RSS, KiB, of every process in the sessions the server's children
/// lead (each pane's child leads its own).
fn pane_trees_kib(server: u32) -> u64 {
    let stats: Vec<(u32, u32, u32)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let fields: Vec<&str> = stat.rsplit(')').next()?.split_whitespace().collect();
            // Fields 4 (parent) and 6 (session), counted from field 3.
            Some((
                pid,
                fields.get(1)?.parse().ok()?,
                fields.get(3)?.parse().ok()?,
            ))
        })
        .collect();
    let sessions: Vec<u32> = stats
        .iter()
        .filter(|(_, parent, _)| *parent == server)
        .map(|(pid, _, _)| *pid)
        .collect();
    stats
        .iter()
        .filter(|(_, _, session)| sessions.contains(session))
        .map(|(pid, _, _)| rss_kib(*pid))
        .sum()
}
