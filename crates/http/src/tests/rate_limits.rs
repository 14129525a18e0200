//! Rate limits at the edge (spec §8): the budget headers, 429 with `Retry-After`, the order
//! 401 -> 429 -> 403, and the budget of failed authentications per client address. The
//! limiter is the real use case on the domain's sliding windows (`shop_ports::port::mock_on_real_windows`).

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::test::TestRequest;
use shop_domain::Timestamp;
use shop_domain::rate_limit::RateBudget;
use shop_ports::StoreError;
use shop_ports::port::{
    MockApiKeyStore, MockClock, MockOrderRepository, MockSecretHasher, mock_on_real_windows,
};
use shop_ports::usecase::{RateLimiter, RateLimits};

use super::products::listing_of;
use super::{
    NOW_MILLIS, Reply, TestApi, failure_budgets, get, key, rate_limiter, shop, verifies_key,
};

/// The address the blocked client calls from.
const FLOODER: &str = "203.0.113.9";
/// Another client, never blocked.
const NEIGHBOUR: &str = "198.51.100.7";

fn from(address: &str, request: TestRequest) -> TestRequest {
    let peer: SocketAddr = format!("{address}:4711").parse().unwrap();
    request.peer_addr(peer)
}

fn with_bearer(request: TestRequest, token: &str) -> TestRequest {
    request.insert_header((header::AUTHORIZATION, format!("Bearer {token}")))
}

/// A well-formed key of the known prefix with the wrong secret.
fn wrong_key() -> String {
    format!("svc_live_0a1b2c3d_{}", "cd".repeat(32))
}

fn limits(reads: u32, writes: u32, auth_failures: u32) -> RateLimits {
    let minute = |limit| RateBudget {
        limit,
        window_millis: 60_000,
    };
    RateLimits {
        reads: minute(reads),
        writes: minute(writes),
        auth_failures: minute(auth_failures),
        key_failures: RateBudget::KEY_FAILURES,
    }
}

/// Asserts the five budget headers, in both forms and consistent with each other.
fn assert_budget(reply: &Reply, policy: &str, limit: u32, remaining: u32, reset: i64, window: i64) {
    let body = String::from_utf8_lossy(&reply.body);
    assert_eq!(
        reply.header("ratelimit-policy"),
        Some(format!("\"{policy}\";q={limit};w={window}").as_str()),
        "{body}"
    );
    assert_eq!(
        reply.header("ratelimit"),
        Some(format!("\"{policy}\";r={remaining};t={reset}").as_str()),
        "{body}"
    );
    assert_eq!(
        reply.header("x-ratelimit-limit"),
        Some(limit.to_string().as_str())
    );
    assert_eq!(
        reply.header("x-ratelimit-remaining"),
        Some(remaining.to_string().as_str())
    );
    assert_eq!(
        reply.header("x-ratelimit-reset"),
        Some(reset.to_string().as_str())
    );
}

fn assert_no_budget(reply: &Reply) {
    for name in [
        "ratelimit-policy",
        "ratelimit",
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
    ] {
        assert_eq!(reply.header(name), None, "{name}");
    }
}

