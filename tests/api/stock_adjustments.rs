use std::time::Duration;

use serde_json::{Value, json};

use crate::fixtures::{bare_product, products};
use crate::stock_list::stocked;
use crate::support::trickle::trickle;
use crate::support::{Reply, TestApp, on_both_databases};

on_both_databases!(
    an_adjustment_answers_201_and_shows_everywhere,
    every_body_rule_is_reported_in_details,
    content_type_json_and_size_are_enforced,
    a_trickled_body_is_cut_with_408,
    unknown_foreign_and_untracked_variants_are_refused,
    an_idempotent_retry_replays_and_a_reused_key_is_refused,
);

fn body(variant: &str, quantity: i64, reason: &str) -> Value {
    json!({"variantId": variant, "quantity": quantity, "reason": reason})
}

fn stock_of(reply: &Reply, variant: &str) -> i64 {
    let entries = reply.json()["data"].as_array().unwrap().clone();
    entries.iter().find(|e| e["variantId"] == variant).unwrap()["stock"]
        .as_i64()
        .unwrap()
}

async fn an_adjustment_answers_201_and_shows_everywhere(app: TestApp) {
    let key = stocked(&app, "stock:write,stock:read,products:read").await;
    let before = app.services.clock.now().to_rfc3339();
    let reply = app
        .adjust(&key, &body("v_low", -5, "  casse en rayon  "), None)
        .await;
    assert_eq!(reply.status, 201, "{}", reply.text);
    assert!(reply.header("idempotent-replayed").is_none());
    let data = reply.json()["data"].clone();
    let movement = data["movementId"].as_str().unwrap().to_owned();
    let applied_at = data["appliedAt"].as_str().unwrap().to_owned();
    assert_eq!(
        data,
        json!({"variantId": "v_low", "productId": "p_mug", "previousStock": 2, "newStock": -3, "delta": -5,
               "movementId": movement, "appliedAt": applied_at}),
        "stock may go below zero"
    );
    assert!(applied_at >= before, "{applied_at} < {before}");

    assert_eq!(stock_of(&app.get("/api/v1/stock", &key).await, "v_low"), -3);
    let product = app.get("/api/v1/products/p_mug", &key).await.json();
    assert_eq!(product["data"]["variants"][1]["stock"], -3);
    assert_eq!(
        product["data"]["stockQuantity"], 12,
        "v_ok 10 + v_low -3 + v_out 0 + inactive v_off 5"
    );
    assert_eq!(
        product["data"]["updatedAt"], applied_at,
        "the product's updatedAt moves"
    );
    let since = app
        .get(
            &format!(
                "/api/v1/products?updatedSince={}",
                before.replace('+', "%2B")
            ),
            &key,
        )
        .await;
    let synced: Vec<String> = since.json()["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        synced,
        ["p_mug"],
        "an updatedSince sync sees the adjusted product, and only it"
    );

    let shop = app
        .services
        .shops
        .find(&shop_domain::shop::ShopSlug::parse("atelier").unwrap())
        .await
        .unwrap();
    let movements = app.services.stock.movements(&shop.id, None).await.unwrap();
    assert_eq!(movements.len(), 1);
    let recorded = &movements[0];
    assert_eq!(recorded.id.as_str(), movement);
    assert_eq!(
        (recorded.delta, recorded.previous_stock, recorded.new_stock),
        (-5, 2, -3)
    );
    assert_eq!(recorded.reason, "casse en rayon");
    assert_eq!(
        recorded.api_key_prefix.as_str(),
        &key[9..17],
        "the movement names the key that made it"
    );

    let again = app
        .adjust(&key, &body("v_low", -5, "casse en rayon"), None)
        .await;
    assert_eq!(again.status, 201);
    assert_ne!(
        again.json()["data"]["movementId"],
        movement.as_str(),
        "without a key, the same body is a new adjustment"
    );
    assert_eq!(again.json()["data"]["newStock"], -8);
}

