use std::collections::BTreeSet;

use actix_web::http::StatusCode;
use serde_json::json;
use shop_domain::Timestamp;
use shop_domain::catalogue::{ActiveFilter, Product, product_cursor, product_cursor_position};
use shop_domain::id::ProductId;
use shop_domain::pagination::{Cursor, CursorKind};
use shop_ports::StoreError;
use shop_ports::port::MockCatalogueRepository;

use super::{TestApi, bare_product, full_product, get, keys};

/// A repository whose list returns `products` (the use case overfetches by one).
pub fn listing_of(products: Vec<Product>) -> MockCatalogueRepository {
    let mut repository = MockCatalogueRepository::new();
    repository
        .expect_list_products()
        .returning(move |_, _, _| Ok(products.clone()));
    repository
}

/// A repository whose lookup by id returns `product`.
pub(crate) fn finding(product: Option<Product>) -> MockCatalogueRepository {
    let mut repository = MockCatalogueRepository::new();
    repository
        .expect_find_product()
        .returning(move |_, _, _| Ok(product.clone()));
    repository
}

const PRODUCT_KEYS: [&str; 20] = [
    "id",
    "name",
    "productType",
    "ean",
    "sku",
    "priceCents",
    "listPriceCents",
    "compareAtPriceCents",
    "promoActive",
    "taxRate",
    "active",
    "trackStock",
    "stockQuantity",
    "tags",
    "photos",
    "category",
    "brand",
    "variants",
    "createdAt",
    "updatedAt",
];

const VARIANT_KEYS: [&str; 11] = [
    "id",
    "label",
    "sku",
    "barcode",
    "swatchColor",
    "priceCents",
    "stock",
    "lowStockThreshold",
    "isDefault",
    "active",
    "order",
];

#[actix_web::test]
async fn a_product_has_exactly_the_spec_fields_and_types() {
    let reply = TestApi::new()
        .repository(finding(Some(full_product("prod_1"))))
        .send(get("/api/v1/products/prod_1"))
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    let body = reply.json();
    assert_eq!(keys(&body), BTreeSet::from(["data"]));
    let product = &body["data"];
    assert_eq!(keys(product), BTreeSet::from(PRODUCT_KEYS));
    assert_eq!(
        *product,
        json!({
            "id": "prod_1",
            "name": "Écharpe laine",
            "productType": "simple",
            "ean": "3760000000017",
            "sku": "ECH-01",
            "priceCents": 2500,
            "listPriceCents": 2900,
            "compareAtPriceCents": 3200,
            "promoActive": true,
            "taxRate": "20.00",
            "active": true,
            "trackStock": true,
            "stockQuantity": 7,
            "tags": ["hiver"],
            "photos": ["https://cdn.example/ech.jpg"],
            "category": {"id": "cat_1", "name": "Accessoires"},
            "brand": {"id": "brand_1", "name": "Laines & Co"},
            "variants": [{
                "id": "prod_1_v1",
                "label": "Rouge",
                "sku": "ECH-01-R",
                "barcode": "3760000000024",
                "swatchColor": "#A1B2C3",
                "priceCents": 2500,
                "stock": 7,
                "lowStockThreshold": 2,
                "isDefault": true,
                "active": true,
                "order": 0
            }],
            "createdAt": "2026-11-21T09:30:00.000Z",
            "updatedAt": "2026-11-22T10:00:00.123Z"
        })
    );
    assert_eq!(keys(&product["variants"][0]), BTreeSet::from(VARIANT_KEYS));
}

#[actix_web::test]
async fn absent_values_are_null_never_missing() {
    let reply = TestApi::new()
        .repository(finding(Some(bare_product("prod_2"))))
        .send(get("/api/v1/products/prod_2"))
        .await;
    let product = &reply.json()["data"];
    assert_eq!(keys(product), BTreeSet::from(PRODUCT_KEYS));
    for field in [
        "ean",
        "sku",
        "compareAtPriceCents",
        "stockQuantity",
        "category",
        "brand",
    ] {
        assert!(product[field].is_null(), "{field}: {product}");
    }
    assert_eq!(product["tags"], json!([]));
    let variant = &product["variants"][0];
    assert_eq!(keys(variant), BTreeSet::from(VARIANT_KEYS));
    for field in ["sku", "barcode", "swatchColor"] {
        assert!(variant[field].is_null(), "{field}: {variant}");
    }
}

