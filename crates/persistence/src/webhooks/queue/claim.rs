//! Claiming a batch of due (endpoint, resource) pairs for one instance, in one transaction.
//!
//! A claim is a row of `webhook_inflight` keyed by the pair. Taking one deletes an expired
//! claim of the pair (its instance died) and inserts with `ON CONFLICT DO NOTHING`: of two
//! instances, PostgreSQL makes the second wait for the first's commit and then insert nothing.
//! The same transaction marks the older pending deliveries of each resource superseded, so no
//! instance can send an older state after a newer one.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::id::{DeliveryId, EventId};
use shop_domain::webhook::{DeliveryStatus, EndpointUrl, WebhookSecret, newest_and_superseded};
use shop_ports::port::{ClaimedDelivery, DueWork};

use super::{PairRow, is_pending, pairs_by_endpoint};
use crate::database::impl_for_each_backend;
use crate::error::DbError;
use crate::schema::{webhook_deliveries, webhook_endpoints, webhook_events, webhook_inflight};

/// What a claim reads of its endpoint: where to send, and with which secrets.
#[derive(Queryable)]
struct EndpointTarget {
    id: String,
    url: String,
    secret: String,
    previous_secret: Option<String>,
    previous_secret_until_ms: Option<i64>,
    failing_since_ms: Option<i64>,
}

/// A pending delivery of a claimed pair.
#[derive(Queryable)]
struct Pending {
    id: String,
    endpoint_id: String,
    resource: String,
    event_seq: i64,
    attempts: i32,
}

#[derive(Insertable)]
#[diesel(table_name = webhook_inflight)]
struct ClaimRow<'a> {
    endpoint_id: &'a str,
    resource: &'a str,
    claimed_by: &'a str,
    claimed_until_ms: i64,
}

pub(super) trait ClaimQueries {
    /// See `DeliveryQueue::claim`; runs inside the caller's transaction.
    fn claim_batch(
        &mut self,
        work: &[DueWork],
        instance: &str,
        now: Timestamp,
        until: Timestamp,
    ) -> impl Future<Output = Result<Vec<ClaimedDelivery>, DbError>> + Send;

    /// Deletes `instance`'s claims of `pairs` (endpoint id, resources).
    fn release(
        &mut self,
        pairs: &BTreeMap<&str, Vec<&str>>,
        instance: &str,
    ) -> impl Future<Output = Result<(), DbError>> + Send;
}

