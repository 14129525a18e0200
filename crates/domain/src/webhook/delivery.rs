//! What an attempt's answer means, and which of a resource's pending events is sent.
//!
//! A delivery carries the whole resource, so for one endpoint and one resource only the newest
//! undelivered event matters: an attempt sends it, and the older pending ones are superseded
//! (never sent again, still listed by `GET /api/v2/events`). A receiver that stores what it is
//! sent therefore always ends on the latest state, and a failing old event never holds back a
//! newer one.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::Timestamp;
use crate::id::{DeliveryId, EventId};

use super::event_type::EventType;

/// One row of `GET /webhook-endpoints/{id}/deliveries`: an attempt made, or an event waiting
/// (`pending`) or `superseded`. Attempts of one delivery share its id and differ by `attempt`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeliveryLine {
    pub id: DeliveryId,
    pub event_id: EventId,
    pub event_type: EventType,
    /// The attempt's number from 1; `None` for an event not yet tried.
    pub attempt: Option<u32>,
    pub status: DeliveryStatus,
    pub response_status: Option<u16>,
    pub duration_ms: Option<i64>,
    pub error: Option<String>,
    pub created_at: Timestamp,
    /// When a pending delivery is tried next.
    pub next_attempt_at: Option<Timestamp>,
}

impl DeliveryLine {
    /// What orders two lines of one instant, and names a line in a page's cursor: an
    /// attempt's number after its delivery's id (`dlv_…/0003`); a waiting event's, the id
    /// alone.
    pub fn row_key(&self) -> String {
        match self.attempt {
            Some(attempt) => attempt_key(&self.id, attempt),
            None => self.id.as_str().to_owned(),
        }
    }
}

/// The stored key of a delivery's attempt number `attempt`: unique, since one attempt of a
/// delivery is in flight at a time, and ordered after its delivery's.
pub fn attempt_key(delivery: &DeliveryId, attempt: u32) -> String {
    format!("{delivery}/{attempt:04}")
}

/// How long a receiver has to answer before the attempt counts as failed.
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);
/// The most of a receiver's answer kept with an attempt.
pub const RESPONSE_EXCERPT_BYTES: usize = 1024;

/// A row of an endpoint's deliveries: an attempt made (`succeeded`, `failed`), an event waiting
/// for its first or next attempt (`pending`), or one a newer event of its resource replaced
/// (`superseded`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeliveryStatus {
    Pending,
    Succeeded,
    Failed,
    Superseded,
}

impl DeliveryStatus {
    pub const ALL: [DeliveryStatus; 4] = [
        DeliveryStatus::Pending,
        DeliveryStatus::Succeeded,
        DeliveryStatus::Failed,
        DeliveryStatus::Superseded,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            DeliveryStatus::Pending => "pending",
            DeliveryStatus::Succeeded => "succeeded",
            DeliveryStatus::Failed => "failed",
            DeliveryStatus::Superseded => "superseded",
        }
    }
}

impl fmt::Display for DeliveryStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected one of pending, succeeded, failed, superseded")]
pub struct UnknownDeliveryStatus;

impl FromStr for DeliveryStatus {
    type Err = UnknownDeliveryStatus;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        DeliveryStatus::ALL
            .into_iter()
            .find(|status| status.as_str() == text)
            .ok_or(UnknownDeliveryStatus)
    }
}

/// What one attempt's answer (or its absence) means for the event and its endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttemptOutcome {
    /// A 2xx in time.
    Delivered,
    /// Anything else: tried again on the schedule, no sooner than the receiver's
    /// `Retry-After` when a 429 or 503 gave one.
    Failed { retry_after: Option<Duration> },
    /// A 410: the receiver says the endpoint is gone, and it is disabled at once.
    Gone,
}

impl AttemptOutcome {
    /// `status` is `None` when no answer came in time (refused, reset, timed out, an address
    /// the rules refuse). `retry_after` is the answer's parsed `Retry-After`, honoured on a
    /// 429 or 503 only, as RFC 9110 defines it for them.
    pub fn of(status: Option<u16>, retry_after: Option<Duration>) -> Self {
        match status {
            Some(200..=299) => AttemptOutcome::Delivered,
            Some(410) => AttemptOutcome::Gone,
            Some(429 | 503) => AttemptOutcome::Failed { retry_after },
            _ => AttemptOutcome::Failed { retry_after: None },
        }
    }
}

/// Of one endpoint's pending events for one resource, in commit order: the one an attempt
/// sends (the newest) and the ones it supersedes. `None` when nothing is pending.
pub fn newest_and_superseded<T>(mut pending: Vec<T>) -> Option<(T, Vec<T>)> {
    let newest = pending.pop()?;
    Some((newest, pending))
}

/// Whether an endpoint whose deliveries have all failed since `failing_since` (its first
/// failure after its last success) is disabled as `failing` at `now`.
pub fn failing_for_too_long(
    failing_since: Option<Timestamp>,
    now: Timestamp,
    disable_after: Duration,
) -> bool {
    let limit = i64::try_from(disable_after.as_millis()).unwrap_or(i64::MAX);
    failing_since.is_some_and(|since| now.millis().saturating_sub(since.millis()) >= limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_2xx_delivers_a_410_is_gone_and_everything_else_fails() {
        assert_eq!(
            AttemptOutcome::of(Some(200), None),
            AttemptOutcome::Delivered
        );
        assert_eq!(
            AttemptOutcome::of(Some(204), None),
            AttemptOutcome::Delivered
        );
        assert_eq!(AttemptOutcome::of(Some(410), None), AttemptOutcome::Gone);
        for status in [Some(301), Some(400), Some(404), Some(500), None] {
            assert_eq!(
                AttemptOutcome::of(status, Some(Duration::from_secs(9))),
                AttemptOutcome::Failed { retry_after: None },
                "{status:?}"
            );
        }
    }

    #[test]
    fn retry_after_counts_on_a_429_or_a_503_only() {
        let floor = Some(Duration::from_secs(30));
        for status in [429, 503] {
            assert_eq!(
                AttemptOutcome::of(Some(status), floor),
                AttemptOutcome::Failed { retry_after: floor }
            );
        }
    }

    #[test]
    fn the_newest_pending_event_is_sent_and_the_older_ones_are_superseded() {
        assert_eq!(newest_and_superseded(Vec::<u32>::new()), None);
        assert_eq!(newest_and_superseded(vec![1]), Some((1, vec![])));
        assert_eq!(newest_and_superseded(vec![1, 2, 3]), Some((3, vec![1, 2])));
    }

    #[test]
    fn an_endpoint_is_disabled_once_every_delivery_failed_for_the_whole_period() {
        let day = 86_400_000;
        let five_days = Duration::from_secs(5 * 86_400);
        let now = Timestamp::from_millis(10 * day);
        let since = |days: i64| Some(Timestamp::from_millis(now.millis() - days * day));
        assert!(!failing_for_too_long(None, now, five_days));
        assert!(!failing_for_too_long(since(4), now, five_days));
        assert!(failing_for_too_long(since(5), now, five_days));
        assert!(failing_for_too_long(since(6), now, five_days));
    }

    #[test]
    fn delivery_statuses_read_back_from_the_query_parameter() {
        for status in DeliveryStatus::ALL {
            assert_eq!(status.as_str().parse(), Ok(status));
        }
        assert_eq!("done".parse::<DeliveryStatus>(), Err(UnknownDeliveryStatus));
    }
}
