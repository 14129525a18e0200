//! Stock adjustments without idempotency keys, and the movement list.

use shop_domain::api_key::KeyPrefix;
use shop_domain::id::{MovementId, ProductId, ShopId, VariantId};
use shop_domain::shop::Shop;
use shop_domain::stock::{AdjustmentResult, StockAdjustment, StockEntry, StockListQuery};
use shop_ports::port::ReadFrom;
use shop_ports::port::{AdjustmentOutcome, CatalogueRepository, StockRepository};

use super::fixtures::{
    KEY_A, adjustment, at, imported, imported_at, keyed_shops, product, store_products, untracked,
};
use super::{TestDb, sqlite_with, test_databases};
use crate::PoolOptions;
use shop_ports::StoreError;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::Database;

/// The variant's stock as listed.
pub(super) async fn stock_of(t: &TestDb, shop: &Shop, variant: &str) -> Option<i64> {
    stock_entry(&t.db, &shop.id, variant).await.map(|e| e.stock)
}

/// The variant's stock entry as listed.
pub(super) async fn stock_entry(db: &Database, shop: &ShopId, variant: &str) -> Option<StockEntry> {
    let query = StockListQuery {
        tracked_only: false,
        ..StockListQuery::default()
    };
    let entries = db
        .list_stock(shop, &query, ReadFrom::Primary)
        .await
        .unwrap();
    entries
        .into_iter()
        .find(|e| e.variant_id.as_str() == variant)
}

pub(super) async fn movement_count(t: &TestDb, shop: &ShopId) -> usize {
    t.db.list_movements(shop, None).await.unwrap().len()
}

async fn updated_at(t: &TestDb, shop: &Shop, product: &str) -> i64 {
    let id = ProductId::parse(product).unwrap();
    let found =
        t.db.find_product(&shop.id, &id, ReadFrom::Primary)
            .await
            .unwrap();
    found.map(|p| p.updated_at.millis()).unwrap_or(-1)
}

#[tokio::test]
async fn an_adjustment_applies_and_leaves_a_movement() {
    for t in test_databases().await {
        let (a, _) = keyed_shops(&t.db).await;
        store_products(&t.db, &a, vec![imported(product("p1"))]).await;
        let backend = t.backend();
        assert_eq!(updated_at(&t, &a, "p1").await, 5_000);

        let command = adjustment(&a, "p1-v0", 6, 7_000);
        let outcome = t.db.adjust_stock(&command).await.unwrap();
        let expected = StockAdjustment {
            variant_id: VariantId::parse("p1-v0").unwrap(),
            product_id: ProductId::parse("p1").unwrap(),
            previous_stock: 4,
            new_stock: 10,
            delta: 6,
            movement_id: command.movement_id.clone(),
            applied_at: at(7_000),
        };
        assert_eq!(
            outcome,
            AdjustmentOutcome::Fresh(AdjustmentResult::Applied(expected)),
            "{backend}"
        );
        assert_eq!(stock_of(&t, &a, "p1-v0").await, Some(10), "{backend}");
        assert_eq!(updated_at(&t, &a, "p1").await, 7_000, "{backend}");

        let movements = t.db.list_movements(&a.id, None).await.unwrap();
        assert_eq!(movements.len(), 1, "{backend}");
        let movement = &movements[0];
        assert_eq!(movement.id, command.movement_id);
        assert_eq!(movement.variant_id.as_str(), "p1-v0");
        assert_eq!(movement.product_id.as_str(), "p1");
        assert_eq!(
            (movement.delta, movement.previous_stock, movement.new_stock),
            (6, 4, 10)
        );
        assert_eq!(movement.reason, "inventaire");
        assert_eq!(movement.api_key_prefix, KeyPrefix::parse(KEY_A).unwrap());
        assert_eq!(movement.created_at, at(7_000));
    }
}

