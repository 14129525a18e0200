//! The exposition after real requests through the whole App (mocked ports).

use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::test::TestRequest;
use shop_domain::rate_limit::RateBudget;
use shop_ports::port::{MockCatalogueRepository, MockPoolMonitor, PoolStats};
use shop_ports::usecase::RateLimits;

use crate::Operations;
use crate::tests::products::finding;
use crate::tests::{
    METRICS_TOKEN, Reply, TestApi, failure_budgets, full_product, get, key, metrics_token,
    rate_limiter,
};

fn catalogue() -> MockCatalogueRepository {
    finding(Some(full_product("prod_1")))
}

fn pool() -> MockPoolMonitor {
    let mut pool = MockPoolMonitor::new();
    pool.expect_pool_stats().return_const(PoolStats {
        max_size: 8,
        open: 3,
        in_use: 2,
        waiting: 1,
        wait_timeouts: 4,
    });
    pool
}

fn bearer(request: TestRequest, token: &str) -> TestRequest {
    request.insert_header((header::AUTHORIZATION, format!("Bearer {token}")))
}

/// `requests`, then `GET /metrics` on the same App: the exposition's text.
async fn scrape_after(api: TestApi, mut requests: Vec<TestRequest>) -> (Vec<Reply>, String) {
    requests.push(bearer(TestRequest::get().uri("/metrics"), METRICS_TOKEN));
    let mut replies = api.send_all(requests).await;
    let scrape = replies.pop().expect("the scrape's reply");
    assert_eq!(scrape.status, StatusCode::OK);
    assert!(
        scrape
            .header("content-type")
            .is_some_and(|value| value.starts_with("application/openmetrics-text")),
        "{:?}",
        scrape.headers
    );
    let text = String::from_utf8(scrape.body.to_vec()).expect("UTF-8 exposition");
    assert!(text.ends_with("# EOF\n"), "{text}");
    (replies, text)
}

fn has_line(text: &str, line: &str) -> bool {
    text.lines().any(|candidate| candidate == line)
}

