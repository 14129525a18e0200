//! Idempotency keys, and concurrent adjustments (and imports) through the pool.

use shop_domain::api_key::KeyPrefix;
use shop_domain::import::ShopImport;
use shop_domain::stock::AdjustmentResult;
use shop_ports::port::{AdjustmentOutcome, ImportRepository, StockRepository};

use super::fixtures::{
    KEY_A2, adjustment, at, imported, keyed_shops, product, store_products, untracked, with_key,
};
use super::stock_adjust::{movement_count, stock_of};
use super::test_databases;

const DAY: i64 = 24 * 3_600 * 1_000;

#[tokio::test]
async fn a_replay_returns_the_first_result_and_changes_nothing() {
    for t in test_databases().await {
        let (a, _) = keyed_shops(&t.db).await;
        store_products(&t.db, &a, vec![imported(product("p1"))]).await;
        let backend = t.backend();
        let first =
            t.db.adjust_stock(&with_key(adjustment(&a, "p1-v0", 5, 6_000), "k1", "f1"))
                .await
                .unwrap();
        let AdjustmentOutcome::Fresh(result) = first else {
            panic!("{backend}: {first:?}");
        };
        // A retry an hour later, with a movement id of its own.
        let retry = with_key(adjustment(&a, "p1-v0", 5, 6_000 + 3_600_000), "k1", "f1");
        assert_eq!(
            t.db.adjust_stock(&retry).await.unwrap(),
            AdjustmentOutcome::Replayed(result),
            "{backend}"
        );
        assert_eq!(stock_of(&t, &a, "p1-v0").await, Some(9), "{backend}");
        assert_eq!(movement_count(&t, &a.id).await, 1, "{backend}");
    }
}

#[tokio::test]
async fn rejections_are_replayed_too() {
    for t in test_databases().await {
        let (a, _) = keyed_shops(&t.db).await;
        let backend = t.backend();
        let missing = with_key(adjustment(&a, "p1-v0", 5, 6_000), "k1", "f1");
        assert_eq!(
            t.db.adjust_stock(&missing).await.unwrap(),
            AdjustmentOutcome::Fresh(AdjustmentResult::VariantNotFound),
            "{backend}"
        );
        // The variant exists now, but the key's answer stands.
        store_products(&t.db, &a, vec![imported(product("p1"))]).await;
        assert_eq!(
            t.db.adjust_stock(&missing).await.unwrap(),
            AdjustmentOutcome::Replayed(AdjustmentResult::VariantNotFound),
            "{backend}"
        );
        let untracked = untracked(product("p2"));
        store_products(&t.db, &a, vec![imported(untracked)]).await;
        let refused = with_key(adjustment(&a, "p2-v0", 5, 6_000), "k2", "f2");
        assert_eq!(
            t.db.adjust_stock(&refused).await.unwrap(),
            AdjustmentOutcome::Fresh(AdjustmentResult::NotTracked)
        );
        assert_eq!(
            t.db.adjust_stock(&refused).await.unwrap(),
            AdjustmentOutcome::Replayed(AdjustmentResult::NotTracked),
            "{backend}"
        );
        assert_eq!(stock_of(&t, &a, "p1-v0").await, Some(4), "{backend}");
        assert_eq!(movement_count(&t, &a.id).await, 0, "{backend}");
    }
}

#[tokio::test]
async fn a_key_reused_for_another_request_is_refused() {
    for t in test_databases().await {
        let (a, _) = keyed_shops(&t.db).await;
        store_products(&t.db, &a, vec![imported(product("p1"))]).await;
        t.db.adjust_stock(&with_key(adjustment(&a, "p1-v0", 5, 6_000), "k1", "f1"))
            .await
            .unwrap();
        let other = with_key(adjustment(&a, "p1-v0", -5, 7_000), "k1", "f2");
        assert_eq!(
            t.db.adjust_stock(&other).await.unwrap(),
            AdjustmentOutcome::KeyReused,
            "{}",
            t.backend()
        );
        assert_eq!(stock_of(&t, &a, "p1-v0").await, Some(9));
        assert_eq!(movement_count(&t, &a.id).await, 1);
    }
}

#[tokio::test]
async fn an_expired_key_is_free_again() {
    for t in test_databases().await {
        let (a, _) = keyed_shops(&t.db).await;
        store_products(&t.db, &a, vec![imported(product("p1"))]).await;
        let backend = t.backend();
        t.db.adjust_stock(&with_key(adjustment(&a, "p1-v0", 5, 6_000), "k1", "f1"))
            .await
            .unwrap();
        // Exactly 24 h later the record is still live; a millisecond more and it has expired,
        // even for another request.
        let same_day = with_key(adjustment(&a, "p1-v0", 5, 6_000 + DAY), "k1", "f1");
        assert!(matches!(
            t.db.adjust_stock(&same_day).await.unwrap(),
            AdjustmentOutcome::Replayed(_)
        ));
        let next_day = with_key(adjustment(&a, "p1-v0", -1, 6_001 + DAY), "k1", "f2");
        let outcome = t.db.adjust_stock(&next_day).await.unwrap();
        let AdjustmentOutcome::Fresh(AdjustmentResult::Applied(applied)) = &outcome else {
            panic!("{backend}: {outcome:?}");
        };
        assert_eq!(applied.movement_id, next_day.movement_id);
        assert_eq!(stock_of(&t, &a, "p1-v0").await, Some(8), "{backend}");
        assert_eq!(movement_count(&t, &a.id).await, 2, "{backend}");
        // The new record replaced the old one.
        let again = with_key(adjustment(&a, "p1-v0", -1, 6_002 + DAY), "k1", "f2");
        assert_eq!(
            t.db.adjust_stock(&again).await.unwrap(),
            AdjustmentOutcome::Replayed(AdjustmentResult::Applied(applied.clone())),
            "{backend}"
        );
    }
}

