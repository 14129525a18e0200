//! Switching a variant's stock tracking: what the stock list, the adjustment and the catalogue
//! read make of it, what it leaves alone, and the migration's backfill of the tracking from the
//! product's.

use shop_ports::port::ReadFrom;
use std::sync::atomic::{AtomicUsize, Ordering};

use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use shop_domain::id::{ProductId, TrackingSwitchId, VariantId};
use shop_domain::import::ShopImport;
use shop_domain::pagination::PageLimit;
use shop_domain::shop::Shop;
use shop_domain::stock::{ActivityQuery, AdjustmentResult, StockListQuery};
use shop_ports::port::{
    AdjustmentOutcome, CatalogueRepository, ImportRepository, OwnerStore, StockRepository,
    TrackingCommand, TrackingOutcome,
};

use super::fixtures::{
    adjustment, at, imported, imported_at, keyed_shops, product, store_products, untracked, variant,
};
use super::owners::owner;
use super::stock_adjust::{movement_count, stock_of};
use super::{TestDb, cache_counter, execute_raw, test_databases};
use crate::database::SqliteConn;
use crate::database::migrate;
use crate::database::with_conn;
use crate::schema::variants;
use crate::{Database, DatabaseUrl, PoolOptions};

/// A switch of `variant` in `shop` by the shop's owner (`owner_a` or `owner_b`), with an id of
/// its own.
pub(super) fn switch(shop: &Shop, variant: &str, tracked: bool, at_ms: i64) -> TrackingCommand {
    static SWITCHES: AtomicUsize = AtomicUsize::new(0);
    let n = SWITCHES.fetch_add(1, Ordering::Relaxed);
    let owner = if shop.id.as_str() == "shop_b" {
        "owner_b"
    } else {
        "owner_a"
    };
    TrackingCommand {
        shop: shop.id.clone(),
        switch_id: TrackingSwitchId::parse(format!("sw-{n:06}")).unwrap(),
        variant_id: VariantId::parse(variant).unwrap(),
        tracked,
        owner_id: shop_domain::id::OwnerId::parse(owner).unwrap(),
        at: at(at_ms),
    }
}

/// [`keyed_shops`] with an owner each: `owner_a` (ana@a.fr) and `owner_b` (zoe@b.fr).
pub(super) async fn owned_shops(t: &TestDb) -> (Shop, Shop) {
    let (a, b) = keyed_shops(&t.db).await;
    t.db.insert_owner(&owner("owner_a", &a, "ana@a.fr", 1))
        .await
        .unwrap();
    t.db.insert_owner(&owner("owner_b", &b, "zoe@b.fr", 1))
        .await
        .unwrap();
    (a, b)
}

/// Product `p1` with variants `p1-v0` and `p1-v1` (stock 4 each, threshold 2).
fn two_variants() -> shop_domain::catalogue::Product {
    let mut p = product("p1");
    p.variants = vec![variant("p1-v0", 0), variant("p1-v1", 1)];
    p
}

fn ids(entries: &[shop_domain::stock::StockEntry]) -> Vec<(&str, bool)> {
    entries
        .iter()
        .map(|e| (e.variant_id.as_str(), e.tracked))
        .collect()
}

async fn listed(t: &TestDb, shop: &Shop, query: StockListQuery) -> Vec<(String, bool)> {
    let entries =
        t.db.list_stock(&shop.id, &query, ReadFrom::Primary)
            .await
            .unwrap();
    ids(&entries)
        .into_iter()
        .map(|(id, tracked)| (id.to_owned(), tracked))
        .collect()
}

fn everything() -> StockListQuery {
    StockListQuery {
        tracked_only: false,
        ..StockListQuery::default()
    }
}

/// The product as the catalogue reads it: (track_stock, updated_at, each variant's tracking).
async fn product_state(t: &TestDb, shop: &Shop, id: &str) -> (bool, i64, Vec<bool>) {
    let id = ProductId::parse(id).unwrap();
    let p =
        t.db.find_product(&shop.id, &id, ReadFrom::Primary)
            .await
            .unwrap()
            .unwrap();
    let tracked = p.variants.iter().map(|v| v.tracked).collect();
    (p.track_stock, p.updated_at.millis(), tracked)
}

async fn switch_count(t: &TestDb, shop: &Shop) -> usize {
    let query = ActivityQuery {
        before: None,
        limit: PageLimit::new(100).unwrap(),
    };
    let lines = t.db.list_activity(&shop.id, &query).await.unwrap();
    lines
        .iter()
        .filter(|line| {
            matches!(
                line,
                shop_domain::stock::StockActivity::TrackingSwitch { .. }
            )
        })
        .count()
}

