//! Recording a batch of attempts in one transaction: the attempts' rows, their deliveries'
//! next step, their endpoints' health (and a disabling), and the release of their claims.
//! The statements are per batch, or per endpoint of the batch, except a retry's own time.

use std::collections::{BTreeMap, HashMap};

use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Integer, Nullable, Text};
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::webhook::{DeliveryStatus, EndpointHealth};
use shop_ports::port::{AttemptRecord, DeliveryNext};

use super::claim::ClaimQueries;
use super::fast_lane::Unqueued;
use super::{is_pending, pairs_by_endpoint};
use crate::database::impl_for_each_backend;
use crate::error::DbError;
use crate::schema::{webhook_deliveries, webhook_endpoints};
use crate::sql::kept_prepared::KeptPrepared;

/// An attempt's row, bound column by column (SQLite) or as arrays (PostgreSQL).
struct AttemptRow<'a> {
    id: &'a str,
    delivery_id: &'a str,
    endpoint_id: &'a str,
    attempt: i32,
    status: &'a str,
    response_status: Option<i32>,
    duration_ms: i64,
    error: Option<&'a str>,
    response_excerpt: &'a str,
    created_at_ms: i64,
}

impl<'a> AttemptRow<'a> {
    fn of(attempt: &'a AttemptRecord) -> Self {
        AttemptRow {
            id: &attempt.attempt_id,
            delivery_id: attempt.delivery_id.as_str(),
            endpoint_id: attempt.endpoint_id.as_str(),
            attempt: i32::try_from(attempt.attempt).unwrap_or(i32::MAX),
            status: if attempt.succeeded {
                DeliveryStatus::Succeeded.as_str()
            } else {
                DeliveryStatus::Failed.as_str()
            },
            response_status: attempt.response_status.map(i32::from),
            duration_ms: i64::try_from(attempt.duration.as_millis()).unwrap_or(i64::MAX),
            error: attempt.error.as_deref(),
            response_excerpt: &attempt.response_excerpt,
            created_at_ms: attempt.at.millis(),
        }
    }
}

/// An endpoint's health as stored.
#[derive(Queryable)]
struct StoredHealth {
    id: String,
    failing_since_ms: Option<i64>,
    failures_in_a_row: i32,
    last_attempt_status: Option<String>,
    last_attempt_at_ms: Option<i64>,
}

impl StoredHealth {
    fn health(&self) -> EndpointHealth {
        EndpointHealth {
            failures_in_a_row: u32::try_from(self.failures_in_a_row).unwrap_or(0),
            last_attempt: self.last_attempt_at_ms.map(|at| {
                (
                    Timestamp::from_millis(at),
                    self.last_attempt_status.as_deref() == Some("succeeded"),
                )
            }),
        }
    }
}

pub(super) trait RecordQueries {
    /// See `DeliveryQueue::record`; runs inside the caller's transaction.
    /// `unqueued`: the first attempts claimed from the log (SQLite's `fast_lane.rs`), whose
    /// deliveries get their row here.
    fn record_batch(
        &mut self,
        attempts: &[AttemptRecord],
        instance: &str,
        unqueued: &HashMap<String, Unqueued>,
    ) -> impl Future<Output = Result<(), DbError>> + Send;
}

