//! `/api/v2` serves every v1 operation unchanged; `/api/v1` stays as it was.

use serde_json::json;

use crate::fixtures::{sales, stock, with_synced_at_blanked};
use crate::support::{TestApp, on_both_databases};

on_both_databases!(
    every_v1_read_answers_the_same_under_v2,
    an_adjustment_through_v2_is_the_v1_adjustment,
    v1_lists_its_ten_scopes_and_v2_every_scope_of_the_key
);

async fn every_v1_read_answers_the_same_under_v2(app: TestApp) {
    app.create_shop("atelier").await;
    app.import("atelier", &sales()).await;
    app.import("atelier", &stock()).await;
    let key = app
        .create_key(
            "atelier",
            "products:read,orders:read,stock:read,clients:read,loyalty:read",
        )
        .await;
    for path in [
        "/me",
        "/products?limit=2",
        "/products/p_mug",
        "/products/no-such-product",
        "/orders?source=pos",
        "/orders/o1",
        "/stock?lowStockOnly=true",
        "/clients?q=dupont",
        "/clients/c1",
        "/clients/c1/loyalty",
        "/orders?limit=0",
    ] {
        let v1 = app.get(&format!("/api/v1{path}"), &key).await;
        let v2 = app.get(&format!("/api/v2{path}"), &key).await;
        assert_eq!(v1.status, v2.status, "{path}: {}", v2.text);
        // A list's syncedAt is the server's clock at each request; everything else is equal.
        assert_eq!(
            with_synced_at_blanked(&v1.text),
            with_synced_at_blanked(&v2.text),
            "{path}"
        );
        assert_eq!(v2.header("cache-control"), Some("no-store"), "{path}");
    }
}

async fn an_adjustment_through_v2_is_the_v1_adjustment(app: TestApp) {
    app.create_shop("atelier").await;
    app.import("atelier", &stock()).await;
    let key = app.create_key("atelier", "stock:read,stock:write").await;
    let body = json!({"variantId": "v_ok", "quantity": -3, "reason": "Casse"});
    let request = app
        .client()
        .post(app.url("/api/v2/stock/adjustments"))
        .bearer_auth(&key)
        .header("Content-Type", "application/json")
        .header("Idempotency-Key", "v2-adjustment-1")
        .body(body.to_string());
    let created = app.send(request).await;
    assert_eq!(created.status, 201, "{}", created.text);
    assert_eq!(created.json()["data"]["newStock"], 7);
    // The same key and request on v1 is the same adjustment: replayed, not applied again.
    let replayed = app.adjust(&key, &body, Some("v2-adjustment-1")).await;
    assert_eq!(replayed.status, 201, "{}", replayed.text);
    assert_eq!(replayed.header("idempotent-replayed"), Some("true"));
    assert_eq!(replayed.json()["data"], created.json()["data"]);
    let listed = app.get("/api/v1/stock?lowStockOnly=false", &key).await;
    let entry = listed.json()["data"]
        .as_array()
        .and_then(|entries| entries.iter().find(|e| e["variantId"] == "v_ok").cloned())
        .unwrap();
    assert_eq!(entry["stock"], 7);
}

async fn v1_lists_its_ten_scopes_and_v2_every_scope_of_the_key(app: TestApp) {
    app.create_shop("atelier").await;
    let key = app
        .create_key("atelier", "webhooks:write,products:read,webhooks:read")
        .await;
    let v1 = app.get("/api/v1/me", &key).await;
    let v2 = app.get("/api/v2/me", &key).await;
    assert_eq!(v1.json()["apiKey"]["scopes"], json!(["products:read"]));
    assert_eq!(
        v2.json()["apiKey"]["scopes"],
        json!(["products:read", "webhooks:read", "webhooks:write"])
    );
    assert_eq!(v1.json()["shop"], v2.json()["shop"]);
    let document = app.get("/api/v2/openapi.json", "").await;
    assert_eq!(document.status, 200);
    assert_eq!(document.json()["info"]["version"], "2.0.0");
}
