//! Instants as whole milliseconds since the Unix epoch, in UTC.
//!
//! Milliseconds because that is the precision of the API's timestamps and the finest precision
//! both databases keep identically (SQLite would keep nanoseconds, PostgreSQL microseconds),
//! so equality and keyset cursors agree on both.

use std::fmt;

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected an RFC 3339 timestamp such as 2026-11-21T09:30:00Z")]
pub struct InvalidTimestamp;

impl Timestamp {
    pub const fn from_millis(millis: i64) -> Self {
        Self(millis)
    }

    pub const fn millis(self) -> i64 {
        self.0
    }

    /// Truncates to the millisecond.
    pub fn from_datetime(at: OffsetDateTime) -> Self {
        let nanos = at.unix_timestamp_nanos();
        Self(nanos.div_euclid(1_000_000) as i64)
    }

    /// Parses an RFC 3339 instant with an explicit offset (`Z` or `+02:00`); sub-millisecond
    /// digits are truncated.
    pub fn parse_rfc3339(text: &str) -> Result<Self, InvalidTimestamp> {
        OffsetDateTime::parse(text.trim(), &Rfc3339)
            .map(Self::from_datetime)
            .map_err(|_| InvalidTimestamp)
    }

    pub fn to_datetime(self) -> OffsetDateTime {
        // Every i64 millisecond count that the database can hold is far inside time's range
        // only for plausible dates; clamp rather than panic on absurd stored values.
        OffsetDateTime::from_unix_timestamp_nanos(i128::from(self.0) * 1_000_000)
            .unwrap_or(OffsetDateTime::UNIX_EPOCH)
    }

    /// The API's rendering: UTC, milliseconds, `Z` (`2026-11-21T09:30:00.000Z`).
    pub fn to_rfc3339(self) -> String {
        self.to_string()
    }

    /// `time`'s general formatter: the renderer for years before 0, and the reference the
    /// tests hold the fast one to.
    fn formatted_by_description(self) -> String {
        let format = format_description!(
            "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
        );
        self.to_datetime()
            .format(&format)
            .unwrap_or_else(|_| String::from("1970-01-01T00:00:00.000Z"))
    }

    pub const fn plus_millis(self, millis: i64) -> Self {
        Self(self.0.saturating_add(millis))
    }

    /// The start of this instant's minute (UTC).
    pub const fn floor_to_minute(self) -> Self {
        Self(self.0 - self.0.rem_euclid(60_000))
    }

    pub const fn millis_since(self, earlier: Timestamp) -> i64 {
        self.0.saturating_sub(earlier.0)
    }

    /// The stamp (`updatedAt`) of a change made at `self` to a resource last stamped `last`:
    /// `self`, or a millisecond after `last` when `self` is not later (a change in the same
    /// millisecond, one that waited for a concurrent change stamped later, a clock stepped
    /// back). A resource's stamps thus strictly increase in commit order, so that a receiver
    /// comparing `updatedAt` tells any two of its states apart (docs/api-decisions.md, the
    /// sync contract). The SQL form is `sql/stamp.rs`'s in the persistence crate.
    pub const fn stamp_after(self, last: Timestamp) -> Timestamp {
        if last.0 < self.0 {
            self
        } else {
            Self(last.0.saturating_add(1))
        }
    }
}

/// The API's rendering (`2026-11-21T09:30:00.000Z`).
impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = self.to_datetime();
        if (0..=9999).contains(&at.year()) {
            write!(
                f,
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
                at.year(),
                u8::from(at.month()),
                at.day(),
                at.hour(),
                at.minute(),
                at.second(),
                at.millisecond()
            )
        } else {
            // Years before 0 only come from absurd stored values; time's general formatter
            // knows how to write them.
            f.write_str(&self.formatted_by_description())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_utc_with_milliseconds() {
        let at = Timestamp::parse_rfc3339("2026-11-21T10:30:00.123456+01:00").unwrap();
        assert_eq!(at.to_rfc3339(), "2026-11-21T09:30:00.123Z");
    }

    #[test]
    fn floors_to_the_minute_before_the_epoch_too() {
        let at = Timestamp::parse_rfc3339("2026-11-21T09:30:59.999Z").unwrap();
        assert_eq!(
            at.floor_to_minute().to_rfc3339(),
            "2026-11-21T09:30:00.000Z"
        );
        assert_eq!(
            Timestamp::from_millis(-1).floor_to_minute().millis(),
            -60_000
        );
    }

    #[test]
    fn a_change_is_stamped_after_the_last_even_in_the_same_millisecond_or_earlier() {
        let last = Timestamp::from_millis(9_000);
        assert_eq!(
            Timestamp::from_millis(9_500).stamp_after(last).millis(),
            9_500
        );
        assert_eq!(
            Timestamp::from_millis(9_000).stamp_after(last).millis(),
            9_001
        );
        assert_eq!(
            Timestamp::from_millis(6_000).stamp_after(last).millis(),
            9_001
        );
    }

    #[test]
    fn whole_seconds_render_three_zero_digits() {
        let at = Timestamp::parse_rfc3339("2026-11-21T09:30:00Z").unwrap();
        assert_eq!(at.to_rfc3339(), "2026-11-21T09:30:00.000Z");
        assert_eq!(at.millis() % 1000, 0);
    }

    #[test]
    fn refuses_dates_without_offset_and_garbage() {
        for bad in [
            "2026-11-21",
            "2026-11-21T09:30:00",
            "yesterday",
            "",
            "2026-13-01T00:00:00Z",
        ] {
            assert_eq!(
                Timestamp::parse_rfc3339(bad),
                Err(InvalidTimestamp),
                "{bad}"
            );
        }
    }

    #[test]
    fn renders_as_the_format_description_does_across_centuries_and_leap_days() {
        let day = 86_400_000_i64;
        // A step of 29 days and an odd number of milliseconds lands on every day of the month,
        // hour, minute, second and millisecond digit over the years, leap days included.
        let mut millis = Timestamp::parse_rfc3339("0001-01-01T00:00:00Z")
            .unwrap()
            .millis();
        let end = Timestamp::parse_rfc3339("9999-12-31T23:59:59.999Z")
            .unwrap()
            .millis();
        while millis <= end {
            let at = Timestamp::from_millis(millis);
            assert_eq!(at.to_rfc3339(), at.formatted_by_description(), "{millis}");
            millis += 29 * day + 3_601_337;
        }
        let leap = Timestamp::parse_rfc3339("2024-02-29T23:59:59.999Z").unwrap();
        assert_eq!(leap.to_string(), "2024-02-29T23:59:59.999Z");
    }

    #[test]
    fn years_before_zero_still_render() {
        let at = Timestamp::parse_rfc3339("0000-01-01T00:00:00Z")
            .unwrap()
            .plus_millis(-1);
        assert_eq!(at.to_rfc3339(), at.formatted_by_description());
        assert!(at.to_rfc3339().starts_with('-'), "{}", at.to_rfc3339());
    }

    #[test]
    fn truncates_before_the_epoch_towards_the_past() {
        let at = Timestamp::parse_rfc3339("1969-12-31T23:59:59.9999Z").unwrap();
        assert_eq!(at.millis(), -1);
    }
}
