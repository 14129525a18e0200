//! THE mapping from every failure to the spec's error envelope (spec §7).
//!
//! `{"error": {"code": "...", "message": "...", "details": [{"field", "message"}]}}`, with
//! `details` only when there are some. Handlers return [`ApiError`]; use-case errors convert
//! into it with `?`; responses that actix builds itself are rewritten into it by the envelope
//! middleware through [`ApiError::from_status`]. Causes of 5xx errors are kept as `source` for
//! the log line and never reach a body: a client sees only a code and a fixed message.

use std::borrow::Cow;

use actix_web::error::PayloadError;
use actix_web::http::StatusCode;
use actix_web::http::header::{self, ContentType};
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;
use shop_domain::access::AccessDenied;
use shop_domain::loyalty::{MAX_POINTS, PointsRefusal};
use shop_domain::rate_limit::RateStatus;
use shop_domain::stock::MAX_ABS_STOCK;
use shop_domain::webhook::{EventType, MAX_ENDPOINTS_PER_SHOP};
use shop_ports::usecase::webhooks::EndpointError;
use shop_ports::usecase::{
    AdjustError, AuthError, ClientWriteError, PointsError, ProductWriteError, ReadError,
};
use shop_ports::{BoxError, StoreError};

/// The largest request body any endpoint reads (JSON or raw), app-wide.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// The one message of every 401, whatever its cause, so that the answer is no oracle.
pub const UNAUTHORIZED_MESSAGE: &str = "Missing or invalid API key.";
const INTERNAL_MESSAGE: &str = "An unexpected error occurred.";

/// One problem with one input: a query parameter, a body member or a request header.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FieldIssue {
    /// The query parameter, body field or header concerned (`limit`, `quantity`,
    /// `Idempotency-Key`, `Content-Type`), or `body` for the body as a whole.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl FieldIssue {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// The one detail of a `409 CONFLICT` (API v2): the member whose value must be unique in the
