//! Reads from database replicas without a client ever missing its own writes.
//!
//! After a key's write commits, the position of the primary's log at that point is remembered
//! for the key ([`WritePositions`]: shared by every instance through Redis when there is one).
//! Every read method of a repository then takes a [`ReadFrom`], named by its caller: the API's
//! handlers pass the position the key's reads must see (`shop-http`'s `read_from.rs`), and the
//! database adapter sends the read to a replica that has replayed at least that far, or to the
//! primary. The console, the command line and authentication read from the primary.

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

/// Which database a read goes to, named by the caller of each read. Without replicas (and
/// always on SQLite) there is one database, and every read goes to it whatever this says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadFrom {
    /// The primary only: it has every committed write.
    Primary,
    /// Any replica in rotation; the primary when none is.
    AnyReplica,
    /// A replica that has replayed at least this far; otherwise the primary.
    ReplicaAfter(WritePosition),
}
