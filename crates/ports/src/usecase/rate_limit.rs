//! Rate limiting (spec §8): per API key, a read and a write budget. Every request that
//! presented a valid key is counted, whatever its outcome (a 403 or a 404 included); a request
//! refused with 429 is not. The budgets of failed authentications are the authenticator's
//! (`authenticate::failures`); their limits are set here with the others.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use shop_domain::api_key::KeyPrefix;
use shop_domain::rate_limit::{RateBudget, RateStatus, RequestClass};

use crate::port::{Clock, RateLimitStore};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimits {
    pub reads: RateBudget,
    pub writes: RateBudget,
    /// Per client address: failed authentications that cost no verification, and, apart for
    /// each existing key, its wrong secrets.
    pub auth_failures: RateBudget,
    /// Per existing key, from every address together: its wrong secrets.
    pub key_failures: RateBudget,
}

impl Default for RateLimits {
    fn default() -> Self {
        Self {
            reads: RateBudget::READS,
            writes: RateBudget::WRITES,
            auth_failures: RateBudget::AUTH_FAILURES,
            key_failures: RateBudget::KEY_FAILURES,
        }
    }
}

pub struct RateLimiter {
    store: Arc<dyn RateLimitStore>,
    clock: Arc<dyn Clock>,
    limits: RateLimits,
    store_failures: AtomicU64,
}

impl RateLimiter {
    pub fn new(store: Arc<dyn RateLimitStore>, clock: Arc<dyn Clock>, limits: RateLimits) -> Self {
        Self {
            store,
            clock,
            limits,
            store_failures: AtomicU64::new(0),
        }
    }

    pub fn limits(&self) -> RateLimits {
        self.limits
    }

    /// How often the store failed and a request was let through unlimited.
    pub fn store_failures(&self) -> u64 {
        self.store_failures.load(Ordering::Relaxed)
    }

    pub fn budget(&self, class: RequestClass) -> RateBudget {
        match class {
            RequestClass::Read => self.limits.reads,
            RequestClass::Write => self.limits.writes,
        }
    }

    /// Counts a request of a valid key against its budget for `class`.
    pub async fn consume(&self, key: &KeyPrefix, class: RequestClass) -> RateStatus {
        let budget = self.budget(class);
        let bucket = format!("key:{key}:{}", class.policy_name());
        let result = self.store.acquire(&bucket, budget, self.clock.now()).await;
        self.or_open(result, budget)
    }

    /// Fails open: a store that cannot answer must not take the API down with it. Stores that
    /// can (the Redis one) fall back to a per-instance window before it comes to this.
    fn or_open(
        &self,
        result: Result<RateStatus, crate::port::RateStoreError>,
        budget: RateBudget,
    ) -> RateStatus {
        result.unwrap_or_else(|error| {
            self.store_failures.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(error = %error, "rate limiting unavailable; request let through");
            RateStatus {
                allowed: true,
                limit: budget.limit,
                remaining: budget.limit,
                reset_after_millis: 0,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use shop_domain::Timestamp;

    use super::*;
    use crate::port::{MockClock, MockRateLimitStore, RateStoreError};

    fn limiter(store: MockRateLimitStore) -> RateLimiter {
        let mut clock = MockClock::new();
        clock.expect_now().return_const(Timestamp::from_millis(7));
        RateLimiter::new(Arc::new(store), Arc::new(clock), RateLimits::default())
    }

    fn status(allowed: bool) -> RateStatus {
        RateStatus {
            allowed,
            limit: 30,
            remaining: 0,
            reset_after_millis: 5_000,
        }
    }

    #[tokio::test]
    async fn reads_and_writes_of_a_key_are_separate_buckets() {
        let mut store = MockRateLimitStore::new();
        store
            .expect_acquire()
            .withf(|bucket, budget, now| {
                bucket == "key:0a1b2c3d:reads" && budget.limit == 120 && now.millis() == 7
            })
            .times(1)
            .returning(|_, _, _| Ok(status(true)));
        store
            .expect_acquire()
            .withf(|bucket, budget, _| bucket == "key:0a1b2c3d:writes" && budget.limit == 30)
            .times(1)
            .returning(|_, _, _| Ok(status(false)));
        let limiter = limiter(store);
        let key = KeyPrefix::parse("0a1b2c3d").unwrap();
        assert!(limiter.consume(&key, RequestClass::Read).await.allowed);
        assert!(!limiter.consume(&key, RequestClass::Write).await.allowed);
    }

    #[tokio::test]
    async fn an_unavailable_store_lets_requests_through_and_is_counted() {
        let mut store = MockRateLimitStore::new();
        store
            .expect_acquire()
            .returning(|_, _, _| Err(RateStoreError("connection refused".into())));
        let limiter = limiter(store);
        let status = limiter
            .consume(&KeyPrefix::parse("0a1b2c3d").unwrap(), RequestClass::Read)
            .await;
        assert_eq!((status.allowed, status.remaining), (true, 120));
        assert_eq!(limiter.store_failures(), 1);
    }
}