/// shop, and the product, variant or client that holds it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConflictIssue {
    /// The member's path in the request's body (`email`, `variants[1].sku`).
    pub field: String,
    pub message: String,
    /// The id of the resource that holds the value.
    pub holder_id: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// Missing, malformed, unknown, revoked or expired key (one answer for all).
    #[error("missing or invalid API key")]
    Unauthorized,
    /// The key is valid but the shop's plan, its subscription or the key's scopes refuse.
    #[error(transparent)]
    Forbidden(#[from] AccessDenied),
    /// Invalid query parameters or body fields; `details` names each one.
    #[error("invalid request: {message}")]
    Validation {
        message: &'static str,
        details: Vec<FieldIssue>,
    },
    /// A body that is not JSON at all (as opposed to JSON with invalid fields).
    #[error("malformed JSON body")]
    InvalidJson,
    /// Unknown resource, another shop's resource, or unknown route; the text is public.
    #[error("not found: {0}")]
    NotFound(&'static str),
    /// A stock adjustment of a variant whose stock is not tracked (spec §3).
    #[error("stock tracking is disabled for the variant")]
    StockNotTracked,
    /// A stock adjustment that would take the stock beyond ±10^12; `details` says so of
    /// `quantity`.
    #[error("the adjustment would take the stock out of range")]
    StockOutOfRange(Vec<FieldIssue>),
    /// A debit of a client's points larger than its balance (API v2): nothing changed.
    #[error("the client has fewer points than the debit")]
    InsufficientPoints,
    /// A credit that would take a client's points counters past `MAX_POINTS` (API v2);
    /// `details` says so of `points`.
    #[error("the credit would take the client's points out of range")]
    PointsOutOfRange(Vec<FieldIssue>),
    /// An `Idempotency-Key` already used, within its retention, for a different request.
    #[error("idempotency key reused with a different request")]
    IdempotencyKeyReused,
    /// A write whose `If-Match` names none of the resource's current entity tags (API v2):
    /// 412 with the current `ETag`, nothing changed.
    #[error("the resource changed since the version the request names")]
    PreconditionFailed { etag: String },
    /// A value that must be unique in the shop and that another resource holds (API v2):
    /// 409, its one detail naming the member and, in `holderId`, the holder.
    #[error("the value is already held by another resource")]
    Conflict(ConflictIssue),
    /// A webhook endpoint's `events` lists types whose resource the key cannot read (API v2):
    /// a 403 `INSUFFICIENT_SCOPE` whose message names them and the scopes they need.
    #[error("the key cannot read what these event types carry")]
    UnreadableEvents(Vec<EventType>),
    /// A webhook endpoint beyond `MAX_ENDPOINTS_PER_SHOP` (API v2).
    #[error("the shop has the most webhook endpoints it may have")]
    WebhookEndpointLimit,
    /// A budget is exhausted: a key's reads or writes, or a client address's failed
    /// authentications. `Retry-After` is the whole seconds, at least 1, until a slot frees.
    #[error("rate limited for {retry_after_seconds} s")]
    RateLimited { retry_after_seconds: i64 },
    /// The `Allow` header is set by the envelope middleware from actix's own 405 response.
    #[error("method not allowed")]
    MethodNotAllowed,
    #[error("request body too large")]
    PayloadTooLarge,
    #[error("request URI too long")]
    UriTooLong,
    #[error("unsupported media type")]
    UnsupportedMediaType,
    /// The database could not be reached in time: 503 with `Retry-After`, the client retries.
    #[error("service unavailable")]
    Unavailable(#[source] StoreError),
    /// A bug, a corrupt row or a panic: logged with its cause, answered generically.
    #[error("internal error")]
    Internal(#[source] BoxError),
    /// Any other error status actix produced itself (406, 408, 431, ...).
    #[error("HTTP error {0}")]
    Status(StatusCode),
}

impl ApiError {
    pub fn validation(details: Vec<FieldIssue>) -> Self {
        Self::Validation {
            message: "Invalid query parameters.",
            details,
        }
    }

    /// Invalid fields of a JSON body, or headers that qualify it (`Idempotency-Key`).
    pub fn invalid_body(details: Vec<FieldIssue>) -> Self {
        Self::Validation {
            message: "The request body is invalid.",
            details,
        }
    }

    /// A merge patch whose `Content-Type` is neither `application/json` nor
    /// `application/merge-patch+json`.
    pub fn not_merge_patch_content_type() -> Self {
        let must = "must be application/merge-patch+json or application/json";
        Self::Validation {
            message: "Content-Type must be application/merge-patch+json or application/json.",
            details: vec![FieldIssue::new("Content-Type", must)],
        }
    }

    /// A write whose `Content-Type` is missing or is not `application/json`.
    pub fn not_json_content_type() -> Self {
        Self::Validation {
            message: "Content-Type must be application/json.",
            details: vec![FieldIssue::new("Content-Type", "must be application/json")],
        }
    }

    /// The error of the `web::Bytes` extractor, run by a handler after authentication:
    /// 413 over the `PayloadConfig` limit, 400 for a body that could not be read.
    pub fn unreadable_body(error: &actix_web::Error) -> Self {
        match error.as_error::<PayloadError>() {
            Some(PayloadError::Overflow) => Self::PayloadTooLarge,
            Some(_) => Self::Validation {
                message: "The request body could not be read.",
                details: Vec::new(),
            },
            None => {
                let status = error.as_response_error().status_code();
                if status.is_server_error() {
                    Self::internal(error.to_string())
                } else {
                    Self::from_status(status)
                }
            }
        }
    }

    /// The refusal of an exhausted budget, with the `Retry-After` its status gives.
    pub fn rate_limited(status: &RateStatus) -> Self {
        Self::RateLimited {
            retry_after_seconds: status.retry_after_seconds(),
        }
    }

    pub fn internal(cause: impl Into<BoxError>) -> Self {
        Self::Internal(cause.into())
    }

    /// The envelope equivalent of an error response that actix built itself.
    pub fn from_status(status: StatusCode) -> Self {
        match status {
            StatusCode::BAD_REQUEST => Self::Validation {
                message: "The request is malformed.",
                details: Vec::new(),
            },
            StatusCode::UNAUTHORIZED => Self::Unauthorized,
            StatusCode::NOT_FOUND => Self::NotFound("No resource at this path."),
            StatusCode::METHOD_NOT_ALLOWED => Self::MethodNotAllowed,
            StatusCode::PAYLOAD_TOO_LARGE => Self::PayloadTooLarge,
            StatusCode::URI_TOO_LONG => Self::UriTooLong,
            StatusCode::UNSUPPORTED_MEDIA_TYPE => Self::UnsupportedMediaType,
            other => Self::Status(other),
        }
    }

    /// The spec's machine-readable code.
    pub fn code(&self) -> Cow<'static, str> {
        Cow::Borrowed(match self {
            Self::Unauthorized => "UNAUTHORIZED",
            Self::Forbidden(AccessDenied::FeatureNotInPlan) => "FEATURE_NOT_IN_PLAN",
            Self::Forbidden(AccessDenied::SubscriptionInactive) => "SUBSCRIPTION_INACTIVE",
            Self::Forbidden(AccessDenied::InsufficientScope { .. }) | Self::UnreadableEvents(_) => {
                "INSUFFICIENT_SCOPE"
            }
            Self::Validation { .. } => "VALIDATION_ERROR",
            Self::InvalidJson => "INVALID_JSON",
            Self::NotFound(_) => "NOT_FOUND",
            Self::StockNotTracked => "STOCK_NOT_TRACKED",
            Self::StockOutOfRange(_) => "STOCK_OUT_OF_RANGE",
            Self::InsufficientPoints => "INSUFFICIENT_POINTS",
            Self::PointsOutOfRange(_) => "POINTS_OUT_OF_RANGE",
            Self::IdempotencyKeyReused => "IDEMPOTENCY_KEY_REUSED",
            Self::PreconditionFailed { .. } => "PRECONDITION_FAILED",
            Self::Conflict(_) => "CONFLICT",
            Self::WebhookEndpointLimit => "WEBHOOK_ENDPOINT_LIMIT",
            Self::RateLimited { .. } => "RATE_LIMITED",
            Self::MethodNotAllowed => "METHOD_NOT_ALLOWED",
            Self::PayloadTooLarge => "PAYLOAD_TOO_LARGE",
            Self::UriTooLong => "URI_TOO_LONG",
            Self::UnsupportedMediaType => "UNSUPPORTED_MEDIA_TYPE",
            Self::Unavailable(_) => "SERVICE_UNAVAILABLE",
            Self::Internal(_) => "INTERNAL_ERROR",
            Self::Status(status) => return status_code_name(*status),
        })
    }

    /// The human-readable message: fixed texts only, never a cause.
    pub fn public_message(&self) -> Cow<'static, str> {
        Cow::Borrowed(match self {
            Self::Unauthorized => UNAUTHORIZED_MESSAGE,
            Self::Forbidden(AccessDenied::FeatureNotInPlan) => {
                "The shop's plan does not include the public API (feature publicApi)."
            }
            Self::Forbidden(AccessDenied::SubscriptionInactive) => {
                "The shop's subscription is expired or cancelled."
            }
            Self::Forbidden(AccessDenied::InsufficientScope { required }) => {
                return Cow::Owned(format!("This API key lacks the scope {required}."));
            }
            Self::Validation { message, .. } => message,
            Self::InvalidJson => "The request body is not valid JSON.",
            Self::NotFound(message) => message,
            Self::StockNotTracked => "Stock tracking is not enabled for this variant.",
            Self::StockOutOfRange(_) => {
                "The adjustment would take the stock out of range; nothing changed."
            }
            Self::InsufficientPoints => {
                "The client has fewer points than this debit; nothing changed."
            }
            Self::PointsOutOfRange(_) => {
                "The credit would take the client's points out of range; nothing changed."
            }
            Self::IdempotencyKeyReused => "This Idempotency-Key was used with a different request.",
            Self::PreconditionFailed { .. } => {
                "The resource changed since the version If-Match names; nothing changed. Read it \
                 again (its ETag is in this answer) and retry."
            }
            Self::Conflict(_) => "Another resource of the shop already holds this value.",
            Self::UnreadableEvents(types) => return Cow::Owned(unreadable_message(types)),
            Self::WebhookEndpointLimit => {
                return Cow::Owned(format!(
                    "The shop already has {MAX_ENDPOINTS_PER_SHOP} webhook endpoints, the most it \
                     may have; delete one first."
                ));
            }
            Self::RateLimited {
                retry_after_seconds: 1,
            } => "Too many requests; retry after 1 second.",
            Self::RateLimited {
                retry_after_seconds,
            } => {
                return Cow::Owned(format!(
                    "Too many requests; retry after {retry_after_seconds} seconds."
                ));
            }
            Self::MethodNotAllowed => "This method is not allowed on this resource.",
            Self::PayloadTooLarge => "The request body is larger than 64 KiB.",
            Self::UriTooLong => "The request URI is too long.",
            Self::UnsupportedMediaType => "The request body must be application/json.",
            Self::Unavailable(_) => "The service is temporarily unavailable; retry shortly.",
            Self::Internal(_) => INTERNAL_MESSAGE,
            Self::Status(status) if status.is_server_error() => INTERNAL_MESSAGE,
            Self::Status(status) => status.canonical_reason().unwrap_or("Request refused."),
        })
    }

    fn details(&self) -> &[FieldIssue] {
        match self {
            Self::Validation { details, .. }
            | Self::StockOutOfRange(details)
            | Self::PointsOutOfRange(details) => details,
            _ => &[],
        }
    }

    /// The serialized envelope. Serializing these plain structs cannot fail; the fallback only
    /// keeps this function total.
    pub fn envelope(&self) -> Vec<u8> {
        let code = self.code();
        let message = self.public_message();
        if let Self::Conflict(issue) = self {
            let envelope = ConflictEnvelope {
                error: ConflictBody {
                    code: &code,
                    message: &message,
                    details: std::slice::from_ref(issue),
                },
            };
            return serde_json::to_vec(&envelope).unwrap_or_default();
        }
        let envelope = Envelope {
            error: ErrorBody {
                code: &code,
                message: &message,
                details: self.details(),
            },
        };
        serde_json::to_vec(&envelope).unwrap_or_else(|_| {
            br#"{"error":{"code":"INTERNAL_ERROR","message":"An unexpected error occurred."}}"#
                .to_vec()
        })
    }
}

/// `This API key cannot receive order.created, order.updated: it lacks orders:read.`
fn unreadable_message(types: &[EventType]) -> String {
    let names: Vec<&str> = types.iter().map(|kind| kind.as_str()).collect();
    let mut scopes: Vec<&str> = Vec::new();
    for scope in types.iter().filter_map(|kind| kind.read_scope()) {
        if !scopes.contains(&scope.as_str()) {
            scopes.push(scope.as_str());
        }
    }
    format!(
        "This API key cannot receive {}: it lacks {}.",
        names.join(", "),
        scopes.join(", ")
    )
}

/// `"NOT_ACCEPTABLE"` for 406 and so on; 5xx other than 503 are all `INTERNAL_ERROR`.
fn status_code_name(status: StatusCode) -> Cow<'static, str> {
    match status {
        StatusCode::TOO_MANY_REQUESTS => Cow::Borrowed("RATE_LIMITED"),
        StatusCode::SERVICE_UNAVAILABLE => Cow::Borrowed("SERVICE_UNAVAILABLE"),
        s if s.is_server_error() => Cow::Borrowed("INTERNAL_ERROR"),
        s => Cow::Owned(
            s.canonical_reason()
                .unwrap_or("ERROR")
                .to_ascii_uppercase()
                .replace(['-', ' '], "_"),
        ),
    }
}

