//! An endpoint's deliveries: one per event sent to it, and the attempts each was given.

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Text};
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::id::{DeliveryId, EventId, ShopId, WebhookEndpointId};
use shop_domain::webhook::{DeliveryLine, DeliveryStatus, EventType};
use shop_ports::port::DeliveryQuery;

use crate::database::impl_for_each_backend;
use crate::error::DbError;
use crate::schema::{webhook_attempts, webhook_deliveries, webhook_events, webhook_inflight};

/// The columns an `INSERT … SELECT` of queued deliveries writes, in its `SELECT`'s order: the
/// outbox's fan-out and a recovery.
pub(crate) const QUEUED_DELIVERY_COLUMNS: (
    webhook_deliveries::id,
    webhook_deliveries::shop_id,
    webhook_deliveries::endpoint_id,
    webhook_deliveries::event_seq,
    webhook_deliveries::resource,
    webhook_deliveries::status,
    webhook_deliveries::attempts,
    webhook_deliveries::next_attempt_at_ms,
    webhook_deliveries::created_at_ms,
    webhook_deliveries::updated_at_ms,
) = (
    webhook_deliveries::id,
    webhook_deliveries::shop_id,
    webhook_deliveries::endpoint_id,
    webhook_deliveries::event_seq,
    webhook_deliveries::resource,
    webhook_deliveries::status,
    webhook_deliveries::attempts,
    webhook_deliveries::next_attempt_at_ms,
    webhook_deliveries::created_at_ms,
    webhook_deliveries::updated_at_ms,
);

/// How a delivery's id begins: `dlv_<event position>_<endpoint id>`, unique and within the
/// 64 characters of an id. The statements that queue many deliveries build the same text in
/// SQL from this head.
pub(crate) const DELIVERY_ID_HEAD: &str = "dlv_";

/// A delivery's id up to its endpoint's id, for event `seq`.
pub(crate) fn delivery_id_prefix(seq: i64) -> String {
    format!("{DELIVERY_ID_HEAD}{seq}_")
}

/// The id of event `seq`'s delivery to `endpoint`.
pub(crate) fn delivery_id(seq: i64, endpoint: &str) -> String {
    format!("{}{endpoint}", delivery_id_prefix(seq))
}

/// `delivery_id_of_event!(endpoint)`: the same id in SQL, for the `webhook_events` row a
/// statement reads and `endpoint` (a column or a bound text).
macro_rules! delivery_id_of_event {
    ($endpoint:expr) => {
        $crate::webhooks::deliveries::DELIVERY_ID_HEAD
            .into_sql::<diesel::sql_types::Text>()
            .concat(diesel::dsl::sql::<diesel::sql_types::Text>(
                "CAST(webhook_events.seq AS TEXT)",
            ))
            .concat("_")
            .concat($endpoint)
    };
}

