//! The `RateLimitStore` contract: the same scenarios, with synthetic instants (no sleeps),
//! against the in-process store and against Redis (`TEST_REDIS_URL`; skipped when unset unless
//! `REQUIRE_REDIS=1`), each Redis test in its own key namespace.

use std::sync::Arc;
use std::time::{Duration, Instant};

use shop_domain::Timestamp;
use shop_domain::rate_limit::RateBudget;
use shop_ports::port::RateLimitStore;

use super::{FallbackRateStore, InMemoryRateStore, RedisRateStore};

type Store = Arc<dyn RateLimitStore>;

/// 2026-01-01T00:00:00Z: realistic magnitudes, as Redis scores are doubles.
const BASE: i64 = 1_767_225_600_000;

fn at(millis: i64) -> Timestamp {
    Timestamp::from_millis(BASE + millis)
}

fn memory_store() -> InMemoryRateStore {
    InMemoryRateStore::new(Duration::from_secs(60))
}

fn test_redis_url() -> Option<String> {
    match std::env::var("TEST_REDIS_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            let required = std::env::var("REQUIRE_REDIS").is_ok_and(|v| v == "1");
            assert!(!required, "REQUIRE_REDIS=1 but TEST_REDIS_URL is not set");
            eprintln!("SKIPPED on Redis: TEST_REDIS_URL is not set");
            None
        }
    }
}

fn namespace() -> String {
    format!("shop-api-test:{}:", uuid::Uuid::now_v7().simple())
}

/// A generous timeout: these tests are about semantics, and a loaded CI machine must not turn
/// a slow answer into a failure. The short default is tested by the outage tests.
fn redis_store_in(url: &str, namespace: &str) -> RedisRateStore {
    RedisRateStore::with_timeout(url, namespace, Duration::from_secs(5)).expect("a valid URL")
}

fn redis_store() -> Option<RedisRateStore> {
    test_redis_url().map(|url| redis_store_in(&url, &namespace()))
}

macro_rules! contract {
    ($($scenario:ident),* $(,)?) => {
        mod in_memory {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $scenario() {
                    super::$scenario(std::sync::Arc::new(super::memory_store())).await;
                }
            )*
        }

        mod on_redis {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $scenario() {
                    if let Some(store) = super::redis_store() {
                        super::$scenario(std::sync::Arc::new(store)).await;
                    }
                }
            )*
        }
    };
}

contract!(
    the_120th_read_is_accepted_and_the_121st_refused,
    a_slot_frees_exactly_when_the_oldest_turns_a_window_old,
    refusals_consume_nothing,
    peek_counts_nothing,
    buckets_are_independent,
    concurrent_requests_never_take_more_than_the_limit,
    a_released_slot_is_free_again_and_only_once,
    concurrent_reservations_never_take_more_than_the_limit,
);

async fn the_120th_read_is_accepted_and_the_121st_refused(store: Store) {
    for n in 0..120 {
        let status = store
            .acquire("key:a:reads", RateBudget::READS, at(n * 100))
            .await
            .expect("store answers");
        assert!(status.allowed, "request {n}");
        assert_eq!(status.limit, 120);
        assert_eq!(status.remaining, 119 - n as u32);
        assert_eq!(status.reset_after_millis, 60_000 - n * 100, "request {n}");
    }
    let refused = store
        .acquire("key:a:reads", RateBudget::READS, at(12_000))
        .await
        .expect("store answers");
    assert!(!refused.allowed);
    assert_eq!(refused.remaining, 0);
    // The oldest (at 0 ms) leaves at 60,000 ms: 48 s from 12,000 ms.
    assert_eq!(refused.reset_after_millis, 48_000);
    assert_eq!(refused.retry_after_seconds(), 48);
}

async fn a_slot_frees_exactly_when_the_oldest_turns_a_window_old(store: Store) {
    let writes = RateBudget::WRITES;
    let acquire = |t: i64| {
        let store = store.clone();
        async move {
            store
                .acquire("key:a:writes", writes, at(t))
                .await
                .expect("store answers")
        }
    };
    for n in 0..30 {
        assert!(acquire(1_000 + n).await.allowed);
    }
    let early = acquire(60_999).await;
    assert!(!early.allowed, "1 ms too early");
    assert_eq!(
        (early.reset_after_millis, early.retry_after_seconds()),
        (1, 1)
    );
    let freed = acquire(61_000).await;
    assert!(freed.allowed, "the first request is exactly 60 s old");
    assert_eq!(freed.remaining, 0);
    assert_eq!(
        freed.reset_after_millis, 1,
        "the next oldest is at 1,001 ms"
    );
    assert!(!acquire(61_000).await.allowed, "only one slot freed");
    assert!(acquire(61_001).await.allowed);
}

