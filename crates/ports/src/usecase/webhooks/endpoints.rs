//! `/api/v2/webhook-endpoints` and the console's Webhooks page: a shop's endpoints, their
//! secrets (shown at the creation and a rotation only), and their tests.

use std::sync::Arc;
use std::time::Duration;

use shop_domain::Timestamp;
use shop_domain::id::{DeliveryId, EventId, ShopId, WebhookEndpointId};
use shop_domain::pagination::{Cursor, CursorKind, Page, PageLimit};
use shop_domain::scope::ScopeSet;
use shop_domain::webhook::{
    DeliveryLine, DeliveryStatus, EndpointUrl, EndpointUrlError, EventData, EventSelection,
    EventType, EventTypeError, MAX_DESCRIPTION_LEN, NetworkPolicy, NewEvent, WebhookEndpoint,
    WebhookSecret, received_types,
};

use crate::StoreError;
use crate::port::{
    Clock, DeliveryQuery, EndpointChange, EndpointCreation, IdGenerator, NewEndpoint, RandomTokens,
    WebhookEndpointStore,
};

/// How long a rotated secret keeps signing beside the new one.
pub const ROTATION_GRACE: Duration = Duration::from_secs(24 * 3600);

/// An endpoint's fields as a request gives them, not yet checked.
#[derive(Clone, Debug, Default)]
pub struct EndpointInput {
    pub url: Option<String>,
    pub events: Option<Vec<String>>,
    pub description: Option<String>,
    /// `PATCH` only: `true` enables, `false` disables (`manual`).
    pub enabled: Option<bool>,
}