/// The body of every error response.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Error)]
pub(crate) struct Envelope<'a> {
    error: ErrorBody<'a>,
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ErrorBody)]
struct ErrorBody<'a> {
    /// Machine-readable; each response lists the codes it can carry.
    #[schema(examples("VALIDATION_ERROR"))]
    code: &'a str,
    /// For humans; may change, never parse it.
    message: &'a str,
    /// Every invalid input at once; present only on `VALIDATION_ERROR`s that name inputs.
    #[serde(skip_serializing_if = "<[FieldIssue]>::is_empty")]
    #[schema(min_items = 1)]
    details: &'a [FieldIssue],
}

/// The body of a `409 CONFLICT` (API v2): the envelope, whose one detail names the holder.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ConflictError)]
pub(crate) struct ConflictEnvelope<'a> {
    error: ConflictBody<'a>,
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ConflictErrorBody)]
struct ConflictBody<'a> {
    #[schema(examples("CONFLICT"))]
    code: &'a str,
    /// For humans; may change, never parse it.
    message: &'a str,
    #[schema(min_items = 1, max_items = 1)]
    details: &'a [ConflictIssue],
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::Unauthorized => StatusCode::UNAUTHORIZED,
            Self::Forbidden(_) | Self::UnreadableEvents(_) => StatusCode::FORBIDDEN,
            Self::Validation { .. } | Self::InvalidJson => StatusCode::BAD_REQUEST,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::PreconditionFailed { .. } => StatusCode::PRECONDITION_FAILED,
            Self::Conflict(_) => StatusCode::CONFLICT,
            Self::StockNotTracked
            | Self::StockOutOfRange(_)
            | Self::InsufficientPoints
            | Self::PointsOutOfRange(_)
            | Self::IdempotencyKeyReused
            | Self::WebhookEndpointLimit => StatusCode::UNPROCESSABLE_ENTITY,
            Self::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::UriTooLong => StatusCode::URI_TOO_LONG,
            Self::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            Self::Status(status) => *status,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status_code());
        response.insert_header(ContentType::json());
        match self {
            Self::Unauthorized => {
                response.insert_header((header::WWW_AUTHENTICATE, "Bearer"));
            }
            Self::Unavailable(_) => {
                response.insert_header((header::RETRY_AFTER, "1"));
            }
            Self::PreconditionFailed { etag } => {
                response.insert_header((header::ETAG, etag.as_str()));
            }
            Self::RateLimited {
                retry_after_seconds,
            } => {
                response.insert_header((header::RETRY_AFTER, *retry_after_seconds));
            }
            _ => {}
        }
        response.body(self.envelope())
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Unavailable(_) => Self::Unavailable(error),
            StoreError::Conflict { .. } | StoreError::Failure(_) => Self::internal(error),
        }
    }
}

