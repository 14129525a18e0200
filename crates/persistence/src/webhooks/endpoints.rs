//! A shop's webhook endpoints (`WebhookEndpointStore`). The secrets are written here and read
//! only by the queue's claim: no row type that an answer is built from selects them.

use std::collections::HashSet;

use async_trait::async_trait;
use diesel::dsl::max;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::id::{DeliveryId, ShopId, WebhookEndpointId};
use shop_domain::webhook::{
    DeliveryLine, DeliveryStatus, DisabledReason, EndpointHealth, EndpointStatus, EndpointUrl,
    EventSelection, EventType, MAX_ENDPOINTS_PER_SHOP, NewEvent, WebhookEndpoint, WebhookSecret,
};
use shop_ports::StoreError;
use shop_ports::port::{
    DeliveryQuery, EndpointChange, EndpointCreation, NewEndpoint, WebhookEndpointStore,
};

use super::deliveries::DeliveryQueries;
use super::outbox::OutboxQueries;
use crate::database::impl_for_each_backend;
use crate::database::{Database, in_transaction, with_conn};
use crate::error::DbError;
use crate::schema::{webhook_deliveries, webhook_endpoints, webhook_events};

/// An endpoint as the API shows it: no secret.
#[derive(Queryable, Selectable)]
#[diesel(table_name = webhook_endpoints)]
struct EndpointRow {
    id: String,
    url: String,
    events: String,
    description: String,
    status: String,
    disabled_reason: Option<String>,
    created_at_ms: i64,
    updated_at_ms: i64,
    failures_in_a_row: i32,
    last_attempt_status: Option<String>,
    last_attempt_at_ms: Option<i64>,
}

impl EndpointRow {
    fn into_domain(self) -> Result<WebhookEndpoint, DbError> {
        let corrupt = |what: &str| DbError::corrupt("webhook_endpoints", &self.id, what.to_owned());
        let status = match (self.status.as_str(), self.disabled_reason.as_deref()) {
            ("enabled", _) => EndpointStatus::Enabled,
            ("disabled", Some(reason)) => EndpointStatus::Disabled(
                DisabledReason::parse(reason).ok_or_else(|| corrupt("disabled_reason"))?,
            ),
            _ => return Err(corrupt("status")),
        };
        Ok(WebhookEndpoint {
            url: EndpointUrl::from_stored(&self.url).ok_or_else(|| corrupt("url"))?,
            events: EventSelection::parse(self.events.split(',')).map_err(|_| corrupt("events"))?,
            description: self.description.clone(),
            status,
            created_at: Timestamp::from_millis(self.created_at_ms),
            updated_at: Timestamp::from_millis(self.updated_at_ms),
            health: EndpointHealth {
                failures_in_a_row: u32::try_from(self.failures_in_a_row).unwrap_or(0),
                last_attempt: self.last_attempt_at_ms.map(|at| {
                    let succeeded = self.last_attempt_status.as_deref() == Some("succeeded");
                    (Timestamp::from_millis(at), succeeded)
                }),
            },
            id: WebhookEndpointId::parse(self.id)
                .map_err(|_| DbError::Invariant("a stored endpoint id is not an id".into()))?,
        })
    }
}

/// A `PATCH`'s columns; diesel leaves a `None` out of the `SET`.
#[derive(AsChangeset)]
#[diesel(table_name = webhook_endpoints)]
struct EndpointEdit<'a> {
    url: Option<&'a str>,
    events: Option<String>,
    receives: Option<String>,
    description: Option<&'a str>,
    updated_at_ms: i64,
}

/// `receives`' stored form: `,a,b,`, matched by the fan-out with `LIKE '%,type,%'`.
fn receives_text(types: &[EventType]) -> String {
    let mut text = String::from(",");
    for kind in types {
        text.push_str(kind.as_str());
        text.push(',');
    }
    text
}

fn events_text(events: &EventSelection) -> String {
    events.names().join(",")
}

pub(crate) trait EndpointQueries {
    fn load_endpoint(
        &mut self,
        shop: &ShopId,
        id: &str,
    ) -> impl Future<Output = Result<Option<WebhookEndpoint>, DbError>> + Send;
}

