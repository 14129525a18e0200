//! SQLite's readers' pool (`database/calling_thread.rs`): an API read runs on the thread that
//! asks for it, is served while every writer connection is busy, and cannot write.

use shop_ports::port::ReadFrom;
use std::thread;

use diesel_async::RunQueryDsl;
use shop_domain::catalogue::ProductListQuery;
use shop_ports::StoreError;
use shop_ports::port::{CatalogueRepository, ShopStore};

use super::fixtures::{imported, product, store_products, two_shops};
use super::{exhausted_sqlite, sqlite};
use crate::database::{Pool, with_read_conn};
use crate::error::DbError;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_api_read_runs_on_the_thread_that_asks_for_it() {
    let t = sqlite().await;
    let asking = thread::current().id();
    let Pool::Sqlite(pools) = &t.db.pool else {
        panic!("expected SQLite");
    };
    let mut reader = pools.reads.get().await.unwrap();
    let ran_on = reader.spawn_blocking(|_| Ok(thread::current().id())).await;
    assert_eq!(ran_on.unwrap(), asking);
    // A writer's statement, for contrast, runs on one of tokio's blocking threads.
    let mut writer = pools.writes.get().await.unwrap();
    let ran_on = writer.spawn_blocking(|_| Ok(thread::current().id())).await;
    assert_ne!(ran_on.unwrap(), asking);
}

#[tokio::test]
async fn api_reads_are_served_while_every_writer_connection_is_busy() {
    let (t, db, (_writer, reader)) = exhausted_sqlite().await;
    let (a, _) = two_shops(&t.db).await;
    store_products(&t.db, &a, vec![imported(product("p1"))]).await;
    drop(reader);

    // `db`'s one writer connection is still held: what needs it gives up...
    let by_slug = db.find_shop_by_slug(&a.slug).await;
    assert!(
        matches!(by_slug, Err(StoreError::Unavailable(_))),
        "{by_slug:?}"
    );
    // ...and the API's read is served by the readers' pool.
    let products = db
        .list_products(&a.id, &ProductListQuery::default(), ReadFrom::Primary)
        .await;
    assert_eq!(products.unwrap().len(), 1);
}

#[tokio::test]
async fn a_reader_connection_refuses_to_write() {
    let t = sqlite().await;
    let written: Result<usize, DbError> = with_read_conn!(&t.db, ReadFrom::Primary, |conn| {
        diesel::sql_query("CREATE TABLE written_by_a_reader (n INTEGER)")
            .execute(conn)
            .await
    });
    let refused = written.expect_err("a reader wrote");
    assert!(
        format!("{refused:?}").contains("readonly"),
        "unexpected error: {refused:?}"
    );
}
