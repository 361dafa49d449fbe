//! The read model: the snapshot actor's latest model, published as an
//! immutable `Arc` through a `watch`, read without a message.
//!
//! Reads see their own writes. A request that changed something (a new
//! pane, say) is answered only after the owner published its record, so
//! a later request must see that record. Every [`super::publish`] is
//! counted here before it is sent; the snapshot actor counts what it has
//! applied and publishes that count with the model; a reader waits until
//! the published count reaches what was announced when it started — at
//! once, unless records are still on their way through the mailbox. A
//! record announced but lost (sent while the snapshot actor restarted) is
//! waited for at most [`READ_WAIT`].

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::watch;

use crate::model::Model;

/// How long a read waits for records announced before it to be applied.
pub const READ_WAIT: Duration = Duration::from_secs(1);

/// Publishes announced so far in this process, counted before each is sent,
/// so that a reader's count includes every record sent before its request.
static ANNOUNCED: AtomicU64 = AtomicU64::new(0);

pub(super) fn announce() {
    ANNOUNCED.fetch_add(1, Ordering::SeqCst);
}

/// A publish that could not be sent is not waited for.
pub(super) fn withdraw() {
    ANNOUNCED.fetch_sub(1, Ordering::SeqCst);
}

pub(super) fn announced() -> u64 {
    ANNOUNCED.load(Ordering::SeqCst)
}

/// One published version: the model, and how many publishes it holds.
#[derive(Debug, Clone, Default)]
pub struct Published {
    pub model: Arc<Model>,
    pub applied: u64,
}

/// Where the model is published. Made once by the server and handed to
/// every snapshot actor it starts, so readers outlive a restart.
pub fn channel(model: Model) -> (watch::Sender<Published>, ModelReader) {
    let (tx, rx) = watch::channel(Published {
        model: Arc::new(model),
        applied: announced(),
    });
    (tx, ModelReader { rx })
}

/// A handle on the read model, cheap to clone.
#[derive(Debug, Clone)]
pub struct ModelReader {
    rx: watch::Receiver<Published>,
}

impl ModelReader {
    /// The model with every record published before this call.
    pub async fn latest(&self) -> Arc<Model> {
        let wanted = announced();
        let mut rx = self.rx.clone();
        let caught_up = tokio::time::timeout(READ_WAIT, rx.wait_for(|p| p.applied >= wanted)).await;
        match caught_up {
            Ok(Ok(published)) => published.model.clone(),
            // Lost on the way, or the publisher is gone: what there is.
            _ => self.rx.borrow().model.clone(),
        }
    }

    /// The model as last published, without waiting for anything.
    pub fn now(&self) -> Arc<Model> {
        self.rx.borrow().model.clone()
    }

    /// A receiver that wakes on every publish (the writer follows it).
    pub fn watch(&self) -> watch::Receiver<Published> {
        self.rx.clone()
    }
}
