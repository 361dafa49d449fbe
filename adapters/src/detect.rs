//! [`detect`]: which agent a command line starts.

use crate::argv::{basename, split};
use crate::kind::AgentKind;

/// The kind of agent `argv` runs, judged by the basename of its program.
///
/// * The program may be written bare (`claude`), with an absolute path
///   (`/opt/bin/claude`) or a relative one (`./node_modules/.bin/claude`).
/// * A leading `env` is looked through, with its options (`-i`, `-u NAME`,
///   `-C DIR`, `--`, …) and `NAME=VALUE` assignments, so
///   `env -i CLAUDE_CONFIG_DIR=/x claude` is claude. `-i` is accepted: the
///   program is still the agent, only its environment is emptied. An `env`
///   option this crate does not model (`-S`) makes the line generic.
/// * The basename must equal the kind's program exactly: `claude-foo`,
///   `Claude` and `claude.exe` are generic, and so is anything run through
///   an interpreter or launcher (`node cli.js`, `npx claude`).
/// * An empty argv is generic.
pub fn detect(argv: &[String]) -> AgentKind {
    let Some(invocation) = split(argv) else {
        return AgentKind::Generic;
    };
    let name = basename(invocation.program);
    AgentKind::ALL
        .into_iter()
        .map(AgentKind::spec)
        .find(|spec| spec.program == Some(name))
        .map_or(AgentKind::Generic, |spec| spec.kind)
}
