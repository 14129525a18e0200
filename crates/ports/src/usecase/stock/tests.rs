use shop_domain::Timestamp;
use shop_domain::id::ProductId;
use shop_domain::stock::{AdjustmentResult, StockAdjustment};

use super::*;
use crate::port::{AdjustmentOutcome, MockClock, MockIdGenerator, MockStockRepository};

fn caller() -> Principal {
    crate::usecase::test_caller::caller("stock:write")
}

const NOW: i64 = 100 * 86_400_000;

fn keeper(repository: MockStockRepository) -> StockKeeper {
    let mut ids = MockIdGenerator::new();
    ids.expect_new_id().returning(|| "mov_1".into());
    let mut clock = MockClock::new();
    clock.expect_now().return_const(Timestamp::from_millis(NOW));
    StockKeeper::new(Arc::new(repository), Arc::new(ids), Arc::new(clock))
}

fn adjustment() -> StockAdjustment {
    StockAdjustment {
        variant_id: VariantId::parse("v1").unwrap(),
        product_id: ProductId::parse("p1").unwrap(),
        previous_stock: 4,
        new_stock: 1,
        delta: -3,
        movement_id: MovementId::parse("mov_1").unwrap(),
        applied_at: Timestamp::from_millis(NOW),
    }
}

fn applied() -> AdjustmentResult {
    AdjustmentResult::Applied(adjustment())
}

/// The answer of the use case to a store that answers `outcome`.
async fn answer_to(outcome: AdjustmentOutcome) -> Result<Adjusted, AdjustError> {
    let mut repository = MockStockRepository::new();
    repository
        .expect_adjust_stock()
        .returning(move |_| Ok(outcome.clone()));
    let request = AdjustmentRequest::parse("v1", 2, "x").unwrap();
    keeper(repository).adjust(&caller(), request, None).await
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
    let adjusted = keeper(repository)
        .adjust(&caller(), request, None)
        .await
        .unwrap();
    assert_eq!(
        adjusted,
        Adjusted {
            adjustment: adjustment(),
            replayed: false
        }
    );
}

#[tokio::test]
async fn refusals_come_back_as_errors() {
    let not_found = answer_to(AdjustmentOutcome::Fresh(AdjustmentResult::VariantNotFound)).await;
    assert!(
        matches!(
            not_found,
            Err(AdjustError::VariantNotFound { replayed: false })
        ),
        "{not_found:?}"
    );
    let not_tracked = answer_to(AdjustmentOutcome::Fresh(AdjustmentResult::NotTracked)).await;
    assert!(
        matches!(
            not_tracked,
            Err(AdjustError::NotTracked { replayed: false })
        ),
        "{not_tracked:?}"
    );
    let out_of_range = answer_to(AdjustmentOutcome::Fresh(AdjustmentResult::OutOfRange)).await;
    assert!(
        matches!(
            out_of_range,
            Err(AdjustError::OutOfRange { replayed: false })
        ),
        "{out_of_range:?}"
    );
}

#[tokio::test]
async fn a_replayed_refusal_says_it_is_a_replay() {
    let replayed = answer_to(AdjustmentOutcome::Replayed(AdjustmentResult::NotTracked)).await;
    assert!(
        matches!(replayed, Err(AdjustError::NotTracked { replayed: true })),
        "{replayed:?}"
    );
    assert!(replayed.is_err_and(|error| error.replayed()));
}

#[tokio::test]
async fn a_reused_key_and_a_store_failure_are_errors_too() {
    let reused = answer_to(AdjustmentOutcome::KeyReused).await;
    assert!(matches!(reused, Err(AdjustError::KeyReused)), "{reused:?}");
    let mut repository = MockStockRepository::new();
    repository
        .expect_adjust_stock()
        .returning(|_| Err(StoreError::Unavailable("pool timed out".into())));
    let request = AdjustmentRequest::parse("v1", 2, "x").unwrap();
    let failed = keeper(repository).adjust(&caller(), request, None).await;
    assert!(
        matches!(failed, Err(AdjustError::Store(StoreError::Unavailable(_)))),
        "{failed:?}"
    );
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
        .await;
    assert!(
        matches!(
            outcome,
            Err(AdjustError::VariantNotFound { replayed: false })
        ),
        "{outcome:?}"
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
    let adjusted = keeper(repository)
        .adjust(&caller(), request, Some(key))
        .await
        .unwrap();
    assert_eq!(
        adjusted,
        Adjusted {
            adjustment: adjustment(),
            replayed: true
        },
        "a replay is passed through untouched"
    );
}
