//! Table rows and their conversion to and from domain values.
//!
//! Rows are plain column holders: they never derive `Serialize` and never leave this crate.
//! Reading a row parses every value into its domain type; a value the domain refuses (an
//! unknown scope, a tax rate out of range) is a corrupt row, reported as `DbError::Corrupt`.

use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sqlite::Sqlite;
use shop_domain::Timestamp;
use shop_domain::api_key::{ApiKey, KeyPrefix};
use shop_domain::catalogue::{BrandRef, CategoryRef, Product, Variant};
use shop_domain::color::HexColor;
use shop_domain::id::{BrandId, CategoryId, ProductId, ShopId, TierId, VariantId};
use shop_domain::loyalty::LoyaltyTier;
use shop_domain::money::Cents;
use shop_domain::scope::ScopeSet;
use shop_domain::shop::{Shop, ShopSlug, SubscriptionStatus};
use shop_domain::tax_rate::TaxRate;

use crate::error::DbError;
use crate::schema::{api_keys, brands, categories, loyalty_tiers, products, shops, variants};

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = shops, check_for_backend(Sqlite, Pg))]
pub(crate) struct ShopRow {
    pub id: String,
    pub slug: String,
    pub name: String,
    pub public_api: bool,
    pub subscription: String,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
}

impl ShopRow {
    /// A new shop's row: created and updated at `at`.
    pub fn new(shop: &Shop, at: Timestamp) -> Self {
        Self {
            id: shop.id.as_str().to_owned(),
            slug: shop.slug.as_str().to_owned(),
            name: shop.name.clone(),
            public_api: shop.public_api_in_plan,
            subscription: shop.subscription.as_str().to_owned(),
            created_at_ms: at.millis(),
            updated_at_ms: at.millis(),
        }
    }

    pub fn into_domain(self) -> Result<Shop, DbError> {
        let corrupt =
            |problem: &dyn ToString| DbError::corrupt("shops", &self.id, problem.to_string());
        Ok(Shop {
            id: ShopId::parse(self.id.as_str()).map_err(|e| corrupt(&e))?,
            slug: ShopSlug::parse(&self.slug).map_err(|e| corrupt(&e))?,
            subscription: self
                .subscription
                .parse::<SubscriptionStatus>()
                .map_err(|e| corrupt(&e))?,
            public_api_in_plan: self.public_api,
            name: self.name,
        })
    }
}

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = api_keys, check_for_backend(Sqlite, Pg))]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct ApiKeyRow {
    pub prefix: String,
    pub shop_id: String,
    pub label: String,
    pub scopes: String,
    pub secret_hash: String,
    pub created_at_ms: i64,
    pub expires_at_ms: Option<i64>,
    pub revoked_at_ms: Option<i64>,
}

impl ApiKeyRow {
    pub fn from_domain(key: &ApiKey) -> Self {
        Self {
            prefix: key.prefix.as_str().to_owned(),
            shop_id: key.shop_id.as_str().to_owned(),
            label: key.label.clone(),
            scopes: key.scopes.to_list(),
            secret_hash: key.secret_hash.clone(),
            created_at_ms: key.created_at.millis(),
            expires_at_ms: key.expires_at.map(Timestamp::millis),
            revoked_at_ms: key.revoked_at.map(Timestamp::millis),
        }
    }

    pub fn into_domain(self) -> Result<ApiKey, DbError> {
        let corrupt = |problem: &dyn ToString| {
            DbError::corrupt("api_keys", &self.prefix, problem.to_string())
        };
        Ok(ApiKey {
            prefix: KeyPrefix::parse(&self.prefix).map_err(|e| corrupt(&e))?,
            shop_id: ShopId::parse(self.shop_id.as_str()).map_err(|e| corrupt(&e))?,
            scopes: ScopeSet::parse_list(&self.scopes).map_err(|e| corrupt(&e))?,
            created_at: Timestamp::from_millis(self.created_at_ms),
            expires_at: self.expires_at_ms.map(Timestamp::from_millis),
            revoked_at: self.revoked_at_ms.map(Timestamp::from_millis),
            label: self.label,
            secret_hash: self.secret_hash,
        })
    }
}

