//! The snapshot actor and its writer, without a server around them.

use std::sync::Arc;
use std::time::Duration;

use ractor::Actor;
use signaltty_persistence::{ServerInfo, StateDir, WorkspaceRecord};
use tokio::sync::{broadcast, mpsc};

use super::read::{self, Published};
use super::writer::{self, WriterMsg};
use super::{SnapshotActor, SnapshotArgs, SnapshotMsg};
use crate::model::Model;

fn model_with_workspace(name: &str) -> Model {
    let mut model = Model::default();
    model.upsert_workspace(WorkspaceRecord::new("w1", name));
    model
}

/// Polls `condition` until it holds or `timeout` passes.
async fn eventually(what: &str, timeout: Duration, mut condition: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + timeout;
    while !condition() {
        assert!(tokio::time::Instant::now() < deadline, "timed out: {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn a_tail_goes_to_the_writer_and_wakes_no_client_a_record_does() {
    let (published, reader) = read::channel(Model::default());
    let (writer_tx, mut writer_rx) = mpsc::unbounded_channel();
    let (changes, mut followers) = broadcast::channel(16);
    let (actor, handle) = Actor::spawn(
        None,
        SnapshotActor,
        SnapshotArgs {
            model: Model::default(),
            published,
            writer: writer_tx,
            changes,
        },
    )
    .await
    .unwrap();

    read::announce();
    actor
        .cast(SnapshotMsg::Tail {
            pane_id: signaltty_types::id::PaneId::trusted("p1"),
            text: "hello".into(),
        })
        .unwrap();
    let model = reader.latest().await;
    assert!(model.workspaces.is_empty());
    assert!(matches!(
        writer_rx.recv().await,
        Some(WriterMsg::Tail { pane_id, .. }) if pane_id == "p1"
    ));
    assert!(followers.try_recv().is_err(), "a tail woke a client");

    read::announce();
    actor
        .cast(SnapshotMsg::Workspace(WorkspaceRecord::new("w1", "api")))
        .unwrap();
    // Read without a message, and yet it holds the record sent before.
    let model = reader.latest().await;
    assert_eq!(model.workspaces[0].name, "api");
    assert!(followers.try_recv().is_ok(), "a record woke no client");

    actor.stop(None);
    handle.await.unwrap();
}

#[tokio::test]
async fn the_writer_takes_the_latest_version_whatever_came_during_a_slow_write() {
    let tmp = tempfile::tempdir().unwrap();
    let state_dir = StateDir::open(tmp.path())
        .unwrap()
        .with_fsync_delay(Duration::from_millis(200));
    let state_dir = Arc::new(state_dir);
    let tails = Arc::new(state_dir.tail_store());
    let (published, reader) = read::channel(model_with_workspace("v0"));
    let handle = writer::spawn(
        state_dir.clone(),
        tails,
        ServerInfo::default(),
        &reader,
        None,
    );
    let status = handle.status.clone();
    let publish = |name: &str| {
        published.send_replace(Published {
            model: Arc::new(model_with_workspace(name)),
            applied: 0,
        });
    };
    publish("v1");
    eventually("the first write", Duration::from_secs(10), || {
        status.borrow().writes == 1
    })
    .await;
    // Twenty versions while the writer waits out its interval: one write
    // holds the last of them.
    for n in 2..=21 {
        publish(&format!("v{n}"));
    }
    let file = state_dir.snapshot_path();
    eventually("the last version saved", Duration::from_secs(10), || {
        std::fs::read_to_string(&file).is_ok_and(|t| t.contains("\"v21\""))
            && status.borrow().writes >= 2
    })
    .await;
    assert_eq!(status.borrow().writes, 2);

    let (reply_tx, reply_rx) = ractor::concurrency::oneshot();
    handle
        .tx
        .send(WriterMsg::Flush(reply_tx.into()))
        .unwrap_or_else(|_| panic!("the writer stopped"));
    assert_eq!(reply_rx.await.unwrap(), Ok(()));
    assert!(handle.tx.is_closed(), "a flush is the writer's last write");
}
