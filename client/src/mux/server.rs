//! The multiplexer's side of the socket: requests on one connection, the
//! server's `changed` events on another, and where a session starts.
//! Every connection opens through `client::connect_stream`, so another
//! transport slots in there.

use std::sync::mpsc::Sender;

use anyhow::{Context, Result};
use signaltty_protocol::{Method, TabNewReply, method, params};

use super::Event;
use super::view::View;
use crate::client::{Client, ClientError, Endpoint};
use crate::reconnect::{ResumingStream, StreamItem, UpgradeWatch};

/// Requests, over one connection that is opened again if it breaks.
pub struct Server {
    endpoint: Endpoint,
    client: Option<Client>,
}

impl Server {
    pub fn new(endpoint: &Endpoint) -> Server {
        Server {
            endpoint: endpoint.clone(),
            client: None,
        }
    }

    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// Forgets the request connection; the next call opens a new one.
    pub fn disconnect(&mut self) {
        self.client = None;
    }

    /// One request; the error is one line for the status line. A dropped
    /// connection is opened again once.
    pub fn request<M: Method>(&mut self, params: M::Params) -> Result<M::Reply, String> {
        for attempt in 0..2 {
            let client = match self.client.as_mut() {
                Some(client) => client,
                None => self
                    .client
                    .insert(Client::connect(&self.endpoint).map_err(|e| e.to_string())?),
            };
            match client.request::<M>(params.clone()) {
                Ok(reply) => return Ok(reply),
                Err(crate::client::ClientError::Io(_)) if attempt == 0 => self.client = None,
                Err(e) => return Err(e.to_string()),
            }
        }
        Err("lost the connection to the server".into())
    }

    /// A new tab with a shell in `workspace`, starting in `cwd` (else the
    /// workspace's directory).
    pub fn shell_tab(
        &mut self,
        workspace: &str,
        cwd: Option<String>,
    ) -> Result<TabNewReply, String> {
        self.request::<method::TabNew>(params::TabNew {
            workspace: workspace.to_string().into(),
            title: None,
            cwd: cwd.map(Into::into),
            argv: Vec::new().into(),
        })
    }

    /// The listing and who needs the user.
    pub fn view(&mut self) -> Result<View, String> {
        let ls = self.request::<method::Ls>(params::Empty {})?;
        let needs_you = self
            .request::<method::Next>(params::Empty {})
            .ok()
            .and_then(|next| next.pane)
            .map(|pane| pane.id);
        Ok(View { ls, needs_you })
    }
}

/// A thread that turns the server's `changed` events into [`Event`]s.
/// When a local server upgrades itself, the stream is opened again and
/// [`Event::Upgraded`] says so; [`Event::ServerGone`] when the connection
/// ends otherwise, [`Event::Refused`] when a server of another protocol
/// version took over.
pub fn follow(endpoint: &Endpoint, events: Sender<Event>) -> Result<()> {
    let mut client = Client::connect(endpoint)?;
    let watch = UpgradeWatch::ask(endpoint, &mut client)?;
    let subscribe = method::Subscribe::call(params::Empty {});
    client.call(subscribe.clone())?;
    std::thread::Builder::new()
        .name("mux-events".into())
        .spawn(move || {
            // Whatever changed between the first listing and the
            // subscription is listed again.
            if events.send(Event::Changed).is_err() {
                return;
            }
            let mut stream = ResumingStream::new(&mut client, subscribe, watch);
            let last = loop {
                let event = match stream.next() {
                    Ok(Some(StreamItem::Line(_))) => Event::Changed,
                    Ok(Some(StreamItem::Resumed)) => Event::Upgraded,
                    Err(ClientError::Server(refusal)) => break Event::Refused(refusal),
                    Ok(None) | Err(_) => break Event::ServerGone,
                };
                if events.send(event).is_err() {
                    return;
                }
            };
            let _ = events.send(last);
        })?;
    Ok(())
}

/// The workspace a session opens on: `wanted` (by name or id, created if
/// there is none), else the one used last, else a new `default`. It gets
/// a shell if it has no tab. Returns its id.
pub fn open_workspace(server: &mut Server, wanted: Option<&str>) -> Result<String> {
    let view = server.view().map_err(anyhow::Error::msg)?;
    let found = match wanted {
        Some(name) => view
            .ls
            .workspaces
            .iter()
            .find(|w| w.name == name || w.id == name),
        None => view.last_used(),
    };
    let (id, has_tabs) = match found {
        Some(ws) => (ws.id.clone(), !ws.tabs.is_empty()),
        None => {
            let name = wanted.unwrap_or("default");
            let created = server
                .request::<method::WorkspaceNew>(params::WorkspaceNew::here(name))
                .map_err(anyhow::Error::msg)
                .with_context(|| format!("could not create workspace {name}"))?;
            (created.id, false)
        }
    };
    if !has_tabs {
        server
            .shell_tab(&id, None)
            .map_err(anyhow::Error::msg)
            .context("could not start a shell")?;
    }
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake_server::{DEADLINE, FakeServer, OTHER_VERSION, Then};
    use std::sync::mpsc::Receiver;

    /// What the events thread says, by name, up to its last word (or
    /// `upto` of them).
    fn names(inbox: &Receiver<Event>, upto: usize) -> Vec<String> {
        let mut names = Vec::new();
        while names.len() < upto {
            let event = inbox.recv_timeout(DEADLINE).expect("an event in time");
            let (name, last) = match event {
                Event::Changed => ("changed".to_string(), false),
                Event::Upgraded => ("upgraded".to_string(), false),
                Event::ServerGone => ("gone".to_string(), true),
                Event::Refused(refusal) => (format!("refused: {}", refusal.message), true),
                _ => ("other".to_string(), false),
            };
            names.push(name);
            if last {
                break;
            }
        }
        names
    }

    fn follow_across(then: Then) -> (Vec<String>, FakeServer) {
        let server = FakeServer::start();
        let (events, inbox) = std::sync::mpsc::channel();
        follow(&server.endpoint(), events).expect("subscribed");
        // The one sent on subscribing, then the fake server's first event.
        let mut seen = names(&inbox, 2);
        server.hand_over(then);
        seen.extend(names(&inbox, 2));
        (seen, server)
    }

    #[test]
    fn the_event_stream_comes_back_after_an_upgrade() {
        let (seen, server) = follow_across(Then::Upgraded);
        assert_eq!(seen, ["changed", "changed", "upgraded", "changed"]);
        server.wait_for_call("subscribe", true);
    }

    #[test]
    fn a_crash_is_the_server_gone() {
        let (seen, server) = follow_across(Then::Crashed);
        assert_eq!(seen, ["changed", "changed", "gone"]);
        assert!(
            !server
                .asked()
                .iter()
                .any(|a| a.after_handover && a.call.name() == "subscribe")
        );
    }

    #[test]
    fn another_version_is_its_refusal() {
        let (seen, _server) = follow_across(Then::OtherVersion);
        assert_eq!(
            seen,
            [
                "changed".to_string(),
                "changed".to_string(),
                format!("refused: {OTHER_VERSION}")
            ]
        );
    }
}
