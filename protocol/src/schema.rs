//! The protocol as a JSON Schema (draft 2020-12): every method's
//! parameters and reply, the lines of the `events` stream, and errors.
//!
//! `methods.rs` is the one list of what each method takes and answers; the
//! schema is generated from the wire types themselves, so it cannot drift
//! from what the server sends. `signaltty schema` prints [`document`];
//! each reply and event type is reached as `#/$defs/<name>`, each
//! method's reply as `#/$defs/<method>.reply` and its parameters as
//! `#/params/<method>`.

use schemars::generate::{Contract, SchemaSettings};
use schemars::{Schema, SchemaGenerator};
use serde_json::{Map, Value, json};

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
    for method in crate::methods::TABLE {
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
        let mut names: Vec<&str> = crate::methods::TABLE.iter().map(|m| m.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before, "a method is listed twice");
        let doc = document();
        for method in crate::methods::TABLE {
            assert!(doc["$defs"][format!("{}.reply", method.name)].is_object());
        }
    }
}
