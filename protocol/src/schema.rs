//! The protocol as a JSON Schema (draft 2020-12): every method's
//! parameters and reply, the lines of the `events` stream, and errors.
//!
//! [`METHODS`] is the one list of what each method takes and answers; the
//! schema is generated from the wire types themselves, so it cannot drift
//! from what the server sends. `signaltty schema` prints [`document`];
//! each reply and event type is reached as `#/$defs/<name>`, each
//! method's reply as `#/$defs/<method>.reply` and its parameters as
//! `#/params/<method>`.

use schemars::generate::{Contract, SchemaSettings};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value, json};

use crate::{method, params};

/// Writes the schema of a type into a generator and returns its reference.
type SchemaFn = fn(&mut SchemaGenerator) -> Schema;

/// One method: its name, what it takes, what it answers.
pub struct MethodSchema {
    pub name: &'static str,
    pub params: SchemaFn,
    pub reply: SchemaFn,
    /// What follows the reply on the same connection, for methods that
    /// turn it into a stream.
    pub then: Option<&'static str>,
}

const fn entry<P: JsonSchema, R: JsonSchema>(name: &'static str) -> MethodSchema {
    MethodSchema {
        name,
        params: SchemaGenerator::subschema_for::<P>,
        reply: SchemaGenerator::subschema_for::<R>,
        then: None,
    }
}

const fn stream<P: JsonSchema, R: JsonSchema>(
    name: &'static str,
    then: &'static str,
) -> MethodSchema {
    MethodSchema {
        then: Some(then),
        ..entry::<P, R>(name)
    }
}

/// Every method the server answers, in the order of its dispatch.
pub const METHODS: &[MethodSchema] = &[
    entry::<params::Empty, crate::StatusReply>(method::STATUS),
    entry::<params::Empty, crate::LsReply>(method::LS),
    entry::<params::WorkspaceNew, crate::IdReply>(method::WORKSPACE_NEW),
    entry::<params::WorkspaceSet, crate::Done>(method::WORKSPACE_SET),
    entry::<params::Workspace, crate::ClosedReply>(method::WORKSPACE_CLOSE),
    entry::<params::TabNew, crate::TabNewReply>(method::TAB_NEW),
    entry::<params::Tab, crate::Done>(method::TAB_CLOSE),
    entry::<params::PaneNew, crate::IdReply>(method::PANE_NEW),
    entry::<params::PaneSend, crate::Done>(method::PANE_SEND),
    entry::<params::PaneRead, crate::ReadReply>(method::PANE_READ),
    entry::<params::PaneClose, crate::ClosedReply>(method::PANE_CLOSE),
    entry::<params::PaneKill, crate::Done>(method::PANE_KILL),
    entry::<params::PaneResize, crate::ResizeReply>(method::PANE_RESIZE),
    entry::<params::Pane, crate::Done>(method::PANE_RESUME),
    entry::<params::Pane, crate::Done>(method::PANE_RESPAWN),
    entry::<params::ReportSession, crate::Done>(method::PANE_REPORT_SESSION),
    stream::<params::PaneAttach, crate::AttachReply>(method::PANE_ATTACH, "binary frames"),
    stream::<params::Empty, crate::Done>(method::SUBSCRIBE, "Event"),
    entry::<params::Notify, crate::Done>(method::NOTIFY),
    entry::<params::Notifications, crate::NotificationsReply>(method::NOTIFICATIONS),
    entry::<params::Empty, crate::NextReply>(method::NEXT),
    entry::<params::Pane, crate::Done>(method::PANE_SEEN),
    entry::<params::PaneHook, crate::Done>(method::PANE_HOOK),
    entry::<params::Empty, crate::Done>(method::SHUTDOWN),
    entry::<params::DebugPanic, crate::Done>(method::DEBUG_PANIC),
    entry::<params::Rename, crate::RenameReply>(method::RENAME),
    entry::<params::Focus, crate::Done>(method::FOCUS),
    entry::<params::SplitRatio, crate::RatioReply>(method::TAB_SPLIT_RATIO),
    entry::<params::PaneSwap, crate::SwapReply>(method::PANE_SWAP),
    entry::<params::PaneBreak, crate::BreakReply>(method::PANE_BREAK),
    entry::<params::PaneMove, crate::MoveReply>(method::PANE_MOVE),
    entry::<params::PaneExplain, crate::ExplainReply>(method::PANE_EXPLAIN),
    entry::<params::PaneWait, crate::WaitReply>(method::PANE_WAIT),
    entry::<params::PaneSendKeys, crate::Done>(method::PANE_SEND_KEYS),
    entry::<params::AgentStart, crate::AgentStartReply>(method::AGENT_START),
    entry::<params::AgentPrompt, crate::PromptReply>(method::AGENT_PROMPT),
    entry::<params::AgentWait, crate::WaitReply>(method::AGENT_WAIT),
    stream::<params::Events, crate::Done>(method::EVENTS, "EventLine"),
];

/// Where the schemas of what clients send are kept in the document: they
/// are read the way the server reads them (a field with a default may be
/// left out), while replies and events are described as the server writes
/// them (every field present), so the two sets are generated apart.
const PARAMS_PATH: &str = "/params";

/// The whole protocol as one schema document.
pub fn document() -> Value {
    let mut replies = SchemaSettings::draft2020_12()
        .with(|s| s.contract = Contract::Serialize)
        .into_generator();
    let mut requests = SchemaSettings::draft2020_12()
        .with(|s| {
            s.contract = Contract::Deserialize;
            s.definitions_path = PARAMS_PATH.into();
        })
        .into_generator();
    let mut methods = Map::new();
    for method in METHODS {
        let mut described = json!({
            "params": (method.params)(&mut requests),
            "reply": (method.reply)(&mut replies),
        });
        if let Some(then) = method.then {
            described["then"] = json!(then);
        }
        methods.insert(method.name.to_string(), described);
    }
    let event = replies.subschema_for::<crate::EventLine>();
    let changed = replies.subschema_for::<crate::Event>();
    let error = replies.subschema_for::<crate::WireError>();
    let mut defs = replies.take_definitions(true);
    let mut params = requests.take_definitions(true);
    for (name, described) in &methods {
        params.insert(name.clone(), described["params"].clone());
        defs.insert(format!("{name}.reply"), described["reply"].clone());
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://signaltty.invalid/schema/signaltty-1.json",
        "title": format!("the {} protocol", crate::PROTOCOL),
        "description": "Newline-delimited JSON over a Unix socket: one request \
            {\"v\",\"id\",\"method\",\"params\"} per line, one response \
            {\"v\",\"id\",\"result\"|\"error\"} per line. `methods` gives each \
            method's params and reply (also `#/params/<method>` and \
            `#/$defs/<method>.reply`); `events` and `subscribe` then push \
            `event` and `changed` lines; an error is `error`.",
        "methods": methods,
        "event": event,
        "changed": changed,
        "error": error,
        "$defs": defs,
        "params": params,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_is_described_once() {
        let mut names: Vec<&str> = METHODS.iter().map(|m| m.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before, "a method is listed twice");
        let doc = document();
        for method in METHODS {
            assert!(doc["$defs"][format!("{}.reply", method.name)].is_object());
        }
    }
}
