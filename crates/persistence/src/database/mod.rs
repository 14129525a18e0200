//! The database handle: URL parsing, the two pools, where reads and writes run, and the
//! macros that run one query body on whichever backend the handle holds.
//!
//! diesel's `MultiConnection` cannot hold diesel-async's PostgreSQL connection, so the handle is
//! an enum of two deadpool pools. [`with_conn!`], [`in_transaction!`] and [`with_read_conn!`]
//! match on it and hand the same body to each backend: each copy is type-checked against its
//! concrete connection, with no trait bounds to write. Queries needed by several methods live
//! in traits implemented for both connections by [`impl_for_each_backend!`], again from one
//! written body.
//!
//! - `url.rs`: [`DatabaseUrl`], where the database is, and its redacted display;
//! - `connect_error.rs`: [`ConnectError`], why the database could not be opened;
//! - `open.rs`: [`PoolOptions`], [`Database::open`] and each backend's connection setup;
//! - `migrate.rs`: the embedded migrations, applied by `open`;
//! - `health.rs`: `Database` as a `HealthCheck`;
//! - `read.rs`: where an API read runs, one plain method per backend;
//! - `calling_thread.rs`: why SQLite's API reads run on the thread that asks for them;
//! - `checkout.rs`: a pooled connection within the wait timeout, timeouts counted;
//! - `write_queue.rs`: why SQLite writers take turns in the process, and the webhook workers
//!   go ahead of their line;
//! - `write_locks.rs`: the row and value locks of API v2's writes (`If-Match`, unique e-mails);
//! - `writer_thread.rs`: SQLite's writer thread, where the API's write transactions run;
//! - `write_span.rs`: the writers' half of the sync contract (a write's stamp to its commit);
//! - `monitor.rs`: the pool's figures for `/metrics`;
//! - `replicas.rs`: PostgreSQL read replicas, where each stands, and which one a read uses;
//! - `replication.rs`: a key's write position after its write, the replicas' metrics and
//!   readiness;
//! - `macros.rs`: [`with_conn!`], [`with_read_conn!`], [`in_transaction!`],
//!   [`impl_for_each_backend!`].

mod calling_thread;
mod checkout;
mod connect_error;
mod health;
mod macros;
pub(crate) mod migrate;
mod monitor;
mod open;
mod read;
mod replicas;
mod replication;
mod url;
pub(crate) mod write_locks;
mod write_queue;
pub(crate) mod write_runner;
pub(crate) mod write_span;
pub(crate) mod writer_thread;

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use diesel::SqliteConnection;
use diesel_async::AsyncPgConnection;
use diesel_async::pooled_connection::deadpool::Pool as DeadPool;
use diesel_async::sync_connection_wrapper::{SpawnBlocking, SyncConnectionWrapper};

pub(crate) use calling_thread::OnCallingThread;

// The crate checks out through `Database::acquire`; the tests hold a connection with this.
#[cfg(test)]
pub(crate) use checkout::checkout;
pub use connect_error::ConnectError;
pub(crate) use macros::{
    impl_for_each_backend, in_transaction, with_conn, with_read_conn, write_transaction,
};
#[cfg(test)]
pub(crate) use open::SQLITE_SETUP;
pub(crate) use open::sqlite_path;
pub use open::{PoolOptions, ReplicaOptions};
pub use replication::MAX_REPLICAS;
pub use url::DatabaseUrl;

/// SQLite's synchronous connection, its statements run by `R` (see [`SqliteRunner`]).
pub(crate) type SqliteOn<R> = SyncConnectionWrapper<SqliteConnection, R>;

/// A SQLite connection of the writers' pool, run on tokio's blocking threads but for an API
/// write's statements (`write_runner.rs`).
pub(crate) type SqliteConn = SqliteOn<write_runner::WriterRunner>;

/// A SQLite connection of the readers' pool, run on the calling thread (`calling_thread.rs`).
pub(crate) type SqliteReader = SqliteOn<OnCallingThread>;

/// What runs a SQLite connection's statements: tokio's blocking pool for [`SqliteConn`], the
/// calling thread for [`SqliteReader`]. The queries are written once for any of them.
pub(crate) trait SqliteRunner: SpawnBlocking + Send + Sync + 'static {}

impl<R: SpawnBlocking + Send + Sync + 'static> SqliteRunner for R {}

