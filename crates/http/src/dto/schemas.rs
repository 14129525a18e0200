//! Schemas that have no response DTO of their own: the allowed values of the order states and
//! the scopes (taken from the domain's own lists, so that the document cannot drift from what
//! the parser accepts), the `null` of the fields that have no shape yet, and the stock
//! adjustment request body (parsed by hand in `body`, so it is described here).

mod client_write;
mod product_write;

use std::borrow::Cow;

use serde_json::json;
use shop_domain::order;
use shop_domain::scope::Scope;
use shop_domain::webhook::{DeliveryStatus, EventType, MAX_DESCRIPTION_LEN};
use utoipa::openapi::schema::{AnyOfBuilder, ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::openapi::{KnownFormat, RefOr, SchemaFormat};
use utoipa::{PartialSchema, ToSchema};

pub use client_write::{ClientCreateBody, ClientPatchBody};
pub use product_write::{ProductCreateBody, ProductPatchBody, VariantCreateBody, VariantPatchBody};

/// A named string schema whose `enum` is the given values.
fn string_enum(description: &str, values: impl IntoIterator<Item = &'static str>) -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some(description))
        .enum_values(Some(values))
        .into()
}

/// Declares a string-enum schema named `$name` whose values are `$values`.
macro_rules! enum_schema {
    ($(#[$meta:meta])* $type:ident, $name:literal, $description:literal, $values:expr) => {
        $(#[$meta])*
        pub struct $type;

        impl PartialSchema for $type {
            fn schema() -> RefOr<Schema> {
                string_enum($description, $values)
            }
        }

        impl ToSchema for $type {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed($name)
            }
        }
    };
}

enum_schema!(
    /// `source` of an order.
    OrderSource,
    "OrderSource",
    "Where the order was taken: point of sale, click-and-collect or online.",
    order::OrderSource::ALL.iter().map(|value| value.as_str())
);

enum_schema!(
    /// `status` of an order.
    OrderStatus,
    "OrderStatus",
    "The order's state.",
    order::OrderStatus::ALL.iter().map(|value| value.as_str())
);

enum_schema!(
    /// `paymentStatus` of an order.
    PaymentStatus,
    "PaymentStatus",
    "The order's payment state.",
    order::PaymentStatus::ALL.iter().map(|value| value.as_str())
);

enum_schema!(
    /// One scope of an API key.
    ScopeName,
    "Scope",
    "A permission of an API key. The write scopes other than `stock:write` are reserved for a \
     later version.",
    // API v1's ten; the v2 document lists every scope (`openapi::into_v2`).
    Scope::V1.iter().map(|scope| scope.as_str())
);

enum_schema!(
    /// An entry of a webhook endpoint's `events` (API v2).
    EventSubscription,
    "EventSubscription",
    "An event type an endpoint receives, or `*` alone: every type whose resource the creating \
     key could read, now and as types are added. `ping` cannot be subscribed to.",
    std::iter::once("*").chain(EventType::SUBSCRIBABLE.iter().map(|kind| kind.as_str()))
);

enum_schema!(
    /// An event's `type` (API v2).
    EventTypeName,
    "EventType",
    "What changed: a product, an order or a client created or updated, or a stock entry moved; \
     `ping` is sent only by an endpoint's test.",
    EventType::SUBSCRIBABLE
        .iter()
        .chain([EventType::Ping].iter())
        .map(|kind| kind.as_str())
);

enum_schema!(
    /// A webhook endpoint's `status` (API v2).
    EndpointStatusName,
    "WebhookEndpointStatus",
    "Whether the endpoint is sent its events.",
    ["enabled", "disabled"]
);

enum_schema!(
    /// A webhook endpoint's `disabledReason` (API v2).
    DisabledReasonName,
    "DisabledReason",
    "Why an endpoint is disabled: its receiver answered 410 (`gone`), its deliveries failed for \
     days (`failing`), or a person disabled it (`manual`).",
    ["gone", "failing", "manual"]
);

enum_schema!(
    /// A delivery's `status` (API v2).
    DeliveryStatusName,
    "DeliveryStatus",
    "An attempt made (`succeeded`, `failed`), an event waiting for its next attempt \
     (`pending`), or one a newer event of its resource replaced (`superseded`).",
    DeliveryStatus::ALL.iter().map(|status| status.as_str())
);

/// The `active` filter of `GET /products`.
pub struct ActiveFilter;

impl PartialSchema for ActiveFilter {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some(
                "Which products a list returns: `true` the active ones, `false` the inactive \
                 ones, `all` both.",
            ))
            .enum_values(Some(["true", "false", "all"]))
            .default(Some(json!("true")))
            .into()
    }
}

