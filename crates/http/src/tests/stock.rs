//! `GET /api/v1/stock`.

use std::collections::BTreeSet;

use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use serde_json::json;
use shop_domain::Timestamp;
use shop_domain::id::{ProductId, VariantId};
use shop_domain::stock::{StockEntry, stock_cursor, stock_cursor_position};
use shop_ports::StoreError;
use shop_ports::port::MockStockRepository;

use super::{TestApi, get, keys, shop};

const ENTRY_KEYS: [&str; 13] = [
    "variantId",
    "productId",
    "productName",
    "variantLabel",
    "sku",
    "barcode",
    "tracked",
    "stock",
    "lowStockThreshold",
    "isLowStock",
    "isOutOfStock",
    "active",
    "updatedAt",
];

pub fn entry(variant: &str, stock: i64) -> StockEntry {
    StockEntry {
        variant_id: VariantId::parse(variant).unwrap(),
        product_id: ProductId::parse("prod_1").unwrap(),
        product_name: "Écharpe laine".into(),
        variant_label: "Rouge".into(),
        sku: Some("ECH-01-R".into()),
        barcode: Some("3760000000024".into()),
        tracked: true,
        stock,
        low_stock_threshold: 2,
        active: true,
        updated_at: Timestamp::from_millis(1_732_181_400_000),
    }
}

/// A repository whose list returns `entries` (the use case overfetches by one).
fn listing_of(entries: Vec<StockEntry>) -> MockStockRepository {
    let mut repository = MockStockRepository::new();
    repository
        .expect_list_stock()
        .returning(move |_, _, _| Ok(entries.clone()));
    repository
}

#[actix_web::test]
async fn a_stock_entry_has_exactly_the_spec_fields_and_types() {
    let mut bare = entry("v2", -1);
    bare.sku = None;
    bare.barcode = None;
    bare.tracked = false;
    bare.active = false;
    let reply = TestApi::new()
        .stock(listing_of(vec![entry("v1", 7), bare]))
        .send(get("/api/v1/stock"))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
    let body = reply.json();
    assert_eq!(keys(&body), BTreeSet::from(["data", "pageInfo"]));
    assert_eq!(
        body["data"],
        json!([
            {
                "variantId": "v1",
                "productId": "prod_1",
                "productName": "Écharpe laine",
                "variantLabel": "Rouge",
                "sku": "ECH-01-R",
                "barcode": "3760000000024",
                "tracked": true,
                "stock": 7,
                "lowStockThreshold": 2,
                "isLowStock": false,
                "isOutOfStock": false,
                "active": true,
                "updatedAt": "2024-11-21T09:30:00.000Z"
            },
            {
                "variantId": "v2",
                "productId": "prod_1",
                "productName": "Écharpe laine",
                "variantLabel": "Rouge",
                "sku": null,
                "barcode": null,
                "tracked": false,
                "stock": -1,
                "lowStockThreshold": 2,
                "isLowStock": false,
                "isOutOfStock": false,
                "active": false,
                "updatedAt": "2024-11-21T09:30:00.000Z"
            }
        ])
    );
    for item in body["data"].as_array().unwrap() {
        assert_eq!(keys(item), BTreeSet::from(ENTRY_KEYS));
    }
    assert_eq!(
        body["pageInfo"],
        json!({"hasMore": false, "nextCursor": null, "limit": 50, "syncedAt": "2023-11-14T22:12:20.000Z"})
    );
}

