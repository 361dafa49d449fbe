//! Telling a live upgrade from a crash, and carrying on after one.
//!
//! `signaltty upgrade` re-execs the server in place: the same pid, every
//! pane carried over, and every client connection closed by the exec. The
//! listening socket survives it, so a connect made during the handover
//! waits in its backlog and is answered by the new image. A client that
//! remembered who answered it (`status`: the pid and how many handovers it
//! has made) can then tell, when its connection drops, whether the same
//! server came back upgraded (same pid, more handovers: connect again and
//! carry on) or whether it is gone (another pid, or none: end as before).
//!
//! Only a local socket is watched. Through `--host` a drop also ends the
//! bridge and ssh, so coming back means a new ssh (which may ask for a
//! password) rather than a connect to a backlog: remote clients keep their
//! own way of reconnecting (the multiplexer asks; `attach` says to attach
//! again).

use std::io::ErrorKind;
use std::time::{Duration, Instant};

use signaltty_protocol::{Call, ErrorCode, Method, StatusReply, WireError, method, params};

use crate::client::{Client, ClientError, Endpoint};

/// How often a dropped client knocks on the socket again.
const RETRY_EVERY: Duration = Duration::from_millis(20);
/// How long it keeps knocking: longer than the 10 s a handover may take
/// before it gives up.
const PATIENCE: Duration = Duration::from_secs(12);

/// What tells one server process, and its handovers, from another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ServerIdentity {
    pid: u32,
    upgrades: u32,
}

impl From<&StatusReply> for ServerIdentity {
    fn from(status: &StatusReply) -> ServerIdentity {
        ServerIdentity {
            pid: status.pid,
            upgrades: status.upgrades,
        }
    }
}

/// What a client that lost its connection finds on the socket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AfterDrop {
    /// The same server, handed over to a new binary: connect again.
    Upgraded,
    /// Another server, the same one not upgraded, or none: what ended
    /// ended, as it did before upgrades existed.
    Gone,
    /// A server that speaks another protocol version: its refusal
    /// (`BAD_VERSION`), one line for the user.
    OtherVersion(WireError),
}

/// The server a local client talks to, remembered so that a dropped
/// connection can be told apart (see the module's doc).
#[derive(Debug, Clone)]
pub struct UpgradeWatch {
    endpoint: Endpoint,
    seen: ServerIdentity,
    patience: Duration,
}

impl UpgradeWatch {
    /// Asks the server at `endpoint` who it is, on a connection of its
    /// own; `None` for a remote one (never watched).
    pub fn start(endpoint: &Endpoint) -> Result<Option<UpgradeWatch>, ClientError> {
        match endpoint {
            Endpoint::Local(_) => UpgradeWatch::ask(endpoint, &mut Client::connect(endpoint)?),
            Endpoint::Remote(_) => Ok(None),
        }
    }

    /// [`UpgradeWatch::start`] with one `status` on `client`, a connection
    /// to `endpoint` the caller goes on using.
    pub fn ask(
        endpoint: &Endpoint,
        client: &mut Client,
    ) -> Result<Option<UpgradeWatch>, ClientError> {
        if let Endpoint::Remote(_) = endpoint {
            return Ok(None);
        }
        let status = client.request::<method::Status>(params::Empty {})?;
        Ok(Some(UpgradeWatch {
            endpoint: endpoint.clone(),
            seen: ServerIdentity::from(&status),
            patience: PATIENCE,
        }))
    }

    /// Gives up after `patience` rather than [`PATIENCE`]: a test's server
    /// that is gone for good must not cost it 12 s.
    #[cfg(test)]
    pub fn with_patience(mut self, patience: Duration) -> UpgradeWatch {
        self.patience = patience;
        self
    }

