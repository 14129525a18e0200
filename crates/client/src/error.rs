//! Errors: the API's error envelope (spec §7) as a typed enum, and what can go wrong around it.

use std::fmt;
use std::time::Duration;

use serde::Deserialize;

/// Everything a call can fail with.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ApiError {
    /// The API answered with its error envelope `{"error": {code, message, details}}`.
    #[error("HTTP {status} {code}: {message}")]
    Api {
        /// The HTTP status, e.g. 404.
        status: u16,
        code: ErrorCode,
        message: String,
        /// One entry per invalid field (validation errors); empty otherwise.
        details: Vec<FieldIssue>,
    },
    /// Still `429 RATE_LIMITED` after the configured retries (or the server asked for a longer
    /// wait than the client may take). `retry_after` is the server's last `Retry-After`.
    #[error("rate limited; retry after {retry_after:?}")]
    RateLimited {
        retry_after: Option<Duration>,
        message: String,
    },
    /// `412 PRECONDITION_FAILED` (API v2): the resource changed since the version `If-Match`
    /// named, and nothing was written. `current_etag` is the resource's tag now (the answer's
    /// `ETag`): read the resource again, make the change on what it now is, and send it with
    /// that tag ([`crate::Client::modify_client`] and [`crate::Client::modify_product`] do
    /// this loop).
    ///
    /// `maybe_applied` is `true` when an earlier attempt of the same call reached the server
    /// and its answer was lost (the connection dropped, or the attempt timed out), and the
    /// retry was refused: that attempt may be what changed the tag, the patch being applied
    /// after all. Read the resource to know; re-sending the same merge patch on the fresh tag
    /// is harmless either way, since applying it twice leaves what applying it once does.
    #[error("HTTP 412 PRECONDITION_FAILED: {message}")]
    PreconditionFailed {
        current_etag: Option<String>,
        maybe_applied: bool,
        message: String,
    },
    /// The request could not be sent or its response not read (connection refused or reset,
    /// timeout, ...), on the last attempt.
    #[error("transport error: {0}")]
    Transport(#[from] reqwest::Error),
    /// The response was not the JSON this crate expects (for an error status: not the
    /// envelope). `body` is the start of what was received.
    #[error("cannot decode the HTTP {status} response: {source}")]
    Decode {
        status: u16,
        #[source]
        source: serde_json::Error,
        body: String,
    },
    /// Refused before sending: a base URL that is not `http(s)://`, an API key that cannot be
    /// a header value, an idempotency key that is not 1–255 visible ASCII characters, an empty
    /// id.
    #[error("invalid input: {0}")]
    Invalid(String),
}

impl ApiError {
    /// The API's code, for [`ApiError::Api`], [`ApiError::RateLimited`] and
    /// [`ApiError::PreconditionFailed`].
    pub fn code(&self) -> Option<&ErrorCode> {
        match self {
            Self::Api { code, .. } => Some(code),
            Self::RateLimited { .. } => Some(&ErrorCode::RateLimited),
            Self::PreconditionFailed { .. } => Some(&ErrorCode::PreconditionFailed),
            _ => None,
        }
    }

    /// The HTTP status the API answered, when it answered.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Api { status, .. } | Self::Decode { status, .. } => Some(*status),
            Self::RateLimited { .. } => Some(429),
            Self::PreconditionFailed { .. } => Some(412),
            Self::Transport(error) => error.status().map(|status| status.as_u16()),
            Self::Invalid(_) => None,
        }
    }

    /// The resource's current `ETag` after a `412` ([`ApiError::PreconditionFailed`]).
    pub fn current_etag(&self) -> Option<&str> {
        match self {
            Self::PreconditionFailed { current_etag, .. } => current_etag.as_deref(),
            _ => None,
        }
    }

    /// The id of the resource that already holds a value that must be unique, after a `409
    /// CONFLICT` (e.g. the client with the e-mail a create or a patch gave, or the product or
    /// variant with the SKU, EAN or barcode).
    pub fn conflict_holder(&self) -> Option<&str> {
        match self {
            Self::Api {
                code: ErrorCode::Conflict,
                details,
                ..
            } => details.iter().find_map(|issue| issue.holder_id.as_deref()),
            _ => None,
        }
    }
}

/// One invalid input, from the `details` of a validation error, or the member of a `409
/// CONFLICT` whose value must be unique.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldIssue {
    /// A query parameter, a body field or a header, e.g. `limit` or `quantity`.
    pub field: String,
    pub message: String,
    /// For a `409 CONFLICT` (API v2): the id of the resource that holds the value, e.g. the
    /// client that has the e-mail, or the product or variant that has the SKU. `None` on
    /// validation errors.
    #[serde(default)]
    pub holder_id: Option<String>,
}

