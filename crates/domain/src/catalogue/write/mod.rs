//! An integration's writes of the catalogue (API v2, issue 35): `POST /products`,
//! `PATCH /products/{id}`, `POST /products/{id}/variants` and
//! `PATCH /products/{id}/variants/{variantId}`.
//!
//! The delivery adapter reads each member by its JSON type (reporting a missing, mistyped or
//! `null`-where-not-nullable one, and the read-only and unknown members, with the lists of
//! [`members`]) into the `*Input` structs; `TryFrom` holds what it got to the rules here and
//! returns every problem at once, each under its path (`name`, `category.name`,
//! `variants[1].sku`). Persistence then calls, inside its transaction, the pure steps that need
//! the stored product: [`ProductPatch::apply`], [`VariantPatch::apply`],
//! [`NewVariant::add_to`] (which keep exactly one default variant, [`default_variant`]), and
//! looks for the codes a write claims ([`CodeClaim`]) among the shop's other products and
//! variants.
//!
//! Decisions (for `docs/api-decisions.md`):
//! - A create needs `name`, `priceCents`, `taxRate` and 1 to 100 `variants`, each with a
//!   `label`; everything else has the import's default: `productType` `"simple"`,
//!   `listPriceCents` = `priceCents`, `promoActive` false, `active` true, no `ean`, `sku`,
//!   `compareAtPriceCents`, tags, photos, category or brand. A variant's `priceCents` is its
//!   product's, `lowStockThreshold` 0, `active` true, `order` its index in the array (an added
//!   variant: after the last one); it starts with stock 0 and tracking off.
//! - A patch changes only the members it gives (`listPriceCents` does not follow
//!   `priceCents`); one that gives the current values changes nothing.
//! - Texts are trimmed. A blank `ean`, `sku`, `barcode` or `swatchColor` is no value, as
//!   `null` is (as for the client writes: `""` is never stored).
//! - SKUs and barcodes are compared exactly, as stored (trimmed, case kept): they are codes,
//!   like `productType`. The product's `sku` and every variant's `sku` are one namespace, the
//!   product's `ean` and every variant's `barcode` another. A code given twice in one body is
//!   a problem on the later member; a code another row of the shop holds is persistence's to
//!   refuse (resending a row's own code is no conflict).
//! - Bounds: names and labels 1 to 200 characters; `productType` a code of 1 to 64 characters,
//!   any value (the import takes any; the catalogue's are `simple` and `variable`); codes at
//!   most 64 characters, no control character; at most 50 tags of 1 to 50 characters, kept
//!   once each; at most 20 photos, each an absolute `https` URL of at most 2,048 characters
//!   without credentials, stored as the URL standard writes it; prices 0 to 10^12 cents;
//!   `lowStockThreshold` 0 to 10^12 (a stock's bound); `order` 0 to 10,000; at most 100
//!   variants, on a create and when one is added.
//! - The default variant: see [`default_variant`]. `category` and `brand`: see
//!   [`CatalogueReference`].

pub mod default_variant;
pub mod members;

mod codes;
mod fingerprint;
mod new_product;
mod product_fields;
mod reference;
mod rules;
mod variant_apply;
mod variant_fields;

pub use codes::{CodeClaim, CodeKind, CodeOwner, duplicate_codes};
pub use default_variant::{DefaultOnAdd, LAST_DEFAULT_MESSAGE, VariantWriteRefusal};
pub use new_product::NewProduct;
pub use product_fields::{ProductInput, ProductPatch};
pub use reference::{CatalogueReference, ReferenceInput};
pub use rules::{
    DEFAULT_PRODUCT_TYPE, MAX_CODE_CHARS, MAX_PHOTO_URL_CHARS, MAX_PHOTOS, MAX_PRICE_CENTS,
    MAX_PRODUCT_TYPE_CHARS, MAX_VARIANT_ORDER, MAX_VARIANTS,
};
pub use variant_apply::{VariantAdded, VariantPatched};
pub use variant_fields::{NewVariant, VariantInput, VariantPatch};

#[cfg(test)]
mod tests;
