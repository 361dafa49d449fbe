//! The IPC protocol, shared by the server and every client.
//!
//! This crate owns the wire types and their framing, and where a client
//! finds the server's socket. Clients link this crate and nothing of the
//! server stack; it must never depend on actors, tokio or PTYs.
//!
//! Framing: newline-delimited JSON over a Unix socket, one request or
//! response per line, at most [`MAX_LINE`] bytes. A request is
//! `{"v":"signaltty/2","id":N,"method":"…","params":{…}}`; its response
//! carries the same `id` and either `result` or `error` with a stable
//! [`ErrorCode`]. Unknown fields are ignored (a newer client may send
//! more); a field that is present with the wrong type is `BAD_PARAMS`.
//!
//! Each method's parameters are a struct in [`params`]; the doc of each
//! says what the result holds, and [`limits`] bounds its strings.
//!
//! `pane.attach` is the one method that changes the connection: after its
//! JSON reply, both directions carry binary [`frame`]s until either side
//! closes.

pub mod config_path;
mod envelope;
mod events;
pub mod frame;
pub mod limits;
mod methods;
mod names;
pub mod params;
mod replies;
pub mod schema;
pub mod socket_path;
pub mod text;

pub use envelope::{ErrorCode, Request, Response, WireError, version_error};
pub use events::{Event, EventLine, EventsDropped, PaneChange, PaneEvent};
pub use methods::{Call, Method, method};
pub use replies::*;

/// The record types the wire carries, named here so clients need no other
/// crate to read them.
pub use names::{Named, Signal};
pub use signaltty_types::{
    AgentKind, Attention, Branch, Direction, Layout, Lifecycle, NewlineKey, NotificationRecord,
    PaneState, Severity, SleepAfter,
};

