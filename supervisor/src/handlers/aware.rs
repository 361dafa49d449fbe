//! `pane.explain` and `pane.wait`: what the server reads from a pane's
//! agent, and waiting for a pane to reach a condition.

use std::time::Duration;

use signaltty_actors::ActorError;
use signaltty_actors::model::PaneView;
use signaltty_actors::pane::PaneMsg;
use signaltty_actors::pane::aware::explain_screen;
use signaltty_actors::pane::resume_command;
use signaltty_actors::pane::wait::{WaitFor, WaitMet};
use signaltty_protocol::{ErrorCode, ExplainReply, ResumeExplained, WaitReply, WireError, params};

use crate::ctx::{CALL_MS, Ctx, bad_params, find_pane, pane_actor, unavailable, wire_error};

/// The compiled size of a `--text` pattern (its length is bounded at the
/// IPC edge).
const PATTERN_SIZE_LIMIT: usize = 1 << 20;

pub async fn explain(ctx: &Ctx, p: params::PaneExplain) -> Result<ExplainReply, WireError> {
    match (p.pane, p.screen) {
        (Some(pane), None) => explain_pane(ctx, &pane).await,
        (None, Some(screen)) => {
            let name = p.agent.ok_or_else(|| {
                bad_params("a saved screen needs --agent KIND to say whose rules to read it with")
            })?;
            let kind = name;
            let title = p.title.unwrap_or_default();
            let (verdict, rules) = explain_screen(kind, &screen, &title)
                .ok_or_else(|| bad_params(format!("{kind} has no screen rules")))?;
            Ok(ExplainReply {
                kind: kind.as_str().to_string(),
                state: state_name(verdict.state),
                lifecycle: None,
                rule: verdict.rule,
                evidence: verdict.evidence,
                rules,
                foreground: None,
                session_id: None,
                session_file: None,
                waiting: 0,
                resume: None,
                keys: None,
                sleep: None,
            })
        }
        _ => Err(bad_params("give either a pane or a saved screen")),
    }
}

async fn explain_pane(ctx: &Ctx, query: &str) -> Result<ExplainReply, WireError> {
    let view = find_pane(ctx, query).await?;
    let explained =
        ractor::call_t!(pane_actor(&view)?, PaneMsg::Explain, CALL_MS).map_err(unavailable)?;
    Ok(ExplainReply {
        kind: explained.kind.as_str().to_string(),
        state: state_name(explained.verdict.state),
        lifecycle: Some(view.record.lifecycle),
        rule: explained.verdict.rule,
        evidence: explained.verdict.evidence,
        rules: explained.rules,
        foreground: explained.foreground,
        session_id: view
            .record
            .agent
            .as_ref()
            .and_then(|a| a.agent_session_id.clone()),
        session_file: explained.session_file,
        waiting: explained.waiting,
        resume: resume_command(&view.record).map(|command| ResumeExplained {
            argv: command.argv,
            kept: command.kept,
            dropped: command.dropped,
        }),
        keys: Some(explained.keys),
        sleep: Some(explained.sleep),
    })
}

fn state_name(state: Option<signaltty_adapters::ScreenState>) -> String {
    state.map_or("unknown", |s| s.as_str()).to_string()
}

pub async fn wait(ctx: &Ctx, p: params::PaneWait) -> Result<WaitReply, WireError> {
    let what = condition(&p)?;
    let view = find_pane(ctx, &p.pane).await?;
    let timeout = p.timeout_ms.map(Duration::from_millis);
    Ok(wait_reply(wait_for(&view, what, timeout).await?))
}

/// `agent.wait`: until the agent's work is over.
pub async fn agent_wait(ctx: &Ctx, p: params::AgentWait) -> Result<WaitReply, WireError> {
    let view = find_pane(ctx, &p.pane).await?;
    let timeout = p.timeout_ms.map(Duration::from_millis);
    Ok(wait_reply(
        wait_for(&view, WaitFor::TurnEnd, timeout).await?,
    ))
}

fn wait_reply(met: WaitMet) -> WaitReply {
    let (met, line, exit_code, lifecycle) = match met {
        WaitMet::Exit(code) => ("exit", None, code, None),
        WaitMet::Lifecycle => ("lifecycle", None, None, None),
        WaitMet::Text(line) => ("text", Some(line), None, None),
        WaitMet::Ready => ("ready", None, None, None),
        WaitMet::Blocked => ("blocked", None, None, None),
        WaitMet::TurnEnded(lifecycle) => ("turn_end", None, None, Some(lifecycle)),
    };
    WaitReply {
        met: met.into(),
        line,
        exit_code,
        lifecycle,
    }
}

/// Waits until `view`'s pane meets `what`, pushed by the pane; `TIMED_OUT`
/// after `timeout`. Dropping the future gives the wait up.
pub(crate) async fn wait_for(
    view: &PaneView,
    what: WaitFor,
    timeout: Option<Duration>,
) -> Result<WaitMet, WireError> {
    let (met_tx, met_rx) = tokio::sync::oneshot::channel();
    ractor::call_t!(
        pane_actor(view)?,
        |reply| PaneMsg::Wait {
            what,
            met: met_tx,
            reply
        },
        CALL_MS
    )
    .map_err(unavailable)?
    .map_err(wire_error)?;
    match timeout {
        Some(limit) => tokio::time::timeout(limit, met_rx).await.map_err(|_| {
            WireError::new(
                ErrorCode::TimedOut,
                format!(
                    "pane {} did not reach the condition within {:.1}s",
                    view.record.id,
                    limit.as_secs_f64()
                ),
            )
        })?,
        None => met_rx.await,
    }
    .map_err(|_| wire_error(ActorError::NoSuchPane(view.record.id.to_string())))
}

fn condition(p: &params::PaneWait) -> Result<WaitFor, WireError> {
    match (p.exit, &p.lifecycle, &p.text) {
        (true, None, None) => Ok(WaitFor::Exit),
        (false, Some(lifecycle), None) => Ok(WaitFor::Lifecycle(*lifecycle)),
        (false, None, Some(text)) => regex::RegexBuilder::new(text)
            .size_limit(PATTERN_SIZE_LIMIT)
            .build()
            .map(WaitFor::Text)
            .map_err(|e| bad_params(format!("--text is not a valid regular expression: {e}"))),
        _ => Err(bad_params(
            "wait for exactly one of --exit, --lifecycle STATE, --text REGEX",
        )),
    }
}
