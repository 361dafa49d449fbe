//! The dashboard's feed: the listing, fetched again whenever the server's
//! `subscribe` stream says something a listing shows changed (never on a
//! timer), and handed to every dashboard socket through a watch channel.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use signaltty_client::alert_rule::AlertRule;
use signaltty_client::client::{Client, ClientError, Endpoint};
use signaltty_protocol::{LsReply, PaneState, method, params};
use tokio::sync::{mpsc, watch};

use crate::listing::{Listing, NumberedAlert};

/// How many alerts a listing carries, for a page that missed a push.
const RECENT_ALERTS: usize = 20;

/// How long a client waits for one answer of the server.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// How long to wait before connecting again to a server that is not
/// there, at first and at most.
const RETRY_FIRST: Duration = Duration::from_millis(500);
const RETRY_MAX: Duration = Duration::from_secs(10);

/// What the server's stream said.
enum Change {
    /// Connected (again): everything may have changed.
    Connected,
    Changed,
    /// The stream ended or never began, and why.
    Lost(String),
}

/// Starts the feed; its receiver always holds the newest listing as JSON.
pub fn start(endpoint: Endpoint, read_only: bool) -> watch::Receiver<Arc<String>> {
    let first = render(&Listing::unavailable(
        "connecting to the signaltty server…".into(),
        read_only,
    ));
    let (publish, listings) = watch::channel(first);
    let (changes_tx, changes) = mpsc::channel(16);
    let follow_endpoint = endpoint.clone();
    std::thread::Builder::new()
        .name("web-subscribe".into())
        .spawn(move || follow(&follow_endpoint, &changes_tx))
        .ok();
    tokio::spawn(refresh(endpoint, read_only, changes, publish));
    listings
}

/// Follows the server's `subscribe` stream, connecting again when it
/// ends, for as long as the feed is wanted.
fn follow(endpoint: &Endpoint, changes: &mpsc::Sender<Change>) {
    let mut retry = RETRY_FIRST;
    loop {
        let lost = match subscribe(endpoint) {
            Ok(mut client) => {
                retry = RETRY_FIRST;
                if changes.blocking_send(Change::Connected).is_err() {
                    return;
                }
                loop {
                    match client.next_line() {
                        Ok(Some(_)) => {
                            if changes.blocking_send(Change::Changed).is_err() {
                                return;
                            }
                        }
                        Ok(None) => break "the signaltty server closed the connection".to_string(),
                        Err(e) => break e.to_string(),
                    }
                }
            }
            Err(e) => e.to_string(),
        };
        if changes.blocking_send(Change::Lost(lost)).is_err() {
            return;
        }
        std::thread::sleep(retry);
        retry = (retry * 2).min(RETRY_MAX);
    }
}

fn subscribe(endpoint: &Endpoint) -> Result<Client, ClientError> {
    let mut client = Client::connect(endpoint)?;
    client.set_timeout(REQUEST_TIMEOUT)?;
    client.request::<method::Subscribe>(params::Empty {})?;
    // The stream is quiet while nothing changes.
    client.set_timeout(Duration::from_secs(365 * 24 * 3600))?;
    Ok(client)
}

async fn refresh(
    endpoint: Endpoint,
    read_only: bool,
    mut changes: mpsc::Receiver<Change>,
    publish: watch::Sender<Arc<String>>,
) {
    let mut alerting = Alerting::default();
    while let Some(change) = changes.recv().await {
        let listing = match change {
            Change::Lost(why) => Listing::unavailable(why, read_only),
            Change::Connected | Change::Changed => {
                // A burst of changes needs one listing.
                while let Ok(change) = changes.try_recv() {
                    if let Change::Lost(why) = change {
                        publish.send_replace(render(&Listing::unavailable(why, read_only)));
                    }
                }
                let endpoint = endpoint.clone();
                match tokio::task::spawn_blocking(move || fetch(&endpoint, read_only)).await {
                    Ok(Ok((mut listing, ls))) => {
                        listing.alerts = alerting.after(ls);
                        listing
                    }
                    Ok(Err(e)) => Listing::unavailable(e.to_string(), read_only),
                    Err(e) => Listing::unavailable(e.to_string(), read_only),
                }
            }
        };
        publish.send_replace(render(&listing));
    }
}

/// The alerts of the listings so far: the multiplexer's rule, numbered.
#[derive(Default)]
struct Alerting {
    rule: AlertRule,
    before: Option<LsReply>,
    recent: VecDeque<NumberedAlert>,
    numbered: u64,
}

impl Alerting {
    /// Notes the alerts of `ls` (none for the first listing) and gives
    /// the latest [`RECENT_ALERTS`].
    fn after(&mut self, ls: LsReply) -> Vec<NumberedAlert> {
        if let Some(before) = &self.before {
            for alert in self.rule.decide(before, &ls, None, Instant::now()) {
                self.numbered += 1;
                if self.recent.len() == RECENT_ALERTS {
                    self.recent.pop_front();
                }
                self.recent.push_back(NumberedAlert {
                    number: self.numbered,
                    alert,
                });
            }
        }
        self.before = Some(ls);
        self.recent.iter().cloned().collect()
    }
}

/// `ls`, and the screen of every pane with a process.
fn fetch(endpoint: &Endpoint, read_only: bool) -> Result<(Listing, LsReply), ClientError> {
    let mut client = Client::connect(endpoint)?;
    client.set_timeout(REQUEST_TIMEOUT)?;
    let ls = client.request::<method::Ls>(params::Empty {})?;
    let mut screens = HashMap::new();
    for workspace in &ls.workspaces {
        for tab in &workspace.tabs {
            for pane in tab.panes.iter().filter(|p| p.state == PaneState::Live) {
                let read = params::PaneRead {
                    pane: pane.id.clone().into(),
                    ..params::PaneRead::default()
                };
                // A pane that closed in between just shows no lines.
                if let Ok(reply) = client.request::<method::PaneRead>(read) {
                    screens.insert(pane.id.clone(), reply.text);
                }
            }
        }
    }
    Ok((Listing::new(&ls, &screens, read_only), ls))
}

fn render(listing: &Listing) -> Arc<String> {
    Arc::new(serde_json::to_string(listing).unwrap_or_else(|e| {
        serde_json::json!({ "error": e.to_string(), "panes": [], "workspaces": [] }).to_string()
    }))
}