impl_for_each_backend! {
    impl EndpointQueries {
        async fn load_endpoint(
            &mut self,
            shop: &ShopId,
            id: &str,
        ) -> Result<Option<WebhookEndpoint>, DbError> {
            webhook_endpoints::table
                .filter(webhook_endpoints::shop_id.eq(shop.as_str()))
                .filter(webhook_endpoints::id.eq(id))
                .select(EndpointRow::as_select())
                .first(self)
                .await
                .optional()?
                .map(EndpointRow::into_domain)
                .transpose()
        }
    }
}

#[async_trait]
impl WebhookEndpointStore for Database {
    async fn create_endpoint(&self, new: &NewEndpoint) -> Result<EndpointCreation, StoreError> {
        let limit = i64::try_from(MAX_ENDPOINTS_PER_SHOP).unwrap_or(i64::MAX);
        let created: Result<Option<WebhookEndpoint>, DbError> = in_transaction!(self, |conn| {
            // Two creations at once: on PostgreSQL the shop's row lock makes the second count
            // after the first commits; SQLite's writers take turns anyway.
            conn.lock_shop(&new.shop).await?;
            let held: i64 = webhook_endpoints::table
                .filter(webhook_endpoints::shop_id.eq(new.shop.as_str()))
                .count()
                .get_result(&mut *conn)
                .await?;
            if held >= limit {
                return Ok(None);
            }
            diesel::insert_into(webhook_endpoints::table)
                .values((
                    webhook_endpoints::id.eq(new.id.as_str()),
                    webhook_endpoints::shop_id.eq(new.shop.as_str()),
                    webhook_endpoints::url.eq(new.url.as_str()),
                    webhook_endpoints::events.eq(events_text(&new.events)),
                    webhook_endpoints::receives.eq(receives_text(&new.receives)),
                    webhook_endpoints::creator_scopes.eq(new.creator_scopes.to_list()),
                    webhook_endpoints::description.eq(&new.description),
                    webhook_endpoints::status.eq("enabled"),
                    webhook_endpoints::secret.eq(new.secret.expose()),
                    webhook_endpoints::failures_in_a_row.eq(0),
                    webhook_endpoints::created_at_ms.eq(new.at.millis()),
                    webhook_endpoints::updated_at_ms.eq(new.at.millis()),
                ))
                .execute(&mut *conn)
                .await?;
            conn.load_endpoint(&new.shop, new.id.as_str()).await
        });
        Ok(match created? {
            Some(endpoint) => EndpointCreation::Created(Box::new(endpoint)),
            None => EndpointCreation::LimitReached,
        })
    }

