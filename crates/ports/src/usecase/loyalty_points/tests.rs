use shop_domain::Timestamp;
use shop_domain::loyalty::{PointsDelta, PointsReason};

use super::*;
use crate::port::{MockClock, MockIdGenerator, MockPointsLedger};

const NOW: i64 = 100 * 86_400_000;

fn caller() -> Principal {
    crate::usecase::test_caller::caller("loyalty:write")
}

fn keeper(ledger: MockPointsLedger) -> PointsKeeper {
    let mut ids = MockIdGenerator::new();
    ids.expect_new_id().returning(|| "1".into());
    let mut clock = MockClock::new();
    clock.expect_now().return_const(Timestamp::from_millis(NOW));
    PointsKeeper::new(Arc::new(ledger), Arc::new(ids), Arc::new(clock))
}

fn client() -> ClientId {
    ClientId::parse("c1").unwrap()
}

fn request(points: i64) -> PointsAdjustmentRequest {
    PointsAdjustmentRequest {
        delta: PointsDelta::new(points).unwrap(),
        reason: PointsReason::parse("web order 42").unwrap(),
    }
}

fn adjustment() -> PointsAdjustment {
    PointsAdjustment {
        id: LoyaltyAdjustmentId::parse("lpa_1").unwrap(),
        client_id: client(),
        previous_points: 10,
        new_points: 15,
        delta: 5,
        reason: "web order 42".into(),
        applied_at: Timestamp::from_millis(NOW),
    }
}

/// The answer of the use case to a ledger that answers `outcome`.
async fn answer_to(outcome: PointsOutcome) -> Result<PointsAdjusted, PointsError> {
    let mut ledger = MockPointsLedger::new();
    ledger
        .expect_adjust_points()
        .returning(move |_| Ok(outcome.clone()));
    keeper(ledger)
        .adjust(&caller(), client(), request(5), None)
        .await
}

#[tokio::test]
async fn an_adjustment_is_made_in_the_callers_shop_and_recorded_with_its_key() {
    let mut ledger = MockPointsLedger::new();
    ledger
        .expect_adjust_points()
        .withf(|command| {
            command.shop.as_str() == "shop_a"
                && command.client_id.as_str() == "c1"
                && command.key_prefix.as_str() == "0a1b2c3d"
                && command.delta.get() == 5
                && command.reason.as_str() == "web order 42"
                && command.adjustment_id.as_str() == "lpa_1"
                && command.at.millis() == NOW
                && command.idempotency.is_none()
        })
        .times(1)
        .returning(|_| Ok(PointsOutcome::Fresh(PointsResult::Applied(adjustment()))));
    let adjusted = keeper(ledger)
        .adjust(&caller(), client(), request(5), None)
        .await
        .unwrap();
    assert_eq!(
        adjusted,
        PointsAdjusted {
            adjustment: adjustment(),
            replayed: false
        }
    );
}

#[tokio::test]
async fn a_key_carries_the_requests_fingerprint_and_a_24_hour_window() {
    let fingerprint = request(-3).fingerprint(&client());
    let mut ledger = MockPointsLedger::new();
    ledger
        .expect_adjust_points()
        .withf(move |command| {
            command.idempotency.as_ref().is_some_and(|claim| {
                claim.key.as_str() == "order-42"
                    && claim.fingerprint == fingerprint
                    && claim.expired_before.millis() == NOW - 86_400_000
            })
        })
        .returning(|_| Ok(PointsOutcome::Replayed(PointsResult::Applied(adjustment()))));
    let key = IdempotencyKey::parse("order-42").unwrap();
    let adjusted = keeper(ledger)
        .adjust(&caller(), client(), request(-3), Some(key))
        .await
        .unwrap();
    assert!(adjusted.replayed, "a replay is passed through as one");
}

#[tokio::test]
async fn refusals_come_back_as_errors_that_say_whether_they_are_replays() {
    let not_found = answer_to(PointsOutcome::Fresh(PointsResult::ClientNotFound)).await;
    assert!(
        matches!(
            not_found,
            Err(PointsError::ClientNotFound { replayed: false })
        ),
        "{not_found:?}"
    );
    let insufficient = answer_to(PointsOutcome::Replayed(PointsResult::Refused(
        PointsRefusal::Insufficient,
    )))
    .await;
    assert!(
        matches!(
            insufficient,
            Err(PointsError::Refused {
                refusal: PointsRefusal::Insufficient,
                replayed: true
            })
        ),
        "{insufficient:?}"
    );
    assert!(insufficient.is_err_and(|error| error.replayed()));
    let reused = answer_to(PointsOutcome::KeyReused).await;
    assert!(matches!(reused, Err(PointsError::KeyReused)), "{reused:?}");
}

#[tokio::test]
async fn a_store_failure_is_an_error() {
    let mut ledger = MockPointsLedger::new();
    ledger
        .expect_adjust_points()
        .returning(|_| Err(StoreError::Unavailable("pool timed out".into())));
    let failed = keeper(ledger)
        .adjust(&caller(), client(), request(5), None)
        .await;
    assert!(
        matches!(failed, Err(PointsError::Store(StoreError::Unavailable(_)))),
        "{failed:?}"
    );
}
