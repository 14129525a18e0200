//! `KeptPrepared`: an `UPDATE` enters its connection's prepared-statement cache once and is
//! reused, where diesel alone never caches it and prepares it anew at every call.

use std::sync::atomic::{AtomicUsize, Ordering};

use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};

use super::{cache_counter, test_databases};
use crate::DatabaseUrl;
use crate::database::SqliteConn;
use crate::schema::variants;
use crate::sql::kept_prepared::KeptPrepared;

/// The adjustment's stock update, for a variant no shop has (no row changes).
macro_rules! add_stock {
    ($variant:expr) => {
        diesel::update(variants::table)
            .filter(variants::shop_id.eq("shop-none"))
            .filter(variants::id.eq($variant))
            .set(variants::stock.eq(variants::stock + 1))
    };
}

/// Runs the update three times bare, then three times kept; returns how many statements each
/// way added to the connection's cache.
macro_rules! cached_bare_then_kept {
    ($conn:expr) => {{
        let conn = &mut $conn;
        let (cached, instrumentation) = cache_counter();
        conn.set_instrumentation(instrumentation);
        for variant in ["v-1", "v-2", "v-3"] {
            add_stock!(variant).execute(conn).await.unwrap();
        }
        // `AtomicUsize::load` by path: diesel's `RunQueryDsl::load` is in scope too.
        let bare = AtomicUsize::load(&cached, Ordering::SeqCst);
        for variant in ["v-1", "v-2", "v-3"] {
            KeptPrepared(add_stock!(variant))
                .execute(conn)
                .await
                .unwrap();
        }
        (bare, AtomicUsize::load(&cached, Ordering::SeqCst) - bare)
    }};
}

#[tokio::test]
async fn an_update_is_prepared_once_per_connection() {
    for t in test_databases().await {
        let (bare, kept) = match &t.url {
            DatabaseUrl::Sqlite(path) => {
                let conn = SqliteConn::establish(path.to_str().unwrap()).await;
                cached_bare_then_kept!(conn.unwrap())
            }
            DatabaseUrl::Postgres(url) => {
                let conn = AsyncPgConnection::establish(url).await;
                cached_bare_then_kept!(conn.unwrap())
            }
        };
        let backend = t.backend();
        assert_eq!(bare, 0, "{backend}: diesel alone caches an UPDATE");
        assert_eq!(kept, 1, "{backend}: one statement, cached once and reused");
    }
}
