//! A variant's members: in a create's `variants`, in `POST /products/{id}/variants`, and in
//! the merge patch of `PATCH /products/{id}/variants/{variantId}`.

use super::rules::{self, nullable_text};
use crate::catalogue::Variant;
use crate::color::HexColor;
use crate::id::VariantId;
use crate::money::Cents;
use crate::write::{self, MemberProblem, MemberProblems};

/// The members of a variant body that had the right JSON type. `None`: absent (a patch leaves
/// it as it is), or mistyped or `null` where not nullable (the reader reported it).
/// `Some(None)`: `null`, which clears it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VariantInput {
    pub label: Option<String>,
    pub sku: Option<Option<String>>,
    pub barcode: Option<Option<String>>,
    pub swatch_color: Option<Option<String>>,
    pub price_cents: Option<i64>,
    pub low_stock_threshold: Option<i64>,
    pub is_default: Option<bool>,
    pub active: Option<bool>,
    pub order: Option<i64>,
}

/// A valid merge patch of a variant: each `Some` replaces the member (`Some(None)` clears it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VariantPatch {
    pub label: Option<String>,
    pub sku: Option<Option<String>>,
    pub barcode: Option<Option<String>>,
    pub swatch_color: Option<Option<HexColor>>,
    pub price: Option<Cents>,
    pub low_stock_threshold: Option<i64>,
    /// `true` moves the product's default here; `false` is refused on its only default
    /// ([`super::default_variant`]).
    pub is_default: Option<bool>,
    pub active: Option<bool>,
    pub order: Option<i32>,
}

/// A valid new variant. What it leaves to its product: `price` (`None`: the product's) and
/// `order` (`None`: its index in a create, after the last variant when added).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewVariant {
    pub label: String,
    pub sku: Option<String>,
    pub barcode: Option<String>,
    pub swatch_color: Option<HexColor>,
    pub price: Option<Cents>,
    pub low_stock_threshold: i64,
    /// Whether the body asked for it to be the default (absent is `false`). In a
    /// [`super::NewProduct`], whether it is: exactly one is.
    pub is_default: bool,
    pub active: bool,
    pub order: Option<i32>,
}

impl TryFrom<VariantInput> for VariantPatch {
    type Error = Vec<MemberProblem>;

    fn try_from(input: VariantInput) -> Result<Self, Self::Error> {
        let mut problems = MemberProblems::new();
        let patch = read_patch(&mut problems, "", input);
        problems.verdict(Some(patch))
    }
}

impl TryFrom<VariantInput> for NewVariant {
    type Error = Vec<MemberProblem>;

    /// `label` is required; its absence was reported by the reader.
    fn try_from(input: VariantInput) -> Result<Self, Self::Error> {
        let mut problems = MemberProblems::new();
        let patch = read_patch(&mut problems, "", input);
        problems.verdict(NewVariant::of(patch))
    }
}

/// Reads a variant's members, each problem named under `prefix` (`""`, `variants[1].`).
pub(super) fn read_patch(
    problems: &mut MemberProblems,
    prefix: &str,
    input: VariantInput,
) -> VariantPatch {
    let at = |member: &str| format!("{prefix}{member}");
    VariantPatch {
        label: input
            .label
            .and_then(|raw| problems.check(&at("label"), write::name(&raw))),
        sku: nullable_text(problems, &at("sku"), input.sku, rules::code),
        barcode: nullable_text(problems, &at("barcode"), input.barcode, rules::code),
        swatch_color: nullable_text(problems, &at("swatchColor"), input.swatch_color, |raw| {
            HexColor::parse(raw.trim()).map(Some)
        }),
        price: input
            .price_cents
            .and_then(|cents| problems.check(&at("priceCents"), rules::price(cents))),
        low_stock_threshold: input.low_stock_threshold.and_then(|threshold| {
            problems.check(
                &at("lowStockThreshold"),
                rules::low_stock_threshold(threshold),
            )
        }),
        is_default: input.is_default,
        active: input.active,
        order: input
            .order
            .and_then(|order| problems.check(&at("order"), rules::order(order))),
    }
}

impl NewVariant {
    /// A patch of a blank variant that names it: `None` without a label.
    pub(super) fn of(patch: VariantPatch) -> Option<Self> {
        Some(Self {
            label: patch.label?,
            sku: patch.sku.flatten(),
            barcode: patch.barcode.flatten(),
            swatch_color: patch.swatch_color.flatten(),
            price: patch.price,
            low_stock_threshold: patch.low_stock_threshold.unwrap_or(0),
            is_default: patch.is_default.unwrap_or(false),
            active: patch.active.unwrap_or(true),
            order: patch.order,
        })
    }

    /// The variant as stored: its product's price and `order` unless it gives its own; no
    /// stock, not tracked (tracking is switched in the console).
    pub(super) fn variant(&self, id: VariantId, product_price: Cents, order: i32) -> Variant {
        Variant {
            id,
            label: self.label.clone(),
            sku: self.sku.clone(),
            barcode: self.barcode.clone(),
            swatch_color: self.swatch_color.clone(),
            price: self.price.unwrap_or(product_price),
            stock: 0,
            low_stock_threshold: self.low_stock_threshold,
            is_default: self.is_default,
            active: self.active,
            order: self.order.unwrap_or(order),
            tracked: false,
        }
    }
}

impl VariantPatch {
    /// The variant once patched; `is_default` as asked (the siblings' is the caller's).
    pub fn apply_to(&self, variant: &Variant) -> Variant {
        let mut next = variant.clone();
        if let Some(label) = &self.label {
            next.label.clone_from(label);
        }
        if let Some(sku) = &self.sku {
            next.sku.clone_from(sku);
        }
        if let Some(barcode) = &self.barcode {
            next.barcode.clone_from(barcode);
        }
        if let Some(color) = &self.swatch_color {
            next.swatch_color.clone_from(color);
        }
        next.price = self.price.unwrap_or(next.price);
        next.low_stock_threshold = self.low_stock_threshold.unwrap_or(next.low_stock_threshold);
        next.is_default = self.is_default.unwrap_or(next.is_default);
        next.active = self.active.unwrap_or(next.active);
        next.order = self.order.unwrap_or(next.order);
        next
    }

    /// The members whose values differ between two states of a variant, in the order of the
    /// representation: what the activity says a write changed. Empty: nothing changed.
    pub fn changed_members(before: &Variant, after: &Variant) -> Vec<&'static str> {
        [
            ("label", before.label != after.label),
            ("sku", before.sku != after.sku),
            ("barcode", before.barcode != after.barcode),
            ("swatchColor", before.swatch_color != after.swatch_color),
            ("priceCents", before.price != after.price),
            (
                "lowStockThreshold",
                before.low_stock_threshold != after.low_stock_threshold,
            ),
            ("isDefault", before.is_default != after.is_default),
            ("active", before.active != after.active),
            ("order", before.order != after.order),
        ]
        .into_iter()
        .filter_map(|(path, changed)| changed.then_some(path))
        .collect()
    }
}
