//! `serialize_with` helpers for fields that a DTO keeps as their domain value (a timestamp, a
//! tax rate, a colour) and that JSON shows as a string. Each value hands its text over in one
//! piece (`ShortText`), written with one `serialize_str`: a page carries several per row, where
//! a `String` field would allocate and copy each, and `fmt` through serde's `collect_str` cost
//! a few percent of a list page's CPU (docs/PERFORMANCE.md, "One parent decoded once").

use serde::Serializer;
use shop_domain::Timestamp;
use shop_domain::color::HexColor;
use shop_domain::tax_rate::TaxRate;

/// A value whose text the API shows, made without `fmt`.
pub trait ShortText {
    fn with_text<R>(&self, write: impl FnOnce(&str) -> R) -> R;
}

impl ShortText for Timestamp {
    fn with_text<R>(&self, write: impl FnOnce(&str) -> R) -> R {
        match self.rfc3339_text() {
            Some(text) => write(text.as_str()),
            None => write(&self.to_rfc3339()),
        }
    }
}

impl ShortText for TaxRate {
    fn with_text<R>(&self, write: impl FnOnce(&str) -> R) -> R {
        write(self.text().as_str())
    }
}

impl ShortText for &HexColor {
    fn with_text<R>(&self, write: impl FnOnce(&str) -> R) -> R {
        write(self.as_str())
    }
}

pub fn serialize<T: ShortText, S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
    value.with_text(|text| serializer.serialize_str(text))
}

/// `null` for `None`, like the plain `Option` fields.
pub fn serialize_optional<T: ShortText, S: Serializer>(
    value: &Option<T>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(value) => serialize(value, serializer),
        None => serializer.serialize_none(),
    }
}
