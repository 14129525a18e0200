//! The database handle: URL parsing, the two pools, and the macros that run one query body on
//! whichever backend the handle holds.
//!
//! diesel's `MultiConnection` cannot hold diesel-async's PostgreSQL connection, so the handle is
//! an enum of two deadpool pools. [`with_conn!`] and [`in_transaction!`] match on it and expand
//! the same body once per backend: each copy is type-checked against its concrete connection,
//! with no trait bounds to write. Queries needed by several methods live in traits implemented
//! for both connections by [`impl_for_each_backend!`], again from one written body.

use std::fmt;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use diesel::{ConnectionError, ConnectionResult, SqliteConnection};
use diesel_async::pooled_connection::deadpool::{BuildError, Pool as DeadPool, PoolError};
use diesel_async::pooled_connection::{
    AsyncDieselConnectionManager, ManagerConfig, RecyclingMethod,
};
use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};

use shop_ports::port::{PoolMonitor, PoolStats};

use crate::error::DbError;
use crate::migrate;

/// SQLite's synchronous connection, run on tokio's blocking threads by diesel-async.
pub(crate) type SqliteConn = SyncConnectionWrapper<SqliteConnection>;

/// Per-connection SQLite settings. `busy_timeout` comes first so that the others wait for a
/// lock instead of failing. WAL lets readers proceed during a write. `synchronous = FULL`
/// syncs the WAL at every commit: an adjustment answered 201 survives a power cut, not only a
/// crash of the process (NORMAL may lose the last commits then). Foreign keys are off by
/// default in SQLite.
const SQLITE_SETUP: &str = "PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; \
     PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;";

/// Per-connection PostgreSQL settings: a runaway query is cancelled (and reported as
/// unavailable) instead of holding a pooled connection forever.
const POSTGRES_SETUP: &str = "SET statement_timeout = '10s'";

/// Where the database is, parsed from a URL.
#[derive(Clone, PartialEq, Eq)]
pub enum DatabaseUrl {
    /// A SQLite file; created, with its parent directory, when missing.
    Sqlite(PathBuf),
    /// A `postgres://` or `postgresql://` URL, passed to the driver as is.
    Postgres(String),
}

impl DatabaseUrl {
    /// Accepts `sqlite://<path>` (`sqlite://data/shop.db` is relative, `sqlite:///tmp/x.db`
    /// absolute), `postgres://…` and `postgresql://…`.
    pub fn parse(url: &str) -> Result<Self, ConnectError> {
        let url = url.trim();
        if let Some(path) = url.strip_prefix("sqlite://") {
            if path.is_empty() {
                return Err(ConnectError::InvalidUrl(
                    "a sqlite URL needs a file path, such as sqlite://data/shop.db",
                ));
            }
            if path.starts_with(':') || path.contains('?') {
                // `:memory:` would give each pooled connection its own empty database, and
                // query parameters would silently become part of the file name.
                return Err(ConnectError::InvalidUrl(
                    "a sqlite URL must name a plain file: no :memory: and no ?parameters",
                ));
            }
            return Ok(Self::Sqlite(PathBuf::from(path)));
        }
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return Ok(Self::Postgres(url.to_owned()));
        }
        match url.split_once("://") {
            Some((scheme, _)) => Err(ConnectError::UnsupportedScheme(scheme.to_owned())),
            None => Err(ConnectError::InvalidUrl(
                "expected sqlite://<path>, postgres://… or postgresql://…",
            )),
        }
    }

    pub fn backend_name(&self) -> &'static str {
        match self {
            Self::Sqlite(_) => "sqlite",
            Self::Postgres(_) => "postgres",
        }
    }
}

/// Shows the URL with any password replaced by `***`, so that it can be logged.
impl fmt::Display for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Sqlite(path) => write!(f, "sqlite://{}", path.display()),
            Self::Postgres(url) => f.write_str(&redact_password(url)),
        }
    }
}

impl fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DatabaseUrl({self})")
    }
}

