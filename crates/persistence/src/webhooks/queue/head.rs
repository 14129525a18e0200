//! The head of the queue, endpoint by endpoint: for each enabled endpoint with a pending
//! delivery, its oldest due deliveries of pairs without a live claim.
//!
//! Read per endpoint rather than from one global order, so that one endpoint's backlog (a
//! recovery of days of events, a receiver down for hours) never hides the due deliveries of
//! the others behind it: each endpoint's head costs the same whatever waits behind it, read
//! from the pending deliveries' index of (endpoint, due time).

use diesel::dsl::{exists, not};
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Text};
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;

use super::{PairRow, is_pending};
use crate::database::impl_for_each_backend;
use crate::error::DbError;
use crate::schema::{webhook_deliveries, webhook_inflight};
use crate::sql::kept_prepared::KeptPrepared;

/// `pending (id)`: the endpoints with a pending delivery, found by walking the pending
/// deliveries' index one endpoint at a time (a loose index scan, `min` above the last one
/// found): its cost grows with the endpoints, not with the deliveries waiting.
macro_rules! pending_endpoints_cte {
    () => {
        "WITH RECURSIVE pending (id) AS ( \
            SELECT min(endpoint_id) FROM webhook_deliveries WHERE status = 'pending' \
            UNION ALL \
            SELECT (SELECT min(d.endpoint_id) FROM webhook_deliveries d \
                    WHERE d.status = 'pending' AND d.endpoint_id > pending.id) \
            FROM pending WHERE pending.id IS NOT NULL) "
    };
}

/// The enabled endpoints with a pending delivery.
const PENDING_ENDPOINTS: &str = concat!(
    pending_endpoints_cte!(),
    "SELECT e.id FROM pending JOIN webhook_endpoints e ON e.id = pending.id \
     WHERE e.status = 'enabled'"
);

#[derive(QueryableByName)]
struct EndpointRow {
    #[diesel(sql_type = Text)]
    id: String,
}

pub(super) trait PendingEndpoints {
    fn pending_endpoints(&mut self) -> impl Future<Output = Result<Vec<String>, DbError>> + Send;
}

impl_for_each_backend! {
    impl PendingEndpoints {
        async fn pending_endpoints(&mut self) -> Result<Vec<String>, DbError> {
            let rows: Vec<EndpointRow> =
                KeptPrepared(diesel::sql_query(PENDING_ENDPOINTS)).load(self).await?;
            Ok(rows.into_iter().map(|row| row.id).collect())
        }
    }
}

/// The earliest time after `now` at which one of an endpoint's pending deliveries falls due
/// (a retry waiting): one seek in the pending deliveries' index of (endpoint, due time).
pub(super) trait NextRetry {
    fn next_retry(
        &mut self,
        endpoint: &str,
        now: Timestamp,
    ) -> impl Future<Output = Result<Option<i64>, DbError>> + Send;
}

impl_for_each_backend! {
    impl NextRetry {
        async fn next_retry(&mut self, endpoint: &str, now: Timestamp) -> Result<Option<i64>, DbError> {
            Ok(webhook_deliveries::table
                .filter(is_pending())
                .filter(webhook_deliveries::endpoint_id.eq(endpoint))
                .filter(webhook_deliveries::next_attempt_at_ms.gt(now.millis()))
                .select(webhook_deliveries::next_attempt_at_ms)
                .order(webhook_deliveries::next_attempt_at_ms.asc())
                .first::<Option<i64>>(self)
                .await
                .optional()?
                .flatten())
        }
    }
}

/// The heads of the queues of the enabled endpoints with a pending delivery, but those in
/// `full`: at most `rows` due deliveries each, as their pairs, the longest-waiting first
/// across them all.
pub(super) trait ReadsQueueHeads {
    fn queue_heads(
        &mut self,
        full: &[String],
        now: Timestamp,
        rows: i64,
    ) -> impl Future<Output = Result<Vec<PairRow>, DbError>> + Send;
}

/// SQLite has no `LATERAL`: the endpoints, then one statement per endpoint, each an ordered
/// walk of its index that stops after `rows` (statements are calls into the library, not
/// round trips).
impl<R: crate::database::SqliteRunner> ReadsQueueHeads for crate::database::SqliteOn<R> {
    async fn queue_heads(
        &mut self,
        full: &[String],
        now: Timestamp,
        rows: i64,
    ) -> Result<Vec<PairRow>, DbError> {
        let mut heads: Vec<(i64, String, String)> = Vec::new();
        let endpoints = self.pending_endpoints().await?;
        for endpoint in endpoints.iter().filter(|endpoint| !full.contains(endpoint)) {
            let claimed = webhook_inflight::table
                .filter(webhook_inflight::endpoint_id.eq(webhook_deliveries::endpoint_id))
                .filter(webhook_inflight::resource.eq(webhook_deliveries::resource))
                .filter(webhook_inflight::claimed_until_ms.ge(now.millis()));
            let head: Vec<(Option<i64>, String, String)> = webhook_deliveries::table
                .filter(is_pending())
                .filter(webhook_deliveries::endpoint_id.eq(endpoint))
                .filter(webhook_deliveries::next_attempt_at_ms.le(now.millis()))
                .filter(not(exists(claimed)))
                .select((
                    webhook_deliveries::next_attempt_at_ms,
                    webhook_deliveries::endpoint_id,
                    webhook_deliveries::resource,
                ))
                .order(webhook_deliveries::next_attempt_at_ms.asc())
                .limit(rows)
                .load(&mut *self)
                .await?;
            heads
                .extend(head.into_iter().map(|(due, endpoint, resource)| {
                    (due.unwrap_or_default(), endpoint, resource)
                }));
        }
        heads.sort_by_key(|(due, _, _)| *due);
        Ok(heads
            .into_iter()
            .map(|(_, endpoint_id, resource)| PairRow {
                endpoint_id,
                resource,
            })
            .collect())
    }
}

/// PostgreSQL: one statement, the endpoints' loose scan and each one's head a `LATERAL` walk
/// of its index, kept prepared (its SQL never varies).
const HEADS_OF_ENDPOINTS: &str = concat!(
    pending_endpoints_cte!(),
    "SELECT head.endpoint_id, head.resource FROM pending \
     JOIN webhook_endpoints e ON e.id = pending.id \
     CROSS JOIN LATERAL ( \
         SELECT d.endpoint_id, d.resource, d.next_attempt_at_ms FROM webhook_deliveries d \
         WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at_ms <= $2 \
           AND NOT EXISTS (SELECT 1 FROM webhook_inflight f WHERE f.endpoint_id = d.endpoint_id \
                           AND f.resource = d.resource AND f.claimed_until_ms >= $2) \
         ORDER BY d.next_attempt_at_ms LIMIT $3) AS head \
     WHERE e.status = 'enabled' AND e.id <> ALL ($1::text[]) \
     ORDER BY head.next_attempt_at_ms"
);

impl ReadsQueueHeads for diesel_async::AsyncPgConnection {
    async fn queue_heads(
        &mut self,
        full: &[String],
        now: Timestamp,
        rows: i64,
    ) -> Result<Vec<PairRow>, DbError> {
        Ok(KeptPrepared(
            diesel::sql_query(HEADS_OF_ENDPOINTS)
                .bind::<Array<Text>, _>(full)
                .bind::<BigInt, _>(now.millis())
                .bind::<BigInt, _>(rows),
        )
        .load(self)
        .await?)
    }
}
