//! API v2's webhooks: an endpoint, its creation (the one body with its secret, with a
//! rotation's), its deliveries, and the events of the log.
//!
//! **The secret** has two response types and no others: [`CreatedWebhookEndpointDto`] and
//! [`WebhookSecretDto`]. [`WebhookEndpointDto`], which every other answer uses, has no field
//! that could hold it.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::value::RawValue;
use shop_domain::Timestamp;
use shop_domain::id::EventId;
use shop_domain::webhook::{DeliveryLine, WebhookEndpoint, WebhookSecret};
use shop_ports::port::LoggedEvent;
use shop_ports::usecase::webhooks::CreatedEndpoint;
use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::openapi::{KnownFormat, Ref, RefOr, SchemaFormat};
use utoipa::{PartialSchema, ToSchema};

use crate::dto::as_text;
use crate::dto::client::ClientDto;
use crate::dto::event::CauseDto;
use crate::dto::order::OrderDto;
use crate::dto::product::ProductDto;
use crate::dto::schemas::{
    DeliveryStatusName, DisabledReasonName, EndpointStatusName, EventSubscription, EventTypeName,
};
use crate::dto::stock::StockEntryDto;
use crate::error::ApiError;

/// A webhook endpoint of the shop. Its signing secret is never shown here: only in the
/// creation's answer and a rotation's.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = WebhookEndpoint)]
pub struct WebhookEndpointDto {
    #[schema(examples("we_01J9Z6V7Q8"))]
    id: String,
    /// Where the events are POSTed: an absolute `https` URL, as the URL standard writes it.
    #[schema(format = "uri", max_length = 2048)]
    url: String,
    /// `["*"]` (every type the creating key could read, now and as types are added) or the
    /// types listed, in the documentation's order.
    #[schema(value_type = Vec<EventSubscription>, min_items = 1)]
    events: Vec<&'static str>,
    /// A note for people; `null` when there is none.
    #[schema(required = true, max_length = 500)]
    description: Option<String>,
    /// `disabled` endpoints are sent nothing; their events wait (see `recover`).
    #[schema(value_type = EndpointStatusName)]
    status: &'static str,
    /// Why a `disabled` endpoint is: its receiver answered 410 (`gone`), its deliveries
    /// failed for days (`failing`), or a person disabled it (`manual`). `null` when enabled.
    #[schema(value_type = Option<DisabledReasonName>, required = true)]
    disabled_reason: Option<&'static str>,
    #[schema(value_type = String, format = DateTime)]
    #[serde(serialize_with = "as_text::serialize")]
    created_at: Timestamp,
    #[schema(value_type = String, format = DateTime)]
    #[serde(serialize_with = "as_text::serialize")]
    updated_at: Timestamp,
}

impl From<&WebhookEndpoint> for WebhookEndpointDto {
    fn from(endpoint: &WebhookEndpoint) -> Self {
        Self {
            id: endpoint.id.as_str().to_owned(),
            url: endpoint.url.as_str().to_owned(),
            events: endpoint.events.names(),
            description: (!endpoint.description.is_empty()).then(|| endpoint.description.clone()),
            status: endpoint.status.as_str(),
            disabled_reason: endpoint
                .status
                .disabled_reason()
                .map(|reason| reason.as_str()),
            created_at: endpoint.created_at,
            updated_at: endpoint.updated_at,
        }
    }
}

/// A new webhook endpoint, with its signing secret: the only time, with a rotation, that
/// the secret is shown. Keep it: it cannot be read again.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = CreatedWebhookEndpoint)]
pub struct CreatedWebhookEndpointDto {
    #[schema(examples("we_01J9Z6V7Q8"))]
    id: String,
    /// Where the events are POSTed: an absolute `https` URL, as the URL standard writes it.
    #[schema(format = "uri", max_length = 2048)]
    url: String,
    /// `["*"]` or the types listed, in the documentation's order.
    #[schema(value_type = Vec<EventSubscription>, min_items = 1)]
    events: Vec<&'static str>,
    /// A note for people; `null` when there is none.
    #[schema(required = true, max_length = 500)]
    description: Option<String>,
    /// Always `enabled` at creation.
    #[schema(value_type = EndpointStatusName)]
    status: &'static str,
    /// Always `null` at creation.
    #[schema(value_type = Option<DisabledReasonName>, required = true)]
    disabled_reason: Option<&'static str>,
    #[schema(value_type = String, format = DateTime)]
    #[serde(serialize_with = "as_text::serialize")]
    created_at: Timestamp,
    #[schema(value_type = String, format = DateTime)]
    #[serde(serialize_with = "as_text::serialize")]
    updated_at: Timestamp,
    /// The signing secret (Standard Webhooks): `whsec_` and the base64 of 32 random bytes,
    /// which are the HMAC-SHA256 key of the `webhook-signature` header.
    #[schema(pattern = "^whsec_[A-Za-z0-9+/]{43}=$")]
    secret: String,
}

