//! Reads from database replicas without a client ever missing its own writes.
//!
//! After a key's write commits, the position of the primary's log at that point is remembered
//! for the key ([`WritePositions`]: shared by every instance through Redis when there is one).
//! A request's reads then carry the position they must see ([`reading_after`]); the database
//! adapter sends them to a replica that has replayed at least that far, or to the primary.
//! Reads outside any such scope (the console, the command line, authentication) always go to
//! the primary.

use std::future::Future;

use async_trait::async_trait;
use shop_domain::api_key::KeyPrefix;

/// A position in the primary database's log (PostgreSQL's LSN as a number): a replica that has
/// replayed up to it sees every write committed before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WritePosition(pub u64);

/// The last write position of each API key.
#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait WritePositions: Send + Sync {
    /// Remembers that `key`'s reads must see `position` from now on (a later position wins;
    /// an earlier one is ignored).
    async fn remember(&self, key: &KeyPrefix, position: WritePosition);

    /// The position `key`'s reads must see, if it wrote recently. A store that cannot answer
    /// says `Err`, and the reads go to the primary.
    async fn last(&self, key: &KeyPrefix) -> Result<Option<WritePosition>, crate::BoxError>;
}

/// Where the reads of the current request may go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadScope {
    /// To any replica in rotation.
    AnyReplica,
    /// To a replica that has replayed at least this far; otherwise to the primary.
    After(WritePosition),
    /// To the primary only.
    Primary,
}

tokio::task_local! {
    static READ_SCOPE: ReadScope;
}

/// Runs `future` with its reads in `scope`.
pub async fn reading_in<F: Future>(scope: ReadScope, future: F) -> F::Output {
    READ_SCOPE.scope(scope, future).await
}

/// The current request's read scope; [`ReadScope::Primary`] outside any.
pub fn read_scope() -> ReadScope {
    READ_SCOPE
        .try_with(|scope| *scope)
        .unwrap_or(ReadScope::Primary)
}