fn redact_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let authority = match authority.rsplit_once('@') {
        Some((user_info, host)) => match user_info.split_once(':') {
            Some((user, _password)) => format!("{user}:***@{host}"),
            None => authority.to_owned(),
        },
        None => authority.to_owned(),
    };
    // libpq also takes the password as a query parameter.
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let params: Vec<String> = query
                .split('&')
                .map(|param| match param.split_once('=') {
                    Some(("password", _)) => String::from("password=***"),
                    _ => param.to_owned(),
                })
                .collect();
            format!("{path}?{}", params.join("&"))
        }
        None => tail.to_owned(),
    };
    format!("{scheme}://{authority}{tail}")
}

/// Why the database could not be opened. Each message is one line; the cause, when there is
/// one, is the error's `source`.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error(
        "unsupported database URL scheme `{0}`: expected sqlite://, postgres:// or postgresql://"
    )]
    UnsupportedScheme(String),
    #[error("invalid database URL: {0}")]
    InvalidUrl(&'static str),
    #[error("could not create the directory {} for the SQLite database", .path.display())]
    CreateDirectory {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("could not connect to the {backend} database")]
    Connect {
        backend: &'static str,
        #[source]
        source: ConnectionError,
    },
    #[error("could not apply the database migrations")]
    Migrate(#[source] shop_ports::BoxError),
    #[error("could not build the database connection pool")]
    Pool(#[source] BuildError),
}

/// Pool sizing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolOptions {
    /// Connections kept at most (0 is taken as 1).
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

/// A pool of connections to one database, SQLite or PostgreSQL. Cheap to clone (the pools are
/// reference-counted). Implements every store port of `shop-ports`.
#[derive(Clone)]
pub struct Database {
    pub(crate) pool: Pool,
    pub(crate) wait_timeout: Duration,
    /// Checkouts that gave up after `wait_timeout`, shared by the clones (for metrics).
    wait_timeouts: Arc<AtomicU64>,
    /// SQLite's one writer at a time, taken in arrival order (see [`Database::write_turn`]).
    sqlite_writer: Arc<tokio::sync::Mutex<()>>,
}

#[derive(Clone)]
pub(crate) enum Pool {
    Sqlite(DeadPool<SqliteConn>),
    Postgres(DeadPool<AsyncPgConnection>),
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
        let pool = match url {
            DatabaseUrl::Sqlite(path) => {
                let mut config = ManagerConfig::default();
                config.custom_setup = Box::new(setup_sqlite);
                // A local file cannot drop the connection: skip the per-checkout ping.
                config.recycling_method = RecyclingMethod::Fast;
                let manager =
                    AsyncDieselConnectionManager::new_with_config(sqlite_path(path)?, config);
                Pool::Sqlite(
                    DeadPool::builder(manager)
                        .max_size(max_size)
                        .build()
                        .map_err(ConnectError::Pool)?,
                )
            }
            DatabaseUrl::Postgres(url) => {
                let mut config = ManagerConfig::default();
                config.custom_setup = Box::new(setup_postgres);
                // No `SELECT 1` per checkout: diesel-async already drops a connection whose
                // socket is closed (a server restart closes them all), and the extra round trip
                // cost 8% of the API's CPU on an orders page. A connection that breaks between
                // checkout and query fails that request with 503, like any outage.
                config.recycling_method = RecyclingMethod::Fast;
                let manager = AsyncDieselConnectionManager::new_with_config(url, config);
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
            sqlite_writer: Arc::default(),
        })
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
            Pool::Sqlite(pool) => pool.close(),
            Pool::Postgres(pool) => pool.close(),
        }
    }

    /// [`checkout`] from this database's pool, counting the checkouts that time out.
    pub(crate) async fn acquire<T>(
        &self,
        get: impl Future<Output = Result<T, PoolError>>,
    ) -> Result<T, DbError> {
        let result = checkout(get, self.wait_timeout).await;
        if matches!(result, Err(DbError::PoolTimeout(_))) {
            self.wait_timeouts.fetch_add(1, Ordering::Relaxed);
        }
        result
    }

    /// The turn of a SQLite write transaction, held until it commits or rolls back.
    ///
    /// SQLite lets one connection write at a time. Left to SQLite, the pool's other writers
    /// poll the lock with sleeps of growing length (the busy handler: 1, 2, 5, ... 100 ms),
    /// in no order: under 32 concurrent adjustments the median waited 7 ms and the slowest
    /// 1.3 s. Queued here (tokio's mutex is first come, first served), a writer is woken as
    /// soon as the previous one commits, and no pooled connection is held while waiting. The
    /// busy handler still covers writers of other processes (the CLI's import, a seed).
    pub(crate) async fn write_turn(&self) -> Result<tokio::sync::OwnedMutexGuard<()>, DbError> {
        let turn = Arc::clone(&self.sqlite_writer).lock_owned();
        match tokio::time::timeout(self.wait_timeout, turn).await {
            Ok(guard) => Ok(guard),
            Err(_elapsed) => {
                self.wait_timeouts.fetch_add(1, Ordering::Relaxed);
                Err(DbError::PoolTimeout(self.wait_timeout))
            }
        }
    }
}

