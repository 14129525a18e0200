//! The shop's event log (`EventLog`): the outbox read in position order, which is commit
//! order (`outbox::CommitOrder`).

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::id::{EventId, ShopId};
use shop_domain::webhook::EventType;
use shop_ports::StoreError;
use shop_ports::port::{EventLog, EventQuery, LoggedEvent};

use crate::database::{Database, with_conn};
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
        let limit = i64::try_from(query.limit).unwrap_or(i64::MAX);
        let rows: Vec<(i64, String, String, i64, String)> = with_conn!(self, |conn| {
            let mut page = webhook_events::table
                .filter(webhook_events::shop_id.eq(shop.as_str()))
                .filter(webhook_events::event_type.eq_any(&types))
                .select((
                    webhook_events::seq,
                    webhook_events::id,
                    webhook_events::event_type,
                    webhook_events::created_at_ms,
                    webhook_events::body,
                ))
                .order(webhook_events::seq.asc())
                .limit(limit)
                .into_boxed();
            if let Some(after) = query.after {
                page = page.filter(webhook_events::seq.gt(after));
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
                    position,
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
