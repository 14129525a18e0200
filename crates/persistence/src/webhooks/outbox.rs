//! The outbox: a write's events, appended in the write's own transaction, so that a change
//! that rolls back has none and a committed one is never lost. Each event names the shop's
//! endpoints enabled at its commit that receive its type (its `receivers`), and the workers
//! queue their deliveries in their next turn, in batches (`webhooks/queue/fan_out.rs`): a
//! write inserts no row per endpoint. Then the workers are woken after the commit by
//! [`Database::events_committed`] (this process's, and on PostgreSQL every instance's by a
//! `NOTIFY` sent outside the write's transaction: see `webhooks/announce.rs`).
//!
//! Nothing here serialises a shop's writers: the log's commit order is drawn when it is read
//! (`webhooks/events.rs`), and two events of one resource are already in commit order, since
//! the second write waited on the first one's row locks before it drew its position.

use std::sync::Arc;

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::catalogue::Product;
use shop_domain::id::{EventId, ProductId, ShopId, VariantId};
use shop_domain::webhook::{EventData, EventType, NewEvent, StockCause, stock_entry_of};
use shop_ports::port::{EventRenderer, IdGenerator};

use crate::catalogue::{CatalogueQueries, Selection};
use crate::error::DbError;
use crate::schema::webhook_events;
use crate::sql::kept_prepared::KeptPrepared;

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
    /// Appends the rendered `events` to the outbox, in their order, each naming its
    /// receivers; returns the sequence numbers drawn.
    fn insert_events(
        &mut self,
        shop: &ShopId,
        events: &[(&NewEvent, String)],
    ) -> impl Future<Output = Result<Vec<i64>, DbError>> + Send;
}

/// An event as the outbox stores it.
#[derive(Insertable)]
#[diesel(table_name = webhook_events)]
struct EventRow<'a> {
    id: &'a str,
    shop_id: &'a str,
    event_type: &'a str,
    resource: String,
    body: &'a str,
    created_at_ms: i64,
}

/// `receives`' pattern of an event's type (the endpoints' stored form: `webhooks/endpoints.rs`).
fn receives_pattern(event: &NewEvent) -> String {
    format!("%,{},%", event.event_type.as_str())
}

/// SQLite: each event inserted, then, in one statement, the receivers of this transaction's
/// events, numbered `min..=max` of the positions drawn: no other writer ran between, and one
/// writer at a time numbers the events in commit order, so that the workers' cursor misses
/// none.
impl<R: crate::database::SqliteRunner> OutboxQueries for crate::database::SqliteOn<R> {
    async fn insert_events(
        &mut self,
        shop: &ShopId,
        events: &[(&NewEvent, String)],
    ) -> Result<Vec<i64>, DbError> {
        // One statement per event: diesel has no multi-row INSERT … RETURNING on SQLite.
        let mut seqs = Vec::with_capacity(events.len());
        for (event, body) in events {
            let row = EventRow {
                id: event.id.as_str(),
                shop_id: shop.as_str(),
                event_type: event.event_type.as_str(),
                resource: event.resource_key(),
                body: body.as_str(),
                created_at_ms: event.at.millis(),
            };
            let insert = diesel::insert_into(webhook_events::table)
                .values(&row)
                .returning(webhook_events::seq);
            let seq: i64 = KeptPrepared(insert).get_result(&mut *self).await?;
            seqs.push(seq);
        }
        let (Some(first), Some(last)) = (seqs.iter().min(), seqs.iter().max()) else {
            return Ok(seqs);
        };
        KeptPrepared(
            diesel::sql_query(
                "UPDATE webhook_events SET receivers = ( \
                     SELECT group_concat(e.id) FROM webhook_endpoints e \
                     WHERE e.shop_id = webhook_events.shop_id AND e.status = 'enabled' \
                       AND e.receives LIKE '%,' || webhook_events.type || ',%') \
                 WHERE shop_id = ? AND seq BETWEEN ? AND ?",
            )
            .bind::<Text, _>(shop.as_str())
            .bind::<BigInt, _>(*first)
            .bind::<BigInt, _>(*last),
        )
        .execute(self)
        .await?;
        Ok(seqs)
    }
}

/// The position an event drew.
#[derive(QueryableByName)]
struct Drawn {
    #[diesel(sql_type = BigInt)]
    seq: i64,
}

/// PostgreSQL: each event's `INSERT` names its receivers, and the row's `writer_xid` (its
/// default) is this transaction's id, by which the workers tell the events their last turn
/// could not see yet (`webhooks/queue/fan_out.rs`).
impl OutboxQueries for diesel_async::AsyncPgConnection {
    async fn insert_events(
        &mut self,
        shop: &ShopId,
        events: &[(&NewEvent, String)],
    ) -> Result<Vec<i64>, DbError> {
        let mut seqs = Vec::with_capacity(events.len());
        for (event, body) in events {
            let drawn: Drawn = KeptPrepared(
                diesel::sql_query(
                    "INSERT INTO webhook_events \
                       (id, shop_id, type, resource, body, created_at_ms, receivers) \
                     VALUES ($1, $2, $3, $4, $5, $6, ( \
                       SELECT string_agg(e.id, ',') FROM webhook_endpoints e \
                       WHERE e.shop_id = $2 AND e.status = 'enabled' AND e.receives LIKE $7)) \
                     RETURNING seq",
                )
                .bind::<Text, _>(event.id.as_str())
                .bind::<Text, _>(shop.as_str())
                .bind::<Text, _>(event.event_type.as_str())
                .bind::<Text, _>(event.resource_key())
                .bind::<Text, _>(body.as_str())
                .bind::<BigInt, _>(event.at.millis())
                .bind::<Text, _>(receives_pattern(event)),
            )
            .get_result(&mut *self)
            .await?;
            seqs.push(drawn.seq);
        }
        Ok(seqs)
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
    C: CatalogueQueries + OutboxQueries + Send,
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

/// Renders and appends `events` in the caller's transaction.
pub(crate) async fn append<C: OutboxQueries + Send>(
    conn: &mut C,
    outbox: &Outbox,
    shop: &ShopId,
    events: &[NewEvent],
) -> Result<(), DbError> {
    if events.is_empty() {
        return Ok(());
    }
    let rendered: Vec<(&NewEvent, String)> = events
        .iter()
        .map(|event| (event, outbox.renderer.render(event)))
        .collect();
    conn.insert_events(shop, &rendered).await?;
    Ok(())
}