#[derive(Insertable, AsChangeset)]
#[diesel(table_name = categories, check_for_backend(Sqlite, Pg))]
pub(crate) struct CategoryRow {
    pub id: String,
    pub shop_id: String,
    pub name: String,
}

#[derive(Insertable, AsChangeset)]
#[diesel(table_name = brands, check_for_backend(Sqlite, Pg))]
pub(crate) struct BrandRow {
    pub id: String,
    pub shop_id: String,
    pub name: String,
}

#[derive(Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = loyalty_tiers, check_for_backend(Sqlite, Pg))]
pub(crate) struct TierRow {
    pub id: String,
    pub shop_id: String,
    pub name: String,
    pub min_points_lifetime: i64,
    pub color: String,
}

impl TierRow {
    pub fn from_domain(shop: &ShopId, tier: &LoyaltyTier) -> Self {
        Self {
            id: tier.id.as_str().to_owned(),
            shop_id: shop.as_str().to_owned(),
            name: tier.name.clone(),
            min_points_lifetime: tier.min_points_lifetime,
            color: tier.color.as_str().to_owned(),
        }
    }

    pub fn into_domain(self) -> Result<LoyaltyTier, DbError> {
        let corrupt = |problem: &dyn ToString| {
            DbError::corrupt("loyalty_tiers", &self.id, problem.to_string())
        };
        Ok(LoyaltyTier {
            id: TierId::parse(self.id.as_str()).map_err(|e| corrupt(&e))?,
            color: HexColor::parse(&self.color).map_err(|e| corrupt(&e))?,
            min_points_lifetime: self.min_points_lifetime,
            name: self.name,
        })
    }
}

/// A product row. As a changeset, `None` writes NULL (an import that drops an EAN clears it).
#[derive(Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = products, check_for_backend(Sqlite, Pg))]
#[diesel(treat_none_as_default_value = false, treat_none_as_null = true)]
pub(crate) struct ProductRow {
    pub id: String,
    pub shop_id: String,
    pub name: String,
    pub product_type: String,
    pub ean: Option<String>,
    pub sku: Option<String>,
    pub price_cents: i64,
    pub list_price_cents: i64,
    pub compare_at_price_cents: Option<i64>,
    pub promo_active: bool,
    pub tax_rate_hundredths: i64,
    pub active: bool,
    pub track_stock: bool,
    pub tags: String,
    pub photos: String,
    pub category_id: Option<String>,
    pub brand_id: Option<String>,
    pub search_text: String,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
}

impl ProductRow {
    pub fn from_domain(shop: &ShopId, product: &Product) -> Result<Self, DbError> {
        let json = |list: &Vec<String>| {
            serde_json::to_string(list)
                .map_err(|e| DbError::corrupt("products", product.id.as_str(), e))
        };
        Ok(Self {
            id: product.id.as_str().to_owned(),
            shop_id: shop.as_str().to_owned(),
            name: product.name.clone(),
            product_type: product.product_type.clone(),
            ean: product.ean.clone(),
            sku: product.sku.clone(),
            price_cents: product.price.get(),
            list_price_cents: product.list_price.get(),
            compare_at_price_cents: product.compare_at_price.map(Cents::get),
            promo_active: product.promo_active,
            tax_rate_hundredths: product.tax_rate.hundredths(),
            active: product.active,
            track_stock: product.track_stock,
            tags: json(&product.tags)?,
            photos: json(&product.photos)?,
            category_id: product.category.as_ref().map(|c| c.id.as_str().to_owned()),
            brand_id: product.brand.as_ref().map(|b| b.id.as_str().to_owned()),
            search_text: product.search_text(),
            created_at_ms: product.created_at.millis(),
            updated_at_ms: product.updated_at.millis(),
        })
    }