async fn every_body_rule_is_reported_in_details(app: TestApp) {
    let key = stocked(&app, "stock:write").await;
    let cases: Vec<(Value, &[&str])> = vec![
        (json!({"quantity": 1, "reason": "x"}), &["variantId"]),
        (
            json!({"variantId": "", "quantity": 1, "reason": "x"}),
            &["variantId"],
        ),
        (
            json!({"variantId": 7, "quantity": 1, "reason": "x"}),
            &["variantId"],
        ),
        (json!({"variantId": "v_ok", "reason": "x"}), &["quantity"]),
        (
            json!({"variantId": "v_ok", "quantity": 0, "reason": "x"}),
            &["quantity"],
        ),
        (
            json!({"variantId": "v_ok", "quantity": 1.5, "reason": "x"}),
            &["quantity"],
        ),
        (
            json!({"variantId": "v_ok", "quantity": 2.0, "reason": "x"}),
            &["quantity"],
        ),
        (
            json!({"variantId": "v_ok", "quantity": "5", "reason": "x"}),
            &["quantity"],
        ),
        (
            json!({"variantId": "v_ok", "quantity": null, "reason": "x"}),
            &["quantity"],
        ),
        (
            json!({"variantId": "v_ok", "quantity": 1_000_001, "reason": "x"}),
            &["quantity"],
        ),
        (
            json!({"variantId": "v_ok", "quantity": -1_000_001, "reason": "x"}),
            &["quantity"],
        ),
        (json!({"variantId": "v_ok", "quantity": 1}), &["reason"]),
        (
            json!({"variantId": "v_ok", "quantity": 1, "reason": "   "}),
            &["reason"],
        ),
        (
            json!({"variantId": "v_ok", "quantity": 1, "reason": "é".repeat(501)}),
            &["reason"],
        ),
        (
            json!({"variantId": "v_ok", "quantity": 1, "reason": "x", "warehouse": "A", "note": 1}),
            &["note", "warehouse"],
        ),
        (
            json!({"variantId": "", "quantity": 0.5, "reason": "", "extra": true}),
            &["extra", "quantity", "reason", "variantId"],
        ),
        (json!([1, 2]), &["body"]),
    ];
    for (sent, fields) in cases {
        let reply = app.adjust(&key, &sent, None).await;
        assert_eq!(
            (reply.status, reply.error_code().as_str()),
            (400, "VALIDATION_ERROR"),
            "{sent}: {}",
            reply.text
        );
        let mut named = reply.detail_fields();
        named.sort();
        assert_eq!(named, fields, "{sent}: {}", reply.text);
    }
    for edge in [1_000_000, -1_000_000] {
        assert_eq!(
            app.adjust(&key, &body("v_ok", edge, "inventaire"), None)
                .await
                .status,
            201,
            "{edge}"
        );
    }
    let reason = "é".repeat(500);
    assert_eq!(
        app.adjust(&key, &body("v_ok", 1, &reason), None)
            .await
            .status,
        201
    );
}

async fn content_type_json_and_size_are_enforced(app: TestApp) {
    let key = stocked(&app, "stock:write").await;
    let url = app.url("/api/v1/stock/adjustments");
    let valid = body("v_ok", 1, "x").to_string();
    let post = || app.client().post(&url).bearer_auth(&key);

    let missing = app.send(post().body(valid.clone())).await;
    assert_eq!(
        (missing.status, missing.error_code().as_str()),
        (400, "VALIDATION_ERROR"),
        "{}",
        missing.text
    );
    assert!(missing.text.contains("Content-Type"), "{}", missing.text);
    let text = app
        .send(
            post()
                .header("Content-Type", "text/plain")
                .body(valid.clone()),
        )
        .await;
    assert_eq!(
        (text.status, text.error_code().as_str()),
        (400, "VALIDATION_ERROR")
    );
    let charset = app
        .send(
            post()
                .header("Content-Type", "application/json; charset=utf-8")
                .body(valid.clone()),
        )
        .await;
    assert_eq!(charset.status, 201, "{}", charset.text);

    for garbage in ["{", "not json", "{\"variantId\": \"v_ok\",}", ""] {
        let reply = app
            .send(
                post()
                    .header("Content-Type", "application/json")
                    .body(garbage),
            )
            .await;
        assert_eq!(
            (reply.status, reply.error_code().as_str()),
            (400, "INVALID_JSON"),
            "{garbage:?}: {}",
            reply.text
        );
    }
    let huge =
        json!({"variantId": "v_ok", "quantity": 1, "reason": "x".repeat(64 * 1024)}).to_string();
    let reply = app
        .send(post().header("Content-Type", "application/json").body(huge))
        .await;
    assert_eq!(
        (reply.status, reply.error_code().as_str()),
        (413, "PAYLOAD_TOO_LARGE"),
        "{}",
        reply.text
    );

    let unauthenticated = app
        .send(
            app.client()
                .post(&url)
                .header("Content-Type", "application/json")
                .body("{"),
        )
        .await;
    assert_eq!(
        unauthenticated.status, 401,
        "authentication comes before the body"
    );
    let reader = app.create_key("atelier", "stock:read").await;
    let forbidden = app.adjust(&reader, &json!({"nonsense": true}), None).await;
    assert_eq!(
        (forbidden.status, forbidden.error_code().as_str()),
        (403, "INSUFFICIENT_SCOPE")
    );
    let get = app.get("/api/v1/stock/adjustments", &key).await;
    assert_eq!(get.status, 405);
}

