//! The outbox: a write's events, appended in the write's own transaction, so that a change
//! that rolls back has none and a committed one is never lost. Each event is fanned out at
//! once to the shop's enabled endpoints that receive its type (one `INSERT … SELECT`), and
//! the workers are woken: `pg_notify` on PostgreSQL (delivered at commit, to every
//! instance), and [`Database::events_committed`] in this process after the commit.

use std::sync::Arc;

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Nullable, Text};
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::catalogue::Product;
use shop_domain::id::{EventId, ProductId, ShopId, VariantId};
use shop_domain::webhook::{EventData, EventType, NewEvent, StockCause, stock_entry_of};
use shop_ports::port::{EventRenderer, IdGenerator};

use crate::catalogue::{CatalogueQueries, Selection};
use crate::database::impl_for_each_backend;
use crate::error::DbError;
use crate::schema::{webhook_deliveries, webhook_endpoints, webhook_events};

/// The PostgreSQL channel the workers `LISTEN` on.
pub(crate) const CHANNEL: &str = "webhook_events";

/// What a write needs to append its events: their JSON (the HTTP adapter's DTOs) and their
/// ids. A [`Database`](crate::Database) without one writes no events (the seeding tool's).
pub struct Outbox {
    pub(crate) renderer: Arc<dyn EventRenderer>,
    pub(crate) ids: Arc<dyn IdGenerator>,
}

impl Outbox {
    pub fn new(renderer: Arc<dyn EventRenderer>, ids: Arc<dyn IdGenerator>) -> Self {
        Self { renderer, ids }
    }

    pub(crate) fn event(
        &self,
        event_type: EventType,
        at: Timestamp,
        data: EventData,
    ) -> Result<NewEvent, DbError> {
        let id = EventId::parse(format!("evt_{}", self.ids.new_id()))
            .map_err(|_| DbError::Invariant("the id generator made an invalid event id".into()))?;
        Ok(NewEvent {
            id,
            event_type,
            at,
            data,
        })
    }

    /// `product.updated` (or `.created`) for a product as just written.
    pub(crate) fn product(&self, created: bool, product: Product) -> Result<NewEvent, DbError> {
        let kind = if created {
            EventType::ProductCreated
        } else {
            EventType::ProductUpdated
        };
        let at = product.updated_at;
        self.event(kind, at, EventData::Product(product))
    }
}

pub(crate) trait OutboxQueries {
    /// Appends `event` to the outbox and returns its sequence number.
    fn append_event_only(
        &mut self,
        shop: &ShopId,
        event: &NewEvent,
        body: &str,
    ) -> impl Future<Output = Result<i64, DbError>> + Send;

    /// Queues event `seq` for each of the shop's enabled endpoints that receive its type.
    fn fan_out(
        &mut self,
        shop: &ShopId,
        event: &NewEvent,
        seq: i64,
    ) -> impl Future<Output = Result<(), DbError>> + Send;
}

impl_for_each_backend! {
    impl OutboxQueries {
        async fn append_event_only(
            &mut self,
            shop: &ShopId,
            event: &NewEvent,
            body: &str,
        ) -> Result<i64, DbError> {
            Ok(diesel::insert_into(webhook_events::table)
                .values((
                    webhook_events::id.eq(event.id.as_str()),
                    webhook_events::shop_id.eq(shop.as_str()),
                    webhook_events::event_type.eq(event.event_type.as_str()),
                    webhook_events::resource.eq(event.resource_key()),
                    webhook_events::body.eq(body),
                    webhook_events::created_at_ms.eq(event.at.millis()),
                ))
                .returning(webhook_events::seq)
                .get_result(self)
                .await?)
        }

        async fn fan_out(
            &mut self,
            shop: &ShopId,
            event: &NewEvent,
            seq: i64,
        ) -> Result<(), DbError> {
            let at = event.at.millis();
            let resource = event.resource_key();
            // The delivery's id: the event's sequence number and the endpoint's id, unique
            // and within the 64 characters of an id.
            let fan_out = webhook_endpoints::table
                .filter(webhook_endpoints::shop_id.eq(shop.as_str()))
                .filter(webhook_endpoints::status.eq("enabled"))
                .filter(webhook_endpoints::receives.like(format!("%,{},%", event.event_type.as_str())))
                .select((
                    format!("dlv_{seq}_").into_sql::<Text>().concat(webhook_endpoints::id),
                    webhook_endpoints::shop_id,
                    webhook_endpoints::id,
                    seq.into_sql::<BigInt>(),
                    resource.as_str().into_sql::<Text>(),
                    "pending".into_sql::<Text>(),
                    0.into_sql::<Integer>(),
                    Some(at).into_sql::<Nullable<BigInt>>(),
                    at.into_sql::<BigInt>(),
                    at.into_sql::<BigInt>(),
                ));
            diesel::insert_into(webhook_deliveries::table)
                .values(fan_out)
                .into_columns((
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
                ))
                .execute(self)
                .await?;
            Ok(())
        }
    }
}