    async fn list_endpoints(
        &self,
        shop: &ShopId,
        after: Option<WebhookEndpointId>,
        limit: usize,
    ) -> Result<Vec<WebhookEndpoint>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows: Vec<EndpointRow> = with_conn!(self, |conn| {
            let mut query = webhook_endpoints::table
                .filter(webhook_endpoints::shop_id.eq(shop.as_str()))
                .select(EndpointRow::as_select())
                .order(webhook_endpoints::id.asc())
                .limit(limit)
                .into_boxed();
            if let Some(after) = &after {
                query = query.filter(webhook_endpoints::id.gt(after.as_str()));
            }
            query.load(conn).await
        })?;
        Ok(rows
            .into_iter()
            .map(EndpointRow::into_domain)
            .collect::<Result<_, _>>()?)
    }

    async fn get_endpoint(
        &self,
        shop: &ShopId,
        id: &WebhookEndpointId,
    ) -> Result<Option<WebhookEndpoint>, StoreError> {
        Ok(with_conn!(self, |conn| conn
            .load_endpoint(shop, id.as_str())
            .await)?)
    }

    async fn update_endpoint(
        &self,
        shop: &ShopId,
        id: &WebhookEndpointId,
        change: &EndpointChange,
        at: Timestamp,
    ) -> Result<Option<WebhookEndpoint>, StoreError> {
        let updated: Result<Option<WebhookEndpoint>, DbError> = in_transaction!(self, |conn| {
            let this = webhook_endpoints::table
                .filter(webhook_endpoints::shop_id.eq(shop.as_str()))
                .filter(webhook_endpoints::id.eq(id.as_str()));
            // The fields given, in one statement (a `None` is left as it is).
            let edit = EndpointEdit {
                url: change.url.as_ref().map(EndpointUrl::as_str),
                events: change
                    .events
                    .as_ref()
                    .map(|(events, _)| events_text(events)),
                receives: change
                    .events
                    .as_ref()
                    .map(|(_, receives)| receives_text(receives)),
                description: change.description.as_deref(),
                updated_at_ms: at.millis(),
            };
            let touched = diesel::update(this).set(&edit).execute(&mut *conn).await?;
            if touched == 0 {
                return Ok(None);
            }
            match change.enabled {
                Some(true) => {
                    enable(conn, id).await?;
                    // What waited is due now.
                    diesel::update(webhook_deliveries::table)
                        .filter(webhook_deliveries::endpoint_id.eq(id.as_str()))
                        .filter(webhook_deliveries::status.eq("pending"))
                        .set(webhook_deliveries::next_attempt_at_ms.eq(Some(at.millis())))
                        .execute(&mut *conn)
                        .await?;
                }
                Some(false) => {
                    diesel::update(this)
                        .set((
                            webhook_endpoints::status.eq("disabled"),
                            webhook_endpoints::disabled_reason
                                .eq(Some(DisabledReason::Manual.as_str())),
                        ))
                        .execute(&mut *conn)
                        .await?;
                }
                None => {}
            }
            conn.load_endpoint(shop, id.as_str()).await
        });
        if change.enabled == Some(true) {
            self.events_committed();
        }
        Ok(updated?)
    }

    async fn delete_endpoint(
        &self,
        shop: &ShopId,
        id: &WebhookEndpointId,
    ) -> Result<bool, StoreError> {
        let deleted: Result<usize, DbError> = in_transaction!(self, |conn| {
            let this = webhook_endpoints::table
                .filter(webhook_endpoints::shop_id.eq(shop.as_str()))
                .filter(webhook_endpoints::id.eq(id.as_str()));
            // The shop's own endpoint, or nothing is touched: another shop's id deletes none
            // of its deliveries. Its row is locked before them, in the order every writer of
            // an endpoint and its deliveries takes (the workers' turns too), so that two of
            // them never wait on each other.
            let disabled = diesel::update(this)
                .set(webhook_endpoints::status.eq("disabled"))
                .execute(&mut *conn)
                .await?;
            if disabled == 0 {
                return Ok(0);
            }
            conn.delete_of_endpoint(id).await?;
            Ok(diesel::delete(this).execute(&mut *conn).await?)
        });
        Ok(deleted? > 0)
    }

    async fn rotate_secret(
        &self,
        shop: &ShopId,
        id: &WebhookEndpointId,
        secret: &WebhookSecret,
        previous_until: Timestamp,
        at: Timestamp,
    ) -> Result<bool, StoreError> {
        let rotated: Result<usize, DbError> = with_conn!(self, |conn| {
            diesel::update(
                webhook_endpoints::table
                    .filter(webhook_endpoints::shop_id.eq(shop.as_str()))
                    .filter(webhook_endpoints::id.eq(id.as_str())),
            )
            .set((
                webhook_endpoints::previous_secret.eq(webhook_endpoints::secret.nullable()),
                webhook_endpoints::previous_secret_until_ms.eq(Some(previous_until.millis())),
                webhook_endpoints::secret.eq(secret.expose()),
                webhook_endpoints::updated_at_ms.eq(at.millis()),
            ))
            .execute(conn)
            .await
        });
        Ok(rotated? > 0)
    }

    async fn enqueue_ping(
        &self,
        shop: &ShopId,
        id: &WebhookEndpointId,
        event: &NewEvent,
    ) -> Result<bool, StoreError> {
        let Some(outbox) = self.outbox.clone() else {
            return Err(StoreError::failure("this database writes no events"));
        };
        let enqueued: Result<bool, DbError> = in_transaction!(self, |conn| {
            if conn.load_endpoint(shop, id.as_str()).await?.is_none() {
                return Ok(false);
            }
            let body = outbox.renderer.render(event);
            let [seq] = conn.insert_events(shop, &[(event, body)]).await?[..] else {
                return Err(DbError::Invariant("a ping drew no position".into()));
            };
            conn.insert_delivery(shop, id, seq, &event.resource_key(), event.at)
                .await?;
            Ok(true)
        });
        let enqueued = enqueued?;
        if enqueued {
            self.events_committed();
        }
        Ok(enqueued)
    }

    async fn retry_delivery(
        &self,
        shop: &ShopId,
        id: &WebhookEndpointId,
        delivery: &DeliveryId,
        at: Timestamp,
    ) -> Result<bool, StoreError> {
        let retried: Result<bool, DbError> = in_transaction!(self, |conn| {
            let resource: Option<String> = webhook_deliveries::table
                .filter(webhook_deliveries::shop_id.eq(shop.as_str()))
                .filter(webhook_deliveries::endpoint_id.eq(id.as_str()))
                .filter(webhook_deliveries::id.eq(delivery.as_str()))
                .select(webhook_deliveries::resource)
                .first(&mut *conn)
                .await
                .optional()?;
            let Some(resource) = resource else {
                return Ok(false);
            };
            // The resource's newest event for this endpoint, whichever delivery was named:
            // never an older state after a newer one.
            let newest: String = webhook_deliveries::table
                .filter(webhook_deliveries::endpoint_id.eq(id.as_str()))
                .filter(webhook_deliveries::resource.eq(&resource))
                .order(webhook_deliveries::event_seq.desc())
                .select(webhook_deliveries::id)
                .first(&mut *conn)
                .await?;
            conn.requeue(&[newest.as_str()], at).await?;
            Ok(true)
        });
        let retried = retried?;
        if retried {
            self.events_committed();
        }
        Ok(retried)
    }

    async fn recover(
        &self,
        shop: &ShopId,
        id: &WebhookEndpointId,
        since: Timestamp,
        at: Timestamp,
    ) -> Result<Option<usize>, StoreError> {
        let recovered: Result<Option<usize>, DbError> = in_transaction!(self, |conn| {
            let receives: Option<String> = webhook_endpoints::table
                .filter(webhook_endpoints::shop_id.eq(shop.as_str()))
                .filter(webhook_endpoints::id.eq(id.as_str()))
                .select(webhook_endpoints::receives)
                .first(&mut *conn)
                .await
                .optional()?;
            let Some(receives) = receives else {
                return Ok(None);
            };
            let types: Vec<&str> = receives.split(',').filter(|t| !t.is_empty()).collect();
            let newest: Vec<(String, Option<i64>)> = webhook_events::table
                .filter(webhook_events::shop_id.eq(shop.as_str()))
                .filter(webhook_events::created_at_ms.ge(since.millis()))
                .filter(webhook_events::event_type.eq_any(&types))
                .group_by(webhook_events::resource)
                .select((webhook_events::resource, max(webhook_events::seq)))
                .load(&mut *conn)
                .await?;
            let newest: Vec<i64> = newest.into_iter().filter_map(|(_, seq)| seq).collect();
            let mut queued = 0;
            for seqs in newest.chunks(RECOVERED_PER_STATEMENT) {
                let existing: Vec<(String, i64, String)> = webhook_deliveries::table
                    .filter(webhook_deliveries::endpoint_id.eq(id.as_str()))
                    .filter(webhook_deliveries::event_seq.eq_any(seqs))
                    .select((
                        webhook_deliveries::id,
                        webhook_deliveries::event_seq,
                        webhook_deliveries::status,
                    ))
                    .load(&mut *conn)
                    .await?;
                let known: HashSet<i64> = existing.iter().map(|(_, seq, _)| *seq).collect();
                let undelivered: Vec<&str> = existing
                    .iter()
                    .filter(|(_, _, status)| status != DeliveryStatus::Succeeded.as_str())
                    .map(|(delivery, _, _)| delivery.as_str())
                    .collect();
                let unsent: Vec<i64> = seqs
                    .iter()
                    .copied()
                    .filter(|seq| !known.contains(seq))
                    .collect();
                if !undelivered.is_empty() {
                    conn.requeue(&undelivered, at).await?;
                }
                if !unsent.is_empty() {
                    conn.insert_deliveries(shop, id, &unsent, at).await?;
                }
                queued += undelivered.len() + unsent.len();
            }
            enable(conn, id).await?;
            Ok(Some(queued))
        });
        let recovered = recovered?;
        if recovered.is_some() {
            self.events_committed();
        }
        Ok(recovered)
    }

    async fn list_deliveries(
        &self,
        shop: &ShopId,
        id: &WebhookEndpointId,
        query: &DeliveryQuery,
    ) -> Result<Option<Vec<DeliveryLine>>, StoreError> {
        let lines: Result<Option<Vec<DeliveryLine>>, DbError> = with_conn!(self, |conn| {
            match conn.load_endpoint(shop, id.as_str()).await {
                Ok(Some(_)) => conn.list_deliveries(id, query).await.map(Some),
                Ok(None) => Ok(None),
                Err(error) => Err(error),
            }
        });
        let Some(mut lines) = lines? else {
            return Ok(None);
        };
        // SQLite's first attempts in flight have no row yet: they are listed from the lane,
        // read after the rows so that one recorded meanwhile is missed once, never listed
        // twice (webhooks/queue/fast_lane.rs).
        let in_flight = self.in_flight_lines(id, query);
        if !in_flight.is_empty() {
            lines.extend(in_flight);
            lines.sort_by_cached_key(|line| {
                std::cmp::Reverse((line.created_at.millis(), line.row_key()))
            });
            lines.truncate(query.limit);
        }
        Ok(Some(lines))
    }
}

