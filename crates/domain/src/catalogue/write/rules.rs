//! The bounds of one member's value, whichever write carries it.

use url::Url;

use crate::money::Cents;
use crate::stock::MAX_ABS_STOCK;
use crate::text::{InvalidLabel, parse_label};
use crate::write::{self, MemberProblems};

/// SKUs, barcodes and EANs.
pub const MAX_CODE_CHARS: usize = 64;
/// `productType` is a code (the list filters on it exactly), not prose.
pub const MAX_PRODUCT_TYPE_CHARS: usize = 64;
/// `productType` of a create that gives none: the import's default.
pub const DEFAULT_PRODUCT_TYPE: &str = "simple";
pub const MAX_PHOTOS: usize = 20;
pub const MAX_PHOTO_URL_CHARS: usize = 2048;
/// Every price, from 0 (a free item) to 10^12 cents: exact in a JavaScript client (2^53), and
/// a line of any sane quantity stays within 64 bits.
pub const MAX_PRICE_CENTS: i64 = 1_000_000_000_000;
/// A variant's display position: room for gaps between a hundred variants (`0, 10, 20, …`),
/// small enough that an `order` is never mistaken for an id or a price.
pub const MAX_VARIANT_ORDER: i32 = 10_000;
/// Variants of one product, on a create and once added to: a product, not a catalogue.
pub const MAX_VARIANTS: usize = 100;

pub(super) fn price(cents: i64) -> Result<Cents, String> {
    if (0..=MAX_PRICE_CENTS).contains(&cents) {
        Ok(Cents(cents))
    } else {
        Err(format!("must be between 0 and {MAX_PRICE_CENTS}"))
    }
}

/// A threshold is compared with a stock, so it has a stock's bound; below 0 it would never
/// say "low" before the stock is negative.
pub(super) fn low_stock_threshold(threshold: i64) -> Result<i64, String> {
    if (0..=MAX_ABS_STOCK).contains(&threshold) {
        Ok(threshold)
    } else {
        Err(format!("must be between 0 and {MAX_ABS_STOCK}"))
    }
}

pub(super) fn order(order: i64) -> Result<i32, String> {
    i32::try_from(order)
        .ok()
        .filter(|order| (0..=MAX_VARIANT_ORDER).contains(order))
        .ok_or_else(|| format!("must be between 0 and {MAX_VARIANT_ORDER}"))
}

pub(super) fn product_type(raw: &str) -> Result<String, InvalidLabel> {
    parse_label(raw, MAX_PRODUCT_TYPE_CHARS)
}

/// A SKU, barcode or EAN: trimmed, at most 64 characters, no control character; blank is no
/// code.
pub(super) fn code(raw: &str) -> Result<Option<String>, InvalidLabel> {
    write::optional_text(raw, MAX_CODE_CHARS)
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum InvalidPhoto {
    #[error("must be at most {MAX_PHOTO_URL_CHARS} characters")]
    TooLong,
    #[error("must be an absolute URL such as https://example.com/photo.jpg")]
    NotAbsolute,
    #[error("must use https")]
    NotHttps,
    #[error("must not carry a user name or password")]
    Credentials,
}

/// An absolute `https` URL, stored as the URL standard writes it (one spelling per URL).
/// Credentials are refused: every reader of the product would see them.
pub(super) fn photo(raw: &str) -> Result<String, InvalidPhoto> {
    let too_long = |text: &str| text.chars().count() > MAX_PHOTO_URL_CHARS;
    if too_long(raw.trim()) {
        return Err(InvalidPhoto::TooLong);
    }
    let url = Url::parse(raw.trim()).map_err(|_| InvalidPhoto::NotAbsolute)?;
    if url.scheme() != "https" {
        return Err(InvalidPhoto::NotHttps);
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(InvalidPhoto::Credentials);
    }
    // Serialising may percent-encode: the stored form obeys the bound too.
    if too_long(url.as_str()) {
        return Err(InvalidPhoto::TooLong);
    }
    Ok(url.into())
}

/// At most 20 photos, each checked under its own path (`photos[3]`).
pub(super) fn photos(problems: &mut MemberProblems, raw: &[String]) -> Option<Vec<String>> {
    if raw.len() > MAX_PHOTOS {
        problems.push("photos", format!("must hold at most {MAX_PHOTOS} photos"));
        return None;
    }
    let checked: Vec<Option<String>> = raw
        .iter()
        .enumerate()
        .map(|(index, url)| problems.check(&format!("photos[{index}]"), photo(url)))
        .collect();
    checked.into_iter().collect()
}

/// A nullable text member: absent stays absent; `null` and a blank text clear it; any other
/// text is held to `rule`.
pub(super) fn nullable_text<T, E: ToString>(
    problems: &mut MemberProblems,
    path: &str,
    given: Option<Option<String>>,
    rule: impl FnOnce(&str) -> Result<Option<T>, E>,
) -> Option<Option<T>> {
    match given? {
        None => Some(None),
        Some(raw) if raw.trim().is_empty() => Some(None),
        Some(raw) => problems.check(path, rule(&raw)),
    }
}

/// A nullable price: absent stays absent, `null` clears it.
pub(super) fn nullable_price(
    problems: &mut MemberProblems,
    path: &str,
    given: Option<Option<i64>>,
) -> Option<Option<Cents>> {
    match given? {
        None => Some(None),
        Some(cents) => problems.check(path, price(cents)).map(Some),
    }
}
