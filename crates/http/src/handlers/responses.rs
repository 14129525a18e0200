//! The responses of each operation: every status the server can answer for it, with the body
//! and the headers that really come with it.
//!
//! Error bodies are the one envelope (`Error`); their examples are rendered by
//! `ApiError::envelope` itself, so that the codes and messages shown are the served ones. The
//! headers a response always carries are listed in its `x-required-headers` extension, which
//! `crate::openapi::finish` turns into `required: true` on those headers (utoipa's `Header` has no
//! `required` field).

use std::collections::BTreeMap;

use serde_json::{Value, json};
use shop_domain::access::AccessDenied;
use shop_domain::loyalty::PointsRefusal;
use shop_domain::scope::Operation;
use shop_domain::webhook::EventType;
use shop_ports::StoreError;
use shop_ports::usecase::{PointsError, ReadError};
use utoipa::openapi::example::ExampleBuilder;
use utoipa::openapi::extensions::ExtensionsBuilder;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::{ContentBuilder, Ref, RefOr, Response, ResponseBuilder, SchemaFormat};
use utoipa::{IntoResponses, PartialSchema, ToSchema};

use crate::dto::client::ClientDto;
use crate::dto::loyalty::{LoyaltySummaryDto, PointsAdjustmentDto};
use crate::dto::me::MeDto;
use crate::dto::order::OrderDto;
use crate::dto::page::{DataDto, ListDto};
use crate::dto::product::ProductDto;
use crate::dto::stock::{StockAdjustmentDto, StockEntryDto};
use crate::dto::webhook::{
    CreatedWebhookEndpointDto, DeliveryDto, LoggedEventDto, QueuedDto, TestEventDto,
    WebhookEndpointDto, WebhookSecretDto,
};
use crate::error::{ApiError, ConflictEnvelope, Envelope, FieldIssue, Resource};

/// The extension listing the headers a response always carries; removed by
/// `crate::openapi::finish`.
pub const REQUIRED_HEADERS_EXTENSION: &str = "x-required-headers";

const JSON: &str = "application/json";

/// Reusable responses, shared by every operation (`components.responses`).
pub const UNAUTHORIZED: &str = "Unauthorized";
pub const URI_TOO_LONG: &str = "UriTooLong";
pub const RATE_LIMITED: &str = "RateLimited";
pub const INTERNAL_ERROR: &str = "InternalError";
pub const SERVICE_UNAVAILABLE: &str = "ServiceUnavailable";

/// One response under construction, with the names of the headers it always carries.
struct Reply {
    response: ResponseBuilder,
    required: Vec<&'static str>,
}

impl Reply {
    /// Every response carries `X-Request-Id`.
    fn new(description: impl Into<String>) -> Self {
        let response = ResponseBuilder::new().description(description).header(
            "X-Request-Id",
            HeaderBuilder::new()
                .schema(string_schema(
                    Some(SchemaFormat::Custom("uuid".into())),
                    None,
                ))
                .description(Some(
                    "The request's id, also written in the server's log lines about it: quote it \
                     when reporting a problem.",
                ))
                .build(),
        );
        Self {
            response,
            required: vec!["X-Request-Id"],
        }
    }

    fn json(mut self, schema: impl Into<RefOr<Schema>>) -> Self {
        self.response = self
            .response
            .content(JSON, ContentBuilder::new().schema(Some(schema)).build());
        self
    }

    /// The error envelope, with one example per error (its code names the example).
    fn errors(mut self, errors: &[ApiError]) -> Self {
        let examples = errors.iter().map(|error| {
            let body: Value = serde_json::from_slice(&error.envelope()).unwrap_or(Value::Null);
            (
                error.code().into_owned(),
                ExampleBuilder::new().value(Some(body)).build(),
            )
        });
        let content = ContentBuilder::new()
            .schema(Some(Ref::from_schema_name(Envelope::name())))
            .examples_from_iter(examples)
            .build();
        self.response = self.response.content(JSON, content);
        self
    }

    /// The envelope of a `409 CONFLICT`, whose detail names the holder.
    fn conflict(mut self, error: &ApiError) -> Self {
        let body: Value = serde_json::from_slice(&error.envelope()).unwrap_or(Value::Null);
        let content = ContentBuilder::new()
            .schema(Some(Ref::from_schema_name(ConflictEnvelope::name())))
            .examples_from_iter([(
                error.code().into_owned(),
                ExampleBuilder::new().value(Some(body)).build(),
            )])
            .build();
        self.response = self.response.content(JSON, content);
        self
    }

