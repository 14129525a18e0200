use serde_json::json;
use shop_domain::id::VariantId;
use shop_domain::shop::ShopSlug;

use crate::stock_list::stocked;
use crate::support::{TestApp, on_both_databases};

on_both_databases!(
    concurrent_adjustments_lose_no_update,
    a_concurrent_duplicate_pair_applies_once
);

const ADJUSTMENTS: i64 = 200;

/// 200 adjustments of one variant at once over HTTP, with mixed signs: the final stock is
/// the initial stock plus the sum of the deltas, with exactly 200 movements and no 5xx.
async fn concurrent_adjustments_lose_no_update(app: TestApp) {
    let key = stocked(&app, "stock:write,stock:read").await;
    let mut requests = Vec::new();
    let mut expected_sum = 0;
    for n in 0..ADJUSTMENTS {
        let delta = if n % 3 == 0 { -(n % 7 + 1) } else { n % 5 + 1 };
        expected_sum += delta;
        let request = app.adjustment_request(
            &key,
            &json!({"variantId": "v_ok", "quantity": delta, "reason": format!("load {n}")}),
            None,
        );
        requests.push(request);
    }
    let statuses: Vec<u16> = app
        .send_all_at_once(requests)
        .await
        .iter()
        .map(|reply| reply.status)
        .collect();
    let failures: Vec<_> = statuses.iter().filter(|s| **s != 201).collect();
    assert!(
        failures.is_empty(),
        "{} of {ADJUSTMENTS} did not answer 201: {failures:?}",
        failures.len()
    );

    let stock = app.get("/api/v1/stock", &key).await.json();
    let entry = stock["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["variantId"] == "v_ok")
        .unwrap()
        .clone();
    assert_eq!(entry["stock"], 10 + expected_sum);

    let shop = app
        .services
        .shops
        .find(&ShopSlug::parse("atelier").unwrap())
        .await
        .unwrap();
    let movements = app
        .services
        .stock
        .movements(&shop.id, Some(VariantId::parse("v_ok").unwrap()))
        .await
        .unwrap();
    assert_eq!(movements.len() as i64, ADJUSTMENTS);
    assert_eq!(movements.iter().map(|m| m.delta).sum::<i64>(), expected_sum);
    for movement in &movements {
        assert_eq!(
            movement.new_stock,
            movement.previous_stock + movement.delta,
            "{movement:?}"
        );
    }
}

/// The same request with the same Idempotency-Key, twice at the same moment: applied once,
/// both answered 201 with the same movement.
async fn a_concurrent_duplicate_pair_applies_once(app: TestApp) {
    let key = stocked(&app, "stock:write,stock:read").await;
    for round in 0..5 {
        let idempotency_key = format!("dup-{round}");
        let body = json!({"variantId": "v_ok", "quantity": -1, "reason": "vente"});
        let first = app
            .adjustment_request(&key, &body, Some(&idempotency_key))
            .send();
        let second = app
            .adjustment_request(&key, &body, Some(&idempotency_key))
            .send();
        let (first, second) = tokio::join!(first, second);
        let (first, second) = (first.expect("first"), second.expect("second"));
        let statuses = (first.status().as_u16(), second.status().as_u16());
        let replayed = [&first, &second]
            .iter()
            .filter(|r| {
                r.headers()
                    .get("idempotent-replayed")
                    .is_some_and(|v| v == "true")
            })
            .count();
        let first: serde_json::Value = first.json().await.expect("json");
        let second: serde_json::Value = second.json().await.expect("json");
        assert_eq!(statuses, (201, 201), "round {round}: {first} / {second}");
        assert_eq!(
            first["data"]["movementId"], second["data"]["movementId"],
            "round {round}"
        );
        assert_eq!(
            replayed, 1,
            "round {round}: exactly one of the pair is a replay"
        );
    }
    let stock = app.get("/api/v1/stock", &key).await.json();
    let entry = stock["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["variantId"] == "v_ok")
        .unwrap()
        .clone();
    assert_eq!(entry["stock"], 10 - 5, "five pairs, five units");
}
