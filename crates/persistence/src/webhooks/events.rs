//! The shop's event log (`EventLog`): the outbox read in the order its events became visible.
//!
//! A reader's cursor is a position, and no event may ever appear behind a position a reader
//! has passed. The outbox's `seq` cannot promise that on PostgreSQL: a transaction draws its
//! `seq` before it commits, so a smaller one can become visible after a larger one. Rather
//! than make a shop's writers commit one at a time, the log numbers its events when it is
//! read: each read first gives the shop's committed events that have no position yet the next
//! ones, in `seq` order, under a lock of the shop's readers. An event still uncommitted then is
//! not seen, and is numbered after, by a later read.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::{Integer, Text};
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::id::{EventId, ShopId};
use shop_domain::webhook::EventType;
use shop_ports::StoreError;
use shop_ports::port::{EventLog, EventQuery, LoggedEvent};

use crate::database::{Database, in_transaction, with_conn};
use crate::error::DbError;
use crate::schema::webhook_events;

#[async_trait]
impl EventLog for Database {
    async fn list_events(
        &self,
        shop: &ShopId,
        query: &EventQuery,
    ) -> Result<Vec<LoggedEvent>, StoreError> {
        if query.types.is_empty() {
            return Ok(Vec::new());
        }
        let types: Vec<&str> = query.types.iter().map(|kind| kind.as_str()).collect();
        let numbered: Result<(), DbError> =
            in_transaction!(self, |conn| { conn.number_new_events(shop).await });
        numbered?;
        let limit = i64::try_from(query.limit).unwrap_or(i64::MAX);
        let rows: Vec<(Option<i64>, String, String, i64, String)> = with_conn!(self, |conn| {
            let mut page = webhook_events::table
                .filter(webhook_events::shop_id.eq(shop.as_str()))
                .filter(webhook_events::event_type.eq_any(&types))
                .filter(webhook_events::log_position.is_not_null())
                .select((
                    webhook_events::log_position,
                    webhook_events::id,
                    webhook_events::event_type,
                    webhook_events::created_at_ms,
                    webhook_events::body,
                ))
                .order(webhook_events::log_position.asc())
                .limit(limit)
                .into_boxed();
            if let Some(after) = query.after {
                page = page.filter(webhook_events::log_position.gt(after));
            }
            if let Some(since) = query.since {
                page = page.filter(webhook_events::created_at_ms.ge(since.millis()));
            }
            page.load(conn).await
        })?;
        rows.into_iter()
            .map(|(position, id, event_type, created_at_ms, body)| {
                let corrupt = |what: &str| DbError::corrupt("webhook_events", &id, what.to_owned());
                Ok(LoggedEvent {
                    position: position.ok_or_else(|| corrupt("position"))?,
                    event_type: event_type
                        .parse::<EventType>()
                        .map_err(|_| corrupt("type"))?,
                    id: EventId::parse(&*id).map_err(|_| corrupt("id"))?,
                    created_at: Timestamp::from_millis(created_at_ms),
                    body,
                })
            })
            .collect::<Result<_, DbError>>()
            .map_err(StoreError::from)
    }
}

/// Numbers a shop's committed events that have none yet (see the module's comment).
trait NumbersEvents {
    fn number_new_events(
        &mut self,
        shop: &ShopId,
    ) -> impl Future<Output = Result<(), DbError>> + Send;
}

/// The shop's next positions, in `seq` order, after its largest. `{shop}` is the shop's bind
/// parameter, written per backend.
fn numbering(shop: &str) -> String {
    format!(
        "UPDATE webhook_events SET log_position = numbered.log_position \
         FROM (SELECT seq, \
                 (SELECT COALESCE(MAX(log_position), 0) FROM webhook_events \
                   WHERE shop_id = {shop}) + ROW_NUMBER() OVER (ORDER BY seq) AS log_position \
               FROM webhook_events WHERE shop_id = {shop} AND log_position IS NULL) AS numbered \
         WHERE webhook_events.seq = numbered.seq"
    )
}

/// SQLite's writers, these readers included, take their turn one at a time.
impl<R: crate::database::SqliteRunner> NumbersEvents for crate::database::SqliteOn<R> {
    async fn number_new_events(&mut self, shop: &ShopId) -> Result<(), DbError> {
        diesel::sql_query(numbering("?1"))
            .bind::<Text, _>(shop.as_str())
            .execute(self)
            .await?;
        Ok(())
    }
}

/// The advisory locks' class of the log's numbering (the issue that made it), apart from any
/// other use of advisory locks.
const NUMBERING_LOCK_CLASS: i32 = 34;

impl NumbersEvents for diesel_async::AsyncPgConnection {
    async fn number_new_events(&mut self, shop: &ShopId) -> Result<(), DbError> {
        // Two readers of one shop number one after the other, each statement seeing the
        // positions the other committed: the lock is its own statement, before the update's
        // snapshot is taken.
        diesel::sql_query("SELECT pg_advisory_xact_lock($1, hashtext($2))")
            .bind::<Integer, _>(NUMBERING_LOCK_CLASS)
            .bind::<Text, _>(shop.as_str())
            .execute(&mut *self)
            .await?;
        diesel::sql_query(numbering("$1"))
            .bind::<Text, _>(shop.as_str())
            .execute(self)
            .await?;
        Ok(())
    }
}