#[tokio::test]
async fn stock_may_go_below_zero() {
    for t in test_databases().await {
        let (a, _) = keyed_shops(&t.db).await;
        store_products(&t.db, &a, vec![imported(product("p1"))]).await;
        let outcome =
            t.db.adjust_stock(&adjustment(&a, "p1-v0", -10, 6_000))
                .await
                .unwrap();
        let AdjustmentOutcome::Fresh(AdjustmentResult::Applied(applied)) = outcome else {
            panic!("{}: {outcome:?}", t.backend());
        };
        assert_eq!((applied.previous_stock, applied.new_stock), (4, -6));
        assert_eq!(stock_of(&t, &a, "p1-v0").await, Some(-6), "{}", t.backend());
    }
}

#[tokio::test]
async fn the_products_updated_at_moves_past_its_last_stamp_never_back() {
    for t in test_databases().await {
        let (a, _) = keyed_shops(&t.db).await;
        store_products(&t.db, &a, vec![imported_at(product("p1"), 1, 9_000)]).await;
        t.db.adjust_stock(&adjustment(&a, "p1-v0", 1, 6_000))
            .await
            .unwrap();
        assert_eq!(updated_at(&t, &a, "p1").await, 9_001, "{}", t.backend());
        assert_eq!(stock_of(&t, &a, "p1-v0").await, Some(5));
    }
}

#[tokio::test]
async fn another_shops_or_an_impossible_variant_is_not_found() {
    for t in test_databases().await {
        let (a, b) = keyed_shops(&t.db).await;
        store_products(&t.db, &b, vec![imported(product("pb"))]).await;
        let backend = t.backend();
        let theirs =
            t.db.adjust_stock(&adjustment(&a, "pb-v0", 1, 6_000))
                .await
                .unwrap();
        assert_eq!(
            theirs,
            AdjustmentOutcome::Fresh(AdjustmentResult::VariantNotFound),
            "{backend}"
        );
        assert_eq!(stock_of(&t, &b, "pb-v0").await, Some(4), "{backend}");

        let mut impossible = adjustment(&a, "x", 1, 6_000);
        impossible.variant_id = None;
        assert_eq!(
            t.db.adjust_stock(&impossible).await.unwrap(),
            AdjustmentOutcome::Fresh(AdjustmentResult::VariantNotFound),
            "{backend}"
        );
        assert_eq!(movement_count(&t, &a.id).await, 0, "{backend}");
        assert_eq!(movement_count(&t, &b.id).await, 0, "{backend}");
    }
}

#[tokio::test]
async fn an_untracked_variant_is_refused_and_unchanged() {
    for t in test_databases().await {
        let (a, _) = keyed_shops(&t.db).await;
        let untracked = untracked(product("p1"));
        store_products(&t.db, &a, vec![imported(untracked)]).await;
        let outcome =
            t.db.adjust_stock(&adjustment(&a, "p1-v0", 3, 6_000))
                .await
                .unwrap();
        assert_eq!(
            outcome,
            AdjustmentOutcome::Fresh(AdjustmentResult::NotTracked),
            "{}",
            t.backend()
        );
        assert_eq!(stock_of(&t, &a, "p1-v0").await, Some(4));
        assert_eq!(updated_at(&t, &a, "p1").await, 5_000);
        assert_eq!(movement_count(&t, &a.id).await, 0);
    }
}

