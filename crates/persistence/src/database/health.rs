//! The database as a readiness check: reachable through the pool, and its schema current.
//!
//! "Current" means every migration embedded in this binary is recorded as applied. Startup
//! applies them, so a failure here means the database changed under a running instance (a
//! restored backup, a migration reverted by hand). Versions the binary does not know (a newer
//! instance migrated first) do not count against it. The check is one indexed read of
//! diesel's bookkeeping table through the ordinary pool, so it obeys the pool's wait timeout.

use async_trait::async_trait;
use diesel::QueryableByName;
use diesel::migration::MigrationSource;
use diesel::sql_types::Text;
use diesel::sqlite::Sqlite;
use diesel_async::RunQueryDsl;
use diesel_migrations::EmbeddedMigrations;
use shop_ports::StoreError;
use shop_ports::port::{HealthCheck, Unhealthy};

use crate::database::migrate::{POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS};
use crate::database::{Database, Pool, with_conn};

/// diesel_migrations' own table, the same on both backends.
const APPLIED_VERSIONS: &str = "SELECT version FROM __diesel_schema_migrations";

#[derive(QueryableByName)]
struct Applied {
    #[diesel(sql_type = Text)]
    version: String,
}

#[async_trait]
impl HealthCheck for Database {
    fn name(&self) -> &'static str {
        "database"
    }

    fn required(&self) -> bool {
        true
    }

    async fn check(&self) -> Result<(), Unhealthy> {
        let applied = with_conn!(self, |conn| diesel::sql_query(APPLIED_VERSIONS)
            .load::<Applied>(conn)
            .await)
        .map_err(|error| Unhealthy::Unreachable(Box::new(StoreError::from(error))))?;
        let missing = embedded_versions(self.embedded_migrations())
            .iter()
            .filter(|version| !applied.iter().any(|row| &row.version == *version))
            .count();
        if missing == 0 {
            Ok(())
        } else {
            Err(Unhealthy::SchemaBehind { missing })
        }
    }
}

impl Database {
    fn embedded_migrations(&self) -> EmbeddedMigrations {
        match self.pool {
            Pool::Sqlite(_) => SQLITE_MIGRATIONS,
            Pool::Postgres(_) => POSTGRES_MIGRATIONS,
        }
    }
}

/// The versions of the embedded migrations. Listing them reads no database, so any backend
/// type serves; an embedded set cannot fail to list (it was checked at compile time).
fn embedded_versions(migrations: EmbeddedMigrations) -> Vec<String> {
    MigrationSource::<Sqlite>::migrations(&migrations)
        .map(|found| {
            found
                .iter()
                .map(|migration| migration.name().version().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {

    use shop_ports::port::PoolMonitor;

    use super::*;
    use crate::database::migrate::revert_last;
    use crate::tests::{exhausted_sqlite, sqlite, test_databases};

    #[tokio::test]
    async fn a_migrated_database_is_ready_and_one_missing_migration_is_not() {
        for t in test_databases().await {
            assert!(t.db.check().await.is_ok(), "{}", t.backend());
            revert_last(&t.url).await.unwrap();
            let outcome = t.db.check().await;
            assert!(
                matches!(outcome, Err(Unhealthy::SchemaBehind { missing: 1 })),
                "{}: {outcome:?}",
                t.backend()
            );
        }
    }

    #[tokio::test]
    async fn an_exhausted_pool_is_unreachable_counted_and_visible_in_the_stats() {
        let (_t, db, held) = exhausted_sqlite().await;
        let stats = db.pool_stats();
        // SQLite's writers' and readers' pools, one connection each, both held.
        assert_eq!((stats.max_size, stats.open, stats.in_use), (2, 2, 2));

        let outcome = db.check().await;
        assert!(
            matches!(outcome, Err(Unhealthy::Unreachable(_))),
            "{outcome:?}"
        );
        assert_eq!(db.pool_stats().wait_timeouts, 1);

        drop(held);
        assert!(db.check().await.is_ok());
        assert_eq!(db.pool_stats().in_use, 0);
    }

    #[tokio::test]
    async fn a_closed_pool_is_unreachable() {
        let t = sqlite().await;
        t.db.close();
        assert!(matches!(t.db.check().await, Err(Unhealthy::Unreachable(_))));
    }
}
