//! The multiplexer's side of the socket: requests on one connection, the
//! server's `changed` events on another, and where a session starts.
//! Every connection opens through `client::connect_stream`, so another
//! transport slots in there.

use std::io::{BufRead, BufReader, Write};
use std::sync::mpsc::Sender;

use anyhow::{Context, Result};
use signaltty_protocol::{Method, Request, TabNewReply, method, params};

use super::Event;
use super::view::View;
use crate::client::{Client, Endpoint};

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

/// A thread that turns the server's `changed` events into [`Event`]s;
/// [`Event::ServerGone`] when the connection ends.
pub fn follow(endpoint: &Endpoint, events: Sender<Event>) -> Result<()> {
    let mut stream = crate::client::connect_stream(endpoint)?;
    let request = Request::new(1, method::Subscribe::call(params::Empty {}));
    let mut line = serde_json::to_vec(&request)?;
    line.push(b'\n');
    stream.write_all(&line)?;
    std::thread::Builder::new()
        .name("mux-events".into())
        .spawn(move || {
            // The first line is the reply; every later one an event.
            for line in BufReader::new(stream).lines() {
                if line.is_err() || events.send(Event::Changed).is_err() {
                    break;
                }
            }
            let _ = events.send(Event::ServerGone);
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
