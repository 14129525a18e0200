//! `PointsLedger` on both databases: refusals write nothing, and the migration that brought
//! the adjustments reverts with some recorded, leaving the stock adjustments' records.

use std::sync::atomic::{AtomicUsize, Ordering};

use shop_domain::api_key::KeyPrefix;
use shop_domain::client::ClientConfidential;
use shop_domain::id::{ClientId, LoyaltyAdjustmentId};
use shop_domain::import::ShopImport;
use shop_domain::loyalty::{PointsDelta, PointsReason, PointsRefusal};
use shop_domain::shop::Shop;
use shop_domain::stock::{AdjustmentResult, IdempotencyKey};
use shop_ports::port::{
    AdjustmentOutcome, ClientRepository, PointsCommand, PointsLedger, PointsOutcome, PointsResult,
    ReadFrom, StockRepository,
};

use super::fixtures::{
    KEY_A, adjustment, at, client, imported_client, keyed_shops, store, with_key,
};
use super::test_databases;
use crate::database::migrate;
use crate::{Database, PoolOptions};

/// `points` for the shop's client `c1` (120 points, 450 lifetime, by the fixture).
fn points(shop: &Shop, client_id: &str, delta: i64) -> PointsCommand {
    static ADJUSTMENTS: AtomicUsize = AtomicUsize::new(0);
    let n = ADJUSTMENTS.fetch_add(1, Ordering::Relaxed);
    PointsCommand {
        shop: shop.id.clone(),
        client_id: ClientId::parse(client_id).unwrap(),
        delta: PointsDelta::new(delta).unwrap(),
        reason: PointsReason::parse("web order").unwrap(),
        key_prefix: KeyPrefix::parse(KEY_A).unwrap(),
        adjustment_id: LoyaltyAdjustmentId::parse(format!("lpa_{n:06}")).unwrap(),
        at: at(9_000),
        idempotency: None,
    }
}

async fn with_client(db: &Database, shop: &Shop) {
    let data = ShopImport {
        clients: vec![imported_client(
            client("c1", "Client"),
            1,
            ClientConfidential::default(),
        )],
        ..ShopImport::default()
    };
    store(db, shop, data).await;
}

async fn points_of(db: &Database, shop: &Shop) -> (i64, i64) {
    let found = db
        .find_client(&shop.id, &ClientId::parse("c1").unwrap(), ReadFrom::Primary)
        .await
        .unwrap()
        .unwrap();
    (found.loyalty.points, found.loyalty.points_lifetime)
}

#[tokio::test]
async fn refusals_change_nothing_and_another_shops_client_is_not_found() {
    for t in test_databases().await {
        let (a, b) = keyed_shops(&t.db).await;
        with_client(&t.db, &a).await;
        let backend = t.backend();
        assert_eq!(
            t.db.adjust_points(&points(&a, "c1", -121)).await.unwrap(),
            PointsOutcome::Fresh(PointsResult::Refused(PointsRefusal::Insufficient)),
            "{backend}"
        );
        assert_eq!(
            t.db.adjust_points(&points(&b, "c1", 5)).await.unwrap(),
            PointsOutcome::Fresh(PointsResult::ClientNotFound),
            "{backend}"
        );
        assert_eq!(points_of(&t.db, &a).await, (120, 450), "{backend}");
        let PointsOutcome::Fresh(PointsResult::Applied(applied)) =
            t.db.adjust_points(&points(&a, "c1", -120)).await.unwrap()
        else {
            panic!("{backend}: the whole balance may be spent");
        };
        assert_eq!((applied.previous_points, applied.new_points), (120, 0));
        assert_eq!(points_of(&t.db, &a).await, (0, 450), "{backend}");
    }
}

#[tokio::test]
async fn a_credit_applies_to_a_balance_imported_below_zero_and_a_debit_does_not() {
    for t in test_databases().await {
        let (a, _) = keyed_shops(&t.db).await;
        let mut owing = client("c1", "Client");
        owing.loyalty.points = -5;
        let data = ShopImport {
            clients: vec![imported_client(owing, 1, ClientConfidential::default())],
            ..ShopImport::default()
        };
        store(&t.db, &a, data).await;
        let backend = t.backend();
        assert_eq!(
            t.db.adjust_points(&points(&a, "c1", -1)).await.unwrap(),
            PointsOutcome::Fresh(PointsResult::Refused(PointsRefusal::Insufficient)),
            "{backend}"
        );
        let PointsOutcome::Fresh(PointsResult::Applied(applied)) =
            t.db.adjust_points(&points(&a, "c1", 3)).await.unwrap()
        else {
            panic!("{backend}: a credit is no debit");
        };
        assert_eq!((applied.previous_points, applied.new_points), (-5, -2));
        assert_eq!(points_of(&t.db, &a).await, (-2, 453), "{backend}");
    }
}

#[tokio::test]
async fn the_migration_reverts_with_recorded_adjustments_and_keeps_the_stock_records() {
    for t in test_databases().await {
        let (a, _) = keyed_shops(&t.db).await;
        with_client(&t.db, &a).await;
        let backend = t.backend();
        let stock = with_key(adjustment(&a, "nowhere", 5, 6_000), "k-stock", "f-stock");
        assert_eq!(
            t.db.adjust_stock(&stock).await.unwrap(),
            AdjustmentOutcome::Fresh(AdjustmentResult::VariantNotFound)
        );
        let mut credit = points(&a, "c1", 30);
        credit.idempotency = stock.idempotency.clone().map(|mut claim| {
            claim.key = IdempotencyKey::parse("k-points").unwrap();
            claim.fingerprint = "f-points".into();
            claim
        });
        assert!(matches!(
            t.db.adjust_points(&credit).await.unwrap(),
            PointsOutcome::Fresh(PointsResult::Applied(_))
        ));

        let reverted = migrate::revert_through(&t.url, "2026-12-02-000000")
            .await
            .unwrap();
        // This migration and those after it: API v2's writes', the index of the console's
        // API writes page (two more on SQLite: its search triggers under an upsert, the
        // index of the webhooks' pending pairs).
        let later = if backend == "sqlite" { 6 } else { 4 };
        assert_eq!(reverted, later, "{backend}");
        assert_eq!(
            migrate::run_pending(&t.url).await.unwrap(),
            later,
            "{backend}"
        );
        let db = Database::open(&t.url, PoolOptions::default())
            .await
            .unwrap();
        assert_eq!(
            db.adjust_stock(&stock).await.unwrap(),
            AdjustmentOutcome::Replayed(AdjustmentResult::VariantNotFound),
            "{backend}: the stock adjustment's record stayed"
        );
        assert!(
            matches!(
                db.adjust_points(&credit).await.unwrap(),
                PointsOutcome::Fresh(PointsResult::Applied(_))
            ),
            "{backend}: the points' records went with their migration"
        );
    }
}