async fn refusals_consume_nothing(store: Store) {
    let budget = RateBudget {
        limit: 2,
        window_millis: 1_000,
    };
    let bucket = "key:a:writes";
    assert!(
        store
            .acquire(bucket, budget, at(0))
            .await
            .expect("answers")
            .allowed
    );
    assert!(
        store
            .acquire(bucket, budget, at(10))
            .await
            .expect("answers")
            .allowed
    );
    for t in (20..1_000).step_by(20) {
        let refused = store.acquire(bucket, budget, at(t)).await.expect("answers");
        assert!(!refused.allowed, "at {t}");
        assert_eq!(refused.reset_after_millis, 1_000 - t, "at {t}");
    }
    // Had a refusal counted, the window would still be full here.
    assert!(
        store
            .acquire(bucket, budget, at(1_000))
            .await
            .expect("answers")
            .allowed
    );
    assert!(
        store
            .acquire(bucket, budget, at(1_010))
            .await
            .expect("answers")
            .allowed
    );
    assert!(
        !store
            .acquire(bucket, budget, at(1_011))
            .await
            .expect("answers")
            .allowed
    );
}

async fn peek_counts_nothing(store: Store) {
    let budget = RateBudget {
        limit: 1,
        window_millis: 1_000,
    };
    let bucket = "ip:203.0.113.9:auth-failures";
    for _ in 0..5 {
        let status = store.peek(bucket, budget, at(0)).await.expect("answers");
        assert_eq!(
            (status.allowed, status.remaining, status.reset_after_millis),
            (true, 1, 0)
        );
    }
    assert!(
        store
            .acquire(bucket, budget, at(0))
            .await
            .expect("answers")
            .allowed
    );
    let full = store.peek(bucket, budget, at(1)).await.expect("answers");
    assert_eq!(
        (full.allowed, full.remaining, full.reset_after_millis),
        (false, 0, 999)
    );
    assert!(
        store
            .peek(bucket, budget, at(1_000))
            .await
            .expect("answers")
            .allowed
    );
}

async fn buckets_are_independent(store: Store) {
    let budget = RateBudget {
        limit: 2,
        window_millis: 60_000,
    };
    for t in 0..2 {
        assert!(
            store
                .acquire("key:a:reads", budget, at(t))
                .await
                .expect("answers")
                .allowed
        );
    }
    assert!(
        !store
            .acquire("key:a:reads", budget, at(5))
            .await
            .expect("answers")
            .allowed
    );
    for bucket in [
        "key:a:writes",
        "key:b:reads",
        "ip:203.0.113.9:auth-failures",
    ] {
        let status = store.acquire(bucket, budget, at(5)).await.expect("answers");
        assert_eq!((status.allowed, status.remaining), (true, 1), "{bucket}");
    }
}

async fn concurrent_requests_never_take_more_than_the_limit(store: Store) {
    let tasks: Vec<_> = (0..200)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move {
                store
                    .acquire("key:a:reads", RateBudget::READS, at(0))
                    .await
                    .expect("store answers")
                    .allowed
            })
        })
        .collect();
    let mut allowed = 0;
    for task in tasks {
        if task.await.expect("task finished") {
            allowed += 1;
        }
    }
    assert_eq!(allowed, 120);
}

async fn a_released_slot_is_free_again_and_only_once(store: Store) {
    let budget = RateBudget {
        limit: 3,
        window_millis: 60_000,
    };
    let bucket = "auth:ip:a:key:b";
    let mut slots = Vec::new();
    for t in 0..3 {
        let reserved = store
            .reserve(bucket, budget, at(t * 10))
            .await
            .expect("answers");
        assert!(reserved.status.allowed);
        slots.push(reserved.slot.expect("a counted request has a slot"));
    }
    let refused = store
        .reserve(bucket, budget, at(40))
        .await
        .expect("answers");
    assert!(!refused.status.allowed && refused.slot.is_none());
    store.release(bucket, &slots[1]).await.expect("answers");
    let again = store
        .reserve(bucket, budget, at(50))
        .await
        .expect("answers");
    assert!(again.status.allowed, "the given-back slot is free");
    store.release(bucket, &slots[1]).await.expect("answers");
    store
        .release(bucket, &shop_ports::port::Slot::new("12345"))
        .await
        .expect("an unknown slot is ignored");
    let still_full = store.peek(bucket, budget, at(60)).await.expect("answers");
    assert!(
        !still_full.allowed,
        "a slot is given back once: {still_full:?}"
    );
}