impl From<AuthError> for ApiError {
    fn from(error: AuthError) -> Self {
        match error {
            AuthError::Unauthorized(_) => Self::Unauthorized,
            AuthError::Denied(denied) => Self::Forbidden(denied),
            AuthError::Throttled(throttle) => Self::rate_limited(&throttle.status),
            AuthError::Store(store) => store.into(),
            AuthError::Hashing(hashing) => Self::internal(hashing),
        }
    }
}

/// What a read endpoint looks up by id, named in its 404. A use case answers an unknown id and
/// another shop's id with the same `ReadError::NotFound`, and `PathId` an id that cannot exist
/// with [`ApiError::not_found`], so the three give byte-identical bodies on one endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resource {
    Product,
    Order,
    Client,
    Variant,
    /// API v2.
    WebhookEndpoint,
    /// An endpoint's delivery: the pair of ids in the path.
    WebhookDelivery,
}

impl Resource {
    const fn not_found_message(self) -> &'static str {
        match self {
            Resource::Product => "No product has this id.",
            Resource::Order => "No order has this id.",
            Resource::Client => "No client has this id.",
            Resource::Variant => "No variant has this id.",
            Resource::WebhookEndpoint => "No webhook endpoint has this id.",
            Resource::WebhookDelivery => "No delivery of this webhook endpoint has this id.",
        }
    }
}