/// Events a recovery queues per statement: far below SQLite's and PostgreSQL's bind limits.
const RECOVERED_PER_STATEMENT: usize = 1_000;

/// Enables an endpoint again: its run of failures starts afresh.
async fn enable<C: EnablesEndpoint + Send>(
    conn: &mut C,
    id: &WebhookEndpointId,
) -> Result<(), DbError> {
    conn.enable_endpoint(id).await
}

pub(crate) trait EnablesEndpoint {
    fn enable_endpoint(
        &mut self,
        id: &WebhookEndpointId,
    ) -> impl Future<Output = Result<(), DbError>> + Send;
}

impl_for_each_backend! {
    impl EnablesEndpoint {
        async fn enable_endpoint(&mut self, id: &WebhookEndpointId) -> Result<(), DbError> {
            diesel::update(
                webhook_endpoints::table
                    .filter(webhook_endpoints::id.eq(id.as_str()))
                    .filter(webhook_endpoints::status.eq("disabled")),
            )
            .set((
                webhook_endpoints::status.eq("enabled"),
                webhook_endpoints::disabled_reason.eq(None::<String>),
                webhook_endpoints::failing_since_ms.eq(None::<i64>),
                webhook_endpoints::failures_in_a_row.eq(0),
            ))
            .execute(self)
            .await?;
            Ok(())
        }
    }
}

/// Serialises the creations of one shop's endpoints (their limit is counted).
pub(crate) trait LocksShop {
    fn lock_shop(&mut self, shop: &ShopId) -> impl Future<Output = Result<(), DbError>> + Send;
}

/// SQLite's writers already take turns (`BEGIN IMMEDIATE`).
impl<R: crate::database::SqliteRunner> LocksShop for crate::database::SqliteOn<R> {
    async fn lock_shop(&mut self, _shop: &ShopId) -> Result<(), DbError> {
        Ok(())
    }
}

impl LocksShop for diesel_async::AsyncPgConnection {
    async fn lock_shop(&mut self, shop: &ShopId) -> Result<(), DbError> {
        crate::schema::shops::table
            .filter(crate::schema::shops::id.eq(shop.as_str()))
            .select(crate::schema::shops::id)
            .for_update()
            .execute(self)
            .await?;
        Ok(())
    }
}