async fn unknown_foreign_and_untracked_variants_are_refused(app: TestApp) {
    let key = stocked(&app, "stock:write,stock:read").await;
    app.create_shop("voisin").await;
    app.import(
        "voisin",
        &products(vec![bare_product("p_theirs", "Leur produit")]),
    )
    .await;
    let theirs = app.create_key("voisin", "stock:read").await;

    let unknown = app.adjust(&key, &body("v_nowhere", 1, "x"), None).await;
    assert_eq!(
        (unknown.status, unknown.error_code().as_str()),
        (404, "NOT_FOUND")
    );
    let foreign = app.adjust(&key, &body("p_theirs_v", 1, "x"), None).await;
    assert_eq!(
        foreign.text, unknown.text,
        "another shop's variant is answered as unknown"
    );
    let impossible = app.adjust(&key, &body("a/b c", 1, "x"), None).await;
    assert_eq!(impossible.text, unknown.text);

    let untracked = app.adjust(&key, &body("v_free", 1, "x"), None).await;
    assert_eq!(
        (untracked.status, untracked.error_code().as_str()),
        (422, "STOCK_NOT_TRACKED")
    );
    let all = app
        .get("/api/v1/stock?trackedOnly=false", &key)
        .await
        .json();
    let free = all["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["variantId"] == "v_free")
        .unwrap()
        .clone();
    assert_eq!(free["stock"], 0, "nothing changed");
    let their_stock = app
        .get("/api/v1/stock?trackedOnly=false", &theirs)
        .await
        .json();
    assert_eq!(
        their_stock["data"][0]["stock"], 4,
        "the other shop's variant is untouched"
    );
}

async fn an_idempotent_retry_replays_and_a_reused_key_is_refused(app: TestApp) {
    let key = stocked(&app, "stock:write,stock:read").await;
    let first = app
        .adjust(&key, &body("v_ok", -2, "vente"), Some("order-8812"))
        .await;
    assert_eq!(first.status, 201, "{}", first.text);
    let replay = app
        .adjust(
            &key,
            &json!({"reason": " vente ", "quantity": -2, "variantId": "v_ok"}),
            Some("order-8812"),
        )
        .await;
    assert_eq!(replay.status, 201, "{}", replay.text);
    assert_eq!(replay.header("idempotent-replayed"), Some("true"));
    assert_eq!(
        replay.json(),
        first.json(),
        "the first response, same movementId"
    );
    assert_eq!(
        stock_of(&app.get("/api/v1/stock", &key).await, "v_ok"),
        8,
        "applied once"
    );

    let reused = app
        .adjust(&key, &body("v_ok", -3, "vente"), Some("order-8812"))
        .await;
    assert_eq!(
        (reused.status, reused.error_code().as_str()),
        (422, "IDEMPOTENCY_KEY_REUSED"),
        "{}",
        reused.text
    );
    assert_eq!(stock_of(&app.get("/api/v1/stock", &key).await, "v_ok"), 8);

    let rejected = app
        .adjust(&key, &body("v_free", 1, "x"), Some("k-untracked"))
        .await;
    assert_eq!(rejected.status, 422);
    let rejected_again = app
        .adjust(&key, &body("v_free", 1, "x"), Some("k-untracked"))
        .await;
    assert_eq!(
        (
            rejected_again.status,
            rejected_again.header("idempotent-replayed")
        ),
        (422, Some("true"))
    );

    let other_key = app.create_key("atelier", "stock:write").await;
    let same_idempotency_key = app
        .adjust(&other_key, &body("v_ok", -2, "vente"), Some("order-8812"))
        .await;
    assert_eq!(same_idempotency_key.status, 201);
    assert!(
        same_idempotency_key.header("idempotent-replayed").is_none(),
        "keys are scoped to the API key"
    );
    assert_eq!(stock_of(&app.get("/api/v1/stock", &key).await, "v_ok"), 6);

    for bad in ["", "with space", &"k".repeat(256)] {
        let reply = app.adjust(&key, &body("v_ok", 1, "x"), Some(bad)).await;
        assert_eq!(
            (reply.status, reply.detail_fields()),
            (400, vec!["Idempotency-Key".to_owned()]),
            "{bad:?}"
        );
    }
}

/// A client that sends its head, then part of its body and no more, must not hold the connection
/// and a handler: after `BODY_READ_TIMEOUT` (10 s) it gets 408 in the envelope and the
/// connection is closed. Nothing moved.
async fn a_trickled_body_is_cut_with_408(app: TestApp) {
    let key = stocked(&app, "stock:write,stock:read").await;
    let before = stock_of(&app.get("/api/v1/stock", &key).await, "v_ok");
    let (answer, waited) = trickle(&app, |address| {
        format!(
            "POST /api/v1/stock/adjustments HTTP/1.1\r\nHost: {address}\r\n\
             Authorization: Bearer {key}\r\nContent-Type: application/json\r\n\
             Content-Length: 64\r\n\r\n{{\"variantId\": \"v_ok\", "
        )
    })
    .await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains(r#""code":"REQUEST_TIMEOUT""#), "{answer}");
    assert!(
        (Duration::from_secs(9)..Duration::from_secs(20)).contains(&waited),
        "answered after {waited:?}"
    );
    assert_eq!(
        stock_of(&app.get("/api/v1/stock", &key).await, "v_ok"),
        before
    );
}
