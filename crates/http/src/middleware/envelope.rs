//! Finishing every response: the request limits, the JSON error envelope, the 5xx log line.
//!
//! A head over a limit (see `limits`) is refused here, before routing. actix answers some
//! requests itself: 404 when no route matches is ours (the default service),
//! but 405 on a known path, 413 from a body extractor or any other extractor error comes with
//! an empty or plain-text body. Every error response that is not already an [`ApiError`] is
//! rebuilt here from its status with [`ApiError::from_status`], keeping its `Allow` header, so
//! that clients only ever see one error shape. Responses the HTTP/1 codec writes before the
//! app runs (a request line that cannot be parsed, a head over 128 KiB) cannot be reached by
//! any middleware and stay empty. The `X-Request-Id` of every response is set by the
//! outermost middleware, `observe`. The responses of a mounted adapter (see `mount`) keep
//! their own bodies; their 5xx are logged here all the same.

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage as _, HttpResponse};

use super::limits;
use super::request_id::RequestId;
use crate::error::{ApiError, error_chain};
use crate::mount::Mounts;

pub async fn finish(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let request_id = request.extensions().get::<RequestId>().cloned();
    let mounted = request
        .app_data::<actix_web::web::Data<Mounts>>()
        .is_some_and(|mounts| mounts.cover(request.path()));
    let response = if let Some(refusal) = limits::refusal(&request) {
        request.error_response(refusal)
    } else {
        match next.call(request).await {
            Ok(response) => response.map_into_boxed_body(),
            // Only a middleware can fail this way (handler errors are already responses), and
            // without the request no response can be built here: actix renders it with
            // `error_response`, which is the envelope for an `ApiError`.
            Err(error) => {
                let status = error.as_response_error().status_code();
                if status.is_server_error() {
                    log_server_error(status, Some(&error), request_id.as_ref());
                }
                return Err(error);
            }
        }
    };
    if response.status().is_server_error() {
        log_server_error(
            response.status(),
            response.response().error(),
            request_id.as_ref(),
        );
    }
    if mounted {
        return Ok(response);
    }
    Ok(into_envelope(response))
}

/// The one log line of a failed request, with its id (also sent as `X-Request-Id`, so that a
/// client's report can be matched) and the full cause chain. Request headers are not logged.
fn log_server_error(status: StatusCode, error: Option<&Error>, request_id: Option<&RequestId>) {
    let request_id = request_id.map(RequestId::as_str).unwrap_or_default();
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

/// Marks an error status whose body is deliberate and not an error of the API (the 503 of
/// `/readyz`, which lists its checks): the envelope leaves it as it is.
#[derive(Clone, Copy, Debug)]
pub struct OwnBody;

fn into_envelope(response: ServiceResponse<BoxBody>) -> ServiceResponse<BoxBody> {
    let status = response.status();
    let already_enveloped = response
        .response()
        .error()
        .is_some_and(|error| error.as_error::<ApiError>().is_some());
    let own_body = response.response().extensions().get::<OwnBody>().is_some();
    if already_enveloped || own_body || !(status.is_client_error() || status.is_server_error()) {
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
