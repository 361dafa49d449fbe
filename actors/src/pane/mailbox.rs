//! What a part of a pane holds to send the pane its own events `E`, now or
//! later, and nothing else. The pane's actor is behind [`Post`], so a part
//! knows neither the pane's message type nor any other part's events.

use std::time::Duration;

/// Where events `E` go: the pane's actor (see `messages.rs`).
pub(super) trait Post<E>: Send + Sync {
    /// Sends `event` now; false once the pane is gone.
    fn send(&self, event: E) -> bool;
    /// Sends `event` `after` from now.
    fn after(&self, after: Duration, event: E);
    /// The same destination, for a task off the actor to keep.
    fn boxed(&self) -> Box<dyn Post<E>>;
}

/// A part's mailbox for the length of one message's handling.
pub(super) struct Mailbox<'a, E>(&'a dyn Post<E>);

impl<'a, E> Mailbox<'a, E> {
    pub(super) fn new(post: &'a dyn Post<E>) -> Mailbox<'a, E> {
        Mailbox(post)
    }

    /// Sends `event` to the pane `after` from now.
    pub(super) fn after(&self, after: Duration, event: E) {
        self.0.after(after, event);
    }

    /// A mailbox a task off the actor can keep and answer through.
    pub(super) fn keep(&self) -> KeptMailbox<E> {
        KeptMailbox(self.0.boxed())
    }
}

/// A mailbox a task off the actor owns.
pub(super) struct KeptMailbox<E>(Box<dyn Post<E>>);

impl<E> KeptMailbox<E> {
    /// Sends `event` to the pane now; false once the pane is gone.
    pub(super) fn send(&self, event: E) -> bool {
        self.0.send(event)
    }
}
