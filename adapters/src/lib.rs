//! Facts about the agent CLIs signaltty knows.
//!
//! This crate owns one adapter per agent kind: how to recognise it from an
//! argv, what a valid session id looks like, the official command that
//! resumes a session, and how to give a new session an id at launch. It is
//! pure: it must never spawn a process or do I/O beyond reading files it is
//! asked to read.
//!
//! # Overview
//!
//! * [`AgentKind`] names the agents: claude, codex, opencode, cursor, gemini,
//!   copilot, qwen, amp, kiro, pi, grok, crush, aider, goose, and generic for
//!   everything else.
//! * [`detect`] tells the kind from a command line.
//! * [`validate_session_id`] is the only way to make a [`SessionId`]; each
//!   kind has a narrow rule (a UUID, or a pattern such as opencode's
//!   `ses_…`), because the id becomes an argument of a command signaltty
//!   runs.
//! * [`resume_argv`] builds the agent's official resume command from the
//!   command the pane was launched with and a validated id, repeating the
//!   launch options the kind's data file lists as safe to repeat, and says
//!   which launch words it left out ([`ResumeCommand`]).
//! * [`without_secrets`] drops the words of a command line that may hold a
//!   secret, so what is saved and shown never has them.
//! * [`detect_process`] tells the kind of a running process: its name, the
//!   script its interpreter runs, or `SIGNALTTY_AGENT` in its environment.
//! * [`RuleBook`] reads what an agent is doing from its screen, with the
//!   [`Rules`] of each kind's data file (overridable per kind).
//! * [`discover_session`] finds an agent's session id in its own files.
//! * [`plan_launch`] adds a preset session id to a launch command where the
//!   agent accepts one (claude, gemini, copilot, qwen), and otherwise reports
//!   an id the user already gave, so a pane can be resumable from its first
//!   second.
//!
//! Two promises hold for every argv this crate produces: it never contains
//! an id that did not pass its kind's rule, and its resume words always
//! end with the id, never in a bare resume flag (which would open an
//! interactive picker, or resume whatever was latest, instead of the pane's
//! own session).
//!
//! # Layout
//!
//! * `agents/<kind>.toml` — one data file per agent: detection, id rule,
//!   resume and preset argv, launch flags, hook events, session store and
//!   screen rules, each noting the CLI version it was checked against and
//!   how. When an agent CLI changes, that file is the one to edit;
//!   everything else is generic over it.
//! * `data.rs` — reading and checking the data files, once; `kinds.rs` —
//!   the shape they are read into ([`AgentKind`]'s `AdapterSpec`).
//! * `kind.rs` — [`AgentKind`] and its names.
//! * `session_id.rs` — [`SessionId`] and the id rules.
//! * `argv.rs` — reading a command line: `env` prefixes, basenames, options.
//! * `detect.rs`, `resume.rs`, `launch.rs` — the three operations.
//! * `secrets.rs` — [`without_secrets`].
//! * `hooks.rs` — which event a hook reports ([`hook_event`]) and what it
//!   means ([`hook_effect`]);
//!   `hook_config.rs` — where an agent reads its hooks ([`hook_config`]),
//!   for `signaltty hooks install`.
//! * `rules.rs` — screen rules; `discover.rs` — the session store readers;
//!   `files.rs` — bounded reads of regular files only.
//! * `error.rs` — [`AdapterError`], whose messages escape untrusted text.

mod argv;
mod data;
mod detect;
mod discover;
mod error;
mod files;
mod hook_config;
mod hooks;
mod kind;
mod kinds;
mod launch;
mod resume;
mod rules;
mod secrets;
mod session_id;

pub use detect::{ProcessFacts, detect, detect_process};
pub use discover::{AgentProcess, Discovered, discover_session, store_env_names};
pub use error::AdapterError;
pub use hook_config::{HookConfig, HookFormat, ProjectRoot, hook_config, hook_events};
pub use hooks::{AgentActivity, AgentNeeds, HookEffect, hook_effect, hook_event, hooks_report};
pub use kind::{AgentFacts, AgentKind};
pub use launch::{LaunchPlan, plan_launch};
pub use resume::{ResumeCommand, resume_argv};
pub use rules::{RuleBook, Rules, RulesSource, ScreenState, Verdict};
pub use secrets::without_secrets;
pub use session_id::{SessionId, validate_session_id};
pub use signaltty_types::NewlineKey;
