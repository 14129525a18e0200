//! What a client or a cache in between may do with an answer: every response is `nosniff`,
//! and every answer of the API (a shop's data, or a refusal of a key) is `no-store`, whatever
//! produced it; the public OpenAPI document may be cached (the probes say `no-store` of their
//! own accord).

use actix_web::test::TestRequest;

use crate::tests::products::finding;
use crate::tests::{TestApi, full_product, get};

#[actix_web::test]
async fn every_api_answer_is_no_store_and_nosniff() {
    let requests = [
        get("/api/v1/me"),
        get("/api/v1/products/prod_1"),
        get("/api/v1/products/missing"),
        TestRequest::get().uri("/api/v1/me"),
        TestRequest::delete().uri("/api/v1/me"),
        get("/api/v1/nothing/here"),
    ];
    for request in requests {
        let reply = TestApi::new()
            .repository(finding(Some(full_product("prod_1"))))
            .send(request)
            .await;
        assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));
        assert_eq!(
            reply.header("cache-control"),
            Some("no-store"),
            "status {}",
            reply.status
        );
    }
}

#[actix_web::test]
async fn the_public_document_may_be_cached_and_the_probes_are_nosniff_too() {
    let document = TestApi::new()
        .send(TestRequest::get().uri("/api/v1/openapi.json"))
        .await;
    assert_eq!(document.header("x-content-type-options"), Some("nosniff"));
    assert_ne!(document.header("cache-control"), Some("no-store"));
    let probe = TestApi::new()
        .send(TestRequest::get().uri("/healthz"))
        .await;
    assert_eq!(probe.header("x-content-type-options"), Some("nosniff"));
}

#[actix_web::test]
async fn the_docs_page_allows_its_own_files_only_and_no_framing() {
    for path in ["/docs/", "/docs/swagger-ui-bundle.js"] {
        let reply = TestApi::new().send(TestRequest::get().uri(path)).await;
        assert_eq!(reply.status, actix_web::http::StatusCode::OK, "{path}");
        let policy = reply.header("content-security-policy").unwrap_or_default();
        for directive in [
            "default-src 'self'",
            "script-src 'self'",
            "frame-ancestors 'none'",
        ] {
            assert!(policy.contains(directive), "{path}: {policy}");
        }
        assert!(!policy.contains("unsafe"), "{policy}");
        assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));
        assert_eq!(reply.header("x-frame-options"), Some("DENY"));
    }
}