#[tokio::test]
async fn an_untracked_variant_leaves_the_tracked_lists_and_keeps_its_stock() {
    for t in test_databases().await {
        let backend = t.backend();
        let (a, _) = owned_shops(&t).await;
        store_products(&t.db, &a, vec![imported(two_variants())]).await;
        let applied = t.db.adjust_stock(&adjustment(&a, "p1-v0", -2, 6_000)).await;
        assert!(matches!(
            applied.unwrap(),
            AdjustmentOutcome::Fresh(AdjustmentResult::Applied(_))
        ));

        let outcome =
            t.db.switch_tracking(&switch(&a, "p1-v0", false, 7_000))
                .await;
        assert_eq!(outcome.unwrap(), TrackingOutcome::Switched, "{backend}");

        let tracked = listed(&t, &a, StockListQuery::default()).await;
        assert_eq!(tracked, [("p1-v1".to_owned(), true)], "{backend}");
        let all = listed(&t, &a, everything()).await;
        assert_eq!(
            all,
            [("p1-v0".to_owned(), false), ("p1-v1".to_owned(), true)],
            "{backend}"
        );
        // At its threshold (2), yet never low: it is not counted any more.
        let low = StockListQuery {
            low_stock_only: true,
            ..everything()
        };
        assert_eq!(listed(&t, &a, low).await, [], "{backend}");
        // Its stock and movements stay.
        assert_eq!(stock_of(&t, &a, "p1-v0").await, Some(2), "{backend}");
        assert_eq!(movement_count(&t, &a.id).await, 1, "{backend}");

        // The adjustment refuses the untracked variant, and only it.
        let refused = t.db.adjust_stock(&adjustment(&a, "p1-v0", 1, 8_000)).await;
        assert_eq!(
            refused.unwrap(),
            AdjustmentOutcome::Fresh(AdjustmentResult::NotTracked),
            "{backend}"
        );
        let sibling = t.db.adjust_stock(&adjustment(&a, "p1-v1", 1, 8_000)).await;
        assert!(matches!(
            sibling.unwrap(),
            AdjustmentOutcome::Fresh(AdjustmentResult::Applied(_))
        ));
        assert_eq!(stock_of(&t, &a, "p1-v0").await, Some(2), "{backend}");
        assert_eq!(movement_count(&t, &a.id).await, 2, "{backend}");

        // The catalogue reads each variant's tracking; the product still tracks (v1 does), and
        // its stock quantity counts the tracked variant only.
        let id = ProductId::parse("p1").unwrap();
        let p =
            t.db.find_product(&a.id, &id, ReadFrom::Primary)
                .await
                .unwrap()
                .unwrap();
        assert_eq!(
            (p.track_stock, p.stock_quantity()),
            (true, Some(5)),
            "{backend}"
        );
        assert_eq!(
            product_state(&t, &a, "p1").await,
            (true, 8_000, vec![false, true])
        );
    }
}

#[tokio::test]
async fn the_product_tracks_while_any_variant_does_and_its_updated_at_moves() {
    for t in test_databases().await {
        let backend = t.backend();
        let (a, _) = owned_shops(&t).await;
        store_products(&t.db, &a, vec![imported(two_variants())]).await;
        assert_eq!(
            product_state(&t, &a, "p1").await,
            (true, 5_000, vec![true, true])
        );

        let off = |variant, at_ms| switch(&a, variant, false, at_ms);
        let on = |variant, at_ms| switch(&a, variant, true, at_ms);
        assert_eq!(
            t.db.switch_tracking(&off("p1-v0", 6_000)).await.unwrap(),
            TrackingOutcome::Switched
        );
        assert_eq!(
            product_state(&t, &a, "p1").await,
            (true, 6_000, vec![false, true]),
            "{backend}"
        );
        assert_eq!(
            t.db.switch_tracking(&off("p1-v1", 7_000)).await.unwrap(),
            TrackingOutcome::Switched
        );
        assert_eq!(
            product_state(&t, &a, "p1").await,
            (false, 7_000, vec![false, false]),
            "{backend}"
        );
        assert_eq!(
            listed(&t, &a, StockListQuery::default()).await,
            [],
            "{backend}"
        );

        // Back on: tracked again, and adjustable.
        assert_eq!(
            t.db.switch_tracking(&on("p1-v0", 8_000)).await.unwrap(),
            TrackingOutcome::Switched
        );
        assert_eq!(
            product_state(&t, &a, "p1").await,
            (true, 8_000, vec![true, false]),
            "{backend}"
        );
        assert_eq!(
            listed(&t, &a, StockListQuery::default()).await,
            [("p1-v0".to_owned(), true)],
            "{backend}"
        );
        let applied = t.db.adjust_stock(&adjustment(&a, "p1-v0", 3, 9_000)).await;
        assert!(matches!(
            applied.unwrap(),
            AdjustmentOutcome::Fresh(AdjustmentResult::Applied(_))
        ));
        assert_eq!(stock_of(&t, &a, "p1-v0").await, Some(7), "{backend}");
        assert_eq!(switch_count(&t, &a).await, 3, "{backend}");
    }
}