#[tokio::test]
async fn keys_are_scoped_per_api_key() {
    for t in test_databases().await {
        let (a, _) = keyed_shops(&t.db).await;
        store_products(&t.db, &a, vec![imported(product("p1"))]).await;
        let first = with_key(adjustment(&a, "p1-v0", 5, 6_000), "k1", "f1");
        let mut second = with_key(adjustment(&a, "p1-v0", 5, 6_000), "k1", "f1");
        second.key_prefix = KeyPrefix::parse(KEY_A2).unwrap();
        for command in [&first, &second] {
            let outcome = t.db.adjust_stock(command).await.unwrap();
            assert!(
                matches!(
                    outcome,
                    AdjustmentOutcome::Fresh(AdjustmentResult::Applied(_))
                ),
                "{}: {outcome:?}",
                t.backend()
            );
        }
        assert_eq!(stock_of(&t, &a, "p1-v0").await, Some(14), "{}", t.backend());
        assert_eq!(movement_count(&t, &a.id).await, 2);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_adjustments_lose_no_update() {
    for t in test_databases().await {
        let (a, _) = keyed_shops(&t.db).await;
        store_products(&t.db, &a, vec![imported(product("p1"))]).await;
        let deltas: Vec<i64> = (1..=50).map(|i| if i % 3 == 0 { -i } else { i }).collect();
        let tasks: Vec<_> = deltas
            .iter()
            .map(|&delta| {
                let db = t.db.clone();
                let command = adjustment(&a, "p1-v0", delta, 6_000);
                tokio::spawn(async move { db.adjust_stock(&command).await })
            })
            .collect();
        for task in tasks {
            let outcome = task.await.unwrap();
            assert!(
                matches!(
                    outcome,
                    Ok(AdjustmentOutcome::Fresh(AdjustmentResult::Applied(_)))
                ),
                "{}: {outcome:?}",
                t.backend()
            );
        }
        let expected = 4 + deltas.iter().sum::<i64>();
        assert_eq!(
            stock_of(&t, &a, "p1-v0").await,
            Some(expected),
            "{}",
            t.backend()
        );
        let movements = t.db.list_movements(&a.id, None).await.unwrap();
        assert_eq!(movements.len(), 50, "{}", t.backend());
        // Applied one after the other, each movement starts from the stock the one before
        // left: the stocks seen before are the stocks left after, shifted by one.
        let mut before: Vec<i64> = movements.iter().map(|m| m.previous_stock).collect();
        let mut after: Vec<i64> = movements.iter().map(|m| m.new_stock).collect();
        before.push(expected);
        after.push(4);
        before.sort_unstable();
        after.sort_unstable();
        assert_eq!(before, after, "{}", t.backend());
        assert!(
            movements
                .iter()
                .all(|m| m.new_stock == m.previous_stock + m.delta)
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_with_one_key_apply_once() {
    for t in test_databases().await {
        let (a, _) = keyed_shops(&t.db).await;
        store_products(&t.db, &a, vec![imported(product("p1"))]).await;
        let tasks: Vec<_> = (0..10)
            .map(|_| {
                let db = t.db.clone();
                let command = with_key(adjustment(&a, "p1-v0", 3, 6_000), "same", "f1");
                tokio::spawn(async move { db.adjust_stock(&command).await })
            })
            .collect();
        let mut fresh = Vec::new();
        let mut replayed = Vec::new();
        for task in tasks {
            match task.await.unwrap() {
                Ok(AdjustmentOutcome::Fresh(AdjustmentResult::Applied(applied))) => {
                    fresh.push(applied)
                }
                Ok(AdjustmentOutcome::Replayed(AdjustmentResult::Applied(applied))) => {
                    replayed.push(applied)
                }
                other => panic!("{}: {other:?}", t.backend()),
            }
        }
        let backend = t.backend();
        assert_eq!((fresh.len(), replayed.len()), (1, 9), "{backend}");
        assert!(replayed.iter().all(|r| *r == fresh[0]), "{backend}");
        assert_eq!(stock_of(&t, &a, "p1-v0").await, Some(7), "{backend}");
        assert_eq!(movement_count(&t, &a.id).await, 1, "{backend}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adjustments_during_imports_of_their_product_do_not_deadlock() {
    for t in test_databases().await {
        let (a, _) = keyed_shops(&t.db).await;
        let mut two = product("p1");
        two.variants.push(super::fixtures::variant("p1-v1", 1));
        store_products(&t.db, &a, vec![imported(two.clone())]).await;
        let imports: Vec<_> = (0..4)
            .map(|i| {
                let db = t.db.clone();
                let shop = a.id.clone();
                let mut renamed = two.clone();
                renamed.name = format!("Renamed {i}");
                let data = ShopImport {
                    products: vec![imported(renamed)],
                    ..ShopImport::default()
                };
                tokio::spawn(async move { db.import(&shop, data, at(6_000 + i)).await.err() })
            })
            .collect();
        let adjustments: Vec<_> = (0..20)
            .map(|i| {
                let db = t.db.clone();
                let variant = if i % 2 == 0 { "p1-v0" } else { "p1-v1" };
                let command = adjustment(&a, variant, 1, 7_000);
                tokio::spawn(async move { db.adjust_stock(&command).await.err() })
            })
            .collect();
        for task in imports {
            let error = task.await.unwrap();
            assert!(error.is_none(), "{}: {error:?}", t.backend());
        }
        for task in adjustments {
            let error = task.await.unwrap();
            assert!(error.is_none(), "{}: {error:?}", t.backend());
        }
        assert_eq!(movement_count(&t, &a.id).await, 20, "{}", t.backend());
    }
}