impl_for_each_backend! {
    impl ClaimQueries {
        async fn claim_batch(
            &mut self,
            work: &[DueWork],
            instance: &str,
            now: Timestamp,
            until: Timestamp,
        ) -> Result<Vec<ClaimedDelivery>, DbError> {
            let endpoints: Vec<&str> = work
                .iter()
                .map(|w| w.endpoint_id.as_str())
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            // Any expired claim of these endpoints may go: its instance died, or is past the
            // margin in which a slow one keeps what it took.
            diesel::delete(
                webhook_inflight::table
                    .filter(webhook_inflight::endpoint_id.eq_any(&endpoints))
                    .filter(webhook_inflight::claimed_until_ms.lt(now.millis())),
            )
            .execute(&mut *self)
            .await?;
            let rows: Vec<ClaimRow<'_>> = work
                .iter()
                .map(|w| ClaimRow {
                    endpoint_id: w.endpoint_id.as_str(),
                    resource: w.resource.as_str(),
                    claimed_by: instance,
                    claimed_until_ms: until.millis(),
                })
                .collect();
            // The pairs inserted are the ones taken: a pair claimed already inserts nothing.
            let taken: HashSet<(String, String)> = self.insert_claims(&rows).await?.into_iter().collect();
            if taken.is_empty() {
                return Ok(Vec::new());
            }
            let resources: Vec<&str> = taken.iter().map(|(_, r)| r.as_str()).collect();
            let pending: Vec<Pending> = webhook_deliveries::table
                .filter(is_pending())
                .filter(webhook_deliveries::endpoint_id.eq_any(&endpoints))
                .filter(webhook_deliveries::resource.eq_any(&resources))
                .order(webhook_deliveries::event_seq.asc())
                .select((
                    webhook_deliveries::id,
                    webhook_deliveries::endpoint_id,
                    webhook_deliveries::resource,
                    webhook_deliveries::event_seq,
                    webhook_deliveries::attempts,
                ))
                .load(&mut *self)
                .await?;
            let targets: HashMap<String, EndpointTarget> = webhook_endpoints::table
                .filter(webhook_endpoints::id.eq_any(&endpoints))
                .filter(webhook_endpoints::status.eq("enabled"))
                .select((
                    webhook_endpoints::id,
                    webhook_endpoints::url,
                    webhook_endpoints::secret,
                    webhook_endpoints::previous_secret,
                    webhook_endpoints::previous_secret_until_ms,
                    webhook_endpoints::failing_since_ms,
                ))
                .load::<EndpointTarget>(&mut *self)
                .await?
                .into_iter()
                .map(|target| (target.id.clone(), target))
                .collect();
            let mut per_pair: HashMap<(String, String), Vec<Pending>> = HashMap::new();
            for row in pending {
                let pair = (row.endpoint_id.clone(), row.resource.clone());
                if taken.contains(&pair) {
                    per_pair.entry(pair).or_default().push(row);
                }
            }
            let mut sending: Vec<(Pending, &EndpointTarget)> = Vec::new();
            let mut superseded: Vec<String> = Vec::new();
            let mut idle: Vec<(&str, &str)> = Vec::new();
            for pair in &taken {
                let target = targets.get(&pair.0);
                let rows = per_pair.remove(pair).unwrap_or_default();
                match (target, newest_and_superseded(rows)) {
                    (Some(target), Some((newest, older))) => {
                        superseded.extend(older.into_iter().map(|row| row.id));
                        sending.push((newest, target));
                    }
                    _ => idle.push((pair.0.as_str(), pair.1.as_str())),
                }
            }
            if !superseded.is_empty() {
                diesel::update(webhook_deliveries::table.filter(webhook_deliveries::id.eq_any(&superseded)))
                    .set((
                        webhook_deliveries::status.eq(DeliveryStatus::Superseded.as_str()),
                        webhook_deliveries::next_attempt_at_ms.eq(None::<i64>),
                        webhook_deliveries::updated_at_ms.eq(now.millis()),
                    ))
                    .execute(&mut *self)
                    .await?;
            }
            if !idle.is_empty() {
                self.release(&pairs_by_endpoint(idle.into_iter()), instance).await?;
            }
            let seqs: Vec<i64> = sending.iter().map(|(row, _)| row.event_seq).collect();
            let bodies: HashMap<i64, (String, String)> = webhook_events::table
                .filter(webhook_events::seq.eq_any(&seqs))
                .select((webhook_events::seq, webhook_events::id, webhook_events::body))
                .load::<(i64, String, String)>(&mut *self)
                .await?
                .into_iter()
                .map(|(seq, id, body)| (seq, (id, body)))
                .collect();
            // One event may go to several endpoints of the batch.
            sending
                .into_iter()
                .map(|(row, target)| {
                    let (event_id, body) = bodies.get(&row.event_seq).cloned().ok_or_else(|| {
                        DbError::Invariant(format!("delivery {} has no event", row.id))
                    })?;
                    claimed_delivery(row, event_id, body, target, now)
                })
                .collect()
        }

        async fn release(
            &mut self,
            pairs: &BTreeMap<&str, Vec<&str>>,
            instance: &str,
        ) -> Result<(), DbError> {
            for (endpoint, resources) in pairs {
                diesel::delete(
                    webhook_inflight::table
                        .filter(webhook_inflight::endpoint_id.eq(*endpoint))
                        .filter(webhook_inflight::resource.eq_any(resources))
                        .filter(webhook_inflight::claimed_by.eq(instance)),
                )
                .execute(&mut *self)
                .await?;
            }
            Ok(())
        }
    }
}

