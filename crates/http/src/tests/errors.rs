use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use shop_ports::StoreError;
use shop_ports::port::MockCatalogueRepository;

use super::{CapturedLogs, TestApi, get, key, shop};

#[actix_web::test]
async fn an_unknown_route_is_an_enveloped_404() {
    for uri in [
        "/",
        "/api/v1/nothing",
        "/api/v3/products",
        "/api/v2/nothing",
        "/api/v1/products/a/b",
        "/api/v1/orders/o1/items",
        "/api/v1/clients/c1/loyalty/tickets",
        "/api/v1/loyalty",
    ] {
        let reply = TestApi::new().send(get(uri)).await;
        reply.error(StatusCode::NOT_FOUND, "NOT_FOUND");
    }
}

#[actix_web::test]
async fn a_wrong_method_is_an_enveloped_405_with_allow() {
    for uri in [
        "/api/v1/products",
        "/api/v1/products/p1",
        "/api/v1/me",
        "/api/v1/orders",
        "/api/v1/orders/o1",
        "/api/v1/stock",
        "/api/v1/clients",
        "/api/v1/clients/c1",
        "/api/v1/clients/c1/loyalty",
    ] {
        let request = TestRequest::delete().uri(uri);
        let reply = TestApi::new().send(request).await;
        reply.error(StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED");
        assert_eq!(reply.header("allow"), Some("GET, HEAD"), "{uri}");
    }
}

#[actix_web::test]
async fn the_write_route_answers_only_post() {
    for request in [
        super::get("/api/v1/stock/adjustments"),
        TestRequest::put().uri("/api/v1/stock/adjustments"),
        TestRequest::default()
            .method(actix_web::http::Method::HEAD)
            .uri("/api/v1/stock/adjustments"),
    ] {
        let reply = TestApi::new().send(request).await;
        reply.error(StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED");
        assert_eq!(reply.header("allow"), Some("POST"));
    }
}

#[actix_web::test]
async fn a_panicking_handler_is_an_enveloped_500() {
    let mut repository = MockCatalogueRepository::new();
    repository
        .expect_list_products()
        .returning(|_, _, _| panic!("index out of bounds in a handler"));
    let reply = TestApi::new()
        .repository(repository)
        .send(get("/api/v1/products"))
        .await;
    let error = reply.error(StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL_ERROR");
    assert_eq!(error["message"], "An unexpected error occurred.");
    assert!(reply.header("x-request-id").is_some());
}

/// `{id}` is parsed before the handler runs, yet an id that cannot exist is answered only after
/// the key, its scope and the query were checked, and it never reaches storage (no port here
/// has expectations).
#[actix_web::test]
async fn an_impossible_id_is_a_404_only_after_the_key_the_scope_and_the_query() {
    for (uri, scope, message) in [
        (
            "/api/v1/products/!!!",
            "products:read",
            "No product has this id.",
        ),
        (
            "/api/v1/orders/a%20b",
            "orders:read",
            "No order has this id.",
        ),
        (
            "/api/v1/clients/!!!",
            "clients:read",
            "No client has this id.",
        ),
        (
            "/api/v1/clients/!!!/loyalty",
            "loyalty:read",
            "No client has this id.",
        ),
    ] {
        let anonymous = TestApi::new().send(TestRequest::get().uri(uri)).await;
        anonymous.error(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
        let unscoped = TestApi::with_key(shop(), "stock:read").send(get(uri)).await;
        unscoped.error(StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE");
        let queried = TestApi::new().send(get(&format!("{uri}?x=1"))).await;
        assert_eq!(queried.detail_fields(), ["x"], "{uri}");
        let reply = TestApi::with_key(shop(), scope).send(get(uri)).await;
        let error = reply.error(StatusCode::NOT_FOUND, "NOT_FOUND");
        assert_eq!(error["message"], message, "{uri}");
    }
}

#[actix_web::test]
async fn an_overlong_uri_is_an_enveloped_414() {
    let uri = format!("/api/v1/products?q={}", "x".repeat(9_000));
    let reply = TestApi::new().send(get(&uri)).await;
    reply.error(StatusCode::URI_TOO_LONG, "URI_TOO_LONG");
}

#[actix_web::test]
async fn every_response_carries_a_request_id() {
    for request in [
        get("/api/v1/me"),
        TestRequest::get().uri("/api/v1/me"),
        get("/nope"),
    ] {
        let reply = TestApi::new().send(request).await;
        let id = reply.header("x-request-id").unwrap();
        assert_eq!(id.len(), 36, "{id}");
    }
}

#[actix_web::test]
async fn a_500_is_logged_with_its_request_id_and_cause_but_never_the_key() {
    let (logs, _guard) = CapturedLogs::start();
    let mut repository = MockCatalogueRepository::new();
    repository
        .expect_list_products()
        .returning(|_, _, _| Err(StoreError::failure("disk I/O error")));
    let reply = TestApi::new()
        .repository(repository)
        .send(get("/api/v1/products"))
        .await;
    assert_eq!(reply.status, StatusCode::INTERNAL_SERVER_ERROR);
    let request_id = reply.header("x-request-id").unwrap();
    let text = logs.text();
    let line = text
        .lines()
        .find(|line| line.contains("request failed"))
        .unwrap_or_else(|| panic!("no failure line in {text}"));
    assert!(line.contains(&format!("request_id={request_id}")), "{line}");
    assert!(line.contains("database failure: disk I/O error"), "{line}");
    assert!(!text.contains(&key()), "the key was logged: {text}");
    assert!(!text.contains(&super::secret()), "the secret was logged");
}