    /// The five budget headers. `always`: on every such response (the request necessarily
    /// presented a valid key and was counted); otherwise only when it did.
    fn rate_limit(mut self, always: bool) -> Self {
        let when = if always {
            ""
        } else {
            " Present when the request presented a valid API key."
        };
        let headers = [
            (
                "RateLimit-Policy",
                string_schema(None, Some(r#"^"(reads|writes)";q=[0-9]+;w=60$"#)),
                "The budget this request drew from (IETF draft form): `\"reads\";q=120;w=60` \
                 (GET) or `\"writes\";q=30;w=60` (POST), per API key over any 60 seconds.",
            ),
            (
                "RateLimit",
                string_schema(None, Some(r#"^"(reads|writes)";r=[0-9]+;t=[0-9]+$"#)),
                "What is left of that budget (`r`) and the seconds until a slot frees (`t`, 0 when \
                 nothing is counted): `\"reads\";r=119;t=60`.",
            ),
            (
                "X-RateLimit-Limit",
                integer_schema(1),
                "Requests of this kind accepted per API key in any 60 seconds.",
            ),
            (
                "X-RateLimit-Remaining",
                integer_schema(0),
                "Requests of this kind left now.",
            ),
            (
                "X-RateLimit-Reset",
                integer_schema(0),
                "Seconds (not an epoch) until a slot frees; 0 when nothing is counted.",
            ),
        ];
        for (name, schema, description) in headers {
            self.response = self.response.header(
                name,
                HeaderBuilder::new()
                    .schema(schema)
                    .description(Some(format!("{description}{when}")))
                    .build(),
            );
            if always {
                self.required.push(name);
            }
        }
        self
    }

    /// Always on 429 and 503.
    fn retry_after(mut self, description: &str) -> Self {
        self.response = self.response.header(
            "Retry-After",
            HeaderBuilder::new()
                .schema(integer_schema(1))
                .description(Some(description))
                .build(),
        );
        self.required.push("Retry-After");
        self
    }

    /// Always on 401.
    fn www_authenticate(mut self) -> Self {
        let schema = ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(["Bearer"]));
        self.response = self.response.header(
            "WWW-Authenticate",
            HeaderBuilder::new()
                .schema(schema)
                .description(Some("The authentication scheme expected."))
                .build(),
        );
        self.required.push("WWW-Authenticate");
        self
    }

    /// On an adjustment's responses that repeat a first answer.
    fn idempotent_replayed(mut self) -> Self {
        let schema = ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(["true"]));
        self.response = self.response.header(
            "Idempotent-Replayed",
            HeaderBuilder::new()
                .schema(schema)
                .description(Some(
                    "`true` when this response repeats the first answer to the same \
                     `Idempotency-Key` and request; absent otherwise.",
                ))
                .build(),
        );
        self
    }

    /// On a v2 write's answer that shows the resource, and on its `412`.
    fn etag(mut self, description: &str) -> Self {
        self.response = self.response.header(
            "ETag",
            HeaderBuilder::new()
                .schema(string_schema(None, Some("^\"[0-9a-f]{32}\"$")))
                .description(Some(description))
                .build(),
        );
        self.required.push("ETag");
        self
    }

    /// On a create's `201`.
    fn location(mut self, example: &str) -> Self {
        self.response = self.response.header(
            "Location",
            HeaderBuilder::new()
                .schema(string_schema(None, None))
                .description(Some(format!(
                    "The path of the resource created, to read or patch it: `{example}`."
                )))
                .build(),
        );
        self.required.push("Location");
        self
    }

    fn build(self) -> RefOr<Response> {
        let required = json!(self.required);
        self.response
            .extensions(Some(
                ExtensionsBuilder::new()
                    .add(REQUIRED_HEADERS_EXTENSION, required)
                    .build(),
            ))
            .build()
            .into()
    }
}

fn string_schema(format: Option<SchemaFormat>, pattern: Option<&str>) -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .format(format)
        .pattern(pattern)
        .into()
}

fn integer_schema(minimum: i64) -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(minimum))
        .into()
}

