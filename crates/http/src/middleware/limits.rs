//! Request heads the app refuses before routing: a URI or headers larger than any real client
//! sends. actix-http only stops at a 128 KiB head (and answers that with an empty 431 the app
//! never sees); these limits are far below it, and their refusals go through the envelope.
//! The body limit is the app's `PayloadConfig` (`error::MAX_BODY_BYTES`).

use actix_web::dev::ServiceRequest;
use actix_web::http::StatusCode;

use crate::error::ApiError;

/// Longer URIs are refused with 414: no valid request comes near it (ids are at most 64
/// characters, a search term 100).
pub const MAX_URI_BYTES: usize = 8 * 1024;

/// The names and values of all headers together; beyond it, 431. A real request carries a
/// few hundred bytes; proxies commonly cap a head at 8 to 32 KiB.
pub const MAX_HEADER_BYTES: usize = 16 * 1024;

/// The refusal of a request whose head is over a limit, if it is.
pub fn refusal(request: &ServiceRequest) -> Option<ApiError> {
    let uri_len = request
        .uri()
        .path_and_query()
        .map_or(0, |uri| uri.as_str().len());
    if uri_len > MAX_URI_BYTES {
        return Some(ApiError::UriTooLong);
    }
    let header_bytes: usize = request
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len())
        .sum();
    (header_bytes > MAX_HEADER_BYTES)
        .then(|| ApiError::from_status(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE))
}
