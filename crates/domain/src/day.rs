//! Calendar days as the API and the console write them: `YYYY-MM-DD`, in UTC.

use time::macros::format_description;
use time::{Date, OffsetDateTime, Time};

use crate::Timestamp;

pub(crate) fn parse_day(text: &str) -> Option<Date> {
    Date::parse(text, format_description!("[year]-[month]-[day]")).ok()
}

/// The first instant of `date`, UTC.
pub(crate) fn start_of(date: Date) -> Timestamp {
    Timestamp::from_datetime(OffsetDateTime::new_utc(date, Time::MIDNIGHT))
}
