//! When a failed delivery is tried again. The default waits between attempts (5 s, 1 min,
//! 5 min, 30 min, 2 h, 6 h, 12 h, 24 h, 24 h: ten attempts over about three days, as Stripe)
//! are spread by ±20% so that the retries of one outage do not all land in the same second;
//! an operator's schedule (`WEBHOOK_RETRY_SCHEDULE`) is kept exactly, which is what tests
//! need. A receiver's `Retry-After` on a 429 or 503 is a floor under the next wait.

use std::time::Duration;

use time::PrimitiveDateTime;
use time::macros::format_description;

use crate::Timestamp;

const MINUTE: u64 = 60;
const HOUR: u64 = 60 * MINUTE;
const DEFAULT_WAITS_S: [u64; 9] = [
    5,
    MINUTE,
    5 * MINUTE,
    30 * MINUTE,
    2 * HOUR,
    6 * HOUR,
    12 * HOUR,
    24 * HOUR,
    24 * HOUR,
];
/// How far the default waits are spread, each way.
const JITTER: f64 = 0.2;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetrySchedule {
    waits: Vec<Duration>,
    jittered: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "expected comma-separated durations such as `1s,2s,4s` (units ms, s, m, h, d), found `{0}`"
)]
pub struct RetryScheduleError(pub String);

impl Default for RetrySchedule {
    fn default() -> Self {
        Self {
            waits: DEFAULT_WAITS_S
                .iter()
                .map(|s| Duration::from_secs(*s))
                .collect(),
            jittered: true,
        }
    }
}

impl RetrySchedule {
    /// `WEBHOOK_RETRY_SCHEDULE`: the waits between attempts, kept exactly (no jitter). An
    /// empty list means a single attempt.
    pub fn parse(text: &str) -> Result<Self, RetryScheduleError> {
        let waits = text
            .split(',')
            .map(str::trim)
            .filter(|part| !part.is_empty())
            .map(|part| parse_duration(part).ok_or_else(|| RetryScheduleError(part.to_owned())))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            waits,
            jittered: false,
        })
    }

    /// The attempts an event gets at most: the first and one after each wait.
    pub fn max_attempts(&self) -> u32 {
        u32::try_from(self.waits.len()).map_or(u32::MAX, |waits| waits.saturating_add(1))
    }

    /// The wait after failed attempt number `attempt` (1 for the first), or `None` when it was
    /// the last. `spread` is a random number in [-1, 1] (the caller's, since this crate draws
    /// none); it moves a default wait by up to ±20% and a configured one not at all.
    /// `retry_after` is the receiver's own floor.
    pub fn wait_after(
        &self,
        attempt: u32,
        spread: f64,
        retry_after: Option<Duration>,
    ) -> Option<Duration> {
        let index = usize::try_from(attempt.checked_sub(1)?).ok()?;
        let wait = *self.waits.get(index)?;
        let wait = if self.jittered {
            wait.mul_f64(1.0 + JITTER * spread.clamp(-1.0, 1.0))
        } else {
            wait
        };
        Some(retry_after.map_or(wait, |floor| wait.max(floor)))
    }
}

fn parse_duration(text: &str) -> Option<Duration> {
    let split = text.find(|c: char| !c.is_ascii_digit())?;
    let (number, unit) = text.split_at(split);
    let number: u64 = number.parse().ok()?;
    let unit_ms: u64 = match unit.trim() {
        "ms" => 1,
        "s" => 1_000,
        "m" | "min" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return None,
    };
    number.checked_mul(unit_ms).map(Duration::from_millis)
}

/// A receiver's `Retry-After` (RFC 9110 §10.2.3): delay-seconds, or an HTTP date from which
/// the wait is counted at `now`. `None` for anything else, which is then ignored.
pub fn parse_retry_after(value: &str, now: Timestamp) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        return value.parse().ok().map(Duration::from_secs);
    }
    let format = format_description!(
        "[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT"
    );
    let at = PrimitiveDateTime::parse(value, format).ok()?.assume_utc();
    let wait_ms = Timestamp::from_datetime(at)
        .millis()
        .saturating_sub(now.millis());
    Some(Duration::from_millis(u64::try_from(wait_ms).unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_secs;

    #[test]
    fn the_default_waits_are_strides_of_about_three_days_spread_by_a_fifth() {
        let schedule = RetrySchedule::default();
        assert_eq!(schedule.max_attempts(), 10);
        assert_eq!(schedule.wait_after(1, 0.0, None), Some(S(5)));
        assert_eq!(schedule.wait_after(2, 0.0, None), Some(S(60)));
        assert_eq!(schedule.wait_after(9, 0.0, None), Some(S(86_400)));
        assert_eq!(schedule.wait_after(10, 0.0, None), None);
        assert_eq!(schedule.wait_after(0, 0.0, None), None);
        assert_eq!(schedule.wait_after(1, 1.0, None), Some(S(6)));
        assert_eq!(schedule.wait_after(1, -1.0, None), Some(S(4)));
        assert_eq!(schedule.wait_after(4, 7.0, None), Some(S(36 * 60)));
        // About three days from the first attempt to the last: 2 days 20 h 36 min 5 s.
        let total: u64 = DEFAULT_WAITS_S.iter().sum();
        assert_eq!(total, 2 * 86_400 + 20 * 3_600 + 36 * 60 + 5);
    }

    #[test]
    fn a_configured_schedule_is_kept_exactly() {
        let schedule = RetrySchedule::parse("1s, 2s,500ms,1m").expect("valid");
        assert_eq!(schedule.max_attempts(), 5);
        assert_eq!(schedule.wait_after(1, 1.0, None), Some(S(1)));
        assert_eq!(
            schedule.wait_after(3, -1.0, None),
            Some(Duration::from_millis(500))
        );
        assert_eq!(schedule.wait_after(4, 0.3, None), Some(S(60)));
        assert_eq!(schedule.wait_after(5, 0.0, None), None);
        assert_eq!(RetrySchedule::parse("").map(|s| s.max_attempts()), Ok(1));
    }

    #[test]
    fn a_schedule_that_is_not_durations_is_refused_naming_the_part() {
        for (text, part) in [
            ("1s,2x", "2x"),
            ("s", "s"),
            ("1.5s", "1.5s"),
            ("-1s", "-1s"),
        ] {
            assert_eq!(
                RetrySchedule::parse(text),
                Err(RetryScheduleError(part.into()))
            );
        }
    }

    #[test]
    fn retry_after_is_a_floor_under_the_wait_never_a_ceiling() {
        let schedule = RetrySchedule::parse("1s,1s").expect("valid");
        assert_eq!(schedule.wait_after(1, 0.0, Some(S(30))), Some(S(30)));
        let long = RetrySchedule::parse("1h").expect("valid");
        assert_eq!(long.wait_after(1, 0.0, Some(S(30))), Some(S(3600)));
        assert_eq!(long.wait_after(2, 0.0, Some(S(30))), None);
    }

    #[test]
    fn retry_after_reads_seconds_or_an_http_date() {
        let now = Timestamp::parse_rfc3339("2026-11-27T10:00:00Z").expect("valid");
        assert_eq!(parse_retry_after("120", now), Some(S(120)));
        assert_eq!(
            parse_retry_after("Fri, 27 Nov 2026 10:01:30 GMT", now),
            Some(S(90))
        );
        assert_eq!(
            parse_retry_after("Fri, 27 Nov 2026 09:00:00 GMT", now),
            Some(S(0))
        );
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-5", now), None);
    }
}