    /// After the connection dropped: knocks on the socket until a server
    /// answers `status` or the patience runs out, and says what it found.
    /// On an upgrade, the new count is remembered for the next one.
    pub fn after_drop(&mut self) -> AfterDrop {
        let deadline = Instant::now() + self.patience;
        loop {
            match self.status_before(deadline) {
                Ok(now) if now.pid == self.seen.pid && now.upgrades > self.seen.upgrades => {
                    self.seen = now;
                    return AfterDrop::Upgraded;
                }
                Ok(_) => return AfterDrop::Gone,
                Err(ClientError::Server(refusal)) if refusal.code == ErrorCode::BadVersion => {
                    return AfterDrop::OtherVersion(refusal);
                }
                // No one listens: an upgrade keeps the listening socket
                // (a connect waits in its backlog), so this is a crash, and
                // it ends at once, as it did before upgrades existed.
                Err(ClientError::NotRunning(_)) => return AfterDrop::Gone,
                // Nothing will change by asking again: not ours to talk to.
                Err(ClientError::ForeignServer { .. } | ClientError::UnsafeDir(_)) => {
                    return AfterDrop::Gone;
                }
                // A connection the old image dropped, a new image not
                // ready: knock again.
                Err(_) => {}
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return AfterDrop::Gone;
            }
            std::thread::sleep(RETRY_EVERY.min(left));
        }
    }

    /// Who answers `status` on a new connection, waiting no later than
    /// `deadline` (a connect during the handover waits in the backlog).
    fn status_before(&self, deadline: Instant) -> Result<ServerIdentity, ClientError> {
        let mut client = Client::connect(&self.endpoint)?;
        let left = deadline.saturating_duration_since(Instant::now());
        // A zero timeout would mean none at all.
        client.set_timeout(left.max(Duration::from_millis(1)))?;
        let status = client.request::<method::Status>(params::Empty {})?;
        Ok(ServerIdentity::from(&status))
    }

    /// What the watch makes of a request that failed with `error`: on an
    /// upgrade, `Ok` (send it again, on a new connection); otherwise the
    /// error to report (the same one, unless another version answered).
    fn after_error(&mut self, error: ClientError) -> Result<(), ClientError> {
        if !is_dropped(&error) {
            return Err(error);
        }
        match self.after_drop() {
            AfterDrop::Upgraded => Ok(()),
            AfterDrop::Gone => Err(error),
            AfterDrop::OtherVersion(refusal) => Err(ClientError::Server(refusal)),
        }
    }
}

/// Whether `error` is the connection ending under the client (an end of
/// file, a reset), which an upgrade causes, rather than anything else.
pub fn is_dropped(error: &ClientError) -> bool {
    let ClientError::Io(io) = error else {
        return false;
    };
    matches!(
        io.kind(),
        ErrorKind::UnexpectedEof
            | ErrorKind::ConnectionReset
            | ErrorKind::ConnectionAborted
            | ErrorKind::BrokenPipe
    )
}

/// Calls `M` on `client` and, when an upgrade closed the connection before
/// the reply came, calls it again on a new connection (which then replaces
/// `client`): for the long requests (`pane.wait`, `agent.wait`). `params`
/// is asked again for each call, so that a timeout can shrink by the time
/// already waited. Without a watch (a remote server), one call as before.
pub fn request_across_upgrades<M: Method>(
    client: &mut Client,
    mut watch: Option<&mut UpgradeWatch>,
    mut params: impl FnMut() -> M::Params,
) -> Result<M::Reply, ClientError> {
    loop {
        let error = match client.request::<M>(params()) {
            Ok(reply) => return Ok(reply),
            Err(error) => error,
        };
        let Some(watch) = watch.as_deref_mut() else {
            return Err(error);
        };
        watch.after_error(error)?;
        *client = Client::connect(&watch.endpoint)?;
    }
}

/// What a stream that survives upgrades yields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamItem {
    /// A line the server sent unasked, without its newline.
    Line(String),
    /// The server was upgraded and the stream opened again: what happened
    /// in between was not seen.
    Resumed,
}

/// The lines of a stream that `call` (`subscribe`, `events`) started on
/// `client`, opened again with the same call after an upgrade.
pub struct ResumingStream<'a> {
    client: &'a mut Client,
    call: Call,
    watch: Option<UpgradeWatch>,
}

