//! One stock adjustment, inside the caller's transaction.
//!
//! Order of work: (a) with an idempotency key, delete its record if expired, then replay a live
//! one (or refuse it for another request); (b) find the shop's variant, its product and the
//! variant's own `track_stock`; (c) move the product's `updated_at`, `UPDATE variants SET stock =
//! stock + delta … RETURNING stock`, insert the movement; (d) record the result under the key.
//! The variant's `stock_updated_at` moves with its stock (the stock entry's `updatedAt`), and
//! the product's `updated_at` too, since its `stockQuantity` changed: each to the request's
//! time, or past its last value (`sql/stamp.rs`).
//!
//! **No lost update.** The stock changes by one relative `UPDATE`, never by writing back a value
//! read earlier. On PostgreSQL the row lock it takes makes a concurrent adjustment of the same
//! variant wait, then add to the committed value; `RETURNING` gives each its own new stock. On
//! SQLite the transaction is `BEGIN IMMEDIATE` (see `in_transaction!`): writers run one after
//! the other.
//!
//! **One application per key.** On SQLite, again, the second request with a key starts after
//! the first committed, and finds its record in (a). On PostgreSQL both may miss it in (a); the
//! second's insert in (d) then waits for the first to commit and fails on the primary key,
//! which rolls back everything it did, stock included. [`overtaken`] recognises that error
//! and the caller runs the transaction once more: it now replays the first one's result.
//!
//! Row locks are taken in one order (the key's expired record, the product, the variant, the
//! key's new record), the import's order for products and variants, and each adjustment
//! touches one variant and one key: no deadlock cycle.

use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as QueryError};
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::api_key::KeyPrefix;
use shop_domain::id::{ShopId, VariantId};
use shop_domain::stock::{AdjustmentResult, MAX_ABS_STOCK, stock_in_range};
use shop_ports::port::{AdjustmentCommand, AdjustmentOutcome, IdempotencyClaim};

use shop_domain::stock::StockAdjustment;
use shop_domain::webhook::StockCause;

use crate::catalogue::CatalogueQueries;
use crate::database::impl_for_each_backend;
use crate::error::DbError;
use crate::rows::{IdempotencyRow, MovementRow, Recorded, RecordedOutcome};
use crate::schema::{idempotency_records, products, stock_movements, variants};
use crate::sql::kept_prepared::KeptPrepared;
use crate::sql::stamp::stamp_after;
use crate::webhooks::outbox::{self, OutboxQueries, OutboxWrite, StockChange};

/// A variant as an adjustment or a switch of tracking finds it.
pub(crate) struct FoundVariant {
    pub product_id: String,
    pub tracked: bool,
    pub stock: i64,
}

/// The statements of one adjustment, implemented for both backends' connections.
pub(crate) trait AdjustQueries {
    /// Deletes the key's record if it was created before `claim.expired_before`, then returns
    /// the live one, if any.
    fn live_record(
        &mut self,
        key_prefix: &KeyPrefix,
        claim: &IdempotencyClaim,
    ) -> impl Future<Output = Result<Option<IdempotencyRow>, DbError>> + Send;

    fn find_movement(
        &mut self,
        shop: &ShopId,
        id: &str,
    ) -> impl Future<Output = Result<Option<MovementRow>, DbError>> + Send;

    /// The shop's variant's product id, its own `track_stock` and its stock; `None` when the
    /// shop has no such variant.
    fn find_variant(
        &mut self,
        shop: &ShopId,
        variant: &VariantId,
    ) -> impl Future<Output = Result<Option<FoundVariant>, DbError>> + Send;

    /// Adds `delta` to the variant's stock if the sum stays within ±`MAX_ABS_STOCK`, stamping
    /// its stock entry with `at`, or a millisecond after its stamp if that is not earlier;
    /// returns the new stock and its stamp, or `None` when the sum would leave that range.
    ///
    /// Never the same stamp or an earlier one: a request is stamped when it arrives, so an
    /// adjustment that waited for a concurrent one of the same variant (its product's row
    /// lock on PostgreSQL, the write turn on SQLite) may carry an earlier stamp than the one
    /// that committed first. Its stock entry's `updatedAt`, and the `stock.updated` that sends
    /// it, must still come after the other's, or a receiver that keeps the latest `updatedAt`
    /// would drop the newer stock as older.
    fn add_stock(
        &mut self,
        shop: &ShopId,
        variant: &VariantId,
        delta: i64,
        at: Timestamp,
    ) -> impl Future<Output = Result<Option<(i64, Timestamp)>, DbError>> + Send;

