//! Rate limits on the in-process store (spec §8). These run on SQLite only: the limits do not
//! touch the database. The shared Redis store is tested with two server processes in
//! `crates/app/tests`.

use std::time::Duration;

use serde_json::json;
use shop_app::services::ServiceSettings;
use shop_domain::rate_limit::RateBudget;
use shop_ports::usecase::RateLimits;

use crate::fixtures::stock;
use crate::support::{Backend, Reply, TestApp};

async fn app_with(limits: RateLimits) -> TestApp {
    let settings = ServiceSettings {
        rate_limits: limits,
        ..ServiceSettings::default()
    };
    let app = TestApp::start_with(Backend::Sqlite, settings)
        .await
        .expect("SQLite is always available");
    app.create_shop("atelier").await;
    app.import("atelier", &stock()).await;
    app
}

fn header_number(reply: &Reply, name: &str) -> i64 {
    reply
        .header(name)
        .unwrap_or_else(|| panic!("no {name}: {:?}", reply.headers))
        .parse()
        .unwrap()
}

/// `"reads";r=3;t=42` -> (3, 42).
fn rate_limit_header(reply: &Reply, policy: &str) -> (i64, i64) {
    let value = reply
        .header("ratelimit")
        .unwrap_or_else(|| panic!("no RateLimit: {:?}", reply.headers));
    let rest = value
        .strip_prefix(&format!("\"{policy}\";"))
        .unwrap_or_else(|| panic!("{value}"));
    let field = |name: &str| {
        rest.split(';')
            .find_map(|part| part.strip_prefix(&format!("{name}=")))
            .unwrap()
            .parse::<i64>()
            .unwrap()
    };
    (field("r"), field("t"))
}