impl From<&CreatedEndpoint> for CreatedWebhookEndpointDto {
    fn from(created: &CreatedEndpoint) -> Self {
        let WebhookEndpointDto {
            id,
            url,
            events,
            description,
            status,
            disabled_reason,
            created_at,
            updated_at,
        } = WebhookEndpointDto::from(&created.endpoint);
        Self {
            id,
            url,
            events,
            description,
            status,
            disabled_reason,
            created_at,
            updated_at,
            secret: created.secret.expose(),
        }
    }
}

/// A rotation's new signing secret. The previous one keeps signing beside it for 24 hours.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = WebhookSecret)]
pub struct WebhookSecretDto {
    /// `whsec_` and the base64 of 32 random bytes. Shown this once.
    #[schema(pattern = "^whsec_[A-Za-z0-9+/]{43}=$")]
    secret: String,
}

impl From<&WebhookSecret> for WebhookSecretDto {
    fn from(secret: &WebhookSecret) -> Self {
        Self {
            secret: secret.expose(),
        }
    }
}

/// The `ping` event a test queued for this endpoint alone.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = WebhookTest)]
pub struct TestEventDto {
    /// The event's id, as its delivery will show it (`webhook-id` header, and in
    /// `/deliveries`).
    event_id: String,
}

impl From<&EventId> for TestEventDto {
    fn from(event_id: &EventId) -> Self {
        Self {
            event_id: event_id.as_str().to_owned(),
        }
    }
}

/// What a retry or a recovery queued.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = QueuedDeliveries)]
pub struct QueuedDto {
    /// How many resources' newest events were queued for delivery (a retry: 1).
    #[schema(minimum = 0)]
    queued: usize,
}

impl QueuedDto {
    pub fn new(queued: usize) -> Self {
        Self { queued }
    }
}

/// One row of an endpoint's deliveries: an attempt made (`succeeded`, `failed`), an event
/// waiting for its first or next attempt (`pending`), or one a newer event of its resource
/// replaced (`superseded`). The attempts of one delivery share its `id`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = WebhookDelivery)]
pub struct DeliveryDto<'a> {
    id: &'a str,
    event_id: &'a str,
    #[schema(value_type = EventTypeName)]
    event_type: &'static str,
    /// The attempt's number, from 1; `null` for an event not tried yet.
    #[schema(required = true, minimum = 1)]
    attempt: Option<u32>,
    #[schema(value_type = DeliveryStatusName)]
    status: &'static str,
    /// The receiver's HTTP status; `null` when there was no answer (or no attempt).
    #[schema(required = true, minimum = 100, maximum = 599)]
    response_status: Option<u16>,
    /// How long the attempt took; `null` without an attempt.
    #[schema(required = true, minimum = 0)]
    duration_ms: Option<i64>,
    /// Why the attempt failed when the receiver gave no status (timeout, refused
    /// connection, forbidden address); `null` otherwise.
    #[schema(required = true)]
    error: Option<&'a str>,
    #[schema(value_type = String, format = DateTime)]
    #[serde(serialize_with = "as_text::serialize")]
    created_at: Timestamp,
    /// When a `pending` delivery is tried next; `null` otherwise.
    #[schema(value_type = Option<String>, format = DateTime, required = true)]
    #[serde(serialize_with = "as_text::serialize_optional")]
    next_attempt_at: Option<Timestamp>,
}

impl<'a> From<&'a DeliveryLine> for DeliveryDto<'a> {
    fn from(line: &'a DeliveryLine) -> Self {
        Self {
            id: line.id.as_str(),
            event_id: line.event_id.as_str(),
            event_type: line.event_type.as_str(),
            attempt: line.attempt,
            status: line.status.as_str(),
            response_status: line.response_status,
            duration_ms: line.duration_ms,
            error: line.error.as_deref(),
            created_at: line.created_at,
            next_attempt_at: line.next_attempt_at,
        }
    }
}

