//! `POST /api/v2/clients/{id}/loyalty/adjustments` (issue 35): credits and debits of a
//! client's points, read back through v1 and v2, safe under concurrency and retries.

use serde_json::{Value, json};

use crate::orders::seeded;
use crate::support::{Reply, TestApp, on_both_databases};
use crate::webhooks::events;

on_both_databases!(
    a_credit_raises_every_counter_and_moves_the_tier_across_a_threshold,
    a_debit_lowers_the_spendable_points_only_and_never_below_zero,
    concurrent_adjustments_lose_no_update,
    a_retry_under_one_idempotency_key_applies_once,
    every_bad_input_is_refused_in_the_envelope,
    another_shops_client_is_not_found_and_the_scope_is_required,
);

const SCOPES: &str = "loyalty:write,loyalty:read,clients:read,webhooks:read";

async fn adjust_points(
    app: &TestApp,
    key: &str,
    client: &str,
    body: &Value,
    idempotency_key: Option<&str>,
) -> Reply {
    app.send(points_request(app, key, client, body, idempotency_key))
        .await
}

fn points_request(
    app: &TestApp,
    key: &str,
    client: &str,
    body: &Value,
    idempotency_key: Option<&str>,
) -> reqwest::RequestBuilder {
    app.post_request(
        &format!("/api/v2/clients/{client}/loyalty/adjustments"),
        key,
        body,
        idempotency_key,
    )
}

fn credit(points: i64) -> Value {
    json!({"points": points, "reason": "web order"})
}

/// The client as `GET {version}/clients/{id}` shows it.
async fn client(app: &TestApp, key: &str, version: &str, id: &str) -> Value {
    let reply = app.get(&format!("/api/{version}/clients/{id}"), key).await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    reply.json()["data"].clone()
}

async fn client_events(app: &TestApp, key: &str, id: &str) -> Vec<Value> {
    events(app, key)
        .await
        .into_iter()
        .filter(|event| event["type"] == "client.updated" && event["data"]["id"] == id)
        .collect()
}

