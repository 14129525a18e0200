//! Catalogue rows: categories, brands, products and variants.

use std::cmp::Ordering;

use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sqlite::Sqlite;
use shop_domain::Timestamp;
use shop_domain::catalogue::{BrandRef, CategoryRef, Product, Variant};
use shop_domain::color::HexColor;
use shop_domain::id::{BrandId, CategoryId, ProductId, ShopId, VariantId};
use shop_domain::money::Cents;
use shop_domain::stock::stock_search_text;
use shop_domain::tax_rate::TaxRate;

use crate::error::DbError;
use crate::schema::{brands, categories, products, variants};
use crate::sql::parents_then_children::ChildRow;

#[derive(Insertable, AsChangeset, PartialEq)]
#[diesel(table_name = categories, check_for_backend(Sqlite, Pg))]
pub(crate) struct CategoryRow {
    pub id: String,
    pub shop_id: String,
    pub name: String,
}

#[derive(Insertable, AsChangeset, PartialEq)]
#[diesel(table_name = brands, check_for_backend(Sqlite, Pg))]
pub(crate) struct BrandRow {
    pub id: String,
    pub shop_id: String,
    pub name: String,
}

/// A product row. As a changeset, `None` writes NULL (an import that drops an EAN clears it).
#[derive(Queryable, Selectable, Insertable, AsChangeset, PartialEq)]
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
    /// Written with every row, never needed when reading one (search filters on the column
    /// in SQL): reads select an empty string instead of carrying the text over the wire. A
    /// bound `''`, not an SQL literal: diesel never caches a statement holding a literal, which
    /// made every read prepared anew (and planned anew on PostgreSQL).
    #[diesel(
        select_expression = diesel::IntoSql::into_sql::<diesel::sql_types::Text>(""),
        select_expression_type = diesel::dsl::AsExprOf<&'static str, diesel::sql_types::Text>
    )]
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

/// What a read selects of a product: its row, and its category's and brand's names, which a
/// LEFT JOIN finds in the same shop.
#[derive(Queryable, Selectable)]
#[diesel(table_name = products, check_for_backend(Sqlite, Pg))]
pub(crate) struct ProductWithNames {
    #[diesel(embed)]
    pub product: ProductRow,
    #[diesel(
        select_expression = categories::name.nullable(),
        select_expression_type = diesel::dsl::Nullable<categories::name>
    )]
    pub category_name: Option<String>,
    #[diesel(
        select_expression = brands::name.nullable(),
        select_expression_type = diesel::dsl::Nullable<brands::name>
    )]
    pub brand_name: Option<String>,
}

impl ProductWithNames {
    pub fn id(&self) -> &str {
        &self.product.id
    }

    /// The product, given its variants in display order.
    pub fn into_domain(self, variants: Vec<Variant>) -> Result<Product, DbError> {
        self.product
            .into_domain(self.category_name, self.brand_name, variants)
    }
}

/// A variant row. `search_text` is derived from the variant and its product, so it is written
/// with every variant row and used only by `GET /stock`'s filter (never read into a `Variant`).
#[derive(Queryable, Selectable, Insertable, AsChangeset, PartialEq)]
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
    /// The variant's own stock tracking (`Variant::tracked`).
    pub track_stock: bool,
    pub position: i32,
    /// Written with every row, never needed when reading one (search filters on the column
    /// in SQL): reads select an empty string instead of carrying the text over the wire. A
    /// bound `''`, not an SQL literal: diesel never caches a statement holding a literal, which
    /// made every read prepared anew (and planned anew on PostgreSQL).
    #[diesel(
        select_expression = diesel::IntoSql::into_sql::<diesel::sql_types::Text>(""),
        select_expression_type = diesel::dsl::AsExprOf<&'static str, diesel::sql_types::Text>
    )]
    pub search_text: String,
}

/// A variant row as written, with the `updatedAt` of its stock entry (`GET /stock`), which
/// the catalogue's reads never need.
#[derive(Insertable)]
#[diesel(table_name = variants, check_for_backend(Sqlite, Pg))]
pub(crate) struct NewVariantRow {
    #[diesel(embed)]
    pub row: VariantRow,
    pub stock_updated_at_ms: i64,
}

impl ChildRow for VariantRow {
    fn parent_id(&self) -> &str {
        &self.product_id
    }

    fn order(&self, other: &Self) -> Ordering {
        (self.position, &self.id).cmp(&(other.position, &other.id))
    }
}

impl VariantRow {
    /// The row of one of `product`'s variants. Its search text includes the product's name and
    /// codes: rewriting a product must rewrite all its variants' rows.
    pub fn from_domain(shop: &ShopId, product: &Product, variant: &Variant) -> Self {
        Self {
            id: variant.id.as_str().to_owned(),
            shop_id: shop.as_str().to_owned(),
            product_id: product.id.as_str().to_owned(),
            label: variant.label.clone(),
            sku: variant.sku.clone(),
            barcode: variant.barcode.clone(),
            swatch_color: variant.swatch_color.as_ref().map(|c| c.as_str().to_owned()),
            price_cents: variant.price.get(),
            stock: variant.stock,
            low_stock_threshold: variant.low_stock_threshold,
            is_default: variant.is_default,
            active: variant.active,
            track_stock: variant.tracked,
            position: variant.order,
            search_text: stock_search_text(product, variant),
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
            tracked: self.track_stock,
            order: self.position,
            label: self.label,
            sku: self.sku,
            barcode: self.barcode,
        })
    }
}