#[actix_web::test]
async fn low_and_out_of_stock_follow_the_domain() {
    let entries = vec![
        entry("v1", 3),
        entry("v2", 2),
        entry("v3", 0),
        entry("v4", -4),
    ];
    let reply = TestApi::new()
        .stock(listing_of(entries))
        .send(get("/api/v1/stock"))
        .await;
    let flags: Vec<(bool, bool)> = reply.json()["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            (
                item["isLowStock"].as_bool().unwrap(),
                item["isOutOfStock"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        flags,
        [(false, false), (true, false), (true, true), (true, true)]
    );
}

#[actix_web::test]
async fn pages_carry_a_stock_cursor() {
    let entries = vec![entry("v1", 1), entry("v2", 1), entry("v3", 1)];
    let reply = TestApi::new()
        .stock(listing_of(entries))
        .send(get("/api/v1/stock?limit=2"))
        .await;
    let body = reply.json();
    assert_eq!(body["data"].as_array().unwrap().len(), 2);
    assert_eq!(body["pageInfo"]["hasMore"], true);
    assert_eq!(body["pageInfo"]["limit"], 2);
    let cursor = body["pageInfo"]["nextCursor"].as_str().unwrap();
    assert_eq!(stock_cursor_position(cursor).unwrap().as_str(), "v2");
}

#[actix_web::test]
async fn defaults_are_tracked_only_and_50() {
    let mut repository = MockStockRepository::new();
    repository
        .expect_list_stock()
        .withf(|shop, query, _| {
            shop.as_str() == "shop_1"
                && query.tracked_only
                && !query.low_stock_only
                && query.product_id.is_none()
                && query.search.is_none()
                && query.after.is_none()
                && query.limit.get() == 50
        })
        .times(1)
        .returning(|_, _, _| Ok(vec![]));
    let reply = TestApi::new()
        .stock(repository)
        .send(get("/api/v1/stock"))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
}

#[actix_web::test]
async fn every_parameter_reaches_the_query() {
    let cursor = stock_cursor(&VariantId::parse("v9").unwrap()).encode();
    let mut repository = MockStockRepository::new();
    repository
        .expect_list_stock()
        .withf(|_, query, _| {
            query.product_id.as_ref().map(|p| p.as_str()) == Some("prod_1")
                && query.search.as_ref().map(|s| s.as_str()) == Some("écharpe")
                && query.low_stock_only
                && !query.tracked_only
                && query.after.as_ref().map(|v| v.as_str()) == Some("v9")
                && query.limit.get() == 5
        })
        .times(1)
        .returning(|_, _, _| Ok(vec![]));
    let uri = format!(
        "/api/v1/stock?productId=prod_1&q=%C3%89charpe&lowStockOnly=true&trackedOnly=false\
         &cursor={cursor}&limit=5"
    );
    let reply = TestApi::new().stock(repository).send(get(&uri)).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
}

#[actix_web::test]
async fn a_blank_search_is_no_search_and_false_is_false() {
    let mut repository = MockStockRepository::new();
    repository
        .expect_list_stock()
        .withf(|_, query, _| query.search.is_none() && !query.low_stock_only && query.tracked_only)
        .times(1)
        .returning(|_, _, _| Ok(vec![]));
    let reply = TestApi::new()
        .stock(repository)
        .send(get(
            "/api/v1/stock?q=++&lowStockOnly=false&trackedOnly=true",
        ))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
}

#[actix_web::test]
async fn booleans_are_exactly_true_or_false() {
    for bad in ["1", "0", "yes", "TRUE", "False", "", "true%20"] {
        for name in ["lowStockOnly", "trackedOnly"] {
            let reply = TestApi::new()
                .send(get(&format!("/api/v1/stock?{name}={bad}")))
                .await;
            let error = reply.error(StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
            assert_eq!(
                error["details"],
                json!([{"field": name, "message": "must be true or false"}]),
                "{name}={bad}"
            );
        }
    }
}

#[actix_web::test]
async fn every_bad_parameter_is_reported_at_once() {
    let long = "x".repeat(101);
    let uri = format!(
        "/api/v1/stock?lowStock=true&cursor=garbage&limit=0&productId=a%2Fb&q={long}\
         &lowStockOnly=yes&trackedOnly=no&limit=3"
    );
    let reply = TestApi::new().send(get(&uri)).await;
    assert_eq!(
        reply.detail_fields(),
        [
            "lowStock",
            "limit",
            "cursor",
            "productId",
            "q",
            "lowStockOnly",
            "trackedOnly"
        ]
    );
    let error = reply.json()["error"].clone();
    assert_eq!(error["details"][0]["message"], "is not a known parameter");
    assert_eq!(error["details"][1]["message"], "must be given at most once");
}

#[actix_web::test]
async fn a_cursor_of_another_list_is_refused() {
    let of_products = shop_domain::catalogue::product_cursor(&ProductId::parse("v1").unwrap());
    let reply = TestApi::new()
        .send(get(&format!(
            "/api/v1/stock?cursor={}",
            of_products.encode()
        )))
        .await;
    assert_eq!(reply.detail_fields(), ["cursor"]);
}

#[actix_web::test]
async fn the_stock_read_scope_is_required_and_checked_first() {
    let unauthenticated = TestApi::new()
        .send(TestRequest::get().uri("/api/v1/stock?bogus=1"))
        .await;
    unauthenticated.error(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    let unscoped = TestApi::with_key(shop(), "stock:write,products:read")
        .send(get("/api/v1/stock?bogus=1"))
        .await;
    let error = unscoped.error(StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE");
    assert!(error["message"].as_str().unwrap().contains("stock:read"));
}

#[actix_web::test]
async fn an_unreachable_database_is_a_503() {
    let mut repository = MockStockRepository::new();
    repository
        .expect_list_stock()
        .returning(|_, _, _| Err(StoreError::Unavailable("pool timed out".into())));
    let reply = TestApi::new()
        .stock(repository)
        .send(get("/api/v1/stock"))
        .await;
    reply.error(StatusCode::SERVICE_UNAVAILABLE, "SERVICE_UNAVAILABLE");
    assert_eq!(reply.header("retry-after"), Some("1"));
}
