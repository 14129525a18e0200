//! `POST /products`: a product with its variants, at least one, exactly one the default.

use super::codes::{create_claims, duplicate_codes};
use super::members::VARIANTS;
use super::product_fields::{ProductInput, read_patch};
use super::reference::CatalogueReference;
use super::rules::{DEFAULT_PRODUCT_TYPE, MAX_VARIANTS};
use super::variant_fields::{self, NewVariant, VariantInput, VariantPatch};
use crate::Timestamp;
use crate::catalogue::{BrandRef, CategoryRef, Product};
use crate::id::{ProductId, VariantId};
use crate::money::Cents;
use crate::tax_rate::TaxRate;
use crate::write::{MemberProblem, MemberProblems};

/// A valid create, its defaults applied (see the module's decisions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewProduct {
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
    pub tags: Vec<String>,
    pub photos: Vec<String>,
    /// Resolved by persistence, which finds or creates the row.
    pub category: Option<CatalogueReference>,
    pub brand: Option<CatalogueReference>,
    /// In the body's order; exactly one `is_default`.
    variants: Vec<NewVariant>,
}

impl TryFrom<ProductInput> for NewProduct {
    type Error = Vec<MemberProblem>;

    /// `name`, `priceCents`, `taxRate` and `variants` are required; the reader reported the
    /// absence of each.
    fn try_from(mut input: ProductInput) -> Result<Self, Self::Error> {
        let mut problems = MemberProblems::new();
        let variants = input.variants.take();
        let patch = read_patch(&mut problems, input);
        let variants = variants.and_then(|variants| read_variants(&mut problems, variants));
        // Codes are checked among themselves whatever else is wrong: every problem at once.
        if let Some(variants) = &variants {
            let codes = create_claims(
                given(&patch.sku),
                given(&patch.ean),
                variants
                    .iter()
                    .map(|variant| (given(&variant.sku), given(&variant.barcode))),
            );
            for problem in duplicate_codes(&codes) {
                problems.push(problem.path, problem.message);
            }
        }
        let variants = variants.and_then(|patches| settle_default(&mut problems, patches));
        let new = match (patch.name, patch.price, patch.tax_rate, variants) {
            (Some(name), Some(price), Some(tax_rate), Some(variants)) => Some(Self {
                name,
                product_type: patch
                    .product_type
                    .unwrap_or_else(|| DEFAULT_PRODUCT_TYPE.to_owned()),
                ean: patch.ean.flatten(),
                sku: patch.sku.flatten(),
                price,
                list_price: patch.list_price.unwrap_or(price),
                compare_at_price: patch.compare_at_price.flatten(),
                promo_active: patch.promo_active.unwrap_or(false),
                tax_rate,
                active: patch.active.unwrap_or(true),
                tags: patch.tags.unwrap_or_default(),
                photos: patch.photos.unwrap_or_default(),
                category: patch.category.flatten(),
                brand: patch.brand.flatten(),
                variants,
            }),
            _ => None,
        };
        problems.verdict(new)
    }
}

/// The code a nullable member gives, if any.
fn given(member: &Option<Option<String>>) -> Option<&str> {
    member.as_ref()?.as_deref()
}

/// 1 to 100 variants, each read under `variants[i]`.
fn read_variants(
    problems: &mut MemberProblems,
    inputs: Vec<VariantInput>,
) -> Option<Vec<VariantPatch>> {
    if inputs.is_empty() {
        problems.push(VARIANTS, "must hold at least one variant");
        return None;
    }
    if inputs.len() > MAX_VARIANTS {
        problems.push(
            VARIANTS,
            format!("must hold at most {MAX_VARIANTS} variants"),
        );
        return None;
    }
    let read = inputs.into_iter().enumerate().map(|(index, input)| {
        variant_fields::read_patch(problems, &format!("{VARIANTS}[{index}]."), input)
    });
    Some(read.collect())
}

/// The first variant asking to be the default is it, and one asking after it is a problem;
/// none asking: the first. `None` when a variant has no label.
fn settle_default(
    problems: &mut MemberProblems,
    patches: Vec<VariantPatch>,
) -> Option<Vec<NewVariant>> {
    let mut default = None;
    for (index, patch) in patches.iter().enumerate() {
        if patch.is_default != Some(true) {
            continue;
        }
        match default {
            None => default = Some(index),
            Some(first) => problems.push(
                format!("{VARIANTS}[{index}].isDefault"),
                format!(
                    "must not be true: {VARIANTS}[{first}] is the default already, and a product \
                     has exactly one"
                ),
            ),
        }
    }
    let default = default.unwrap_or(0);
    let mut variants: Vec<NewVariant> = patches
        .into_iter()
        .map(NewVariant::of)
        .collect::<Option<_>>()?;
    for (index, variant) in variants.iter_mut().enumerate() {
        variant.is_default = index == default;
    }
    Some(variants)
}

impl NewProduct {
    /// The variants, in the body's order.
    pub fn variants(&self) -> &[NewVariant] {
        &self.variants
    }

    /// The product as created at `at`: `id`, its variants' ids drawn from `new_variant_id` in
    /// the body's order, and its category and brand as persistence resolved them. No stock
    /// and no tracking (switched on in the console), so it does not track stock.
    pub fn product(
        &self,
        id: ProductId,
        mut new_variant_id: impl FnMut() -> VariantId,
        category: Option<CategoryRef>,
        brand: Option<BrandRef>,
        at: Timestamp,
    ) -> Product {
        let variants = self.variants.iter().enumerate().map(|(index, variant)| {
            let position = i32::try_from(index).unwrap_or(i32::MAX);
            variant.variant(new_variant_id(), self.price, position)
        });
        let mut product = Product {
            id,
            name: self.name.clone(),
            product_type: self.product_type.clone(),
            ean: self.ean.clone(),
            sku: self.sku.clone(),
            price: self.price,
            list_price: self.list_price,
            compare_at_price: self.compare_at_price,
            promo_active: self.promo_active,
            tax_rate: self.tax_rate,
            active: self.active,
            track_stock: false,
            tags: self.tags.clone(),
            photos: self.photos.clone(),
            category,
            brand,
            variants: variants.collect(),
            created_at: at,
            updated_at: at,
        };
        product.sort_variants();
        product
    }
}
