//! The outbox: a write's events, appended in the write's own transaction, so that a change
//! that rolls back has none and a committed one is never lost. Each event goes to the shop's
//! endpoints enabled at its commit that receive its type: on PostgreSQL its deliveries are
//! queued in the same transaction (one `INSERT … SELECT`); on SQLite the event names them
//! and the workers queue the deliveries in their next turn (`QueuesDeliveries`). Then
//! the workers are woken after the commit by
//! [`Database::events_committed`](crate::database::Database::events_committed) (this
//! process's, and on PostgreSQL every instance's by a `NOTIFY` sent outside the write's
//! transaction: see `webhooks/announce.rs`).
//!
//! Nothing here serialises a shop's writers: the log's commit order is drawn when it is read
//! (`webhooks/events.rs`), and two events of one resource are already in commit order, since
//! the second write waited on the first one's row locks before it drew its position.

use std::ops::Deref;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Nullable, Text};
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::catalogue::Product;
use shop_domain::id::{EventId, ProductId, ShopId, VariantId};
use shop_domain::webhook::{
    DeliveryStatus, EventData, EventType, NewEvent, StockCause, stock_entry_of,
};
use shop_ports::port::{EventRenderer, IdGenerator};

use super::deliveries::{QUEUED_DELIVERY_COLUMNS, delivery_id_prefix};
use crate::catalogue::{CatalogueQueries, Selection};
use crate::database::impl_for_each_backend;
use crate::error::DbError;
use crate::schema::{webhook_deliveries, webhook_endpoints, webhook_events};
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

/// The outbox as one write transaction appends to it: remembers whether the transaction
/// queued a delivery, which is what its commit has to wake the workers for
/// ([`Database::write_committed`](crate::Database)). Made afresh for each transaction (a
/// retried one too), so a flag never outlives the transaction that set it.
pub(crate) struct OutboxWrite<'a> {
    outbox: &'a Outbox,
    /// Set once the transaction queued a delivery; only ever set, so an attempt rolled
    /// back can at worst wake the workers for nothing, never leave a delivery asleep.
    queued: AtomicBool,
}

impl<'a> OutboxWrite<'a> {
    pub(crate) fn new(outbox: &'a Outbox) -> Self {
        Self {
            outbox,
            queued: AtomicBool::new(false),
        }
    }

    /// Whether the transaction queued (on SQLite: named) a delivery.
    pub(crate) fn queued_deliveries(&self) -> bool {
        AtomicBool::load(&self.queued, Ordering::Relaxed)
    }
}

impl Deref for OutboxWrite<'_> {
    type Target = Outbox;

    fn deref(&self) -> &Outbox {
        self.outbox
    }
}

pub(crate) trait OutboxQueries {
    /// Appends the rendered `events` to the outbox, in their order; returns the sequence
    /// numbers drawn.
    fn insert_events(
        &mut self,
        shop: &ShopId,
        events: &[(&NewEvent, String)],
    ) -> impl Future<Output = Result<Vec<i64>, DbError>> + Send;