impl ToSchema for ActiveFilter {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("ActiveFilter")
    }
}

/// A `YYYY-MM-DD` date or an RFC 3339 instant (`dateFrom`, `dateTo`).
pub struct DateOrInstant;

impl PartialSchema for DateOrInstant {
    fn schema() -> RefOr<Schema> {
        let string = |format: KnownFormat| {
            ObjectBuilder::new()
                .schema_type(Type::String)
                .format(Some(SchemaFormat::KnownFormat(format)))
        };
        AnyOfBuilder::new()
            .item(string(KnownFormat::Date))
            .item(string(KnownFormat::DateTime))
            .description(Some(
                "A `YYYY-MM-DD` date (a whole UTC day) or an RFC 3339 instant with an offset.",
            ))
            .into()
    }
}

impl ToSchema for DateOrInstant {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("DateOrInstant")
    }
}

/// `{"type": "null"}`: a field that is always `null` in version 1 (`customer`, `refunded`).
pub fn always_null() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::Null)
        .description(Some(
            "Always `null` in version 1; a shape may be defined in a later version.",
        ))
        .build()
        .into()
}

/// The body of `POST /api/v1/stock/adjustments`: exactly these three members, all required;
/// every invalid member is reported at once in a 400 `VALIDATION_ERROR`.
//
// The handler reads the body by hand (`body::read_object`) and applies exactly these rules;
// this type only describes them (`Deserialize` gives the schema its field names and
// `additionalProperties: false`).
#[derive(serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(
    as = StockAdjustmentRequest,
    examples(json!({"variantId": "var_42", "quantity": -2, "reason": "Broken in transit"}))
)]
#[expect(
    dead_code,
    reason = "describes the request body for the OpenAPI document only"
)]
pub struct AdjustmentBody {
    /// The variant to adjust. An id that is unknown, of another shop or that cannot exist
    /// answers 404.
    #[schema(min_length = 1)]
    variant_id: String,
    /// The signed change added to the stock (negative decreases): a JSON integer (`2.0` or
    /// `"2"` are refused), not zero, between -1000000 and 1000000. The stock may go below zero.
    #[schema(schema_with = quantity)]
    quantity: i64,
    /// Free-text justification, 1 to 500 characters once trimmed.
    #[schema(min_length = 1, max_length = 500, pattern = r"\S")]
    reason: String,
}

/// The stock adjustment's `quantity`.
fn quantity() -> Schema {
    non_zero_within(
        1_000_000,
        "The signed change added to the stock (negative decreases): a JSON integer, not zero, \
         between -1000000 and 1000000.",
        [json!(-2), json!(12)],
    )
}

/// A non-zero integer within ±`bound`, as two ranges.
fn non_zero_within(bound: i64, description: &str, examples: [serde_json::Value; 2]) -> Schema {
    let range = |minimum: i64, maximum: i64| {
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int64)))
            .minimum(Some(minimum))
            .maximum(Some(maximum))
    };
    OneOfBuilder::new()
        .item(range(-bound, -1))
        .item(range(1, bound))
        .description(Some(description))
        .examples(examples)
        .into()
}

