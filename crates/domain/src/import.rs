//! Rules of `shop-api import`: an idempotent upsert by id.
//!
//! Re-importing the same file must change nothing, not even `updatedAt`, so a product is only
//! written when its content or its given timestamps differ from what is stored.

use std::collections::HashSet;

use crate::Timestamp;
use crate::catalogue::Product;
use crate::loyalty::LoyaltyTier;

/// Timestamps as given in the file; absent ones default (created: kept or now, updated: now).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GivenStamps {
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
}

/// A product from an import file. Its `created_at`/`updated_at` fields are placeholders: the
/// real ones come from [`decide_product_import`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportedProduct {
    pub product: Product,
    pub stamps: GivenStamps,
}

/// Everything an import file holds that this version can store.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShopImport {
    pub tiers: Vec<LoyaltyTier>,
    pub products: Vec<ImportedProduct>,
}

/// A problem in an import file, at a JSON path such as `products[3].variants[0].id`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportProblem {
    pub path: String,
    pub message: String,
}

impl ImportProblem {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for ImportProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl ShopImport {
    /// Ids that appear twice in the file (products, variants across all products, tiers).
    pub fn duplicate_ids(&self) -> Vec<ImportProblem> {
        let mut problems = Vec::new();
        let mut products = HashSet::new();
        let mut variants = HashSet::new();
        for (p, imported) in self.products.iter().enumerate() {
            if !products.insert(imported.product.id.as_str()) {
                problems.push(ImportProblem::new(
                    format!("products[{p}].id"),
                    "duplicate id in this file",
                ));
            }
            for (v, variant) in imported.product.variants.iter().enumerate() {
                if !variants.insert(variant.id.as_str()) {
                    problems.push(ImportProblem::new(
                        format!("products[{p}].variants[{v}].id"),
                        "duplicate id in this file",
                    ));
                }
            }
        }
        let mut tiers = HashSet::new();
        for (t, tier) in self.tiers.iter().enumerate() {
            if !tiers.insert(tier.id.as_str()) {
                problems.push(ImportProblem::new(
                    format!("loyaltyTiers[{t}].id"),
                    "duplicate id in this file",
                ));
            }
        }
        problems
    }
}

/// What to do with one imported product.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProductImportDecision {
    Unchanged,
    /// Write this product: the stored variants that the file does not mention are kept, the
    /// ones it mentions are replaced.
    Write(Box<Product>),
}

fn same_content(existing: &Product, incoming: &Product) -> bool {
    let mut existing_fields = existing.clone();
    let mut incoming_fields = incoming.clone();
    for product in [&mut existing_fields, &mut incoming_fields] {
        product.variants.clear();
        product.created_at = Timestamp::from_millis(0);
        product.updated_at = Timestamp::from_millis(0);
    }
    existing_fields == incoming_fields
        && incoming
            .variants
            .iter()
            .all(|variant| existing.variants.iter().any(|stored| stored == variant))
}