impl ApiError {
    /// The 404 of an endpoint looking up `resource`: for an unknown id, another shop's, and
    /// one that cannot exist alike.
    pub fn not_found(resource: Resource) -> Self {
        Self::NotFound(resource.not_found_message())
    }

    /// The mapping of a read use case's error, for an endpoint reading `resource`:
    /// `.map_err(ApiError::reading(Resource::Order))`. There is deliberately no
    /// `From<ReadError>`, so that no handler can answer with another resource's 404 text.
    pub fn reading(resource: Resource) -> impl Fn(ReadError) -> Self {
        move |error| match error {
            ReadError::NotFound => Self::not_found(resource),
            ReadError::Store(store) => store.into(),
        }
    }
}

impl ApiError {
    /// The mapping of a webhook use case's error (API v2), for an endpoint acting on
    /// `resource`: `.map_err(ApiError::webhooks(Resource::WebhookEndpoint))`. An invalid field
    /// is a 400 naming it: `cursor` is the one query parameter the use cases judge, every
    /// other field a body member. Like [`ApiError::reading`], there is no `From`, so that the
    /// 404 always names the resource of the path.
    pub fn webhooks(resource: Resource) -> impl Fn(EndpointError) -> Self {
        move |error| match error {
            EndpointError::Invalid { field, message } => {
                let details = vec![FieldIssue::new(field, message)];
                if field == "cursor" {
                    Self::validation(details)
                } else {
                    Self::invalid_body(details)
                }
            }
            EndpointError::Unreadable(types) => Self::UnreadableEvents(types),
            EndpointError::LimitReached => Self::WebhookEndpointLimit,
            EndpointError::NotFound => Self::not_found(resource),
            EndpointError::Store(store) => store.into(),
        }
    }
}