impl PoolMonitor for Database {
    fn pool_stats(&self) -> PoolStats {
        let status = match &self.pool {
            Pool::Sqlite(pool) => pool.status(),
            Pool::Postgres(pool) => pool.status(),
        };
        PoolStats {
            max_size: status.max_size,
            open: status.size,
            in_use: status.size.saturating_sub(status.available),
            waiting: status.waiting,
            wait_timeouts: self.wait_timeouts.load(Ordering::Relaxed),
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

fn setup_postgres(url: &str) -> SetupFuture<'_, AsyncPgConnection> {
    Box::pin(async move {
        let mut conn = AsyncPgConnection::establish(url).await?;
        conn.batch_execute(POSTGRES_SETUP)
            .await
            .map_err(ConnectionError::CouldntSetupConfiguration)?;
        Ok(conn)
    })
}

/// Waits at most `wait` for a pooled connection. The timeout covers establishing a new
/// connection too, which deadpool's own wait timeout would not without a runtime feature.
pub(crate) async fn checkout<T>(
    get: impl Future<Output = Result<T, PoolError>>,
    wait: Duration,
) -> Result<T, DbError> {
    match tokio::time::timeout(wait, get).await {
        Ok(Ok(object)) => Ok(object),
        Ok(Err(error)) => Err(DbError::Pool(error)),
        Err(_elapsed) => Err(DbError::PoolTimeout(wait)),
    }
}

/// `with_conn!(db, |conn| body)`: runs `body` with `conn` bound to a `&mut` pooled connection
/// of `db`'s backend and evaluates to `Result<_, DbError>`. `body` is expanded once per
/// backend; it may return diesel's `QueryResult` or a `Result<_, DbError>`.
macro_rules! with_conn {
    ($db:expr, |$conn:ident| $body:expr) => {{
        let db: &$crate::database::Database = $db;
        match &db.pool {
            $crate::database::Pool::Sqlite(pool) => match db.acquire(pool.get()).await {
                Ok(mut object) => {
                    let $conn: &mut $crate::database::SqliteConn = &mut object;
                    ($body).map_err($crate::error::DbError::from)
                }
                Err(error) => Err(error),
            },
            $crate::database::Pool::Postgres(pool) => match db.acquire(pool.get()).await {
                Ok(mut object) => {
                    let $conn: &mut ::diesel_async::AsyncPgConnection = &mut object;
                    ($body).map_err($crate::error::DbError::from)
                }
                Err(error) => Err(error),
            },
        }
    }};
}
pub(crate) use with_conn;

/// `in_transaction!(db, |conn| body)`: like [`with_conn!`], inside one transaction that
/// commits when `body` returns `Ok` and rolls back otherwise. `body`'s error type must
/// convert from both `DbError` and diesel's error.
///
/// On SQLite the transaction is `BEGIN IMMEDIATE`: it takes the write lock up front, so a
/// transaction that reads then writes waits (`busy_timeout`) instead of failing on a lock
/// upgrade; and it first waits for its [`Database::write_turn`] in this process.
macro_rules! in_transaction {
    ($db:expr, |$conn:ident| $body:expr) => {{
        let db: &$crate::database::Database = $db;
        match &db.pool {
            $crate::database::Pool::Sqlite(pool) => match db.write_turn().await {
                Ok(_turn) => match db.acquire(pool.get()).await {
                    Ok(mut object) => {
                        object
                            .immediate_transaction(
                                async move |$conn: &mut $crate::database::SqliteConn| $body,
                            )
                            .await
                    }
                    Err(error) => Err(error.into()),
                },
                Err(error) => Err(error.into()),
            },
            $crate::database::Pool::Postgres(pool) => match db.acquire(pool.get()).await {
                Ok(mut object) => {
                    ::diesel_async::AsyncConnection::transaction(
                        &mut *object,
                        async move |$conn: &mut ::diesel_async::AsyncPgConnection| $body,
                    )
                    .await
                }
                Err(error) => Err(error.into()),
            },
        }
    }};
}
pub(crate) use in_transaction;

/// `impl_for_each_backend! { impl Trait { fn … } }`: implements a query trait for both
/// backends' connections from one written body, so shared queries (used inside and outside
/// transactions) are written once and type-checked twice. Inside, `Self` is the concrete
/// connection.
macro_rules! impl_for_each_backend {
    (impl $trait:path { $($body:tt)* }) => {
        impl $trait for $crate::database::SqliteConn {
            $($body)*
        }
        impl $trait for ::diesel_async::AsyncPgConnection {
            $($body)*
        }
    };
}
pub(crate) use impl_for_each_backend;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_url_forms() {
        assert_eq!(
            DatabaseUrl::parse("sqlite://data/shop.db").ok(),
            Some(DatabaseUrl::Sqlite(PathBuf::from("data/shop.db")))
        );
        assert_eq!(
            DatabaseUrl::parse("sqlite:///tmp/x.db").ok(),
            Some(DatabaseUrl::Sqlite(PathBuf::from("/tmp/x.db")))
        );
        for url in [
            "postgres://u@h/db",
            "postgresql://u:p@h:5432/db?sslmode=disable",
        ] {
            assert_eq!(
                DatabaseUrl::parse(url).ok(),
                Some(DatabaseUrl::Postgres(url.to_owned()))
            );
        }
        assert_eq!(
            DatabaseUrl::parse("sqlite://a.db")
                .map(|u| u.backend_name())
                .ok(),
            Some("sqlite")
        );
        assert_eq!(
            DatabaseUrl::parse("postgres://h/db")
                .map(|u| u.backend_name())
                .ok(),
            Some("postgres")
        );
    }

    #[test]
    fn refuses_other_urls_with_a_one_line_message() {
        for url in [
            "",
            "shop.db",
            "sqlite:shop.db",
            "sqlite://",
            "sqlite://:memory:",
            "sqlite://x.db?mode=ro",
            "mysql://root:secret@h/db",
            "http://h",
        ] {
            let error = DatabaseUrl::parse(url).err().map(|e| e.to_string());
            let message = error.unwrap_or_else(|| panic!("{url:?} was accepted"));
            assert!(
                !message.contains('\n') && !message.contains("secret"),
                "{message}"
            );
        }
    }

    #[test]
    fn display_hides_the_password() {
        let url = DatabaseUrl::parse("postgres://shop:s3cret@db.internal:5432/shop").ok();
        let shown = url.map(|u| format!("{u} {u:?}")).unwrap_or_default();
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(shown.contains("postgres://shop:***@db.internal:5432/shop"));
        assert_eq!(
            redact_password("postgres://shop@h/db?sslmode=disable&password=x"),
            "postgres://shop@h/db?sslmode=disable&password=***"
        );
        assert_eq!(redact_password("postgres://h/db"), "postgres://h/db");
    }
}
