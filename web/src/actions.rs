//! What a page may ask of a pane, as one typed [`Action`]: keys, a
//! dialog's choice, a prompt, a resume or a respawn. The dashboard posts
//! them to `/api/pane/ID`; an attached pane's page sends them on its
//! socket; both end here, each as the one protocol request `ctl` would
//! make, so the web app can do nothing the socket does not allow.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use signaltty_client::client::{Client, ClientError, Endpoint};
use signaltty_protocol::{ErrorCode, Method, method, params};

use crate::dialog::Dialog;

/// How long one request may wait for the server (a prompt to an agent
/// that is starting waits for its prompt box).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// The most keys one action presses.
pub const MAX_KEYS: usize = 64;

/// What the page asked.
#[derive(Debug, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Keys by name (`esc`, `ctrl+c`, `shift+enter`), encoded as the
    /// pane's program asked.
    Keys {
        keys: Vec<String>,
    },
    /// The dialog's choice `number`, if the dialog still offers it under
    /// `label` (it may have changed since the page drew it).
    Choose {
        number: u8,
        label: String,
    },
    /// `agent prompt`, or `agent prompt --queue`.
    Prompt {
        text: String,
        #[serde(default)]
        queue: bool,
    },
    Resume,
    Respawn,
}

/// What came of it, as the page shows it.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct Outcome {
    pub ok: bool,
    pub message: String,
    /// The server's error code (`BUSY`, `BLOCKED`, …) when it refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<ErrorCode>,
}

impl Outcome {
    fn done(message: impl Into<String>) -> Outcome {
        Outcome {
            ok: true,
            message: message.into(),
            code: None,
        }
    }

    pub fn refused(message: impl Into<String>) -> Outcome {
        Outcome {
            ok: false,
            message: message.into(),
            code: None,
        }
    }

    fn from_error(error: ClientError) -> Outcome {
        let code = match &error {
            ClientError::Server(wire) => Some(wire.code),
            _ => None,
        };
        Outcome {
            ok: false,
            message: error.to_string(),
            code,
        }
    }
}

/// Does `action` on `pane`. Blocking: run it off the async workers.
pub fn run(endpoint: &Endpoint, pane: &str, action: Action) -> Outcome {
    match perform(endpoint, pane, action) {
        Ok(outcome) => outcome,
        Err(error) => Outcome::from_error(error),
    }
}

fn perform(endpoint: &Endpoint, pane: &str, action: Action) -> Result<Outcome, ClientError> {
    let mut client = Client::connect(endpoint)?;
    client.set_timeout(REQUEST_TIMEOUT)?;
    Ok(match action {
        Action::Keys { keys } => {
            if keys.is_empty() || keys.len() > MAX_KEYS {
                return Ok(Outcome::refused(format!(
                    "send between 1 and {MAX_KEYS} keys"
                )));
            }
            press(&mut client, pane, keys)?;
            Outcome::done("sent")
        }
        Action::Choose { number, label } => choose(&mut client, pane, number, &label)?,
        Action::Prompt { text, queue } => {
            let reply = client.request::<method::AgentPrompt>(params::AgentPrompt {
                pane: pane.into(),
                text: text.into(),
                queue,
            })?;
            match reply.position {
                Some(at) => Outcome::done(format!("{} (number {at} in the queue)", reply.prompt)),
                None => Outcome::done(reply.prompt),
            }
        }
        Action::Resume => {
            client.request::<method::PaneResume>(params::Pane { pane: pane.into() })?;
            Outcome::done("resumed")
        }
        Action::Respawn => {
            client.request::<method::PaneRespawn>(params::Pane { pane: pane.into() })?;
            Outcome::done("respawned")
        }
    })
}

fn press(client: &mut Client, pane: &str, keys: Vec<String>) -> Result<(), ClientError> {
    client.request::<method::PaneSendKeys>(params::PaneSendKeys {
        pane: pane.into(),
        keys: keys.into_iter().map(Into::into).collect(),
    })?;
    Ok(())
}

/// Picks a choice of the dialog on the screen now, if it is still the
/// one the page showed: an answer meant for one question never goes to
/// another.
fn choose(
    client: &mut Client,
    pane: &str,
    number: u8,
    label: &str,
) -> Result<Outcome, ClientError> {
    let screen = client.request::<method::PaneRead>(params::PaneRead {
        pane: pane.into(),
        ..params::PaneRead::default()
    })?;
    let Some(dialog) = Dialog::read(&screen.text) else {
        return Ok(Outcome::refused(
            "the dialog is gone from the pane's screen; nothing was pressed",
        ));
    };
    match dialog.choice(number) {
        Some(choice) if choice.label == label => {
            press(client, pane, dialog.keys_for(number))?;
            Ok(Outcome::done(format!("chose {number}. {label}")))
        }
        _ => Ok(Outcome::refused(
            "the dialog changed since the page showed it; nothing was pressed",
        )),
    }
}

/// One request on a connection of its own.
pub fn request<M: Method>(endpoint: &Endpoint, params: M::Params) -> Result<M::Reply, ClientError> {
    let mut client = Client::connect(endpoint)?;
    client.set_timeout(REQUEST_TIMEOUT)?;
    client.request::<M>(params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_names_its_action_and_nothing_else() {
        let parse = |text: &str| serde_json::from_str::<Action>(text);
        assert!(matches!(
            parse(r#"{"action":"prompt","text":"hi"}"#),
            Ok(Action::Prompt { queue: false, .. })
        ));
        assert!(matches!(
            parse(r#"{"action":"choose","number":2,"label":"No"}"#),
            Ok(Action::Choose { number: 2, .. })
        ));
        assert!(matches!(
            parse(r#"{"action":"resume"}"#),
            Ok(Action::Resume)
        ));
        assert!(parse(r#"{"action":"shutdown"}"#).is_err());
        assert!(parse(r#"{"action":"keys","keys":["esc"],"extra":1}"#).is_err());
        assert!(parse(r#"{"keys":["esc"]}"#).is_err());
    }
}
