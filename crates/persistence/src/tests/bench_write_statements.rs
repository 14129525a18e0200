//! The statements `ceiling-sqlite --write` (crates/bench) runs for the two benchmarked API v2
//! writes are the adapter's own, in its order: a product's price `PATCH` and a loyalty credit,
//! as scripts/bench/sql/sqlite/{product_patch,loyalty_credit}.sql hold them. A change of either
//! write's statements fails here until its ceiling runs the same ones.
//!
//! The price `PATCH` also shows what a write of a stored product leaves alone: its category,
//! brand and variant rows, which it would otherwise upsert (and lock) for nothing.

use std::sync::{Arc, Mutex};

use diesel_async::AsyncConnection;
use shop_domain::api_key::KeyPrefix;
use shop_domain::catalogue::write::ProductPatch;
use shop_domain::client::ClientConfidential;
use shop_domain::id::{ApiWriteId, BrandId, CategoryId, ClientId, LoyaltyAdjustmentId, ProductId};
use shop_domain::import::ShopImport;
use shop_domain::loyalty::{PointsDelta, PointsReason};
use shop_domain::money::Cents;
use shop_ports::port::{
    PatchProductCommand, PointsCommand, PointsLedger, PointsOutcome, PointsResult,
    ProductWriteContext, ProductWriteResult, ProductWriter,
};

use super::bench_statements::recorder;
use super::fixtures::{
    KEY_A, at, brand, category, client, imported, imported_client, keyed_shops, product, store,
    with_outbox,
};
use super::{TestDb, sqlite_with};
use crate::PoolOptions;
use crate::database::Pool;

const PRODUCT_PATCH: &str = include_str!("../../../../scripts/bench/sql/sqlite/product_patch.sql");
const LOYALTY_CREDIT: &str =
    include_str!("../../../../scripts/bench/sql/sqlite/loyalty_credit.sql");

/// A SQLite database with one writer connection, which records every statement it starts.
async fn recorded_writer() -> (TestDb, Arc<Mutex<Vec<String>>>) {
    let t = sqlite_with(PoolOptions {
        max_size: 1,
        ..PoolOptions::default()
    })
    .await;
    let (seen, instrumentation) = recorder();
    let Pool::Sqlite(pools) = &t.db.pool else {
        unreachable!("sqlite_with opens a SQLite file")
    };
    let mut writer = pools.writes.get().await.unwrap();
    writer.set_instrumentation(instrumentation);
    drop(writer);
    (t, seen)
}

/// The SQL between `BEGIN` and `COMMIT` (binds left out), whitespace aside.
fn between_begin_and_commit(statements: &[String]) -> Vec<Vec<String>> {
    statements
        .iter()
        .map(|text| {
            text.split_once(" -- binds: ")
                .map_or(&**text, |(sql, _)| sql)
        })
        .map(|sql| sql.trim().trim_end_matches(';').trim())
        .skip_while(|sql| !sql.starts_with("BEGIN"))
        .skip(1)
        .take_while(|sql| *sql != "COMMIT")
        .map(|sql| sql.split_whitespace().map(str::to_owned).collect())
        .collect()
}

/// A script's statements: its lines that are neither comments nor blank.
fn script(file: &str) -> Vec<String> {
    file.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with("--"))
        .map(str::to_owned)
        .collect()
}

fn taken(seen: &Mutex<Vec<String>>) -> Vec<String> {
    std::mem::take(&mut *seen.lock().unwrap())
}

#[tokio::test]
async fn a_price_patch_runs_the_statements_of_its_sqlite_ceiling() {
    let (t, seen) = recorded_writer().await;
    let db = with_outbox(&t.db);
    let (a, _) = keyed_shops(&db).await;
    // The benchmarked shape: one variant with every code, a category, a brand, no compare-at
    // price (scripts/bench/sql/README.md).
    let mut shaped = product("p1");
    shaped.compare_at_price = None;
    shaped.category = category("cat_1", "Mugs");
    shaped.brand = brand("brand_1", "Atelier");
    let data = ShopImport {
        products: vec![imported(shaped)],
        ..ShopImport::default()
    };
    store(&db, &a, data).await;
    taken(&seen);

    let command = PatchProductCommand {
        context: ProductWriteContext {
            shop: a.id.clone(),
            key_prefix: KeyPrefix::parse(KEY_A).unwrap(),
            write_id: ApiWriteId::parse("wrt_1").unwrap(),
            new_category_id: CategoryId::parse("cat_new").unwrap(),
            new_brand_id: BrandId::parse("brand_new").unwrap(),
            at: at(9_000),
        },
        id: ProductId::parse("p1").unwrap(),
        patch: ProductPatch {
            price: Some(Cents(4_242)),
            ..ProductPatch::default()
        },
        precondition: None,
    };
    let result = db.patch_product(&command).await.unwrap();
    assert!(
        matches!(&result, ProductWriteResult::Written(p) if p.price == Cents(4_242)),
        "{result:?}"
    );

    assert_eq!(
        between_begin_and_commit(&taken(&seen)),
        between_begin_and_commit(&script(PRODUCT_PATCH))
    );
}

#[tokio::test]
async fn a_credit_runs_the_statements_of_its_sqlite_ceiling() {
    let (t, seen) = recorded_writer().await;
    let db = with_outbox(&t.db);
    let (a, _) = keyed_shops(&db).await;
    let private = ClientConfidential {
        note: None,
        anonymous_client_id: None,
    };
    let data = ShopImport {
        clients: vec![imported_client(client("c1", "Ana"), 1_000, private)],
        ..ShopImport::default()
    };
    store(&db, &a, data).await;
    taken(&seen);

    let command = PointsCommand {
        shop: a.id.clone(),
        client_id: ClientId::parse("c1").unwrap(),
        delta: PointsDelta::new(1).unwrap(),
        reason: PointsReason::parse("bench").unwrap(),
        key_prefix: KeyPrefix::parse(KEY_A).unwrap(),
        adjustment_id: LoyaltyAdjustmentId::parse("lpa_1").unwrap(),
        at: at(9_000),
        idempotency: None,
    };
    let outcome = db.adjust_points(&command).await.unwrap();
    assert!(
        matches!(outcome, PointsOutcome::Fresh(PointsResult::Applied(_))),
        "{outcome:?}"
    );

    assert_eq!(
        between_begin_and_commit(&taken(&seen)),
        between_begin_and_commit(&script(LOYALTY_CREDIT))
    );
}
