//! Webhooks' tables: the outbox the writes append to (`outbox.rs`), the shop's endpoints
//! (`endpoints.rs`), and the delivery queue the workers claim from (`queue.rs`).

pub(crate) mod announce;
pub(crate) mod deliveries;
mod endpoints;
mod events;
mod listen;
pub(crate) mod outbox;
pub(crate) mod queue;

pub use outbox::Outbox;