/// A stock adjustment that changed nothing. A replayed refusal maps as it did the first time;
/// the handler marks the response as a replay.
impl From<AdjustError> for ApiError {
    fn from(error: AdjustError) -> Self {
        match error {
            AdjustError::VariantNotFound { .. } => Self::not_found(Resource::Variant),
            AdjustError::NotTracked { .. } => Self::StockNotTracked,
            AdjustError::OutOfRange { .. } => Self::stock_out_of_range(),
            AdjustError::KeyReused => Self::IdempotencyKeyReused,
            AdjustError::Store(store) => store.into(),
        }
    }
}

/// An adjustment of points that changed nothing; a replayed refusal maps as it did the first
/// time, and the handler marks the response as a replay.
impl From<PointsError> for ApiError {
    fn from(error: PointsError) -> Self {
        match error {
            PointsError::ClientNotFound { .. } => Self::not_found(Resource::Client),
            PointsError::Refused {
                refusal: PointsRefusal::Insufficient,
                ..
            } => Self::InsufficientPoints,
            PointsError::Refused {
                refusal: PointsRefusal::OutOfRange,
                ..
            } => Self::PointsOutOfRange(vec![FieldIssue::new(
                "points",
                format!("would take the client's points beyond {MAX_POINTS}"),
            )]),
            PointsError::KeyReused => Self::IdempotencyKeyReused,
            PointsError::Store(store) => store.into(),
        }
    }
}

impl From<ClientWriteError> for ApiError {
    fn from(error: ClientWriteError) -> Self {
        match error {
            ClientWriteError::NotFound => Self::not_found(Resource::Client),
            ClientWriteError::PreconditionFailed(current) => {
                match crate::etag::entity_tag(crate::dto::client::ClientDto::from(&*current)) {
                    Ok(etag) => Self::PreconditionFailed { etag },
                    Err(error) => error,
                }
            }
            ClientWriteError::EmailTaken { holder, .. } => Self::conflict(
                "email",
                "is already the e-mail of another client of the shop (without regard to case)",
                holder.to_string(),
            ),
            ClientWriteError::KeyReused => Self::IdempotencyKeyReused,
            ClientWriteError::Store(store) => store.into(),
        }
    }
}

impl From<ProductWriteError> for ApiError {
    fn from(error: ProductWriteError) -> Self {
        match error {
            ProductWriteError::ProductNotFound => Self::not_found(Resource::Product),
            ProductWriteError::VariantNotFound => Self::not_found(Resource::Variant),
            ProductWriteError::PreconditionFailed(current) => {
                match crate::handlers::product_writes::product_tag(&current) {
                    Ok(etag) => Self::PreconditionFailed { etag },
                    Err(error) => error,
                }
            }
            ProductWriteError::Conflict { member, holder, .. } => Self::conflict(
                member,
                "is already the code of another product or variant of the shop",
                holder,
            ),
            ProductWriteError::UnknownReference { member } => {
                let what = if member.starts_with("brand") {
                    "brand"
                } else {
                    "category"
                };
                Self::invalid_body(vec![FieldIssue::new(
                    member,
                    format!("names no {what} of the shop"),
                )])
            }
            ProductWriteError::Refused { member, message } => {
                Self::invalid_body(vec![FieldIssue::new(member, message)])
            }
            ProductWriteError::KeyReused => Self::IdempotencyKeyReused,
            ProductWriteError::Store(store) => store.into(),
        }
    }
}