/// An event of the log, its stored body embedded as it is: the very bytes its receivers
/// were sent (`serde_json`'s `RawValue`, which sonic-rs does not know: a page of them is
/// written by serde_json, see `ListDto::into_exact_response`).
#[derive(Debug, Serialize)]
#[serde(transparent)]
pub struct LoggedEventDto<'a>(&'a RawValue);

/// The event's body; a stored body that is not JSON is a corrupt row (500).
impl<'a> TryFrom<&'a LoggedEvent> for LoggedEventDto<'a> {
    type Error = ApiError;

    fn try_from(event: &'a LoggedEvent) -> Result<Self, ApiError> {
        serde_json::from_str(&event.body).map(Self).map_err(|_| {
            ApiError::internal(format!("event {} has a body that is not JSON", event.id))
        })
    }
}

impl PartialSchema for LoggedEventDto<'_> {
    fn schema() -> RefOr<Schema> {
        let string = || ObjectBuilder::new().schema_type(Type::String);
        let data = OneOfBuilder::new()
            .item(Ref::from_schema_name(ProductDto::name()))
            .item(Ref::from_schema_name(OrderDto::name()))
            .item(Ref::from_schema_name(ClientDto::name()))
            .item(Ref::from_schema_name(StockEvent::name()))
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::Object)
                    .additional_properties(Some(AdditionalProperties::FreeForm(false)))
                    .description(Some("`ping`: nothing.")),
            )
            .description(Some(
                "The resource as the `GET` of it shows it: a `Product` (`product.*`, every \
                 variant included), an `Order` (`order.*`), a `Client` (`client.*`), a \
                 `StockEvent` (`stock.updated`), `{}` (`ping`).",
            ));
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .description(Some(
                "An event, exactly as its receivers are sent it (the same bytes): the body of \
                 a webhook delivery.",
            ))
            .property(
                "id",
                string().description(Some("The event's id (`evt_…`).")),
            )
            .property("type", Ref::from_schema_name(EventTypeName::name()))
            .property(
                "timestamp",
                string()
                    .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)))
                    .description(Some("When the change was made. UTC, milliseconds.")),
            )
            .property("data", data)
            .required("id")
            .required("type")
            .required("timestamp")
            .required("data")
            .additional_properties(Some(AdditionalProperties::FreeForm(false)))
            .into()
    }
}

impl ToSchema for LoggedEventDto<'_> {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Event")
    }
}

/// `stock.updated`'s data, for the document only: the stock entry as `GET /stock` lists it,
/// and what moved it (`cause`). Rendered by `dto::event`.
pub struct StockEvent;

impl PartialSchema for StockEvent {
    fn schema() -> RefOr<Schema> {
        match StockEntryDto::schema() {
            RefOr::T(Schema::Object(mut entry)) => {
                entry.description =
                    Some("A stock entry as `GET /stock` lists it, and its `cause`.".into());
                entry.properties.insert(
                    "cause".to_owned(),
                    Ref::from_schema_name(CauseDto::name()).into(),
                );
                entry.required.push("cause".to_owned());
                Schema::Object(entry).into()
            }
            // A derived struct's schema is an object; anything else is kept as it is.
            other => other,
        }
    }
}

impl ToSchema for StockEvent {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("StockEvent")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_is_embedded_byte_for_byte() {
        let body = r#"{"id":"evt_1","type":"ping","timestamp":"2026-11-21T09:30:00.000Z","data":{"\u00e9":1.50}}"#;
        let event = LoggedEvent {
            position: 1,
            id: EventId::parse("evt_1").unwrap(),
            event_type: shop_domain::webhook::EventType::Ping,
            created_at: Timestamp::from_millis(0),
            body: body.to_owned(),
        };
        let dto = LoggedEventDto::try_from(&event).unwrap();
        assert_eq!(serde_json::to_string(&[dto]).unwrap(), format!("[{body}]"));
        let corrupt = LoggedEvent {
            body: "{\"id\":".to_owned(),
            ..event
        };
        assert!(LoggedEventDto::try_from(&corrupt).is_err());
    }
}
