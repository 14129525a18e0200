//! `PointsLedger`: one adjustment of a client's points, in one transaction.
//!
//! Order of work, as a stock adjustment's (`stock/adjust.rs`): (a) with an idempotency key,
//! its expired record deleted, a live one replayed (or refused for another request); (b) the
//! client's three counters moved by one guarded relative `UPDATE … RETURNING`, its
//! `updated_at` with them; (c) its tier's `achievedAt` when the credit crossed a threshold;
//! (d) the adjustment kept; (e) its `client.updated` event; (f) the result recorded under the
//! key.
//!
//! **No lost update.** The counters change by one relative `UPDATE` whose condition is the
//! balance rule (`PointsBalance::after`) written on the columns, never by writing back values
//! read earlier: on PostgreSQL a concurrent adjustment of the client waits for the row lock,
//! then adds to the committed balance and re-checks the condition on it; on SQLite writers run
//! one after the other. When the condition fails, the balance as it now is tells the refusal.
//! A request that loses the race for its idempotency key is decided again by the caller, as a
//! stock adjustment is (`stock::adjust::overtaken`).

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::id::{ClientId, ShopId};
use shop_domain::loyalty::{MAX_POINTS, PointsBalance, PointsDelta, tier_moved};
use shop_domain::webhook::{EventData, EventType};
use shop_ports::StoreError;
use shop_ports::port::{PointsCommand, PointsLedger, PointsOutcome, PointsResult};

use super::ClientQueries;
use super::loyalty::TierQueries;
use crate::database::{Database, impl_for_each_backend, write_transaction};
use crate::error::DbError;
use crate::rows::{IdempotencyRow, PointsAdjustmentRow, PointsRecorded};
use crate::schema::{clients, loyalty_adjustments};
use crate::sql::kept_prepared::KeptPrepared;
use crate::sql::selection::Selection;
use crate::sql::stamp::stamp_after;
use crate::stock::adjust::{AdjustQueries, deciding_again};
use crate::webhooks::outbox::{self, OutboxQueries, OutboxWrite};

/// The statements of one points adjustment, implemented for both backends' connections.
pub(crate) trait PointsQueries {
    /// Adds `delta` to the shop's client's points (and a credit to its lifetime and all-time
    /// points) if `PointsBalance::after` allows it, stamping its `updated_at` after its last
    /// (`sql/stamp.rs`); the balance after, or `None` when the client is missing or the rule
    /// refuses.
    fn add_points(
        &mut self,
        shop: &ShopId,
        client: &ClientId,
        delta: PointsDelta,
        at: Timestamp,
    ) -> impl Future<Output = Result<Option<PointsBalance>, DbError>> + Send;

    /// The shop's client's balance as it is now; `None` when the shop has no such client.
    fn points_balance(
        &mut self,
        shop: &ShopId,
        client: &ClientId,
    ) -> impl Future<Output = Result<Option<PointsBalance>, DbError>> + Send;