    /// Stamps the product's `updated_at` after its last (`sql/stamp.rs`), so that `updatedSince`
    /// syncs see the new stock of its variant. The row is written either way: on PostgreSQL
    /// it stays locked to the commit, so two adjustments of one product's variants read the
    /// product for their `product.updated` one after the other, each with the other's stock.
    fn touch_product(
        &mut self,
        shop: &ShopId,
        product: &str,
        at: Timestamp,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    fn insert_movement(
        &mut self,
        row: &MovementRow,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    fn insert_record(
        &mut self,
        row: &IdempotencyRow,
    ) -> impl Future<Output = Result<(), DbError>> + Send;
}

impl_for_each_backend! {
    impl AdjustQueries {
        async fn live_record(
            &mut self,
            key_prefix: &KeyPrefix,
            claim: &IdempotencyClaim,
        ) -> Result<Option<IdempotencyRow>, DbError> {
            let this_key = idempotency_records::api_key_prefix
                .eq(key_prefix.as_str())
                .and(idempotency_records::idempotency_key.eq(claim.key.as_str()));
            diesel::delete(idempotency_records::table)
                .filter(this_key)
                .filter(idempotency_records::created_at_ms.lt(claim.expired_before.millis()))
                .execute(&mut *self)
                .await?;
            Ok(idempotency_records::table
                .filter(this_key)
                .select(IdempotencyRow::as_select())
                .first(&mut *self)
                .await
                .optional()?)
        }

        async fn find_movement(
            &mut self,
            shop: &ShopId,
            id: &str,
        ) -> Result<Option<MovementRow>, DbError> {
            Ok(stock_movements::table
                .filter(stock_movements::shop_id.eq(shop.as_str()))
                .filter(stock_movements::id.eq(id))
                .select(MovementRow::as_select())
                .first(self)
                .await
                .optional()?)
        }

        async fn find_variant(
            &mut self,
            shop: &ShopId,
            variant: &VariantId,
        ) -> Result<Option<FoundVariant>, DbError> {
            // The variant alone: it carries its shop, its product (always in the same shop:
            // the import writes it so) and its own tracking.
            Ok(variants::table
                .filter(variants::shop_id.eq(shop.as_str()))
                .filter(variants::id.eq(variant.as_str()))
                .select((variants::product_id, variants::track_stock, variants::stock))
                .first::<(String, bool, i64)>(self)
                .await
                .optional()?
                .map(|(product_id, tracked, stock)| FoundVariant {
                    product_id,
                    tracked,
                    stock,
                }))
        }

        async fn add_stock(
            &mut self,
            shop: &ShopId,
            variant: &VariantId,
            delta: i64,
            at: Timestamp,
        ) -> Result<Option<(i64, Timestamp)>, DbError> {
            // `stock + delta` within the range, written as a range of `stock` so that the sum
            // is never computed out of it (and the bounds are plain binds).
            let stamp = stamp_after!(variants::stock_updated_at_ms, at);
            let update = diesel::update(variants::table)
                .filter(variants::shop_id.eq(shop.as_str()))
                .filter(variants::id.eq(variant.as_str()))
                .filter(variants::stock.between(-MAX_ABS_STOCK - delta, MAX_ABS_STOCK - delta))
                .set((
                    variants::stock.eq(variants::stock + delta),
                    variants::stock_updated_at_ms.eq(stamp),
                ))
                .returning((variants::stock, variants::stock_updated_at_ms));
            let updated: Option<(i64, i64)> = KeptPrepared(update).get_result(self).await.optional()?;
            Ok(updated.map(|(stock, stamped)| (stock, Timestamp::from_millis(stamped))))
        }

        async fn touch_product(
            &mut self,
            shop: &ShopId,
            product: &str,
            at: Timestamp,
        ) -> Result<(), DbError> {
            let later = stamp_after!(products::updated_at_ms, at);
            let update = diesel::update(products::table)
                .filter(products::shop_id.eq(shop.as_str()))
                .filter(products::id.eq(product))
                .set(products::updated_at_ms.eq(later));
            KeptPrepared(update).execute(self).await?;
            Ok(())
        }

        async fn insert_movement(&mut self, row: &MovementRow) -> Result<(), DbError> {
            let insert = diesel::insert_into(stock_movements::table).values(row);
            KeptPrepared(insert).execute(self).await?;
            Ok(())
        }

        async fn insert_record(&mut self, row: &IdempotencyRow) -> Result<(), DbError> {
            let insert = diesel::insert_into(idempotency_records::table).values(row);
            KeptPrepared(insert).execute(self).await?;
            Ok(())
        }
    }
}

/// The whole adjustment, on a connection already inside the transaction.
pub(super) async fn adjust<C: AdjustQueries + CatalogueQueries + OutboxQueries + Send>(
    conn: &mut C,
    command: &AdjustmentCommand,
    outbox: Option<&OutboxWrite<'_>>,
) -> Result<AdjustmentOutcome, DbError> {
    if let Some(claim) = &command.idempotency
        && let Some(record) = conn.live_record(&command.key_prefix, claim).await?
    {
        if record.fingerprint != claim.fingerprint {
            return Ok(AdjustmentOutcome::KeyReused);
        }
        let first = replay(conn, &command.shop, &record).await?;
        return Ok(AdjustmentOutcome::Replayed(first));
    }
    let (result, stamped) = decide_and_apply(conn, command).await?;
    if let (Some(outbox), AdjustmentResult::Applied(applied)) = (outbox, &result) {
        append_events(conn, outbox, command, applied, stamped).await?;
    }
    if let Some(claim) = &command.idempotency {
        let movement_id = match &result {
            AdjustmentResult::Applied(applied) => Some(applied.movement_id.as_str().to_owned()),
            AdjustmentResult::VariantNotFound
            | AdjustmentResult::NotTracked
            | AdjustmentResult::OutOfRange => None,
        };
        let record = IdempotencyRow {
            api_key_prefix: command.key_prefix.as_str().to_owned(),
            idempotency_key: claim.key.as_str().to_owned(),
            fingerprint: claim.fingerprint.clone(),
            outcome: RecordedOutcome::of(&result).as_str().to_owned(),
            movement_id,
            loyalty_adjustment_id: None,
            created_at_ms: command.at.millis(),
            resource_id: None,
            member: None,
        };
        conn.insert_record(&record).await?;
    }
    Ok(AdjustmentOutcome::Fresh(result))
}

/// An applied adjustment's two events, at the stock entry's new stamp (`add_stock`):
/// `stock.updated` (with its cause) and `product.updated` (its `stockQuantity` moved).
async fn append_events<C: CatalogueQueries + OutboxQueries + Send>(
    conn: &mut C,
    outbox: &OutboxWrite<'_>,
    command: &AdjustmentCommand,
    applied: &StockAdjustment,
    stamped: Timestamp,
) -> Result<(), DbError> {
    let cause = StockCause::Adjustment {
        movement_id: applied.movement_id.clone(),
        delta: applied.delta,
        reason: command.reason.as_str().to_owned(),
    };
    let change = StockChange {
        shop: &command.shop,
        product: &applied.product_id,
        variant: &applied.variant_id,
        at: stamped,
    };
    outbox::append_stock_change(conn, outbox, change, cause).await
}

/// The first result given under a record: an applied one is rebuilt from its movement, which
/// holds every value the answer had.
async fn replay<C: AdjustQueries + Send>(
    conn: &mut C,
    shop: &ShopId,
    record: &IdempotencyRow,
) -> Result<AdjustmentResult, DbError> {
    match record.recorded()? {
        Recorded::Rejected(result) => Ok(result),
        Recorded::Applied(movement_id) => {
            let movement = conn
                .find_movement(shop, &movement_id)
                .await?
                .ok_or_else(|| {
                    let key = &record.api_key_prefix;
                    DbError::Invariant(format!(
                        "a record of API key {key} names movement {movement_id}, not in this shop"
                    ))
                })?;
            Ok(AdjustmentResult::Applied(movement.into_adjustment()?))
        }
    }
}

/// Steps (b) and (c): refuses an unknown or untracked variant, or a delta that would take its
/// stock out of range, or applies the delta; with the stock entry's stamp (the command's when
/// nothing was applied).
async fn decide_and_apply<C: AdjustQueries + Send>(
    conn: &mut C,
    command: &AdjustmentCommand,
) -> Result<(AdjustmentResult, Timestamp), DbError> {
    let refused = |result| Ok((result, command.at));
    let Some(variant) = &command.variant_id else {
        return refused(AdjustmentResult::VariantNotFound);
    };
    let delta = command.delta.get();
    let product_id = match conn.find_variant(&command.shop, variant).await? {
        None => return refused(AdjustmentResult::VariantNotFound),
        Some(found) if !found.tracked => return refused(AdjustmentResult::NotTracked),
        Some(found) if !stock_in_range(found.stock + delta) => {
            return refused(AdjustmentResult::OutOfRange);
        }
        Some(found) => found.product_id,
    };
    // The product first, then the variant: the import writes them in that order too, so an
    // adjustment and an import that touch the same product cannot deadlock on PostgreSQL.
    conn.touch_product(&command.shop, &product_id, command.at)
        .await?;
    // The range was checked on the stock as read above; on PostgreSQL a concurrent adjustment
    // may have moved it since. The update then changes nothing, and the whole transaction
    // rolls back to be decided again on the stock as it is now (see `overtaken`).
    let (new_stock, stamped) = conn
        .add_stock(&command.shop, variant, delta, command.at)
        .await?
        .ok_or_else(|| {
            DbError::Overtaken(format!(
                "a concurrent adjustment took variant {variant}'s stock near its bound"
            ))
        })?;
    let movement = MovementRow {
        id: command.movement_id.as_str().to_owned(),
        shop_id: command.shop.as_str().to_owned(),
        variant_id: variant.as_str().to_owned(),
        product_id,
        delta,
        previous_stock: new_stock - delta,
        new_stock,
        reason: command.reason.as_str().to_owned(),
        api_key_prefix: command.key_prefix.as_str().to_owned(),
        created_at_ms: command.at.millis(),
    };
    conn.insert_movement(&movement).await?;
    Ok((
        AdjustmentResult::Applied(movement.into_adjustment()?),
        stamped,
    ))
}

/// Runs `transaction` (a whole write, in its own transaction) again after a concurrent request
/// overtook it (PostgreSQL): it took the idempotency key first (its record is then found and
/// replayed), or moved the value near its bound (the bound is then decided on the new value).
/// A third overtaking is answered as the failure it is rather than looped on. A stock
/// adjustment's and an adjustment of points' (`clients/points.rs`) transactions.
pub(crate) async fn deciding_again<T, Attempt>(
    mut transaction: impl FnMut() -> Attempt,
) -> Result<T, DbError>
where
    Attempt: Future<Output = Result<T, DbError>>,
{
    let mut attempts = 0;
    loop {
        attempts += 1;
        match transaction().await {
            Err(error) if attempts < 3 && overtaken(&error) => {
                tracing::debug!(error = %error, "write overtaken: deciding again");
            }
            decided => return decided,
        }
    }
}

/// The error of a request that another transaction overtook, and which is decided again:
/// either it lost the race for its idempotency key (another transaction inserted the same
/// (API key, idempotency key) record first), or a concurrent adjustment moved the stock
/// between its range check and its update. Everything it did was rolled back.
fn overtaken(error: &DbError) -> bool {
    match error {
        DbError::Overtaken(_) => true,
        DbError::Query(QueryError::DatabaseError(DatabaseErrorKind::UniqueViolation, info)) => {
            // PostgreSQL names the table and its `idempotency_records_pkey`; SQLite says
            // `UNIQUE constraint failed: idempotency_records.api_key_prefix, …`.
            [
                info.table_name(),
                info.constraint_name(),
                Some(info.message()),
            ]
            .into_iter()
            .flatten()
            .any(|text| text.contains("idempotency_records"))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unique_violation(message: &str) -> DbError {
        DbError::Query(QueryError::DatabaseError(
            DatabaseErrorKind::UniqueViolation,
            Box::new(message.to_owned()),
        ))
    }

    #[test]
    fn a_taken_idempotency_key_or_a_moved_stock_is_decided_again() {
        assert!(overtaken(&unique_violation(
            "UNIQUE constraint failed: idempotency_records.api_key_prefix, \
             idempotency_records.idempotency_key"
        )));
        assert!(!overtaken(&unique_violation(
            "UNIQUE constraint failed: stock_movements.id"
        )));
        assert!(!overtaken(&DbError::Query(QueryError::NotFound)));
        assert!(overtaken(&DbError::Overtaken("stock".into())));
    }
}
