//! `POST /api/v2/clients/{id}/loyalty/adjustments`. A ledger left without expectations panics
//! when called (a 500), so every refused request below is also shown not to reach storage.

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::test::TestRequest;
use serde_json::json;
use shop_domain::Timestamp;
use shop_domain::id::{ClientId, LoyaltyAdjustmentId};
use shop_domain::loyalty::{PointsAdjustment, PointsRefusal};
use shop_ports::port::{MockPointsLedger, PointsCommand, PointsOutcome, PointsResult};

use super::{NEW_ID, NOW_MILLIS, PREFIX, TestApi, key, shop};

fn api() -> TestApi {
    TestApi::with_key(shop(), "loyalty:write")
}

fn post(client: &str, body: &str) -> TestRequest {
    TestRequest::post()
        .uri(&format!("/api/v2/clients/{client}/loyalty/adjustments"))
        .insert_header((header::AUTHORIZATION, format!("Bearer {}", key())))
        .insert_header(header::ContentType::json())
        .set_payload(body.to_owned())
}

fn applied() -> PointsAdjustment {
    PointsAdjustment {
        id: LoyaltyAdjustmentId::parse(format!("lpa_{NEW_ID}")).unwrap(),
        client_id: ClientId::parse("cli_7").unwrap(),
        previous_points: 120,
        new_points: 100,
        delta: -20,
        reason: "gift".into(),
        applied_at: Timestamp::from_millis(NOW_MILLIS),
    }
}

fn answering(
    expected: impl Fn(&PointsCommand) -> bool + Send + 'static,
    outcome: PointsOutcome,
) -> MockPointsLedger {
    let mut ledger = MockPointsLedger::new();
    ledger
        .expect_adjust_points()
        .withf(expected)
        .times(1)
        .returning(move |_| Ok(outcome.clone()));
    ledger
}

#[actix_web::test]
async fn an_applied_adjustment_is_a_201_with_exactly_the_issues_fields() {
    let expected = |command: &PointsCommand| {
        command.shop.as_str() == "shop_1"
            && command.client_id.as_str() == "cli_7"
            && command.delta.get() == -20
            && command.reason.as_str() == "gift"
            && command.key_prefix.as_str() == PREFIX
            && command.adjustment_id.as_str() == format!("lpa_{NEW_ID}")
            && command.at.millis() == NOW_MILLIS
            && command.idempotency.is_none()
    };
    let ledger = answering(
        expected,
        PointsOutcome::Fresh(PointsResult::Applied(applied())),
    );
    let reply = api()
        .points(ledger)
        .send(post("cli_7", r#"{"reason": " gift ", "points": -20}"#))
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{:?}", reply.body);
    assert_eq!(reply.header("idempotent-replayed"), None);
    assert_eq!(
        reply.json(),
        json!({"data": {"clientId": "cli_7", "previousPoints": 120, "newPoints": 100, "delta": -20,
                        "adjustmentId": format!("lpa_{NEW_ID}"),
                        "appliedAt": Timestamp::from_millis(NOW_MILLIS).to_string()}})
    );
}

#[actix_web::test]
async fn refusals_map_to_the_envelope_and_replays_say_so() {
    let cases = [
        (
            PointsOutcome::Replayed(PointsResult::Refused(PointsRefusal::Insufficient)),
            StatusCode::UNPROCESSABLE_ENTITY,
            "INSUFFICIENT_POINTS",
            Some("true"),
        ),
        (
            PointsOutcome::Fresh(PointsResult::Refused(PointsRefusal::OutOfRange)),
            StatusCode::UNPROCESSABLE_ENTITY,
            "POINTS_OUT_OF_RANGE",
            None,
        ),
        (
            PointsOutcome::Fresh(PointsResult::ClientNotFound),
            StatusCode::NOT_FOUND,
            "NOT_FOUND",
            None,
        ),
        (
            PointsOutcome::KeyReused,
            StatusCode::UNPROCESSABLE_ENTITY,
            "IDEMPOTENCY_KEY_REUSED",
            None,
        ),
    ];
    for (outcome, status, code, replayed) in cases {
        let ledger = answering(|command| command.idempotency.is_some(), outcome);
        let request = post("cli_7", r#"{"points": 5, "reason": "x"}"#)
            .insert_header(("Idempotency-Key", "order-1042"));
        let reply = api().points(ledger).send(request).await;
        reply.error(status, code);
        assert_eq!(reply.header("idempotent-replayed"), replayed, "{code}");
    }
}

#[actix_web::test]
async fn a_bad_body_or_an_impossible_id_never_reaches_the_ledger() {
    let reply = api()
        .send(post("cli_7", r#"{"points": 0, "reason": "", "extra": 1}"#))
        .await;
    let error = reply.error(StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let fields: Vec<&str> = error["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|issue| issue["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["extra", "points", "reason"]);
    let impossible = api()
        .send(post("a%20b", r#"{"points": 5, "reason": "x"}"#))
        .await;
    impossible.error(StatusCode::NOT_FOUND, "NOT_FOUND");
    let reader = TestApi::with_key(shop(), "loyalty:read")
        .send(post("cli_7", r#"{"points": 5, "reason": "x"}"#))
        .await;
    reader.error(StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE");
}