/// Inserts claims, leaving alone a pair claimed already; returns the pairs inserted.
trait InsertsClaims {
    fn insert_claims(
        &mut self,
        rows: &[ClaimRow<'_>],
    ) -> impl Future<Output = Result<Vec<(String, String)>, DbError>> + Send;
}

/// SQLite: one statement written out (diesel's batch insert is not available on SQLite's
/// async wrapper, and each statement there is a hand-over to a blocking thread).
impl<R: crate::database::SqliteRunner> InsertsClaims for crate::database::SqliteOn<R> {
    async fn insert_claims(
        &mut self,
        rows: &[ClaimRow<'_>],
    ) -> Result<Vec<(String, String)>, DbError> {
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        let mut insert = diesel::sql_query(format!(
            "INSERT INTO webhook_inflight (endpoint_id, resource, claimed_by, claimed_until_ms) \
             VALUES {} ON CONFLICT (endpoint_id, resource) DO NOTHING \
             RETURNING endpoint_id, resource",
            crate::sql::values_rows::placeholders(rows.len(), 4)
        ))
        .into_boxed::<diesel::sqlite::Sqlite>();
        for row in rows {
            insert = insert
                .bind::<Text, _>(row.endpoint_id)
                .bind::<Text, _>(row.resource)
                .bind::<Text, _>(row.claimed_by)
                .bind::<BigInt, _>(row.claimed_until_ms);
        }
        let inserted: Vec<PairRow> = insert.load(self).await?;
        Ok(inserted
            .into_iter()
            .map(|pair| (pair.endpoint_id, pair.resource))
            .collect())
    }
}

/// PostgreSQL: one statement for the batch.
impl InsertsClaims for diesel_async::AsyncPgConnection {
    async fn insert_claims(
        &mut self,
        rows: &[ClaimRow<'_>],
    ) -> Result<Vec<(String, String)>, DbError> {
        Ok(diesel::insert_into(webhook_inflight::table)
            .values(rows)
            .on_conflict((webhook_inflight::endpoint_id, webhook_inflight::resource))
            .do_nothing()
            .returning((webhook_inflight::endpoint_id, webhook_inflight::resource))
            .get_results(self)
            .await?)
    }
}

fn claimed_delivery(
    row: Pending,
    event_id: String,
    body: String,
    target: &EndpointTarget,
    now: Timestamp,
) -> Result<ClaimedDelivery, DbError> {
    let corrupt = |what: &str| DbError::corrupt("webhook_endpoints", &target.id, what.to_owned());
    let mut secrets = vec![WebhookSecret::parse(&target.secret).map_err(|_| corrupt("secret"))?];
    if let (Some(previous), Some(until)) =
        (&target.previous_secret, target.previous_secret_until_ms)
        && until > now.millis()
    {
        secrets.push(WebhookSecret::parse(previous).map_err(|_| corrupt("previous secret"))?);
    }
    Ok(ClaimedDelivery {
        delivery_id: DeliveryId::parse(row.id).map_err(|_| corrupt("delivery id"))?,
        endpoint_id: shop_domain::id::WebhookEndpointId::parse(row.endpoint_id)
            .map_err(|_| corrupt("id"))?,
        resource: row.resource,
        url: EndpointUrl::from_stored(&target.url).ok_or_else(|| corrupt("url"))?,
        secrets,
        event_id: EventId::parse(event_id).map_err(|_| corrupt("event id"))?,
        body,
        attempt: u32::try_from(row.attempts).unwrap_or(0).saturating_add(1),
        failing_since: target.failing_since_ms.map(Timestamp::from_millis),
    })
}
