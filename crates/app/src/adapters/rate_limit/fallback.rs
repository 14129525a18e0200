//! Redis first; the instance's own windows while Redis cannot be reached.
//!
//! **Fail open, with bounds.** Rate limiting protects the service; it must not take it down.
//! Failing closed would answer every request 429 (or 500) during a Redis outage, turning a
//! cache incident into a full API outage. Failing wide open would leave the API unprotected
//! for as long as the outage lasts. So each instance falls back to its in-process windows:
//! the limits still hold, per instance (with N instances a key can get up to N times its
//! budget), until Redis answers again, and then the shared windows apply once more.
//!
//! While Redis is down, one call per second probes it and the others go straight to the
//! local windows, so an unreachable Redis (a timeout rather than a refusal) slows down one
//! request a second, not every request. The outage is logged once when it starts and once
//! when it ends; every decision taken locally is counted ([`FallbackRateStore::fallbacks`]).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use async_trait::async_trait;
use shop_domain::Timestamp;
use shop_domain::rate_limit::{RateBudget, RateStatus};
use shop_ports::port::{RateLimitStore, RateStoreError, Reservation, Slot};

use super::{InMemoryRateStore, RedisRateStore};

/// How often a degraded store tries Redis again.
const PROBE_INTERVAL_MILLIS: u64 = 1_000;

pub struct FallbackRateStore {
    primary: RedisRateStore,
    local: InMemoryRateStore,
    fallbacks: AtomicU64,
    outage: Outage,
}

impl FallbackRateStore {
    pub fn new(primary: RedisRateStore, local: InMemoryRateStore) -> Self {
        Self {
            primary,
            local,
            fallbacks: AtomicU64::new(0),
            outage: Outage::new(),
        }
    }

    /// How many decisions were taken on the local windows because Redis could not answer.
    pub fn fallbacks(&self) -> u64 {
        self.fallbacks.load(Ordering::Relaxed)
    }

    /// Whether Redis answers within `within`; if not, the outage starts now (and is logged).
    pub async fn check(&self, within: std::time::Duration) -> bool {
        match self.primary.check(within).await {
            Ok(()) => true,
            Err(error) => {
                self.outage.started(self.primary.address(), &error);
                false
            }
        }
    }

    /// `host:port` of Redis, without credentials.
    pub fn address(&self) -> &str {
        self.primary.address()
    }

    /// Whether the store is currently limiting per instance.
    pub fn is_degraded(&self) -> bool {
        self.outage.down.load(Ordering::Relaxed)
    }

    /// Asks Redis unless it is known to be down (then once a second), else the local
    /// windows. A reserved slot says which of the two counted it (`r:` or `l:`), so that
    /// it is given back where it was taken.
    async fn decide(
        &self,
        bucket: &str,
        budget: RateBudget,
        now: Timestamp,
        count_it: bool,
    ) -> Result<Reservation, RateStoreError> {
        if self.outage.should_try() {
            let shared = if count_it {
                self.primary.reserve(bucket, budget, now).await
            } else {
                self.primary
                    .peek(bucket, budget, now)
                    .await
                    .map(|status| Reservation { status, slot: None })
            };
            match shared {
                Ok(reservation) => {
                    self.outage.ended(self.primary.address());
                    return Ok(tagged(reservation, SHARED));
                }
                Err(error) => self.outage.started(self.primary.address(), &error),
            }
        }
        self.fallbacks.fetch_add(1, Ordering::Relaxed);
        if count_it {
            Ok(tagged(
                self.local.reserve(bucket, budget, now).await?,
                LOCAL,
            ))
        } else {
            let status = self.local.peek(bucket, budget, now).await?;
            Ok(Reservation { status, slot: None })
        }
    }
}

const SHARED: &str = "r:";
const LOCAL: &str = "l:";

