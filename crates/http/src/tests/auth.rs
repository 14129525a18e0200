use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::test::TestRequest;
use shop_ports::StoreError;
use shop_ports::port::{HashError, MockApiKeyStore, MockSecretHasher};

use super::{TestApi, get, key, shop};

const UNAUTHORIZED: &str =
    r#"{"error":{"code":"UNAUTHORIZED","message":"Missing or invalid API key."}}"#;

fn with_authorization(value: &[u8]) -> TestRequest {
    TestRequest::get().uri("/api/v1/products").insert_header((
        header::AUTHORIZATION,
        HeaderValue::from_bytes(value).unwrap(),
    ))
}

#[actix_web::test]
async fn every_401_cause_gives_the_same_bytes() {
    let wrong_secret = format!("Bearer svc_live_0a1b2c3d_{}", "cd".repeat(32));
    let unknown_prefix = format!("Bearer svc_live_ffffffff_{}", "ab".repeat(32));
    let two_tokens = format!("Bearer {} extra", key());
    let requests = [
        ("no header", TestRequest::get().uri("/api/v1/products")),
        (
            "other scheme",
            with_authorization(format!("Basic {}", key()).as_bytes()),
        ),
        ("scheme only", with_authorization(b"Bearer")),
        ("empty token", with_authorization(b"Bearer ")),
        ("two tokens", with_authorization(two_tokens.as_bytes())),
        ("not UTF-8", with_authorization(b"Bearer svc_live_\xff")),
        ("malformed key", with_authorization(b"Bearer not-a-key")),
        (
            "unknown prefix",
            with_authorization(unknown_prefix.as_bytes()),
        ),
        ("wrong secret", with_authorization(wrong_secret.as_bytes())),
    ];
    for (cause, request) in requests {
        let reply = TestApi::new().send(request).await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{cause}");
        assert_eq!(reply.body, UNAUTHORIZED.as_bytes(), "{cause}");
        assert_eq!(reply.header("www-authenticate"), Some("Bearer"), "{cause}");
        assert_eq!(
            reply.header("content-type"),
            Some("application/json"),
            "{cause}"
        );
    }
}

#[actix_web::test]
async fn scheme_is_case_insensitive() {
    let request = with_authorization(format!("bEaReR {}", key()).as_bytes());
    let reply = TestApi::new()
        .repository(super::products::listing_of(vec![]))
        .send(request)
        .await;
    assert_eq!(reply.status, StatusCode::OK);
}

#[actix_web::test]
async fn plan_is_refused_before_subscription_and_scope() {
    let mut lapsed = shop();
    lapsed.public_api_in_plan = false;
    lapsed.subscription = shop_domain::shop::SubscriptionStatus::Cancelled;
    let reply = TestApi::with_key(lapsed, "orders:read")
        .send(get("/api/v1/products"))
        .await;
    reply.error(StatusCode::FORBIDDEN, "FEATURE_NOT_IN_PLAN");
}

#[actix_web::test]
async fn inactive_subscription_is_refused_even_for_me() {
    let mut expired = shop();
    expired.subscription = shop_domain::shop::SubscriptionStatus::Expired;
    let reply = TestApi::with_key(expired, "products:read")
        .send(get("/api/v1/me"))
        .await;
    reply.error(StatusCode::FORBIDDEN, "SUBSCRIPTION_INACTIVE");
}

#[actix_web::test]
async fn missing_scope_is_named() {
    let reply = TestApi::with_key(shop(), "orders:read")
        .send(get("/api/v1/products/p1"))
        .await;
    let error = reply.error(StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE");
    assert!(
        error["message"].as_str().unwrap().contains("products:read"),
        "{error}"
    );
}

#[actix_web::test]
async fn authentication_and_scope_come_before_query_validation() {
    let unauthenticated = TestApi::new()
        .send(TestRequest::get().uri("/api/v1/products?limit=0&bogus=1"))
        .await;
    assert_eq!(unauthenticated.status, StatusCode::UNAUTHORIZED);
    let unscoped = TestApi::with_key(shop(), "orders:read")
        .send(get("/api/v1/products?limit=0&bogus=1"))
        .await;
    unscoped.error(StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE");
}

#[actix_web::test]
async fn a_failing_hasher_is_a_generic_500() {
    let mut hasher = MockSecretHasher::new();
    hasher
        .expect_verify()
        .returning(|_, _| Err(HashError("argon2 thread pool gone".into())));
    let reply = TestApi::new().hasher(hasher).send(get("/api/v1/me")).await;
    let error = reply.error(StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL_ERROR");
    assert_eq!(error["message"], "An unexpected error occurred.");
    assert!(!String::from_utf8_lossy(&reply.body).contains("argon2"));
}

#[actix_web::test]
async fn an_unreachable_key_store_is_a_503() {
    let mut keys = MockApiKeyStore::new();
    keys.expect_find_key()
        .returning(|_| Err(StoreError::Unavailable("pool timed out".into())));
    let reply = TestApi::new().keys(keys).send(get("/api/v1/me")).await;
    reply.error(StatusCode::SERVICE_UNAVAILABLE, "SERVICE_UNAVAILABLE");
    assert_eq!(reply.header("retry-after"), Some("1"));
}