    /// Queues `events` (this transaction's own, with their sequence numbers) for each of the
    /// shop's enabled endpoints that receives its type; tells whether any did.
    fn fan_out(
        &mut self,
        shop: &ShopId,
        events: &[(i64, &NewEvent)],
    ) -> impl Future<Output = Result<bool, DbError>> + Send;
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

impl_for_each_backend! {
    impl OutboxQueries {
        async fn insert_events(
            &mut self,
            shop: &ShopId,
            events: &[(&NewEvent, String)],
        ) -> Result<Vec<i64>, DbError> {
            // One statement per event: diesel has no multi-row INSERT … RETURNING on SQLite,
            // and the fan-out below, one statement for them all, is what an event costs most.
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
            Ok(seqs)
        }

        async fn fan_out(
            &mut self,
            shop: &ShopId,
            events: &[(i64, &NewEvent)],
        ) -> Result<bool, DbError> {
            self.queue_deliveries(shop, events).await
        }
    }
}

/// How this transaction's events reach the endpoints that receive them, which differs by
/// database (see the module's documentation).
trait QueuesDeliveries {
    /// `events`: this transaction's, each with the sequence number it was given. Tells
    /// whether one of them goes to an endpoint.
    fn queue_deliveries(
        &mut self,
        shop: &ShopId,
        events: &[(i64, &NewEvent)],
    ) -> impl Future<Output = Result<bool, DbError>> + Send;
}

/// PostgreSQL: the deliveries themselves, in the write's transaction (an `INSERT … SELECT`
/// of the shop's endpoints per event). Its events are not numbered in commit order, so no
/// reader could tell later which events it has fanned out.
///
/// The statement takes the event's values from its binds rather than reading them back from
/// `webhook_events`: kept prepared, a read of that table would run under the plan made when
/// the table was small (a scan of all of it), however large it grows until its next
/// `ANALYZE` (docs/performance-log.md, "The API v2 writes: what the request did that its
/// ceiling did not").
impl QueuesDeliveries for diesel_async::AsyncPgConnection {
    async fn queue_deliveries(
        &mut self,
        shop: &ShopId,
        events: &[(i64, &NewEvent)],
    ) -> Result<bool, DbError> {
        let mut queued = 0;
        for (seq, event) in events {
            let at = event.at.millis();
            let pairs = webhook_endpoints::table
                .filter(webhook_endpoints::shop_id.eq(shop.as_str()))
                .filter(webhook_endpoints::status.eq("enabled"))
                .filter(
                    webhook_endpoints::receives.like(format!("%,{},%", event.event_type.as_str())),
                )
                .select((
                    delivery_id_prefix(*seq)
                        .into_sql::<Text>()
                        .concat(webhook_endpoints::id),
                    webhook_endpoints::shop_id,
                    webhook_endpoints::id,
                    seq.into_sql::<BigInt>(),
                    event.resource_key().into_sql::<Text>(),
                    DeliveryStatus::Pending.as_str().into_sql::<Text>(),
                    0.into_sql::<Integer>(),
                    Some(at).into_sql::<Nullable<BigInt>>(),
                    at.into_sql::<BigInt>(),
                    at.into_sql::<BigInt>(),
                ));
            queued += KeptPrepared(
                diesel::insert_into(webhook_deliveries::table)
                    .values(pairs)
                    .into_columns(QUEUED_DELIVERY_COLUMNS)
                    .on_conflict_do_nothing(),
            )
            .execute(self)
            .await?;
        }
        Ok(queued > 0)
    }
}

/// SQLite: each event names its receivers as of this commit (a column of its row, already
/// written), and the workers queue the deliveries in their next turn, in batches
/// (`webhooks/queue/fan_out.rs`). One writer at a time numbers the events in commit order,
/// so the workers' cursor misses none; and the adjustment writes no row per endpoint, which
/// on SQLite's one writer cost every write its share (docs/PERFORMANCE.md, "Webhooks").
/// This transaction's events are numbered `min..=max` of `seqs`: no other writer ran between.
impl<R: crate::database::SqliteRunner> QueuesDeliveries for crate::database::SqliteOn<R> {
    async fn queue_deliveries(
        &mut self,
        shop: &ShopId,
        events: &[(i64, &NewEvent)],
    ) -> Result<bool, DbError> {
        let seqs = || events.iter().map(|(seq, _)| *seq);
        let (Some(first), Some(last)) = (seqs().min(), seqs().max()) else {
            return Ok(false);
        };
        let named: Vec<Named> = KeptPrepared(
            diesel::sql_query(
                "UPDATE webhook_events SET receivers = ( \
                     SELECT group_concat(e.id) FROM webhook_endpoints e \
                     WHERE e.shop_id = webhook_events.shop_id AND e.status = 'enabled' \
                       AND e.receives LIKE '%,' || webhook_events.type || ',%') \
                 WHERE shop_id = ? AND seq BETWEEN ? AND ? \
                 RETURNING receivers IS NOT NULL AS named",
            )
            .bind::<Text, _>(shop.as_str())
            .bind::<BigInt, _>(first)
            .bind::<BigInt, _>(last),
        )
        .load(self)
        .await?;
        Ok(named.iter().any(|row| row.named))
    }
}

/// Whether an event named a receiver, as SQLite's fan-out returns it.
#[derive(QueryableByName)]
struct Named {
    #[diesel(sql_type = diesel::sql_types::Bool)]
    named: bool,
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
    outbox: &OutboxWrite<'_>,
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
    outbox: &OutboxWrite<'_>,
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
    let seqs = conn.insert_events(shop, &rendered).await?;
    let numbered: Vec<(i64, &NewEvent)> = seqs.into_iter().zip(events).collect();
    if conn.fan_out(shop, &numbered).await? {
        outbox.queued.store(true, Ordering::Relaxed);
    }
    Ok(())
}
