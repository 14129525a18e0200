//! The delivery queue (`DeliveryQueue`): what is due, the claims that keep one attempt in
//! flight per endpoint and resource across every instance, and what an attempt changes.
//!
//! **Claims.** A claim is a row of `webhook_inflight` keyed by (endpoint, resource). Taking
//! one deletes an expired claim of that pair (its instance died) and inserts with `ON CONFLICT
//! DO NOTHING`: of two instances, PostgreSQL makes the second wait for the first's commit and
//! then insert nothing. The same transaction marks the older pending deliveries of the
//! resource superseded, so no instance can send an older state after a newer one.

use async_trait::async_trait;
use diesel::dsl::{exists, min, not};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::id::{DeliveryId, EventId, WebhookEndpointId};
use shop_domain::webhook::{DeliveryStatus, EndpointUrl, WebhookSecret, newest_and_superseded};
use shop_ports::StoreError;
use shop_ports::port::{AttemptRecord, ClaimedDelivery, DeliveryNext, DeliveryQueue, DueWork};
use std::time::Duration;

use crate::database::{Database, in_transaction, with_conn};
use crate::error::DbError;
use crate::schema::{
    webhook_attempts, webhook_deliveries, webhook_endpoints, webhook_events, webhook_inflight,
};

const PENDING: &str = "pending";

/// What a claim reads of its endpoint: where to send, and with which secrets.
#[derive(Queryable)]
struct EndpointTarget {
    url: String,
    secret: String,
    previous_secret: Option<String>,
    previous_secret_until_ms: Option<i64>,
    failing_since_ms: Option<i64>,
}

