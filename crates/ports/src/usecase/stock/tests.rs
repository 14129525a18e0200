use shop_domain::Timestamp;
use shop_domain::api_key::KeyPrefix;
use shop_domain::id::ProductId;
use shop_domain::scope::ScopeSet;
use shop_domain::shop::{Shop, ShopSlug, SubscriptionStatus};
use shop_domain::stock::{AdjustmentResult, StockAdjustment};

use super::*;
use crate::port::{MockClock, MockIdGenerator, MockStockRepository};

fn caller() -> Principal {
    Principal {
        shop: Shop {
            id: ShopId::parse("shop_a").unwrap(),
            slug: ShopSlug::parse("a").unwrap(),
            name: "A".into(),
            public_api_in_plan: true,
            subscription: SubscriptionStatus::Active,
        },
        key_prefix: KeyPrefix::parse("0a1b2c3d").unwrap(),
        key_label: "ERP".into(),
        scopes: ScopeSet::parse_list("stock:write").unwrap(),
    }
}

const NOW: i64 = 100 * 86_400_000;

fn keeper(repository: MockStockRepository) -> StockKeeper {
    let mut ids = MockIdGenerator::new();
    ids.expect_new_id().returning(|| "mov_1".into());
    let mut clock = MockClock::new();
    clock.expect_now().return_const(Timestamp::from_millis(NOW));
    StockKeeper::new(Arc::new(repository), Arc::new(ids), Arc::new(clock))
}

fn applied() -> AdjustmentResult {
    AdjustmentResult::Applied(StockAdjustment {
        variant_id: VariantId::parse("v1").unwrap(),
        product_id: ProductId::parse("p1").unwrap(),
        previous_stock: 4,
        new_stock: 1,
        delta: -3,
        movement_id: MovementId::parse("mov_1").unwrap(),
        applied_at: Timestamp::from_millis(NOW),
    })
}

#[test]
fn invalid_requests_never_reach_the_use_case() {
    let problems = AdjustmentRequest::parse("v1", 1_000_001, "").unwrap_err();
    let fields: Vec<_> = problems.iter().map(|p| p.field).collect();
    assert_eq!(fields, ["quantity", "reason"]);
}

#[tokio::test]
async fn an_adjustment_is_made_in_the_callers_shop_and_recorded_with_its_key() {
    let mut repository = MockStockRepository::new();
    repository
        .expect_adjust_stock()
        .withf(|command| {
            command.shop.as_str() == "shop_a"
                && command.key_prefix.as_str() == "0a1b2c3d"
                && command
                    .variant_id
                    .as_ref()
                    .is_some_and(|v| v.as_str() == "v1")
                && command.delta.get() == -3
                && command.reason.as_str() == "casse"
                && command.movement_id.as_str() == "mov_1"
                && command.idempotency.is_none()
        })
        .times(1)
        .returning(|_| Ok(AdjustmentOutcome::Fresh(applied())));
    let request = AdjustmentRequest::parse("v1", -3, " casse ").unwrap();
    let outcome = keeper(repository)
        .adjust(&caller(), request, None)
        .await
        .unwrap();
    assert_eq!(outcome, AdjustmentOutcome::Fresh(applied()));
}

#[tokio::test]
async fn not_found_and_not_tracked_come_back_as_results() {
    for result in [
        AdjustmentResult::VariantNotFound,
        AdjustmentResult::NotTracked,
    ] {
        let mut repository = MockStockRepository::new();
        let answer = result.clone();
        repository
            .expect_adjust_stock()
            .returning(move |_| Ok(AdjustmentOutcome::Fresh(answer.clone())));
        let request = AdjustmentRequest::parse("v1", 2, "x").unwrap();
        assert_eq!(
            keeper(repository)
                .adjust(&caller(), request, None)
                .await
                .unwrap(),
            AdjustmentOutcome::Fresh(result)
        );
    }
}

#[tokio::test]
async fn an_impossible_variant_id_still_goes_through_the_store_for_idempotency() {
    let mut repository = MockStockRepository::new();
    repository
        .expect_adjust_stock()
        .withf(|command| command.variant_id.is_none() && command.idempotency.is_some())
        .returning(|_| Ok(AdjustmentOutcome::Fresh(AdjustmentResult::VariantNotFound)));
    let request = AdjustmentRequest::parse("a/b", 2, "x").unwrap();
    let key = IdempotencyKey::parse("k-1").unwrap();
    let outcome = keeper(repository)
        .adjust(&caller(), request, Some(key))
        .await
        .unwrap();
    assert_eq!(
        outcome,
        AdjustmentOutcome::Fresh(AdjustmentResult::VariantNotFound)
    );
}

#[tokio::test]
async fn a_key_carries_the_request_fingerprint_and_a_24_hour_window() {
    let request = AdjustmentRequest::parse("v1", -3, "casse").unwrap();
    let fingerprint = request.fingerprint();
    let mut repository = MockStockRepository::new();
    repository
        .expect_adjust_stock()
        .withf(move |command| {
            command.idempotency.as_ref().is_some_and(|claim| {
                claim.key.as_str() == "retry-42"
                    && claim.fingerprint == fingerprint
                    && claim.expired_before.millis() == NOW - 86_400_000
            })
        })
        .returning(|_| Ok(AdjustmentOutcome::Replayed(applied())));
    let key = IdempotencyKey::parse("retry-42").unwrap();
    let outcome = keeper(repository)
        .adjust(&caller(), request, Some(key))
        .await
        .unwrap();
    assert_eq!(
        outcome,
        AdjustmentOutcome::Replayed(applied()),
        "a replay is passed through untouched"
    );
}