async fn concurrent_reservations_never_take_more_than_the_limit(store: Store) {
    let budget = RateBudget {
        limit: 30,
        window_millis: 60_000,
    };
    let reserve_many = |count: usize| {
        let store = store.clone();
        async move {
            let tasks: Vec<_> = (0..count)
                .map(|_| {
                    let store = store.clone();
                    tokio::spawn(async move {
                        store
                            .reserve("auth:ip:a:key:b", budget, at(0))
                            .await
                            .expect("store answers")
                            .slot
                    })
                })
                .collect();
            let mut slots = Vec::new();
            for task in tasks {
                slots.extend(task.await.expect("task finished"));
            }
            slots
        }
    };
    let slots = reserve_many(1_000).await;
    assert_eq!(slots.len(), 30, "exactly the budget, however many at once");
    for slot in &slots {
        store
            .release("auth:ip:a:key:b", slot)
            .await
            .expect("answers");
    }
    assert_eq!(
        reserve_many(100).await.len(),
        30,
        "every slot was given back"
    );
}

/// Nothing listens on port 1.
const CLOSED: &str = "redis://127.0.0.1:1";

#[tokio::test]
async fn an_unreachable_redis_answers_an_error_within_the_timeout() {
    let store = RedisRateStore::new(CLOSED, &namespace()).expect("a valid URL");
    let started = Instant::now();
    let result = store.acquire("key:a:reads", RateBudget::READS, at(0)).await;
    assert!(result.is_err(), "{result:?}");
    assert!(
        started.elapsed() < super::DEFAULT_TIMEOUT + Duration::from_millis(300),
        "took {:?}",
        started.elapsed()
    );
    assert!(store.check(Duration::from_millis(200)).await.is_err());
}

#[tokio::test]
async fn a_malformed_redis_url_is_refused() {
    for url in ["postgres://127.0.0.1/x", "redis://", "not a url"] {
        assert!(RedisRateStore::new(url, "p:").is_err(), "{url}");
    }
}

#[tokio::test]
async fn without_redis_the_fallback_still_limits_per_instance_and_counts() {
    let primary = RedisRateStore::new(CLOSED, &namespace()).expect("a valid URL");
    let store = FallbackRateStore::new(primary, memory_store());
    let budget = RateBudget {
        limit: 3,
        window_millis: 60_000,
    };
    for t in 0..3 {
        let status = store
            .acquire("key:a:reads", budget, at(t))
            .await
            .expect("never fails");
        assert!(status.allowed);
    }
    let refused = store
        .acquire("key:a:reads", budget, at(10))
        .await
        .expect("never fails");
    assert_eq!(
        (refused.allowed, refused.reset_after_millis),
        (false, 59_990)
    );
    assert!(store.peek("key:a:reads", budget, at(11)).await.is_ok());
    assert_eq!(store.fallbacks(), 5);
    assert!(store.is_degraded());
    let reserved = store
        .reserve("key:b:reads", budget, at(12))
        .await
        .expect("never fails");
    let slot = reserved.slot.expect("counted locally");
    store
        .release("key:b:reads", &slot)
        .await
        .expect("given back locally");
    assert_eq!(
        store
            .peek("key:b:reads", budget, at(13))
            .await
            .map(|s| s.remaining)
            .ok(),
        Some(3)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instances_on_one_redis_share_their_windows() {
    let Some(url) = test_redis_url() else { return };
    let namespace = namespace();
    let instance = || FallbackRateStore::new(redis_store_in(&url, &namespace), memory_store());
    let (a, b) = (instance(), instance());
    let budget = RateBudget {
        limit: 4,
        window_millis: 60_000,
    };
    let mut allowed = 0;
    for t in 0..10 {
        let store = if t % 2 == 0 { &a } else { &b };
        if store
            .acquire("key:a:reads", budget, at(t))
            .await
            .expect("answers")
            .allowed
        {
            allowed += 1;
        }
    }
    assert_eq!(allowed, 4, "one window for both instances");
    assert_eq!((a.fallbacks(), b.fallbacks()), (0, 0));
    assert!(!a.is_degraded());
}
