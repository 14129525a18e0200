//! A page's `LIMIT` written into its statement (`first_rows.rs`): a client cycling through
//! page sizes adds one cached statement per ten sizes, not one per size, and still gets
//! exactly the rows it asked for.

use shop_ports::port::ReadFrom;
use std::sync::atomic::{AtomicUsize, Ordering};

use diesel_async::{AsyncConnection, AsyncPgConnection};
use shop_domain::client::ClientListQuery;
use shop_domain::pagination::PageLimit;
use shop_ports::port::ClientRepository;
use shop_seed::{BulkBatch, BulkLoader};

use super::fixtures::{client, two_shops};
use super::{cache_counter, test_databases};
use crate::DatabaseUrl;
use crate::clients::{ClientQueries, ClientSelection};
use crate::database::SqliteConn;

/// Pages of 1 to 30 clients, on one connection; the number of statements cached.
macro_rules! statements_for_30_sizes {
    ($conn:expr, $shop:expr) => {{
        let conn = &mut $conn;
        let (cached, instrumentation) = cache_counter();
        conn.set_instrumentation(instrumentation);
        for size in 1..=30_usize {
            let query = ClientListQuery {
                limit: PageLimit::new(size as i64).unwrap(),
                ..ClientListQuery::default()
            };
            let page = conn.load_clients($shop, ClientSelection::Page(&query));
            let read = page.await.unwrap().len();
            assert!((size + 1..=size + 10).contains(&read), "{size}: {read}");
        }
        AtomicUsize::load(&cached, Ordering::SeqCst)
    }};
}

#[tokio::test]
async fn page_sizes_share_statements_and_pages_keep_their_size() {
    for t in test_databases().await {
        let backend = t.backend();
        let (a, _) = two_shops(&t.db).await;
        let batch = BulkBatch {
            clients: (0..50)
                .map(|n| client(&format!("c{n:02}"), "Camille"))
                .collect(),
            ..BulkBatch::default()
        };
        t.db.insert_batch(&a.id, batch).await.unwrap();

        let cached = match &t.url {
            DatabaseUrl::Sqlite(path) => {
                let conn = SqliteConn::establish(path.to_str().unwrap()).await;
                statements_for_30_sizes!(conn.unwrap(), &a.id)
            }
            DatabaseUrl::Postgres(url) => {
                let conn = AsyncPgConnection::establish(url).await;
                statements_for_30_sizes!(conn.unwrap(), &a.id)
            }
        };
        // Sizes 1 to 30 read 2 to 31 rows: LIMIT 11, 21 or 31.
        assert_eq!(cached, 3, "{backend}");

        for size in [1_usize, 7, 20, 29] {
            let query = ClientListQuery {
                limit: PageLimit::new(size as i64).unwrap(),
                ..ClientListQuery::default()
            };
            let page =
                t.db.list_clients(&a.id, &query, ReadFrom::Primary)
                    .await
                    .unwrap();
            assert_eq!(page.len(), size + 1, "{backend}: the port's limit + 1");
        }
    }
}
