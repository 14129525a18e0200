//! One line of `GET /stock`: a variant with its product's name, and its own tracking.

use crate::Timestamp;
use crate::catalogue::{Product, Variant};
use crate::id::{ProductId, VariantId};
use crate::pagination::{Cursor, CursorKind, InvalidCursor, PageLimit};
use crate::sync::ChangedSince;
use crate::text::{SearchTerm, fold_case};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StockEntry {
    pub variant_id: VariantId,
    pub product_id: ProductId,
    pub product_name: String,
    pub variant_label: String,
    pub sku: Option<String>,
    pub barcode: Option<String>,
    /// The variant's own stock tracking (`Variant::tracked`).
    pub tracked: bool,
    pub stock: i64,
    pub low_stock_threshold: i64,
    /// The variant is active and so is its product: the variant can be sold.
    pub active: bool,
    /// The last movement of its stock or switch of its tracking, or the last import that
    /// changed one of the fields above.
    pub updated_at: Timestamp,
}

impl StockEntry {
    /// Tracked and at or below zero. Untracked variants are never out of stock.
    pub fn is_out_of_stock(&self) -> bool {
        self.tracked && self.stock <= 0
    }

    /// Tracked and at or below the threshold; so an out-of-stock variant is also low.
    pub fn is_low_stock(&self) -> bool {
        self.tracked && self.stock <= self.low_stock_threshold
    }
}

/// Whether an import that writes `written` over `stored` (`None`: a new variant) changes what
/// the variant's stock entry shows, and so moves its `updatedAt`.
pub fn stock_entry_changed(
    stored: Option<(&Product, &Variant)>,
    written: (&Product, &Variant),
) -> bool {
    let shown = |(product, variant): (&Product, &Variant)| {
        (
            product.name.clone(),
            product.active,
            variant.label.clone(),
            variant.sku.clone(),
            variant.barcode.clone(),
            (variant.tracked, variant.stock, variant.low_stock_threshold),
            variant.active,
        )
    };
    stored.is_none_or(|stored| shown(stored) != shown(written))
}

/// The case-folded text that `q` of `GET /stock` searches for one variant: the product's name,
/// EAN and SKU, the variant's SKU and barcode. Stored per variant, rewritten with the product.
pub fn stock_search_text(product: &Product, variant: &Variant) -> String {
    let mut parts: Vec<&str> = vec![&product.name];
    parts.extend(product.ean.as_deref());
    parts.extend(product.sku.as_deref());
    parts.extend(variant.sku.as_deref());
    parts.extend(variant.barcode.as_deref());
    fold_case(&parts.join("\n"))
}

/// A validated `GET /stock` request; entries are listed by ascending variant id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StockListQuery {
    pub product_id: Option<ProductId>,
    pub search: Option<SearchTerm>,
    pub low_stock_only: bool,
    /// Default `true`: untracked variants are left out.
    pub tracked_only: bool,
    pub after: Option<VariantId>,
    /// `updatedSince`: walk the entries changed since then instead (`after` is then unused).
    pub changed: Option<ChangedSince<VariantId>>,
    pub limit: PageLimit,
}

impl Default for StockListQuery {
    fn default() -> Self {
        Self {
            product_id: None,
            search: None,
            low_stock_only: false,
            tracked_only: true,
            after: None,
            changed: None,
            limit: PageLimit::STOCK_DEFAULT,
        }
    }
}

pub fn stock_cursor(last: &VariantId) -> Cursor {
    Cursor::new(CursorKind::Stock, vec![last.as_str().to_owned()])
}

pub fn stock_cursor_position(text: &str) -> Result<VariantId, InvalidCursor> {
    let cursor = Cursor::decode(text, CursorKind::Stock)?;
    match cursor.parts() {
        [id] => VariantId::parse(id.as_str()).map_err(|_| InvalidCursor),
        _ => Err(InvalidCursor),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(tracked: bool, stock: i64) -> StockEntry {
        StockEntry {
            variant_id: VariantId::parse("v").unwrap(),
            product_id: ProductId::parse("p").unwrap(),
            product_name: "P".into(),
            variant_label: "V".into(),
            sku: None,
            barcode: None,
            tracked,
            stock,
            low_stock_threshold: 3,
            active: true,
            updated_at: Timestamp::from_millis(0),
        }
    }

    #[test]
    fn an_entry_changes_with_what_it_shows_only() {
        let product = crate::catalogue::product::fixtures::product(vec![
            crate::catalogue::product::fixtures::variant("a", 0, 5, true),
        ]);
        let variant = &product.variants[0];
        assert!(stock_entry_changed(None, (&product, variant)));
        assert!(!stock_entry_changed(
            Some((&product, variant)),
            (&product, variant)
        ));
        let mut repriced = product.clone();
        repriced.variants[0].price = crate::money::Cents(999);
        assert!(!stock_entry_changed(
            Some((&product, variant)),
            (&repriced, &repriced.variants[0])
        ));
        let mut restocked = product.clone();
        restocked.variants[0].stock += 1;
        assert!(stock_entry_changed(
            Some((&product, variant)),
            (&restocked, &restocked.variants[0])
        ));
        let mut renamed = product.clone();
        renamed.name.push_str(" II");
        assert!(stock_entry_changed(
            Some((&product, variant)),
            (&renamed, &renamed.variants[0])
        ));
    }

    #[test]
    fn out_of_stock_is_also_low_stock() {
        for (stock, low, out) in [
            (-2, true, true),
            (0, true, true),
            (3, true, false),
            (4, false, false),
        ] {
            let e = entry(true, stock);
            assert_eq!(
                (e.is_low_stock(), e.is_out_of_stock()),
                (low, out),
                "stock {stock}"
            );
        }
    }

    #[test]
    fn untracked_variants_are_never_low_or_out() {
        let e = entry(false, -5);
        assert!(!e.is_low_stock() && !e.is_out_of_stock());
    }

    #[test]
    fn stock_cursor_round_trips_and_refuses_other_lists() {
        let id = VariantId::parse("var_1").unwrap();
        assert_eq!(stock_cursor_position(&stock_cursor(&id).encode()), Ok(id));
        let products = crate::catalogue::product_cursor(&ProductId::parse("p").unwrap()).encode();
        assert!(stock_cursor_position(&products).is_err());
    }
}