    fn set_tier_achieved(
        &mut self,
        shop: &ShopId,
        client: &ClientId,
        at: Timestamp,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    fn insert_points_adjustment(
        &mut self,
        row: &PointsAdjustmentRow,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    fn find_points_adjustment(
        &mut self,
        shop: &ShopId,
        id: &str,
    ) -> impl Future<Output = Result<Option<PointsAdjustmentRow>, DbError>> + Send;
}

impl_for_each_backend! {
    impl PointsQueries {
        async fn add_points(
            &mut self,
            shop: &ShopId,
            client: &ClientId,
            delta: PointsDelta,
            at: Timestamp,
        ) -> Result<Option<PointsBalance>, DbError> {
            let (points, credited) = (delta.get(), delta.credited());
            // A debit needs the points it takes; a credit applies to any balance.
            let lowest = if points < 0 { -points } else { i64::MIN };
            let later = stamp_after!(clients::updated_at_ms, at);
            // `PointsBalance::after` on the columns, written as ranges of the stored values so
            // that no sum is computed out of range (and the bounds are plain binds).
            let update = diesel::update(clients::table)
                .filter(clients::shop_id.eq(shop.as_str()))
                .filter(clients::id.eq(client.as_str()))
                .filter(clients::points.between(lowest, MAX_POINTS - points))
                .filter(clients::points_lifetime.le(MAX_POINTS - credited))
                .filter(clients::points_all_time.le(MAX_POINTS - credited))
                .set((
                    clients::points.eq(clients::points + points),
                    clients::points_lifetime.eq(clients::points_lifetime + credited),
                    clients::points_all_time.eq(clients::points_all_time + credited),
                    clients::updated_at_ms.eq(later),
                ))
                .returning((clients::points, clients::points_lifetime, clients::points_all_time));
            let row = KeptPrepared(update)
                .get_result::<(i64, i64, i64)>(self)
                .await
                .optional()?;
            Ok(row.map(|(points, lifetime, all_time)| PointsBalance { points, lifetime, all_time }))
        }

        async fn points_balance(
            &mut self,
            shop: &ShopId,
            client: &ClientId,
        ) -> Result<Option<PointsBalance>, DbError> {
            let row = clients::table
                .filter(clients::shop_id.eq(shop.as_str()))
                .filter(clients::id.eq(client.as_str()))
                .select((clients::points, clients::points_lifetime, clients::points_all_time))
                .first::<(i64, i64, i64)>(self)
                .await
                .optional()?;
            Ok(row.map(|(points, lifetime, all_time)| PointsBalance { points, lifetime, all_time }))
        }

        async fn set_tier_achieved(
            &mut self,
            shop: &ShopId,
            client: &ClientId,
            at: Timestamp,
        ) -> Result<(), DbError> {
            let update = diesel::update(clients::table)
                .filter(clients::shop_id.eq(shop.as_str()))
                .filter(clients::id.eq(client.as_str()))
                .set(clients::tier_achieved_at_ms.eq(Some(at.millis())));
            KeptPrepared(update).execute(self).await?;
            Ok(())
        }

        async fn insert_points_adjustment(&mut self, row: &PointsAdjustmentRow) -> Result<(), DbError> {
            KeptPrepared(diesel::insert_into(loyalty_adjustments::table).values(row))
                .execute(self)
                .await?;
            Ok(())
        }

        async fn find_points_adjustment(
            &mut self,
            shop: &ShopId,
            id: &str,
        ) -> Result<Option<PointsAdjustmentRow>, DbError> {
            Ok(loyalty_adjustments::table
                .filter(loyalty_adjustments::shop_id.eq(shop.as_str()))
                .filter(loyalty_adjustments::id.eq(id))
                .select(PointsAdjustmentRow::as_select())
                .first(self)
                .await
                .optional()?)
        }
    }
}

/// The whole adjustment, on a connection already inside the transaction.
pub(super) async fn adjust<C>(
    conn: &mut C,
    command: &PointsCommand,
    outbox: Option<&OutboxWrite<'_>>,
) -> Result<PointsOutcome, DbError>
where
    C: PointsQueries + TierQueries + AdjustQueries + ClientQueries + OutboxQueries + Send,
{
    if let Some(claim) = &command.idempotency
        && let Some(record) = conn.live_record(&command.key_prefix, claim).await?
    {
        if record.fingerprint != claim.fingerprint {
            return Ok(PointsOutcome::KeyReused);
        }
        let first = replay(conn, &command.shop, &record).await?;
        return Ok(PointsOutcome::Replayed(first));
    }
    let result = decide_and_apply(conn, command).await?;
    if let (Some(outbox), PointsResult::Applied(_)) = (outbox, &result) {
        append_event(conn, outbox, command).await?;
    }
    if let Some(claim) = &command.idempotency {
        let (outcome, loyalty_adjustment_id) = PointsRecorded::of_result(&result).columns();
        let record = IdempotencyRow {
            api_key_prefix: command.key_prefix.as_str().to_owned(),
            idempotency_key: claim.key.as_str().to_owned(),
            fingerprint: claim.fingerprint.clone(),
            outcome: outcome.to_owned(),
            movement_id: None,
            created_at_ms: command.at.millis(),
            loyalty_adjustment_id,
            resource_id: None,
            member: None,
        };
        conn.insert_record(&record).await?;
    }
    Ok(PointsOutcome::Fresh(result))
}

/// Steps (b) to (d).
async fn decide_and_apply<C: PointsQueries + TierQueries + Send>(
    conn: &mut C,
    command: &PointsCommand,
) -> Result<PointsResult, DbError> {
    let (shop, client, delta) = (&command.shop, &command.client_id, command.delta);
    let Some(after) = conn.add_points(shop, client, delta, command.at).await? else {
        return match conn.points_balance(shop, client).await? {
            None => Ok(PointsResult::ClientNotFound),
            Some(balance) => match balance.after(delta) {
                Err(refusal) => Ok(PointsResult::Refused(refusal)),
                // The balance allows it now: it moved between the update and this read (a
                // concurrent adjustment's commit). Decided again from the start.
                Ok(_) => Err(DbError::Overtaken(format!(
                    "a concurrent adjustment moved client {client}'s points"
                ))),
            },
        };
    };
    let credited = delta.credited();
    if credited > 0 {
        let tiers = conn.load_tiers(shop).await?;
        if tier_moved(&tiers, after.lifetime - credited, after.lifetime) {
            conn.set_tier_achieved(shop, client, command.at).await?;
        }
    }
    let row = PointsAdjustmentRow {
        id: command.adjustment_id.as_str().to_owned(),
        shop_id: shop.as_str().to_owned(),
        client_id: client.as_str().to_owned(),
        delta: delta.get(),
        previous_points: after.points - delta.get(),
        new_points: after.points,
        reason: command.reason.as_str().to_owned(),
        api_key_prefix: command.key_prefix.as_str().to_owned(),
        created_at_ms: command.at.millis(),
    };
    conn.insert_points_adjustment(&row).await?;
    Ok(PointsResult::Applied(row.into_domain()?))
}

/// The client's `client.updated`, the client read back as just written.
async fn append_event<C: ClientQueries + OutboxQueries + Send>(
    conn: &mut C,
    outbox: &OutboxWrite<'_>,
    command: &PointsCommand,
) -> Result<(), DbError> {
    let client = conn
        .load_clients(
            &command.shop,
            Selection::Ids(std::slice::from_ref(&command.client_id)),
        )
        .await?
        .pop()
        .ok_or_else(|| DbError::Invariant("an adjusted client is gone".into()))?;
    let event = outbox.event(
        EventType::ClientUpdated,
        client.updated_at,
        EventData::Client(client),
    )?;
    outbox::append(conn, outbox, &command.shop, &[event]).await
}

/// The first result given under a record: an applied one is rebuilt from its adjustment.
async fn replay<C: PointsQueries + Send>(
    conn: &mut C,
    shop: &ShopId,
    record: &IdempotencyRow,
) -> Result<PointsResult, DbError> {
    match PointsRecorded::of(record)? {
        PointsRecorded::ClientNotFound => Ok(PointsResult::ClientNotFound),
        PointsRecorded::Refused(refusal) => Ok(PointsResult::Refused(refusal)),
        PointsRecorded::Applied(id) => {
            let row = conn
                .find_points_adjustment(shop, &id)
                .await?
                .ok_or_else(|| {
                    let key = &record.api_key_prefix;
                    DbError::Invariant(format!(
                        "a record of API key {key} names points adjustment {id}, not in this shop"
                    ))
                })?;
            Ok(PointsResult::Applied(row.into_domain()?))
        }
    }
}

#[async_trait]
impl PointsLedger for Database {
    async fn adjust_points(&self, command: &PointsCommand) -> Result<PointsOutcome, StoreError> {
        let outcome =
            deciding_again(move || async move { write_transaction!(self, adjust(command)) })
                .await?;
        self.remember_write(&command.key_prefix).await;
        Ok(outcome)
    }
}