#[derive(Debug, thiserror::Error)]
pub enum EndpointError {
    /// A field is missing or invalid: 400 `VALIDATION_ERROR` naming it.
    #[error("{field}: {message}")]
    Invalid {
        field: &'static str,
        message: String,
    },
    /// Types whose resource the key cannot read: 403 `INSUFFICIENT_SCOPE`.
    #[error("the key cannot read the resources of {}", names(.0))]
    Unreadable(Vec<EventType>),
    /// The shop holds `MAX_ENDPOINTS_PER_SHOP`: 422 `WEBHOOK_ENDPOINT_LIMIT`.
    #[error("the shop already has the most endpoints it may have")]
    LimitReached,
    #[error("not found")]
    NotFound,
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn names(types: &[EventType]) -> String {
    types
        .iter()
        .map(|kind| kind.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The creation's answer: the only time, with a rotation's, that a secret is shown.
#[derive(Clone, Debug)]
pub struct CreatedEndpoint {
    pub endpoint: WebhookEndpoint,
    pub secret: WebhookSecret,
}

pub struct WebhookEndpoints {
    store: Arc<dyn WebhookEndpointStore>,
    ids: Arc<dyn IdGenerator>,
    clock: Arc<dyn Clock>,
    random: Arc<dyn RandomTokens>,
    policy: NetworkPolicy,
}

impl WebhookEndpoints {
    pub fn new(
        store: Arc<dyn WebhookEndpointStore>,
        ids: Arc<dyn IdGenerator>,
        clock: Arc<dyn Clock>,
        random: Arc<dyn RandomTokens>,
        policy: NetworkPolicy,
    ) -> Self {
        Self {
            store,
            ids,
            clock,
            random,
            policy,
        }
    }

    pub async fn create(
        &self,
        shop: &ShopId,
        scopes: ScopeSet,
        input: EndpointInput,
    ) -> Result<CreatedEndpoint, EndpointError> {
        let url = self.url(input.url.as_deref().ok_or_else(|| missing("url"))?)?;
        let events = events(
            input.events.as_deref().ok_or_else(|| missing("events"))?,
            scopes,
        )?;
        let description = description(input.description.unwrap_or_default())?;
        let secret = WebhookSecret::from_random_bytes(self.random.random_bytes());
        let new = NewEndpoint {
            id: self.new_id("we")?,
            shop: shop.clone(),
            url,
            receives: received_types(&events, scopes),
            events,
            creator_scopes: scopes,
            description,
            secret: secret.clone(),
            at: self.clock.now(),
        };
        match self.store.create_endpoint(&new).await? {
            EndpointCreation::Created(endpoint) => Ok(CreatedEndpoint {
                endpoint: *endpoint,
                secret,
            }),
            EndpointCreation::LimitReached => Err(EndpointError::LimitReached),
        }
    }

    /// A page of the shop's endpoints by id; `cursor` is the previous page's `nextCursor`.
    pub async fn list(
        &self,
        shop: &ShopId,
        cursor: Option<&str>,
        limit: PageLimit,
    ) -> Result<Page<WebhookEndpoint>, EndpointError> {
        let after = match cursor {
            None => None,
            Some(text) => Some(
                decode(text, CursorKind::WebhookEndpoints)?
                    .first()
                    .and_then(|id| WebhookEndpointId::parse(id.as_str()).ok())
                    .ok_or_else(invalid_cursor)?,
            ),
        };
        let rows = self
            .store
            .list_endpoints(shop, after, limit.get() + 1)
            .await?;
        Ok(Page::from_overfetch(rows, limit, |endpoint| {
            Cursor::new(
                CursorKind::WebhookEndpoints,
                vec![endpoint.id.as_str().to_owned()],
            )
        }))
    }

    pub async fn get(
        &self,
        shop: &ShopId,
        id: &WebhookEndpointId,
    ) -> Result<WebhookEndpoint, EndpointError> {
        self.store
            .get_endpoint(shop, id)
            .await?
            .ok_or(EndpointError::NotFound)
    }

    /// A `PATCH`. `events` is checked against the editing key's scopes, and then covers what
    /// that key may read.
    pub async fn update(
        &self,
        shop: &ShopId,
        scopes: ScopeSet,
        id: &WebhookEndpointId,
        input: EndpointInput,
    ) -> Result<WebhookEndpoint, EndpointError> {
        let change = EndpointChange {
            url: input.url.as_deref().map(|url| self.url(url)).transpose()?,
            events: input
                .events
                .as_deref()
                .map(|names| {
                    events(names, scopes).map(|events| {
                        let receives = received_types(&events, scopes);
                        (events, receives)
                    })
                })
                .transpose()?,
            description: input.description.map(description).transpose()?,
            enabled: input.enabled,
        };
        self.store
            .update_endpoint(shop, id, &change, self.clock.now())
            .await?
            .ok_or(EndpointError::NotFound)
    }

    pub async fn delete(&self, shop: &ShopId, id: &WebhookEndpointId) -> Result<(), EndpointError> {
        if self.store.delete_endpoint(shop, id).await? {
            Ok(())
        } else {
            Err(EndpointError::NotFound)
        }
    }

    /// A new secret; the old one keeps signing for [`ROTATION_GRACE`].
    pub async fn rotate_secret(
        &self,
        shop: &ShopId,
        id: &WebhookEndpointId,
    ) -> Result<WebhookSecret, EndpointError> {
        let secret = WebhookSecret::from_random_bytes(self.random.random_bytes());
        let now = self.clock.now();
        let grace = i64::try_from(ROTATION_GRACE.as_millis()).unwrap_or(i64::MAX);
        if self
            .store
            .rotate_secret(shop, id, &secret, now.plus_millis(grace), now)
            .await?
        {
            Ok(secret)
        } else {
            Err(EndpointError::NotFound)
        }
    }

    /// A `ping` to this endpoint only.
    pub async fn send_test(
        &self,
        shop: &ShopId,
        id: &WebhookEndpointId,
    ) -> Result<EventId, EndpointError> {
        let event = NewEvent {
            id: self.event_id()?,
            event_type: EventType::Ping,
            at: self.clock.now(),
            data: EventData::Ping,
        };
        if self.store.enqueue_ping(shop, id, &event).await? {
            Ok(event.id)
        } else {
            Err(EndpointError::NotFound)
        }
    }

    /// A page of the endpoint's deliveries, newest first.
    pub async fn deliveries(
        &self,
        shop: &ShopId,
        id: &WebhookEndpointId,
        status: Option<DeliveryStatus>,
        cursor: Option<&str>,
        limit: PageLimit,
    ) -> Result<Page<DeliveryLine>, EndpointError> {
        let before = match cursor {
            None => None,
            Some(text) => match decode(text, CursorKind::WebhookDeliveries)?.as_slice() {
                [at, key] => Some((
                    at.parse()
                        .map(Timestamp::from_millis)
                        .map_err(|_| invalid_cursor())?,
                    key.clone(),
                )),
                _ => return Err(invalid_cursor()),
            },
        };
        let query = DeliveryQuery {
            status,
            before,
            limit: limit.get() + 1,
        };
        let rows = self
            .store
            .list_deliveries(shop, id, &query)
            .await?
            .ok_or(EndpointError::NotFound)?;
        Ok(Page::from_overfetch(rows, limit, |line| {
            Cursor::new(
                CursorKind::WebhookDeliveries,
                vec![line.created_at.millis().to_string(), line.row_key()],
            )
        }))
    }

    /// Sends the newest event of the delivery's resource again.
    pub async fn retry(
        &self,
        shop: &ShopId,
        id: &WebhookEndpointId,
        delivery: &DeliveryId,
    ) -> Result<(), EndpointError> {
        if self
            .store
            .retry_delivery(shop, id, delivery, self.clock.now())
            .await?
        {
            Ok(())
        } else {
            Err(EndpointError::NotFound)
        }
    }

    /// Queues, for every resource changed since `since` whose newest event the endpoint was
    /// not delivered, that event; enables the endpoint. Returns how many were queued.
    pub async fn recover(
        &self,
        shop: &ShopId,
        id: &WebhookEndpointId,
        since: Timestamp,
    ) -> Result<usize, EndpointError> {
        self.store
            .recover(shop, id, since, self.clock.now())
            .await?
            .ok_or(EndpointError::NotFound)
    }

    fn url(&self, text: &str) -> Result<EndpointUrl, EndpointError> {
        EndpointUrl::parse(text, self.policy).map_err(|error: EndpointUrlError| {
            EndpointError::Invalid {
                field: "url",
                message: error.to_string(),
            }
        })
    }

    fn new_id(&self, prefix: &str) -> Result<WebhookEndpointId, EndpointError> {
        WebhookEndpointId::parse(format!("{prefix}_{}", self.ids.new_id())).map_err(|_| {
            EndpointError::Store(StoreError::failure("the id generator made an invalid id"))
        })
    }

    fn event_id(&self) -> Result<EventId, EndpointError> {
        EventId::parse(format!("evt_{}", self.ids.new_id())).map_err(|_| {
            EndpointError::Store(StoreError::failure("the id generator made an invalid id"))
        })
    }
}

fn invalid_cursor() -> EndpointError {
    EndpointError::Invalid {
        field: "cursor",
        message: "is not a cursor of this list".to_owned(),
    }
}

fn decode(text: &str, kind: CursorKind) -> Result<Vec<String>, EndpointError> {
    Cursor::decode(text, kind)
        .map(|cursor| cursor.parts().to_vec())
        .map_err(|_| invalid_cursor())
}

fn missing(field: &'static str) -> EndpointError {
    EndpointError::Invalid {
        field,
        message: "is required".to_owned(),
    }
}

fn events(names: &[String], scopes: ScopeSet) -> Result<EventSelection, EndpointError> {
    let events = EventSelection::parse(names.iter().map(String::as_str)).map_err(
        |error: EventTypeError| EndpointError::Invalid {
            field: "events",
            message: error.to_string(),
        },
    )?;
    let unreadable = events.unreadable_with(scopes);
    if unreadable.is_empty() {
        Ok(events)
    } else {
        Err(EndpointError::Unreadable(unreadable))
    }
}

fn description(text: String) -> Result<String, EndpointError> {
    if text.chars().count() > MAX_DESCRIPTION_LEN {
        return Err(EndpointError::Invalid {
            field: "description",
            message: format!("must be at most {MAX_DESCRIPTION_LEN} characters"),
        });
    }
    Ok(text)
}

#[cfg(test)]
mod tests;
