use async_trait::async_trait;
use shop_domain::Timestamp;
use shop_domain::rate_limit::{RateBudget, RateStatus};

#[derive(Debug, thiserror::Error)]
#[error("the rate-limit store is unavailable")]
pub struct RateStoreError(#[source] pub crate::BoxError);

/// A request counted by [`RateLimitStore::reserve`], which can be given back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot(String);

impl Slot {
    /// What the store that made it needs to find it again.
    pub fn new(id: impl Into<String>) -> Self {
        Self(id.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What [`RateLimitStore::reserve`] decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reservation {
    pub status: RateStatus,
    /// The request counted, when it was allowed.
    pub slot: Option<Slot>,
}

/// Where sliding windows live: in the process, or shared by every instance (Redis). Each
/// implementation follows `shop_domain::rate_limit::SlidingWindow` exactly, with `now` given
/// by the caller.
#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait RateLimitStore: Send + Sync {
    /// Counts one request in `bucket` if fewer than `budget.limit` were counted in the last
    /// window, atomically (no two concurrent calls can both take the last slot).
    async fn acquire(
        &self,
        bucket: &str,
        budget: RateBudget,
        now: Timestamp,
    ) -> Result<RateStatus, RateStoreError>;

    /// [`Self::acquire`], atomically too, and the slot it counted, for
    /// [`Self::release`] to give back if the request turns out not to count (a reserved
    /// failure that was a success after all).
    async fn reserve(
        &self,
        bucket: &str,
        budget: RateBudget,
        now: Timestamp,
    ) -> Result<Reservation, RateStoreError>;

    /// Gives back a slot of [`Self::reserve`]: the window counts one request fewer, as if it
    /// had never come. A slot that has left its window already, or that this store does not
    /// know, is ignored.
    async fn release(&self, bucket: &str, slot: &Slot) -> Result<(), RateStoreError>;

    /// The budget of `bucket` as it stands, counting nothing.
    async fn peek(
        &self,
        bucket: &str,
        budget: RateBudget,
        now: Timestamp,
    ) -> Result<RateStatus, RateStoreError>;
}

/// A [`MockRateLimitStore`] whose every method runs the domain's real sliding windows, one per
/// bucket: tests of the use cases and of the HTTP adapter see the exact rule the real stores
/// follow without a second implementation of the port. A slot is the millisecond it was
/// counted at.
#[cfg(feature = "mocks")]
pub fn mock_on_real_windows() -> MockRateLimitStore {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};

    use shop_domain::rate_limit::SlidingWindow;

    type Windows = Arc<Mutex<HashMap<String, SlidingWindow>>>;
    fn with_window<T>(
        windows: &Windows,
        bucket: &str,
        f: impl FnOnce(&mut SlidingWindow) -> T,
    ) -> T {
        let mut windows = windows
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        f(windows.entry(bucket.to_owned()).or_default())
    }

    let windows = Windows::default();
    let mut store = MockRateLimitStore::new();
    let acquiring = windows.clone();
    store
        .expect_acquire()
        .returning(move |bucket, budget, now| {
            Ok(with_window(&acquiring, bucket, |window| {
                window.acquire(budget, now)
            }))
        });
    let reserving = windows.clone();
    store
        .expect_reserve()
        .returning(move |bucket, budget, now| {
            let status = with_window(&reserving, bucket, |window| window.acquire(budget, now));
            Ok(Reservation {
                status,
                slot: status.allowed.then(|| Slot::new(now.millis().to_string())),
            })
        });
    let releasing = windows.clone();
    store.expect_release().returning(move |bucket, slot| {
        if let Ok(at) = slot.as_str().parse() {
            with_window(&releasing, bucket, |window| window.release(at));
        }
        Ok(())
    });
    store.expect_peek().returning(move |bucket, budget, now| {
        Ok(with_window(&windows, bucket, |window| {
            window.peek(budget, now)
        }))
    });
    store
}