#[async_trait]
impl DeliveryQueue for Database {
    async fn due(&self, now: Timestamp, limit: usize) -> Result<Vec<DueWork>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows: Vec<(String, String)> = with_conn!(self, |conn| {
            let claimed = webhook_inflight::table
                .filter(webhook_inflight::endpoint_id.eq(webhook_deliveries::endpoint_id))
                .filter(webhook_inflight::resource.eq(webhook_deliveries::resource))
                .filter(webhook_inflight::claimed_until_ms.ge(now.millis()));
            let enabled = webhook_endpoints::table
                .filter(webhook_endpoints::id.eq(webhook_deliveries::endpoint_id))
                .filter(webhook_endpoints::status.eq("enabled"));
            webhook_deliveries::table
                .filter(webhook_deliveries::status.eq(PENDING))
                .filter(webhook_deliveries::next_attempt_at_ms.le(now.millis()))
                .filter(exists(enabled))
                .filter(not(exists(claimed)))
                .group_by((
                    webhook_deliveries::endpoint_id,
                    webhook_deliveries::resource,
                ))
                .select((
                    webhook_deliveries::endpoint_id,
                    webhook_deliveries::resource,
                ))
                .order(min(webhook_deliveries::next_attempt_at_ms).asc())
                .limit(limit)
                .load(conn)
                .await
        })?;
        rows.into_iter()
            .map(|(endpoint, resource)| {
                Ok(DueWork {
                    endpoint_id: WebhookEndpointId::parse(endpoint)
                        .map_err(|_| StoreError::failure("a stored endpoint id is not an id"))?,
                    resource,
                })
            })
            .collect()
    }

    async fn claim(
        &self,
        work: &DueWork,
        instance: &str,
        now: Timestamp,
        until: Timestamp,
    ) -> Result<Option<ClaimedDelivery>, StoreError> {
        let endpoint = work.endpoint_id.as_str();
        let resource = work.resource.as_str();
        let claimed: Result<Option<ClaimedDelivery>, DbError> = in_transaction!(self, |conn| {
            let this_pair = webhook_inflight::table
                .filter(webhook_inflight::endpoint_id.eq(endpoint))
                .filter(webhook_inflight::resource.eq(resource));
            diesel::delete(this_pair.filter(webhook_inflight::claimed_until_ms.lt(now.millis())))
                .execute(&mut *conn)
                .await?;
            let taken = diesel::insert_into(webhook_inflight::table)
                .values((
                    webhook_inflight::endpoint_id.eq(endpoint),
                    webhook_inflight::resource.eq(resource),
                    webhook_inflight::claimed_by.eq(instance),
                    webhook_inflight::claimed_until_ms.eq(until.millis()),
                ))
                .on_conflict((webhook_inflight::endpoint_id, webhook_inflight::resource))
                .do_nothing()
                .execute(&mut *conn)
                .await?;
            if taken == 0 {
                return Ok(None);
            }
            let pending: Vec<(String, i64, i32)> = webhook_deliveries::table
                .filter(webhook_deliveries::endpoint_id.eq(endpoint))
                .filter(webhook_deliveries::resource.eq(resource))
                .filter(webhook_deliveries::status.eq(PENDING))
                .order(webhook_deliveries::event_seq.asc())
                .select((
                    webhook_deliveries::id,
                    webhook_deliveries::event_seq,
                    webhook_deliveries::attempts,
                ))
                .load(&mut *conn)
                .await?;
            let target: Option<EndpointTarget> = webhook_endpoints::table
                .filter(webhook_endpoints::id.eq(endpoint))
                .filter(webhook_endpoints::status.eq("enabled"))
                .select((
                    webhook_endpoints::url,
                    webhook_endpoints::secret,
                    webhook_endpoints::previous_secret,
                    webhook_endpoints::previous_secret_until_ms,
                    webhook_endpoints::failing_since_ms,
                ))
                .first(&mut *conn)
                .await
                .optional()?;
            let (Some(target), Some(((delivery_id, seq, attempts), superseded))) =
                (target, newest_and_superseded(pending))
            else {
                diesel::delete(this_pair).execute(&mut *conn).await?;
                return Ok(None);
            };
            if !superseded.is_empty() {
                let ids: Vec<&str> = superseded.iter().map(|(id, _, _)| id.as_str()).collect();
                diesel::update(
                    webhook_deliveries::table.filter(webhook_deliveries::id.eq_any(ids)),
                )
                .set((
                    webhook_deliveries::status.eq(DeliveryStatus::Superseded.as_str()),
                    webhook_deliveries::next_attempt_at_ms.eq(None::<i64>),
                    webhook_deliveries::updated_at_ms.eq(now.millis()),
                ))
                .execute(&mut *conn)
                .await?;
            }
            let (event_id, body): (String, String) = webhook_events::table
                .filter(webhook_events::seq.eq(seq))
                .select((webhook_events::id, webhook_events::body))
                .first(&mut *conn)
                .await?;
            Ok(Some(claimed_delivery(
                work,
                delivery_id,
                event_id,
                body,
                attempts,
                target,
                now,
            )?))
        });
        Ok(claimed?)
    }

    async fn record(&self, attempt: &AttemptRecord, instance: &str) -> Result<(), StoreError> {
        let at = attempt.at.millis();
        let recorded: Result<(), DbError> = in_transaction!(self, |conn| {
            let attempt_number = i32::try_from(attempt.attempt).unwrap_or(i32::MAX);
            diesel::insert_into(webhook_attempts::table)
                .values((
                    webhook_attempts::id.eq(&attempt.attempt_id),
                    webhook_attempts::delivery_id.eq(attempt.delivery_id.as_str()),
                    webhook_attempts::endpoint_id.eq(attempt.endpoint_id.as_str()),
                    webhook_attempts::attempt.eq(attempt_number),
                    webhook_attempts::status.eq(if attempt.succeeded {
                        DeliveryStatus::Succeeded.as_str()
                    } else {
                        DeliveryStatus::Failed.as_str()
                    }),
                    webhook_attempts::response_status.eq(attempt.response_status.map(i32::from)),
                    webhook_attempts::duration_ms.eq(millis(attempt.duration)),
                    webhook_attempts::error.eq(&attempt.error),
                    webhook_attempts::response_excerpt.eq(&attempt.response_excerpt),
                    webhook_attempts::created_at_ms.eq(at),
                ))
                .execute(&mut *conn)
                .await?;
            let (status, next) = match attempt.next {
                DeliveryNext::Succeeded => (DeliveryStatus::Succeeded, None),
                DeliveryNext::RetryAt(next) => (DeliveryStatus::Pending, Some(next.millis())),
                DeliveryNext::GaveUp => (DeliveryStatus::Failed, None),
            };
            diesel::update(
                webhook_deliveries::table
                    .filter(webhook_deliveries::id.eq(attempt.delivery_id.as_str())),
            )
            // A delivery superseded meanwhile stays so.
            .filter(webhook_deliveries::status.eq(PENDING))
            .set((
                webhook_deliveries::status.eq(status.as_str()),
                webhook_deliveries::attempts.eq(attempt_number),
                webhook_deliveries::next_attempt_at_ms.eq(next),
                webhook_deliveries::updated_at_ms.eq(at),
            ))
            .execute(&mut *conn)
            .await?;
            let this_endpoint = webhook_endpoints::table
                .filter(webhook_endpoints::id.eq(attempt.endpoint_id.as_str()));
            if attempt.succeeded {
                diesel::update(this_endpoint)
                    .set((
                        webhook_endpoints::failing_since_ms.eq(None::<i64>),
                        webhook_endpoints::failures_in_a_row.eq(0),
                        webhook_endpoints::last_attempt_status.eq(Some("succeeded")),
                        webhook_endpoints::last_attempt_at_ms.eq(Some(at)),
                    ))
                    .execute(&mut *conn)
                    .await?;
            } else {
                diesel::update(this_endpoint.filter(webhook_endpoints::failing_since_ms.is_null()))
                    .set(webhook_endpoints::failing_since_ms.eq(Some(at)))
                    .execute(&mut *conn)
                    .await?;
                diesel::update(this_endpoint)
                    .set((
                        webhook_endpoints::failures_in_a_row
                            .eq(webhook_endpoints::failures_in_a_row + 1),
                        webhook_endpoints::last_attempt_status.eq(Some("failed")),
                        webhook_endpoints::last_attempt_at_ms.eq(Some(at)),
                    ))
                    .execute(&mut *conn)
                    .await?;
            }
            if let Some(reason) = attempt.disable {
                diesel::update(this_endpoint.filter(webhook_endpoints::status.eq("enabled")))
                    .set((
                        webhook_endpoints::status.eq("disabled"),
                        webhook_endpoints::disabled_reason.eq(Some(reason.as_str())),
                        webhook_endpoints::updated_at_ms.eq(at),
                    ))
                    .execute(&mut *conn)
                    .await?;
            }
            diesel::delete(
                webhook_inflight::table
                    .filter(webhook_inflight::endpoint_id.eq(attempt.endpoint_id.as_str()))
                    .filter(webhook_inflight::resource.eq(&attempt.resource))
                    .filter(webhook_inflight::claimed_by.eq(instance)),
            )
            .execute(&mut *conn)
            .await?;
            Ok(())
        });
        recorded?;
        // The resource may have a newer event waiting behind this attempt.
        self.events_committed();
        Ok(())
    }

    async fn next_due(&self, now: Timestamp) -> Result<Option<Timestamp>, StoreError> {
        let next: Option<i64> = with_conn!(self, |conn| {
            let enabled = webhook_endpoints::table
                .filter(webhook_endpoints::id.eq(webhook_deliveries::endpoint_id))
                .filter(webhook_endpoints::status.eq("enabled"));
            webhook_deliveries::table
                .filter(webhook_deliveries::status.eq(PENDING))
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

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

fn claimed_delivery(
    work: &DueWork,
    delivery_id: String,
    event_id: String,
    body: String,
    attempts: i32,
    target: EndpointTarget,
    now: Timestamp,
) -> Result<ClaimedDelivery, DbError> {
    let corrupt = |what: &str| {
        DbError::corrupt(
            "webhook_endpoints",
            work.endpoint_id.as_str(),
            what.to_owned(),
        )
    };
    let mut secrets = vec![WebhookSecret::parse(&target.secret).map_err(|_| corrupt("secret"))?];
    if let (Some(previous), Some(until)) =
        (&target.previous_secret, target.previous_secret_until_ms)
        && until > now.millis()
    {
        secrets.push(WebhookSecret::parse(previous).map_err(|_| corrupt("previous secret"))?);
    }
    Ok(ClaimedDelivery {
        delivery_id: DeliveryId::parse(delivery_id).map_err(|_| corrupt("delivery id"))?,
        endpoint_id: work.endpoint_id.clone(),
        resource: work.resource.clone(),
        url: EndpointUrl::from_stored(&target.url).ok_or_else(|| corrupt("url"))?,
        secrets,
        event_id: EventId::parse(event_id).map_err(|_| corrupt("event id"))?,
        body,
        attempt: u32::try_from(attempts).unwrap_or(0).saturating_add(1),
        failing_since: target.failing_since_ms.map(Timestamp::from_millis),
    })
}