#[tokio::test]
async fn movements_are_listed_newest_first_per_shop_and_variant() {
    for t in test_databases().await {
        let (a, b) = keyed_shops(&t.db).await;
        let mut two = product("p1");
        two.variants.push(super::fixtures::variant("p1-v1", 1));
        store_products(&t.db, &a, vec![imported(two)]).await;
        store_products(&t.db, &b, vec![imported(product("pb"))]).await;
        let mut made = Vec::new();
        // Two at the same instant: the later id comes first.
        for (variant, at_ms) in [("p1-v0", 6_000), ("p1-v1", 7_000), ("p1-v0", 7_000)] {
            let command = adjustment(&a, variant, 1, at_ms);
            t.db.adjust_stock(&command).await.unwrap();
            made.push(command.movement_id);
        }
        t.db.adjust_stock(&adjustment(&b, "pb-v0", 1, 8_000))
            .await
            .unwrap();
        let listed = |variant: Option<&str>| {
            let db = t.db.clone();
            let shop = a.id.clone();
            let variant = variant.map(|v| VariantId::parse(v).unwrap());
            async move {
                db.list_movements(&shop, variant)
                    .await
                    .unwrap()
                    .into_iter()
                    .map(|m| m.id)
                    .collect::<Vec<MovementId>>()
            }
        };
        let backend = t.backend();
        assert_eq!(
            listed(None).await,
            [made[2].clone(), made[1].clone(), made[0].clone()],
            "{backend}"
        );
        assert_eq!(
            listed(Some("p1-v0")).await,
            [made[2].clone(), made[0].clone()],
            "{backend}"
        );
        assert!(listed(Some("pb-v0")).await.is_empty(), "{backend}");
        assert_eq!(movement_count(&t, &b.id).await, 1, "{backend}");
    }
}

/// SQLite writers of this process queue for their turn (`Database::write_turn`). One that
/// waits longer than the pool's wait timeout fails as unavailable (503 for the API) instead
/// of hanging, and writes go through again once the turn is free.
#[tokio::test]
async fn a_sqlite_writer_gives_up_after_the_wait_timeout_then_writes_again() {
    let t = sqlite_with(PoolOptions {
        max_size: 4,
        wait_timeout: Duration::from_millis(200),
    })
    .await;
    let (a, _) = keyed_shops(&t.db).await;
    store_products(&t.db, &a, vec![imported(product("p1"))]).await;

    let held = t.db.write_turn().await.unwrap();
    let refused = t.db.adjust_stock(&adjustment(&a, "p1-v0", 1, 7_000)).await;
    assert!(
        matches!(refused, Err(StoreError::Unavailable(_))),
        "{refused:?}"
    );
    assert_eq!(stock_of(&t, &a, "p1-v0").await, Some(4), "reads never wait");
    drop(held);

    let applied = t.db.adjust_stock(&adjustment(&a, "p1-v0", 1, 8_000)).await;
    assert!(applied.is_ok(), "{applied:?}");
    assert_eq!(stock_of(&t, &a, "p1-v0").await, Some(5));
}

/// The webhook workers' turn waits in SQLite writers' line, but once past its patience it
/// goes ahead of it: it waits for the writer holding the turn and at most the line's head,
/// never for the whole line (`Database::queue_write_turn`).
#[tokio::test]
async fn the_webhook_workers_turn_goes_ahead_of_a_long_line_of_writers() {
    let t = sqlite_with(PoolOptions {
        max_size: 4,
        wait_timeout: Duration::from_secs(10),
    })
    .await;
    let order = Arc::new(Mutex::new(Vec::new()));
    let took_turn = |db: Database, who: &'static str, order: Arc<Mutex<Vec<&'static str>>>| async move {
        let turn = if who == "workers" {
            db.queue_write_turn().await
        } else {
            db.write_turn().await
        };
        let turn = turn.unwrap();
        order.lock().unwrap().push(who);
        tokio::time::sleep(Duration::from_millis(2)).await;
        drop(turn);
    };
    let held = t.db.write_turn().await.unwrap();
    let mut waiting = Vec::new();
    for _ in 0..8 {
        waiting.push(tokio::spawn(took_turn(
            t.db.clone(),
            "writer",
            Arc::clone(&order),
        )));
    }
    tokio::time::sleep(Duration::from_millis(20)).await;
    waiting.push(tokio::spawn(took_turn(
        t.db.clone(),
        "workers",
        Arc::clone(&order),
    )));
    tokio::time::sleep(Duration::from_millis(100)).await;
    drop(held);
    for task in waiting {
        task.await.unwrap();
    }

    let order = order.lock().unwrap();
    assert_eq!(order.len(), 9);
    let workers = order.iter().position(|who| *who == "workers").unwrap();
    assert!(workers <= 1, "the workers waited for the line: {order:?}");
}