impl_for_each_backend! {
    impl RecordQueries {
        async fn record_batch(&mut self, attempts: &[AttemptRecord], instance: &str, unqueued: &HashMap<String, Unqueued>) -> Result<(), DbError> {
            // The endpoints first, then their deliveries: the order every writer of both
            // takes (an endpoint's `PATCH`, its deletion), so that none waits on another.
            let mut per_endpoint: BTreeMap<&str, Vec<&AttemptRecord>> = BTreeMap::new();
            for attempt in attempts {
                per_endpoint.entry(attempt.endpoint_id.as_str()).or_default().push(attempt);
            }
            let endpoints: Vec<&str> = per_endpoint.keys().copied().collect();
            let stored: Vec<StoredHealth> = webhook_endpoints::table
                .filter(webhook_endpoints::id.eq_any(&endpoints))
                .select((
                    webhook_endpoints::id,
                    webhook_endpoints::failing_since_ms,
                    webhook_endpoints::failures_in_a_row,
                    webhook_endpoints::last_attempt_status,
                    webhook_endpoints::last_attempt_at_ms,
                ))
                .load(&mut *self)
                .await?;
            // The endpoints still there once their rows are locked: one deleted meanwhile
            // took its deliveries with it, and the attempts made to it are not recorded (no
            // foreign key would refuse them: `migrations/postgres/2026-12-01-000000_*`).
            let mut recorded: Vec<&AttemptRecord> = Vec::with_capacity(attempts.len());
            for endpoint in &stored {
                let Some(made) = per_endpoint.get(endpoint.id.as_str()) else { continue };
                let mut outcomes: Vec<(Timestamp, bool)> = made.iter().map(|a| (a.at, a.succeeded)).collect();
                outcomes.sort_by_key(|(at, _)| at.millis());
                let (health, failing_since) = endpoint
                    .health()
                    .after_attempts(endpoint.failing_since_ms.map(Timestamp::from_millis), &outcomes);
                let (last_at, last_succeeded) = health.last_attempt.unwrap_or((Timestamp::from_millis(0), false));
                let locked = diesel::update(webhook_endpoints::table.filter(webhook_endpoints::id.eq(&endpoint.id)))
                    .set((
                        webhook_endpoints::failing_since_ms.eq(failing_since.map(|at| at.millis())),
                        webhook_endpoints::failures_in_a_row.eq(i32::try_from(health.failures_in_a_row).unwrap_or(i32::MAX)),
                        webhook_endpoints::last_attempt_status.eq(Some(if last_succeeded { "succeeded" } else { "failed" })),
                        webhook_endpoints::last_attempt_at_ms.eq(Some(last_at.millis())),
                    ))
                    .execute(&mut *self)
                    .await?;
                if locked == 0 {
                    continue;
                }
                recorded.extend(made.iter().copied());
                if let Some(attempt) = made.iter().find(|a| a.disable.is_some())
                    && let Some(reason) = attempt.disable
                {
                    diesel::update(webhook_endpoints::table.filter(webhook_endpoints::id.eq(&endpoint.id)))
                        .filter(webhook_endpoints::status.eq("enabled"))
                        .set((
                            webhook_endpoints::status.eq("disabled"),
                            webhook_endpoints::disabled_reason.eq(Some(reason.as_str())),
                            webhook_endpoints::updated_at_ms.eq(attempt.at.millis()),
                        ))
                        .execute(&mut *self)
                        .await?;
                }
            }
            let (first, queued): (Vec<&AttemptRecord>, Vec<&AttemptRecord>) = recorded
                .iter()
                .copied()
                .partition(|attempt| unqueued.contains_key(attempt.delivery_id.as_str()));
            let first: Vec<(&AttemptRecord, &Unqueued)> = first
                .into_iter()
                .filter_map(|attempt| unqueued.get(attempt.delivery_id.as_str()).map(|u| (attempt, u)))
                .collect();
            // The deliveries' rows before their attempts', which name them.
            self.queue_first_attempts(&first).await?;
            let rows: Vec<AttemptRow<'_>> = recorded.iter().copied().map(AttemptRow::of).collect();
            self.insert_attempts(&rows).await?;
            let mut succeeded = Vec::new();
            let mut gave_up = Vec::new();
            for attempt in &queued {
                match attempt.next {
                    DeliveryNext::Succeeded => succeeded.push(attempt.delivery_id.as_str()),
                    DeliveryNext::GaveUp => gave_up.push(attempt.delivery_id.as_str()),
                    DeliveryNext::RetryAt(next) => {
                        // A delivery superseded meanwhile stays so.
                        diesel::update(webhook_deliveries::table.filter(webhook_deliveries::id.eq(attempt.delivery_id.as_str())))
                            .filter(is_pending())
                            .set((
                                webhook_deliveries::attempts.eq(webhook_deliveries::attempts + 1),
                                webhook_deliveries::next_attempt_at_ms.eq(Some(next.millis())),
                                webhook_deliveries::updated_at_ms.eq(attempt.at.millis()),
                            ))
                            .execute(&mut *self)
                            .await?;
                    }
                }
            }
            let last_at = queued.iter().map(|a| a.at.millis()).max().unwrap_or_default();
            for (ids, status) in [(succeeded, DeliveryStatus::Succeeded), (gave_up, DeliveryStatus::Failed)] {
                if ids.is_empty() {
                    continue;
                }
                diesel::update(webhook_deliveries::table.filter(webhook_deliveries::id.eq_any(&ids)))
                    .filter(is_pending())
                    .set((
                        webhook_deliveries::status.eq(status.as_str()),
                        webhook_deliveries::attempts.eq(webhook_deliveries::attempts + 1),
                        webhook_deliveries::next_attempt_at_ms.eq(None::<i64>),
                        webhook_deliveries::updated_at_ms.eq(last_at),
                    ))
                    .execute(&mut *self)
                    .await?;
            }
            // A first attempt from the log held no claim row.
            let claimed = attempts.iter().filter(|a| !unqueued.contains_key(a.delivery_id.as_str()));
            let pairs = pairs_by_endpoint(claimed.map(|a| (a.endpoint_id.as_str(), a.resource.as_str())));
            if pairs.is_empty() {
                return Ok(());
            }
            self.release(&pairs, instance).await
        }
    }
}

