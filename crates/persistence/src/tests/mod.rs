//! Adapter tests: each runs on a fresh SQLite file in a temporary directory and, when
//! `TEST_DATABASE_URL` names a PostgreSQL server, on a fresh database created there and dropped
//! afterwards. All in this one module, so the crate has one test binary.

mod api_writes;
mod bench_statements;
mod bench_write_statements;
mod bulk_load;
mod catalogue;
mod clients;
mod device_secret;
mod first_rows;
mod fixtures;
mod import;
mod import_sales;
mod kept_plans;
mod kept_prepared;
mod keys;
mod loyalty;
mod loyalty_points;
mod migrations;
mod one_of;
mod orders;
mod owners;
mod sessions;
mod shops;
mod sqlite_readers;
mod stamps;
mod stock;
mod stock_activity;
mod stock_adjust;
mod stock_bounds;
mod stock_idempotency;
mod sync;
mod tracking;
mod webhooks;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use diesel::connection::{Instrumentation, InstrumentationEvent};
use diesel_async::pooled_connection::deadpool::Object;
use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};

use crate::database::{Pool, SqliteConn, SqliteReader, checkout};
use crate::{Database, DatabaseUrl, PoolOptions};

/// Runs `sql` on a connection of its own, outside any pool (whose `open` would migrate);
/// panics if the database refuses it.
pub(crate) async fn execute_raw(url: &DatabaseUrl, sql: &str) {
    if let Err(error) = try_execute_raw(url, sql).await {
        panic!("{sql}: {error}");
    }
}

/// [`execute_raw`], answering the database's refusal.
pub(crate) async fn try_execute_raw(url: &DatabaseUrl, sql: &str) -> diesel::QueryResult<()> {
    match url {
        DatabaseUrl::Sqlite(path) => {
            let mut conn = SqliteConn::establish(path.to_str().unwrap_or_default())
                .await
                .map_err(|e| diesel::result::Error::QueryBuilderError(e.into()))?;
            conn.batch_execute(sql).await
        }
        DatabaseUrl::Postgres(url) => {
            let mut conn = AsyncPgConnection::establish(url)
                .await
                .map_err(|e| diesel::result::Error::QueryBuilderError(e.into()))?;
            conn.batch_execute(sql).await
        }
    }
}

/// A database for one test, removed when dropped.
pub(crate) struct TestDb {
    pub db: Database,
    pub url: DatabaseUrl,
    _cleanup: Cleanup,
}

#[expect(dead_code, reason = "each variant is held only for its Drop")]
enum Cleanup {
    Sqlite(tempfile::TempDir),
    Postgres(DropPgDatabase),
}

impl TestDb {
    pub fn backend(&self) -> &'static str {
        self.db.backend_name()
    }
}

/// The databases every test runs on: SQLite always, PostgreSQL when `TEST_DATABASE_URL` is set.
/// With `REQUIRE_POSTGRES=1` (CI), a missing `TEST_DATABASE_URL` fails instead of skipping.
pub(crate) async fn test_databases() -> Vec<TestDb> {
    let mut databases = vec![sqlite().await];
    match std::env::var("TEST_DATABASE_URL") {
        Ok(admin_url) if !admin_url.trim().is_empty() => databases.push(postgres(&admin_url).await),
        _ => {
            let required = std::env::var("REQUIRE_POSTGRES").is_ok_and(|v| v == "1");
            assert!(
                !required,
                "REQUIRE_POSTGRES=1 but TEST_DATABASE_URL is not set"
            );
            eprintln!("skipped: TEST_DATABASE_URL not set");
        }
    }
    databases
}

pub(crate) async fn sqlite() -> TestDb {
    sqlite_with(PoolOptions::default()).await
}

pub(crate) async fn sqlite_with(options: PoolOptions) -> TestDb {
    let dir = tempfile::tempdir().unwrap();
    let url = DatabaseUrl::Sqlite(dir.path().join("shop.db"));
    let db = Database::open(&url, options).await.unwrap();
    TestDb {
        db,
        url,
        _cleanup: Cleanup::Sqlite(dir),
    }
}

/// The connections [`exhausted_sqlite`] holds: the writers' and the readers'.
pub(crate) type HeldSqlite = (Object<SqliteConn>, Object<SqliteReader>);

