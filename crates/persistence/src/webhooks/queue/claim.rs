//! Claiming a batch of due (endpoint, resource) pairs for one instance, in one transaction.
//!
//! A claim is a row of `webhook_inflight` keyed by the pair. Taking one inserts it, or takes
//! over an expired claim of the pair (its instance died, or is past the margin in which a
//! slow one keeps what it took) in the same statement (`ON CONFLICT … DO UPDATE … WHERE`
//! expired): of two instances, PostgreSQL makes the second wait for the first's commit and
//! then take nothing.
//! The same transaction marks the older pending deliveries of each resource superseded, so no
//! instance can send an older state after a newer one.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Text};
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::id::{DeliveryId, EventId};
use shop_domain::webhook::{DeliveryStatus, EndpointUrl, WebhookSecret, newest_and_superseded};
use shop_ports::port::{ClaimedDelivery, DueWork};

use super::{PairRow, is_pending, pairs_by_endpoint};
use crate::database::impl_for_each_backend;
use crate::error::DbError;
use crate::schema::{webhook_deliveries, webhook_endpoints, webhook_events, webhook_inflight};
use crate::sql::kept_prepared::KeptPrepared;

/// What a claim reads of its endpoint: where to send, and with which secrets.
#[derive(Queryable)]
pub(super) struct EndpointTarget {
    pub(super) id: String,
    url: String,
    secret: String,
    previous_secret: Option<String>,
    previous_secret_until_ms: Option<i64>,
    failing_since_ms: Option<i64>,
}

/// A pending delivery of a claimed pair.
#[derive(Queryable)]
pub(super) struct Pending {
    pub(super) id: String,
    pub(super) endpoint_id: String,
    pub(super) resource: String,
    pub(super) event_seq: i64,
    pub(super) attempts: i32,
}

pub(super) trait LoadsTargets {
    /// The enabled endpoints among `endpoints`: where to send, and with which secrets.
    fn load_targets(
        &mut self,
        endpoints: &[&str],
    ) -> impl Future<Output = Result<Vec<EndpointTarget>, DbError>> + Send;
}

impl_for_each_backend! {
    impl LoadsTargets {
        async fn load_targets(&mut self, endpoints: &[&str]) -> Result<Vec<EndpointTarget>, DbError> {
            Ok(webhook_endpoints::table
                .filter(webhook_endpoints::id.eq_any(endpoints))
                .filter(webhook_endpoints::status.eq("enabled"))
                .select((
                    webhook_endpoints::id,
                    webhook_endpoints::url,
                    webhook_endpoints::secret,
                    webhook_endpoints::previous_secret,
                    webhook_endpoints::previous_secret_until_ms,
                    webhook_endpoints::failing_since_ms,
                ))
                .load::<EndpointTarget>(self)
                .await?)
        }
    }
}

/// What a claim took: the deliveries to attempt, and whether another instance held some of
/// the pairs asked for (`Turn::contended`).
pub(super) struct Claimed {
    pub(super) deliveries: Vec<ClaimedDelivery>,
    pub(super) contended: bool,
}

