//! Opening the database: pool sizing, building the pool of each backend, and the settings
//! every new connection gets before the pool hands it out.

use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use deadpool::managed::QueueMode;
use diesel::connection::SimpleConnection as _;
use diesel::{Connection as _, ConnectionError, ConnectionResult, SqliteConnection};
use diesel_async::pooled_connection::deadpool::Pool as DeadPool;
use diesel_async::pooled_connection::{
    AsyncDieselConnectionManager, ManagerConfig, RecyclingMethod,
};
use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};

use shop_ports::port::WritePositions;

use super::replicas::{Replicas, spawn_monitor};
use super::{
    ConnectError, Database, DatabaseUrl, OnCallingThread, Pool, SqliteConn, SqlitePools,
    SqliteReader,
};
use crate::database::migrate;

/// How long a SQLite connection waits for another connection's lock: what [`SQLITE_SETUP`]
/// sets, and what a write's `BEGIN` on the calling thread sets again after its attempt that
/// waits for nothing (`write_runner.rs`).
macro_rules! busy_timeout {
    () => {
        "PRAGMA busy_timeout = 5000"
    };
}
pub(crate) use busy_timeout;

/// Per-connection SQLite settings. `busy_timeout` comes first so that the others wait for a
/// lock instead of failing. WAL lets readers proceed during a write. `synchronous = FULL`
/// syncs the WAL at every commit: an adjustment answered 201 survives a power cut, not only a
/// crash of the process (NORMAL may lose the last commits then). Foreign keys are off by
/// default in SQLite.
pub(crate) const SQLITE_SETUP: &str = concat!(
    busy_timeout!(),
    "; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;"
);

/// What a connection of SQLite's readers' pool adds to [`SQLITE_SETUP`]: it refuses to write,
/// so that no write can run on an actix worker (`calling_thread.rs`).
const SQLITE_READER_SETUP: &str = "PRAGMA query_only = ON;";

/// Per-connection PostgreSQL settings: a runaway query is cancelled (and reported as
/// unavailable) instead of holding a pooled connection forever.
const POSTGRES_SETUP: &str = "SET statement_timeout = '10s'";

/// Pool sizing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolOptions {
    /// Connections kept at most (0 is taken as 1); on SQLite, in each of its two pools.
    pub max_size: usize,
    /// How long a query waits for a free connection, including establishing a new one and
    /// checking an idle one, before failing as unavailable (503). Short, so that a request
    /// fails fast when the database is gone instead of holding the client.
    pub wait_timeout: Duration,
}

impl PoolOptions {
    pub const DEFAULT_MAX_SIZE: usize = 8;
    pub const DEFAULT_WAIT_TIMEOUT: Duration = Duration::from_secs(5);
}

impl Default for PoolOptions {
    fn default() -> Self {
        Self {
            max_size: Self::DEFAULT_MAX_SIZE,
            wait_timeout: Self::DEFAULT_WAIT_TIMEOUT,
        }
    }
}

impl Database {
    /// Opens the pool (creating the SQLite file and its parent directory if missing) and
    /// applies all pending embedded migrations before returning.
    ///
    /// Migrations run on a blocking thread, so this works on any tokio runtime, including
    /// current-thread ones such as actix's. The runtime must have its time driver enabled
    /// (the pool's wait timeout uses it).
    pub async fn open(url: &DatabaseUrl, options: PoolOptions) -> Result<Database, ConnectError> {
        migrate::run_pending(url).await?;
        let max_size = options.max_size.max(1);
        let mut queue_pool = None;
        let pool = match url {
            DatabaseUrl::Sqlite(path) => {
                let path = sqlite_path(path)?;
                // A local file cannot drop the connection: skip the per-checkout ping.
                let mut writers = ManagerConfig::default();
                writers.custom_setup = Box::new(setup_sqlite);
                writers.recycling_method = RecyclingMethod::Fast;
                let mut readers = ManagerConfig::default();
                readers.custom_setup = Box::new(setup_sqlite_reader);
                readers.recycling_method = RecyclingMethod::Fast;
                let writers = AsyncDieselConnectionManager::new_with_config(path, writers);
                let readers = AsyncDieselConnectionManager::new_with_config(path, readers);
                Pool::Sqlite(SqlitePools {
                    // Last in, first out: SQLite empties a connection's page cache when its
                    // transaction begins after another connection's commit, so taking the
                    // connection that wrote last keeps the pages the writes share in memory,
                    // where handing them out in turn read every page from the file again
                    // (docs/performance-log.md, "SQLite's writers on one warm connection").
                    writes: DeadPool::builder(writers)
                        .queue_mode(QueueMode::Lifo)
                        .max_size(max_size)
                        .build()
                        .map_err(ConnectError::Pool)?,
                    reads: DeadPool::builder(readers)
                        .max_size(max_size)
                        .build()
                        .map_err(ConnectError::Pool)?,
                })
            }
            DatabaseUrl::Postgres(url) => {
                let mut config = ManagerConfig::default();
                config.custom_setup = Box::new(setup_postgres);
                // No `SELECT 1` per checkout: diesel-async already drops a connection whose
                // socket is closed (a server restart closes them all), and the extra round trip
                // was a measurable share of each request's CPU (see docs/performance-log.md, "No
                // ping per PostgreSQL checkout"). A connection that breaks between checkout
                // and query fails that request with 503, like any outage.
                config.recycling_method = RecyclingMethod::Fast;
                let manager = AsyncDieselConnectionManager::new_with_config(url, config);
                let mut queue = ManagerConfig::default();
                queue.custom_setup = Box::new(setup_postgres_queue);
                queue.recycling_method = RecyclingMethod::Fast;
                let queue = AsyncDieselConnectionManager::new_with_config(url, queue);
                queue_pool = Some(
                    DeadPool::builder(queue)
                        .max_size(1)
                        .build()
                        .map_err(ConnectError::Pool)?,
                );
                Pool::Postgres(
                    DeadPool::builder(manager)
                        .max_size(max_size)
                        .build()
                        .map_err(ConnectError::Pool)?,
                )
            }
        };
        Ok(Database {
            pool,
            wait_timeout: options.wait_timeout,
            wait_timeouts: Arc::default(),
            sqlite_writers: Default::default(),
            replicas: None,
            outbox: None,
            events_wake: Arc::default(),
            fast_lane: Arc::default(),
            announcer: Arc::default(),
            queue_pool,
        })
    }
}