impl ApiError {
    /// The 409 of a value `holder` already holds, named by the member's path.
    pub fn conflict(field: impl Into<String>, message: impl Into<String>, holder: String) -> Self {
        Self::Conflict(ConflictIssue {
            field: field.into(),
            message: message.into(),
            holder_id: holder,
        })
    }

    /// The 422 of an adjustment that would take the stock beyond ±10^12.
    pub fn stock_out_of_range() -> Self {
        Self::StockOutOfRange(vec![FieldIssue::new(
            "quantity",
            format!(
                "would take the stock beyond -{MAX_ABS_STOCK} to {MAX_ABS_STOCK}, the range of \
                 every stock"
            ),
        )])
    }
}

pub use shop_ports::error_chain;

#[cfg(test)]
mod tests {
    use shop_domain::scope::Scope;

    use super::*;

    fn json(error: &ApiError) -> serde_json::Value {
        serde_json::from_slice(&error.envelope()).unwrap_or_default()
    }

    #[test]
    fn details_appear_only_when_there_are_some() {
        let without = json(&ApiError::NotFound("x"));
        assert!(without["error"].get("details").is_none());
        let with = json(&ApiError::validation(vec![FieldIssue::new("limit", "bad")]));
        assert_eq!(
            with["error"]["details"],
            serde_json::json!([{"field": "limit", "message": "bad"}])
        );
    }

    #[test]
    fn scope_denials_name_the_scope() {
        let error = ApiError::Forbidden(AccessDenied::InsufficientScope {
            required: Scope::OrdersRead,
        });
        assert_eq!(error.code(), "INSUFFICIENT_SCOPE");
        assert!(error.public_message().contains("orders:read"));
    }

    #[test]
    fn statuses_without_a_variant_get_a_derived_code() {
        assert_eq!(
            ApiError::from_status(StatusCode::NOT_ACCEPTABLE).code(),
            "NOT_ACCEPTABLE"
        );
        assert_eq!(
            ApiError::from_status(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE).code(),
            "REQUEST_HEADER_FIELDS_TOO_LARGE"
        );
        assert_eq!(
            ApiError::from_status(StatusCode::TOO_MANY_REQUESTS).code(),
            "RATE_LIMITED"
        );
        let gateway = ApiError::from_status(StatusCode::BAD_GATEWAY);
        assert_eq!(gateway.code(), "INTERNAL_ERROR");
        assert_eq!(gateway.public_message(), INTERNAL_MESSAGE);
    }

    #[test]
    fn rate_limits_are_429_with_retry_after() {
        let status = RateStatus {
            allowed: false,
            limit: 120,
            remaining: 0,
            reset_after_millis: 47_001,
        };
        let error = ApiError::rate_limited(&status);
        let response = error.error_response();
        assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(
            response.headers().get(header::RETRY_AFTER),
            Some(&header::HeaderValue::from_static("48"))
        );
        assert_eq!(error.code(), "RATE_LIMITED");
        assert_eq!(
            error.public_message(),
            "Too many requests; retry after 48 seconds."
        );
        let soon = ApiError::rate_limited(&RateStatus {
            reset_after_millis: 0,
            ..status
        });
        assert_eq!(
            soon.public_message(),
            "Too many requests; retry after 1 second."
        );
    }

    #[test]
    fn read_errors_name_the_endpoint_resource_and_keep_store_mapping() {
        let order = ApiError::reading(Resource::Order)(ReadError::NotFound);
        assert_eq!(order.code(), "NOT_FOUND");
        assert_eq!(order.public_message(), "No order has this id.");
        let client = ApiError::reading(Resource::Client)(ReadError::NotFound);
        assert_eq!(client.public_message(), "No client has this id.");
        let unavailable = ApiError::reading(Resource::Product)(ReadError::Store(
            StoreError::Unavailable("pool timed out".into()),
        ));
        assert_eq!(unavailable.code(), "SERVICE_UNAVAILABLE");
    }