#[actix_web::test]
async fn an_unknown_product_is_404() {
    let reply = TestApi::new()
        .repository(finding(None))
        .send(get("/api/v1/products/nope"))
        .await;
    reply.error(StatusCode::NOT_FOUND, "NOT_FOUND");
}

/// Same body as an unknown id, and the store is not asked (its mock has no expectations).
#[actix_web::test]
async fn an_impossible_id_is_the_same_404_without_a_lookup() {
    let unknown = TestApi::new()
        .repository(finding(None))
        .send(get("/api/v1/products/p404"))
        .await;
    for uri in ["/api/v1/products/not%20an%20id", "/api/v1/products/!!!"] {
        let reply = TestApi::new().send(get(uri)).await;
        reply.error(StatusCode::NOT_FOUND, "NOT_FOUND");
        assert_eq!(reply.body, unknown.body, "{uri}");
    }
}

#[actix_web::test]
async fn list_wraps_products_with_page_info() {
    let products = ["p1", "p2", "p3"].map(full_product).to_vec();
    let reply = TestApi::new()
        .repository(listing_of(products))
        .send(get("/api/v1/products?limit=2"))
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    let body = reply.json();
    assert_eq!(keys(&body), BTreeSet::from(["data", "pageInfo"]));
    assert_eq!(body["data"].as_array().unwrap().len(), 2);
    assert_eq!(keys(&body["data"][0]), BTreeSet::from(PRODUCT_KEYS));
    let page_info = &body["pageInfo"];
    assert_eq!(
        keys(page_info),
        BTreeSet::from(["hasMore", "nextCursor", "limit", "syncedAt"])
    );
    assert_eq!(page_info["hasMore"], true);
    assert_eq!(page_info["limit"], 2);
    let cursor = page_info["nextCursor"].as_str().unwrap();
    assert_eq!(product_cursor_position(cursor).unwrap().as_str(), "p2");
}

#[actix_web::test]
async fn the_last_page_has_a_null_cursor_and_the_default_limit() {
    let reply = TestApi::new()
        .repository(listing_of(vec![full_product("p1")]))
        .send(get("/api/v1/products"))
        .await;
    let page_info = &reply.json()["pageInfo"];
    assert_eq!(
        *page_info,
        json!({"hasMore": false, "nextCursor": null, "limit": 20, "syncedAt": "2023-11-14T22:12:20.000Z"})
    );
}

#[actix_web::test]
async fn every_parameter_reaches_the_query() {
    let cursor = product_cursor(&ProductId::parse("p9").unwrap()).encode();
    let mut repository = MockCatalogueRepository::new();
    repository
        .expect_list_products()
        .withf(|shop, query, _| {
            shop.as_str() == "shop_1"
                && query.search.as_ref().map(|s| s.as_str()) == Some("écharpe rouge")
                && query.category.as_ref().map(|c| c.as_str()) == Some("cat_1")
                && query.brand.as_ref().map(|b| b.as_str()) == Some("brand_1")
                && query.product_type.as_deref() == Some("simple")
                && query.active == ActiveFilter::All
                && query.updated_since
                    == Some(Timestamp::parse_rfc3339("2026-11-21T09:30:00Z").unwrap())
                && query.after.as_ref().map(|id| id.as_str()) == Some("p9")
                && query.limit.get() == 5
        })
        .times(1)
        .returning(|_, _, _| Ok(vec![]));
    let uri = format!(
        "/api/v1/products?q=%C3%89charpe+Rouge&category=cat_1&brand=brand_1&productType=simple\
         &active=all&updatedSince=2026-11-21T10:30:00%2B01:00&cursor={cursor}&limit=5"
    );
    let reply = TestApi::new().repository(repository).send(get(&uri)).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
}

#[actix_web::test]
async fn a_blank_search_is_no_search() {
    let mut repository = MockCatalogueRepository::new();
    repository
        .expect_list_products()
        .withf(|_, query, _| query.search.is_none() && query.active == ActiveFilter::Active)
        .times(1)
        .returning(|_, _, _| Ok(vec![]));
    let reply = TestApi::new()
        .repository(repository)
        .send(get("/api/v1/products?q=+++"))
        .await;
    assert_eq!(reply.status, StatusCode::OK);
}

#[actix_web::test]
async fn unknown_parameters_are_named() {
    let reply = TestApi::new()
        .send(get("/api/v1/products?catgory=x&page=2"))
        .await;
    assert_eq!(reply.detail_fields(), ["catgory", "page"]);
}

