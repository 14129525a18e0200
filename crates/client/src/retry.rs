//! When and how long to wait before trying a request again.
//!
//! Every request this crate sends after a lost connection or a timeout is safe to repeat:
//! reads are reads; a stock or points adjustment and a client's creation always carry an
//! `Idempotency-Key` that stays the same on their retries, so a repeated one is replayed by
//! the server instead of being applied twice; a `PATCH` replaces the members it names, so
//! applying it twice leaves what applying it once does. A client's `PATCH` with `If-Match`
//! is never applied twice either, but its retry is refused (`412`) when the lost attempt was
//! applied: that error then says `maybe_applied`. The other writes (a webhook secret's
//! rotation, a test delivery) are repeated only after a 429 or a 503, which applied nothing.

use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{HeaderMap, RETRY_AFTER};

/// Why an attempt is repeated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RetryReason {
    /// `429 RATE_LIMITED`.
    RateLimited,
    /// `503 SERVICE_UNAVAILABLE`.
    ServiceUnavailable,
    /// The connection failed, was reset or timed out; no response was read.
    Transport,
}

/// A retry about to happen, as given to [`crate::ClientBuilder::on_retry`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryEvent {
    /// `GET`, `POST`, `PATCH`, ...
    pub method: String,
    /// The path called, e.g. `/api/v1/products`.
    pub path: String,
    /// How many attempts of this request have failed so far (1 on the first retry).
    pub failures: u32,
    pub reason: RetryReason,
    /// How long the client waits before the next attempt (the server's `Retry-After` when it
    /// sent one).
    pub wait: Duration,
    /// The `Idempotency-Key` the next attempt sends again (adjustments and client creates).
    pub idempotency_key: Option<String>,
}

pub(crate) type RetryHook = Arc<dyn Fn(&RetryEvent) + Send + Sync>;

/// The retry rules of a client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RetryPolicy {
    /// Retries after the first attempt (0: never retry).
    pub max_retries: u32,
    /// The first wait when the server says nothing (transport errors, no `Retry-After`),
    /// doubled on each further failure.
    pub backoff: Duration,
    /// The longest single wait the client accepts; a longer `Retry-After` ends the retries.
    pub max_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 3,
            backoff: Duration::from_millis(500),
            max_wait: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// The wait before the next attempt after `failures` failed attempts (1 or more), or
    /// `None` to give up. `retry_after` is the server's `Retry-After`, honoured exactly.
    pub(crate) fn delay(&self, failures: u32, retry_after: Option<Duration>) -> Option<Duration> {
        if failures == 0 || failures > self.max_retries {
            return None;
        }
        let wait = match retry_after {
            Some(wait) => wait,
            None => {
                let doublings = (failures - 1).min(16);
                self.backoff
                    .saturating_mul(1 << doublings)
                    .min(self.max_wait)
            }
        };
        (wait <= self.max_wait).then_some(wait)
    }
}

/// `Retry-After: <seconds>` (the API's form). An HTTP date is not parsed: the exponential
/// backoff applies instead.
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?;
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

/// Whether a failed send may be repeated: anything but a request that could not be built.
pub(crate) fn is_retryable(error: &reqwest::Error) -> bool {
    !error.is_builder() && !error.is_redirect()
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    #[test]
    fn retry_after_is_honoured_exactly_up_to_the_maximum_number_of_retries() {
        let policy = RetryPolicy::default();
        let two = Some(Duration::from_secs(2));
        assert_eq!(policy.delay(1, two), Some(Duration::from_secs(2)));
        assert_eq!(policy.delay(3, two), Some(Duration::from_secs(2)));
        assert_eq!(policy.delay(4, two), None, "3 retries by default");
        assert_eq!(
            RetryPolicy {
                max_retries: 0,
                ..policy.clone()
            }
            .delay(1, two),
            None
        );
    }

    #[test]
    fn without_retry_after_the_wait_doubles_and_is_capped() {
        let policy = RetryPolicy {
            max_retries: 10,
            backoff: Duration::from_millis(100),
            max_wait: Duration::from_millis(500),
        };
        let waits: Vec<_> = (1..=5).map(|n| policy.delay(n, None)).collect();
        assert_eq!(
            waits,
            [100, 200, 400, 500, 500].map(|ms| Some(Duration::from_millis(ms)))
        );
        assert_eq!(policy.delay(u32::MAX, None), None);
    }

    #[test]
    fn a_retry_after_longer_than_the_maximum_wait_gives_up() {
        let policy = RetryPolicy {
            max_wait: Duration::from_secs(10),
            ..RetryPolicy::default()
        };
        assert_eq!(policy.delay(1, Some(Duration::from_secs(11))), None);
        assert_eq!(
            policy.delay(1, Some(Duration::from_secs(10))),
            Some(Duration::from_secs(10))
        );
    }

    #[test]
    fn retry_after_seconds_are_parsed_and_anything_else_ignored() {
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after(&headers), None);
        headers.insert(RETRY_AFTER, HeaderValue::from_static("7"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(7)));
        headers.insert(
            RETRY_AFTER,
            HeaderValue::from_static("Wed, 21 Oct 2026 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&headers), None);
        headers.insert(RETRY_AFTER, HeaderValue::from_static("-1"));
        assert_eq!(retry_after(&headers), None);
    }
}
