//! Every stock stays within ±10^12 on both databases (docs/api-decisions.md): an import that
//! brings one beyond is refused whole, and an adjustment that would take one beyond answers
//! 422 `STOCK_OUT_OF_RANGE` and changes nothing (replayed like the other refusals).

use serde_json::{Value, json};

use crate::support::{TestApp, on_both_databases};

on_both_databases!(
    an_import_beyond_the_range_is_refused_and_writes_nothing,
    an_adjustment_beyond_the_range_is_refused_and_changes_nothing,
);

const BOUND: i64 = 1_000_000_000_000;

fn catalogue(stock: i64) -> Value {
    json!({"products": [
        {"id": "p_bulk", "name": "Vrac", "priceCents": 100, "taxRate": "5.50",
         "variants": [{"id": "v_bulk", "label": "Kilo", "priceCents": 100, "stock": stock}]}
    ]})
}

async fn an_import_beyond_the_range_is_refused_and_writes_nothing(app: TestApp) {
    app.create_shop("atelier").await;
    let key = app.create_key("atelier", "stock:read").await;
    for stock in [BOUND + 1, -BOUND - 1, i64::MAX] {
        let problems = app
            .try_import("atelier", &catalogue(stock))
            .await
            .expect_err("refused");
        assert_eq!(
            problems,
            [format!(
                "products[0].variants[0].stock: must be between -{BOUND} and {BOUND}"
            )],
            "{stock}"
        );
    }
    let listed = app.get("/api/v1/stock?trackedOnly=false", &key).await;
    assert_eq!(listed.json()["data"], json!([]), "nothing was written");
    app.import("atelier", &catalogue(BOUND)).await;
    let listed = app.get("/api/v1/stock", &key).await.json();
    assert_eq!(
        listed["data"][0]["stock"],
        json!(BOUND),
        "the bound itself is kept"
    );
}

async fn an_adjustment_beyond_the_range_is_refused_and_changes_nothing(app: TestApp) {
    app.create_shop("atelier").await;
    app.import("atelier", &catalogue(BOUND - 5)).await;
    let key = app
        .create_key("atelier", "stock:read,stock:write,products:read")
        .await;
    let before = app.get("/api/v1/products/p_bulk", &key).await.json();
    let adjust = |quantity: i64, idempotency: Option<&'static str>| {
        let body = json!({"variantId": "v_bulk", "quantity": quantity, "reason": "arrivage"});
        let app = &app;
        let key = key.clone();
        async move { app.adjust(&key, &body, idempotency).await }
    };

    let refused = adjust(6, Some("bulk-1")).await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert_eq!(refused.error_code(), "STOCK_OUT_OF_RANGE");
    assert_eq!(refused.detail_fields(), ["quantity"]);
    let replayed = adjust(6, Some("bulk-1")).await;
    assert_eq!(
        (replayed.status, replayed.text.clone()),
        (422, refused.text.clone())
    );
    assert_eq!(replayed.header("idempotent-replayed"), Some("true"));

    let after = app.get("/api/v1/products/p_bulk", &key).await.json();
    assert_eq!(after, before, "neither the stock nor updatedAt moved");

    let applied = adjust(5, None).await;
    assert_eq!(applied.status, 201, "{}", applied.text);
    assert_eq!(applied.json()["data"]["newStock"], json!(BOUND));
    assert_eq!(applied.json()["data"]["previousStock"], json!(BOUND - 5));
    assert_eq!(adjust(1, None).await.error_code(), "STOCK_OUT_OF_RANGE");
    let back = adjust(-1_000_000, None).await;
    assert_eq!(back.status, 201);
    assert_eq!(back.json()["data"]["newStock"], json!(BOUND - 1_000_000));
}
