//! SKUs and barcodes name one product or variant each within a shop. The product's `sku` and
//! its variants' `sku` are one namespace; the product's `ean` and its variants' `barcode`
//! another (an EAN is a barcode). Codes are compared exactly, as stored (trimmed, case kept).
//!
//! A write's body is checked here ([`duplicate_codes`]); the rest of the shop is
//! persistence's to search, for the codes the write claims: each value it writes that its
//! owner does not already hold (resending one's own code is no conflict).

use super::members::VARIANTS;
use super::new_product::NewProduct;
use super::product_fields::ProductPatch;
use super::variant_fields::{NewVariant, VariantPatch};
use crate::catalogue::{Product, Variant};
use crate::id::{ProductId, VariantId};
use crate::write::MemberProblem;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CodeKind {
    /// A product's `sku` or a variant's `sku`.
    Sku,
    /// A product's `ean` or a variant's `barcode`.
    Barcode,
}

impl CodeKind {
    fn noun(self) -> &'static str {
        match self {
            Self::Sku => "SKU",
            Self::Barcode => "barcode",
        }
    }
}

/// The row that holds a code.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CodeOwner {
    Product(ProductId),
    Variant(VariantId),
}

/// A code a write gives a product or a variant that does not hold it yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeClaim {
    pub kind: CodeKind,
    pub value: String,
    /// The member of the body that gives it: `sku`, `ean`, `variants[1].barcode`.
    pub path: String,
    /// The row that will hold it, which another row holding it conflicts with; `None` for a
    /// row the write creates.
    pub owner: Option<CodeOwner>,
}

/// A problem for each claim whose code an earlier claim of the body gives too, named by the
/// later member's path.
pub fn duplicate_codes(claims: &[CodeClaim]) -> Vec<MemberProblem> {
    claims
        .iter()
        .enumerate()
        .filter_map(|(index, claim)| {
            let first = claims[..index]
                .iter()
                .find(|earlier| earlier.kind == claim.kind && earlier.value == claim.value)?;
            Some(MemberProblem {
                path: claim.path.clone(),
                message: format!(
                    "must differ from {}: a {} names one product or variant",
                    first.path,
                    claim.kind.noun()
                ),
            })
        })
        .collect()
}

fn claim(kind: CodeKind, value: &str, path: String, owner: Option<&CodeOwner>) -> CodeClaim {
    CodeClaim {
        kind,
        value: value.to_owned(),
        path,
        owner: owner.cloned(),
    }
}

/// The codes a variant's own members give, under `prefix` (`""`, `variants[2].`).
pub(super) fn variant_claims(
    prefix: &str,
    sku: Option<&str>,
    barcode: Option<&str>,
    owner: Option<&CodeOwner>,
) -> Vec<CodeClaim> {
    let sku = sku.map(|sku| claim(CodeKind::Sku, sku, format!("{prefix}sku"), owner));
    let barcode = barcode.map(|code| {
        let path = format!("{prefix}barcode");
        claim(CodeKind::Barcode, code, path, owner)
    });
    sku.into_iter().chain(barcode).collect()
}

impl NewProduct {
    /// Every code of the create, in the body's order: the product's, then each variant's.
    pub fn code_claims(&self) -> Vec<CodeClaim> {
        let variants = self.variants().iter();
        create_claims(
            self.sku.as_deref(),
            self.ean.as_deref(),
            variants.map(|variant| (variant.sku.as_deref(), variant.barcode.as_deref())),
        )
    }
}

/// The codes of a create's body: the product's `sku` and `ean`, then each variant's `sku` and
/// `barcode` under `variants[i]`.
pub(super) fn create_claims<'a>(
    sku: Option<&str>,
    ean: Option<&str>,
    variants: impl Iterator<Item = (Option<&'a str>, Option<&'a str>)>,
) -> Vec<CodeClaim> {
    let mut claims = Vec::new();
    claims.extend(sku.map(|sku| claim(CodeKind::Sku, sku, "sku".into(), None)));
    claims.extend(ean.map(|ean| claim(CodeKind::Barcode, ean, "ean".into(), None)));
    for (index, (sku, barcode)) in variants.enumerate() {
        let prefix = format!("{VARIANTS}[{index}].");
        claims.extend(variant_claims(&prefix, sku, barcode, None));
    }
    claims
}

impl NewVariant {
    /// The codes of an added variant.
    pub fn code_claims(&self) -> Vec<CodeClaim> {
        variant_claims("", self.sku.as_deref(), self.barcode.as_deref(), None)
    }
}

impl ProductPatch {
    /// The codes the patch gives `current` that it does not hold already.
    pub fn code_claims(&self, current: &Product) -> Vec<CodeClaim> {
        let owner = Some(CodeOwner::Product(current.id.clone()));
        let sku = newly_given(&self.sku, &current.sku);
        let ean = newly_given(&self.ean, &current.ean);
        let sku = sku.map(|sku| claim(CodeKind::Sku, sku, "sku".into(), owner.as_ref()));
        let ean = ean.map(|ean| claim(CodeKind::Barcode, ean, "ean".into(), owner.as_ref()));
        sku.into_iter().chain(ean).collect()
    }
}

impl VariantPatch {
    /// The codes the patch gives `current` that it does not hold already.
    pub fn code_claims(&self, current: &Variant) -> Vec<CodeClaim> {
        let owner = CodeOwner::Variant(current.id.clone());
        let sku = newly_given(&self.sku, &current.sku);
        let barcode = newly_given(&self.barcode, &current.barcode);
        variant_claims("", sku, barcode, Some(&owner))
    }
}

/// The value a patch member gives, unless the row holds it already.
fn newly_given<'a>(given: &'a Option<Option<String>>, held: &Option<String>) -> Option<&'a str> {
    match given {
        Some(Some(value)) if held.as_ref() != Some(value) => Some(value),
        _ => None,
    }
}