/// A variant's stock entry that just changed, with its product.
pub(crate) struct StockChange<'a> {
    pub shop: &'a ShopId,
    pub product: &'a ProductId,
    pub variant: &'a VariantId,
    pub at: Timestamp,
}

/// A change of a variant's stock entry (an adjustment, a switch of tracking): its
/// `stock.updated` with `cause`, then its product's `product.updated`, the product read back
/// as just written in the caller's transaction.
pub(crate) async fn append_stock_change<C>(
    conn: &mut C,
    outbox: &Outbox,
    change: StockChange<'_>,
    cause: StockCause,
) -> Result<(), DbError>
where
    C: CatalogueQueries + OutboxQueries + CommitOrder + Send,
{
    let product = conn
        .load_products(
            change.shop,
            Selection::Ids(std::slice::from_ref(change.product)),
        )
        .await?
        .pop()
        .ok_or_else(|| DbError::Invariant("a changed variant's product is gone".into()))?;
    let variant = product
        .variants
        .iter()
        .find(|variant| &variant.id == change.variant)
        .ok_or_else(|| DbError::Invariant("a changed variant is not in its product".into()))?;
    let stock = outbox.event(
        EventType::StockUpdated,
        change.at,
        EventData::Stock {
            entry: stock_entry_of(&product, variant, change.at),
            cause,
        },
    )?;
    let product = outbox.product(false, product)?;
    append(conn, outbox, change.shop, &[stock, product]).await
}

/// Renders and appends `events` in the caller's transaction; on PostgreSQL also queues the
/// `NOTIFY` that wakes every instance's workers at commit.
pub(crate) async fn append<C: OutboxQueries + CommitOrder + Send>(
    conn: &mut C,
    outbox: &Outbox,
    shop: &ShopId,
    events: &[NewEvent],
) -> Result<(), DbError> {
    if events.is_empty() {
        return Ok(());
    }
    conn.take_commit_turn(shop).await?;
    for event in events {
        let body = outbox.renderer.render(event);
        let seq = conn.append_event_only(shop, event, &body).await?;
        conn.fan_out(shop, event, seq).await?;
    }
    conn.notify_workers().await
}

/// A shop's events are numbered in the order their transactions commit, so that a reader
/// of the log (`GET /api/v2/events`, its cursor a position) never finds an event appear
/// behind a position it has passed. SQLite's writers commit one at a time anyway. On
/// PostgreSQL, a transaction takes the shop's advisory lock just before it appends its events
/// (its last statements) and holds it until its commit is visible: the next writer of the shop
/// draws its positions after that. Only the appends and the commit run under the lock (see
/// docs/PERFORMANCE.md, "Webhooks").
pub(crate) trait CommitOrder {
    fn take_commit_turn(
        &mut self,
        shop: &ShopId,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    /// PostgreSQL's `NOTIFY` at commit, which wakes every instance's workers; nothing on
    /// SQLite, whose one instance is woken in process.
    fn notify_workers(&mut self) -> impl Future<Output = Result<(), DbError>> + Send;
}

impl<R: crate::database::SqliteRunner> CommitOrder for crate::database::SqliteOn<R> {
    async fn take_commit_turn(&mut self, _shop: &ShopId) -> Result<(), DbError> {
        Ok(())
    }

    async fn notify_workers(&mut self) -> Result<(), DbError> {
        Ok(())
    }
}

/// The advisory locks' class of the outbox (the issue that made it), apart from any other
/// use of advisory locks.
const COMMIT_ORDER_LOCK_CLASS: i32 = 34;

impl CommitOrder for diesel_async::AsyncPgConnection {
    async fn take_commit_turn(&mut self, shop: &ShopId) -> Result<(), DbError> {
        diesel::sql_query("SELECT pg_advisory_xact_lock($1, hashtext($2))")
            .bind::<Integer, _>(COMMIT_ORDER_LOCK_CLASS)
            .bind::<Text, _>(shop.as_str())
            .execute(self)
            .await?;
        Ok(())
    }

    async fn notify_workers(&mut self) -> Result<(), DbError> {
        diesel::sql_query(format!("NOTIFY {CHANNEL}"))
            .execute(self)
            .await?;
        Ok(())
    }
}