/// The shared responses, for `components.responses`.
pub fn components() -> Vec<(&'static str, RefOr<Response>)> {
    vec![
        (
            UNAUTHORIZED,
            Reply::new(
                "`UNAUTHORIZED`: the `Authorization` header is missing, is not `Bearer <key>`, or \
                 the key is malformed, unknown, revoked or expired. One body for every cause.",
            )
            .errors(&[ApiError::Unauthorized])
            .www_authenticate()
            .build(),
        ),
        (
            URI_TOO_LONG,
            Reply::new("`URI_TOO_LONG`: the request target is longer than 8 KiB.")
                .errors(&[ApiError::UriTooLong])
                .build(),
        ),
        (
            RATE_LIMITED,
            Reply::new(
                "`RATE_LIMITED`: the API key's budget of this kind of request is spent (it was \
                 not counted), or the client address failed authentication too often. Wait \
                 `Retry-After` seconds.",
            )
            .errors(&[ApiError::RateLimited {
                retry_after_seconds: 12,
            }])
            .retry_after(
                "Whole seconds (at least 1) until the oldest counted request leaves the \
                 window: waiting that long is enough.",
            )
            .rate_limit(false)
            .build(),
        ),
        (
            INTERNAL_ERROR,
            Reply::new(
                "`INTERNAL_ERROR`: an unexpected error; the cause is logged with the request id, \
                 never shown.",
            )
            .errors(&[ApiError::internal("example")])
            .rate_limit(false)
            .build(),
        ),
        (
            SERVICE_UNAVAILABLE,
            Reply::new(
                "`SERVICE_UNAVAILABLE`: the database could not be reached in time. Retry after \
                 `Retry-After` seconds.",
            )
            .errors(&[ApiError::Unavailable(StoreError::Unavailable(
                "example".into(),
            ))])
            .retry_after("Seconds to wait before retrying.")
            .rate_limit(false)
            .build(),
        ),
    ]
}

type Responses = BTreeMap<String, RefOr<Response>>;

/// What every operation can answer besides its own outcomes: 401, 403, 414, 429, 500, 503.
fn common(operation: Operation) -> Responses {
    let mut responses = Responses::new();
    for (status, name) in [
        ("401", UNAUTHORIZED),
        ("414", URI_TOO_LONG),
        ("429", RATE_LIMITED),
        ("500", INTERNAL_ERROR),
        ("503", SERVICE_UNAVAILABLE),
    ] {
        responses.insert(status.into(), Ref::from_response_name(name).into());
    }
    responses.insert("403".into(), forbidden(operation));
    responses
}

/// 403 with the refusals that apply to `operation` (no scope check on `/me`).
fn forbidden(operation: Operation) -> RefOr<Response> {
    forbidden_also(operation, "")
}

/// 403 with the refusals that apply to `operation`, and `more` said of them.
fn forbidden_also(operation: Operation, more: &str) -> RefOr<Response> {
    let mut errors = vec![
        ApiError::Forbidden(AccessDenied::FeatureNotInPlan),
        ApiError::Forbidden(AccessDenied::SubscriptionInactive),
    ];
    let mut description = String::from(
        "`FEATURE_NOT_IN_PLAN`: the shop's plan does not include the public API. \
         `SUBSCRIPTION_INACTIVE`: the shop's subscription is expired or cancelled.",
    );
    if let Some(required) = operation.required_scope() {
        errors.push(ApiError::Forbidden(AccessDenied::InsufficientScope {
            required,
        }));
        description.push_str(&format!(
            " `INSUFFICIENT_SCOPE`: the key lacks the scope `{}`.",
            required.as_str()
        ));
    }
    description.push_str(more);
    Reply::new(description)
        .errors(&errors)
        .rate_limit(true)
        .build()
}

/// 400 for an operation that takes no query parameter.
fn no_parameters() -> RefOr<Response> {
    Reply::new(
        "`VALIDATION_ERROR`: this operation takes no query parameter; each one given is named in \
         `details`.",
    )
    .errors(&[ApiError::validation(vec![FieldIssue::new(
        "limit",
        "is not a known parameter",
    )])])
    .rate_limit(true)
    .build()
}

/// 400 for a list's parameters.
fn invalid_parameters() -> RefOr<Response> {
    Reply::new(
        "`VALIDATION_ERROR`: an unknown, repeated or invalid query parameter (each is named in \
         `details`, all at once), or a query string that is not valid percent-encoded UTF-8.",
    )
    .errors(&[ApiError::validation(vec![
        FieldIssue::new("limit", "must be an integer between 1 and 100"),
        FieldIssue::new("colour", "is not a known parameter"),
    ])])
    .rate_limit(true)
    .build()
}

fn not_found(resource: Resource, description: &str) -> RefOr<Response> {
    Reply::new(description)
        .errors(&[ApiError::reading(resource)(ReadError::NotFound)])
        .rate_limit(false)
        .build()
}

/// The 200 of a list.
fn page<T: ToSchema>(operation: Operation, what: &str) -> Responses {
    let mut responses = common(operation);
    responses.insert(
        "200".into(),
        Reply::new(format!(
            "A page of {what}, and `pageInfo` to get the next one."
        ))
        .json(ListDto::<T>::schema())
        .rate_limit(true)
        .build(),
    );
    responses.insert("400".into(), invalid_parameters());
    responses
}

