//! The writers' half of the sync contract (`shop_domain::sync`): rows stamped with a time
//! commit within `MAX_WRITE_SPAN_MS` of it, so that a sync's checkpoint, set that far (plus
//! the clocks' allowance) behind its read, never passes a change still to commit.
//!
//! The stamp is the caller's clock read just before the repository call, so the span is
//! measured from the call: a monotonic clock, whatever the caller's clock says (a test's fixed
//! one included).

use std::time::{Duration, Instant};

use shop_domain::Timestamp;
use shop_domain::sync::MAX_WRITE_SPAN_MS;

use crate::error::DbError;

pub(crate) struct WriteSpan {
    started: Instant,
}

impl WriteSpan {
    const LIMIT: Duration = Duration::from_millis(MAX_WRITE_SPAN_MS.unsigned_abs());

    pub(crate) fn start() -> Self {
        Self {
            started: Instant::now(),
        }
    }

    /// `Err` once the write has taken longer than the contract allows: the transaction must
    /// roll back (the caller answers "unavailable, retry", and a retry stamps anew).
    pub(crate) fn check(&self) -> Result<(), DbError> {
        self.check_within(Self::LIMIT)
    }

    fn check_within(&self, limit: Duration) -> Result<(), DbError> {
        let elapsed = self.started.elapsed();
        if elapsed > limit {
            Err(DbError::WriteSpanExceeded(elapsed))
        } else {
            Ok(())
        }
    }

    /// The time `stamp` (taken when the write started) has become, if the write has taken more
    /// than `threshold` so far: a long write stamps its rows again with it before committing.
    pub(crate) fn restamp_after(&self, stamp: Timestamp, threshold: Duration) -> Option<Timestamp> {
        let elapsed = self.started.elapsed();
        (elapsed > threshold).then(|| {
            stamp.plus_millis(i64::try_from(elapsed.as_millis()).unwrap_or(MAX_WRITE_SPAN_MS))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_past_its_span_is_refused_and_a_long_one_is_stamped_later() {
        let span = WriteSpan::start();
        std::thread::sleep(Duration::from_millis(3));
        assert!(span.check().is_ok(), "well within 30 s");
        assert!(matches!(
            span.check_within(Duration::from_millis(1)),
            Err(DbError::WriteSpanExceeded(_))
        ));
        let stamp = Timestamp::from_millis(1_000);
        assert_eq!(span.restamp_after(stamp, Duration::from_secs(60)), None);
        let later = span.restamp_after(stamp, Duration::ZERO).unwrap();
        assert!(later.millis() >= 1_003, "{later:?}");
    }
}
