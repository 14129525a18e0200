//! What `GET /products` selects and in which order.

use std::str::FromStr;

use crate::Timestamp;
use crate::id::{BrandId, CategoryId, ProductId};
use crate::pagination::{Cursor, CursorKind, InvalidCursor, PageLimit};
use crate::text::SearchTerm;

/// The `active` parameter: which products are listed. Inactive variants are left out of the
/// list unless `All`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ActiveFilter {
    #[default]
    Active,
    Inactive,
    All,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected one of true, false, all")]
pub struct InvalidActiveFilter;

impl FromStr for ActiveFilter {
    type Err = InvalidActiveFilter;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "true" => Ok(Self::Active),
            "false" => Ok(Self::Inactive),
            "all" => Ok(Self::All),
            _ => Err(InvalidActiveFilter),
        }
    }
}

impl ActiveFilter {
    /// The value products must have in their `active` column, or `None` for any.
    pub const fn product_active(self) -> Option<bool> {
        match self {
            ActiveFilter::Active => Some(true),
            ActiveFilter::Inactive => Some(false),
            ActiveFilter::All => None,
        }
    }

    pub const fn shows_inactive_variants(self) -> bool {
        matches!(self, ActiveFilter::All)
    }
}

/// A validated `GET /products` request. Products are listed by ascending id: ids never change,
/// so a keyset on them cannot skip or repeat a row while the list grows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProductListQuery {
    pub search: Option<SearchTerm>,
    pub category: Option<CategoryId>,
    pub brand: Option<BrandId>,
    pub product_type: Option<String>,
    pub active: ActiveFilter,
    pub updated_since: Option<Timestamp>,
    /// Only products whose id sorts after this one (byte order).
    pub after: Option<ProductId>,
    pub limit: PageLimit,
}

impl Default for ProductListQuery {
    fn default() -> Self {
        Self {
            search: None,
            category: None,
            brand: None,
            product_type: None,
            active: ActiveFilter::default(),
            updated_since: None,
            after: None,
            limit: PageLimit::PRODUCTS_DEFAULT,
        }
    }
}

pub fn product_cursor(last: &ProductId) -> Cursor {
    Cursor::new(CursorKind::Products, vec![last.as_str().to_owned()])
}

/// The id a products cursor points after.
pub fn product_cursor_position(text: &str) -> Result<ProductId, InvalidCursor> {
    let cursor = Cursor::decode(text, CursorKind::Products)?;
    match cursor.parts() {
        [id] => ProductId::parse(id.as_str()).map_err(|_| InvalidCursor),
        _ => Err(InvalidCursor),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn active_filter_values() {
        assert_eq!("true".parse(), Ok(ActiveFilter::Active));
        assert_eq!("false".parse(), Ok(ActiveFilter::Inactive));
        assert_eq!("all".parse(), Ok(ActiveFilter::All));
        for bad in ["TRUE", "1", "yes", ""] {
            assert_eq!(bad.parse::<ActiveFilter>(), Err(InvalidActiveFilter));
        }
        assert!(!ActiveFilter::Inactive.shows_inactive_variants());
        assert!(ActiveFilter::All.shows_inactive_variants());
    }

    #[test]
    fn product_cursor_round_trips() {
        let id = ProductId::parse("prod_42").unwrap();
        assert_eq!(
            product_cursor_position(&product_cursor(&id).encode()),
            Ok(id)
        );
    }
}
