//! `StockRepository`: the stock list (one query per page), adjustments (one transaction each,
//! see [`adjust`](mod@adjust)), switches of a variant's tracking (one transaction each, see
//! [`tracking`]), the console's activity list (see [`activity`]) and the movement list.
//!
//! A stock line is a variant joined with its product, both matched on the shop: the product
//! gives the name and half of `active`; tracking is the variant's own (`variants.track_stock`,
//! switched in the console). `q` searches `variants.search_text`
//! (`stock_search_text`: the product's name and codes and this variant's own codes, so that a
//! sibling's SKU does not match), which the import rewrites with every variant it writes.

pub(crate) mod activity;
pub(crate) mod adjust;
pub(crate) mod tracking;

use async_trait::async_trait;
use diesel::dsl::exists;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::id::{ShopId, VariantId};
use shop_domain::stock::{ActivityQuery, StockActivity, StockEntry, StockListQuery, StockMovement};
use shop_ports::StoreError;
use shop_ports::port::{
    AdjustmentCommand, AdjustmentOutcome, ReadFrom, StockRepository, TrackingCommand,
    TrackingOutcome,
};

use crate::catalogue::contains_pattern;
use crate::database::write_span::WriteSpan;
use crate::database::{Database, in_transaction, with_conn, with_read_conn, write_transaction};
use crate::rows::{MovementRow, StockEntryRow};
use crate::schema::{products, stock_movements, variants};
use crate::sql::first_rows::{first_rows, in_first_rows};
use activity::ActivityQueries;
use adjust::adjust;
use tracking::SwitchFailure;

#[async_trait]
impl StockRepository for Database {
    async fn list_stock(
        &self,
        shop: &ShopId,
        query: &StockListQuery,
        from: ReadFrom,
    ) -> Result<Vec<StockEntry>, StoreError> {
        let rows: Vec<StockEntryRow> = with_read_conn!(self, from, |conn| {
            // The page: chosen on `variants` alone, walking (shop, id) in order and stopping at
            // `limit + 1`; the product's conditions are an EXISTS on it.
            let product = products::table
                .filter(products::id.eq(variants::product_id))
                .filter(products::shop_id.eq(variants::shop_id))
                .select(products::id);
            let mut page = variants::table
                .filter(variants::shop_id.eq(shop.as_str()))
                .select(variants::id)
                .into_boxed();
            page = match &query.changed {
                None => {
                    if let Some(after) = &query.after {
                        page = page.filter(variants::id.gt(after.as_str()));
                    }
                    page.order(variants::id.asc())
                }
                // `updatedSince`: the walk is (shop_id, stock_updated_at_ms, id), in order.
                Some(changed) => {
                    page = page.filter(variants::stock_updated_at_ms.ge(changed.since.millis()));
                    if let Some((at, id)) = &changed.after {
                        page = page
                            .filter(variants::stock_updated_at_ms.ge(at.millis()))
                            .filter(
                                variants::stock_updated_at_ms
                                    .gt(at.millis())
                                    .or(variants::id.gt(id.as_str())),
                            );
                    }
                    page.order((variants::stock_updated_at_ms.asc(), variants::id.asc()))
                }
            };
            page = page.filter(exists(product));
            // `StockEntry::is_low_stock`: tracked and at or below the threshold. Tracking is
            // the variant's own, read on the row the walk is at.
            if query.tracked_only || query.low_stock_only {
                page = page.filter(variants::track_stock.eq(true));
            }
            if query.low_stock_only {
                page = page.filter(variants::stock.le(variants::low_stock_threshold));
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
            let lines = variants::table
                .inner_join(
                    products::table.on(products::id
                        .eq(variants::product_id)
                        .and(products::shop_id.eq(variants::shop_id))),
                )
                .filter(in_first_rows(
                    variants::id,
                    first_rows(page, query.limit.get() + 1),
                ))
                // In `StockEntryRow`'s field order.
                .select((
                    variants::id,
                    variants::product_id,
                    products::name,
                    variants::label,
                    variants::sku,
                    variants::barcode,
                    variants::track_stock,
                    variants::stock,
                    variants::low_stock_threshold,
                    variants::active,
                    products::active,
                    variants::stock_updated_at_ms,
                ))
                .into_boxed();
            let lines = if query.changed.is_some() {
                lines.order((variants::stock_updated_at_ms.asc(), variants::id.asc()))
            } else {
                lines.order(variants::id.asc())
            };
            lines.load(conn).await
        })?;
        // The page's statement may read a few more than asked for (first_rows.rs).
        Ok(rows
            .into_iter()
            .take(query.limit.get() + 1)
            .map(StockEntryRow::into_domain)
            .collect::<Result<_, _>>()?)
    }

    async fn adjust_stock(
        &self,
        command: &AdjustmentCommand,
    ) -> Result<AdjustmentOutcome, StoreError> {
        let outcome =
            adjust::deciding_again(
                move || async move { write_transaction!(self, adjust(command)) },
            )
            .await?;
        self.remember_write(&command.key_prefix).await;
        Ok(outcome)
    }

    async fn switch_tracking(
        &self,
        command: &TrackingCommand,
    ) -> Result<TrackingOutcome, StoreError> {
        let span = WriteSpan::start();
        let outbox = self.outbox_write();
        let events = outbox.as_ref();
        let outcome: Result<TrackingOutcome, SwitchFailure> = in_transaction!(self, |conn| {
            let outcome = tracking::switch(conn, command, events).await?;
            span.check()?;
            Ok(outcome)
        });
        match outcome {
            Ok(outcome) => {
                self.write_committed(outbox.as_ref());
                Ok(outcome)
            }
            // Rolled back: a concurrent switch made this very change first.
            Err(SwitchFailure::AlreadySo) => Ok(TrackingOutcome::AlreadySo),
            Err(SwitchFailure::Db(error)) => Err(error.into()),
        }
    }

    async fn list_activity(
        &self,
        shop: &ShopId,
        query: &ActivityQuery,
    ) -> Result<Vec<StockActivity>, StoreError> {
        let (movements, switches) = with_conn!(self, |conn| conn.load_activity(shop, query).await)?;
        Ok(activity::merged(query, movements, switches)?)
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