/// The body of `POST /api/v2/clients/{id}/loyalty/adjustments`: exactly these two members,
/// both required; every invalid member is reported at once in a 400 `VALIDATION_ERROR`.
//
// Read by hand (`handlers::loyalty::points_members`); this type only describes it.
#[derive(serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(
    as = LoyaltyAdjustmentRequest,
    examples(json!({"points": 120, "reason": "Web order 1042"}))
)]
#[expect(
    dead_code,
    reason = "describes the request body for the OpenAPI document only"
)]
pub struct PointsAdjustmentBody {
    /// The signed change of the client's spendable points: a credit (positive) also raises
    /// `pointsLifetime` and `pointsAllTime` and may move the tier; a debit (negative) lowers
    /// the spendable points only, and never below 0 (`422 INSUFFICIENT_POINTS`).
    #[schema(schema_with = points)]
    points: i64,
    /// Why the points move, 1 to 200 characters once trimmed.
    #[schema(min_length = 1, max_length = 200, pattern = r"\S")]
    reason: String,
}

/// The points adjustment's `points`.
fn points() -> Schema {
    non_zero_within(
        1_000_000_000,
        "A JSON integer, not zero, between -1000000000 and 1000000000.",
        [json!(120), json!(-50)],
    )
}

/// The body of `POST /api/v2/webhook-endpoints`; every problem of its shape is reported at
/// once, then the first rule the values break.
//
// Read by hand (`handlers::webhooks::members`); this type only describes it.
#[derive(serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(
    as = WebhookEndpointCreation,
    examples(json!({
        "url": "https://erp.example.com/hooks/shop",
        "events": ["order.created", "order.updated"],
        "description": "ERP orders"
    }))
)]
#[expect(
    dead_code,
    reason = "describes the request body for the OpenAPI document only"
)]
pub struct WebhookEndpointCreationBody {
    /// An absolute `https` URL of at most 2,048 characters, without user, password or
    /// fragment, whose host is not a loopback, private, link-local or otherwise non-public
    /// address (nor `localhost`).
    #[schema(format = "uri", max_length = 2048)]
    url: String,
    /// The types to receive, or `["*"]`. Each listed type needs the read scope of its
    /// resource (`order.*`: `orders:read`), or the answer is 403 `INSUFFICIENT_SCOPE`.
    #[schema(value_type = Vec<EventSubscription>, min_items = 1)]
    events: Vec<String>,
    /// At most 500 characters; absent or `null`: none.
    #[serde(default)]
    #[schema(max_length = 500)]
    description: Option<String>,
}

/// The body of `PATCH /api/v2/webhook-endpoints/{id}`: a JSON merge patch (RFC 7396) of the
/// endpoint's four writable members, sent as `application/json`. A member left out is left
/// as it is; `description: null` clears the description; any other member is refused by name.
#[derive(serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(
    as = WebhookEndpointChange,
    examples(json!({"status": "disabled", "description": null}))
)]
#[expect(
    dead_code,
    reason = "describes the request body for the OpenAPI document only"
)]
pub struct WebhookEndpointChangeBody {
    /// As at the creation.
    #[serde(default)]
    #[schema(format = "uri", max_length = 2048)]
    url: String,
    /// As at the creation; checked against the scopes of the key making the change, and from
    /// then on covers what that key may read.
    #[serde(default)]
    #[schema(value_type = Vec<EventSubscription>, min_items = 1)]
    events: Vec<String>,
    /// At most 500 characters; `null` or `""` clears it.
    #[serde(default)]
    #[schema(max_length = 500)]
    description: Option<String>,
    /// `disabled` stops deliveries (`disabledReason: manual`); `enabled` resumes them,
    /// whatever disabled the endpoint, and its pending events are sent.
    #[serde(default)]
    #[schema(value_type = EndpointStatusName)]
    status: String,
}

/// The body of `POST /api/v2/webhook-endpoints/{id}/recover`.
#[derive(serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = WebhookRecovery, examples(json!({"since": "2026-11-21T09:30:00Z"})))]
#[expect(
    dead_code,
    reason = "describes the request body for the OpenAPI document only"
)]
pub struct WebhookRecoveryBody {
    /// Queue, for every resource changed since then (an RFC 3339 instant with an offset, or a
    /// `YYYY-MM-DD` date from 00:00 UTC), its newest event the endpoint was not delivered.
    #[schema(value_type = DateOrInstant)]
    since: String,
}

/// The longest `description` of a webhook endpoint, as the document states it.
const _: () = assert!(MAX_DESCRIPTION_LEN == 500);
