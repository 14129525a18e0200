//! Importing the catalogue: products (with their category, brand and variants) and loyalty
//! tiers.

use std::collections::HashMap;

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::catalogue::Product;
use shop_domain::id::{ProductId, ShopId, TierId};
use shop_domain::import::{ImportDecision, ImportedProduct, decide_product_import};
use shop_domain::loyalty::LoyaltyTier;
use shop_domain::stock::stock_entry_changed;
use shop_ports::port::ImportCounts;

use super::changes::ImportChanges;
use super::{IDS_PER_QUERY, ImportConnection, check_written, only_in_shop};
use crate::catalogue::Selection;
use crate::database::impl_for_each_backend;
use crate::error::DbError;
use crate::rows::{BrandRow, CategoryRow, NewVariantRow, ProductRow, TierRow, VariantRow};
use crate::schema::{brands, categories, loyalty_tiers, products, variants};

/// Every row one product write touches.
pub(super) struct ProductWrite {
    category: Option<CategoryRow>,
    brand: Option<BrandRow>,
    product: ProductRow,
    variants: Vec<VariantWrite>,
}

/// A variant's row, and whether its stock entry changed (its `updatedAt` then moves to the
/// import's time; otherwise it keeps the stored one).
struct VariantWrite {
    row: NewVariantRow,
    entry_changed: bool,
}

impl ProductWrite {
    /// `stored`: the product as it was before this import, if it existed.
    fn new(
        shop: &ShopId,
        product: &Product,
        stored: Option<&Product>,
        now: Timestamp,
    ) -> Result<Self, DbError> {
        Ok(Self {
            category: product.category.as_ref().map(|category| CategoryRow {
                id: category.id.as_str().to_owned(),
                shop_id: shop.as_str().to_owned(),
                name: category.name.clone(),
            }),
            brand: product.brand.as_ref().map(|brand| BrandRow {
                id: brand.id.as_str().to_owned(),
                shop_id: shop.as_str().to_owned(),
                name: brand.name.clone(),
            }),
            product: ProductRow::from_domain(shop, product)?,
            // Every variant, the kept ones included (`decide_product_import` adds the stored
            // variants the file does not mention): each row's search text repeats the
            // product's name and codes, so a renamed product must refresh all of them.
            variants: product
                .variants
                .iter()
                .map(|variant| {
                    let before = stored.and_then(|stored| {
                        let old = stored.variants.iter().find(|old| old.id == variant.id)?;
                        Some((stored, old))
                    });
                    VariantWrite {
                        row: NewVariantRow {
                            row: VariantRow::from_domain(shop, product, variant),
                            stock_updated_at_ms: now.millis(),
                        },
                        entry_changed: stock_entry_changed(before, (product, variant)),
                    }
                })
                .collect(),
        })
    }
}

/// The catalogue import's own queries, implemented for both backends' connections.
pub(super) trait CatalogueWrites {
    fn load_tiers(
        &mut self,
        shop: &ShopId,
        ids: &[String],
    ) -> impl Future<Output = Result<Vec<TierRow>, DbError>> + Send;

