//! `POST /api/v1/stock/adjustments`. A repository left without expectations panics when
//! called (a 500), so every refused request below is also shown not to reach storage.

use std::collections::BTreeSet;

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::test::TestRequest;
use serde_json::{Value, json};
use shop_domain::Timestamp;
use shop_domain::id::{MovementId, ProductId, VariantId};
use shop_domain::stock::{AdjustmentResult, StockAdjustment};
use shop_ports::StoreError;
use shop_ports::port::{AdjustmentCommand, AdjustmentOutcome, MockStockRepository};

use super::{NEW_ID, NOW_MILLIS, PREFIX, Reply, TestApi, key, shop};

const URI: &str = "/api/v1/stock/adjustments";
const VALID: &str = r#"{"variantId": "v1", "quantity": -3, "reason": "casse"}"#;

/// A key that may adjust stock.
fn api() -> TestApi {
    TestApi::with_key(shop(), "stock:read,stock:write")
}

/// A POST of `body` as JSON, with `key()`.
fn post(body: impl Into<Vec<u8>>) -> TestRequest {
    TestRequest::post()
        .uri(URI)
        .insert_header((header::AUTHORIZATION, format!("Bearer {}", key())))
        .insert_header(header::ContentType::json())
        .set_payload(body.into())
}

fn applied() -> StockAdjustment {
    StockAdjustment {
        variant_id: VariantId::parse("v1").unwrap(),
        product_id: ProductId::parse("prod_1").unwrap(),
        previous_stock: 4,
        new_stock: 1,
        delta: -3,
        movement_id: MovementId::parse(NEW_ID).unwrap(),
        applied_at: Timestamp::parse_rfc3339("2023-11-14T22:13:20Z").unwrap(),
    }
}

fn applied_json() -> Value {
    json!({
        "data": {
            "variantId": "v1",
            "productId": "prod_1",
            "previousStock": 4,
            "newStock": 1,
            "delta": -3,
            "movementId": NEW_ID,
            "appliedAt": "2023-11-14T22:13:20.000Z"
        }
    })
}

/// A repository that answers one adjustment matching `expected` with `outcome`.
fn answering(
    expected: impl Fn(&AdjustmentCommand) -> bool + Send + 'static,
    outcome: AdjustmentOutcome,
) -> MockStockRepository {
    let mut repository = MockStockRepository::new();
    repository
        .expect_adjust_stock()
        .withf(expected)
        .times(1)
        .returning(move |_| Ok(outcome.clone()));
    repository
}

fn any_command(_: &AdjustmentCommand) -> bool {
    true
}

