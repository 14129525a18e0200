//! The statements `ceiling sqlite` (crates/bench) runs are the adapter's own: the SQL text and
//! the binds of a products page and an orders page (`GET /products?limit=20`,
//! `GET /orders?limit=20`), as scripts/bench/sql/sqlite/*_page.sql hold them.

use std::sync::{Arc, Mutex};

use diesel::connection::{Instrumentation, InstrumentationEvent};
use diesel_async::AsyncConnection;
use shop_domain::catalogue::ProductListQuery;
use shop_domain::order::OrderListQuery;
use shop_domain::pagination::PageLimit;

use super::fixtures::two_shops;
use super::sqlite;
use crate::DatabaseUrl;
use crate::catalogue::{CatalogueQueries, Selection};
use crate::database::{SQLITE_SETUP, SqliteConn};
use crate::orders::{OrderQueries, OrderSelection};

const PRODUCTS_PAGE: &str = include_str!("../../../../scripts/bench/sql/sqlite/products_page.sql");
const ORDERS_PAGE: &str = include_str!("../../../../scripts/bench/sql/sqlite/orders_page.sql");

/// Every statement a connection starts, as diesel shows it: `SQL -- binds: [...]`.
pub(super) fn recorder() -> (Arc<Mutex<Vec<String>>>, impl Instrumentation) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let instrumentation = move |event: InstrumentationEvent<'_>| {
        if let InstrumentationEvent::StartQuery { query, .. } = event {
            record.lock().unwrap().push(query.to_string());
        }
    };
    (seen, instrumentation)
}

/// The setup, statement and binds a file gives, in the form diesel shows a statement:
/// (setup, `SQL`, `["...", true, 21]`), with `:shop_id` filled in.
fn expected(file: &str, shop_id: &str) -> (String, String, String) {
    let mut setup = String::new();
    let mut binds = Vec::new();
    let mut sql = Vec::new();
    for line in file.lines().map(str::trim).filter(|line| !line.is_empty()) {
        let Some(comment) = line.strip_prefix("--").map(str::trim) else {
            sql.push(line);
            continue;
        };
        if let Some(value) = comment.strip_prefix("setup:") {
            setup = value.trim().to_owned();
        } else if let Some(list) = comment.strip_prefix("binds:") {
            for item in list.split(',').map(str::trim) {
                let (kind, value) = item.split_once(' ').unwrap();
                // As diesel's synchronous SQLite connection shows them: each value's Debug.
                binds.push(match (kind, value.trim()) {
                    ("text", ":shop_id") => format!("{shop_id:?}"),
                    ("text", quoted) => format!("{:?}", quoted.trim_matches('\'')),
                    ("bool" | "integer" | "bigint", value) => value.to_owned(),
                    other => panic!("unknown bind {other:?}"),
                });
            }
        }
    }
    (setup, sql.join(" "), format!("[{}]", binds.join(", ")))
}

fn one_statement(seen: &Mutex<Vec<String>>) -> (String, String) {
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1, "{seen:#?}");
    let (sql, binds) = seen[0].split_once(" -- binds: ").unwrap();
    (sql.to_owned(), binds.to_owned())
}

/// Whitespace aside: the file holds the setup on one line.
fn words(text: &str) -> Vec<&str> {
    text.split_whitespace().collect()
}

#[tokio::test]
async fn the_sqlite_ceiling_runs_the_statements_and_binds_of_the_adapters_pages() {
    let t = sqlite().await;
    let (a, _) = two_shops(&t.db).await;
    let DatabaseUrl::Sqlite(path) = &t.url else {
        unreachable!("sqlite() opens a SQLite file")
    };

    let mut conn = SqliteConn::establish(path.to_str().unwrap()).await.unwrap();
    let (seen, instrumentation) = recorder();
    conn.set_instrumentation(instrumentation);
    // `GET /products?limit=20`: the HTTP layer's query for it.
    let products = ProductListQuery {
        limit: PageLimit::new(20).unwrap(),
        ..ProductListQuery::default()
    };
    conn.load_products(&a.id, Selection::Page(&products))
        .await
        .unwrap();
    let (setup, sql, binds) = expected(PRODUCTS_PAGE, a.id.as_str());
    assert_eq!(words(&setup), words(SQLITE_SETUP));
    assert_eq!(one_statement(&seen), (sql, binds));

    let mut conn = SqliteConn::establish(path.to_str().unwrap()).await.unwrap();
    let (seen, instrumentation) = recorder();
    conn.set_instrumentation(instrumentation);
    let orders = OrderListQuery {
        limit: PageLimit::new(20).unwrap(),
        ..OrderListQuery::default()
    };
    conn.load_orders(&a.id, OrderSelection::Page(&orders))
        .await
        .unwrap();
    let (setup, sql, binds) = expected(ORDERS_PAGE, a.id.as_str());
    assert_eq!(words(&setup), words(SQLITE_SETUP));
    assert_eq!(one_statement(&seen), (sql, binds));
}
