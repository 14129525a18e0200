//! `dateFrom` / `dateTo`: an RFC 3339 instant, or a `YYYY-MM-DD` date in UTC. A date-only
//! `dateTo` includes its whole day (up to 23:59:59.999); a date-only `dateFrom` starts at
//! 00:00:00.000.

use crate::Timestamp;
use crate::day::{parse_day, start_of};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DateRangeError {
    #[error("expected an RFC 3339 instant (2026-11-21T09:30:00Z) or a date (2026-11-21)")]
    Invalid,
    #[error("must not be after dateTo")]
    FromAfterTo,
}

/// The first instant included.
pub fn parse_date_from(text: &str) -> Result<Timestamp, DateRangeError> {
    match parse_day(text) {
        Some(date) => Ok(start_of(date)),
        None => Timestamp::parse_rfc3339(text).map_err(|_| DateRangeError::Invalid),
    }
}

/// The last instant included.
pub fn parse_date_to(text: &str) -> Result<Timestamp, DateRangeError> {
    match parse_day(text) {
        Some(date) => {
            let next_day = date.next_day().ok_or(DateRangeError::Invalid)?;
            Ok(start_of(next_day).plus_millis(-1))
        }
        None => Timestamp::parse_rfc3339(text).map_err(|_| DateRangeError::Invalid),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_only_range_covers_whole_days() {
        assert_eq!(
            parse_date_from("2026-11-21").unwrap().to_rfc3339(),
            "2026-11-21T00:00:00.000Z"
        );
        assert_eq!(
            parse_date_to("2026-11-21").unwrap().to_rfc3339(),
            "2026-11-21T23:59:59.999Z"
        );
        assert_eq!(
            parse_date_to("2024-02-28").unwrap().to_rfc3339(),
            "2024-02-28T23:59:59.999Z"
        );
    }

    #[test]
    fn instants_are_taken_as_given() {
        assert_eq!(
            parse_date_to("2026-11-21T10:00:00+01:00")
                .unwrap()
                .to_rfc3339(),
            "2026-11-21T09:00:00.000Z"
        );
    }

    #[test]
    fn other_shapes_are_refused() {
        for bad in [
            "2026-11-31",
            "21/11/2026",
            "2026-11-21T09:30",
            "today",
            "",
            "2026-1-2",
        ] {
            assert_eq!(parse_date_from(bad), Err(DateRangeError::Invalid), "{bad}");
            assert_eq!(parse_date_to(bad), Err(DateRangeError::Invalid), "{bad}");
        }
    }
}