pub fn decide_product_import(
    existing: Option<&Product>,
    incoming: ImportedProduct,
    now: Timestamp,
) -> ProductImportDecision {
    let ImportedProduct {
        mut product,
        stamps,
    } = incoming;
    if let Some(stored) = existing {
        let stamps_match = stamps.created_at.is_none_or(|at| at == stored.created_at)
            && stamps.updated_at.is_none_or(|at| at == stored.updated_at);
        if stamps_match && same_content(stored, &product) {
            return ProductImportDecision::Unchanged;
        }
        let mentioned: HashSet<_> = product.variants.iter().map(|v| v.id.clone()).collect();
        let kept = stored
            .variants
            .iter()
            .filter(|v| !mentioned.contains(&v.id))
            .cloned();
        product.variants.extend(kept.collect::<Vec<_>>());
    }
    product.created_at = stamps
        .created_at
        .or(existing.map(|stored| stored.created_at))
        .unwrap_or(now);
    product.updated_at = stamps.updated_at.unwrap_or(now);
    product.sort_variants();
    ProductImportDecision::Write(Box::new(product))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::Variant;
    use crate::id::VariantId;
    use crate::money::Cents;

    fn stored() -> Product {
        let mut product = crate::catalogue::product::fixtures::product(vec![
            crate::catalogue::product::fixtures::variant("a", 0, 5, true),
            crate::catalogue::product::fixtures::variant("b", 1, 5, true),
        ]);
        product.created_at = Timestamp::from_millis(1_000);
        product.updated_at = Timestamp::from_millis(2_000);
        product
    }

    fn imported(product: Product) -> ImportedProduct {
        ImportedProduct {
            product,
            stamps: GivenStamps::default(),
        }
    }

    const NOW: Timestamp = Timestamp::from_millis(9_000);

    #[test]
    fn identical_content_is_left_alone_even_without_timestamps() {
        let decision = decide_product_import(Some(&stored()), imported(stored()), NOW);
        assert_eq!(decision, ProductImportDecision::Unchanged);
    }

    #[test]
    fn a_subset_of_unchanged_variants_is_unchanged() {
        let mut incoming = stored();
        incoming.variants.truncate(1);
        assert_eq!(
            decide_product_import(Some(&stored()), imported(incoming), NOW),
            ProductImportDecision::Unchanged
        );
    }

    #[test]
    fn changed_content_moves_updated_at_and_keeps_created_at() {
        let mut incoming = stored();
        incoming.price = Cents(9_999);
        let ProductImportDecision::Write(written) =
            decide_product_import(Some(&stored()), imported(incoming), NOW)
        else {
            panic!("expected a write");
        };
        assert_eq!(written.created_at, Timestamp::from_millis(1_000));
        assert_eq!(written.updated_at, NOW);
        assert_eq!(written.price, Cents(9_999));
    }

    #[test]
    fn variants_missing_from_the_file_are_kept() {
        let mut incoming = stored();
        incoming.variants = vec![Variant {
            stock: 1,
            ..incoming.variants[1].clone()
        }];
        let ProductImportDecision::Write(written) =
            decide_product_import(Some(&stored()), imported(incoming), NOW)
        else {
            panic!("expected a write");
        };
        let ids: Vec<_> = written.variants.iter().map(|v| v.id.clone()).collect();
        assert_eq!(
            ids,
            [
                VariantId::parse("a").unwrap(),
                VariantId::parse("b").unwrap()
            ]
        );
        assert_eq!(written.variants[1].stock, 1);
    }

    #[test]
    fn new_products_default_both_timestamps_to_now() {
        let ProductImportDecision::Write(written) =
            decide_product_import(None, imported(stored()), NOW)
        else {
            panic!("expected a write");
        };
        assert_eq!((written.created_at, written.updated_at), (NOW, NOW));
    }

    #[test]
    fn given_timestamps_win_and_a_different_one_is_a_change() {
        let given = GivenStamps {
            created_at: Some(Timestamp::from_millis(1_000)),
            updated_at: Some(Timestamp::from_millis(3_000)),
        };
        let decision = decide_product_import(
            Some(&stored()),
            ImportedProduct {
                product: stored(),
                stamps: given,
            },
            NOW,
        );
        let ProductImportDecision::Write(written) = decision else {
            panic!("expected a write")
        };
        assert_eq!(written.updated_at, Timestamp::from_millis(3_000));
    }

    #[test]
    fn duplicate_ids_are_reported_with_their_path() {
        let import = ShopImport {
            tiers: vec![],
            products: vec![imported(stored()), imported(stored())],
        };
        let paths: Vec<_> = import.duplicate_ids().into_iter().map(|p| p.path).collect();
        assert_eq!(
            paths,
            [
                "products[1].id",
                "products[1].variants[0].id",
                "products[1].variants[1].id"
            ]
        );
    }
}
