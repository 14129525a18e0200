use async_trait::async_trait;
use shop_domain::Timestamp;
use shop_domain::rate_limit::{RateBudget, RateStatus};

#[derive(Debug, thiserror::Error)]
#[error("the rate-limit store is unavailable")]
pub struct RateStoreError(#[source] pub crate::BoxError);

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

    /// The budget of `bucket` as it stands, counting nothing.
    async fn peek(
        &self,
        bucket: &str,
        budget: RateBudget,
        now: Timestamp,
    ) -> Result<RateStatus, RateStoreError>;
}