fn tagged(reservation: Reservation, tag: &str) -> Reservation {
    Reservation {
        status: reservation.status,
        slot: reservation
            .slot
            .map(|slot| Slot::new(format!("{tag}{}", slot.as_str()))),
    }
}

#[async_trait]
impl RateLimitStore for FallbackRateStore {
    async fn acquire(
        &self,
        bucket: &str,
        budget: RateBudget,
        now: Timestamp,
    ) -> Result<RateStatus, RateStoreError> {
        Ok(self.decide(bucket, budget, now, true).await?.status)
    }

    async fn reserve(
        &self,
        bucket: &str,
        budget: RateBudget,
        now: Timestamp,
    ) -> Result<Reservation, RateStoreError> {
        self.decide(bucket, budget, now, true).await
    }

    /// A slot goes back to the store that counted it; one of Redis while Redis is down is
    /// not given back (it leaves the window on its own).
    async fn release(&self, bucket: &str, slot: &Slot) -> Result<(), RateStoreError> {
        if let Some(id) = slot.as_str().strip_prefix(SHARED) {
            self.primary.release(bucket, &Slot::new(id)).await
        } else if let Some(id) = slot.as_str().strip_prefix(LOCAL) {
            self.local.release(bucket, &Slot::new(id)).await
        } else {
            Ok(())
        }
    }

    async fn peek(
        &self,
        bucket: &str,
        budget: RateBudget,
        now: Timestamp,
    ) -> Result<RateStatus, RateStoreError> {
        Ok(self.decide(bucket, budget, now, false).await?.status)
    }
}

struct Outage {
    down: AtomicBool,
    origin: Instant,
    /// Milliseconds since `origin` before which nobody probes.
    next_probe: AtomicU64,
}

impl Outage {
    fn new() -> Self {
        Self {
            down: AtomicBool::new(false),
            origin: Instant::now(),
            next_probe: AtomicU64::new(0),
        }
    }

    fn elapsed_millis(&self) -> u64 {
        u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Always while Redis is up; during an outage, for one caller per probe interval.
    fn should_try(&self) -> bool {
        if !self.down.load(Ordering::Relaxed) {
            return true;
        }
        let now = self.elapsed_millis();
        let due = self.next_probe.load(Ordering::Relaxed);
        now >= due
            && self
                .next_probe
                .compare_exchange(
                    due,
                    now + PROBE_INTERVAL_MILLIS,
                    Ordering::AcqRel,
                    Ordering::Relaxed,
                )
                .is_ok()
    }

    fn started(&self, address: &str, error: &RateStoreError) {
        self.next_probe.store(
            self.elapsed_millis() + PROBE_INTERVAL_MILLIS,
            Ordering::Relaxed,
        );
        if !self.down.swap(true, Ordering::AcqRel) {
            tracing::warn!(
                redis = address,
                error = %error,
                cause = error_cause(error),
                "Redis is unreachable: rate limits now hold per instance until it answers again"
            );
        }
    }

    fn ended(&self, address: &str) {
        if self.down.swap(false, Ordering::AcqRel) {
            tracing::info!(
                redis = address,
                "Redis answers again: rate limits are shared again"
            );
        }
    }
}

fn error_cause(error: &RateStoreError) -> String {
    std::error::Error::source(error).map_or_else(String::new, ToString::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn during_an_outage_one_caller_per_interval_tries_redis() {
        let outage = Outage::new();
        assert!(outage.should_try() && outage.should_try(), "Redis is up");
        outage.started("127.0.0.1:1", &RateStoreError("refused".into()));
        assert!(!outage.should_try(), "the next probe is a second away");
        outage.next_probe.store(0, Ordering::Relaxed);
        assert!(outage.should_try(), "the probe is due");
        assert!(
            !outage.should_try(),
            "one caller probes, the others decide locally"
        );
        outage.ended("127.0.0.1:1");
        assert!(outage.should_try() && outage.should_try(), "Redis is back");
    }
}