/// The `code` of an error response: every code of the spec and of the API's decisions.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// 400: invalid query parameters or body fields; see `details`.
    ValidationError,
    /// 400: the body is not JSON.
    InvalidJson,
    /// 401: missing, invalid, revoked or expired key.
    Unauthorized,
    /// 403: the key lacks the endpoint's scope.
    InsufficientScope,
    /// 403: the shop's plan has no public API.
    FeatureNotInPlan,
    /// 403: the shop's subscription is expired or cancelled.
    SubscriptionInactive,
    /// 404: unknown resource (or another shop's), or unknown route.
    NotFound,
    /// 405: wrong method on a known path.
    MethodNotAllowed,
    /// 413: request body over 64 KiB.
    PayloadTooLarge,
    /// 414: request target over 8 KiB.
    UriTooLong,
    /// 409 (API v2): a value that must be unique in the shop (a client's e-mail, a product's
    /// or variant's SKU, EAN or barcode) is another resource's; the detail's `holder_id` names
    /// it ([`ApiError::conflict_holder`]).
    Conflict,
    /// 412 (API v2): `If-Match` names a version that is no longer current; see
    /// [`ApiError::PreconditionFailed`].
    PreconditionFailed,
    /// 422: stock adjustment of a variant without stock tracking.
    StockNotTracked,
    /// 422: stock adjustment that would take the stock beyond ±1,000,000,000,000.
    StockOutOfRange,
    /// 422: an `Idempotency-Key` already used for a different request.
    IdempotencyKeyReused,
    /// 422 (API v2): the shop already has the most webhook endpoints it may have (16).
    WebhookEndpointLimit,
    /// 422 (API v2): a debit of a client's points larger than its balance.
    InsufficientPoints,
    /// 422 (API v2): a credit that would take a client's points beyond 10^15.
    PointsOutOfRange,
    /// 429: a rate limit is exceeded; see `Retry-After`.
    RateLimited,
    /// 500: unexpected server error.
    InternalError,
    /// 503: the service is temporarily unavailable; retry later.
    ServiceUnavailable,
    /// A code this version of the crate does not know.
    Other(String),
}

impl ErrorCode {
    pub fn as_str(&self) -> &str {
        match self {
            Self::ValidationError => "VALIDATION_ERROR",
            Self::InvalidJson => "INVALID_JSON",
            Self::Unauthorized => "UNAUTHORIZED",
            Self::InsufficientScope => "INSUFFICIENT_SCOPE",
            Self::FeatureNotInPlan => "FEATURE_NOT_IN_PLAN",
            Self::SubscriptionInactive => "SUBSCRIPTION_INACTIVE",
            Self::NotFound => "NOT_FOUND",
            Self::MethodNotAllowed => "METHOD_NOT_ALLOWED",
            Self::PayloadTooLarge => "PAYLOAD_TOO_LARGE",
            Self::UriTooLong => "URI_TOO_LONG",
            Self::Conflict => "CONFLICT",
            Self::PreconditionFailed => "PRECONDITION_FAILED",
            Self::StockNotTracked => "STOCK_NOT_TRACKED",
            Self::StockOutOfRange => "STOCK_OUT_OF_RANGE",
            Self::IdempotencyKeyReused => "IDEMPOTENCY_KEY_REUSED",
            Self::WebhookEndpointLimit => "WEBHOOK_ENDPOINT_LIMIT",
            Self::InsufficientPoints => "INSUFFICIENT_POINTS",
            Self::PointsOutOfRange => "POINTS_OUT_OF_RANGE",
            Self::RateLimited => "RATE_LIMITED",
            Self::InternalError => "INTERNAL_ERROR",
            Self::ServiceUnavailable => "SERVICE_UNAVAILABLE",
            Self::Other(code) => code,
        }
    }
}

