//! JSON that keeps its keys in the order the file had them.
//!
//! `serde_json::Value` sorts object keys (this workspace does not turn on
//! its `preserve_order`, which would change every map it builds), and a
//! settings file the user reads by eye should come back with its keys where
//! they were. So a file is read into [`Json`], whose objects are lists of
//! pairs, and written back with the file's own indentation.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// A JSON value whose objects keep their order.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The value of `key`, in an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(pairs) => pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(text) => Some(text),
            _ => None,
        }
    }

    /// A string value, as JSON.
    pub fn string(text: &str) -> Json {
        Json::String(text.to_string())
    }

    /// An object of `pairs`, as JSON.
    pub fn object(pairs: &[(&str, Json)]) -> Json {
        Json::Object(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_string(), v.clone()))
                .collect(),
        )
    }
}

/// Reads `text`; empty text (or only white space) is an empty object, as
/// for a file that was just created.
pub fn parse(text: &str) -> Result<Json, serde_json::Error> {
    if text.trim().is_empty() {
        return Ok(Json::Object(Vec::new()));
    }
    serde_json::from_str(text)
}

/// `value` as text indented the way `original` was (two spaces when it
/// shows none), ending in a newline.
pub fn to_text(value: &Json, original: &str) -> Result<String, serde_json::Error> {
    let indent = indentation(original);
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    value.serialize(&mut serializer)?;
    let mut text = String::from_utf8_lossy(&out).into_owned();
    text.push('\n');
    Ok(text)
}

/// The white space before the first indented line of `text`.
fn indentation(text: &str) -> String {
    text.lines()
        .skip(1)
        .map(|line| {
            let end = line.len() - line.trim_start_matches([' ', '\t']).len();
            &line[..end]
        })
        .find(|indent| !indent.is_empty())
        .unwrap_or("  ")
        .to_string()
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => serializer.serialize_unit(),
            Json::Bool(b) => serializer.serialize_bool(*b),
            Json::Number(n) => n.serialize(serializer),
            Json::String(s) => serializer.serialize_str(s),
            Json::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(pairs) => {
                let mut map = serializer.serialize_map(Some(pairs.len()))?;
                for (key, value) in pairs {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
        Ok(Json::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Json, E> {
        Ok(Json::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Json, E> {
        Ok(Json::Number(n.into()))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Json, E> {
        serde_json::Number::from_f64(n)
            .map(Json::Number)
            .ok_or_else(|| E::custom("a number JSON cannot hold"))
    }

    fn visit_str<E>(self, s: &str) -> Result<Json, E> {
        Ok(Json::String(s.to_string()))
    }

    fn visit_string<E>(self, s: String) -> Result<Json, E> {
        Ok(Json::String(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut pairs = Vec::new();
        while let Some((key, value)) = map.next_entry()? {
            pairs.push((key, value));
        }
        Ok(Json::Object(pairs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_their_order_and_the_file_its_indentation() {
        let text =
            "{\n    \"zeta\": 1,\n    \"alpha\": {\"b\": [true, null, 2.5], \"a\": \"x\"}\n}\n";
        let value = parse(text).unwrap();
        let back = to_text(&value, text).unwrap();
        assert_eq!(
            back,
            "{\n    \"zeta\": 1,\n    \"alpha\": {\n        \"b\": [\n            true,\n            null,\n            2.5\n        ],\n        \"a\": \"x\"\n    }\n}\n"
        );
        assert_eq!(parse(&back).unwrap(), value);
    }

    #[test]
    fn an_empty_file_is_an_empty_object_and_bad_json_is_an_error() {
        assert_eq!(parse(" \n").unwrap(), Json::Object(Vec::new()));
        assert!(parse("{\"a\": 1,}").is_err());
        assert!(parse("// a comment\n{}").is_err());
        assert_eq!(to_text(&Json::Object(Vec::new()), "").unwrap(), "{}\n");
    }

    #[test]
    fn too_deep_a_file_is_refused_not_a_crash() {
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(parse(&deep).is_err());
    }
}
