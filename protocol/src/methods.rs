//! The table of contents of the protocol: every method, what it takes and
//! what it answers, in one list.
//!
//! From the list come the [`Call`] enum (a request's method and typed
//! parameters: the server matches on it, exhaustively), a marker type per
//! method in [`method`] implementing [`Method`] (so a client's request and
//! its reply type go together: `client.request::<method::Ls>(…)` answers
//! an [`LsReply`](crate::LsReply)), and the schema's table.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::{ErrorCode, PROTOCOL, WireError};

/// A method of the protocol.
pub trait Method {
    /// Its name on the wire.
    const NAME: &'static str;
    type Params: Clone + Serialize + DeserializeOwned + JsonSchema;
    type Reply: Serialize + DeserializeOwned + JsonSchema;
    /// The request that calls it with `params`.
    fn call(params: Self::Params) -> Call;
}

macro_rules! methods {
    ($(
        $(#[$doc:meta])*
        $marker:ident = $name:literal, $params:ty => $reply:ty
            $(, then $then:literal)? $(, if $cfg:meta)?;
    )*) => {
        /// One marker type per method (see [`Method`]).
        pub mod method {
            use super::{Call, Method};
            $(
                $(#[$doc])*
                $(#[cfg($cfg)])?
                pub struct $marker;

                $(#[cfg($cfg)])?
                impl Method for $marker {
                    const NAME: &'static str = $name;
                    type Params = $params;
                    type Reply = $reply;
                    fn call(params: $params) -> Call {
                        Call::$marker(params)
                    }
                }
            )*
        }

        /// A request's method and its parameters, as they travel:
        /// `"method": "…", "params": {…}`.
        #[derive(Debug, Clone, Serialize, Deserialize)]
        #[serde(tag = "method", content = "params")]
        pub enum Call {
            $(
                $(#[$doc])*
                $(#[cfg($cfg)])?
                #[serde(rename = $name)]
                $marker($params),
            )*
        }

        impl Call {
            /// Every method's name, in the table's order.
            pub const NAMES: &'static [&'static str] = &[$($(#[cfg($cfg)])? $name),*];

            pub fn name(&self) -> &'static str {
                match self {
                    $($(#[cfg($cfg)])? Call::$marker(_) => $name,)*
                }
            }
        }

        /// The schema's table: each method with its parameters and reply.
        pub(crate) const TABLE: &[crate::schema::MethodSchema] = &[$(
            $(#[cfg($cfg)])?
            crate::schema::MethodSchema {
                name: $name,
                params: schemars::SchemaGenerator::subschema_for::<$params>,
                reply: schemars::SchemaGenerator::subschema_for::<$reply>,
                then: methods!(@then $($then)?),
            },
        )*];
    };
    (@then $then:literal) => { Some($then) };
    (@then) => { None };
}

methods! {
    /// The server's health.
    Status = "status", crate::params::Empty => crate::StatusReply;
    /// Workspaces, tabs and panes.
    Ls = "ls", crate::params::Empty => crate::LsReply;
    WorkspaceNew = "workspace.new", crate::params::WorkspaceNew => crate::IdReply;
    WorkspaceSet = "workspace.set", crate::params::WorkspaceSet => crate::Done;
    WorkspaceClose = "workspace.close", crate::params::Workspace => crate::ClosedReply;
    TabNew = "tab.new", crate::params::TabNew => crate::TabNewReply;
    TabClose = "tab.close", crate::params::Tab => crate::Done;
    PaneNew = "pane.new", crate::params::PaneNew => crate::IdReply;
    PaneSend = "pane.send", crate::params::PaneSend => crate::Done;
    PaneRead = "pane.read", crate::params::PaneRead => crate::ReadReply;
    PaneClose = "pane.close", crate::params::PaneClose => crate::ClosedReply;
    PaneKill = "pane.kill", crate::params::PaneKill => crate::Done;
    PaneResize = "pane.resize", crate::params::PaneResize => crate::ResizeReply;
    PaneResume = "pane.resume", crate::params::Pane => crate::Done;
    PaneRespawn = "pane.respawn", crate::params::Pane => crate::Done;
    /// Puts an idle agent to sleep; answered once its process has ended.
    PaneHibernate = "pane.hibernate", crate::params::Pane => crate::Done;
    /// Wakes a hibernated agent; answered once it is up.
    PaneWake = "pane.wake", crate::params::Pane => crate::Done;
    /// Keeps a pane awake (`pinned`), or lets it sleep again.
    PanePin = "pane.pin", crate::params::PanePin => crate::Done;
    PaneReportSession = "pane.report_session", crate::params::ReportSession => crate::Done;
    /// After its reply, both directions carry binary frames.
    PaneAttach = "pane.attach", crate::params::PaneAttach => crate::AttachReply, then "binary frames";
    /// After its reply, an `Event` line whenever a listing would change.
    Subscribe = "subscribe", crate::params::Empty => crate::Done, then "Event";
    Notify = "notify", crate::params::Notify => crate::Done;
    Notifications = "notifications", crate::params::Notifications => crate::NotificationsReply;
    Next = "next", crate::params::Empty => crate::NextReply;
    PaneSeen = "pane.seen", crate::params::Pane => crate::Done;
    PaneHook = "pane.hook", crate::params::PaneHook => crate::Done;
    Shutdown = "shutdown", crate::params::Empty => crate::Done;
    Upgrade = "upgrade", crate::params::Upgrade => crate::UpgradeReply;
    /// Fault injection: the target's actor panics. Only in debug builds
    /// (and with the `fault-injection` feature), and only on a server
    /// started with faults enabled.
    DebugPanic = "debug.panic", crate::params::DebugPanic => crate::Done,
        if any(debug_assertions, feature = "fault-injection");
    Rename = "rename", crate::params::Rename => crate::RenameReply;
    Focus = "focus", crate::params::Focus => crate::Done;
    TabSplitRatio = "tab.split_ratio", crate::params::SplitRatio => crate::RatioReply;
    PaneSwap = "pane.swap", crate::params::PaneSwap => crate::SwapReply;
    PaneBreak = "pane.break", crate::params::PaneBreak => crate::BreakReply;
    PaneMove = "pane.move", crate::params::PaneMove => crate::MoveReply;
    PaneExplain = "pane.explain", crate::params::PaneExplain => crate::ExplainReply;
    PaneWait = "pane.wait", crate::params::PaneWait => crate::WaitReply;
    PaneSendKeys = "pane.send_keys", crate::params::PaneSendKeys => crate::Done;
    AgentStart = "agent.start", crate::params::AgentStart => crate::AgentStartReply;
    AgentPrompt = "agent.prompt", crate::params::AgentPrompt => crate::PromptReply;
    AgentWait = "agent.wait", crate::params::AgentWait => crate::WaitReply;
    /// After its reply, an `EventLine` per change to a pane.
    Events = "events", crate::params::Events => crate::Done, then "EventLine";
}

/// The one method of fault injection, which release builds leave out.
#[cfg(not(any(debug_assertions, feature = "fault-injection")))]
const FAULT_INJECTION: &str = "debug.panic";

impl Call {
    /// The call a request's `method` and `params` make: `UNKNOWN_METHOD`
    /// for a method this build does not have (`REFUSED` for fault
    /// injection, which a release build leaves out), `BAD_PARAMS` (naming
    /// what is wrong) for parameters it cannot read or that exceed a bound.
    pub fn parse(method: &str, params: Value) -> Result<Call, WireError> {
        #[cfg(not(any(debug_assertions, feature = "fault-injection")))]
        if method == FAULT_INJECTION {
            return Err(WireError::new(
                ErrorCode::Refused,
                "this signaltty is a release build, without fault injection; \
                 `debug.panic` needs a debug build or the `fault-injection` feature",
            ));
        }
        if !Call::NAMES.contains(&method) {
            return Err(WireError::new(
                ErrorCode::UnknownMethod,
                format!("unknown method {method:?}; this server speaks {PROTOCOL}"),
            ));
        }
        let params = if params.is_null() { json!({}) } else { params };
        serde_json::from_value(json!({ "method": method, "params": params }))
            .map_err(|e| WireError::new(ErrorCode::BadParams, format!("bad parameters: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params;

    #[test]
    fn a_call_travels_as_method_and_params() {
        let call = method::PaneSend::call(params::PaneSend {
            pane: "ab".into(),
            text: "hi".into(),
            enter: true,
        });
        let value = serde_json::to_value(&call).unwrap();
        assert_eq!(value["method"], "pane.send");
        assert_eq!(value["params"]["text"], "hi");
        let back = Call::parse("pane.send", value["params"].clone()).unwrap();
        assert!(matches!(back, Call::PaneSend(p) if p.enter));
    }

    #[test]
    fn unknown_methods_bad_params_and_bounds_are_told_apart() {
        let unknown = Call::parse("pane.fly", json!({})).unwrap_err();
        assert_eq!(unknown.code, ErrorCode::UnknownMethod);
        let bad = Call::parse("pane.send", json!({"pane": 5, "text": "x"})).unwrap_err();
        assert_eq!(bad.code, ErrorCode::BadParams);
        let long = Call::parse("workspace.new", json!({"name": "n".repeat(300)})).unwrap_err();
        assert!(long.message.contains("workspace name"), "{long}");
        // No parameters at all reads as `{}`.
        assert!(matches!(
            Call::parse("status", Value::Null),
            Ok(Call::Status(_))
        ));
    }

    #[test]
    fn fault_injection_is_only_in_builds_that_have_it() {
        let call = Call::parse("debug.panic", json!({"target": "snapshot"}));
        #[cfg(any(debug_assertions, feature = "fault-injection"))]
        assert!(matches!(call, Ok(Call::DebugPanic(_))));
        #[cfg(not(any(debug_assertions, feature = "fault-injection")))]
        {
            let refused = call.unwrap_err();
            assert_eq!(refused.code, ErrorCode::Refused);
            assert!(refused.message.contains("release build"), "{refused}");
            assert!(!Call::NAMES.contains(&"debug.panic"));
        }
    }

    #[test]
    fn every_name_is_listed_once() {
        let mut names = Call::NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Call::NAMES.len());
        assert_eq!(TABLE.len(), Call::NAMES.len());
    }
}
