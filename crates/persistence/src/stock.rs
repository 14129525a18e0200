//! `StockRepository`: the stock list (one query per page), adjustments (one transaction each,
//! see [`adjust`]) and the movement list.
//!
//! A stock line is a variant joined with its product, both matched on the shop: the product
//! gives the name, `trackStock` and half of `active`. `q` searches `variants.search_text`
//! (`stock_search_text`: the product's name and codes and this variant's own codes, so that a
//! sibling's SKU does not match), which the import rewrites with every variant it writes.

mod adjust;

use async_trait::async_trait;
use diesel::dsl::exists;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::id::{ShopId, VariantId};
use shop_domain::stock::{StockEntry, StockListQuery, StockMovement};
use shop_ports::StoreError;
use shop_ports::port::{AdjustmentCommand, AdjustmentOutcome, StockRepository};

use crate::catalogue::contains_pattern;
use crate::database::{Database, in_transaction, with_conn};
use crate::error::DbError;
use crate::rows::{MovementRow, StockEntryRow};
use crate::schema::{products, stock_movements, variants};

#[async_trait]
impl StockRepository for Database {
    async fn list_stock(
        &self,
        shop: &ShopId,
        query: &StockListQuery,
    ) -> Result<Vec<StockEntry>, StoreError> {
        let rows: Vec<StockEntryRow> = with_conn!(self, |conn| {
            // The page: chosen on `variants` alone, walking (shop, id) in order and stopping at
            // `limit + 1`; the product's conditions are an EXISTS on it.
            let product = products::table
                .filter(products::id.eq(variants::product_id))
                .filter(products::shop_id.eq(variants::shop_id))
                .select(products::id);
            let mut page = variants::table
                .filter(variants::shop_id.eq(shop.as_str()))
                .select(variants::id)
                .order(variants::id.asc())
                .limit(i64::try_from(query.limit.get() + 1).unwrap_or(i64::MAX))
                .into_boxed();
            // `StockEntry::is_low_stock`: tracked and at or below the threshold.
            page = if query.tracked_only || query.low_stock_only {
                page.filter(exists(product.filter(products::track_stock.eq(true))))
            } else {
                page.filter(exists(product))
            };
            if query.low_stock_only {
                page = page.filter(variants::stock.le(variants::low_stock_threshold));
            }
            if let Some(after) = &query.after {
                page = page.filter(variants::id.gt(after.as_str()));
            }
            if let Some(product) = &query.product_id {
                page = page.filter(variants::product_id.eq(product.as_str()));
            }
            if let Some(term) = &query.search {
                page = page.filter(
                    variants::search_text
                        .like(contains_pattern(term.as_str()))
                        .escape('\\'),
                );
            }
            // The page's lines. Deliberately no condition on `shop_id` here (the page has
            // them): SQLite would carry `shop_id = ?` over to `products` through the join and,
            // without ANALYZE statistics, which take any equality on shop_id for about ten
            // rows, start from the shop's products and sort all their variants.
            variants::table
                .inner_join(
                    products::table.on(products::id
                        .eq(variants::product_id)
                        .and(products::shop_id.eq(variants::shop_id))),
                )
                .filter(variants::id.eq_any(page))
                // In `StockEntryRow`'s field order.
                .select((
                    variants::id,
                    variants::product_id,
                    products::name,
                    variants::label,
                    variants::sku,
                    variants::barcode,
                    products::track_stock,
                    variants::stock,
                    variants::low_stock_threshold,
                    variants::active,
                    products::active,
                ))
                .order(variants::id.asc())
                .load(conn)
                .await
        })?;
        Ok(rows
            .into_iter()
            .map(StockEntryRow::into_domain)
            .collect::<Result<_, _>>()?)
    }

    async fn adjust_stock(
        &self,
        command: &AdjustmentCommand,
    ) -> Result<AdjustmentOutcome, StoreError> {
        // At most two attempts: a second one only after losing the race for the idempotency
        // key to a concurrent request (PostgreSQL), whose record it then finds and replays.
        let mut lost_race = false;
        loop {
            let outcome: Result<AdjustmentOutcome, DbError> =
                in_transaction!(self, |conn| adjust::adjust(conn, command).await);
            match outcome {
                Err(error) if !lost_race && adjust::lost_key_race(&error) => {
                    tracing::debug!("idempotency key taken concurrently: replaying");
                    lost_race = true;
                }
                other => return Ok(other?),
            }
        }
    }

    async fn list_movements(
        &self,
        shop: &ShopId,
        variant: Option<VariantId>,
    ) -> Result<Vec<StockMovement>, StoreError> {
        let rows: Vec<MovementRow> = with_conn!(self, |conn| {
            let mut select = stock_movements::table
                .filter(stock_movements::shop_id.eq(shop.as_str()))
                .select(MovementRow::as_select())
                .order((
                    stock_movements::created_at_ms.desc(),
                    stock_movements::id.desc(),
                ))
                .into_boxed();
            if let Some(variant) = &variant {
                select = select.filter(stock_movements::variant_id.eq(variant.as_str()));
            }
            select.load(conn).await
        })?;
        Ok(rows
            .into_iter()
            .map(MovementRow::into_domain)
            .collect::<Result<_, _>>()?)
    }
}