/// The rows of first attempts claimed from the log, written with their outcome. A row queued
/// meanwhile (a recovery, a manual retry of the same event) is moved on as a pending one is.
trait QueuesFirstAttempts {
    fn queue_first_attempts(
        &mut self,
        first: &[(&AttemptRecord, &Unqueued)],
    ) -> impl Future<Output = Result<(), DbError>> + Send;
}

impl<R: crate::database::SqliteRunner> QueuesFirstAttempts for crate::database::SqliteOn<R> {
    async fn queue_first_attempts(
        &mut self,
        first: &[(&AttemptRecord, &Unqueued)],
    ) -> Result<(), DbError> {
        if first.is_empty() {
            return Ok(());
        }
        let mut insert = diesel::sql_query(format!(
            "INSERT INTO webhook_deliveries (id, shop_id, endpoint_id, event_seq, resource, \
             status, attempts, next_attempt_at_ms, created_at_ms, updated_at_ms) VALUES {} \
             ON CONFLICT (id) DO UPDATE SET status = excluded.status, \
             attempts = webhook_deliveries.attempts + 1, \
             next_attempt_at_ms = excluded.next_attempt_at_ms, \
             updated_at_ms = excluded.updated_at_ms \
             WHERE webhook_deliveries.status = 'pending'",
            crate::sql::values_rows::placeholders(first.len(), 10)
        ))
        .into_boxed::<diesel::sqlite::Sqlite>();
        for (attempt, unqueued) in first {
            let (status, next) = match attempt.next {
                DeliveryNext::Succeeded => (DeliveryStatus::Succeeded, None),
                DeliveryNext::GaveUp => (DeliveryStatus::Failed, None),
                DeliveryNext::RetryAt(at) => (DeliveryStatus::Pending, Some(at.millis())),
            };
            insert = insert
                .bind::<Text, _>(attempt.delivery_id.as_str())
                .bind::<Text, _>(unqueued.shop_id.as_str())
                .bind::<Text, _>(attempt.endpoint_id.as_str())
                .bind::<BigInt, _>(unqueued.seq)
                .bind::<Text, _>(unqueued.resource.as_str())
                .bind::<Text, _>(status.as_str())
                .bind::<Integer, _>(1)
                .bind::<Nullable<BigInt>, _>(next)
                .bind::<BigInt, _>(unqueued.created_at_ms)
                .bind::<BigInt, _>(attempt.at.millis());
        }
        insert.execute(self).await?;
        Ok(())
    }
}