/// The 200 and 404 of a single object, wrapped in `data`.
fn single<T: ToSchema>(operation: Operation, resource: Resource, what: &str) -> Responses {
    let mut responses = common(operation);
    responses.insert(
        "200".into(),
        Reply::new(format!("The {what}, in `data`."))
            .json(DataDto::<T>::schema())
            .rate_limit(true)
            .build(),
    );
    responses.insert("400".into(), no_parameters());
    responses.insert(
        "404".into(),
        not_found(
            resource,
            &format!(
                "`NOT_FOUND`: no {what} of the key's shop has this id (unknown, of another shop, \
                 or an id that cannot exist: the same body for all three)."
            ),
        ),
    );
    responses
}

/// Declares a type whose `IntoResponses` is `$responses`, for `#[utoipa::path(responses(...))]`.
macro_rules! operation_responses {
    ($($(#[$meta:meta])* $type:ident => $responses:expr;)+) => {
        $(
            $(#[$meta])*
            pub struct $type;

            impl IntoResponses for $type {
                fn responses() -> Responses {
                    $responses
                }
            }
        )+
    };
}

operation_responses! {
    /// `GET /api/v1/me`.
    ShowMe => {
        let mut responses = common(Operation::Me);
        responses.insert(
            "200".into(),
            Reply::new("The shop and the key (not wrapped in `data`).")
                .json(Ref::from_schema_name(MeDto::name()))
                .rate_limit(true)
                .build(),
        );
        responses.insert("400".into(), no_parameters());
        responses
    };
    /// `GET /api/v1/products`.
    ListProducts => page::<ProductDto>(Operation::ListProducts, "products, by id");
    /// `GET /api/v1/products/{id}`.
    ShowProduct => single::<ProductDto>(Operation::GetProduct, Resource::Product, "product");
    /// `GET /api/v1/orders`.
    ListOrders => page::<OrderDto>(Operation::ListOrders, "orders, newest first");
    /// `GET /api/v1/orders/{id}`.
    ShowOrder => single::<OrderDto>(Operation::GetOrder, Resource::Order, "order");
    /// `GET /api/v1/stock`.
    ListStock => page::<StockEntryDto>(Operation::ListStock, "stock entries, by variant id");
    /// `GET /api/v1/clients`.
    ListClients => page::<ClientDto>(Operation::ListClients, "clients, by id");
    /// `GET /api/v1/clients/{id}`.
    ShowClient => single::<ClientDto>(Operation::GetClient, Resource::Client, "client");
    /// `GET /api/v1/clients/{id}/loyalty`.
    ShowLoyalty => {
        let mut responses =
            single::<LoyaltySummaryDto>(Operation::GetLoyalty, Resource::Client, "client");
        responses.insert(
            "200".into(),
            Reply::new("The client's loyalty summary, in `data`.")
                .json(DataDto::<LoyaltySummaryDto>::schema())
                .rate_limit(true)
                .build(),
        );
        responses
    };
    /// `POST /api/v1/stock/adjustments`.
    AdjustStock => adjustment_responses();
}

fn adjustment_responses() -> Responses {
    let mut responses = common(Operation::AdjustStock);
    responses.insert(
        "201".into(),
        Reply::new(
            "Applied: the stock changed by `quantity` and a stock movement was recorded, in one \
             transaction. A replay (same `Idempotency-Key`, same request) repeats the first \
             answer and changes nothing.",
        )
        .json(DataDto::<StockAdjustmentDto>::schema())
        .rate_limit(true)
        .idempotent_replayed()
        .build(),
    );
    responses.insert(
        "400".into(),
        Reply::new(
            "`INVALID_JSON`: the body is not JSON. `VALIDATION_ERROR`: the `Content-Type` is not \
             `application/json` (detail `Content-Type`), a query parameter was given, the body is \
             not an object, a member is missing, unknown, repeated or invalid, or the \
             `Idempotency-Key` is invalid; every problem is named in `details`.",
        )
        .errors(&[
            ApiError::InvalidJson,
            ApiError::invalid_body(vec![
                FieldIssue::new("quantity", "must not be zero"),
                FieldIssue::new("reason", "is required"),
            ]),
        ])
        .rate_limit(true)
        .build(),
    );
    responses.insert(
        "404".into(),
        Reply::new(
            "`NOT_FOUND`: no variant of the key's shop has this `variantId` (unknown, of another \
             shop, or an id that cannot exist). Replayed like a success.",
        )
        .errors(&[ApiError::reading(Resource::Variant)(ReadError::NotFound)])
        .rate_limit(true)
        .idempotent_replayed()
        .build(),
    );
    responses.insert(
        "413".into(),
        Reply::new("`PAYLOAD_TOO_LARGE`: the body is larger than 64 KiB.")
            .errors(&[ApiError::PayloadTooLarge])
            .rate_limit(true)
            .build(),
    );
    responses.insert(
        "422".into(),
        Reply::new(
            "`STOCK_NOT_TRACKED`: the variant's stock is not tracked (replayed like a success). \
             `STOCK_OUT_OF_RANGE`: the new stock would be beyond ±1,000,000,000,000, the range \
             of every stock; nothing changed (replayed like a success). \
             `IDEMPOTENCY_KEY_REUSED`: the `Idempotency-Key` was used in the last 24 hours with \
             a different request.",
        )
        .errors(&[
            ApiError::StockNotTracked,
            ApiError::stock_out_of_range(),
            ApiError::IdempotencyKeyReused,
        ])
        .rate_limit(true)
        .idempotent_replayed()
        .build(),
    );
    responses
}

fn points_adjustment_responses() -> Responses {
    let mut responses = common(Operation::AdjustPoints);
    responses.insert(
        "201".into(),
        Reply::new(
            "Applied: the client's points changed by `points` and the adjustment was kept, in \
             one transaction. A replay (same `Idempotency-Key`, same request) repeats the first \
             answer and changes nothing.",
        )
        .json(DataDto::<PointsAdjustmentDto>::schema())
        .rate_limit(true)
        .idempotent_replayed()
        .build(),
    );
    responses.insert(
        "400".into(),
        invalid_body(
            vec![
                FieldIssue::new("points", "must not be 0"),
                FieldIssue::new("reason", "is required"),
            ],
            "a member is missing or invalid, or the `Idempotency-Key` is invalid.",
        ),
    );
    responses.insert(
        "404".into(),
        Reply::new(
            "`NOT_FOUND`: no client of the key's shop has this id (unknown, of another shop, or \
             an id that cannot exist). Replayed like a success.",
        )
        .errors(&[ApiError::reading(Resource::Client)(ReadError::NotFound)])
        .rate_limit(true)
        .idempotent_replayed()
        .build(),
    );
    responses.insert("413".into(), too_large());
    responses.insert(
        "422".into(),
        Reply::new(
            "`INSUFFICIENT_POINTS`: the debit is larger than the client's spendable points; \
             nothing changed (replayed like a success). `POINTS_OUT_OF_RANGE`: the credit would \
             take a points counter beyond 10^15; nothing changed (replayed like a success). \
             `IDEMPOTENCY_KEY_REUSED`: the `Idempotency-Key` was used in the last 24 hours with \
             a different request, of either adjustment.",
        )
        .errors(&[
            ApiError::InsufficientPoints,
            ApiError::from(PointsError::Refused {
                refusal: PointsRefusal::OutOfRange,
                replayed: false,
            }),
            ApiError::IdempotencyKeyReused,
        ])
        .rate_limit(true)
        .idempotent_replayed()
        .build(),
    );
    responses
}

const WRITTEN_ETAG: &str = "The strong entity tag of the resource as this answer shows it: \
                            send it in `If-Match` to make the next write conditional, or in \
                            `If-None-Match` to a read.";

fn client_create_responses() -> Responses {
    let mut responses = common(Operation::CreateClient);
    responses.insert(
        "201".into(),
        Reply::new(
            "Created: the client, in `data`, as `GET /api/v2/clients/{id}` shows it. A replay \
             (same `Idempotency-Key`, same request) answers the same client as it is now and \
             creates nothing.",
        )
        .json(DataDto::<ClientDto>::schema())
        .etag(WRITTEN_ETAG)
        .location("/api/v2/clients/cli_0192…")
        .rate_limit(true)
        .idempotent_replayed()
        .build(),
    );
    responses.insert(
        "400".into(),
        invalid_body(
            vec![
                FieldIssue::new("name", "is required"),
                FieldIssue::new(
                    "billing.country",
                    "must be an ISO 3166-1 alpha-2 country code, such as FR",
                ),
            ],
            "a member is missing, read-only (`loyalty`, `id`, …) or invalid, each named by its \
             path (`billing.city`), or the `Idempotency-Key` is invalid.",
        ),
    );
    responses.insert("409".into(), email_conflict());
    responses.insert("413".into(), too_large());
    responses.insert(
        "422".into(),
        Reply::new(
            "`IDEMPOTENCY_KEY_REUSED`: the `Idempotency-Key` was used in the last 24 hours with \
             a different request (of any write that takes one).",
        )
        .errors(&[ApiError::IdempotencyKeyReused])
        .rate_limit(true)
        .build(),
    );
    responses
}

fn client_update_responses() -> Responses {
    let mut responses = common(Operation::UpdateClient);
    responses.insert(
        "200".into(),
        Reply::new("The client as it now is, in `data`, with its new `ETag`.")
            .json(DataDto::<ClientDto>::schema())
            .etag(WRITTEN_ETAG)
            .rate_limit(true)
            .build(),
    );
    responses.insert(
        "400".into(),
        invalid_body(
            vec![
                FieldIssue::new("loyalty", "is read-only"),
                FieldIssue::new("name", "must not be null"),
            ],
            "a member is read-only (`loyalty`, `id`, …), unknown or invalid, each named by its \
             path (`billing.city`), or `If-Match` is not a list of quoted entity tags. The \
             `Content-Type` may also be `application/merge-patch+json`.",
        ),
    );
    responses.insert(
        "404".into(),
        not_found(
            Resource::Client,
            "`NOT_FOUND`: no client of the key's shop has this id (unknown, of another shop, or \
             an id that cannot exist).",
        ),
    );
    responses.insert("409".into(), email_conflict());
    responses.insert(
        "412".into(),
        Reply::new(
            "`PRECONDITION_FAILED`: the client changed since the version `If-Match` names; \
             nothing changed. The answer's `ETag` is the current one: read the client again, \
             apply the change to it, and retry with that tag.",
        )
        .errors(&[ApiError::PreconditionFailed {
            etag: "\"0f1e2d3c4b5a69788796a5b4c3d2e1f0\"".into(),
        }])
        .etag("The client's current entity tag.")
        .rate_limit(true)
        .build(),
    );
    responses.insert("413".into(), too_large());
    responses
}

/// The `201` of a product's create or of a variant's addition.
fn product_created(operation: Operation, what: &str) -> Responses {
    let mut responses = common(operation);
    responses.insert(
        "201".into(),
        Reply::new(format!(
            "{what}: the whole product, in `data`, as `GET /api/v2/products/{{id}}` shows it. A \
             replay (same `Idempotency-Key`, same request) answers the same product as it is \
             now and creates nothing."
        ))
        .json(DataDto::<ProductDto>::schema())
        .etag(WRITTEN_ETAG)
        .location("/api/v2/products/prd_0192…")
        .rate_limit(true)
        .idempotent_replayed()
        .build(),
    );
    responses.insert(
        "400".into(),
        invalid_body(
            vec![
                FieldIssue::new("variants[1].sku", "must be at most 64 characters"),
                FieldIssue::new("category.id", "names no category of the shop"),
            ],
            "a member is missing, read-only (`stock`, `trackStock`, `id`, …) or invalid, each \
             named by its path (`variants[1].sku`); two equal codes in the body; a \
             `category` or `brand` id the shop does not have; or the `Idempotency-Key` is \
             invalid.",
        ),
    );
    responses.insert("409".into(), code_conflict());
    responses.insert("413".into(), too_large());
    responses.insert(
        "422".into(),
        Reply::new(
            "`IDEMPOTENCY_KEY_REUSED`: the `Idempotency-Key` was used in the last 24 hours with \
             a different request (of any write that takes one).",
        )
        .errors(&[ApiError::IdempotencyKeyReused])
        .rate_limit(true)
        .build(),
    );
    responses
}

/// The answers of a product's or a variant's patch.
fn product_patched(operation: Operation, variant: bool) -> Responses {
    let mut responses = common(operation);
    responses.insert(
        "200".into(),
        Reply::new("The whole product as it now is, in `data`, with its new `ETag`.")
            .json(DataDto::<ProductDto>::schema())
            .etag(WRITTEN_ETAG)
            .rate_limit(true)
            .build(),
    );
    let refused = if variant {
        FieldIssue::new("isDefault", "a product keeps exactly one default variant")
    } else {
        FieldIssue::new("variants", "is written by the variants' own paths")
    };
    responses.insert(
        "400".into(),
        invalid_body(
            vec![FieldIssue::new("stock", "is read-only"), refused],
            "a member is read-only (`stock`, `tracked`, `id`, …), unknown or invalid, each \
             named by its path; `If-Match` is not a list of quoted entity tags. The \
             `Content-Type` may also be `application/merge-patch+json`.",
        ),
    );
    let missing = if variant {
        "product or variant"
    } else {
        "product"
    };
    responses.insert(
        "404".into(),
        not_found(
            Resource::Product,
            &format!(
                "`NOT_FOUND`: no {missing} of the key's shop has this id (unknown, of another \
                 shop, or an id that cannot exist)."
            ),
        ),
    );
    responses.insert("409".into(), code_conflict());
    responses.insert(
        "412".into(),
        Reply::new(
            "`PRECONDITION_FAILED`: the product (its variants and stock included) changed since \
             the version `If-Match` names; nothing changed. The answer's `ETag` is the current \
             one.",
        )
        .errors(&[ApiError::PreconditionFailed {
            etag: "\"0f1e2d3c4b5a69788796a5b4c3d2e1f0\"".into(),
        }])
        .etag("The product's current entity tag.")
        .rate_limit(true)
        .build(),
    );
    responses.insert("413".into(), too_large());
    responses
}

fn code_conflict() -> RefOr<Response> {
    Reply::new(
        "`CONFLICT`: another product or variant of the shop holds this SKU (products' and \
         variants' are one namespace) or barcode (products' `ean` and variants' `barcode`); the \
         detail names the member and, in `holderId`, the holder. Resending an item's own code \
         is no conflict. Nothing changed (a create's refusal is replayed like a success).",
    )
    .conflict(&ApiError::conflict(
        "variants[0].sku",
        "is already the code of another product or variant of the shop",
        "var_0192d3a4".into(),
    ))
    .rate_limit(true)
    .idempotent_replayed()
    .build()
}

fn email_conflict() -> RefOr<Response> {
    Reply::new(
        "`CONFLICT`: another client of the shop has this e-mail, without regard to case; its id \
         is the detail's `holderId`. Nothing changed (a create's refusal is replayed like a \
         success).",
    )
    .conflict(&ApiError::conflict(
        "email",
        "is already the e-mail of another client of the shop (without regard to case)",
        "cli_0192d3a4".into(),
    ))
    .rate_limit(true)
    .idempotent_replayed()
    .build()
}

/// The 403s of a write that lists event types: the key's scope, and the types' read scopes.
fn forbidden_events(operation: Operation) -> RefOr<Response> {
    let example = ApiError::UnreadableEvents(vec![EventType::OrderCreated]);
    forbidden_also(
        operation,
        &format!(
            " `INSUFFICIENT_SCOPE` also when `events` lists a type whose resource the key cannot \
             read, naming the types and the scopes they need: \"{}\"",
            example.public_message()
        ),
    )
}

/// 400 for a write's body.
fn invalid_body(details: Vec<FieldIssue>, description: &str) -> RefOr<Response> {
    Reply::new(format!(
        "`INVALID_JSON`: the body is not JSON. `VALIDATION_ERROR`: the `Content-Type` is not \
         `application/json` (detail `Content-Type`), a query parameter was given, the body is \
         not an object, or a member is unknown, repeated or of the wrong type (every such \
         problem at once); {description}"
    ))
    .errors(&[ApiError::InvalidJson, ApiError::invalid_body(details)])
    .rate_limit(true)
    .build()
}

fn too_large() -> RefOr<Response> {
    Reply::new("`PAYLOAD_TOO_LARGE`: the body is larger than 64 KiB.")
        .errors(&[ApiError::PayloadTooLarge])
        .rate_limit(true)
        .build()
}

fn no_endpoint() -> RefOr<Response> {
    not_found(
        Resource::WebhookEndpoint,
        "`NOT_FOUND`: no webhook endpoint of the key's shop has this id (unknown, of another \
         shop, or an id that cannot exist: the same body for all three).",
    )
}

/// The answer of a write on one endpoint that takes no body.
fn endpoint_action<T: ToSchema>(operation: Operation, status: &str, what: &str) -> Responses {
    let mut responses = common(operation);
    responses.insert(
        status.into(),
        Reply::new(what)
            .json(DataDto::<T>::schema())
            .rate_limit(true)
            .build(),
    );
    responses.insert("400".into(), no_parameters());
    responses.insert("404".into(), no_endpoint());
    responses
}

operation_responses! {
    /// `POST /api/v2/clients/{id}/loyalty/adjustments`.
    AdjustPoints => points_adjustment_responses();
    /// `POST /api/v2/clients`.
    CreateClient => client_create_responses();
    /// `PATCH /api/v2/clients/{id}`.
    UpdateClient => client_update_responses();
    /// `POST /api/v2/products`.
    CreateProduct => product_created(Operation::CreateProduct, "Created");
    /// `POST /api/v2/products/{id}/variants`.
    AddVariant => {
        let mut responses = product_created(Operation::UpdateProduct, "Added");
        responses.insert(
            "404".into(),
            not_found(
                Resource::Product,
                "`NOT_FOUND`: no product of the key's shop has this id.",
            ),
        );
        responses
    };
    /// `PATCH /api/v2/products/{id}`.
    UpdateProduct => product_patched(Operation::UpdateProduct, false);
    /// `PATCH /api/v2/products/{id}/variants/{variantId}`.
    UpdateVariant => product_patched(Operation::UpdateProduct, true);
    /// `GET /api/v2/webhook-endpoints`.
    ListWebhookEndpoints => page::<WebhookEndpointDto>(
        Operation::ListWebhookEndpoints,
        "the shop's webhook endpoints, by id",
    );
    /// `POST /api/v2/webhook-endpoints`.
    CreateWebhookEndpoint => {
        let mut responses = common(Operation::CreateWebhookEndpoint);
        responses.insert(
            "201".into(),
            Reply::new(
                "Created and enabled: the endpoint, with its signing `secret` (shown this once), \
                 in `data`.",
            )
            .json(DataDto::<CreatedWebhookEndpointDto>::schema())
            .rate_limit(true)
            .build(),
        );
        responses.insert(
            "400".into(),
            invalid_body(
                vec![FieldIssue::new("url", "must use https")],
                "then the first member whose value is refused (`url`, `events`, `description`), \
                 named in `details`.",
            ),
        );
        responses.insert("403".into(), forbidden_events(Operation::CreateWebhookEndpoint));
        responses.insert("413".into(), too_large());
        responses.insert(
            "422".into(),
            Reply::new(
                "`WEBHOOK_ENDPOINT_LIMIT`: the shop already has 16 endpoints, the most it may \
                 have; nothing was created.",
            )
            .errors(&[ApiError::WebhookEndpointLimit])
            .rate_limit(true)
            .build(),
        );
        responses
    };
    /// `GET /api/v2/webhook-endpoints/{id}`.
    ShowWebhookEndpoint => single::<WebhookEndpointDto>(
        Operation::GetWebhookEndpoint,
        Resource::WebhookEndpoint,
        "webhook endpoint",
    );
    /// `PATCH /api/v2/webhook-endpoints/{id}`.
    UpdateWebhookEndpoint => {
        let mut responses = common(Operation::UpdateWebhookEndpoint);
        responses.insert(
            "200".into(),
            Reply::new("Changed: the endpoint as it now is, in `data`.")
                .json(DataDto::<WebhookEndpointDto>::schema())
                .rate_limit(true)
                .build(),
        );
        responses.insert(
            "400".into(),
            invalid_body(
                vec![FieldIssue::new("secret", "is not a known field")],
                "then the first member whose value is refused, named in `details`.",
            ),
        );
        responses.insert("403".into(), forbidden_events(Operation::UpdateWebhookEndpoint));
        responses.insert("404".into(), no_endpoint());
        responses.insert("413".into(), too_large());
        responses
    };
    /// `DELETE /api/v2/webhook-endpoints/{id}`.
    DeleteWebhookEndpoint => {
        let mut responses = common(Operation::DeleteWebhookEndpoint);
        responses.insert(
            "204".into(),
            Reply::new("Deleted, with its deliveries; no body.")
                .rate_limit(true)
                .build(),
        );
        responses.insert("400".into(), no_parameters());
        responses.insert("404".into(), no_endpoint());
        responses
    };
    /// `POST /api/v2/webhook-endpoints/{id}/secret/rotate`.
    RotateWebhookSecret => endpoint_action::<WebhookSecretDto>(
        Operation::RotateWebhookSecret,
        "200",
        "The new signing secret, shown this once, in `data`; the previous one keeps signing \
         beside it for 24 hours.",
    );
    /// `POST /api/v2/webhook-endpoints/{id}/test`.
    TestWebhookEndpoint => endpoint_action::<TestEventDto>(
        Operation::TestWebhookEndpoint,
        "202",
        "Queued: the `ping` event's id, in `data`.",
    );
    /// `GET /api/v2/webhook-endpoints/{id}/deliveries`.
    ListWebhookDeliveries => {
        let mut responses = page::<DeliveryDto<'static>>(
            Operation::ListWebhookDeliveries,
            "the endpoint's deliveries, newest first",
        );
        responses.insert("404".into(), no_endpoint());
        responses
    };
    /// `POST /api/v2/webhook-endpoints/{id}/deliveries/{deliveryId}/retry`.
    RetryWebhookDelivery => {
        let mut responses = endpoint_action::<QueuedDto>(
            Operation::RetryWebhookDelivery,
            "202",
            "Queued (`queued` is 1): the newest event of the delivery's resource is sent again \
             at once.",
        );
        responses.insert(
            "404".into(),
            not_found(
                Resource::WebhookDelivery,
                "`NOT_FOUND`: the key's shop has no such endpoint, or the endpoint no such \
                 delivery (or an id cannot exist): the same body for all.",
            ),
        );
        responses
    };
    /// `POST /api/v2/webhook-endpoints/{id}/recover`.
    RecoverWebhookEndpoint => {
        let mut responses = endpoint_action::<QueuedDto>(
            Operation::RecoverWebhookEndpoint,
            "202",
            "Queued: how many resources' newest events will be sent, in `data`; the endpoint is \
             enabled.",
        );
        responses.insert(
            "400".into(),
            invalid_body(
                vec![FieldIssue::new(
                    "since",
                    "expected an RFC 3339 instant (2026-11-21T09:30:00Z) or a date (2026-11-21)",
                )],
                "`since` missing or not an instant or a date.",
            ),
        );
        responses.insert("413".into(), too_large());
        responses
    };
    /// `GET /api/v2/events`.
    ListEvents => page::<LoggedEventDto<'static>>(
        Operation::ListEvents,
        "the shop's events, in commit order",
    );
}