impl<'a> ResumingStream<'a> {
    /// Follows the stream `call` already started on `client`; `watch`
    /// (`None`: a remote server) decides what a drop means.
    pub fn new(client: &'a mut Client, call: Call, watch: Option<UpgradeWatch>) -> Self {
        ResumingStream {
            client,
            call,
            watch,
        }
    }

    /// The next line, or [`StreamItem::Resumed`] once the stream is back
    /// after an upgrade; `None` when the server ended the stream and is
    /// not coming back, the error when the connection broke and it is not.
    pub fn next(&mut self) -> Result<Option<StreamItem>, ClientError> {
        // `None`: an end of file, which a stream has no error for.
        let dropped = match self.client.next_line() {
            Ok(Some(line)) => return Ok(Some(StreamItem::Line(line))),
            Ok(None) => None,
            Err(error) if is_dropped(&error) => Some(error),
            Err(error) => return Err(error),
        };
        let as_it_was = || dropped.map_or(Ok(None), Err);
        let Some(watch) = self.watch.as_mut() else {
            return as_it_was();
        };
        match watch.after_drop() {
            AfterDrop::Upgraded => {}
            AfterDrop::Gone => return as_it_was(),
            AfterDrop::OtherVersion(refusal) => return Err(ClientError::Server(refusal)),
        }
        let mut client = Client::connect(&watch.endpoint)?;
        client.call(self.call.clone())?;
        *self.client = client;
        Ok(Some(StreamItem::Resumed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake_server::{self, FakeServer, OTHER_VERSION, Then, within};

    /// Short enough for a server that vanished, long enough for one that
    /// answers.
    const TEST_PATIENCE: Duration = Duration::from_millis(300);

    fn watch(server: &FakeServer) -> UpgradeWatch {
        UpgradeWatch::start(&server.endpoint())
            .expect("status")
            .expect("a local server is watched")
            .with_patience(TEST_PATIENCE)
    }

    fn after_drop(server: &FakeServer, then: Then) -> AfterDrop {
        let mut watch = watch(server);
        server.hand_over(then);
        within(move || watch.after_drop())
    }

    #[test]
    fn the_same_pid_with_one_more_upgrade_is_an_upgrade() {
        let server = FakeServer::start();
        assert_eq!(after_drop(&server, Then::Upgraded), AfterDrop::Upgraded);
    }

    #[test]
    fn another_pid_is_gone() {
        let server = FakeServer::start();
        assert_eq!(after_drop(&server, Then::Crashed), AfterDrop::Gone);
    }

    #[test]
    fn no_one_listening_is_gone_at_once() {
        let server = FakeServer::start();
        let mut watch = watch(&server).with_patience(fake_server::DEADLINE);
        server.hand_over(Then::Vanished);
        let started = Instant::now();
        assert_eq!(within(move || watch.after_drop()), AfterDrop::Gone);
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "it waited for no one"
        );
    }

    #[test]
    fn a_drop_without_an_upgrade_is_gone_at_once() {
        let server = FakeServer::start();
        let mut watch = watch(&server).with_patience(fake_server::DEADLINE);
        let started = Instant::now();
        assert_eq!(within(move || watch.after_drop()), AfterDrop::Gone);
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "it waited for nothing"
        );
    }

    #[test]
    fn another_protocol_version_is_its_refusal() {
        let server = FakeServer::start();
        match after_drop(&server, Then::OtherVersion) {
            AfterDrop::OtherVersion(refusal) => assert_eq!(refusal.message, OTHER_VERSION),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_remote_server_is_not_watched() {
        let remote = crate::remote::Remote::new("box", None, None, None).expect("a destination");
        assert!(matches!(
            UpgradeWatch::start(&Endpoint::Remote(remote)),
            Ok(None)
        ));
    }

    fn pane_wait() -> params::PaneWait {
        params::PaneWait {
            pane: "p1".to_string().into(),
            exit: true,
            ..Default::default()
        }
    }

    /// `pane.wait` sent, the server handed over `then` while it waited:
    /// what the client got, and every request the server saw.
    fn wait_across(then: Then) -> (Result<String, ClientError>, Vec<fake_server::Asked>) {
        let server = FakeServer::start();
        let endpoint = server.endpoint();
        let waiting = std::thread::spawn(move || {
            let mut client = Client::connect(&endpoint)?;
            let mut watch = UpgradeWatch::ask(&endpoint, &mut client)?
                .map(|watch| watch.with_patience(TEST_PATIENCE));
            request_across_upgrades::<method::PaneWait>(&mut client, watch.as_mut(), pane_wait)
                .map(|waited| waited.met)
        });
        server.wait_for_call("pane.wait", false);
        server.hand_over(then);
        let got = within(move || waiting.join().expect("no panic"));
        if then == Then::Upgraded {
            // Logged just after its answer, which the client may beat.
            server.wait_for_call("pane.wait", true);
        }
        (got, server.asked())
    }

    #[test]
    fn a_wait_cut_by_an_upgrade_is_sent_again() {
        let (got, asked) = wait_across(Then::Upgraded);
        assert_eq!(got.expect("the reply after the upgrade"), "exit");
        let again = asked
            .iter()
            .filter(|a| a.after_handover && a.call.name() == "pane.wait")
            .count();
        assert_eq!(again, 1, "{asked:?}");
    }

    #[test]
    fn a_wait_cut_by_a_crash_fails_as_before() {
        let (got, asked) = wait_across(Then::Crashed);
        match got {
            Err(error) => assert!(is_dropped(&error), "{error}"),
            Ok(met) => panic!("a reply from another server: {met}"),
        }
        assert!(
            !asked
                .iter()
                .any(|a| a.after_handover && a.call.name() == "pane.wait"),
            "{asked:?}"
        );
    }

    #[test]
    fn a_wait_cut_by_another_version_says_so() {
        let (got, _) = wait_across(Then::OtherVersion);
        match got {
            Err(ClientError::Server(refusal)) => {
                assert_eq!(refusal.code, ErrorCode::BadVersion);
                assert_eq!(refusal.message, OTHER_VERSION);
            }
            other => panic!("{other:?}"),
        }
    }

    /// An `events` stream's items until it ends, the server handing over
    /// `then` after its first line.
    fn events_across(then: Then) -> (Vec<StreamItem>, Result<(), ClientError>) {
        let server = FakeServer::start();
        let endpoint = server.endpoint();
        let call = method::Events::call(params::Events::default());
        let (items, next) = std::sync::mpsc::channel();
        let following = std::thread::spawn(move || -> Result<(), ClientError> {
            let mut client = Client::connect(&endpoint)?;
            let watch = UpgradeWatch::ask(&endpoint, &mut client)?
                .map(|watch| watch.with_patience(TEST_PATIENCE));
            client.call(call.clone())?;
            let mut stream = ResumingStream::new(&mut client, call, watch);
            while let Some(item) = stream.next()? {
                let resumed = item == StreamItem::Resumed;
                let _ = items.send(item);
                if resumed {
                    // Its line after the upgrade, then done.
                    if let Some(item) = stream.next()? {
                        let _ = items.send(item);
                    }
                    return Ok(());
                }
            }
            Ok(())
        });
        let first = next
            .recv_timeout(fake_server::DEADLINE)
            .expect("a first line");
        server.hand_over(then);
        let ended = within(move || following.join().expect("no panic"));
        (
            std::iter::once(first).chain(next.try_iter()).collect(),
            ended,
        )
    }

    #[test]
    fn an_event_stream_resumes_after_an_upgrade() {
        let (items, ended) = events_across(Then::Upgraded);
        ended.expect("no error");
        assert_eq!(
            items,
            [
                StreamItem::Line("{\"line\":0}".into()),
                StreamItem::Resumed,
                StreamItem::Line("{\"line\":1}".into()),
            ]
        );
    }

    #[test]
    fn an_event_stream_ends_after_a_crash() {
        let (items, ended) = events_across(Then::Crashed);
        ended.expect("an end, as before");
        assert_eq!(items, [StreamItem::Line("{\"line\":0}".into())]);
    }
}
