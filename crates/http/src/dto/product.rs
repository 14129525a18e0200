//! Product and Variant (spec §2).

use serde::Serialize;
use shop_domain::Timestamp;
use shop_domain::catalogue::{BrandRef, CategoryRef, ProductListing, Variant};
use shop_domain::color::HexColor;
use shop_domain::tax_rate::TaxRate;
use utoipa::ToSchema;

use crate::dto::as_text;

/// A product with all its variants. Amounts are integer cents.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = Product)]
pub struct ProductDto<'a> {
    id: &'a str,
    name: &'a str,
    product_type: &'a str,
    /// Barcode number.
    #[schema(required = true)]
    ean: Option<&'a str>,
    #[schema(required = true)]
    sku: Option<&'a str>,
    price_cents: i64,
    list_price_cents: i64,
    #[schema(required = true)]
    compare_at_price_cents: Option<i64>,
    promo_active: bool,
    /// VAT rate, a decimal string with two decimals (`"20.00"`, `"5.50"`), never a number.
    #[schema(value_type = String, pattern = r"^(100\.00|[1-9]?[0-9]\.[0-9]{2})$", examples("20.00"))]
    #[serde(serialize_with = "as_text::serialize")]
    tax_rate: TaxRate,
    active: bool,
    /// Whether the product tracks stock: whether any of its variants does, once a variant's
    /// tracking was switched in the owner's console.
    track_stock: bool,
    /// The sum of the tracked variants' stock, inactive ones included; `null` when the
    /// product does not track stock.
    #[schema(required = true)]
    stock_quantity: Option<i64>,
    tags: &'a [String],
    /// Photo URLs.
    photos: &'a [String],
    #[schema(required = true)]
    category: Option<RefDto<'a>>,
    #[schema(required = true)]
    brand: Option<RefDto<'a>>,
    /// By `order`, then id. `GET /products` leaves inactive variants out unless `active=all`;
    /// `GET /products/{id}` always includes them.
    variants: Vec<VariantDto<'a>>,
    #[schema(value_type = String, format = DateTime)]
    #[serde(serialize_with = "as_text::serialize")]
    created_at: Timestamp,
    #[schema(value_type = String, format = DateTime)]
    #[serde(serialize_with = "as_text::serialize")]
    updated_at: Timestamp,
}

/// A category or a brand.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = NamedRef)]
struct RefDto<'a> {
    id: &'a str,
    name: &'a str,
}

/// A variant of a product.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = Variant)]
struct VariantDto<'a> {
    id: &'a str,
    label: &'a str,
    #[schema(required = true)]
    sku: Option<&'a str>,
    #[schema(required = true)]
    barcode: Option<&'a str>,
    /// `#RRGGBB`, upper case.
    #[schema(value_type = Option<String>, required = true, pattern = "^#[0-9A-F]{6}$")]
    #[serde(serialize_with = "as_text::serialize_optional")]
    swatch_color: Option<&'a HexColor>,
    price_cents: i64,
    stock: i64,
    low_stock_threshold: i64,
    is_default: bool,
    active: bool,
    /// Display position, from 0.
    order: i32,
}

impl<'a> From<&'a ProductListing> for ProductDto<'a> {
    fn from(listing: &'a ProductListing) -> Self {
        let product = &listing.product;
        Self {
            id: product.id.as_str(),
            name: &product.name,
            product_type: &product.product_type,
            ean: product.ean.as_deref(),
            sku: product.sku.as_deref(),
            price_cents: product.price.get(),
            list_price_cents: product.list_price.get(),
            compare_at_price_cents: product.compare_at_price.map(|price| price.get()),
            promo_active: product.promo_active,
            tax_rate: product.tax_rate,
            active: product.active,
            track_stock: product.track_stock,
            stock_quantity: listing.stock_quantity,
            tags: &product.tags,
            photos: &product.photos,
            category: product.category.as_ref().map(RefDto::from),
            brand: product.brand.as_ref().map(RefDto::from),
            variants: product.variants.iter().map(VariantDto::from).collect(),
            created_at: product.created_at,
            updated_at: product.updated_at,
        }
    }
}

impl<'a> From<&'a CategoryRef> for RefDto<'a> {
    fn from(category: &'a CategoryRef) -> Self {
        Self {
            id: category.id.as_str(),
            name: &category.name,
        }
    }
}

impl<'a> From<&'a BrandRef> for RefDto<'a> {
    fn from(brand: &'a BrandRef) -> Self {
        Self {
            id: brand.id.as_str(),
            name: &brand.name,
        }
    }
}

impl<'a> From<&'a Variant> for VariantDto<'a> {
    fn from(variant: &'a Variant) -> Self {
        Self {
            id: variant.id.as_str(),
            label: &variant.label,
            sku: variant.sku.as_deref(),
            barcode: variant.barcode.as_deref(),
            swatch_color: variant.swatch_color.as_ref(),
            price_cents: variant.price.get(),
            stock: variant.stock,
            low_stock_threshold: variant.low_stock_threshold,
            is_default: variant.is_default,
            active: variant.active,
            order: variant.order,
        }
    }
}
