//! A product's own members (all but `variants`), in a create and in the merge patch of
//! `PATCH /products/{id}`.

use super::members::VARIANTS;
use super::reference::{CatalogueReference, ReferenceInput, nullable_reference};
use super::rules::{self, nullable_price, nullable_text};
use super::variant_fields::VariantInput;
use crate::catalogue::Product;
use crate::money::Cents;
use crate::tax_rate::TaxRate;
use crate::write::{self, MemberProblem, MemberProblems};

/// The members of a product body that had the right JSON type. `None`: absent (a patch leaves
/// it as it is), or mistyped or `null` where not nullable (the reader reported it).
/// `Some(None)`: `null`, which clears it (on a create: no value).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProductInput {
    pub name: Option<String>,
    pub product_type: Option<String>,
    pub ean: Option<Option<String>>,
    pub sku: Option<Option<String>>,
    pub price_cents: Option<i64>,
    pub list_price_cents: Option<i64>,
    pub compare_at_price_cents: Option<Option<i64>>,
    pub promo_active: Option<bool>,
    pub tax_rate: Option<String>,
    pub active: Option<bool>,
    pub tags: Option<Vec<String>>,
    pub photos: Option<Vec<String>>,
    pub category: Option<Option<ReferenceInput>>,
    pub brand: Option<Option<ReferenceInput>>,
    /// A create's variants, each read by the variant's reader under `variants[i]`. On a patch,
    /// `Some` (whatever it holds) says the body carried the member, which a patch refuses.
    pub variants: Option<Vec<VariantInput>>,
}

/// A valid merge patch of a product: each `Some` replaces the member (`Some(None)` clears it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProductPatch {
    pub name: Option<String>,
    pub product_type: Option<String>,
    pub ean: Option<Option<String>>,
    pub sku: Option<Option<String>>,
    pub price: Option<Cents>,
    pub list_price: Option<Cents>,
    pub compare_at_price: Option<Option<Cents>>,
    pub promo_active: Option<bool>,
    pub tax_rate: Option<TaxRate>,
    pub active: Option<bool>,
    pub tags: Option<Vec<String>>,
    pub photos: Option<Vec<String>>,
    /// Resolved by persistence (it needs the shop's categories), never by [`Self::apply`].
    pub category: Option<Option<CatalogueReference>>,
    pub brand: Option<Option<CatalogueReference>>,
}

impl TryFrom<ProductInput> for ProductPatch {
    type Error = Vec<MemberProblem>;

    fn try_from(mut input: ProductInput) -> Result<Self, Self::Error> {
        let mut problems = MemberProblems::new();
        if input.variants.take().is_some() {
            problems.push(
                VARIANTS,
                "must not be given: variants are written at /products/{id}/variants and \
                 /products/{id}/variants/{variantId}",
            );
        }
        let patch = read_patch(&mut problems, input);
        problems.verdict(Some(patch))
    }
}

/// Reads every member but `variants`.
pub(super) fn read_patch(problems: &mut MemberProblems, input: ProductInput) -> ProductPatch {
    let price = |problems: &mut MemberProblems, path: &str, given: Option<i64>| {
        given.and_then(|cents| problems.check(path, rules::price(cents)))
    };
    ProductPatch {
        name: input
            .name
            .and_then(|raw| problems.check("name", write::name(&raw))),
        product_type: input
            .product_type
            .and_then(|raw| problems.check("productType", rules::product_type(&raw))),
        ean: nullable_text(problems, "ean", input.ean, rules::code),
        sku: nullable_text(problems, "sku", input.sku, rules::code),
        price: price(problems, "priceCents", input.price_cents),
        list_price: price(problems, "listPriceCents", input.list_price_cents),
        compare_at_price: nullable_price(
            problems,
            "compareAtPriceCents",
            input.compare_at_price_cents,
        ),
        promo_active: input.promo_active,
        tax_rate: input
            .tax_rate
            .and_then(|raw| problems.check("taxRate", TaxRate::parse(&raw))),
        active: input.active,
        tags: input
            .tags
            .and_then(|raw| problems.check("tags", write::tags(&raw))),
        photos: input.photos.and_then(|raw| rules::photos(problems, &raw)),
        category: nullable_reference(problems, "category", input.category),
        brand: nullable_reference(problems, "brand", input.brand),
    }
}

impl ProductPatch {
    /// The product once patched, but for `category` and `brand` (persistence sets them once
    /// resolved). Its times are the caller's to set when [`Self::changed_members`] is not
    /// empty.
    pub fn apply(&self, product: &Product) -> Product {
        let mut next = product.clone();
        let set = |slot: &mut Option<String>, given: &Option<Option<String>>| {
            if let Some(value) = given {
                slot.clone_from(value);
            }
        };
        if let Some(name) = &self.name {
            next.name.clone_from(name);
        }
        if let Some(product_type) = &self.product_type {
            next.product_type.clone_from(product_type);
        }
        set(&mut next.ean, &self.ean);
        set(&mut next.sku, &self.sku);
        next.price = self.price.unwrap_or(next.price);
        next.list_price = self.list_price.unwrap_or(next.list_price);
        next.compare_at_price = self.compare_at_price.unwrap_or(next.compare_at_price);
        next.promo_active = self.promo_active.unwrap_or(next.promo_active);
        next.tax_rate = self.tax_rate.unwrap_or(next.tax_rate);
        next.active = self.active.unwrap_or(next.active);
        if let Some(tags) = &self.tags {
            next.tags.clone_from(tags);
        }
        if let Some(photos) = &self.photos {
            next.photos.clone_from(photos);
        }
        next
    }

    /// The members whose values differ between two states of a product (category and brand
    /// by what they link), in the order of the representation: what the activity says a
    /// write changed. Empty: the write changed nothing, and nothing is written.
    pub fn changed_members(before: &Product, after: &Product) -> Vec<&'static str> {
        let category = |product: &Product| product.category.as_ref().map(|c| c.id.clone());
        let brand = |product: &Product| product.brand.as_ref().map(|b| b.id.clone());
        [
            ("name", before.name != after.name),
            ("productType", before.product_type != after.product_type),
            ("ean", before.ean != after.ean),
            ("sku", before.sku != after.sku),
            ("priceCents", before.price != after.price),
            ("listPriceCents", before.list_price != after.list_price),
            (
                "compareAtPriceCents",
                before.compare_at_price != after.compare_at_price,
            ),
            ("promoActive", before.promo_active != after.promo_active),
            ("taxRate", before.tax_rate != after.tax_rate),
            ("active", before.active != after.active),
            ("tags", before.tags != after.tags),
            ("photos", before.photos != after.photos),
            ("category", category(before) != category(after)),
            ("brand", brand(before) != brand(after)),
        ]
        .into_iter()
        .filter_map(|(path, changed)| changed.then_some(path))
        .collect()
    }
}
