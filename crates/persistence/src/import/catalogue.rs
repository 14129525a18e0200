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
use shop_ports::port::ImportCounts;

use super::changes::ImportChanges;
use super::{IDS_PER_QUERY, ImportConnection};
use crate::catalogue::Selection;
use crate::catalogue::write::ProductWrite;
use crate::database::impl_for_each_backend;
use crate::error::DbError;
use crate::rows::TierRow;
use crate::schema::loyalty_tiers;
use crate::sql::shop_upsert::{check_written, only_in_shop};

/// The catalogue import's own queries (its products are written by `ProductWrites`),
/// implemented for both backends' connections.
pub(super) trait CatalogueWrites {
    fn load_tiers(
        &mut self,
        shop: &ShopId,
        ids: &[String],
    ) -> impl Future<Output = Result<Vec<TierRow>, DbError>> + Send;

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
