//! The delivery queue (`DeliveryQueue`): what is due, the claims that keep one attempt in
//! flight per endpoint and resource across every instance (`claim.rs`), and what attempts
//! change (`record.rs`). Both run in batches: one transaction per turn of the workers' loop.
//!
//! The pending deliveries' partial index (`status = 'pending'`) is only used when the query
//! names that status as a literal, which a bound parameter is not ([`is_pending`]).

mod claim;
mod record;

use std::collections::BTreeMap;
use std::time::Duration;

use async_trait::async_trait;
use diesel::dsl::{exists, min, not, sql};
use diesel::prelude::*;
use diesel::sql_types::Bool;
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::id::WebhookEndpointId;
use shop_ports::StoreError;
use shop_ports::port::{AttemptRecord, ClaimedDelivery, DeliveryQueue, DueWork};

use crate::database::{Database, Pool, in_transaction, with_conn};
use crate::error::DbError;
use crate::schema::{
    webhook_attempts, webhook_deliveries, webhook_endpoints, webhook_events, webhook_inflight,
};
use claim::ClaimQueries;
use record::RecordQueries;

/// `status = 'pending'`, written as a literal so that the planners (SQLite's and a generic
/// plan of PostgreSQL's) can use the partial index of pending deliveries.
fn is_pending() -> diesel::expression::SqlLiteral<Bool> {
    sql::<Bool>("webhook_deliveries.status = 'pending'")
}

/// Pairs grouped by endpoint: one statement per endpoint where a query needs the pairs.
fn pairs_by_endpoint<'a>(
    pairs: impl Iterator<Item = (&'a str, &'a str)>,
) -> BTreeMap<&'a str, Vec<&'a str>> {
    let mut grouped: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (endpoint, resource) in pairs {
        grouped.entry(endpoint).or_default().push(resource);
    }
    grouped
}

/// The head of the queue: the oldest due rows of enabled endpoints without a live claim, in
/// the order of the partial index of pending deliveries. One query per backend, built by one
/// macro.
trait ReadsQueueHead {
    fn queue_head(
        &mut self,
        now: Timestamp,
        rows: i64,
    ) -> impl Future<Output = Result<Vec<(String, String)>, DbError>> + Send;
}

macro_rules! queue_head_query {
    ($now:expr, $rows:expr) => {{
        let claimed = webhook_inflight::table
            .filter(webhook_inflight::endpoint_id.eq(webhook_deliveries::endpoint_id))
            .filter(webhook_inflight::resource.eq(webhook_deliveries::resource))
            .filter(webhook_inflight::claimed_until_ms.ge($now.millis()));
        let enabled = webhook_endpoints::table
            .filter(webhook_endpoints::id.eq(webhook_deliveries::endpoint_id))
            .filter(webhook_endpoints::status.eq("enabled"));
        webhook_deliveries::table
            .filter(is_pending())
            .filter(webhook_deliveries::next_attempt_at_ms.le($now.millis()))
            .filter(exists(enabled))
            .filter(not(exists(claimed)))
            .select((
                webhook_deliveries::endpoint_id,
                webhook_deliveries::resource,
            ))
            .order(webhook_deliveries::next_attempt_at_ms.asc())
            .limit($rows)
    }};
}

impl<R: crate::database::SqliteRunner> ReadsQueueHead for crate::database::SqliteOn<R> {
    async fn queue_head(
        &mut self,
        now: Timestamp,
        rows: i64,
    ) -> Result<Vec<(String, String)>, DbError> {
        Ok(queue_head_query!(now, rows).load(self).await?)
    }
}

/// PostgreSQL plans the head of the queue from statistics that are always behind: the table
/// takes and finishes thousands of deliveries between two `ANALYZE`s, so the planner expects a
/// few rows and reads every pending one through a bitmap, then sorts them, where walking the
/// index in order stops after `rows`. A bitmap scan also never marks the index entries of
/// finished deliveries dead, so each read paid for all of them again. Within this one
/// statement's transaction the ordered walk is the plan (see docs/PERFORMANCE.md, "Webhooks").
impl ReadsQueueHead for diesel_async::AsyncPgConnection {
    async fn queue_head(
        &mut self,
        now: Timestamp,
        rows: i64,
    ) -> Result<Vec<(String, String)>, DbError> {
        use diesel_async::AsyncConnection;
        self.transaction(async |conn| {
            diesel::sql_query(
                "SELECT set_config('enable_bitmapscan', 'off', true), \
                        set_config('enable_sort', 'off', true)",
            )
            .execute(&mut *conn)
            .await?;
            Ok(queue_head_query!(now, rows).load(conn).await?)
        })
        .await
    }
}

