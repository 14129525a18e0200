//! Finishing every response: the JSON error envelope, the request id, the 5xx log line.
//!
//! actix answers some requests itself: 404 when no route matches is ours (the default service),
//! but 405 on a known path, 413 from a body extractor or any other extractor error comes with
//! an empty or plain-text body. Every error response that is not already an [`ApiError`] is
//! rebuilt here from its status with [`ApiError::from_status`], keeping its `Allow` header, so
//! that clients only ever see one error shape. Responses the HTTP/1 codec writes before the
//! app runs (a request line that cannot be parsed, a head over 128 KiB) cannot be reached by
//! any middleware and stay empty.

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage as _, HttpResponse};
use tracing_actix_web::RequestId;

use crate::error::{ApiError, error_chain};

/// Longer URIs are refused before routing with 414: no valid request comes near it (ids are
/// at most 64 characters, a search term 100), and actix itself only stops at 128 KiB.
pub const MAX_URI_BYTES: usize = 8 * 1024;

const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

pub async fn finish(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let request_id = request.extensions().get::<RequestId>().copied();
    let uri_len = request
        .uri()
        .path_and_query()
        .map_or(0, |uri| uri.as_str().len());
    let response = if uri_len > MAX_URI_BYTES {
        request.error_response(ApiError::UriTooLong)
    } else {
        match next.call(request).await {
            Ok(response) => response.map_into_boxed_body(),
            // Only a middleware can fail this way (handler errors are already responses), and
            // without the request no response can be built here: actix renders it with
            // `error_response`, which is the envelope for an `ApiError`.
            Err(error) => {
                let status = error.as_response_error().status_code();
                if status.is_server_error() {
                    log_server_error(status, Some(&error), request_id);
                }
                return Err(error);
            }
        }
    };
    if response.status().is_server_error() {
        log_server_error(response.status(), response.response().error(), request_id);
    }
    let mut response = into_envelope(response);
    if let Some(id) = request_id.and_then(|id| HeaderValue::from_str(&id.to_string()).ok()) {
        response.headers_mut().insert(X_REQUEST_ID, id);
    }
    Ok(response)
}

/// The one log line of a failed request, with its id (also sent as `X-Request-Id`, so that a
/// client's report can be matched) and the full cause chain. Request headers are not logged.
fn log_server_error(status: StatusCode, error: Option<&Error>, request_id: Option<RequestId>) {
    let request_id = request_id.map(|id| id.to_string()).unwrap_or_default();
    let status = status.as_u16();
    let cause = match error {
        Some(error) => match error.as_error::<ApiError>() {
            Some(api_error) => error_chain(api_error),
            None => error.to_string(),
        },
        None => String::from("error status without an error value"),
    };
    tracing::error!(%request_id, status, cause, "request failed");
}

fn into_envelope(response: ServiceResponse<BoxBody>) -> ServiceResponse<BoxBody> {
    let status = response.status();
    let already_enveloped = response
        .response()
        .error()
        .is_some_and(|error| error.as_error::<ApiError>().is_some());
    if already_enveloped || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let allow = response.headers().get(header::ALLOW).cloned();
    let (request, _) = response.into_parts();
    let mut rebuilt = HttpResponse::from_error(ApiError::from_status(status));
    if let Some(allow) = allow.filter(|_| status == StatusCode::METHOD_NOT_ALLOWED) {
        rebuilt.headers_mut().insert(header::ALLOW, allow);
    }
    ServiceResponse::new(request, rebuilt)
}