#[tokio::test]
async fn a_switch_to_the_current_tracking_writes_nothing() {
    for t in test_databases().await {
        let backend = t.backend();
        let (a, _) = owned_shops(&t).await;
        store_products(&t.db, &a, vec![imported(two_variants())]).await;
        let already =
            t.db.switch_tracking(&switch(&a, "p1-v0", true, 6_000))
                .await;
        assert_eq!(already.unwrap(), TrackingOutcome::AlreadySo, "{backend}");
        assert_eq!(
            product_state(&t, &a, "p1").await,
            (true, 5_000, vec![true, true]),
            "{backend}"
        );
        assert_eq!(switch_count(&t, &a).await, 0, "{backend}");

        t.db.switch_tracking(&switch(&a, "p1-v0", false, 7_000))
            .await
            .unwrap();
        let again =
            t.db.switch_tracking(&switch(&a, "p1-v0", false, 8_000))
                .await;
        assert_eq!(again.unwrap(), TrackingOutcome::AlreadySo, "{backend}");
        assert_eq!(
            product_state(&t, &a, "p1").await,
            (true, 7_000, vec![false, true]),
            "{backend}"
        );
        assert_eq!(switch_count(&t, &a).await, 1, "{backend}");
    }
}

#[tokio::test]
async fn another_shop_variant_is_not_found_and_left_alone() {
    for t in test_databases().await {
        let backend = t.backend();
        let (a, b) = owned_shops(&t).await;
        store_products(&t.db, &b, vec![imported(product("pb"))]).await;
        for variant in ["pb-v0", "nowhere"] {
            let outcome =
                t.db.switch_tracking(&switch(&a, variant, false, 6_000))
                    .await;
            assert_eq!(
                outcome.unwrap(),
                TrackingOutcome::VariantNotFound,
                "{backend}: {variant}"
            );
        }
        assert_eq!(
            product_state(&t, &b, "pb").await,
            (true, 5_000, vec![true]),
            "{backend}"
        );
        assert_eq!(switch_count(&t, &a).await + switch_count(&t, &b).await, 0);
    }
}

#[tokio::test]
async fn a_switch_moves_updated_at_past_its_last_stamp_never_back() {
    for t in test_databases().await {
        let (a, _) = owned_shops(&t).await;
        // A file may stamp a product ahead of the clock.
        store_products(&t.db, &a, vec![imported_at(two_variants(), 1_000, 50_000)]).await;
        let outcome =
            t.db.switch_tracking(&switch(&a, "p1-v1", false, 10_000))
                .await;
        assert_eq!(outcome.unwrap(), TrackingOutcome::Switched);
        assert_eq!(
            product_state(&t, &a, "p1").await,
            (true, 50_001, vec![true, false]),
            "{}",
            t.backend()
        );
    }
}

#[tokio::test]
async fn concurrent_switches_of_one_variant_record_one() {
    for t in test_databases().await {
        let (a, _) = owned_shops(&t).await;
        store_products(&t.db, &a, vec![imported(two_variants())]).await;
        let commands: Vec<_> = (0..8)
            .map(|i| switch(&a, "p1-v0", false, 6_000 + i))
            .collect();
        let outcomes = futures_join_all(&t.db, &commands).await;
        let switched = outcomes
            .iter()
            .filter(|o| **o == TrackingOutcome::Switched)
            .count();
        assert_eq!(switched, 1, "{}: {outcomes:?}", t.backend());
        assert_eq!(switch_count(&t, &a).await, 1, "{}", t.backend());
    }
}

/// Runs the switches concurrently, each on its own task.
async fn futures_join_all(db: &Database, commands: &[TrackingCommand]) -> Vec<TrackingOutcome> {
    let tasks: Vec<_> = commands
        .iter()
        .cloned()
        .map(|command| {
            let db = db.clone();
            tokio::spawn(async move { db.switch_tracking(&command).await.unwrap() })
        })
        .collect();
    let mut outcomes = Vec::with_capacity(tasks.len());
    for task in tasks {
        outcomes.push(task.await.unwrap());
    }
    outcomes
}