#[actix_web::test]
async fn every_outcome_of_a_valid_key_carries_and_consumes_its_budget() {
    let limiter = rate_limiter(RateLimits::default());
    let ok = TestApi::new()
        .rate_limiter(limiter.clone())
        .repository(listing_of(vec![]))
        .send(get("/api/v1/products"))
        .await;
    assert_eq!(ok.status, StatusCode::OK);
    assert_budget(&ok, "reads", 120, 119, 60, 60);

    let forbidden = TestApi::with_key(shop(), "orders:read")
        .rate_limiter(limiter.clone())
        .send(get("/api/v1/products"))
        .await;
    forbidden.error(StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE");
    assert_budget(&forbidden, "reads", 120, 118, 60, 60);

    let mut orders = MockOrderRepository::new();
    orders.expect_find_order().returning(|_, _, _| Ok(None));
    let not_found = TestApi::new()
        .orders(orders)
        .rate_limiter(limiter.clone())
        .send(get("/api/v1/orders/ord_missing"))
        .await;
    assert_eq!(
        not_found.status,
        StatusCode::NOT_FOUND,
        "{:?}",
        not_found.body
    );
    assert_budget(&not_found, "reads", 120, 117, 60, 60);

    let invalid = TestApi::new()
        .rate_limiter(limiter)
        .send(get("/api/v1/products?limit=0"))
        .await;
    invalid.error(StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert_budget(&invalid, "reads", 120, 116, 60, 60);
}

#[actix_web::test]
async fn over_budget_is_429_with_retry_after_and_the_budget() {
    let limiter = rate_limiter(limits(2, 30, 30));
    let mut replies = TestApi::new()
        .rate_limiter(limiter)
        .send_all((0..3).map(|_| get("/api/v1/me")).collect())
        .await;
    let refused = replies.pop().unwrap();
    for (n, accepted) in replies.iter().enumerate() {
        assert_eq!(accepted.status, StatusCode::OK);
        assert_budget(accepted, "reads", 2, 1 - n as u32, 60, 60);
    }
    let error = refused.error(StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED");
    assert_eq!(
        error["message"],
        "Too many requests; retry after 60 seconds."
    );
    assert_eq!(refused.header("retry-after"), Some("60"));
    assert_budget(&refused, "reads", 2, 0, 60, 60);
    assert_eq!(refused.header("www-authenticate"), None);
}

#[actix_web::test]
async fn retry_after_is_rounded_up_and_at_least_one_second() {
    // A window of 1.5 s: the oldest request leaves in 1,500 ms, so waiting 2 s is enough.
    let odd = RateLimits {
        reads: RateBudget {
            limit: 1,
            window_millis: 1_500,
        },
        ..RateLimits::default()
    };
    let replies = TestApi::new()
        .rate_limiter(rate_limiter(odd))
        .send_all(vec![get("/api/v1/me"), get("/api/v1/me")])
        .await;
    assert_budget(&replies[0], "reads", 1, 0, 2, 2);
    replies[1].error(StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED");
    assert_eq!(replies[1].header("retry-after"), Some("2"));
    assert_budget(&replies[1], "reads", 1, 0, 2, 2);

    // Nothing counted, nothing to wait for; yet a refusal never says "retry after 0".
    let closed = TestApi::new()
        .rate_limiter(rate_limiter(limits(0, 30, 30)))
        .send(get("/api/v1/me"))
        .await;
    let error = closed.error(StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED");
    assert_eq!(error["message"], "Too many requests; retry after 1 second.");
    assert_eq!(closed.header("retry-after"), Some("1"));
    assert_budget(&closed, "reads", 0, 0, 0, 60);
}

/// A key over its budget gets 429 even for an operation it may not perform: the budget is
/// counted for every valid key before the 403s, and a 429 never reaches `authorize`.
#[actix_web::test]
async fn an_exhausted_budget_is_refused_before_the_scope() {
    let replies = TestApi::with_key(shop(), "orders:read")
        .rate_limiter(rate_limiter(limits(1, 30, 30)))
        .send_all(vec![get("/api/v1/products"), get("/api/v1/products")])
        .await;
    replies[0].error(StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE");
    assert_budget(&replies[0], "reads", 1, 0, 60, 60);
    replies[1].error(StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED");
}

/// With a clock that moves: refusals are not counted, so a slot frees exactly when the oldest
/// ACCEPTED request turns 60 s old, however many 429s came in between.
#[actix_web::test]
async fn a_429_consumes_nothing() {
    let now = Arc::new(AtomicI64::new(NOW_MILLIS));
    let mut clock = MockClock::new();
    let reading = now.clone();
    clock
        .expect_now()
        .returning(move || Timestamp::from_millis(reading.load(Ordering::SeqCst)));
    let limiter = Arc::new(RateLimiter::new(
        Arc::new(mock_on_real_windows()),
        Arc::new(clock),
        limits(2, 30, 30),
    ));
    let at = |offset: i64| now.store(NOW_MILLIS + offset, Ordering::SeqCst);
    let send = || {
        TestApi::new()
            .rate_limiter(limiter.clone())
            .send(get("/api/v1/me"))
    };

    at(0);
    assert_eq!(send().await.status, StatusCode::OK);
    at(1_000);
    assert_eq!(send().await.status, StatusCode::OK);
    for offset in [2_000, 30_000, 59_999] {
        at(offset);
        let refused = send().await;
        assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS, "at {offset}");
        // The oldest accepted request (at 0) frees its slot at 60,000 ms.
        let wait = (60_000 - offset + 999) / 1_000;
        assert_eq!(
            refused.header("retry-after"),
            Some(wait.to_string().as_str())
        );
    }
    at(60_000);
    let served = send().await;
    assert_eq!(served.status, StatusCode::OK);
    // The request at 1,000 ms is now the oldest: 1 s to go.
    assert_budget(&served, "reads", 2, 0, 1, 60);
}

#[actix_web::test]
async fn reads_and_writes_draw_on_separate_budgets() {
    let limiter = rate_limiter(limits(3, 2, 30));
    // The default key holds no `stock:write`: the writes are 403s, which count all the same.
    let write = || {
        TestRequest::post()
            .uri("/api/v1/stock/adjustments")
            .insert_header((header::AUTHORIZATION, format!("Bearer {}", key())))
    };
    let head = TestRequest::default()
        .method(actix_web::http::Method::HEAD)
        .uri("/api/v1/me")
        .insert_header((header::AUTHORIZATION, format!("Bearer {}", key())));
    let replies = TestApi::new()
        .rate_limiter(limiter)
        .send_all(vec![
            get("/api/v1/me"),
            head,
            write(),
            get("/api/v1/me"),
            write(),
            write(),
        ])
        .await;
    let expected = [
        (StatusCode::OK, "reads", 3, 2),
        (StatusCode::OK, "reads", 3, 1),
        (StatusCode::FORBIDDEN, "writes", 2, 1),
        (StatusCode::OK, "reads", 3, 0),
        (StatusCode::FORBIDDEN, "writes", 2, 0),
        (StatusCode::TOO_MANY_REQUESTS, "writes", 2, 0),
    ];
    for (n, (reply, (status, policy, limit, remaining))) in replies.iter().zip(expected).enumerate()
    {
        assert_eq!(reply.status, status, "request {n}: {:?}", reply.body);
        assert_budget(reply, policy, limit, remaining, 60, 60);
    }
}

/// A well-formed key whose prefix no key has.
fn unknown_key() -> String {
    format!("svc_live_deadbeef_{}", "ab".repeat(32))
}

fn missing_key(address: &str) -> TestRequest {
    from(address, TestRequest::get().uri("/api/v1/me"))
}

fn presenting(address: &str, token: &str) -> TestRequest {
    from(
        address,
        with_bearer(TestRequest::get().uri("/api/v1/me"), token),
    )
}

/// Asserts the 429 of a spent failure budget: a minute to wait, no budget headers, no
/// `WWW-Authenticate`.
fn assert_throttled(reply: &Reply) {
    let error = reply.error(StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED");
    assert_eq!(
        error["message"],
        "Too many requests; retry after 60 seconds."
    );
    assert_eq!(reply.header("retry-after"), Some("60"));
    assert_eq!(reply.header("www-authenticate"), None);
    assert_no_budget(reply);
}

#[actix_web::test]
async fn failures_that_cost_no_verification_count_against_the_client_address() {
    let mut hasher = MockSecretHasher::new();
    hasher.expect_verify().never();
    let replies = TestApi::new()
        .hasher(hasher)
        .failures(failure_budgets(3, 120))
        .send_all(vec![
            missing_key(FLOODER),
            presenting(FLOODER, "svc_live_x"),
            presenting(FLOODER, &unknown_key()),
            missing_key(FLOODER),
            presenting(FLOODER, &unknown_key()),
            missing_key(NEIGHBOUR),
        ])
        .await;
    for reply in &replies[..3] {
        reply.error(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
        assert_no_budget(reply);
    }
    assert_throttled(&replies[3]);
    assert_throttled(&replies[4]);
    replies[5].error(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
}

#[actix_web::test]
async fn a_client_whose_budget_is_spent_still_gets_another_valid_key_verified() {
    // Behind one address (a NAT, a proxy), a guesser's failures do not lock out the valid
    // keys of everyone else there: the key is verified, once.
    let mut hasher = MockSecretHasher::new();
    hasher.expect_verify().times(1).returning(verifies_key);
    let replies = TestApi::new()
        .hasher(hasher)
        .failures(failure_budgets(2, 120))
        .send_all(vec![
            presenting(FLOODER, &unknown_key()),
            presenting(FLOODER, &unknown_key()),
            presenting(FLOODER, &unknown_key()),
            from(FLOODER, get("/api/v1/me")),
        ])
        .await;
    assert_throttled(&replies[2]);
    assert_eq!(replies[3].status, StatusCode::OK, "{:?}", replies[3].body);
    assert_budget(&replies[3], "reads", 120, 119, 60, 60);
}

#[actix_web::test]
async fn wrong_secrets_run_exactly_the_budget_of_verifications_and_no_more() {
    // Three verifications for the flooder, one for its neighbour: no more.
    let mut hasher = MockSecretHasher::new();
    hasher.expect_verify().times(4).returning(verifies_key);
    let mut requests: Vec<_> = (0..5).map(|_| presenting(FLOODER, &wrong_key())).collect();
    requests.push(presenting(NEIGHBOUR, &wrong_key()));
    let replies = TestApi::new()
        .hasher(hasher)
        .failures(failure_budgets(3, 120))
        .send_all(requests)
        .await;
    for reply in &replies[..3] {
        reply.error(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    }
    assert_throttled(&replies[3]);
    assert_throttled(&replies[4]);
    // The neighbour's budget for the key is its own: its wrong secret is verified.
    replies[5].error(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
}

#[actix_web::test]
async fn a_key_guessed_from_many_addresses_meets_its_own_budget_and_keeps_serving() {
    // Verified once for the neighbour, then guessed at from three addresses: the key's budget
    // of two wrong secrets ends the guessing, and the verified key is served from the cache.
    let mut hasher = MockSecretHasher::new();
    hasher.expect_verify().times(3).returning(verifies_key);
    let replies = TestApi::new()
        .hasher(hasher)
        .failures(failure_budgets(30, 2))
        .send_all(vec![
            from(NEIGHBOUR, get("/api/v1/me")),
            presenting("127.0.0.2", &wrong_key()),
            presenting("127.0.0.3", &wrong_key()),
            presenting("127.0.0.4", &wrong_key()),
            from(NEIGHBOUR, get("/api/v1/me")),
            from("127.0.0.5", get("/api/v1/me")),
        ])
        .await;
    assert_eq!(replies[0].status, StatusCode::OK);
    replies[1].error(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    replies[2].error(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    assert_throttled(&replies[3]);
    assert_eq!(replies[4].status, StatusCode::OK);
    assert_eq!(
        replies[5].status,
        StatusCode::OK,
        "a verified key, from anywhere"
    );
}

#[actix_web::test]
async fn an_unreachable_key_store_is_no_failure_of_the_client() {
    let failures = failure_budgets(1, 120);
    let mut keys = MockApiKeyStore::new();
    keys.expect_find_key()
        .returning(|_| Err(StoreError::Unavailable("pool timed out".into())));
    let reply = TestApi::new()
        .keys(keys)
        .failures(failures.clone())
        .send(from(FLOODER, get("/api/v1/me")))
        .await;
    reply.error(StatusCode::SERVICE_UNAVAILABLE, "SERVICE_UNAVAILABLE");
    // The client's one failure is still there to spend.
    let missing = TestApi::new()
        .failures(failures)
        .send(missing_key(FLOODER))
        .await;
    missing.error(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
}
