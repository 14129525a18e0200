//! A variant write applied to the product as stored, inside persistence's transaction: the
//! whole product it leaves (the store writes a product whole), with the default moved.

use super::default_variant::{self, VariantWriteRefusal};
use super::rules::MAX_VARIANTS;
use super::variant_fields::{NewVariant, VariantPatch};
use crate::catalogue::{Product, Variant};
use crate::id::VariantId;

/// A variant patch applied. Its times (`updatedAt`) are the caller's to set when it changed
/// anything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantPatched {
    /// The product with the variant patched, in display order.
    pub product: Product,
    /// The patched variant's members whose values changed.
    pub changed: Vec<&'static str>,
    /// The other variants that stopped being the default.
    pub lost_default: Vec<VariantId>,
}

impl VariantPatched {
    /// Whether the patch resent what the product held: nothing to write, no event.
    pub fn changes_nothing(&self) -> bool {
        self.changed.is_empty() && self.lost_default.is_empty()
    }
}

/// A variant added to its product.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantAdded {
    /// The product with the new variant, in display order.
    pub product: Product,
    pub variant: Variant,
    /// The variants that stopped being the default.
    pub lost_default: Vec<VariantId>,
}

impl VariantPatch {
    /// Patches `variant` of `product`; `isDefault: true` takes the default from the others.
    pub fn apply(
        &self,
        product: &Product,
        variant: &VariantId,
    ) -> Result<VariantPatched, VariantWriteRefusal> {
        let index = product
            .variants
            .iter()
            .position(|held| held.id == *variant)
            .ok_or(VariantWriteRefusal::UnknownVariant)?;
        let lost_default = default_variant::on_patch(product, variant, self.is_default)?;
        let before = &product.variants[index];
        let after = self.apply_to(before);
        let changed = VariantPatch::changed_members(before, &after);
        let mut next = product.clone();
        next.variants[index] = after;
        take_default(&mut next, &lost_default);
        next.sort_variants();
        Ok(VariantPatched {
            product: next,
            changed,
            lost_default,
        })
    }
}

impl NewVariant {
    /// Adds the variant, under `id`, to `product`: the product's price unless it gives its
    /// own, after the last variant unless it gives its `order`, the default when it asks or
    /// when the product has none.
    pub fn add_to(
        &self,
        product: &Product,
        id: VariantId,
    ) -> Result<VariantAdded, VariantWriteRefusal> {
        if product.variants.len() >= MAX_VARIANTS {
            return Err(VariantWriteRefusal::TooManyVariants);
        }
        let default = default_variant::on_add(product, self.is_default);
        let after_last = product
            .variants
            .iter()
            .map(|variant| variant.order.saturating_add(1))
            .max()
            .unwrap_or(0);
        let mut variant = self.variant(id, product.price, after_last);
        variant.is_default = default.is_default;
        let mut next = product.clone();
        take_default(&mut next, &default.losing);
        next.variants.push(variant.clone());
        next.sort_variants();
        Ok(VariantAdded {
            product: next,
            variant,
            lost_default: default.losing,
        })
    }
}

fn take_default(product: &mut Product, losing: &[VariantId]) {
    for variant in &mut product.variants {
        if losing.contains(&variant.id) {
            variant.is_default = false;
        }
    }
}