/// The protocol version every envelope carries.
/// It changes when the methods or their types change incompatibly; a
/// client and a server of different versions refuse each other with
/// `BAD_VERSION`, saying both.
pub const PROTOCOL: &str = "signaltty/2";
/// The longest line either side accepts.
pub const MAX_LINE: usize = 16 * 1024 * 1024;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelopes_round_trip() {
        let request = Request::new(
            7,
            method::PaneSend::call(params::PaneSend {
                pane: "ab".into(),
                text: "hi".into(),
                enter: true,
            }),
        );
        let line = serde_json::to_vec(&request).unwrap();
        let back = Request::parse(&line).unwrap();
        assert_eq!(back.id, 7);
        assert!(matches!(back.call, Call::PaneSend(send) if send.enter));
        let old = br#"{"v":"signaltty/1","id":3,"method":"status","params":{}}"#;
        let refused = Request::parse(old).unwrap_err();
        let error = refused.error.unwrap();
        assert_eq!((refused.id, error.code), (Some(3), ErrorCode::BadVersion));
        assert!(error.message.contains("signaltty/1") && error.message.contains(PROTOCOL));

        let response = Response::err(Some(7), WireError::new(ErrorCode::NoSuchPane, "no pane ab"));
        let line = serde_json::to_string(&response).unwrap();
        assert!(line.contains("\"NO_SUCH_PANE\""), "{line}");
        let back: Response = serde_json::from_str(&line).unwrap();
        assert_eq!(back.error.unwrap().code, ErrorCode::NoSuchPane);
    }

    #[test]
    fn unknown_fields_are_ignored_and_mistyped_ones_refused() {
        let ok: params::PaneSend =
            serde_json::from_str(r#"{"pane":"a","text":"b","from_the_future":1}"#).unwrap();
        assert_eq!(ok.pane.as_str(), "a");
        assert!(
            serde_json::from_str::<params::PaneSend>(r#"{"pane":"a","text":"b","enter":"yes"}"#)
                .is_err()
        );
    }

    #[test]
    fn fields_an_older_peer_leaves_out_take_their_defaults() {
        let attach: params::PaneAttach = serde_json::from_str(r#"{"pane":"p"}"#).unwrap();
        assert_eq!(attach.catch_up, CatchUp::Exact);
        let reply: AttachReply =
            serde_json::from_str(r#"{"pane":"p","state":"LIVE","offset":0,"rows":2,"cols":2}"#)
                .unwrap();
        assert!(reply.revive.is_none());
        assert_eq!(reply.state, PaneState::Live);
        let ws: LsWorkspace = serde_json::from_str(
            r#"{"id":"w","name":"n","cwd":"/","auto_resume":false,"attention":"none","tabs":[]}"#,
        )
        .unwrap();
        assert_eq!((ws.active_tab, ws.last_used_at), (None, 0));
        assert!(ws.worktree.is_none());
        let pane: LsPane = serde_json::from_str(
            r#"{"id":"p","title":"t","cwd":"/","argv":[],"state":"LIVE","agent":null,
                "lifecycle":"unknown","attention":"none","exit_code":null}"#,
        )
        .unwrap();
        assert!(pane.worktree.is_none());
        assert_eq!(pane.state, PaneState::Live);
        let close: params::PaneClose = serde_json::from_str(r#"{"pane":"p"}"#).unwrap();
        assert!(!close.remove_worktree && !close.force);
        let new: params::PaneNew = serde_json::from_str(r#"{"workspace":"w"}"#).unwrap();
        assert!(new.worktree.is_none());
        let closed: ClosedReply = serde_json::from_str("{}").unwrap();
        assert!(closed.worktrees.is_empty());
    }

    #[test]
    fn the_revive_offer_and_the_new_requests_round_trip() {
        let frame = StateFrame {
            state: PaneState::Exited,
            exit_code: Some(0),
            revive: Some(Revive {
                action: ReviveAction::Resume,
                argv: vec!["claude".into(), "--resume".into(), "x".into()],
                dropped: Vec::new(),
            }),
            shift_enter_as: Some(NewlineKey::AltEnter),
        };
        let text = serde_json::to_string(&frame).unwrap();
        assert!(text.contains(r#""shift_enter_as":"alt+enter""#), "{text}");
        assert!(text.contains(r#""action":"resume""#), "{text}");
        assert!(text.contains(r#""state":"EXITED""#), "{text}");
        assert!(!text.contains("dropped"), "{text}");
        let back: StateFrame = serde_json::from_str(&text).unwrap();
        assert_eq!(back.shift_enter_as, Some(NewlineKey::AltEnter));
        let mut revive = back.revive.unwrap();
        assert_eq!(revive.describe(), "resume: claude --resume x");
        revive.dropped = vec!["--print".into(), "fix it".into()];
        assert_eq!(
            revive.describe(),
            r#"resume: claude --resume x (drops: --print "fix it")"#
        );
        assert!(matches!(revive.action.call("p".into()), Call::PaneResume(p) if p.pane == "p"));
        let ratio: params::SplitRatio =
            serde_json::from_str(r#"{"tab":"t","path":["second","first"],"ratio":0.3}"#).unwrap();
        assert_eq!(ratio.path, vec![Branch::Second, Branch::First]);
        let rename: params::Rename =
            serde_json::from_str(r#"{"target":"t","kind":"workspace","name":"n"}"#).unwrap();
        assert_eq!(rename.kind, Some(params::TargetKind::Workspace));
        assert!(
            serde_json::from_str::<params::Focus>(r#"{"target":"t","kind":"window"}"#).is_err()
        );
        assert_eq!(
            frame::parse_resize(&frame::size(3, 4)[frame::HEADER..]),
            Some((3, 4))
        );
    }

    #[test]
    fn an_unknown_error_code_still_parses() {
        let e: WireError =
            serde_json::from_str(r#"{"code":"SOMETHING_NEW","message":"m"}"#).unwrap();
        assert_eq!(e.code, ErrorCode::Unknown);
    }
}