/// The `(field, message)` pairs of a 400 VALIDATION_ERROR.
fn details(reply: &Reply) -> Vec<(String, String)> {
    let error = reply.error(StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    error["details"]
        .as_array()
        .unwrap_or_else(|| panic!("no details: {error}"))
        .iter()
        .map(|issue| {
            assert_eq!(
                super::keys(issue),
                BTreeSet::from(["field", "message"]),
                "{issue}"
            );
            (
                issue["field"].as_str().unwrap().to_owned(),
                issue["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(field, message)| ((*field).to_owned(), (*message).to_owned()))
        .collect()
}

#[actix_web::test]
async fn an_applied_adjustment_is_a_201_with_exactly_the_spec_fields() {
    let expected = |command: &AdjustmentCommand| {
        command.shop.as_str() == "shop_1"
            && command.variant_id.as_ref().map(|v| v.as_str()) == Some("v1")
            && command.delta.get() == -3
            && command.reason.as_str() == "casse"
            && command.key_prefix.as_str() == PREFIX
            && command.movement_id.as_str() == NEW_ID
            && command.at.millis() == NOW_MILLIS
            && command.idempotency.is_none()
    };
    let repository = answering(
        expected,
        AdjustmentOutcome::Fresh(AdjustmentResult::Applied(applied())),
    );
    let reply = api()
        .stock(repository)
        .send(post(
            r#"{"reason": "  casse ", "quantity": -3, "variantId": "v1"}"#,
        ))
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{:?}", reply.body);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(reply.header("idempotent-replayed"), None);
    let body = reply.json();
    assert_eq!(body, applied_json());
    assert_eq!(
        super::keys(&body["data"]),
        BTreeSet::from([
            "variantId",
            "productId",
            "previousStock",
            "newStock",
            "delta",
            "movementId",
            "appliedAt"
        ])
    );
}

#[actix_web::test]
async fn a_charset_parameter_and_the_quantity_bounds_are_accepted() {
    for (quantity, reason) in [("1000000", "x".to_owned()), ("-1000000", "é".repeat(500))] {
        let expected_delta: i64 = quantity.parse().unwrap();
        let repository = answering(
            move |command| command.delta.get() == expected_delta,
            AdjustmentOutcome::Fresh(AdjustmentResult::Applied(applied())),
        );
        let body =
            format!(r#"{{"variantId": "v1", "quantity": {quantity}, "reason": "{reason}"}}"#);
        let request = post(body).insert_header((
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json; charset=utf-8"),
        ));
        let reply = api().stock(repository).send(request).await;
        assert_eq!(reply.status, StatusCode::CREATED, "{:?}", reply.body);
    }
}

#[actix_web::test]
async fn a_key_is_passed_on_and_a_replay_says_so() {
    let expected = |command: &AdjustmentCommand| {
        command
            .idempotency
            .as_ref()
            .is_some_and(|claim| claim.key.as_str() == "retry-42")
    };
    let repository = answering(
        expected,
        AdjustmentOutcome::Replayed(AdjustmentResult::Applied(applied())),
    );
    let request = post(VALID).insert_header(("Idempotency-Key", "retry-42"));
    let reply = api().stock(repository).send(request).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{:?}", reply.body);
    assert_eq!(reply.header("idempotent-replayed"), Some("true"));
    assert_eq!(reply.json(), applied_json());
}

#[actix_web::test]
async fn an_unknown_variant_is_the_usual_404() {
    for variant in ["v404", "no/such id"] {
        let expects_id = variant == "v404";
        let repository = answering(
            move |command| command.variant_id.is_some() == expects_id,
            AdjustmentOutcome::Fresh(AdjustmentResult::VariantNotFound),
        );
        let body = json!({"variantId": variant, "quantity": 2, "reason": "x"}).to_string();
        let reply = api().stock(repository).send(post(body)).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{variant}");
        assert_eq!(
            reply.json(),
            json!({"error": {"code": "NOT_FOUND", "message": "No variant has this id."}})
        );
        assert_eq!(reply.header("idempotent-replayed"), None);
    }
}

#[actix_web::test]
async fn an_untracked_variant_is_a_422() {
    let repository = answering(
        any_command,
        AdjustmentOutcome::Fresh(AdjustmentResult::NotTracked),
    );
    let reply = api().stock(repository).send(post(VALID)).await;
    reply.error(StatusCode::UNPROCESSABLE_ENTITY, "STOCK_NOT_TRACKED");
    assert_eq!(reply.header("idempotent-replayed"), None);
}

#[actix_web::test]
async fn replayed_refusals_answer_as_the_first_time_with_the_replay_header() {
    for (result, status, code) in [
        (
            AdjustmentResult::NotTracked,
            StatusCode::UNPROCESSABLE_ENTITY,
            "STOCK_NOT_TRACKED",
        ),
        (
            AdjustmentResult::VariantNotFound,
            StatusCode::NOT_FOUND,
            "NOT_FOUND",
        ),
    ] {
        let fresh = api()
            .stock(answering(
                any_command,
                AdjustmentOutcome::Fresh(result.clone()),
            ))
            .send(post(VALID).insert_header(("Idempotency-Key", "k1")))
            .await;
        let replayed = api()
            .stock(answering(any_command, AdjustmentOutcome::Replayed(result)))
            .send(post(VALID).insert_header(("Idempotency-Key", "k1")))
            .await;
        replayed.error(status, code);
        assert_eq!(replayed.body, fresh.body, "{code}");
        assert_eq!(replayed.header("idempotent-replayed"), Some("true"));
    }
}

#[actix_web::test]
async fn a_key_reused_for_another_request_is_a_422() {
    let repository = answering(any_command, AdjustmentOutcome::KeyReused);
    let request = post(VALID).insert_header(("Idempotency-Key", "k1"));
    let reply = api().stock(repository).send(request).await;
    let error = reply.error(StatusCode::UNPROCESSABLE_ENTITY, "IDEMPOTENCY_KEY_REUSED");
    assert_eq!(
        error["message"],
        "This Idempotency-Key was used with a different request."
    );
    assert_eq!(reply.header("idempotent-replayed"), None);
}

#[actix_web::test]
async fn store_failures_are_503_and_500() {
    for (error, status) in [
        (
            StoreError::Unavailable("pool timed out".into()),
            StatusCode::SERVICE_UNAVAILABLE,
        ),
        (
            StoreError::failure("UPDATE variants failed"),
            StatusCode::INTERNAL_SERVER_ERROR,
        ),
    ] {
        let mut repository = MockStockRepository::new();
        repository
            .expect_adjust_stock()
            .return_once(move |_| Err(error));
        let reply = api().stock(repository).send(post(VALID)).await;
        assert_eq!(reply.status, status);
        assert!(!String::from_utf8_lossy(&reply.body).contains("UPDATE"));
    }
}

#[actix_web::test]
async fn missing_members_are_required() {
    let reply = api().send(post("{}")).await;
    assert_eq!(
        details(&reply),
        pairs(&[
            ("variantId", "is required"),
            ("quantity", "is required"),
            ("reason", "is required"),
        ])
    );
    let error = reply.json()["error"].clone();
    assert_eq!(error["message"], "The request body is invalid.");
}

#[actix_web::test]
async fn members_of_the_wrong_type_are_named() {
    let body = r#"{"variantId": 12, "quantity": 1.5, "reason": ["x"]}"#;
    let reply = api().send(post(body)).await;
    assert_eq!(
        details(&reply),
        pairs(&[
            ("variantId", "must be a string"),
            ("quantity", "must be an integer"),
            ("reason", "must be a string"),
        ])
    );
}

#[actix_web::test]
async fn a_quantity_must_be_a_json_integer() {
    for quantity in [
        "1.5",
        "2.0",
        "1e2",
        "\"5\"",
        "null",
        "true",
        "{}",
        "9223372036854775808",
        "-9223372036854775809",
    ] {
        let body = format!(r#"{{"variantId": "v1", "quantity": {quantity}, "reason": "x"}}"#);
        let reply = api().send(post(body)).await;
        assert_eq!(
            details(&reply),
            pairs(&[("quantity", "must be an integer")]),
            "{quantity}"
        );
    }
}

#[actix_web::test]
async fn the_domain_rules_apply_to_each_member() {
    let long = "r".repeat(501);
    let cases: [(Value, &str, &str); 7] = [
        (
            json!({"variantId": "", "quantity": 1, "reason": "x"}),
            "variantId",
            "must not be empty",
        ),
        (
            json!({"variantId": "v1", "quantity": 0, "reason": "x"}),
            "quantity",
            "must not be zero",
        ),
        (
            json!({"variantId": "v1", "quantity": 1_000_001, "reason": "x"}),
            "quantity",
            "must be between -1000000 and 1000000",
        ),
        (
            json!({"variantId": "v1", "quantity": -1_000_001, "reason": "x"}),
            "quantity",
            "must be between -1000000 and 1000000",
        ),
        (
            json!({"variantId": "v1", "quantity": 1, "reason": ""}),
            "reason",
            "must not be empty",
        ),
        (
            json!({"variantId": "v1", "quantity": 1, "reason": " \t\n "}),
            "reason",
            "must not be empty",
        ),
        (
            json!({"variantId": "v1", "quantity": 1, "reason": long}),
            "reason",
            "must be at most 500 characters",
        ),
    ];
    for (body, field, message) in cases {
        let reply = api().send(post(body.to_string())).await;
        assert_eq!(details(&reply), pairs(&[(field, message)]), "{body}");
    }
}

#[actix_web::test]
async fn every_problem_is_reported_at_once() {
    let body = r#"{"variantId": "", "note": "x", "quantity": "5", "reason": "  ", "Quantity": 2, "note": 1}"#;
    let reply = api().send(post(body)).await;
    assert_eq!(
        details(&reply),
        pairs(&[
            ("note", "is not a known field"),
            ("Quantity", "is not a known field"),
            ("variantId", "must not be empty"),
            ("quantity", "must be an integer"),
            ("reason", "must not be empty"),
        ])
    );
    let domain_and_missing = r#"{"quantity": 0, "reason": 7}"#;
    let reply = api().send(post(domain_and_missing)).await;
    assert_eq!(
        details(&reply),
        pairs(&[
            ("variantId", "is required"),
            ("quantity", "must not be zero"),
            ("reason", "must be a string"),
        ])
    );
}

#[actix_web::test]
async fn a_repeated_member_is_ambiguous() {
    let body = r#"{"variantId": "v1", "quantity": 1, "quantity": -1, "reason": "x"}"#;
    let reply = api().send(post(body)).await;
    assert_eq!(
        details(&reply),
        pairs(&[("quantity", "must be given at most once")])
    );
}

#[actix_web::test]
async fn a_body_that_is_not_an_object_is_named() {
    for body in ["[]", "\"v1\"", "3", "null"] {
        let reply = api().send(post(body)).await;
        assert_eq!(
            details(&reply),
            pairs(&[("body", "must be a JSON object")]),
            "{body}"
        );
    }
}

#[actix_web::test]
async fn a_body_that_is_not_json_is_invalid_json() {
    for body in [
        "",
        "{\"variantId\":",
        "{\"a\":",
        "variantId=v1&quantity=2",
        "{'a': 1}",
        "{} x",
    ] {
        let reply = api().send(post(body)).await;
        reply.error(StatusCode::BAD_REQUEST, "INVALID_JSON");
    }
    // Well-formed JSON goes on to the members' checks.
    let reply = api().send(post("{\"a\":1}")).await;
    assert_eq!(
        details(&reply),
        pairs(&[
            ("a", "is not a known field"),
            ("variantId", "is required"),
            ("quantity", "is required"),
            ("reason", "is required"),
        ])
    );
}

#[actix_web::test]
async fn the_content_type_must_be_application_json() {
    let expected = json!({
        "error": {
            "code": "VALIDATION_ERROR",
            "message": "Content-Type must be application/json.",
            "details": [{"field": "Content-Type", "message": "must be application/json"}]
        }
    });
    let missing = TestRequest::post()
        .uri(URI)
        .insert_header((header::AUTHORIZATION, format!("Bearer {}", key())))
        .set_payload(VALID);
    let reply = api().send(missing).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json(), expected);
    for other in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/vnd.api+json",
    ] {
        let request = post(VALID).insert_header((header::CONTENT_TYPE, other));
        let reply = api().send(request).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{other}");
        assert_eq!(reply.json(), expected, "{other}");
    }
}

#[actix_web::test]
async fn a_body_over_64_kib_is_a_413_and_64_kib_is_read() {
    let padding = |total: usize| {
        let mut body = VALID.to_owned();
        body.push_str(&" ".repeat(total - VALID.len()));
        body
    };
    let reply = api().send(post(padding(64 * 1024 + 1))).await;
    reply.error(StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE");
    let one_long_string = format!("\"{}\"", "x".repeat(64 * 1024));
    let reply = api().send(post(one_long_string)).await;
    reply.error(StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE");

    let repository = answering(
        any_command,
        AdjustmentOutcome::Fresh(AdjustmentResult::Applied(applied())),
    );
    let reply = api().stock(repository).send(post(padding(64 * 1024))).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{:?}", reply.body);
}

#[actix_web::test]
async fn an_invalid_idempotency_key_is_a_400() {
    let too_long = "k".repeat(256);
    let values: [&[u8]; 4] = [
        b"with space",
        b"caf\xc3\xa9",
        b"\xe9t\xe9",
        too_long.as_bytes(),
    ];
    for value in values {
        let request =
            post(VALID).insert_header(("Idempotency-Key", HeaderValue::from_bytes(value).unwrap()));
        let reply = api().send(request).await;
        assert_eq!(
            details(&reply),
            pairs(&[(
                "Idempotency-Key",
                "must be 1 to 255 visible ASCII characters"
            )]),
            "{value:?}"
        );
    }
    let twice = post(VALID)
        .append_header(("Idempotency-Key", "k1"))
        .append_header(("Idempotency-Key", "k2"));
    let reply = api().send(twice).await;
    assert_eq!(
        details(&reply),
        pairs(&[("Idempotency-Key", "must be given at most once")])
    );
}

#[actix_web::test]
async fn a_bad_key_is_reported_with_the_body_problems() {
    let request = post(r#"{"variantId": "v1", "quantity": 1, "reason": " "}"#)
        .insert_header(("Idempotency-Key", "a b"));
    let reply = api().send(request).await;
    assert_eq!(
        details(&reply),
        pairs(&[
            ("reason", "must not be empty"),
            (
                "Idempotency-Key",
                "must be 1 to 255 visible ASCII characters"
            ),
        ])
    );
}

#[actix_web::test]
async fn authentication_and_scope_come_before_the_body() {
    let unauthenticated = TestRequest::post()
        .uri(URI)
        .insert_header((header::CONTENT_TYPE, "text/plain"))
        .insert_header(("Idempotency-Key", "a b"))
        .set_payload("garbage");
    let reply = api().send(unauthenticated).await;
    reply.error(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");

    let oversized = TestRequest::post()
        .uri(URI)
        .insert_header(header::ContentType::json())
        .set_payload(vec![b' '; 64 * 1024 + 1]);
    let reply = api().send(oversized).await;
    reply.error(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");

    for body in ["garbage", "{}", VALID] {
        let reply = TestApi::with_key(shop(), "stock:read")
            .send(post(body))
            .await;
        let error = reply.error(StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE");
        assert!(
            error["message"].as_str().unwrap().contains("stock:write"),
            "{error}"
        );
    }
}

#[actix_web::test]
async fn query_parameters_are_refused() {
    let request = post(VALID).uri("/api/v1/stock/adjustments?dryRun=true");
    let reply = api().send(request).await;
    assert_eq!(
        details(&reply),
        pairs(&[("dryRun", "is not a known parameter")])
    );
}
