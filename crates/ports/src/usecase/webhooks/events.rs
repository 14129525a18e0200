//! `GET /api/v2/events`: the shop's events of the retention period in commit order, only
//! those whose resource the key may read. The catch-up after a long outage, and the place
//! to find every change (deliveries send only each resource's newest).

use std::sync::Arc;

use shop_domain::Timestamp;
use shop_domain::id::ShopId;
use shop_domain::pagination::{Cursor, CursorKind, Page, PageLimit};
use shop_domain::scope::ScopeSet;
use shop_domain::webhook::EventType;

use super::EndpointError;
use crate::port::{EventLog, EventQuery, LoggedEvent};

pub struct WebhookEvents {
    log: Arc<dyn EventLog>,
}

impl WebhookEvents {
    pub fn new(log: Arc<dyn EventLog>) -> Self {
        Self { log }
    }

    /// `kind`: one type, or every type. A type the key cannot read lists nothing rather than
    /// failing: the answer is the same as for a type with no event.
    pub async fn list(
        &self,
        shop: &ShopId,
        scopes: ScopeSet,
        kind: Option<EventType>,
        since: Option<Timestamp>,
        cursor: Option<&str>,
        limit: PageLimit,
    ) -> Result<Page<LoggedEvent>, EndpointError> {
        let after = match cursor {
            None => None,
            Some(text) => Some(
                Cursor::decode(text, CursorKind::WebhookEvents)
                    .ok()
                    .and_then(|cursor| cursor.parts().first()?.parse::<i64>().ok())
                    .ok_or_else(|| EndpointError::Invalid {
                        field: "cursor",
                        message: "is not a cursor of this list".to_owned(),
                    })?,
            ),
        };
        let types = EventType::SUBSCRIBABLE
            .into_iter()
            .filter(|readable| readable.readable_with(scopes))
            .filter(|readable| kind.is_none_or(|kind| kind == *readable))
            .collect();
        let query = EventQuery {
            types,
            since,
            after,
            limit: limit.get() + 1,
        };
        let rows = self.log.list_events(shop, &query).await?;
        Ok(Page::from_overfetch(rows, limit, |event| {
            Cursor::new(CursorKind::WebhookEvents, vec![event.position.to_string()])
        }))
    }
}
