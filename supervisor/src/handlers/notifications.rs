//! Notifications, and the pane that needs the user most.

use signaltty_actors::pane::PaneMsg;
use signaltty_actors::snapshot;
use signaltty_actors::snapshot::SnapshotMsg;
use signaltty_persistence::{Attention, Lifecycle, NotificationRecord, Severity};
use signaltty_protocol::text::Plain;
use signaltty_protocol::{Done, NextReply, NotificationsReply, WireError, params};
use signaltty_screen::{MAX_BODY_CHARS, MAX_TITLE_CHARS, sanitize};

use crate::ctx::*;

pub(crate) async fn notify(ctx: &Ctx, p: params::Notify) -> Result<Done, WireError> {
    let severity = p.severity.unwrap_or(Severity::Info);
    match p.pane {
        Some(pane) => {
            let view = find_pane(ctx, &pane).await?;
            ractor::call_t!(
                pane_actor(&view)?,
                |reply| PaneMsg::Notify {
                    severity,
                    title: p.title.plain(),
                    body: p.body.plain(),
                    reply
                },
                CALL_MS
            )
            .map_err(unavailable)?;
        }
        None => snapshot::publish(SnapshotMsg::Notify(NotificationRecord {
            id: 0,
            pane_id: None,
            workspace_id: None,
            title: sanitize(&p.title, MAX_TITLE_CHARS),
            body: sanitize(&p.body, MAX_BODY_CHARS),
            severity,
            source: "ctl".into(),
            created_at: signaltty_actors::now_millis(),
            read_at: None,
        })),
    }
    Ok(Done {})
}

pub(crate) async fn notifications(
    ctx: &Ctx,
    p: params::Notifications,
) -> Result<NotificationsReply, WireError> {
    let model = model(ctx).await;
    let notifications = model
        .notifications
        .iter()
        .filter(|n| !p.unread || n.read_at.is_none())
        .cloned()
        .collect();
    Ok(NotificationsReply { notifications })
}

/// The pane that needs the user most: one whose agent is not busy with a
/// turn, then the most severe attention, then the most recent. A working
/// agent is picked only when nothing else needs the user.
pub(crate) async fn next(ctx: &Ctx) -> Result<NextReply, WireError> {
    let model = model(ctx).await;
    let best = model
        .panes
        .values()
        .filter(|p| p.record.attention != Attention::None)
        .max_by_key(|p| {
            let idle = p.record.lifecycle != Lifecycle::Working;
            (idle, p.record.attention, p.record.attention_at)
        });
    let workspace = best.and_then(|p| {
        model
            .workspaces
            .iter()
            .find(|w| w.id == p.record.workspace_id)
            .map(|w| w.name.clone())
    });
    Ok(NextReply {
        pane: best.map(|view| crate::listing::ls_pane(view)),
        workspace,
    })
}
