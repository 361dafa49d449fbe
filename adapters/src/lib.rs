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
//!   copilot, and generic for everything else.
//! * [`detect`] tells the kind from a command line.
//! * [`validate_session_id`] is the only way to make a [`SessionId`]; each
//!   kind has a narrow rule (a UUID, or opencode's `ses_…`), because the id
//!   becomes an argument of a command signaltty runs.
//! * [`resume_argv`] builds the agent's official resume command from the
//!   command the pane was launched with and a validated id.
//! * [`without_secrets`] drops the words of a command line that may hold a
//!   secret, so what is saved and shown never has them.
//! * [`plan_launch`] adds a preset session id to a launch command where the
//!   agent accepts one (claude, gemini, copilot), and otherwise reports an id
//!   the user already gave, so a pane can be resumable from its first second.
//!
//! Two promises hold for every argv this crate produces: it never contains
//! an id that did not pass its kind's rule, and it never ends in a bare
//! resume flag (which would open an interactive picker, or resume whatever
//! was latest, instead of the pane's own session).
//!
//! # Layout
//!
//! * `kinds.rs` — the facts table, one `AdapterSpec` per kind, each noting
//!   the CLI version it was checked against. When an agent CLI changes, this
//!   is the file to edit; everything else is generic over it.
//! * `kind.rs` — [`AgentKind`] and its names.
//! * `session_id.rs` — [`SessionId`] and the id rules.
//! * `argv.rs` — reading a command line: `env` prefixes, basenames, options.
//! * `detect.rs`, `resume.rs`, `launch.rs` — the three operations.
//! * `secrets.rs` — [`without_secrets`].
//! * `hooks.rs` — what each agent's hook events mean ([`hook_effect`]).
//! * `error.rs` — [`AdapterError`], whose messages escape untrusted text.

mod argv;
mod detect;
mod error;
mod hooks;
mod kind;
mod kinds;
mod launch;
mod resume;
mod secrets;
mod session_id;

pub use detect::detect;
pub use error::AdapterError;
pub use hooks::{AgentActivity, AgentNeeds, HookEffect, hook_effect};
pub use kind::AgentKind;
pub use launch::{LaunchPlan, plan_launch};
pub use resume::resume_argv;
pub use secrets::without_secrets;
pub use session_id::{SessionId, validate_session_id};
