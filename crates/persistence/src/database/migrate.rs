//! Schema migrations, embedded in the binary: one folder per backend (`migrations/sqlite`,
//! `migrations/postgres`), with the same versions but for a change of one backend alone, and
//! the same tables except for PostgreSQL's `COLLATE "C"` on key columns; PostgreSQL alone has
//! trigram indexes (clients and stock search), and SQLite alone keeps the webhook queue's
//! foreign keys and its deferred fan-out's cursor.
//!
//! diesel_migrations is synchronous. On PostgreSQL it runs through diesel-async's
//! `AsyncConnectionWrapper` (no libpq); on SQLite through the plain synchronous connection that
//! the pool wraps anyway. Both run inside `spawn_blocking`: diesel-async's own
//! `AsyncMigrationHarness` uses `block_in_place`, which panics on a current-thread runtime.

use std::path::Path;

use diesel::connection::SimpleConnection;
use diesel::{Connection, SqliteConnection};
use diesel_async::AsyncPgConnection;
use diesel_async::async_connection_wrapper::AsyncConnectionWrapper;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

use crate::database::{ConnectError, DatabaseUrl, sqlite_path};

pub(crate) const SQLITE_MIGRATIONS: EmbeddedMigrations =
    embed_migrations!("../../migrations/sqlite");
pub(crate) const POSTGRES_MIGRATIONS: EmbeddedMigrations =
    embed_migrations!("../../migrations/postgres");

/// Set before migrating SQLite. WAL is a property of the file, so it is set once here too;
/// foreign keys stay off, as SQLite's table-rebuild procedure for migrations requires.
const SQLITE_MIGRATION_SETUP: &str = "PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL;";

/// Serialises concurrent migrators (two instances starting together) on one PostgreSQL
/// database. Session-level: released when the migration connection closes.
const POSTGRES_MIGRATION_LOCK: &str = "SELECT pg_advisory_lock(4721937110350651)";

type PgWrapper = AsyncConnectionWrapper<AsyncPgConnection>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    Up,
    /// Reverts every applied migration (tests prove that each `down.sql` works).
    #[cfg(test)]
    DownAll,
    /// Reverts the latest applied migrations down to, and including, the one with this
    /// version (`2026-11-25-000000`): tests of a migration's data backfill, which must still
    /// revert the migration they test once later ones exist.
    #[cfg(test)]
    DownThrough(&'static str),
    /// Reverts the latest applied migration (a readiness test: one migration missing).
    #[cfg(test)]
    DownLast,
}

/// Applies the pending migrations; returns how many were applied.
pub(crate) async fn run_pending(url: &DatabaseUrl) -> Result<usize, ConnectError> {
    let count = run(url.clone(), Direction::Up).await?;
    if count > 0 {
        tracing::info!(
            backend = url.backend_name(),
            applied = count,
            "database migrations applied"
        );
    }
    Ok(count)
}

/// Reverts every migration; returns how many were reverted.
#[cfg(test)]
pub(crate) async fn revert_all(url: &DatabaseUrl) -> Result<usize, ConnectError> {
    run(url.clone(), Direction::DownAll).await
}

/// Reverts the latest applied migration; returns how many were reverted (1).
#[cfg(test)]
pub(crate) async fn revert_last(url: &DatabaseUrl) -> Result<usize, ConnectError> {
    run(url.clone(), Direction::DownLast).await
}

/// Reverts the latest migrations through the one of `version`; returns how many were
/// reverted.
#[cfg(test)]
pub(crate) async fn revert_through(
    url: &DatabaseUrl,
    version: &'static str,
) -> Result<usize, ConnectError> {
    run(url.clone(), Direction::DownThrough(version)).await
}

/// How many migrations are embedded for this backend.
#[cfg(test)]
pub(crate) fn embedded_count(url: &DatabaseUrl) -> usize {
    use diesel::migration::MigrationSource;
    let migrations = match url {
        DatabaseUrl::Sqlite(_) => SQLITE_MIGRATIONS,
        DatabaseUrl::Postgres(_) => POSTGRES_MIGRATIONS,
    };
    MigrationSource::<diesel::sqlite::Sqlite>::migrations(&migrations)
        .map(|found| found.len())
        .unwrap_or(0)
}

async fn run(url: DatabaseUrl, direction: Direction) -> Result<usize, ConnectError> {
    tokio::task::spawn_blocking(move || match &url {
        DatabaseUrl::Sqlite(path) => {
            let mut conn = open_sqlite_file(path)?;
            conn.batch_execute(SQLITE_MIGRATION_SETUP)
                .map_err(|error| ConnectError::Migrate(Box::new(error)))?;
            apply(&mut conn, || SQLITE_MIGRATIONS, direction)
        }
        DatabaseUrl::Postgres(url) => {
            let mut conn = <PgWrapper as Connection>::establish(url).map_err(|source| {
                ConnectError::Connect {
                    backend: "postgres",
                    source,
                }
            })?;
            <PgWrapper as SimpleConnection>::batch_execute(&mut conn, POSTGRES_MIGRATION_LOCK)
                .map_err(|error| ConnectError::Migrate(Box::new(error)))?;
            apply(&mut conn, || POSTGRES_MIGRATIONS, direction)
        }
    })
    .await
    .map_err(|join_error| ConnectError::Migrate(Box::new(join_error)))?
}

/// Creates the parent directory if needed; SQLite creates the file itself.
fn open_sqlite_file(path: &Path) -> Result<SqliteConnection, ConnectError> {
    let text = sqlite_path(path)?;
    if let Some(parent) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| ConnectError::CreateDirectory {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    SqliteConnection::establish(text).map_err(|source| ConnectError::Connect {
        backend: "sqlite",
        source,
    })
}

/// `migrations` gives the embedded set (a const) each time a harness call takes it.
fn apply<DB, C>(
    conn: &mut C,
    migrations: impl Fn() -> EmbeddedMigrations,
    direction: Direction,
) -> Result<usize, ConnectError>
where
    DB: diesel::backend::Backend,
    C: MigrationHarness<DB>,
{
    let count = match direction {
        Direction::Up => conn
            .run_pending_migrations(migrations())
            .map(|done| done.len()),
        #[cfg(test)]
        Direction::DownAll => conn
            .revert_all_migrations(migrations())
            .map(|done| done.len()),
        #[cfg(test)]
        Direction::DownLast => conn.revert_last_migration(migrations()).map(|_| 1),
        #[cfg(test)]
        Direction::DownThrough(version) => revert_through_version(conn, migrations, version),
    };
    count.map_err(ConnectError::Migrate)
}

/// Reverts the latest migrations until the one of `version` is not applied any more.
#[cfg(test)]
fn revert_through_version<DB, C>(
    conn: &mut C,
    migrations: impl Fn() -> EmbeddedMigrations,
    version: &str,
) -> diesel::migration::Result<usize>
where
    DB: diesel::backend::Backend,
    C: MigrationHarness<DB>,
{
    let wanted = version.replace('-', "");
    let mut reverted = 0;
    while conn
        .applied_migrations()?
        .iter()
        .any(|applied| applied.to_string().replace('-', "") == wanted)
    {
        conn.revert_last_migration(migrations())?;
        reverted += 1;
    }
    Ok(reverted)
}
