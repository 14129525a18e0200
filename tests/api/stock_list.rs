use serde_json::json;

use crate::fixtures::{IMPORT_TIME, stamped_by_the_import, stock, without_synced_at};
use crate::support::{Reply, TestApp, on_both_databases};

on_both_databases!(
    stock_entries_have_the_exact_fields,
    every_stock_filter_and_bad_parameter
);

pub async fn stocked(app: &TestApp, scopes: &str) -> String {
    app.create_shop("atelier").await;
    app.import("atelier", &stock()).await;
    app.create_key("atelier", scopes).await
}

fn ids(reply: &Reply) -> Vec<String> {
    assert_eq!(reply.status, 200, "{}", reply.text);
    reply.json()["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["variantId"].as_str().unwrap().to_owned())
        .collect()
}

async fn stock_entries_have_the_exact_fields(app: TestApp) {
    let key = stocked(&app, "stock:read").await;
    let reply = app.get("/api/v1/stock?trackedOnly=false", &key).await;
    assert_eq!(
        without_synced_at(&reply.json()["pageInfo"]),
        json!({"hasMore": false, "nextCursor": null, "limit": 50})
    );
    let entries = reply.json()["data"].as_array().unwrap().clone();
    let entry = |id: &str| {
        entries
            .iter()
            .find(|e| e["variantId"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(
        stamped_by_the_import(entry("v_low"), "/updatedAt"),
        json!({"variantId": "v_low", "productId": "p_mug", "productName": "Mug émaillé", "variantLabel": "Noir",
               "sku": "SKU-V_LOW", "barcode": "370001", "tracked": true, "stock": 2, "lowStockThreshold": 3,
               "isLowStock": true, "isOutOfStock": false, "active": true, "updatedAt": IMPORT_TIME})
    );
    let flags = |id: &str| {
        let e = entry(id);
        (
            e["isLowStock"].as_bool().unwrap(),
            e["isOutOfStock"].as_bool().unwrap(),
            e["active"].as_bool().unwrap(),
        )
    };
    assert_eq!(flags("v_ok"), (false, false, true));
    assert_eq!(
        flags("v_out"),
        (true, true, true),
        "out of stock is also low"
    );
    assert_eq!(flags("v_off"), (false, false, false));
    assert_eq!(entry("v_free")["tracked"], false);
    assert_eq!(
        flags("v_free"),
        (false, false, true),
        "untracked is never low or out"
    );
}

async fn every_stock_filter_and_bad_parameter(app: TestApp) {
    let key = stocked(&app, "stock:read").await;
    let cases: &[(&str, &[&str])] = &[
        ("", &["v_low", "v_off", "v_ok", "v_out"]),
        ("trackedOnly=true", &["v_low", "v_off", "v_ok", "v_out"]),
        (
            "trackedOnly=false",
            &["v_free", "v_low", "v_off", "v_ok", "v_out"],
        ),
        ("lowStockOnly=true", &["v_low", "v_out"]),
        ("lowStockOnly=false", &["v_low", "v_off", "v_ok", "v_out"]),
        ("lowStockOnly=true&trackedOnly=false", &["v_low", "v_out"]),
        ("productId=p_card&trackedOnly=false", &["v_free"]),
        ("productId=p_card", &[]),
        (
            "q=MUG%20%C3%89MAILL%C3%89",
            &["v_low", "v_off", "v_ok", "v_out"],
        ), // product name, any case
        ("q=sku-v_low", &["v_low"]), // variant SKU, not its siblings'
        ("q=370002", &["v_out"]),    // barcode
        ("q=3760000099999", &["v_low", "v_off", "v_ok", "v_out"]), // product EAN
        ("q=carte&trackedOnly=false", &["v_free"]),
    ];
    for (query, expected) in cases {
        assert_eq!(
            ids(&app.get(&format!("/api/v1/stock?{query}"), &key).await),
            *expected,
            "{query}"
        );
    }
    let first = app.get("/api/v1/stock?limit=3", &key).await;
    assert_eq!(ids(&first), ["v_low", "v_off", "v_ok"]);
    let cursor = first.json()["pageInfo"]["nextCursor"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        ids(&app
            .get(&format!("/api/v1/stock?limit=3&cursor={cursor}"), &key)
            .await),
        ["v_out"]
    );

    for (query, field) in [
        ("lowStockOnly=yes", "lowStockOnly"),
        ("trackedOnly=1", "trackedOnly"),
        ("trackedOnly=TRUE", "trackedOnly"),
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("productId=a%2Fb", "productId"),
        ("cursor=zzz", "cursor"),
        ("warehouse=1", "warehouse"),
    ] {
        let reply = app.get(&format!("/api/v1/stock?{query}"), &key).await;
        assert_eq!(
            (reply.status, reply.detail_fields()),
            (400, vec![field.to_owned()]),
            "{query}: {}",
            reply.text
        );
    }
    let other = app.create_key("atelier", "products:read").await;
    assert_eq!(
        app.get("/api/v1/stock", &other).await.error_code(),
        "INSUFFICIENT_SCOPE"
    );
}