/// A SQLite database whose two pools have one connection each, both checked out and held by
/// the caller: any other checkout gives up after 50 ms. Dropping them frees the pools.
pub(crate) async fn exhausted_sqlite() -> (TestDb, Database, HeldSqlite) {
    let t = sqlite().await;
    let options = PoolOptions {
        max_size: 1,
        wait_timeout: Duration::from_millis(50),
    };
    let db = Database::open(&t.url, options).await.unwrap();
    let Pool::Sqlite(pools) = &db.pool else {
        panic!("expected a SQLite pool");
    };
    let writer = checkout(pools.writes.get(), db.wait_timeout).await.unwrap();
    let reader = checkout(pools.reads.get(), db.wait_timeout).await.unwrap();
    (t, db, (writer, reader))
}

async fn postgres(admin_url: &str) -> TestDb {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.subsec_nanos())
        .unwrap_or(0);
    let name = format!(
        "shop_test_{}_{}_{}",
        std::process::id(),
        nanos,
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    let mut admin = AsyncPgConnection::establish(admin_url)
        .await
        .unwrap_or_else(|e| panic!("TEST_DATABASE_URL is set but PostgreSQL is unreachable: {e}"));
    // An ICU en-US default collation orders `B` after `a` and `a_b` before `a-b`: the schema's
    // `COLLATE "C"` must keep byte order anyway. Plain CREATE where ICU is missing.
    let icu = format!(
        "CREATE DATABASE \"{name}\" TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'"
    );
    if admin.batch_execute(&icu).await.is_err() {
        admin
            .batch_execute(&format!("CREATE DATABASE \"{name}\""))
            .await
            .unwrap();
    }
    let cleanup = DropPgDatabase {
        admin_url: admin_url.to_owned(),
        name: name.clone(),
    };
    let url = DatabaseUrl::Postgres(with_database(admin_url, &name));
    let db = Database::open(&url, PoolOptions::default()).await.unwrap();
    TestDb {
        db,
        url,
        _cleanup: Cleanup::Postgres(cleanup),
    }
}

/// The admin URL with its database name replaced.
fn with_database(admin_url: &str, name: &str) -> String {
    let (base, query) = match admin_url.split_once('?') {
        Some((base, query)) => (base, format!("?{query}")),
        None => (admin_url, String::new()),
    };
    let authority_start = base.find("://").map_or(0, |i| i + 3);
    let host_end = base[authority_start..]
        .find('/')
        .map_or(base.len(), |i| authority_start + i);
    format!("{}/{name}{query}", &base[..host_end])
}

/// Drops the test database even when the test panicked: on its own thread and runtime, since
/// `Drop` cannot await.
struct DropPgDatabase {
    admin_url: String,
    name: String,
}

impl Drop for DropPgDatabase {
    fn drop(&mut self) {
        let admin_url = self.admin_url.clone();
        let sql = format!("DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)", self.name);
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?;
            runtime.block_on(async {
                let mut admin = AsyncPgConnection::establish(&admin_url)
                    .await
                    .map_err(|e| e.to_string())?;
                admin.batch_execute(&sql).await.map_err(|e| e.to_string())
            })
        })
        .join();
        if !matches!(dropped, Ok(Ok(()))) {
            eprintln!("could not drop test database {}: {dropped:?}", self.name);
        }
    }
}

/// Counts the statements a connection runs.
pub(crate) fn counter() -> (Arc<AtomicUsize>, impl Instrumentation) {
    let count = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&count);
    let instrumentation = move |event: InstrumentationEvent<'_>| {
        if matches!(event, InstrumentationEvent::StartQuery { .. }) {
            seen.fetch_add(1, Ordering::SeqCst);
        }
    };
    (count, instrumentation)
}

/// Counts the statements a connection adds to its prepared-statement cache.
pub(crate) fn cache_counter() -> (Arc<AtomicUsize>, impl Instrumentation) {
    let count = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&count);
    let instrumentation = move |event: InstrumentationEvent<'_>| {
        if matches!(event, InstrumentationEvent::CacheQuery { .. }) {
            seen.fetch_add(1, Ordering::SeqCst);
        }
    };
    (count, instrumentation)
}

#[test]
fn test_database_urls_keep_credentials_and_parameters() {
    assert_eq!(
        with_database("postgres://postgres@127.0.0.1:5432/postgres", "t1"),
        "postgres://postgres@127.0.0.1:5432/t1"
    );
    assert_eq!(
        with_database("postgresql://u:p@h/db?sslmode=disable", "t2"),
        "postgresql://u:p@h/t2?sslmode=disable"
    );
    assert_eq!(with_database("postgres://h", "t3"), "postgres://h/t3");
}
