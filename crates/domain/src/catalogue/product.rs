//! Products and variants as the API shows them (spec §2).

use crate::Timestamp;
use crate::color::HexColor;
use crate::id::{BrandId, CategoryId, ProductId, VariantId};
use crate::money::Cents;
use crate::tax_rate::TaxRate;
use crate::text::fold_case;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CategoryRef {
    pub id: CategoryId,
    pub name: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrandRef {
    pub id: BrandId,
    pub name: String,
}

/// A variant, with its own stock tracking (spec §3: "a variant has stock tracking on or
/// off"): only a tracked variant's stock may be adjusted, and only tracked variants are in
/// the stock list by default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    pub id: VariantId,
    pub label: String,
    pub sku: Option<String>,
    pub barcode: Option<String>,
    pub swatch_color: Option<HexColor>,
    pub price: Cents,
    pub stock: i64,
    pub low_stock_threshold: i64,
    pub is_default: bool,
    pub active: bool,
    /// Display position, from 0.
    pub order: i32,
    /// Stock tracking, switched per variant in the console; the import sets it to its
    /// product's `trackStock`.
    pub tracked: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Product {
    pub id: ProductId,
    pub name: String,
    pub product_type: String,
    pub ean: Option<String>,
    pub sku: Option<String>,
    pub price: Cents,
    pub list_price: Cents,
    pub compare_at_price: Option<Cents>,
    pub promo_active: bool,
    pub tax_rate: TaxRate,
    pub active: bool,
    /// The API's `trackStock`: whether the product tracks stock, i.e. (once a variant's
    /// tracking was switched in the console) whether any of its variants does.
    pub track_stock: bool,
    pub tags: Vec<String>,
    pub photos: Vec<String>,
    pub category: Option<CategoryRef>,
    pub brand: Option<BrandRef>,
    /// Always ordered by `order`, then id.
    pub variants: Vec<Variant>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl Product {
    /// The sum of the tracked variants' stock (inactive ones included, since that stock is
    /// on the shelves) when the product tracks stock; `None` otherwise. An untracked variant's
    /// number is not a count anyone keeps, so it is left out.
    pub fn stock_quantity(&self) -> Option<i64> {
        self.track_stock.then(|| {
            self.variants
                .iter()
                .filter(|variant| variant.tracked)
                .map(|variant| variant.stock)
                .sum()
        })
    }

    /// The case-folded text that `q` searches: product name, EAN, SKU and every variant's
    /// SKU and barcode. Stored beside the product so that search is one indexed column.
    pub fn search_text(&self) -> String {
        let mut parts: Vec<&str> = vec![&self.name];
        parts.extend(self.ean.as_deref());
        parts.extend(self.sku.as_deref());
        for variant in &self.variants {
            parts.extend(variant.sku.as_deref());
            parts.extend(variant.barcode.as_deref());
        }
        fold_case(&parts.join("\n"))
    }

    /// Puts variants in display order; stable for equal positions.
    pub fn sort_variants(&mut self) {
        self.variants
            .sort_by(|a, b| a.order.cmp(&b.order).then_with(|| a.id.cmp(&b.id)));
    }

    /// Drops inactive variants (the list's default view). `stock_quantity` is computed before
    /// calling this when the full sum is wanted.
    pub fn retain_active_variants(&mut self) {
        self.variants.retain(|variant| variant.active);
    }

    /// The product as shown: its stock quantity over all variants, then only the variants the
    /// caller asked to see.
    pub fn into_listing(mut self, show_inactive_variants: bool) -> ProductListing {
        let stock_quantity = self.stock_quantity();
        if !show_inactive_variants {
            self.retain_active_variants();
        }
        ProductListing {
            product: self,
            stock_quantity,
        }
    }
}

/// A product ready to be shown, with the derived `stockQuantity`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProductListing {
    pub product: Product,
    pub stock_quantity: Option<i64>,
}

#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;

    pub fn variant(id: &str, order: i32, stock: i64, active: bool) -> Variant {
        Variant {
            id: VariantId::parse(id).unwrap(),
            label: format!("Variant {id}"),
            sku: Some(format!("SKU-{id}")),
            barcode: Some(format!("3700000{order}")),
            swatch_color: None,
            price: Cents(1_000),
            stock,
            low_stock_threshold: 2,
            is_default: order == 0,
            active,
            order,
            tracked: true,
        }
    }

    pub fn product(variants: Vec<Variant>) -> Product {
        Product {
            id: ProductId::parse("prod_1").unwrap(),
            name: "Écharpe Laine".into(),
            product_type: "simple".into(),
            ean: Some("3760000000017".into()),
            sku: Some("ECH-01".into()),
            price: Cents(2_500),
            list_price: Cents(2_500),
            compare_at_price: None,
            promo_active: false,
            tax_rate: TaxRate::parse("20.00").unwrap(),
            active: true,
            track_stock: true,
            tags: vec![],
            photos: vec![],
            category: None,
            brand: None,
            variants,
            created_at: Timestamp::from_millis(0),
            updated_at: Timestamp::from_millis(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::{product, variant};

    #[test]
    fn stock_quantity_sums_all_variants_when_tracked() {
        let mut p = product(vec![variant("a", 0, 3, true), variant("b", 1, 4, false)]);
        assert_eq!(p.stock_quantity(), Some(7));
        p.track_stock = false;
        assert_eq!(p.stock_quantity(), None);
    }

    #[test]
    fn stock_quantity_leaves_out_the_variants_whose_tracking_is_off() {
        let mut untracked = variant("b", 1, 4, true);
        untracked.tracked = false;
        let p = product(vec![variant("a", 0, 3, true), untracked]);
        assert_eq!(p.stock_quantity(), Some(3));
    }

    #[test]
    fn stock_quantity_of_a_tracked_product_without_variants_is_zero() {
        assert_eq!(product(vec![]).stock_quantity(), Some(0));
    }

    #[test]
    fn search_text_covers_variant_codes_case_folded() {
        let text = product(vec![variant("a", 0, 1, true)]).search_text();
        assert!(text.contains("écharpe laine"));
        assert!(text.contains("sku-a"));
        assert!(text.contains("37600000"));
        assert!(text.contains("ech-01"));
    }

    #[test]
    fn variants_sort_by_display_order() {
        let mut p = product(vec![
            variant("c", 2, 0, true),
            variant("a", 0, 0, true),
            variant("b", 1, 0, true),
        ]);
        p.sort_variants();
        let ids: Vec<_> = p.variants.iter().map(|v| v.id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "c"]);
    }

    #[test]
    fn list_view_hides_inactive_variants_but_counts_their_stock() {
        let p = product(vec![variant("a", 0, 1, true), variant("b", 1, 4, false)]);
        let listing = p.clone().into_listing(false);
        assert_eq!(listing.product.variants.len(), 1);
        assert_eq!(listing.stock_quantity, Some(5));
        assert_eq!(p.into_listing(true).product.variants.len(), 2);
    }
}
