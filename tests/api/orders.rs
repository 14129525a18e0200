use serde_json::{Value, json};

use crate::fixtures::{
    IMPORT_TIME, SECRETS, sales, stamped_by_the_import, with_synced_at_blanked, without_synced_at,
};
use crate::support::{Reply, TestApp, on_both_databases};

on_both_databases!(
    orders_have_the_exact_fields_and_no_hidden_ones,
    every_order_filter_alone_and_combined,
    date_only_bounds_cover_whole_days,
    orders_page_newest_first_across_equal_instants,
    every_bad_order_parameter_is_named,
    orders_of_another_shop_are_not_found,
    reimporting_unchanged_sales_changes_nothing,
    a_dangling_reference_refuses_the_file_and_changes_nothing,
);

pub async fn seeded(app: &TestApp, scopes: &str) -> String {
    app.create_shop("atelier").await;
    app.import("atelier", &sales()).await;
    app.create_key("atelier", scopes).await
}

fn ids(reply: &Reply) -> Vec<String> {
    assert_eq!(reply.status, 200, "{}", reply.text);
    reply.json()["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_str().unwrap().to_owned())
        .collect()
}

pub fn assert_no_secret(reply: &Reply) {
    for secret in SECRETS {
        assert!(
            !reply.text.contains(secret),
            "{secret} leaked: {}",
            reply.text
        );
    }
    for hidden in [
        "signature",
        "previousSignature",
        "cumulativeTotalTTCSnapshot",
        "internalNote",
        "paymentIntentId",
        "note",
        "anonymousClientId",
    ] {
        assert!(
            !reply.text.contains(&format!("\"{hidden}\"")),
            "{hidden} present: {}",
            reply.text
        );
    }
}

async fn orders_have_the_exact_fields_and_no_hidden_ones(app: TestApp) {
    let key = seeded(&app, "orders:read").await;
    let detail = app.get("/api/v1/orders/o1", &key).await;
    assert_eq!(detail.status, 200, "{}", detail.text);
    assert_no_secret(&detail);
    let item = |id: &str, variant: &str, quantity: i64| {
        json!({"id": id, "productId": "p_sale", "variantId": variant, "productName": "Tasse", "unitPriceCents": 450,
               "quantity": quantity, "totalCents": 450 * quantity, "taxRate": "20.00", "taxAmountCents": 75 * quantity,
               "refunded": null})
    };
    assert_eq!(
        stamped_by_the_import(detail.json(), "/data/updatedAt"),
        json!({"data": {
            "id": "o1", "orderNumber": 102, "source": "pos", "status": "completed", "paymentStatus": "paid",
            "subtotalCents": 900, "discountAmountCents": 0, "taxAmountCents": 150, "totalCents": 900,
            "paymentMethod": "card", "paidAt": "2026-03-10T00:00:00.000Z", "customer": null, "clientId": "c1",
            "items": [item("o1_i1", "v_blue", 1), item("o1_i2", "v_red", 2)],
            "createdAt": "2026-03-10T00:00:00.000Z", "updatedAt": IMPORT_TIME
        }})
    );
    let unpaid = app.get("/api/v1/orders/o2", &key).await.json();
    assert_eq!(unpaid["data"]["paidAt"], Value::Null);
    assert_eq!(unpaid["data"]["paymentMethod"], Value::Null);
    let list = app.get("/api/v1/orders", &key).await;
    assert_no_secret(&list);
    assert_eq!(
        without_synced_at(&list.json()["pageInfo"]),
        json!({"hasMore": false, "nextCursor": null, "limit": 20})
    );
    assert_eq!(
        list.json()["data"][4],
        detail.json()["data"],
        "list and detail show the same order"
    );
}

async fn every_order_filter_alone_and_combined(app: TestApp) {
    let key = seeded(&app, "orders:read").await;
    let cases: &[(&str, &[&str])] = &[
        ("", &["o5", "o4", "o3", "o2", "o1"]),
        ("status=completed", &["o5", "o1"]),
        ("status=pending", &["o2"]),
        ("paymentStatus=paid", &["o5", "o3", "o1"]),
        ("paymentStatus=refunded", &["o4"]),
        ("source=pos", &["o4", "o1"]),
        ("source=click-collect", &["o3"]),
        ("clientId=c1", &["o5", "o4", "o1"]),
        ("clientId=c_nobody", &[]),
        ("dateFrom=2026-03-11", &["o5", "o4", "o3"]),
        ("dateTo=2026-03-11T00:00:00Z", &["o3", "o2", "o1"]),
        ("source=online&paymentStatus=paid&clientId=c1", &["o5"]),
        ("status=completed&dateFrom=2026-03-11", &["o5"]),
        (
            "source=pos&status=cancelled&paymentStatus=refunded&clientId=c1&dateFrom=2026-03-12&dateTo=2026-03-12",
            &["o4"],
        ),
        ("source=pos&status=ready", &[]),
    ];
    for (query, expected) in cases {
        assert_eq!(
            ids(&app.get(&format!("/api/v1/orders?{query}"), &key).await),
            *expected,
            "{query}"
        );
    }
}

async fn date_only_bounds_cover_whole_days(app: TestApp) {
    let key = seeded(&app, "orders:read").await;
    let cases: &[(&str, &[&str])] = &[
        ("dateTo=2026-03-10", &["o2", "o1"]), // o2 at 23:59:59.999 is in
        ("dateTo=2026-03-10T23:59:59.998Z", &["o1"]),
        ("dateFrom=2026-03-10&dateTo=2026-03-10", &["o2", "o1"]),
        (
            "dateFrom=2026-03-10T23:59:59.999Z&dateTo=2026-03-11",
            &["o3", "o2"],
        ),
        (
            "dateFrom=2026-03-11T01:00:00%2B01:00&dateTo=2026-03-11",
            &["o3"],
        ),
        (
            "dateFrom=2026-03-12T12:00:00.000Z&dateTo=2026-03-12T12:00:00.000Z",
            &["o5", "o4"],
        ),
    ];
    for (query, expected) in cases {
        assert_eq!(
            ids(&app.get(&format!("/api/v1/orders?{query}"), &key).await),
            *expected,
            "{query}"
        );
    }
}

async fn orders_page_newest_first_across_equal_instants(app: TestApp) {
    let key = seeded(&app, "orders:read").await;
    let mut seen = Vec::new();
    let mut path = "/api/v1/orders?limit=1".to_owned();
    loop {
        let reply = app.get(&path, &key).await;
        seen.extend(ids(&reply));
        match reply.json()["pageInfo"]["nextCursor"].as_str() {
            Some(cursor) => path = format!("/api/v1/orders?limit=1&cursor={cursor}"),
            None => break,
        }
        assert!(seen.len() <= 5, "paging does not end: {seen:?}");
    }
    assert_eq!(seen, ["o5", "o4", "o3", "o2", "o1"]);
    let filtered = app.get("/api/v1/orders?limit=2&clientId=c1", &key).await;
    let cursor = filtered.json()["pageInfo"]["nextCursor"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        ids(&app
            .get(
                &format!("/api/v1/orders?limit=2&clientId=c1&cursor={cursor}"),
                &key
            )
            .await),
        ["o1"]
    );
}

async fn every_bad_order_parameter_is_named(app: TestApp) {
    let key = seeded(&app, "orders:read,products:read").await;
    let cases: &[(&str, &[&str])] = &[
        ("status=shipped", &["status"]),
        ("paymentStatus=free", &["paymentStatus"]),
        ("source=shop", &["source"]),
        ("source=POS", &["source"]),
        ("dateFrom=yesterday", &["dateFrom"]),
        ("dateTo=2026-02-30", &["dateTo"]),
        ("dateFrom=2026-03-12&dateTo=2026-03-11", &["dateFrom"]),
        ("limit=0", &["limit"]),
        ("limit=101", &["limit"]),
        ("clientId=a%20b", &["clientId"]),
        ("cursor=garbage", &["cursor"]),
        ("sort=asc", &["sort"]),
        ("status=ready&status=pending", &["status"]),
        ("status=x&source=y&limit=-1", &["limit", "source", "status"]),
    ];
    for (query, fields) in cases {
        let reply = app.get(&format!("/api/v1/orders?{query}"), &key).await;
        assert_eq!(
            (reply.status, reply.error_code().as_str()),
            (400, "VALIDATION_ERROR"),
            "{query}: {}",
            reply.text
        );
        let mut named = reply.detail_fields();
        named.sort();
        assert_eq!(named, *fields, "{query}: {}", reply.text);
    }
    let reply = app.get("/api/v1/orders?status=shipped", &key).await;
    let message = reply.json()["error"]["details"][0]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    for allowed in ["pending", "preparing", "ready", "completed", "cancelled"] {
        assert!(message.contains(allowed), "{message}");
    }
    app.import(
        "atelier",
        &json!({"products": [{"id": "p_zz", "name": "Z", "priceCents": 1, "taxRate": "20.00"}]}),
    )
    .await;
    let page = app.get("/api/v1/products?limit=1", &key).await;
    let products_cursor = page.json()["pageInfo"]["nextCursor"]
        .as_str()
        .unwrap()
        .to_owned();
    let reply = app
        .get(&format!("/api/v1/orders?cursor={products_cursor}"), &key)
        .await;
    assert_eq!(
        (reply.status, reply.detail_fields()),
        (400, vec!["cursor".to_owned()])
    );
}

async fn orders_of_another_shop_are_not_found(app: TestApp) {
    let key = seeded(&app, "orders:read").await;
    app.create_shop("voisin").await;
    let theirs = json!({"orders": [{"id": "o_theirs", "orderNumber": 1, "source": "pos", "status": "completed",
                                     "paymentStatus": "paid", "totalCents": 1, "items": []}]});
    app.import("voisin", &theirs).await;
    let foreign = app.get("/api/v1/orders/o_theirs", &key).await;
    let unknown = app.get("/api/v1/orders/o_nowhere", &key).await;
    assert_eq!(foreign.status, 404);
    assert_eq!(foreign.text, unknown.text);
    assert!(!ids(&app.get("/api/v1/orders", &key).await).contains(&"o_theirs".to_owned()));
    let their_key = app.create_key("voisin", "orders:read").await;
    assert_eq!(
        ids(&app.get("/api/v1/orders", &their_key).await),
        ["o_theirs"]
    );
    assert_eq!(
        app.get("/api/v1/orders/o1", &their_key).await.text,
        unknown.text
    );
}

async fn reimporting_unchanged_sales_changes_nothing(app: TestApp) {
    let key = seeded(&app, "orders:read,clients:read,loyalty:read").await;
    let paths = [
        "/api/v1/orders",
        "/api/v1/clients",
        "/api/v1/clients/c1/loyalty",
        "/api/v1/orders/o1",
    ];
    let mut before = Vec::new();
    for path in paths {
        before.push(with_synced_at_blanked(&app.get(path, &key).await.text));
    }
    app.import("atelier", &sales()).await;
    for (path, earlier) in paths.iter().zip(before) {
        assert_eq!(
            with_synced_at_blanked(&app.get(path, &key).await.text),
            earlier,
            "{path}"
        );
    }
}

async fn a_dangling_reference_refuses_the_file_and_changes_nothing(app: TestApp) {
    let key = seeded(&app, "orders:read,clients:read").await;
    let listed = async |path: &str| with_synced_at_blanked(&app.get(path, &key).await.text);
    let orders_before = listed("/api/v1/orders").await;
    let clients_before = listed("/api/v1/clients").await;

    let mut data = sales();
    data["clients"][0]["name"] = json!("Renamed, must not be stored");
    data["orders"][1]["clientId"] = json!("c_ghost");
    data["orders"][2]["items"][0]["variantId"] = json!("v_ghost");
    data["lotteryTickets"][0]["orderId"] = json!("o_ghost");
    let problems = app
        .try_import("atelier", &data)
        .await
        .expect_err("a dangling reference must be refused");
    for path in [
        "orders[1].clientId",
        "orders[2].items[0].variantId",
        "lotteryTickets[0].orderId",
    ] {
        assert!(
            problems.iter().any(|p| p.starts_with(path)),
            "{path} not in {problems:?}"
        );
    }
    assert_eq!(listed("/api/v1/orders").await, orders_before);
    assert_eq!(listed("/api/v1/clients").await, clients_before);
}