    /// The product, given the names its LEFT JOINs found and its variants in display order.
    pub fn into_domain(
        self,
        category_name: Option<String>,
        brand_name: Option<String>,
        variants: Vec<Variant>,
    ) -> Result<Product, DbError> {
        let corrupt =
            |problem: &dyn ToString| DbError::corrupt("products", &self.id, problem.to_string());
        let list = |text: &str| serde_json::from_str::<Vec<String>>(text).map_err(|e| corrupt(&e));
        let category = match (self.category_id.as_deref(), category_name) {
            (None, _) => None,
            (Some(id), Some(name)) => Some(CategoryRef {
                id: CategoryId::parse(id).map_err(|e| corrupt(&e))?,
                name,
            }),
            (Some(_), None) => return Err(corrupt(&"its category is in another shop")),
        };
        let brand = match (self.brand_id.as_deref(), brand_name) {
            (None, _) => None,
            (Some(id), Some(name)) => Some(BrandRef {
                id: BrandId::parse(id).map_err(|e| corrupt(&e))?,
                name,
            }),
            (Some(_), None) => return Err(corrupt(&"its brand is in another shop")),
        };
        Ok(Product {
            id: ProductId::parse(self.id.as_str()).map_err(|e| corrupt(&e))?,
            tax_rate: TaxRate::from_hundredths(self.tax_rate_hundredths)
                .map_err(|e| corrupt(&e))?,
            tags: list(&self.tags)?,
            photos: list(&self.photos)?,
            category,
            brand,
            variants,
            price: Cents(self.price_cents),
            list_price: Cents(self.list_price_cents),
            compare_at_price: self.compare_at_price_cents.map(Cents),
            promo_active: self.promo_active,
            active: self.active,
            track_stock: self.track_stock,
            created_at: Timestamp::from_millis(self.created_at_ms),
            updated_at: Timestamp::from_millis(self.updated_at_ms),
            name: self.name,
            product_type: self.product_type,
            ean: self.ean,
            sku: self.sku,
        })
    }
}

#[derive(Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = variants, check_for_backend(Sqlite, Pg))]
#[diesel(treat_none_as_default_value = false, treat_none_as_null = true)]
pub(crate) struct VariantRow {
    pub id: String,
    pub shop_id: String,
    pub product_id: String,
    pub label: String,
    pub sku: Option<String>,
    pub barcode: Option<String>,
    pub swatch_color: Option<String>,
    pub price_cents: i64,
    pub stock: i64,
    pub low_stock_threshold: i64,
    pub is_default: bool,
    pub active: bool,
    pub position: i32,
}

impl VariantRow {
    pub fn from_domain(shop: &ShopId, product: &ProductId, variant: &Variant) -> Self {
        Self {
            id: variant.id.as_str().to_owned(),
            shop_id: shop.as_str().to_owned(),
            product_id: product.as_str().to_owned(),
            label: variant.label.clone(),
            sku: variant.sku.clone(),
            barcode: variant.barcode.clone(),
            swatch_color: variant.swatch_color.as_ref().map(|c| c.as_str().to_owned()),
            price_cents: variant.price.get(),
            stock: variant.stock,
            low_stock_threshold: variant.low_stock_threshold,
            is_default: variant.is_default,
            active: variant.active,
            position: variant.order,
        }
    }

    pub fn into_domain(self) -> Result<Variant, DbError> {
        let corrupt =
            |problem: &dyn ToString| DbError::corrupt("variants", &self.id, problem.to_string());
        Ok(Variant {
            id: VariantId::parse(self.id.as_str()).map_err(|e| corrupt(&e))?,
            swatch_color: self
                .swatch_color
                .as_deref()
                .map(HexColor::parse)
                .transpose()
                .map_err(|e| corrupt(&e))?,
            price: Cents(self.price_cents),
            stock: self.stock,
            low_stock_threshold: self.low_stock_threshold,
            is_default: self.is_default,
            active: self.active,
            order: self.position,
            label: self.label,
            sku: self.sku,
            barcode: self.barcode,
        })
    }
}