impl From<&str> for ErrorCode {
    fn from(code: &str) -> Self {
        match code {
            "VALIDATION_ERROR" => Self::ValidationError,
            "INVALID_JSON" => Self::InvalidJson,
            "UNAUTHORIZED" => Self::Unauthorized,
            "INSUFFICIENT_SCOPE" => Self::InsufficientScope,
            "FEATURE_NOT_IN_PLAN" => Self::FeatureNotInPlan,
            "SUBSCRIPTION_INACTIVE" => Self::SubscriptionInactive,
            "NOT_FOUND" => Self::NotFound,
            "METHOD_NOT_ALLOWED" => Self::MethodNotAllowed,
            "PAYLOAD_TOO_LARGE" => Self::PayloadTooLarge,
            "URI_TOO_LONG" => Self::UriTooLong,
            "CONFLICT" => Self::Conflict,
            "PRECONDITION_FAILED" => Self::PreconditionFailed,
            "STOCK_NOT_TRACKED" => Self::StockNotTracked,
            "STOCK_OUT_OF_RANGE" => Self::StockOutOfRange,
            "IDEMPOTENCY_KEY_REUSED" => Self::IdempotencyKeyReused,
            "WEBHOOK_ENDPOINT_LIMIT" => Self::WebhookEndpointLimit,
            "INSUFFICIENT_POINTS" => Self::InsufficientPoints,
            "POINTS_OUT_OF_RANGE" => Self::PointsOutOfRange,
            "RATE_LIMITED" => Self::RateLimited,
            "INTERNAL_ERROR" => Self::InternalError,
            "SERVICE_UNAVAILABLE" => Self::ServiceUnavailable,
            other => Self::Other(other.to_owned()),
        }
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let code = String::deserialize(deserializer)?;
        Ok(Self::from(code.as_str()))
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `{"error": {...}}`.
#[derive(Deserialize)]
pub(crate) struct Envelope {
    pub error: ErrorBody,
}

#[derive(Deserialize)]
pub(crate) struct ErrorBody {
    pub code: ErrorCode,
    pub message: String,
    #[serde(default)]
    pub details: Vec<FieldIssue>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_code_round_trips_and_unknown_ones_are_kept() {
        let known = [
            "VALIDATION_ERROR",
            "INVALID_JSON",
            "UNAUTHORIZED",
            "INSUFFICIENT_SCOPE",
            "FEATURE_NOT_IN_PLAN",
            "SUBSCRIPTION_INACTIVE",
            "NOT_FOUND",
            "METHOD_NOT_ALLOWED",
            "PAYLOAD_TOO_LARGE",
            "URI_TOO_LONG",
            "CONFLICT",
            "PRECONDITION_FAILED",
            "STOCK_NOT_TRACKED",
            "IDEMPOTENCY_KEY_REUSED",
            "RATE_LIMITED",
            "INTERNAL_ERROR",
            "SERVICE_UNAVAILABLE",
        ];
        for code in known {
            let parsed = ErrorCode::from(code);
            assert!(!matches!(parsed, ErrorCode::Other(_)), "{code}");
            assert_eq!(parsed.as_str(), code);
        }
        assert_eq!(
            ErrorCode::from("NOT_ACCEPTABLE"),
            ErrorCode::Other("NOT_ACCEPTABLE".to_owned())
        );
        assert_eq!(ErrorCode::from("NOT_ACCEPTABLE").as_str(), "NOT_ACCEPTABLE");
    }

    #[test]
    fn the_envelope_decodes_with_and_without_details() {
        let with: Envelope = serde_json::from_str(
            r#"{"error":{"code":"VALIDATION_ERROR","message":"bad","details":[{"field":"limit","message":"1 to 100"}]}}"#,
        )
        .unwrap();
        assert_eq!(with.error.code, ErrorCode::ValidationError);
        assert_eq!(with.error.details[0].field, "limit");
        let without: Envelope = serde_json::from_str(
            r#"{"error":{"code":"NOT_FOUND","message":"No order has this id."}}"#,
        )
        .unwrap();
        assert_eq!(without.error.code, ErrorCode::NotFound);
        assert!(without.error.details.is_empty());
    }

    #[test]
    fn a_conflict_names_its_holder_and_a_validation_detail_has_none() {
        let conflict: Envelope = serde_json::from_str(
            r#"{"error":{"code":"CONFLICT","message":"Another resource of the shop already holds this value.",
            "details":[{"field":"email","message":"is already the e-mail of another client","holderId":"c1"}]}}"#,
        )
        .unwrap();
        assert_eq!(conflict.error.code, ErrorCode::Conflict);
        assert_eq!(
            conflict.error.details,
            [FieldIssue {
                field: "email".to_owned(),
                message: "is already the e-mail of another client".to_owned(),
                holder_id: Some("c1".to_owned()),
            }]
        );
        let error = ApiError::Api {
            status: 409,
            code: conflict.error.code,
            message: conflict.error.message,
            details: conflict.error.details,
        };
        assert_eq!(error.conflict_holder(), Some("c1"));
        assert_eq!(error.current_etag(), None);

        let validation: Envelope = serde_json::from_str(
            r#"{"error":{"code":"VALIDATION_ERROR","message":"bad","details":[{"field":"email","message":"not an e-mail"}]}}"#,
        )
        .unwrap();
        assert_eq!(validation.error.details[0].holder_id, None);
    }

    #[test]
    fn a_precondition_failure_has_its_code_status_and_current_tag() {
        let error = ApiError::PreconditionFailed {
            current_etag: Some("\"0123456789abcdef0123456789abcdef\"".to_owned()),
            maybe_applied: false,
            message: "changed".to_owned(),
        };
        assert_eq!(error.code(), Some(&ErrorCode::PreconditionFailed));
        assert_eq!(error.status(), Some(412));
        assert_eq!(
            error.current_etag(),
            Some("\"0123456789abcdef0123456789abcdef\"")
        );
        assert_eq!(error.conflict_holder(), None);
        assert_eq!(
            ErrorCode::PreconditionFailed.as_str(),
            "PRECONDITION_FAILED"
        );
    }
}
