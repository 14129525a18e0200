//! The product catalogue: products, their variants, and how the list endpoint selects them.

pub(crate) mod product;
mod query;
pub mod write;

pub use product::{BrandRef, CategoryRef, Product, ProductListing, Variant};
pub use query::{
    ActiveFilter, InvalidActiveFilter, ProductListQuery, product_cursor, product_cursor_position,
};
pub use write::{
    CatalogueReference, NewProduct, NewVariant, ProductInput, ProductPatch, ReferenceInput,
    VariantInput, VariantPatch,
};