    #[test]
    fn store_failures_keep_their_cause_out_of_the_body() {
        let error = ApiError::from(StoreError::failure("SELECT secret FROM keys failed"));
        let body = String::from_utf8(error.envelope()).unwrap_or_default();
        assert!(!body.contains("SELECT"), "{body}");
        assert!(error_chain(&error).contains("SELECT secret"));
    }

    #[test]
    fn body_read_errors_are_413_or_400() {
        let overflow = actix_web::Error::from(PayloadError::Overflow);
        assert_eq!(
            ApiError::unreadable_body(&overflow).code(),
            "PAYLOAD_TOO_LARGE"
        );
        let cut = actix_web::Error::from(PayloadError::Incomplete(None));
        let error = ApiError::unreadable_body(&cut);
        assert_eq!(error.status_code(), StatusCode::BAD_REQUEST);
        assert_eq!(error.code(), "VALIDATION_ERROR");
    }

    #[test]
    fn adjustment_refusals_have_their_own_codes() {
        let not_tracked = ApiError::from(AdjustError::NotTracked { replayed: false });
        let not_found = ApiError::from(AdjustError::VariantNotFound { replayed: false });
        assert_eq!(not_tracked.status_code(), StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(not_tracked.code(), "STOCK_NOT_TRACKED");
        assert_eq!(not_found.public_message(), "No variant has this id.");
        let reused = ApiError::from(AdjustError::KeyReused);
        assert_eq!(reused.status_code(), StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(reused.code(), "IDEMPOTENCY_KEY_REUSED");
    }

    #[test]
    fn webhook_refusals_have_their_statuses_and_codes() {
        let map = ApiError::webhooks(Resource::WebhookEndpoint);
        let invalid = map(EndpointError::Invalid {
            field: "url",
            message: "must be https".into(),
        });
        assert_eq!(invalid.code(), "VALIDATION_ERROR");
        assert_eq!(invalid.public_message(), "The request body is invalid.");
        assert_eq!(
            invalid.details()[0],
            FieldIssue::new("url", "must be https")
        );
        let cursor = map(EndpointError::Invalid {
            field: "cursor",
            message: "is not a cursor of this list".into(),
        });
        assert_eq!(cursor.public_message(), "Invalid query parameters.");
        let unreadable = map(EndpointError::Unreadable(vec![
            EventType::OrderCreated,
            EventType::OrderUpdated,
            EventType::ClientCreated,
        ]));
        assert_eq!(unreadable.status_code(), StatusCode::FORBIDDEN);
        assert_eq!(unreadable.code(), "INSUFFICIENT_SCOPE");
        assert_eq!(
            unreadable.public_message(),
            "This API key cannot receive order.created, order.updated, client.created: it \
             lacks orders:read, clients:read."
        );
        let limit = map(EndpointError::LimitReached);
        assert_eq!(limit.status_code(), StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(limit.code(), "WEBHOOK_ENDPOINT_LIMIT");
        assert!(limit.public_message().contains("16"));
        let missing = ApiError::webhooks(Resource::WebhookDelivery)(EndpointError::NotFound);
        assert_eq!(
            missing.envelope(),
            ApiError::not_found(Resource::WebhookDelivery).envelope()
        );
        let unavailable = map(EndpointError::Store(StoreError::Unavailable(
            "timed out".into(),
        )));
        assert_eq!(unavailable.code(), "SERVICE_UNAVAILABLE");
    }

    #[test]
    fn a_replayed_refusal_maps_as_the_first_answer() {
        for replayed in [false, true] {
            let out_of_range = ApiError::from(AdjustError::OutOfRange { replayed });
            assert_eq!(out_of_range.code(), "STOCK_OUT_OF_RANGE");
            assert_eq!(out_of_range.details()[0].field, "quantity");
            let not_found = ApiError::from(AdjustError::VariantNotFound { replayed });
            assert_eq!(
                not_found.envelope(),
                ApiError::not_found(Resource::Variant).envelope()
            );
        }
        let unavailable = ApiError::from(AdjustError::Store(StoreError::Unavailable(
            "pool timed out".into(),
        )));
        assert_eq!(unavailable.code(), "SERVICE_UNAVAILABLE");
    }
}
