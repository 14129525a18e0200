//! A timestamp's API text (`2026-11-21T09:30:00.000Z`) made in a fixed buffer, digit by digit:
//! response bodies carry several timestamps per row, and `time`'s format-description formatter
//! cost a share of a list page's CPU (docs/performance-log.md, "Timestamps written without a format
//! description"). It writes what `Timestamp`'s `Display` writes; a test holds it to it.

use shop_domain::Timestamp;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Rfc3339Text([u8; 24]);

impl Rfc3339Text {
    /// `None` for a year before 0 or after 9999 (only absurd stored values): `Display` writes
    /// those.
    pub(crate) fn of(at: Timestamp) -> Option<Self> {
        let at = at.to_datetime();
        let year = u16::try_from(at.year()).ok().filter(|year| *year <= 9999)?;
        let mut text = *b"0000-00-00T00:00:00.000Z";
        put_digits(&mut text[0..4], year);
        put_digits(&mut text[5..7], u16::from(u8::from(at.month())));
        put_digits(&mut text[8..10], u16::from(at.day()));
        put_digits(&mut text[11..13], u16::from(at.hour()));
        put_digits(&mut text[14..16], u16::from(at.minute()));
        put_digits(&mut text[17..19], u16::from(at.second()));
        put_digits(&mut text[20..23], at.millisecond());
        Some(Self(text))
    }

    pub(crate) fn as_str(&self) -> &str {
        // Only ASCII digits were written into an ASCII template.
        std::str::from_utf8(&self.0).unwrap_or("1970-01-01T00:00:00.000Z")
    }
}

/// Writes `value`'s last `slot.len()` decimal digits, zero-padded, into `slot`.
fn put_digits(slot: &mut [u8], mut value: u16) {
    for digit in slot.iter_mut().rev() {
        *digit = b'0' + (value % 10) as u8;
        value /= 10;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Timestamp {
        Timestamp::parse_rfc3339(text).unwrap()
    }

    #[test]
    fn writes_what_display_writes_across_centuries_and_leap_days() {
        let day = 86_400_000_i64;
        // A step of 29 days and an odd number of milliseconds lands on every day of the month,
        // hour, minute, second and millisecond digit over the years, leap days included.
        let mut millis = at("0000-01-01T00:00:00Z").millis();
        let end = at("9999-12-31T23:59:59.999Z").millis();
        while millis <= end {
            let at = Timestamp::from_millis(millis);
            let text = Rfc3339Text::of(at).map(|text| text.as_str().to_owned());
            assert_eq!(text, Some(at.to_string()), "{millis}");
            millis += 29 * day + 3_601_337;
        }
        let leap = at("2024-02-29T23:59:59.999Z");
        assert_eq!(
            Rfc3339Text::of(leap).unwrap().as_str(),
            "2024-02-29T23:59:59.999Z"
        );
    }

    #[test]
    fn years_before_zero_are_left_to_display() {
        assert!(Rfc3339Text::of(at("0000-01-01T00:00:00Z").plus_millis(-1)).is_none());
    }
}
