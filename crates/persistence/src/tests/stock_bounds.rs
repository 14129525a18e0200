//! Every stock stays within ±10^12 (`MAX_ABS_STOCK`): an adjustment that would leave the range
//! changes nothing, and the databases themselves refuse any other writer's value beyond it (or,
//! on SQLite, any value that is not an integer).

use shop_domain::id::ProductId;
use shop_domain::stock::{AdjustmentResult, MAX_ABS_STOCK};
use shop_ports::port::ReadFrom;
use shop_ports::port::{AdjustmentOutcome, CatalogueRepository, StockRepository};

use super::fixtures::{adjustment, imported, keyed_shops, product, store_products};
use super::stock_adjust::{movement_count, stock_of};
use super::{execute_raw, test_databases, try_execute_raw};

#[tokio::test]
async fn an_adjustment_beyond_the_range_changes_nothing() {
    for t in test_databases().await {
        let backend = t.backend();
        let (a, _) = keyed_shops(&t.db).await;
        let mut p = product("p1");
        p.variants[0].stock = MAX_ABS_STOCK - 5;
        store_products(&t.db, &a, vec![imported(p)]).await;
        let before =
            t.db.find_product(&a.id, &ProductId::parse("p1").unwrap(), ReadFrom::Primary)
                .await
                .unwrap();

        let outcome =
            t.db.adjust_stock(&adjustment(&a, "p1-v0", 6, 7_000))
                .await
                .unwrap();
        assert_eq!(
            outcome,
            AdjustmentOutcome::Fresh(AdjustmentResult::OutOfRange),
            "{backend}"
        );
        assert_eq!(stock_of(&t, &a, "p1-v0").await, Some(MAX_ABS_STOCK - 5));
        assert_eq!(movement_count(&t, &a.id).await, 0, "{backend}");
        let after =
            t.db.find_product(&a.id, &ProductId::parse("p1").unwrap(), ReadFrom::Primary)
                .await
                .unwrap();
        assert_eq!(after, before, "{backend}: not even updatedAt moved");

        let applied =
            t.db.adjust_stock(&adjustment(&a, "p1-v0", 5, 8_000))
                .await
                .unwrap();
        assert!(
            matches!(applied, AdjustmentOutcome::Fresh(AdjustmentResult::Applied(ref done)) if done.new_stock == MAX_ABS_STOCK),
            "{backend}: {applied:?}"
        );
    }
}

#[tokio::test]
async fn the_databases_refuse_a_stock_beyond_the_range_whoever_writes_it() {
    for t in test_databases().await {
        let backend = t.backend();
        let (a, _) = keyed_shops(&t.db).await;
        store_products(&t.db, &a, vec![imported(product("p1"))]).await;
        for sql in [
            "UPDATE variants SET stock = 1000000000001 WHERE id = 'p1-v0'",
            "UPDATE variants SET stock = -1000000000001 WHERE id = 'p1-v0'",
            "UPDATE variants SET low_stock_threshold = 1000000000001 WHERE id = 'p1-v0'",
        ] {
            let refused = try_execute_raw(&t.url, sql).await;
            assert!(refused.is_err(), "{backend}: {sql} was accepted");
        }
        if backend == "sqlite" {
            // SQLite's BIGINT column would keep a REAL silently.
            let refused =
                try_execute_raw(&t.url, "UPDATE variants SET stock = 2.5 WHERE id = 'p1-v0'").await;
            assert!(refused.is_err(), "a REAL stock was accepted");
        }
        execute_raw(
            &t.url,
            "UPDATE variants SET stock = 1000000000000 WHERE id = 'p1-v0'",
        )
        .await;
        assert_eq!(
            stock_of(&t, &a, "p1-v0").await,
            Some(MAX_ABS_STOCK),
            "{backend}"
        );
    }
}
