//! Redis as a readiness check. It is reported by `/readyz` but not required: while Redis is
//! down each instance limits on its own windows (see `rate_limit::fallback`), so taking every
//! instance out of rotation for it would turn a cache outage into an API outage.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use shop_ports::port::{HealthCheck, Unhealthy};

use super::rate_limit::FallbackRateStore;

/// How long the readiness probe waits for Redis.
const REDIS_CHECK_TIMEOUT: Duration = Duration::from_secs(1);

pub struct RedisReadiness(pub Arc<FallbackRateStore>);

#[async_trait]
impl HealthCheck for RedisReadiness {
    fn name(&self) -> &'static str {
        "redis"
    }

    fn required(&self) -> bool {
        false
    }

    /// A failure also starts the store's outage (logged once), as a failed call would.
    async fn check(&self) -> Result<(), Unhealthy> {
        if self.0.check(REDIS_CHECK_TIMEOUT).await {
            Ok(())
        } else {
            Err(Unhealthy::Unreachable(
                format!("Redis at {} did not answer", self.0.address()).into(),
            ))
        }
    }
}
