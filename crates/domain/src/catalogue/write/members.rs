//! The members' JSON names, for the delivery adapter's reader: what each object of a product
//! write takes, what it requires, what may be `null`, and what the representation shows that
//! no write takes ("is read-only", not "is not a known field").

/// The product's writable members, on a create and a patch alike (a create also takes
/// [`VARIANTS`]).
pub const PRODUCT_MEMBERS: &[&str] = &[
    "name",
    "productType",
    "ean",
    "sku",
    "priceCents",
    "listPriceCents",
    "compareAtPriceCents",
    "promoActive",
    "taxRate",
    "active",
    "tags",
    "photos",
    "category",
    "brand",
];

/// The variants of a create. A patch of the product refuses it: variants are written at
/// `/products/{id}/variants`.
pub const VARIANTS: &str = "variants";

/// What a product create requires; the reader reports the absence of each.
pub const PRODUCT_REQUIRED_MEMBERS: &[&str] = &["name", "priceCents", "taxRate", VARIANTS];

/// The product's members that `null` clears.
pub const PRODUCT_NULLABLE_MEMBERS: &[&str] =
    &["ean", "sku", "compareAtPriceCents", "category", "brand"];

/// Members the product's representation shows and no write takes: stock moves through
/// `POST /stock/adjustments`, tracking is switched in the console, ids and times are the
/// service's.
pub const PRODUCT_READ_ONLY_MEMBERS: &[&str] = &[
    "id",
    "trackStock",
    "stockQuantity",
    "createdAt",
    "updatedAt",
];

/// A variant's writable members, in a create's `variants`, an added variant and a patch.
pub const VARIANT_MEMBERS: &[&str] = &[
    "label",
    "sku",
    "barcode",
    "swatchColor",
    "priceCents",
    "lowStockThreshold",
    "isDefault",
    "active",
    "order",
];

/// What a new variant requires.
pub const VARIANT_REQUIRED_MEMBERS: &[&str] = &["label"];

/// The variant's members that `null` clears.
pub const VARIANT_NULLABLE_MEMBERS: &[&str] = &["sku", "barcode", "swatchColor"];

/// Members a variant shows (`stock` in the product, `tracked` in the stock list) and no write
/// takes.
pub const VARIANT_READ_ONLY_MEMBERS: &[&str] = &["id", "stock", "tracked"];

/// `category` and `brand`: exactly one of the two.
pub const REFERENCE_MEMBERS: &[&str] = &["id", "name"];