fn assert_refused(reply: &Reply, policy: &str) -> i64 {
    assert_eq!(
        (reply.status, reply.error_code().as_str()),
        (429, "RATE_LIMITED"),
        "{}",
        reply.text
    );
    let retry_after = header_number(reply, "retry-after");
    assert_eq!(header_number(reply, "x-ratelimit-remaining"), 0);
    assert_eq!(
        header_number(reply, "x-ratelimit-reset"),
        retry_after,
        "X-RateLimit-Reset agrees with Retry-After"
    );
    assert_eq!(
        rate_limit_header(reply, policy),
        (0, retry_after),
        "RateLimit agrees with Retry-After"
    );
    retry_after
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exactly_120_reads_are_accepted_then_429_with_consistent_headers() {
    let app = app_with(RateLimits::default()).await;
    let key = app.create_key("atelier", "products:read").await;
    for n in 1..=120 {
        let reply = app.get("/api/v1/me", &key).await;
        assert_eq!(reply.status, 200, "read {n}: {}", reply.text);
        assert_eq!(header_number(&reply, "x-ratelimit-limit"), 120);
        assert_eq!(header_number(&reply, "x-ratelimit-remaining"), 120 - n);
        assert_eq!(
            reply.header("ratelimit-policy"),
            Some("\"reads\";q=120;w=60")
        );
        assert_eq!(rate_limit_header(&reply, "reads").0, 120 - n);
    }
    let refused = app.get("/api/v1/products", &key).await;
    let retry_after = assert_refused(&refused, "reads");
    assert!((1..=60).contains(&retry_after), "{retry_after}");
    assert!(
        retry_after >= 55,
        "the oldest read is seconds old, not a minute: {retry_after}"
    );
    let head = app
        .send(app.client().head(app.url("/api/v1/me")).bearer_auth(&key))
        .await;
    assert_eq!(head.status, 429, "HEAD is a read");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thirty_writes_then_429_and_reads_are_counted_apart() {
    let app = app_with(RateLimits::default()).await;
    let key = app.create_key("atelier", "stock:write,stock:read").await;
    let body = json!({"variantId": "v_ok", "quantity": 1, "reason": "réception"});
    for n in 1..=30 {
        let reply = app.adjust(&key, &body, None).await;
        assert_eq!(reply.status, 201, "write {n}: {}", reply.text);
        assert_eq!(
            reply.header("ratelimit-policy"),
            Some("\"writes\";q=30;w=60")
        );
        assert_eq!(header_number(&reply, "x-ratelimit-remaining"), 30 - n);
    }
    assert_refused(&app.adjust(&key, &body, None).await, "writes");
    // Validation errors are writes too, and refused as well while over budget.
    assert_refused(&app.adjust(&key, &json!({}), None).await, "writes");

    let read = app.get("/api/v1/stock", &key).await;
    assert_eq!(read.status, 200, "reads have their own budget");
    assert_eq!(header_number(&read, "x-ratelimit-limit"), 120);
    assert_eq!(header_number(&read, "x-ratelimit-remaining"), 119);
    let stock = read.json()["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["variantId"] == "v_ok")
        .unwrap()
        .clone();
    assert_eq!(
        stock["stock"], 40,
        "exactly the 30 accepted writes were applied"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_403_consumes_budget_and_carries_the_headers() {
    let app = app_with(RateLimits::default()).await;
    let key = app.create_key("atelier", "orders:read").await;
    for n in 1..=120 {
        let reply = app.get("/api/v1/products", &key).await;
        assert_eq!(
            (reply.status, reply.error_code().as_str()),
            (403, "INSUFFICIENT_SCOPE"),
            "request {n}"
        );
        assert_eq!(header_number(&reply, "x-ratelimit-remaining"), 120 - n);
    }
    assert_refused(&app.get("/api/v1/me", &key).await, "reads");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_does_not_consume_budget() {
    let tiny = RateBudget {
        limit: 3,
        window_millis: 2_000,
    };
    let app = app_with(RateLimits {
        reads: tiny,
        ..RateLimits::default()
    })
    .await;
    let key = app.create_key("atelier", "products:read").await;
    for _ in 0..3 {
        assert_eq!(app.get("/api/v1/me", &key).await.status, 200);
    }
    let mut retry_after = 0;
    for _ in 0..20 {
        retry_after = assert_refused(&app.get("/api/v1/me", &key).await, "reads");
    }
    assert!((1..=2).contains(&retry_after), "{retry_after}");
    // Waiting exactly Retry-After is enough, and the refusals left no trace: the whole
    // budget is back, not one request less.
    tokio::time::sleep(Duration::from_secs(retry_after as u64) + Duration::from_millis(50)).await;
    for n in 0..3 {
        let reply = app.get("/api/v1/me", &key).await;
        assert_eq!(
            reply.status, 200,
            "request {n} after waiting Retry-After: {}",
            reply.text
        );
    }
    assert_refused(&app.get("/api/v1/me", &key).await, "reads");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_secrets_are_limited_per_client_and_key_and_other_keys_keep_working() {
    let failures = RateBudget {
        limit: 5,
        window_millis: 60_000,
    };
    let app = app_with(RateLimits {
        auth_failures: failures,
        ..RateLimits::default()
    })
    .await;
    let known = app.create_key("atelier", "products:read").await;
    assert_eq!(app.get("/api/v1/me", &known).await.status, 200);
    let fresh = app.create_key("atelier", "products:read").await;
    let prefix = &known[9..17];
    for n in 0..5 {
        let wrong = format!("svc_live_{prefix}_{:064x}", n + 1);
        assert_eq!(
            app.get("/api/v1/me", &wrong).await.status,
            401,
            "attempt {n}"
        );
    }
    let blocked = app
        .get("/api/v1/me", &format!("svc_live_{prefix}_{:064x}", 99))
        .await;
    assert_eq!(
        (blocked.status, blocked.error_code().as_str()),
        (429, "RATE_LIMITED")
    );
    assert!(header_number(&blocked, "retry-after") >= 1);
    assert_eq!(
        app.send(app.client().get(app.url("/api/v1/me")))
            .await
            .status,
        401,
        "guessing one key spends the budget for that key, not the client's other budget"
    );

    assert_eq!(
        app.get("/api/v1/me", &known).await.status,
        200,
        "a verified key is still served"
    );
    assert_eq!(
        app.get("/api/v1/me", &fresh).await.status,
        200,
        "another key, never verified, is verified for the same client (a NAT's neighbour)"
    );
    let verifications = app.services.authenticator.stats().argon2_verifications;
    app.get("/api/v1/me", &format!("svc_live_{prefix}_{:064x}", 100))
        .await;
    assert_eq!(
        app.services.authenticator.stats().argon2_verifications,
        verifications,
        "blocked attempts cost no argon2"
    );
}