/// How many pending rows `due` reads per pair it may return: a burst of changes to one
/// resource is several rows of one pair.
const ROWS_PER_PAIR: usize = 4;

#[async_trait]
impl DeliveryQueue for Database {
    async fn due(&self, now: Timestamp, limit: usize) -> Result<Vec<DueWork>, StoreError> {
        let rows_wanted = i64::try_from(limit.saturating_mul(ROWS_PER_PAIR)).unwrap_or(i64::MAX);
        // The oldest due rows in the index's order, no grouping: a busy queue is read from
        // its head, however long it is.
        let rows: Vec<(String, String)> =
            with_conn!(self, |conn| { conn.queue_head(now, rows_wanted).await })?;
        let mut due: Vec<DueWork> = Vec::with_capacity(limit);
        for (endpoint, resource) in rows {
            if due.len() == limit {
                break;
            }
            let work = DueWork {
                endpoint_id: WebhookEndpointId::parse(endpoint)
                    .map_err(|_| StoreError::failure("a stored endpoint id is not an id"))?,
                resource,
            };
            if !due.contains(&work) {
                due.push(work);
            }
        }
        Ok(due)
    }

    async fn claim(
        &self,
        work: &[DueWork],
        instance: &str,
        now: Timestamp,
        until: Timestamp,
    ) -> Result<Vec<ClaimedDelivery>, StoreError> {
        if work.is_empty() {
            return Ok(Vec::new());
        }
        let claimed: Result<Vec<ClaimedDelivery>, DbError> = in_transaction!(self, |conn| {
            conn.claim_batch(work, instance, now, until).await
        });
        Ok(claimed?)
    }

    async fn record(&self, attempts: &[AttemptRecord], instance: &str) -> Result<(), StoreError> {
        if attempts.is_empty() {
            return Ok(());
        }
        let recorded: Result<(), DbError> =
            in_transaction!(self, |conn| { conn.record_batch(attempts, instance).await });
        recorded?;
        // The resources may have newer events waiting behind these attempts.
        self.events_committed();
        Ok(())
    }

    async fn release_orphaned_claims(&self) -> Result<u64, StoreError> {
        if let Pool::Postgres(_) = self.pool {
            return Ok(0);
        }
        let released = with_conn!(self, |conn| {
            diesel::delete(webhook_inflight::table).execute(conn).await
        })?;
        Ok(u64::try_from(released).unwrap_or(u64::MAX))
    }

    async fn next_due(&self, now: Timestamp) -> Result<Option<Timestamp>, StoreError> {
        let next: Option<i64> = with_conn!(self, |conn| {
            let enabled = webhook_endpoints::table
                .filter(webhook_endpoints::id.eq(webhook_deliveries::endpoint_id))
                .filter(webhook_endpoints::status.eq("enabled"));
            webhook_deliveries::table
                .filter(is_pending())
                .filter(webhook_deliveries::next_attempt_at_ms.gt(now.millis()))
                .filter(exists(enabled))
                .select(min(webhook_deliveries::next_attempt_at_ms))
                .first::<Option<i64>>(conn)
                .await
        })?;
        Ok(next.map(Timestamp::from_millis))
    }

    async fn wait_for_events(&self, at_most: Duration) {
        let _ = tokio::time::timeout(at_most, self.events_wake.notified()).await;
    }

    async fn prune(&self, before: Timestamp) -> Result<u64, StoreError> {
        let pruned: Result<usize, DbError> = in_transaction!(self, |conn| {
            let old_events = webhook_events::table
                .filter(webhook_events::created_at_ms.lt(before.millis()))
                .select(webhook_events::seq);
            let old_deliveries = webhook_deliveries::table
                .filter(webhook_deliveries::event_seq.eq_any(old_events))
                .select(webhook_deliveries::id);
            diesel::delete(
                webhook_attempts::table
                    .filter(webhook_attempts::delivery_id.eq_any(old_deliveries)),
            )
            .execute(&mut *conn)
            .await?;
            diesel::delete(
                webhook_deliveries::table.filter(webhook_deliveries::event_seq.eq_any(old_events)),
            )
            .execute(&mut *conn)
            .await?;
            Ok(diesel::delete(
                webhook_events::table.filter(webhook_events::created_at_ms.lt(before.millis())),
            )
            .execute(&mut *conn)
            .await?)
        });
        Ok(u64::try_from(pruned?).unwrap_or(u64::MAX))
    }
}
