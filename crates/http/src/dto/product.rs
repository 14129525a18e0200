//! Product and Variant (spec §2).

use serde::Serialize;
use shop_domain::catalogue::{BrandRef, CategoryRef, ProductListing, Variant};

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProductDto {
    id: String,
    name: String,
    product_type: String,
    ean: Option<String>,
    sku: Option<String>,
    price_cents: i64,
    list_price_cents: i64,
    compare_at_price_cents: Option<i64>,
    promo_active: bool,
    /// A decimal string with two decimals (`"20.00"`), never a JSON number.
    tax_rate: String,
    active: bool,
    track_stock: bool,
    /// Over all variants, inactive ones included; `null` when stock is not tracked.
    stock_quantity: Option<i64>,
    tags: Vec<String>,
    photos: Vec<String>,
    category: Option<RefDto>,
    brand: Option<RefDto>,
    variants: Vec<VariantDto>,
    created_at: String,
    updated_at: String,
}

/// `{id, name}` of a category or a brand.
#[derive(Debug, Serialize)]
struct RefDto {
    id: String,
    name: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct VariantDto {
    id: String,
    label: String,
    sku: Option<String>,
    barcode: Option<String>,
    swatch_color: Option<String>,
    price_cents: i64,
    stock: i64,
    low_stock_threshold: i64,
    is_default: bool,
    active: bool,
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