#[actix_web::test]
async fn a_repeated_parameter_is_named() {
    let reply = TestApi::new()
        .send(get("/api/v1/products?limit=10&limit=20"))
        .await;
    let error = reply.error(StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert_eq!(
        error["details"],
        json!([{"field": "limit", "message": "must be given at most once"}])
    );
}

#[actix_web::test]
async fn every_bad_value_is_reported_at_once() {
    let long = "x".repeat(101);
    let uri = format!(
        "/api/v1/products?limit=abc&active=yes&updatedSince=yesterday&cursor=garbage\
         &category=a%2Fb&brand=&productType=&q={long}"
    );
    let reply = TestApi::new().send(get(&uri)).await;
    assert_eq!(
        reply.detail_fields(),
        [
            "cursor",
            "limit",
            "q",
            "category",
            "brand",
            "productType",
            "active",
            "updatedSince"
        ]
    );
    let error = reply.json()["error"].clone();
    for issue in error["details"].as_array().unwrap() {
        assert_eq!(keys(issue), BTreeSet::from(["field", "message"]));
        assert!(!issue["message"].as_str().unwrap().is_empty());
    }
}

#[actix_web::test]
async fn limits_outside_1_to_100_are_refused() {
    for bad in ["0", "101", "-1", "abc", "", "1.5"] {
        let reply = TestApi::new()
            .send(get(&format!("/api/v1/products?limit={bad}")))
            .await;
        assert_eq!(reply.detail_fields(), ["limit"], "{bad}");
    }
}

#[actix_web::test]
async fn a_tampered_cursor_is_refused() {
    let cursor = product_cursor(&ProductId::parse("p9").unwrap()).encode();
    let truncated = &cursor[..cursor.len() - 2];
    let of_orders = Cursor::new(CursorKind::Orders, vec!["p9".into()]).encode();
    for bad in [truncated, of_orders.as_str(), "Zm9v", "%21%21", ""] {
        let reply = TestApi::new()
            .send(get(&format!("/api/v1/products?cursor={bad}")))
            .await;
        assert_eq!(reply.detail_fields(), ["cursor"], "{bad}");
    }
}

#[actix_web::test]
async fn updated_since_must_be_an_instant_with_an_offset_or_a_day() {
    for bad in [
        "2026-11-21T09:30:00",
        "yesterday",
        "2026-13-01",
        "21/11/2026",
    ] {
        let reply = TestApi::new()
            .send(get(&format!("/api/v1/products?updatedSince={bad}")))
            .await;
        let error = reply.error(StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        assert_eq!(error["details"][0]["field"], "updatedSince", "{bad}");
    }
}

#[actix_web::test]
async fn an_undecodable_query_is_a_validation_error() {
    let reply = TestApi::new().send(get("/api/v1/products?q=%FF")).await;
    reply.error(StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
}

#[actix_web::test]
async fn an_unreachable_database_is_a_503_with_retry_after() {
    let mut repository = MockCatalogueRepository::new();
    repository
        .expect_list_products()
        .returning(|_, _, _| Err(StoreError::Unavailable("pool timed out".into())));
    let reply = TestApi::new()
        .repository(repository)
        .send(get("/api/v1/products"))
        .await;
    reply.error(StatusCode::SERVICE_UNAVAILABLE, "SERVICE_UNAVAILABLE");
    assert_eq!(reply.header("retry-after"), Some("1"));
}

#[actix_web::test]
async fn a_database_failure_is_a_500_that_leaks_nothing() {
    let mut repository = MockCatalogueRepository::new();
    repository.expect_find_product().returning(|_, _, _| {
        Err(StoreError::failure(
            "relation \"products\" does not exist: SELECT * FROM products",
        ))
    });
    let reply = TestApi::new()
        .repository(repository)
        .send(get("/api/v1/products/p1"))
        .await;
    let error = reply.error(StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL_ERROR");
    assert_eq!(
        reply.json(),
        json!({"error": {"code": "INTERNAL_ERROR", "message": "An unexpected error occurred."}})
    );
    let body = String::from_utf8_lossy(&reply.body);
    for secret in ["SELECT", "relation", "StoreError", "Failure"] {
        assert!(!body.contains(secret), "{body}");
    }
    assert!(error.get("details").is_none());
}

#[actix_web::test]
async fn head_is_routed_like_get() {
    let request = get("/api/v1/products/prod_1").method(actix_web::http::Method::HEAD);
    let reply = TestApi::new()
        .repository(finding(Some(full_product("prod_1"))))
        .send(request)
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.header("content-type"), Some("application/json"));
}