pub(super) trait ClaimQueries {
    /// See `DeliveryQueue::turn`; runs inside the caller's transaction.
    fn claim_batch(
        &mut self,
        work: &[DueWork],
        instance: &str,
        now: Timestamp,
        until: Timestamp,
    ) -> impl Future<Output = Result<Claimed, DbError>> + Send;

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
        ) -> Result<Claimed, DbError> {
            let endpoints: Vec<&str> = work
                .iter()
                .map(|w| w.endpoint_id.as_str())
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            // In one order for every instance: two claims of overlapping pairs then wait on
            // each other's rows one way, never each on the other's (a deadlock, which
            // PostgreSQL breaks only after a second by failing one turn). The heads' order is
            // not it: deliveries due at the same instant (an import's) come in any order.
            let mut pairs: Vec<(&str, &str)> = work
                .iter()
                .map(|w| (w.endpoint_id.as_str(), w.resource.as_str()))
                .collect();
            pairs.sort_unstable();
            // The pairs inserted or taken over are the ones taken: a pair another instance
            // holds (its claim still live) is left alone.
            let taken: HashSet<(String, String)> =
                self.insert_claims(&pairs, instance, until, now).await?.into_iter().collect();
            let contended = taken.len() < pairs.len();
            if taken.is_empty() {
                return Ok(Claimed { deliveries: Vec::new(), contended });
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
            let targets: HashMap<String, EndpointTarget> = self
                .load_targets(&endpoints)
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
            let deliveries = sending
                .into_iter()
                .map(|(row, target)| {
                    let (event_id, body) = bodies.get(&row.event_seq).cloned().ok_or_else(|| {
                        DbError::Invariant(format!("delivery {} has no event", row.id))
                    })?;
                    claimed_delivery(row, event_id, body, target, now)
                })
                .collect::<Result<_, _>>()?;
            Ok(Claimed { deliveries, contended })
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

/// Claims `pairs` for `instance` until `until`: inserts each, or takes over its expired claim
/// (claimed until before `now`), leaving alone a pair whose claim is live; returns the pairs
/// taken.
trait InsertsClaims {
    fn insert_claims(
        &mut self,
        pairs: &[(&str, &str)],
        instance: &str,
        until: Timestamp,
        now: Timestamp,
    ) -> impl Future<Output = Result<Vec<(String, String)>, DbError>> + Send;
}

/// What a conflicting claim becomes when it has expired (the time follows it): the same on
/// both databases.
macro_rules! take_over_expired {
    () => {
        "ON CONFLICT (endpoint_id, resource) DO UPDATE \
         SET claimed_by = excluded.claimed_by, claimed_until_ms = excluded.claimed_until_ms \
         WHERE webhook_inflight.claimed_until_ms < "
    };
}

/// SQLite: one statement written out (diesel's batch insert is not available on SQLite's
/// async wrapper, and each statement there is a hand-over to a blocking thread).
impl<R: crate::database::SqliteRunner> InsertsClaims for crate::database::SqliteOn<R> {
    async fn insert_claims(
        &mut self,
        pairs: &[(&str, &str)],
        instance: &str,
        until: Timestamp,
        now: Timestamp,
    ) -> Result<Vec<(String, String)>, DbError> {
        if pairs.is_empty() {
            return Ok(Vec::new());
        }
        let mut insert = diesel::sql_query(format!(
            "INSERT INTO webhook_inflight (endpoint_id, resource, claimed_by, claimed_until_ms) \
             VALUES {} {} ? RETURNING endpoint_id, resource",
            crate::sql::values_rows::placeholders(pairs.len(), 4),
            take_over_expired!()
        ))
        .into_boxed::<diesel::sqlite::Sqlite>();
        for (endpoint, resource) in pairs {
            insert = insert
                .bind::<Text, _>(*endpoint)
                .bind::<Text, _>(*resource)
                .bind::<Text, _>(instance)
                .bind::<BigInt, _>(until.millis());
        }
        let taken: Vec<PairRow> = insert.bind::<BigInt, _>(now.millis()).load(self).await?;
        Ok(taken
            .into_iter()
            .map(|pair| (pair.endpoint_id, pair.resource))
            .collect())
    }
}

/// PostgreSQL: one statement over arrays, whatever the batch's size, so that it stays
/// prepared (a statement prepared anew costs a round trip more, and a plan).
impl InsertsClaims for diesel_async::AsyncPgConnection {
    async fn insert_claims(
        &mut self,
        pairs: &[(&str, &str)],
        instance: &str,
        until: Timestamp,
        now: Timestamp,
    ) -> Result<Vec<(String, String)>, DbError> {
        if pairs.is_empty() {
            return Ok(Vec::new());
        }
        let (endpoints, resources): (Vec<&str>, Vec<&str>) = pairs.iter().copied().unzip();
        let taken: Vec<PairRow> = KeptPrepared(
            diesel::sql_query(concat!(
                "INSERT INTO webhook_inflight (endpoint_id, resource, claimed_by, claimed_until_ms) \
                 SELECT c.endpoint_id, c.resource, $3, $4 \
                 FROM unnest($1::text[], $2::text[]) AS c (endpoint_id, resource) ",
                take_over_expired!(),
                "$5 RETURNING endpoint_id, resource"
            ))
            .bind::<Array<Text>, _>(endpoints)
            .bind::<Array<Text>, _>(resources)
            .bind::<Text, _>(instance)
            .bind::<BigInt, _>(until.millis())
            .bind::<BigInt, _>(now.millis()),
        )
        .load(self)
        .await?;
        Ok(taken
            .into_iter()
            .map(|pair| (pair.endpoint_id, pair.resource))
            .collect())
    }
}

pub(super) fn claimed_delivery(
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