/// Read replicas of a PostgreSQL primary (issue 22, `database/replicas.rs`).
pub struct ReplicaOptions {
    pub urls: Vec<DatabaseUrl>,
    /// Further behind than this, a replica leaves the rotation.
    pub max_lag: Duration,
    /// Where each key's last write position is kept, for its reads to see it.
    pub positions: Arc<dyn WritePositions>,
}

impl Database {
    /// Adds read replicas to a PostgreSQL database, with the pool options of the primary, and
    /// starts their monitor on the current tokio runtime. Refused on SQLite, which has none.
    pub fn with_replicas(
        mut self,
        options: ReplicaOptions,
        pool: PoolOptions,
    ) -> Result<Database, ConnectError> {
        let Pool::Postgres(primary) = &self.pool else {
            return Err(ConnectError::InvalidUrl(
                "read replicas need PostgreSQL: an SQLite database has none",
            ));
        };
        let mut members = Vec::with_capacity(options.urls.len());
        for url in &options.urls {
            let DatabaseUrl::Postgres(text) = url else {
                return Err(ConnectError::InvalidUrl(
                    "a read replica must be a postgres:// URL",
                ));
            };
            let mut config = ManagerConfig::default();
            config.custom_setup = Box::new(setup_postgres);
            config.recycling_method = RecyclingMethod::Fast;
            let manager = AsyncDieselConnectionManager::new_with_config(text, config);
            let replica = DeadPool::builder(manager)
                .max_size(pool.max_size.max(1))
                .build()
                .map_err(ConnectError::Pool)?;
            members.push((url.location(), replica));
        }
        let replicas = Arc::new(Replicas::new(members, options.positions, options.max_lag));
        spawn_monitor(Arc::downgrade(&replicas), primary.clone());
        self.replicas = Some(replicas);
        Ok(self)
    }
}

/// The path as SQLite's driver takes it.
pub(crate) fn sqlite_path(path: &Path) -> Result<&str, ConnectError> {
    path.to_str().ok_or(ConnectError::InvalidUrl(
        "the SQLite path is not valid UTF-8",
    ))
}

type SetupFuture<'a, C> = Pin<Box<dyn Future<Output = ConnectionResult<C>> + Send + 'a>>;

fn setup_sqlite(url: &str) -> SetupFuture<'_, SqliteConn> {
    Box::pin(async move {
        let mut conn = SqliteConn::establish(url).await?;
        conn.batch_execute(SQLITE_SETUP)
            .await
            .map_err(ConnectionError::CouldntSetupConfiguration)?;
        Ok(conn)
    })
}

/// A reader is opened on a blocking thread like a writer, then runs its statements on the
/// calling thread: its setup may wait for a lock (`busy_timeout`), which a worker must not.
fn setup_sqlite_reader(url: &str) -> SetupFuture<'_, SqliteReader> {
    let url = url.to_owned();
    Box::pin(async move {
        let opened = tokio::task::spawn_blocking(move || {
            let mut conn = SqliteConnection::establish(&url)?;
            conn.batch_execute(SQLITE_SETUP)
                .and_then(|()| conn.batch_execute(SQLITE_READER_SETUP))
                .map_err(ConnectionError::CouldntSetupConfiguration)?;
            Ok(conn)
        })
        .await
        .map_err(|error| ConnectionError::BadConnection(error.to_string()))?;
        opened.map(|conn| SqliteReader::with_runtime(conn, OnCallingThread))
    })
}

/// The delivery workers' own connection: the planner walks the queue's indexes in order (see
/// `webhooks/queue/head.rs`), whatever its statistics say.
const POSTGRES_QUEUE_SETUP: &str = "SET enable_bitmapscan = off; SET enable_seqscan = off";

fn setup_postgres_queue(url: &str) -> SetupFuture<'_, AsyncPgConnection> {
    Box::pin(establish_postgres(
        url,
        &[POSTGRES_SETUP, POSTGRES_QUEUE_SETUP],
    ))
}

fn setup_postgres(url: &str) -> SetupFuture<'_, AsyncPgConnection> {
    Box::pin(establish_postgres(url, &[POSTGRES_SETUP]))
}

async fn establish_postgres(url: &str, setup: &[&str]) -> ConnectionResult<AsyncPgConnection> {
    let mut conn = AsyncPgConnection::establish(url).await?;
    for statements in setup {
        conn.batch_execute(statements)
            .await
            .map_err(ConnectionError::CouldntSetupConfiguration)?;
    }
    Ok(conn)
}
