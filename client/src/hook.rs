//! `signaltty ctl hook AGENT EVENT`: an agent's hook payload, read from
//! stdin and turned into a request.
//!
//! The payload is untrusted: at most [`MAX_PAYLOAD`] bytes, a JSON object
//! whose known fields must have the right types (a field of the wrong type
//! is an error, not ignored), unknown fields ignored. Only the session id,
//! a message (cut to what the server keeps) and the payload's `type` are
//! taken from it; the server's adapter decides which event it was (an
//! agent's data file may say its one hook names the event in `type`) and
//! what the event means.

use std::io::Read;

use anyhow::{Result, bail};
use serde::Deserialize;
use signaltty_protocol::{AgentKind, Named};
use signaltty_protocol::{limits, params};

/// The most a hook may send.
pub const MAX_PAYLOAD: usize = 1024 * 1024;

/// The fields the agents' hooks send that signaltty uses.
#[derive(Debug, Default, Deserialize)]
struct HookPayload {
    /// Claude Code, Gemini, Codex hooks.
    #[serde(default)]
    session_id: Option<String>,
    /// Copilot.
    #[serde(default, rename = "sessionId")]
    session_id_camel: Option<String>,
    /// Cursor.
    #[serde(default)]
    conversation_id: Option<String>,
    /// Codex's notify.
    #[serde(default, rename = "thread-id")]
    thread_id: Option<String>,
    /// The event, where one hook reports them all (Codex's notify).
    #[serde(default, rename = "type")]
    event_type: Option<String>,
    #[serde(default, rename = "last-assistant-message")]
    last_assistant_message: Option<String>,
    #[serde(default)]
    message: Option<String>,
}

/// Reads the payload and builds the `pane.hook` request.
pub fn request(
    agent: &str,
    event: &str,
    pane: &str,
    stdin: &mut impl Read,
) -> Result<params::PaneHook> {
    let mut bytes = Vec::new();
    stdin.take(MAX_PAYLOAD as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() > MAX_PAYLOAD {
        bail!("the hook payload is larger than {MAX_PAYLOAD} bytes; refused");
    }
    let payload: HookPayload = if bytes.iter().all(u8::is_ascii_whitespace) {
        HookPayload::default()
    } else {
        match serde_json::from_slice(&bytes) {
            Ok(payload) => payload,
            Err(e) => bail!("the hook payload is not the JSON object an agent hook sends: {e}"),
        }
    };
    Ok(params::PaneHook {
        pane: pane.to_string().into(),
        agent: AgentKind::from_word(agent).map_err(crate::client::ClientError::BadParams)?,
        event: event.to_string().into(),
        session_id: payload
            .session_id
            .or(payload.session_id_camel)
            .or(payload.conversation_id)
            .or(payload.thread_id)
            .map(Into::into),
        message: payload
            .message
            .or(payload.last_assistant_message)
            .map(|mut message| {
                // Codex sends the whole last answer; only its start is shown.
                limits::truncate_saved(&mut message, limits::MAX_MESSAGE_BYTES);
                message
            })
            .map(Into::into),
        payload_type: payload.event_type.map(Into::into),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claude_payload_gives_its_session_and_message() {
        let json = br#"{"session_id":"abc","transcript_path":"/x","hook_event_name":"Notification","message":"needs input","extra":{"a":1}}"#;
        let req = request("claude", "Notification", "p1", &mut &json[..]).unwrap();
        assert_eq!(req.session_id.as_deref(), Some("abc"));
        assert_eq!(req.message.as_deref(), Some("needs input"));
        assert_eq!(req.event, "Notification");
    }

    /// Which event a `type` names is the server's to say (codex's data
    /// file makes its `notify` report it); the hook only passes it on.
    #[test]
    fn a_codex_notify_payload_passes_its_type_on() {
        let json =
            br#"{"type":"agent-turn-complete","thread-id":"t1","last-assistant-message":"done"}"#;
        let req = request("codex", "notify", "p1", &mut &json[..]).unwrap();
        assert_eq!(req.event, "notify");
        assert_eq!(req.payload_type.as_deref(), Some("agent-turn-complete"));
        assert_eq!(req.session_id.as_deref(), Some("t1"));
        assert_eq!(req.message.as_deref(), Some("done"));
    }

    #[test]
    fn a_long_message_is_cut_to_what_the_server_keeps() {
        let json = format!(
            r#"{{"type":"agent-turn-complete","last-assistant-message":"{}"}}"#,
            "é".repeat(limits::MAX_MESSAGE_BYTES)
        );
        let req = request("codex", "notify", "p1", &mut json.as_bytes()).unwrap();
        let message = req.message.unwrap();
        assert_eq!(message.len(), limits::MAX_MESSAGE_BYTES);
        assert!(message.chars().all(|c| c == 'é'));
    }

    #[test]
    fn hostile_payloads_are_refused() {
        let wrong_type = br#"{"session_id": 42}"#;
        assert!(request("claude", "Stop", "p", &mut &wrong_type[..]).is_err());
        assert!(request("claude", "Stop", "p", &mut &b"[1,2]"[..]).is_err());
        let huge = vec![b' '; MAX_PAYLOAD + 10];
        let err = request("claude", "Stop", "p", &mut &huge[..])
            .unwrap_err()
            .to_string();
        assert!(err.contains("larger"), "{err}");
        // Empty is fine: some hooks send nothing.
        assert!(request("claude", "Stop", "p", &mut &b""[..]).is_ok());
    }
}
