//! `one_of`: finds exactly the rows of the ids it is given, on both databases, and its
//! statement enters the connection's prepared-statement cache twice at most whatever the number
//! of ids (one id is an equality, any longer list one array), where diesel's `eq_any` on SQLite
//! is compiled again at every call.

use std::sync::atomic::{AtomicUsize, Ordering};

use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};

use super::fixtures::two_shops;
use super::{cache_counter, test_databases};
use crate::DatabaseUrl;
use crate::database::SqliteConn;
use crate::schema::shops;
use crate::sql::one_of::one_of;

/// Looks the shops up by lists of 1, 2, 3 and 1 ids (one unknown, one with a quote, which the
/// JSON array must carry intact); returns what each found and how many statements entered the
/// cache in all.
macro_rules! found_and_cached {
    ($conn:expr, $a:expr, $b:expr) => {{
        let conn = &mut $conn;
        let (cached, instrumentation) = cache_counter();
        conn.set_instrumentation(instrumentation);
        let lists: [Vec<&str>; 4] = [
            vec![$a],
            vec![$b, "no-such-shop"],
            vec!["x\"'y", $b, $a],
            vec![$b],
        ];
        let mut found = Vec::new();
        for ids in &lists {
            let mut rows: Vec<String> = shops::table
                .filter(one_of(shops::id, ids))
                .select(shops::id)
                .load(conn)
                .await
                .unwrap();
            rows.sort();
            found.push(rows);
        }
        // `AtomicUsize::load` by path: diesel's `RunQueryDsl::load` is in scope too.
        (found, AtomicUsize::load(&cached, Ordering::SeqCst))
    }};
}

#[tokio::test]
async fn finds_the_listed_rows_with_one_cached_statement() {
    for t in test_databases().await {
        let (a, b) = two_shops(&t.db).await;
        let (a, b) = (a.id.as_str(), b.id.as_str());
        let (found, cached) = match &t.url {
            DatabaseUrl::Sqlite(path) => {
                let conn = SqliteConn::establish(path.to_str().unwrap()).await;
                found_and_cached!(conn.unwrap(), a, b)
            }
            DatabaseUrl::Postgres(url) => {
                let conn = AsyncPgConnection::establish(url).await;
                found_and_cached!(conn.unwrap(), a, b)
            }
        };
        let backend = t.backend();
        let mut both = vec![a.to_owned(), b.to_owned()];
        both.sort();
        assert_eq!(
            found,
            [
                vec![a.to_owned()],
                vec![b.to_owned()],
                both,
                vec![b.to_owned()]
            ],
            "{backend}"
        );
        assert_eq!(
            cached, 2,
            "{backend}: one statement for one id, one for every longer list"
        );
    }
}