#[tokio::test]
async fn an_import_applies_the_file_tracking_to_the_variants_it_writes() {
    for t in test_databases().await {
        let backend = t.backend();
        let (a, _) = owned_shops(&t).await;
        let file = || ShopImport {
            products: vec![imported(untracked(two_variants()))],
            ..ShopImport::default()
        };
        let first = t.db.import(&a.id, file(), at(5_000)).await.unwrap();
        assert_eq!(first.products.written, 1, "{backend}");
        assert_eq!(
            product_state(&t, &a, "p1").await,
            (false, 5_000, vec![false, false])
        );
        // The same file again: unchanged.
        let again = t.db.import(&a.id, file(), at(6_000)).await.unwrap();
        assert_eq!(
            (again.products.written, again.products.unchanged),
            (0, 1),
            "{backend}"
        );

        // Switched in the console, then the same file again: the file's tracking is written.
        t.db.switch_tracking(&switch(&a, "p1-v0", true, 7_000))
            .await
            .unwrap();
        assert_eq!(
            product_state(&t, &a, "p1").await,
            (true, 7_000, vec![true, false])
        );
        let after = t.db.import(&a.id, file(), at(8_000)).await.unwrap();
        assert_eq!(after.products.written, 1, "{backend}");
        assert_eq!(
            product_state(&t, &a, "p1").await,
            (false, 8_000, vec![false, false])
        );
    }
}

#[tokio::test]
async fn the_migration_backfills_each_variant_tracking_from_its_product() {
    for t in test_databases().await {
        let (a, _) = owned_shops(&t).await;
        let tracked = product("p1");
        let free = untracked(product("p2"));
        store_products(&t.db, &a, vec![imported(tracked), imported(free)]).await;
        // As if the products had been written before the migration, with the other tracking.
        let reverted = migrate::revert_through(&t.url, "2026-11-25-000000")
            .await
            .unwrap();
        assert!(reverted >= 1);
        execute_raw(
            &t.url,
            "UPDATE products SET track_stock = FALSE WHERE id = 'p1'; \
             UPDATE products SET track_stock = TRUE WHERE id = 'p2';",
        )
        .await;
        assert_eq!(migrate::run_pending(&t.url).await.unwrap(), reverted);
        let db = Database::open(&t.url, PoolOptions::default())
            .await
            .unwrap();
        let tracking: Vec<(String, bool)> = with_conn!(&db, |conn| variants::table
            .select((variants::id, variants::track_stock))
            .order(variants::id.asc())
            .load(conn)
            .await)
        .unwrap();
        assert_eq!(
            tracking,
            [("p1-v0".to_owned(), false), ("p2-v0".to_owned(), true)],
            "{}",
            t.backend()
        );
    }
}

/// Switches `p1-v0` off then on again on one connection; returns the prepared statements the
/// connection had cached after each.
macro_rules! cached_after_each_switch {
    ($conn:expr, $shop:expr) => {{
        let conn = &mut $conn;
        let (cached, instrumentation) = cache_counter();
        conn.set_instrumentation(instrumentation);
        let mut after_each = Vec::new();
        for (tracked, at_ms) in [(false, 6_000), (true, 7_000)] {
            let outcome =
                crate::stock::tracking::switch(conn, &switch($shop, "p1-v0", tracked, at_ms), None)
                    .await;
            assert!(matches!(outcome, Ok(TrackingOutcome::Switched)));
            after_each.push(AtomicUsize::load(&cached, Ordering::SeqCst));
        }
        after_each
    }};
}

/// Every statement of a switch is prepared once per connection and reused: the `UPDATE`s and
/// the `INSERT` are kept prepared (`KeptPrepared`), as the adjustment's are.
#[tokio::test]
async fn a_switch_is_prepared_once_per_connection() {
    for t in test_databases().await {
        let (a, _) = owned_shops(&t).await;
        store_products(&t.db, &a, vec![imported(two_variants())]).await;
        let after_each = match &t.url {
            DatabaseUrl::Sqlite(path) => {
                let mut conn = SqliteConn::establish(path.to_str().unwrap()).await.unwrap();
                cached_after_each_switch!(conn, &a)
            }
            DatabaseUrl::Postgres(url) => {
                let mut conn = AsyncPgConnection::establish(url).await.unwrap();
                cached_after_each_switch!(conn, &a)
            }
        };
        assert_eq!(after_each[0], 5, "{}: {after_each:?}", t.backend());
        assert_eq!(
            after_each[1],
            after_each[0],
            "{}: {after_each:?}",
            t.backend()
        );
    }
}
