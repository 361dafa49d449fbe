//! Strings and lists a client sends, each bounded by its type: a field's
//! type names what it is and how long it may be, and the bound is checked
//! as the request is read, with an error naming the field.
//!
//! The bounds are the snapshot's own ([`crate::limits`]), in bytes as
//! saved, so nothing a client sends can make a snapshot too big to save.

use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::limits::{
    MAX_ARGV_BYTES, MAX_ARGV_WORDS, MAX_MESSAGE_BYTES, MAX_NAME_BYTES, MAX_PATH_BYTES,
    MAX_SESSION_ID_BYTES, MAX_TITLE_BYTES, MAX_WORD_BYTES, argv_saved_len, saved_len,
};

/// What a bounded field is: its name in an error, its bound in bytes as
/// saved, and whether it is shown in other terminals (no control
/// characters then).
pub trait Field {
    const NAME: &'static str;
    const MAX: usize;
    const PLAIN: bool = false;
}

/// A string within `F`'s bound.
pub struct Text<F>(String, PhantomData<F>);

impl<F: Field> Text<F> {
    /// `text`, if it keeps `F`'s bound; else why not, naming the field.
    pub fn new(text: impl Into<String>) -> Result<Text<F>, String> {
        let text = text.into();
        let len = saved_len(&text);
        if len > F::MAX {
            return Err(too_long(F::NAME, len, F::MAX));
        }
        if F::PLAIN && text.chars().any(char::is_control) {
            return Err(format!("{} must not contain control characters", F::NAME));
        }
        Ok(Text(text, PhantomData))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

fn too_long(field: &str, len: usize, max: usize) -> String {
    format!("{field} is {len} bytes long; at most {max} are allowed")
}

impl<F> Deref for Text<F> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl<F> From<Text<F>> for String {
    fn from(text: Text<F>) -> String {
        text.0
    }
}

impl<F> Clone for Text<F> {
    fn clone(&self) -> Self {
        Text(self.0.clone(), PhantomData)
    }
}

impl<F> Default for Text<F> {
    fn default() -> Self {
        Text(String::new(), PhantomData)
    }
}

impl<F> PartialEq for Text<F> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl<F> PartialEq<&str> for Text<F> {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl<F> fmt::Debug for Text<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<F> fmt::Display for Text<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// For a client building parameters: unchecked, since the server checks
/// every bound as it reads the request (and the client's own words are
/// refused with the same message then).
impl<F: Field> From<&str> for Text<F> {
    fn from(text: &str) -> Self {
        Text(text.to_string(), PhantomData)
    }
}

impl<F: Field> From<String> for Text<F> {
    fn from(text: String) -> Self {
        Text(text, PhantomData)
    }
}

impl<F> Serialize for Text<F> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de, F: Field> Deserialize<'de> for Text<F> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Text::new(String::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

impl<F: Field> JsonSchema for Text<F> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "BoundedString".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "description": format!("{}, at most {} bytes as saved", F::NAME, F::MAX),
        })
    }
}

/// A bounded value as the plain value it holds, for whoever uses it past
/// the edge: `p.cwd.plain()` is an `Option<String>`.
pub trait Plain {
    type Plain;
    fn plain(self) -> Self::Plain;
}

impl<F> Plain for Text<F> {
    type Plain = String;
    fn plain(self) -> String {
        self.0
    }
}

impl<F> Plain for Option<Text<F>> {
    type Plain = Option<String>;
    fn plain(self) -> Option<String> {
        self.map(|text| text.0)
    }
}

impl<F> Plain for Words<F> {
    type Plain = Vec<String>;
    fn plain(self) -> Vec<String> {
        self.0
    }
}

/// A command: at most [`MAX_ARGV_WORDS`] words of [`MAX_ARGV_BYTES`]
/// together, named `F` in errors.
pub struct Words<F>(Vec<String>, PhantomData<F>);

impl<F: Field> Words<F> {
    pub fn new(words: Vec<String>) -> Result<Words<F>, String> {
        if words.len() > MAX_ARGV_WORDS {
            return Err(format!(
                "{} has {} words; at most {MAX_ARGV_WORDS} are allowed",
                F::NAME,
                words.len()
            ));
        }
        match argv_saved_len(&words) {
            len if len > MAX_ARGV_BYTES => Err(too_long(F::NAME, len, MAX_ARGV_BYTES)),
            _ => Ok(Words(words, PhantomData)),
        }
    }

    pub fn into_vec(self) -> Vec<String> {
        self.0
    }
}

impl<F> Deref for Words<F> {
    type Target = [String];
    fn deref(&self) -> &[String] {
        &self.0
    }
}

impl<F> From<Words<F>> for Vec<String> {
    fn from(words: Words<F>) -> Vec<String> {
        words.0
    }
}

impl<F> From<Vec<String>> for Words<F> {
    fn from(words: Vec<String>) -> Self {
        Words(words, PhantomData)
    }
}

impl<F> Clone for Words<F> {
    fn clone(&self) -> Self {
        Words(self.0.clone(), PhantomData)
    }
}

impl<F> Default for Words<F> {
    fn default() -> Self {
        Words(Vec::new(), PhantomData)
    }
}

impl<F> fmt::Debug for Words<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<F> Serialize for Words<F> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de, F: Field> Deserialize<'de> for Words<F> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Words::new(Vec::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

impl<F: Field> JsonSchema for Words<F> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "BoundedWords".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "array",
            "items": { "type": "string" },
            "maxItems": MAX_ARGV_WORDS,
            "description": format!("{}, at most {MAX_ARGV_BYTES} bytes together", F::NAME),
        })
    }
}

