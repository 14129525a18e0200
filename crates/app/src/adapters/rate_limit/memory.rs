//! The in-process store: one `SlidingWindow` per bucket, each behind its own mutex.
//!
//! Why this shape: the hot path must not serialise every request of the instance on one
//! lock. moka's concurrent map finds the bucket without a global lock, and the mutex then
//! covers a single bucket (one key's reads, say), held for a few microseconds. Memory stays
//! bounded: buckets idle for longer than the longest window hold nothing that still counts
//! and are dropped, and the number of buckets is capped (worst case about
//! `capacity × min(limit, window in ms) × 16` bytes).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use moka::sync::Cache;
use shop_domain::Timestamp;
use shop_domain::rate_limit::{RateBudget, RateStatus, SlidingWindow};
use shop_ports::port::{RateLimitStore, RateStoreError, Reservation, Slot};
use shop_ports::usecase::{RateLimits, SignInLimits};

/// Enough for every key and client address active within a minute on one instance; beyond
/// it the least useful buckets are evicted (their requests then stop counting).
pub const DEFAULT_CAPACITY: u64 = 100_000;

/// Idle buckets are kept this much longer than the longest window, so that a bucket is only
/// dropped once every request it holds has left its window.
const IDLE_MARGIN: Duration = Duration::from_secs(5);

type Window = Arc<Mutex<SlidingWindow>>;

pub struct InMemoryRateStore {
    windows: Cache<String, Window>,
}

impl InMemoryRateStore {
    /// A store for budgets whose windows are at most `longest_window` long.
    pub fn new(longest_window: Duration) -> Self {
        Self::with_capacity(longest_window, DEFAULT_CAPACITY)
    }

    /// A store for the API's `limits` and the console's `sign_in` budgets (its idle timeout
    /// follows their longest window).
    pub fn for_limits(limits: &RateLimits, sign_in: &SignInLimits) -> Self {
        let longest = [
            limits.reads,
            limits.writes,
            limits.auth_failures,
            limits.key_failures,
            sign_in.per_email,
            sign_in.per_address,
            sign_in.per_device,
        ]
        .iter()
        .map(|budget| budget.window_millis)
        .max()
        .unwrap_or(0);
        Self::new(Duration::from_millis(u64::try_from(longest).unwrap_or(0)))
    }

    pub fn with_capacity(longest_window: Duration, capacity: u64) -> Self {
        Self {
            windows: Cache::builder()
                .max_capacity(capacity)
                .time_to_idle(longest_window + IDLE_MARGIN)
                .build(),
        }
    }

    fn window(&self, bucket: &str) -> Window {
        // `get` borrows the bucket name; a `String` is only allocated for a new bucket.
        self.windows.get(bucket).unwrap_or_else(|| {
            self.windows.get_with(bucket.to_owned(), || {
                Arc::new(Mutex::new(SlidingWindow::default()))
            })
        })
    }
}

fn lock(window: &Window) -> std::sync::MutexGuard<'_, SlidingWindow> {
    // The domain rule cannot panic while holding the lock, so a poisoned lock still guards a
    // consistent window.
    window.lock().unwrap_or_else(PoisonError::into_inner)
}

#[async_trait]
impl RateLimitStore for InMemoryRateStore {
    async fn acquire(
        &self,
        bucket: &str,
        budget: RateBudget,
        now: Timestamp,
    ) -> Result<RateStatus, RateStoreError> {
        Ok(lock(&self.window(bucket)).acquire(budget, now))
    }

    /// The slot is the instant it was counted at: releasing it takes one request of that
    /// instant back.
    async fn reserve(
        &self,
        bucket: &str,
        budget: RateBudget,
        now: Timestamp,
    ) -> Result<Reservation, RateStoreError> {
        let status = lock(&self.window(bucket)).acquire(budget, now);
        Ok(Reservation {
            status,
            slot: status.allowed.then(|| Slot::new(now.millis().to_string())),
        })
    }

    async fn release(&self, bucket: &str, slot: &Slot) -> Result<(), RateStoreError> {
        if let (Some(window), Ok(at)) = (self.windows.get(bucket), slot.as_str().parse::<i64>()) {
            lock(&window).release(at);
        }
        Ok(())
    }

    async fn peek(
        &self,
        bucket: &str,
        budget: RateBudget,
        now: Timestamp,
    ) -> Result<RateStatus, RateStoreError> {
        // A peek at an unknown bucket creates none: failed-authentication budgets are peeked
        // for every client address, and most never fail.
        Ok(match self.windows.get(bucket) {
            Some(window) => lock(&window).peek(budget, now),
            None => SlidingWindow::default().peek(budget, now),
        })
    }
}