/// PostgreSQL claims every attempt from its queue's rows.
impl QueuesFirstAttempts for diesel_async::AsyncPgConnection {
    async fn queue_first_attempts(
        &mut self,
        first: &[(&AttemptRecord, &Unqueued)],
    ) -> Result<(), DbError> {
        if first.is_empty() {
            Ok(())
        } else {
            Err(DbError::Invariant(
                "a first attempt from the log on PostgreSQL".into(),
            ))
        }
    }
}

trait InsertsAttempts {
    fn insert_attempts(
        &mut self,
        rows: &[AttemptRow<'_>],
    ) -> impl Future<Output = Result<(), DbError>> + Send;
}

/// SQLite: one statement written out (diesel's batch insert is not available on SQLite's
/// async wrapper, and each statement there is a hand-over to a blocking thread).
impl<R: crate::database::SqliteRunner> InsertsAttempts for crate::database::SqliteOn<R> {
    async fn insert_attempts(&mut self, rows: &[AttemptRow<'_>]) -> Result<(), DbError> {
        if rows.is_empty() {
            return Ok(());
        }
        let mut insert = diesel::sql_query(format!(
            "INSERT INTO webhook_attempts (id, delivery_id, endpoint_id, attempt, status, \
             response_status, duration_ms, error, response_excerpt, created_at_ms) VALUES {}",
            crate::sql::values_rows::placeholders(rows.len(), 10)
        ))
        .into_boxed::<diesel::sqlite::Sqlite>();
        for row in rows {
            insert = insert
                .bind::<Text, _>(row.id)
                .bind::<Text, _>(row.delivery_id)
                .bind::<Text, _>(row.endpoint_id)
                .bind::<Integer, _>(row.attempt)
                .bind::<Text, _>(row.status)
                .bind::<Nullable<Integer>, _>(row.response_status)
                .bind::<BigInt, _>(row.duration_ms)
                .bind::<Nullable<Text>, _>(row.error)
                .bind::<Text, _>(row.response_excerpt)
                .bind::<BigInt, _>(row.created_at_ms);
        }
        insert.execute(self).await?;
        Ok(())
    }
}

/// PostgreSQL: one statement over arrays, whatever the batch's size, so that it stays
/// prepared (a statement prepared anew costs a round trip more, and a plan).
impl InsertsAttempts for diesel_async::AsyncPgConnection {
    async fn insert_attempts(&mut self, rows: &[AttemptRow<'_>]) -> Result<(), DbError> {
        if rows.is_empty() {
            return Ok(());
        }
        KeptPrepared(
            diesel::sql_query(
                "INSERT INTO webhook_attempts (id, delivery_id, endpoint_id, attempt, status, \
                 response_status, duration_ms, error, response_excerpt, created_at_ms) \
                 SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int4[], \
                 $5::text[], $6::int4[], $7::int8[], $8::text[], $9::text[], $10::int8[])",
            )
            .bind::<Array<Text>, _>(column(rows, |row| row.id))
            .bind::<Array<Text>, _>(column(rows, |row| row.delivery_id))
            .bind::<Array<Text>, _>(column(rows, |row| row.endpoint_id))
            .bind::<Array<Integer>, _>(column(rows, |row| row.attempt))
            .bind::<Array<Text>, _>(column(rows, |row| row.status))
            .bind::<Array<Nullable<Integer>>, _>(column(rows, |row| row.response_status))
            .bind::<Array<BigInt>, _>(column(rows, |row| row.duration_ms))
            .bind::<Array<Nullable<Text>>, _>(column(rows, |row| row.error))
            .bind::<Array<Text>, _>(column(rows, |row| row.response_excerpt))
            .bind::<Array<BigInt>, _>(column(rows, |row| row.created_at_ms)),
        )
        .execute(self)
        .await?;
        Ok(())
    }
}

/// One column of the batch, as an array to bind.
fn column<'a, T>(rows: &[AttemptRow<'a>], value: impl Fn(&AttemptRow<'a>) -> T) -> Vec<T> {
    rows.iter().map(value).collect()
}