    /// Upserts the product's category, brand, row and variants, in that order (foreign keys).
    fn write_product(
        &mut self,
        shop: &ShopId,
        rows: &ProductWrite,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    fn write_tier(
        &mut self,
        shop: &ShopId,
        row: &TierRow,
    ) -> impl Future<Output = Result<(), DbError>> + Send;
}

impl_for_each_backend! {
    impl CatalogueWrites {
        async fn load_tiers(
            &mut self,
            shop: &ShopId,
            ids: &[String],
        ) -> Result<Vec<TierRow>, DbError> {
            Ok(loyalty_tiers::table
                .filter(loyalty_tiers::shop_id.eq(shop.as_str()))
                .filter(loyalty_tiers::id.eq_any(ids))
                .select(TierRow::as_select())
                .load(self)
                .await?)
        }

        async fn write_product(
            &mut self,
            shop: &ShopId,
            rows: &ProductWrite,
        ) -> Result<(), DbError> {
            if let Some(category) = &rows.category {
                let upsert = diesel::insert_into(categories::table)
                    .values(category)
                    .on_conflict(categories::id)
                    .do_update()
                    .set(category);
                let written = only_in_shop(upsert, categories::shop_id.eq(shop.as_str()))
                    .execute(&mut *self)
                    .await?;
                check_written(written, "category", &category.id)?;
            }
            if let Some(brand) = &rows.brand {
                let upsert = diesel::insert_into(brands::table)
                    .values(brand)
                    .on_conflict(brands::id)
                    .do_update()
                    .set(brand);
                let written = only_in_shop(upsert, brands::shop_id.eq(shop.as_str()))
                    .execute(&mut *self)
                    .await?;
                check_written(written, "brand", &brand.id)?;
            }
            let upsert = diesel::insert_into(products::table)
                .values(&rows.product)
                .on_conflict(products::id)
                .do_update()
                .set(&rows.product);
            let written = only_in_shop(upsert, products::shop_id.eq(shop.as_str()))
                .execute(&mut *self)
                .await?;
            check_written(written, "product", &rows.product.id)?;
            for variant in &rows.variants {
                let new = &variant.row;
                let insert = diesel::insert_into(variants::table).values(new);
                let same_owner = variants::shop_id
                    .eq(shop.as_str())
                    .and(variants::product_id.eq(&new.row.product_id));
                let written = if variant.entry_changed {
                    let stamped = (
                        &new.row,
                        variants::stock_updated_at_ms.eq(new.stock_updated_at_ms),
                    );
                    let upsert = insert.on_conflict(variants::id).do_update().set(stamped);
                    only_in_shop(upsert, same_owner).execute(&mut *self).await?
                } else {
                    let upsert = insert.on_conflict(variants::id).do_update().set(&new.row);
                    only_in_shop(upsert, same_owner).execute(&mut *self).await?
                };
                check_written(written, "variant", &new.row.id)?;
            }
            Ok(())
        }

        async fn write_tier(
            &mut self,
            shop: &ShopId,
            row: &TierRow,
        ) -> Result<(), DbError> {
            let upsert = diesel::insert_into(loyalty_tiers::table)
                .values(row)
                .on_conflict(loyalty_tiers::id)
                .do_update()
                .set(row);
            let written = only_in_shop(upsert, loyalty_tiers::shop_id.eq(shop.as_str()))
                .execute(self)
                .await?;
            check_written(written, "loyalty tier", &row.id)
        }
    }
}

/// Loads the stored version of every product in the file, lets `decide_product_import`
/// choose, and writes only the products it says changed.
pub(super) async fn import_products<C: ImportConnection>(
    conn: &mut C,
    shop: &ShopId,
    products: Vec<ImportedProduct>,
    now: Timestamp,
    changes: &mut ImportChanges,
) -> Result<ImportCounts, DbError> {
    let ids: Vec<ProductId> = products
        .iter()
        .map(|imported| imported.product.id.clone())
        .collect();
    let mut stored: HashMap<ProductId, Product> = HashMap::with_capacity(ids.len());
    for chunk in ids.chunks(IDS_PER_QUERY) {
        for product in conn.load_products(shop, Selection::Ids(chunk)).await? {
            stored.insert(product.id.clone(), product);
        }
    }
    let mut counts = ImportCounts::default();
    for imported in products {
        let existing = stored.get(&imported.product.id);
        match decide_product_import(existing, imported, now) {
            ImportDecision::Unchanged => counts.unchanged += 1,
            ImportDecision::Write(product) => {
                let rows = ProductWrite::new(shop, &product, existing, now)?;
                conn.write_product(shop, &rows).await?;
                changes.product(&product.id, existing.is_none());
                for (variant, write) in product.variants.iter().zip(&rows.variants) {
                    if write.entry_changed {
                        changes.stock_entry(&product.id, &variant.id);
                    }
                }
                counts.written += 1;
            }
        }
    }
    Ok(counts)
}

/// Tiers have no timestamps: one is written when it differs from the stored one.
pub(super) async fn import_tiers<C: ImportConnection>(
    conn: &mut C,
    shop: &ShopId,
    tiers: &[LoyaltyTier],
) -> Result<ImportCounts, DbError> {
    let ids: Vec<String> = tiers
        .iter()
        .map(|tier| tier.id.as_str().to_owned())
        .collect();
    let mut stored: HashMap<TierId, LoyaltyTier> = HashMap::with_capacity(ids.len());
    for chunk in ids.chunks(IDS_PER_QUERY) {
        for row in conn.load_tiers(shop, chunk).await? {
            let tier = row.into_domain()?;
            stored.insert(tier.id.clone(), tier);
        }
    }
    let mut counts = ImportCounts::default();
    for tier in tiers {
        if stored.get(&tier.id) == Some(tier) {
            counts.unchanged += 1;
        } else {
            conn.write_tier(shop, &TierRow::from_domain(shop, tier))
                .await?;
            counts.written += 1;
        }
    }
    Ok(counts)
}
