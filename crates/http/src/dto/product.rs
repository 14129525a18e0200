//! Product and Variant (spec §2).

use serde::Serialize;
use shop_domain::catalogue::{BrandRef, CategoryRef, ProductListing, Variant};
use utoipa::ToSchema;

/// A product with all its variants. Amounts are integer cents.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = Product)]
pub struct ProductDto {
    id: String,
    name: String,
    product_type: String,
    /// Barcode number.
    #[schema(required = true)]
    ean: Option<String>,
    #[schema(required = true)]
    sku: Option<String>,
    price_cents: i64,
    list_price_cents: i64,
    #[schema(required = true)]
    compare_at_price_cents: Option<i64>,
    promo_active: bool,
    /// VAT rate, a decimal string with two decimals (`"20.00"`, `"5.50"`), never a number.
    #[schema(pattern = r"^(100\.00|[1-9]?[0-9]\.[0-9]{2})$", examples("20.00"))]
    tax_rate: String,
    active: bool,
    track_stock: bool,
    /// The sum of every variant's stock, inactive ones included; `null` when the product does
    /// not track stock.
    #[schema(required = true)]
    stock_quantity: Option<i64>,
    tags: Vec<String>,
    /// Photo URLs.
    photos: Vec<String>,
    #[schema(required = true)]
    category: Option<RefDto>,
    #[schema(required = true)]
    brand: Option<RefDto>,
    /// By `order`, then id. `GET /products` leaves inactive variants out unless `active=all`;
    /// `GET /products/{id}` always includes them.
    variants: Vec<VariantDto>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
}

/// A category or a brand.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = NamedRef)]
struct RefDto {
    id: String,
    name: String,
}

/// A variant of a product.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = Variant)]
struct VariantDto {
    id: String,
    label: String,
    #[schema(required = true)]
    sku: Option<String>,
    #[schema(required = true)]
    barcode: Option<String>,
    /// `#RRGGBB`, upper case.
    #[schema(required = true, pattern = "^#[0-9A-F]{6}$")]
    swatch_color: Option<String>,
    price_cents: i64,
    stock: i64,
    low_stock_threshold: i64,
    is_default: bool,
    active: bool,
    /// Display position, from 0.
    order: i32,
}

impl From<&ProductListing> for ProductDto {
    fn from(listing: &ProductListing) -> Self {
        let product = &listing.product;
        Self {
            id: product.id.to_string(),
            name: product.name.clone(),
            product_type: product.product_type.clone(),
            ean: product.ean.clone(),
            sku: product.sku.clone(),
            price_cents: product.price.get(),
            list_price_cents: product.list_price.get(),
            compare_at_price_cents: product.compare_at_price.map(|price| price.get()),
            promo_active: product.promo_active,
            tax_rate: product.tax_rate.to_string(),
            active: product.active,
            track_stock: product.track_stock,
            stock_quantity: listing.stock_quantity,
            tags: product.tags.clone(),
            photos: product.photos.clone(),
            category: product.category.as_ref().map(RefDto::from),
            brand: product.brand.as_ref().map(RefDto::from),
            variants: product.variants.iter().map(VariantDto::from).collect(),
            created_at: product.created_at.to_rfc3339(),
            updated_at: product.updated_at.to_rfc3339(),
        }
    }
}

impl From<&CategoryRef> for RefDto {
    fn from(category: &CategoryRef) -> Self {
        Self {
            id: category.id.to_string(),
            name: category.name.clone(),
        }
    }
}

impl From<&BrandRef> for RefDto {
    fn from(brand: &BrandRef) -> Self {
        Self {
            id: brand.id.to_string(),
            name: brand.name.clone(),
        }
    }
}

impl From<&Variant> for VariantDto {
    fn from(variant: &Variant) -> Self {
        Self {
            id: variant.id.to_string(),
            label: variant.label.clone(),
            sku: variant.sku.clone(),
            barcode: variant.barcode.clone(),
            swatch_color: variant.swatch_color.as_ref().map(|color| color.to_string()),
            price_cents: variant.price.get(),
            stock: variant.stock,
            low_stock_threshold: variant.low_stock_threshold,
            is_default: variant.is_default,
            active: variant.active,
            order: variant.order,
        }
    }
}
