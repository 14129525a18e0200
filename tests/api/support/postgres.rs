//! A throw-away PostgreSQL database per test, created on the server named by
//! `TEST_DATABASE_URL` and dropped (with its connections) when the test ends, pass or fail.

use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};

pub struct ScratchDatabase {
    admin_url: String,
    name: String,
    pub url: String,
}

/// `None` when `TEST_DATABASE_URL` is unset (and not required).
pub async fn create() -> Option<ScratchDatabase> {
    let Ok(admin_url) = std::env::var("TEST_DATABASE_URL") else {
        let required = std::env::var("REQUIRE_POSTGRES").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "REQUIRE_POSTGRES=1 but TEST_DATABASE_URL is not set"
        );
        eprintln!("SKIPPED on PostgreSQL: TEST_DATABASE_URL is not set");
        return None;
    };
    Some(create_on(admin_url).await)
}

/// A scratch database on the primary of the streaming pair of `scripts/replica/up.sh`
/// (`TEST_REPLICA_PRIMARY_URL`), and its URL on the replica (`TEST_REPLICA_URL`), which
/// receives it by streaming. `None` when they are unset (and not required).
pub async fn create_replicated() -> Option<(ScratchDatabase, String)> {
    let (Ok(primary), Ok(replica)) = (
        std::env::var("TEST_REPLICA_PRIMARY_URL"),
        std::env::var("TEST_REPLICA_URL"),
    ) else {
        let required = std::env::var("REQUIRE_REPLICA").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "REQUIRE_REPLICA=1 but TEST_REPLICA_PRIMARY_URL or TEST_REPLICA_URL is not set"
        );
        eprintln!("SKIPPED with replicas: TEST_REPLICA_PRIMARY_URL is not set");
        return None;
    };
    let scratch = create_on(primary).await;
    let on_replica = with_database(&replica, &scratch.name);
    Some((scratch, on_replica))
}

async fn create_on(admin_url: String) -> ScratchDatabase {
    let name = format!("shop_test_{}", uuid::Uuid::new_v4().simple());
    let mut admin = AsyncPgConnection::establish(&admin_url)
        .await
        .unwrap_or_else(|e| panic!("TEST_DATABASE_URL is set but PostgreSQL is unreachable: {e}"));
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .await
        .expect("create the test database");
    let url = with_database(&admin_url, &name);
    ScratchDatabase {
        admin_url,
        name,
        url,
    }
}

/// Replaces the database name in a `postgres://` URL, keeping any `?options`.
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(b, q)| (b, Some(q)));
    let authority_end = base.find("://").map_or(0, |i| i + 3);
    let server = match base[authority_end..].find('/') {
        Some(slash) => &base[..authority_end + slash],
        None => base,
    };
    match query {
        Some(query) => format!("{server}/{name}?{query}"),
        None => format!("{server}/{name}"),
    }
}

impl Drop for ScratchDatabase {
    fn drop(&mut self) {
        let admin_url = self.admin_url.clone();
        let statement = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        // Drop runs inside the test's runtime, which cannot be blocked on: use a thread.
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            runtime.block_on(async {
                let mut admin = AsyncPgConnection::establish(&admin_url).await?;
                admin.batch_execute(&statement).await?;
                Ok::<_, Box<dyn std::error::Error + Send + Sync>>(())
            })?;
            Ok::<_, Box<dyn std::error::Error + Send + Sync>>(())
        })
        .join();
        if !matches!(dropped, Ok(Ok(()))) {
            eprintln!("warning: could not drop test database {}", self.name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::with_database;

    #[test]
    fn swaps_only_the_database_name() {
        assert_eq!(
            with_database("postgres://u@h:5432/ci_x", "t"),
            "postgres://u@h:5432/t"
        );
        assert_eq!(
            with_database("postgres://u@h/ci?sslmode=disable", "t"),
            "postgres://u@h/t?sslmode=disable"
        );
        assert_eq!(
            with_database("postgres://u@h:5432", "t"),
            "postgres://u@h:5432/t"
        );
    }
}