async fn a_credit_raises_every_counter_and_moves_the_tier_across_a_threshold(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    // c2: 120 points, 100 lifetime, 110 all-time; the first tier (silver) starts at 500.
    let before = client(&app, &key, "v1", "c2").await;
    let reply = adjust_points(&app, &key, "c2", &credit(400), None).await;
    assert_eq!(reply.status, 201, "{}", reply.text);
    let data = reply.json()["data"].clone();
    let applied_at = data["appliedAt"].as_str().unwrap().to_owned();
    let adjustment_id = data["adjustmentId"].as_str().unwrap().to_owned();
    assert!(adjustment_id.starts_with("lpa_"), "{adjustment_id}");
    assert_eq!(
        data,
        json!({"clientId": "c2", "previousPoints": 120, "newPoints": 520, "delta": 400,
               "adjustmentId": adjustment_id, "appliedAt": applied_at})
    );

    for version in ["v1", "v2"] {
        let after = client(&app, &key, version, "c2").await;
        assert_eq!(
            after["loyalty"],
            json!({"points": 520, "expiresAt": before["loyalty"]["expiresAt"], "pointsLifetime": 500,
                   "pointsAllTime": 510, "tierAchievedAt": applied_at}),
            "{version}"
        );
        assert_eq!(after["updatedAt"], json!(applied_at), "{version}");
        let summary = app
            .get(&format!("/api/{version}/clients/c2/loyalty"), &key)
            .await
            .json()["data"]
            .clone();
        assert_eq!(
            (
                summary["points"].clone(),
                summary["tier"]["current"]["id"].clone(),
                summary["tier"]["current"]["achievedAt"].clone()
            ),
            (json!(520), json!("tier_silver"), json!(applied_at)),
            "{version}"
        );
    }

    // Within the tier, its `achievedAt` stays.
    let within = adjust_points(&app, &key, "c2", &credit(10), None).await;
    assert_eq!(within.status, 201, "{}", within.text);
    let after = client(&app, &key, "v1", "c2").await;
    assert_eq!(after["loyalty"]["pointsLifetime"], 510);
    assert_eq!(after["loyalty"]["tierAchievedAt"], json!(applied_at));

    // Each credit is a `client.updated` with the client as it was at its commit, and the
    // client is in the changes since the first one.
    let pushed = client_events(&app, &key, "c2").await;
    let points: Vec<&Value> = pushed
        .iter()
        .map(|e| &e["data"]["loyalty"]["points"])
        .collect();
    assert_eq!(points, [&json!(520), &json!(530)]);
    let changed = app
        .get(&format!("/api/v1/clients?updatedSince={applied_at}"), &key)
        .await
        .json();
    let ids: Vec<&Value> = changed["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["id"])
        .collect();
    assert_eq!(ids, [&json!("c2")]);
}

async fn a_debit_lowers_the_spendable_points_only_and_never_below_zero(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    // c1: 120 points, 875 lifetime, 885 all-time, silver since 1 February.
    let reply = adjust_points(
        &app,
        &key,
        "c1",
        &json!({"points": -20, "reason": "gift"}),
        None,
    )
    .await;
    assert_eq!(reply.status, 201, "{}", reply.text);
    assert_eq!(
        (
            reply.json()["data"]["previousPoints"].clone(),
            reply.json()["data"]["newPoints"].clone()
        ),
        (json!(120), json!(100))
    );
    let after = client(&app, &key, "v2", "c1").await;
    assert_eq!(
        after["loyalty"],
        json!({"points": 100, "expiresAt": null, "pointsLifetime": 875, "pointsAllTime": 885,
               "tierAchievedAt": "2026-02-01T10:00:00.000Z"})
    );
    let events_before = client_events(&app, &key, "c1").await.len();

    let refused = adjust_points(
        &app,
        &key,
        "c1",
        &json!({"points": -101, "reason": "gift"}),
        None,
    )
    .await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert_eq!(refused.error_code(), "INSUFFICIENT_POINTS");
    assert_eq!(
        client(&app, &key, "v1", "c1").await,
        after,
        "nothing changed"
    );
    assert_eq!(client_events(&app, &key, "c1").await.len(), events_before);

    let all = adjust_points(
        &app,
        &key,
        "c1",
        &json!({"points": -100, "reason": "gift"}),
        None,
    )
    .await;
    assert_eq!(all.json()["data"]["newPoints"], 0, "{}", all.text);
}

const ADJUSTMENTS: i64 = 200;

/// 200 adjustments of one client at once, ±1 each: the balance ends at the initial one plus
/// their sum, every one answered 201.
async fn concurrent_adjustments_lose_no_update(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    let mut requests = Vec::new();
    let mut sum = 0;
    for n in 0..ADJUSTMENTS {
        let points = if n % 3 == 0 { -1 } else { 1 };
        sum += points;
        let request = points_request(
            &app,
            &key,
            "c3",
            &json!({"points": points, "reason": format!("load {n}")}),
            None,
        );
        requests.push(request);
    }
    let replies = app.send_all_at_once(requests).await;
    let failures: Vec<_> = replies
        .iter()
        .filter(|reply| reply.status != 201)
        .map(|reply| &reply.text)
        .collect();
    assert!(failures.is_empty(), "not 201: {failures:?}");
    let credits = (0..ADJUSTMENTS).filter(|n| n % 3 != 0).count() as i64;
    let loyalty = client(&app, &key, "v1", "c3").await["loyalty"].clone();
    assert_eq!(
        (loyalty["points"].clone(), loyalty["pointsLifetime"].clone()),
        (json!(120 + sum), json!(5_000 + credits))
    );
}

async fn a_retry_under_one_idempotency_key_applies_once(app: TestApp) {
    let key = seeded(&app, &format!("{SCOPES},stock:write")).await;
    let first = adjust_points(&app, &key, "c1", &credit(5), Some("order-1042")).await;
    assert_eq!(first.status, 201, "{}", first.text);
    assert_eq!(first.header("idempotent-replayed"), None);
    let again = adjust_points(&app, &key, "c1", &credit(5), Some("order-1042")).await;
    assert_eq!(again.status, 201, "{}", again.text);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(again.json(), first.json(), "the first answer, repeated");
    assert_eq!(
        client(&app, &key, "v1", "c1").await["loyalty"]["points"],
        125
    );

    let other = adjust_points(&app, &key, "c1", &credit(6), Some("order-1042")).await;
    assert_eq!(
        (other.status, other.error_code()),
        (422, "IDEMPOTENCY_KEY_REUSED".into())
    );
    let elsewhere = adjust_points(&app, &key, "c2", &credit(5), Some("order-1042")).await;
    assert_eq!(
        elsewhere.error_code(),
        "IDEMPOTENCY_KEY_REUSED",
        "another client"
    );

    // One namespace with the stock adjustments: a key first used there is reused here.
    let stock = app
        .adjust(
            &key,
            &json!({"variantId": "v_blue", "quantity": 1, "reason": "x"}),
            Some("shared"),
        )
        .await;
    assert!(
        matches!(stock.status, 201 | 422),
        "recorded either way: {}",
        stock.text
    );
    let reused = adjust_points(&app, &key, "c1", &credit(5), Some("shared")).await;
    assert_eq!(reused.error_code(), "IDEMPOTENCY_KEY_REUSED");

    // A refusal is an answer, replayed too.
    let debit = json!({"points": -1000, "reason": "too much"});
    let refused = adjust_points(&app, &key, "c1", &debit, Some("debit-1")).await;
    assert_eq!(refused.error_code(), "INSUFFICIENT_POINTS");
    adjust_points(&app, &key, "c1", &credit(2000), None).await;
    let replayed = adjust_points(&app, &key, "c1", &debit, Some("debit-1")).await;
    assert_eq!(
        (replayed.status, replayed.header("idempotent-replayed")),
        (422, Some("true"))
    );

    // Ten at once under one key: one applies, the others wait for it and repeat its answer.
    let before = client(&app, &key, "v1", "c3").await["loyalty"]["points"].clone();
    let requests = (0..10)
        .map(|_| points_request(&app, &key, "c3", &credit(7), Some("burst")))
        .collect();
    let mut ids = Vec::new();
    for reply in app.send_all_at_once(requests).await {
        assert_eq!(reply.status, 201, "{}", reply.text);
        ids.push(reply.json()["data"]["adjustmentId"].clone());
    }
    ids.dedup();
    assert_eq!(ids.len(), 1, "one adjustment: {ids:?}");
    let after = client(&app, &key, "v1", "c3").await["loyalty"]["points"].clone();
    assert_eq!(after, json!(before.as_i64().unwrap() + 7));
}

async fn every_bad_input_is_refused_in_the_envelope(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    let cases = [
        (
            json!({"points": 0, "reason": " "}),
            vec!["points", "reason"],
        ),
        (json!({"points": "5", "reason": "x"}), vec!["points"]),
        (json!({"points": 1.5, "reason": "x"}), vec!["points"]),
        (
            json!({"points": 1_000_000_001, "reason": "x"}),
            vec!["points"],
        ),
        (
            json!({"points": 5, "reason": "é".repeat(201)}),
            vec!["reason"],
        ),
        (json!({"points": 5, "reason": "a\u{0}b"}), vec!["reason"]),
        (json!({"points": 5}), vec!["reason"]),
        (
            json!({"points": 5, "reason": "x", "note": "private"}),
            vec!["note"],
        ),
    ];
    for (body, fields) in cases {
        let reply = adjust_points(&app, &key, "c1", &body, None).await;
        assert_eq!(
            (reply.status, reply.error_code(), reply.detail_fields()),
            (
                400,
                "VALIDATION_ERROR".to_owned(),
                fields.iter().map(|f| f.to_string()).collect()
            ),
            "{body}: {}",
            reply.text
        );
    }
    let bad_key = adjust_points(&app, &key, "c1", &credit(1), Some("with space")).await;
    assert_eq!(bad_key.detail_fields(), ["Idempotency-Key"]);
    let not_json = app
        .send(points_request(&app, &key, "c1", &json!(1), None).body("{"))
        .await;
    assert_eq!(
        (not_json.status, not_json.error_code()),
        (400, "INVALID_JSON".into())
    );
    assert_eq!(
        client(&app, &key, "v1", "c1").await["loyalty"]["points"],
        120
    );
}

async fn another_shops_client_is_not_found_and_the_scope_is_required(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    app.create_shop("other").await;
    let other = app.create_key("other", SCOPES).await;
    let reply = adjust_points(&app, &other, "c1", &credit(5), None).await;
    assert_eq!(
        (reply.status, reply.error_code()),
        (404, "NOT_FOUND".into()),
        "{}",
        reply.text
    );
    let unknown = adjust_points(&app, &key, "nobody", &credit(5), None).await;
    assert_eq!(unknown.status, 404);
    assert_eq!(
        client(&app, &key, "v1", "c1").await["loyalty"]["points"],
        120
    );

    let reader = app.create_key("atelier", "loyalty:read,clients:read").await;
    let forbidden = adjust_points(&app, &reader, "c1", &credit(5), None).await;
    assert_eq!(
        (forbidden.status, forbidden.error_code()),
        (403, "INSUFFICIENT_SCOPE".into())
    );
    let v1 = app
        .send(
            app.client()
                .post(app.url("/api/v1/clients/c1/loyalty/adjustments"))
                .bearer_auth(&key)
                .header("Content-Type", "application/json")
                .body(credit(5).to_string()),
        )
        .await;
    assert_eq!(v1.status, 404, "v1 has no write on loyalty: {}", v1.text);
}
