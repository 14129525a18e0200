//! `serialize_with` helpers for fields that a DTO keeps as their domain value (a timestamp, a
//! tax rate, a colour) and that JSON shows as a string. Each value hands its text over in one
//! piece (`ShortText`), written with one `serialize_str`: a page carries several per row, where
//! a `String` field would allocate and copy each, and `fmt` through serde's `collect_str` cost
//! a measurable share of a list page's CPU (docs/performance-log.md, "One parent decoded
//! once").

mod rfc3339;
mod tax_rate;

use serde::Serializer;
use shop_domain::Timestamp;
use shop_domain::color::HexColor;
use shop_domain::tax_rate::TaxRate;

use rfc3339::Rfc3339Text;
use tax_rate::TaxRateText;

/// A value whose text the API shows, made without `fmt`.
pub trait ShortText {
    fn with_text<R>(&self, write: impl FnOnce(&str) -> R) -> R;
}

impl ShortText for Timestamp {
    fn with_text<R>(&self, write: impl FnOnce(&str) -> R) -> R {
        match Rfc3339Text::of(*self) {
            Some(text) => write(text.as_str()),
            None => write(&self.to_rfc3339()),
        }
    }
}

impl ShortText for TaxRate {
    fn with_text<R>(&self, write: impl FnOnce(&str) -> R) -> R {
        write(TaxRateText::of(*self).as_str())
    }
}

impl ShortText for &HexColor {
    fn with_text<R>(&self, write: impl FnOnce(&str) -> R) -> R {
        write(self.as_str())
    }
}

/// The API's text of a timestamp, for a DTO field that holds it as a `String`.
pub fn rfc3339(at: Timestamp) -> String {
    at.with_text(str::to_owned)
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