/// A pool of connections to one database, SQLite or PostgreSQL. Cheap to clone (the pools are
/// reference-counted). Implements every store port of `shop-ports`.
#[derive(Clone)]
pub struct Database {
    pub(crate) pool: Pool,
    pub(crate) wait_timeout: Duration,
    /// Checkouts that gave up after `wait_timeout`, shared by the clones (for metrics).
    wait_timeouts: Arc<AtomicU64>,
    /// SQLite's one writer at a time, taken in arrival order (see [`Database::write_turn`]).
    sqlite_writers: write_queue::SqliteWriters,
    /// PostgreSQL's read replicas, when configured.
    pub(crate) replicas: Option<Arc<replicas::Replicas>>,
    /// Renders and names the events the writes append (`webhooks/outbox.rs`); none for tools
    /// that push nothing.
    pub(crate) outbox: Option<Arc<crate::webhooks::Outbox>>,
    /// Wakes this process's webhook workers after a commit that appended events.
    pub(crate) events_wake: Arc<tokio::sync::Notify>,
    /// SQLite's first attempts claimed from the event log and not recorded yet
    /// (`webhooks/queue/fast_lane.rs`).
    pub(crate) fast_lane: Arc<std::sync::Mutex<crate::webhooks::queue::fast_lane::FastLane>>,
    /// On PostgreSQL, the task that wakes the other instances' (`webhooks/announce.rs`).
    pub(crate) announcer: Arc<std::sync::OnceLock<crate::webhooks::announce::Announcer>>,
    /// On PostgreSQL, the delivery workers' one connection (opened at their first turn): a
    /// busy API never makes them wait for one, and its planner settings are theirs alone.
    pub(crate) queue_pool: Option<DeadPool<AsyncPgConnection>>,
}

#[derive(Clone)]
pub(crate) enum Pool {
    Sqlite(SqlitePools),
    Postgres(DeadPool<AsyncPgConnection>),
}

/// SQLite's two pools on one file: the writers', also used for the reads that are not an API
/// read (authentication, the console, imports), and the readers' (`query_only`), used by
/// [`with_read_conn!`].
#[derive(Clone)]
pub(crate) struct SqlitePools {
    pub(crate) writes: DeadPool<SqliteConn>,
    pub(crate) reads: DeadPool<SqliteReader>,
}

impl Database {
    /// Makes every write append its events to the webhooks' outbox.
    pub fn with_outbox(mut self, outbox: crate::webhooks::Outbox) -> Self {
        self.outbox = Some(Arc::new(outbox));
        self
    }

    /// The outbox for one write transaction, when this database writes events.
    pub(crate) fn outbox_write(&self) -> Option<crate::webhooks::outbox::OutboxWrite<'_>> {
        self.outbox
            .as_deref()
            .map(crate::webhooks::outbox::OutboxWrite::new)
    }

    /// After the commit of a write that appended through `outbox`: wakes the workers if it
    /// queued a delivery, and nobody otherwise (`webhooks/outbox.rs`).
    pub(crate) fn write_committed(
        &self,
        outbox: Option<&crate::webhooks::outbox::OutboxWrite<'_>>,
    ) {
        if outbox.is_some_and(crate::webhooks::outbox::OutboxWrite::queued_deliveries) {
            self.events_committed();
        }
    }

    /// SQLite's writer thread (`writer_thread.rs`); none on PostgreSQL, whose writes run
    /// side by side.
    pub(crate) fn sqlite_writer_thread(&self) -> Option<&writer_thread::WriterThread> {
        match self.pool {
            Pool::Sqlite(_) => Some(&self.sqlite_writers.thread),
            Pool::Postgres(_) => None,
        }
    }

    /// Tells this process's workers that events were committed, and on PostgreSQL the
    /// other instances' too (`webhooks/announce.rs`).
    pub(crate) fn events_committed(&self) {
        self.events_wake.notify_one();
        self.announce_events();
    }

    pub fn backend_name(&self) -> &'static str {
        match self.pool {
            Pool::Sqlite(_) => "sqlite",
            Pool::Postgres(_) => "postgres",
        }
    }

    /// Closes the pool: waiting and later checkouts fail at once, and connections are
    /// closed as they come back. Called once the server has stopped.
    pub fn close(&self) {
        match &self.pool {
            Pool::Sqlite(pools) => {
                pools.writes.close();
                pools.reads.close();
            }
            Pool::Postgres(pool) => pool.close(),
        }
        if let Some(queue) = &self.queue_pool {
            queue.close();
        }
    }
}

impl fmt::Debug for Database {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Database")
            .field("backend", &self.backend_name())
            .field("wait_timeout", &self.wait_timeout)
            .finish_non_exhaustive()
    }
}
