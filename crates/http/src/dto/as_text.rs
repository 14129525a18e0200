//! `serialize_with` helpers for fields that a DTO keeps as their domain value (a timestamp, a
//! tax rate, a colour) and that JSON shows as a string: `serde_json` writes the value's
//! `Display` straight into the body, escaping as it goes, where a `String` field would first
//! allocate and copy the text for every row of a page.

use std::fmt::Display;

use serde::Serializer;

pub fn serialize<T: Display, S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

/// `null` for `None`, like the plain `Option` fields.
pub fn serialize_optional<T: Display, S: Serializer>(
    value: &Option<T>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(value) => serializer.collect_str(value),
        None => serializer.serialize_none(),
    }
}