pub(crate) trait DeliveryQueries {
    /// Deletes an endpoint's attempts, deliveries and claims (before the endpoint itself).
    fn delete_of_endpoint(
        &mut self,
        endpoint: &WebhookEndpointId,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    /// Queues event `seq` for one endpoint (a ping, a retry, a recovery).
    fn insert_delivery(
        &mut self,
        shop: &ShopId,
        endpoint: &WebhookEndpointId,
        seq: i64,
        resource: &str,
        at: Timestamp,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    /// Queues the events `seqs` (the shop's) for one endpoint, due at `at` (a recovery):
    /// one statement.
    fn insert_deliveries(
        &mut self,
        shop: &ShopId,
        endpoint: &WebhookEndpointId,
        seqs: &[i64],
        at: Timestamp,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    /// Makes deliveries pending again, due at `at` (a manual retry, a recovery).
    fn requeue(
        &mut self,
        deliveries: &[&str],
        at: Timestamp,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    /// A page of the endpoint's deliveries, newest first: the attempts made, and the events
    /// waiting or superseded.
    fn list_deliveries(
        &mut self,
        endpoint: &WebhookEndpointId,
        query: &DeliveryQuery,
    ) -> impl Future<Output = Result<Vec<DeliveryLine>, DbError>> + Send;
}

/// An attempt row or a waiting delivery row, joined with its event.
#[derive(Queryable)]
struct LineRow {
    delivery_id: String,
    event_id: String,
    event_type: String,
    attempt: Option<i32>,
    status: String,
    response_status: Option<i32>,
    duration_ms: Option<i64>,
    error: Option<String>,
    created_at_ms: i64,
    next_attempt_at_ms: Option<i64>,
    /// The row's key within its instant: the attempt's id, or the delivery's.
    key: String,
}

impl LineRow {
    fn into_domain(self) -> Result<DeliveryLine, DbError> {
        let corrupt =
            |what: &str| DbError::corrupt("webhook_deliveries", &self.delivery_id, what.to_owned());
        Ok(DeliveryLine {
            id: DeliveryId::parse(&*self.delivery_id).map_err(|_| corrupt("id"))?,
            event_id: EventId::parse(&*self.event_id).map_err(|_| corrupt("event id"))?,
            event_type: self
                .event_type
                .parse::<EventType>()
                .map_err(|_| corrupt("event type"))?,
            attempt: self
                .attempt
                .map(u32::try_from)
                .transpose()
                .map_err(|_| corrupt("attempt"))?,
            status: self
                .status
                .parse::<DeliveryStatus>()
                .map_err(|_| corrupt("status"))?,
            response_status: self
                .response_status
                .map(u16::try_from)
                .transpose()
                .map_err(|_| corrupt("response status"))?,
            duration_ms: self.duration_ms,
            error: self.error,
            created_at: Timestamp::from_millis(self.created_at_ms),
            next_attempt_at: self.next_attempt_at_ms.map(Timestamp::from_millis),
        })
    }
}

impl_for_each_backend! {
    impl DeliveryQueries {
        async fn delete_of_endpoint(&mut self, endpoint: &WebhookEndpointId) -> Result<(), DbError> {
            diesel::delete(webhook_attempts::table.filter(webhook_attempts::endpoint_id.eq(endpoint.as_str())))
                .execute(&mut *self)
                .await?;
            diesel::delete(webhook_deliveries::table.filter(webhook_deliveries::endpoint_id.eq(endpoint.as_str())))
                .execute(&mut *self)
                .await?;
            diesel::delete(webhook_inflight::table.filter(webhook_inflight::endpoint_id.eq(endpoint.as_str())))
                .execute(&mut *self)
                .await?;
            Ok(())
        }

        async fn insert_delivery(
            &mut self,
            shop: &ShopId,
            endpoint: &WebhookEndpointId,
            seq: i64,
            resource: &str,
            at: Timestamp,
        ) -> Result<(), DbError> {
            diesel::insert_into(webhook_deliveries::table)
                .values((
                    webhook_deliveries::id.eq(delivery_id(seq, endpoint.as_str())),
                    webhook_deliveries::shop_id.eq(shop.as_str()),
                    webhook_deliveries::endpoint_id.eq(endpoint.as_str()),
                    webhook_deliveries::event_seq.eq(seq),
                    webhook_deliveries::resource.eq(resource),
                    webhook_deliveries::status.eq(DeliveryStatus::Pending.as_str()),
                    webhook_deliveries::attempts.eq(0),
                    webhook_deliveries::next_attempt_at_ms.eq(Some(at.millis())),
                    webhook_deliveries::created_at_ms.eq(at.millis()),
                    webhook_deliveries::updated_at_ms.eq(at.millis()),
                ))
                .execute(self)
                .await?;
            Ok(())
        }

        async fn insert_deliveries(
            &mut self,
            shop: &ShopId,
            endpoint: &WebhookEndpointId,
            seqs: &[i64],
            at: Timestamp,
        ) -> Result<(), DbError> {
            let delivery_id = delivery_id_of_event!(endpoint.as_str());
            let queued = webhook_events::table
                .filter(webhook_events::shop_id.eq(shop.as_str()))
                .filter(webhook_events::seq.eq_any(seqs))
                .select((
                    delivery_id,
                    webhook_events::shop_id,
                    endpoint.as_str().into_sql::<Text>(),
                    webhook_events::seq,
                    webhook_events::resource,
                    DeliveryStatus::Pending.as_str().into_sql::<Text>(),
                    0.into_sql::<Integer>(),
                    at.millis().into_sql::<BigInt>().nullable(),
                    at.millis().into_sql::<BigInt>(),
                    at.millis().into_sql::<BigInt>(),
                ));
            diesel::insert_into(webhook_deliveries::table)
                .values(queued)
                .into_columns(QUEUED_DELIVERY_COLUMNS)
                .execute(self)
                .await?;
            Ok(())
        }

        async fn requeue(&mut self, deliveries: &[&str], at: Timestamp) -> Result<(), DbError> {
            diesel::update(webhook_deliveries::table.filter(webhook_deliveries::id.eq_any(deliveries)))
                .set((
                    webhook_deliveries::status.eq(DeliveryStatus::Pending.as_str()),
                    webhook_deliveries::next_attempt_at_ms.eq(Some(at.millis())),
                    webhook_deliveries::updated_at_ms.eq(at.millis()),
                ))
                .execute(self)
                .await?;
            Ok(())
        }

        async fn list_deliveries(
            &mut self,
            endpoint: &WebhookEndpointId,
            query: &DeliveryQuery,
        ) -> Result<Vec<DeliveryLine>, DbError> {
            let limit = i64::try_from(query.limit).unwrap_or(i64::MAX);
            let wants = |status: DeliveryStatus| query.status.is_none_or(|wanted| wanted == status);
            let mut rows: Vec<LineRow> = Vec::new();
            if wants(DeliveryStatus::Succeeded) || wants(DeliveryStatus::Failed) {
                let mut attempts = webhook_attempts::table
                    .inner_join(webhook_deliveries::table.on(webhook_deliveries::id.eq(webhook_attempts::delivery_id)))
                    .inner_join(webhook_events::table.on(webhook_events::seq.eq(webhook_deliveries::event_seq)))
                    .filter(webhook_attempts::endpoint_id.eq(endpoint.as_str()))
                    .select((
                        webhook_attempts::delivery_id,
                        webhook_events::id,
                        webhook_events::event_type,
                        webhook_attempts::attempt.nullable(),
                        webhook_attempts::status,
                        webhook_attempts::response_status,
                        webhook_attempts::duration_ms.nullable(),
                        webhook_attempts::error,
                        webhook_attempts::created_at_ms,
                        None::<i64>.into_sql::<diesel::sql_types::Nullable<diesel::sql_types::BigInt>>(),
                        webhook_attempts::id,
                    ))
                    .order((webhook_attempts::created_at_ms.desc(), webhook_attempts::id.desc()))
                    .limit(limit)
                    .into_boxed();
                if let Some(status) = query.status {
                    attempts = attempts.filter(webhook_attempts::status.eq(status.as_str()));
                }
                if let Some((at, key)) = &query.before {
                    attempts = attempts.filter(
                        webhook_attempts::created_at_ms.lt(at.millis()).or(webhook_attempts::created_at_ms
                            .eq(at.millis())
                            .and(webhook_attempts::id.lt(key.as_str()))),
                    );
                }
                rows.extend(attempts.load::<LineRow>(&mut *self).await?);
            }
            let waiting: Vec<&str> = [DeliveryStatus::Pending, DeliveryStatus::Superseded]
                .into_iter()
                .filter(|status| wants(*status))
                .map(DeliveryStatus::as_str)
                .collect();
            if !waiting.is_empty() {
                let mut deliveries = webhook_deliveries::table
                    .inner_join(webhook_events::table.on(webhook_events::seq.eq(webhook_deliveries::event_seq)))
                    .filter(webhook_deliveries::endpoint_id.eq(endpoint.as_str()))
                    .filter(webhook_deliveries::status.eq_any(waiting))
                    .select((
                        webhook_deliveries::id,
                        webhook_events::id,
                        webhook_events::event_type,
                        None::<i32>.into_sql::<diesel::sql_types::Nullable<diesel::sql_types::Integer>>(),
                        webhook_deliveries::status,
                        None::<i32>.into_sql::<diesel::sql_types::Nullable<diesel::sql_types::Integer>>(),
                        None::<i64>.into_sql::<diesel::sql_types::Nullable<diesel::sql_types::BigInt>>(),
                        None::<String>.into_sql::<diesel::sql_types::Nullable<diesel::sql_types::Text>>(),
                        webhook_deliveries::created_at_ms,
                        webhook_deliveries::next_attempt_at_ms,
                        webhook_deliveries::id,
                    ))
                    .order((webhook_deliveries::created_at_ms.desc(), webhook_deliveries::id.desc()))
                    .limit(limit)
                    .into_boxed();
                if let Some((at, key)) = &query.before {
                    deliveries = deliveries.filter(
                        webhook_deliveries::created_at_ms.lt(at.millis()).or(webhook_deliveries::created_at_ms
                            .eq(at.millis())
                            .and(webhook_deliveries::id.lt(key.as_str()))),
                    );
                }
                rows.extend(deliveries.load::<LineRow>(&mut *self).await?);
            }
            rows.sort_by(|a, b| (b.created_at_ms, &b.key).cmp(&(a.created_at_ms, &a.key)));
            rows.truncate(query.limit);
            rows.into_iter().map(LineRow::into_domain).collect()
        }
    }
}