/// `pane.send_keys`'s keys: at most [`crate::params::MAX_SEND_KEYS`].
pub fn keys<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Text<field::KeyName>>, D::Error> {
    let keys = Vec::deserialize(d)?;
    at_most(keys, crate::params::MAX_SEND_KEYS, |n, max| {
        format!("{n} keys at once; at most {max} are sent together")
    })
}

/// A split's path from its tab's root: a tab has at most
/// [`MAX_PANES`](crate::limits::MAX_PANES) panes.
pub fn split_path<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Vec<signaltty_types::Branch>, D::Error> {
    let path = Vec::deserialize(d)?;
    at_most(path, crate::limits::MAX_PANES, |n, max| {
        format!("the split path has {n} steps; a tab has at most {max} panes")
    })
}

/// `agent.start`'s wait, at most [`crate::params::MAX_START_TIMEOUT_MS`].
pub fn start_timeout<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let max = crate::params::MAX_START_TIMEOUT_MS;
    match Option::<u64>::deserialize(d)? {
        Some(ms) if ms > max => Err(serde::de::Error::custom(format!(
            "a start timeout of {ms} ms is longer than the {max} allowed"
        ))),
        ms => Ok(ms),
    }
}

fn at_most<T, E: serde::de::Error>(
    items: Vec<T>,
    max: usize,
    message: impl FnOnce(usize, usize) -> String,
) -> Result<Vec<T>, E> {
    if items.len() > max {
        return Err(E::custom(message(items.len(), max)));
    }
    Ok(items)
}

macro_rules! fields {
    ($($(#[$doc:meta])* $field:ident = $name:literal, $max:expr $(, $plain:ident)?;)*) => {
        /// The bounded fields of requests: each names itself in errors.
        pub mod field {
            use super::*;
            $(
                $(#[$doc])*
                #[derive(Debug)]
                pub enum $field {}
                impl Field for $field {
                    const NAME: &'static str = $name;
                    const MAX: usize = $max;
                    $(const PLAIN: bool = fields!(@plain $plain);)?
                }
            )*
        }
    };
    (@plain plain) => { true };
}

/// The longest screen `pane.explain` reads.
pub const MAX_EXPLAIN_SCREEN: usize = 1024 * 1024;
/// The longest `pane.wait` text pattern.
pub const MAX_WAIT_PATTERN: usize = 4096;
/// The longest prompt `agent.prompt` types.
pub const MAX_PROMPT_BYTES: usize = 256 * 1024;

fields! {
    /// A workspace named by id or name.
    Workspace = "workspace", MAX_NAME_BYTES;
    /// A tab named by id or a unique id prefix.
    Tab = "tab", MAX_NAME_BYTES;
    /// A pane named by id or a unique id prefix.
    Pane = "pane", MAX_NAME_BYTES;
    /// The pane a new one splits.
    Split = "split", MAX_NAME_BYTES;
    /// A pane, tab or workspace.
    Target = "target", MAX_NAME_BYTES;
    /// The pane another trades places with.
    With = "with", MAX_NAME_BYTES;
    WorkspaceName = "the workspace name", MAX_NAME_BYTES;
    /// A working directory.
    Cwd = "the working directory (cwd)", MAX_PATH_BYTES;
    /// The program a server hands itself over to.
    Binary = "the binary", MAX_PATH_BYTES;
    WorktreeName = "the worktree name", MAX_NAME_BYTES;
    TabTitle = "the tab title", MAX_TITLE_BYTES, plain;
    PaneTitle = "the pane title", MAX_TITLE_BYTES, plain;
    /// A new name becomes a workspace's name or a tab's or pane's title:
    /// the tighter bound of the two, and no control characters.
    NewName = "the new name", MAX_NAME_BYTES, plain;
    Command = "the command", MAX_ARGV_BYTES;
    AgentArgs = "the agent's arguments", MAX_ARGV_BYTES;
    SessionId = "the session id", MAX_SESSION_ID_BYTES;
    HookEvent = "the hook event", MAX_WORD_BYTES;
    HookMessage = "the hook message", MAX_MESSAGE_BYTES;
    NotificationTitle = "the notification title", MAX_TITLE_BYTES;
    NotificationBody = "the notification body", MAX_MESSAGE_BYTES;
    SavedScreen = "the saved screen", MAX_EXPLAIN_SCREEN;
    ScreenTitle = "the title", MAX_TITLE_BYTES;
    KeyName = "a key name", MAX_WORD_BYTES;
    Prompt = "the prompt", MAX_PROMPT_BYTES;
    Pattern = "the --text pattern", MAX_WAIT_PATTERN;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_over_its_bound_is_refused_by_name_as_it_is_read() {
        let long = format!("\"{}\"", "n".repeat(MAX_NAME_BYTES + 1));
        let err = serde_json::from_str::<Text<field::WorkspaceName>>(&long).unwrap_err();
        assert!(
            err.to_string().contains("workspace name is 257 bytes"),
            "{err}"
        );
        let err = serde_json::from_str::<Text<field::PaneTitle>>("\"a\\u001b[2Jb\"").unwrap_err();
        assert!(err.to_string().contains("control characters"), "{err}");
        let ok: Text<field::Pane> = serde_json::from_str("\"ab12\"").unwrap();
        assert_eq!(&*ok, "ab12");
        let many = serde_json::to_string(&vec!["w"; MAX_ARGV_WORDS + 1]).unwrap();
        let err = serde_json::from_str::<Words<field::Command>>(&many).unwrap_err();
        assert!(err.to_string().contains("257 words"), "{err}");
    }
}