#[actix_web::test]
async fn requests_are_counted_by_route_template_method_and_status() {
    let api = TestApi::new().repository(catalogue());
    let (_, text) = scrape_after(
        api,
        vec![
            get("/api/v1/products/prod_1"),
            get("/api/v1/products/prod_1"),
            TestRequest::get().uri("/api/v1/products/prod_2"),
            TestRequest::get().uri("/no/such/path/4711"),
            TestRequest::default()
                .method("BREW".parse().unwrap())
                .uri("/healthz"),
        ],
    )
    .await;

    for line in [
        r#"shop_http_requests_total{method="GET",route="/api/v1/products/{id}",status="200"} 2"#,
        r#"shop_http_requests_total{method="GET",route="/api/v1/products/{id}",status="401"} 1"#,
        r#"shop_http_requests_total{method="GET",route="unmatched",status="404"} 1"#,
        r#"shop_http_requests_total{method="other",route="/healthz",status="405"} 1"#,
        r#"shop_http_request_duration_seconds_count{method="GET",route="/api/v1/products/{id}"} 3"#,
    ] {
        assert!(has_line(&text, line), "missing {line} in\n{text}");
    }
    assert!(!text.contains("prod_1") && !text.contains("4711"), "{text}");
    assert!(
        text.contains(r#"shop_http_request_duration_seconds_bucket{le="0.001",method="GET",route="/api/v1/products/{id}"}"#)
            || text.contains(r#"shop_http_request_duration_seconds_bucket{method="GET",route="/api/v1/products/{id}",le="0.001"}"#),
        "{text}"
    );
}

#[actix_web::test]
async fn authentication_failures_are_counted_by_cause_and_argon2_runs_by_the_authenticator() {
    let api = TestApi::new().repository(catalogue());
    let wrong_secret = format!("svc_live_0a1b2c3d_{}", "cd".repeat(32));
    let unknown_prefix = format!("svc_live_99999999_{}", "cd".repeat(32));
    let (replies, text) = scrape_after(
        api,
        vec![
            TestRequest::get().uri("/api/v1/me"),
            TestRequest::get()
                .uri("/api/v1/me")
                .insert_header((header::AUTHORIZATION, "Basic abc")),
            bearer(TestRequest::get().uri("/api/v1/me"), "not-a-key"),
            bearer(TestRequest::get().uri("/api/v1/me"), &wrong_secret),
            bearer(TestRequest::get().uri("/api/v1/me"), &unknown_prefix),
            get("/api/v1/products/prod_1"),
            get("/api/v1/products/prod_1"),
        ],
    )
    .await;
    let statuses: Vec<u16> = replies.iter().map(|reply| reply.status.as_u16()).collect();
    assert_eq!(statuses, [401, 401, 401, 401, 401, 200, 200]);

    for cause in [
        "missing_header",
        "malformed_header",
        "malformed_key",
        "wrong_secret",
        "unknown_key",
    ] {
        let line = format!(r#"shop_auth_failures_total{{cause="{cause}"}} 1"#);
        assert!(has_line(&text, &line), "missing {line} in\n{text}");
    }
    // The wrong secret and the good key each cost one argon2 run; the second read was cached.
    assert!(
        has_line(&text, "shop_auth_argon2_verifications_total 2"),
        "{text}"
    );
    assert!(
        has_line(&text, "shop_auth_key_cache_hits_total 1"),
        "{text}"
    );
    assert!(!text.contains(&key()[18..]), "no secret in the metrics");
}

#[actix_web::test]
async fn rate_limit_refusals_are_counted_by_budget() {
    let minute = |limit| RateBudget {
        limit,
        window_millis: 60_000,
    };
    let limits = RateLimits {
        reads: minute(1),
        writes: minute(1),
        auth_failures: minute(1),
        key_failures: minute(1),
    };
    let api = TestApi::new()
        .repository(catalogue())
        .rate_limiter(rate_limiter(limits))
        .failures(failure_budgets(1, 1));
    let (replies, text) = scrape_after(
        api,
        vec![
            get("/api/v1/products/prod_1"),
            get("/api/v1/products/prod_1"),
            TestRequest::get().uri("/api/v1/me"),
            TestRequest::get().uri("/api/v1/me"),
        ],
    )
    .await;
    let statuses: Vec<u16> = replies.iter().map(|reply| reply.status.as_u16()).collect();
    assert_eq!(statuses, [200, 429, 401, 429]);
    assert!(
        has_line(&text, r#"shop_rate_limit_refusals_total{budget="reads"} 1"#),
        "{text}"
    );
    assert!(
        has_line(
            &text,
            r#"shop_rate_limit_refusals_total{budget="auth_failures"} 1"#
        ),
        "{text}"
    );
    assert!(
        has_line(&text, "shop_rate_limit_store_failures_total 0"),
        "{text}"
    );
}

#[actix_web::test]
async fn the_pool_is_read_at_each_scrape() {
    let operations =
        Operations::new(Vec::new(), Some(Arc::new(pool()))).metrics_for_token(metrics_token());
    let (_, text) = scrape_after(TestApi::new().operations(operations), Vec::new()).await;
    for line in [
        "shop_db_pool_max_connections 8",
        "shop_db_pool_open_connections 3",
        "shop_db_pool_in_use_connections 2",
        "shop_db_pool_waiting 1",
        "shop_db_pool_wait_timeouts_total 4",
    ] {
        assert!(has_line(&text, line), "missing {line} in\n{text}");
    }
}

#[actix_web::test]
async fn without_the_token_metrics_are_an_unknown_path_on_the_api_address() {
    let unknown = TestApi::new()
        .send(TestRequest::get().uri("/no/such/path"))
        .await;
    let requests = [
        TestRequest::get().uri("/metrics"),
        bearer(TestRequest::get().uri("/metrics"), "scrape-token-for-test"),
        bearer(TestRequest::get().uri("/metrics"), &key()),
    ];
    for request in requests {
        let reply = TestApi::new().send(request).await;
        reply.error(StatusCode::NOT_FOUND, "NOT_FOUND");
        assert_eq!(reply.body, unknown.body);
    }
    let hidden = TestApi::new()
        .operations(Operations::default())
        .send(bearer(TestRequest::get().uri("/metrics"), METRICS_TOKEN))
        .await;
    hidden.error(StatusCode::NOT_FOUND, "NOT_FOUND");
}

#[actix_web::test]
async fn metrics_served_elsewhere_are_not_on_the_api_address() {
    let operations = Operations::default()
        .metrics_for_token(metrics_token())
        .metrics_served_elsewhere();
    let reply = TestApi::new()
        .operations(operations)
        .send(TestRequest::get().uri("/metrics"))
        .await;
    reply.error(StatusCode::NOT_FOUND, "NOT_FOUND");
}

#[test]
fn a_token_shorter_than_32_characters_is_refused_an_empty_one_too() {
    use crate::{MetricsToken, MetricsTokenTooShort};
    for (token, chars) in [("", 0), ("   ", 0), ("short", 5), (&"é".repeat(31), 31)] {
        assert_eq!(
            MetricsToken::new(token).err(),
            Some(MetricsTokenTooShort { chars }),
            "{token:?}"
        );
    }
    assert!(
        MetricsToken::new(&"é".repeat(32)).is_ok(),
        "characters, not bytes"
    );
    let message = MetricsToken::new("short").err().unwrap().to_string();
    assert!(message.contains("at least 32 characters"), "{message}");
}
