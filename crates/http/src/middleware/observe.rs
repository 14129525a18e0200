//! The outermost middleware: each request's id, span, log line and metrics.
//!
//! 1. The request id (see `request_id`) goes into the request's extensions and into a span
//!    around everything that runs for the request, so that any log line written meanwhile
//!    (a 5xx, a rate-limit store warning) carries it.
//! 2. When the response is ready, ONE log line (target `access`) says what happened:
//!    `request_id`, `method`, `route` (the template, `unmatched` when none), `status`,
//!    `latency_ms`, and, when the key authenticated, `key_prefix` and `shop_id`; for a 401,
//!    `auth_failure` names the cause. Never a header value (the `Authorization` header holds
//!    the key's secret), never a body, never the query string.
//! 3. The same facts are counted in the server's `Metrics`.
//! 4. The id is echoed as `X-Request-Id` on the response, whatever produced it.

use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage as _, web};
use shop_ports::usecase::ThrottledBy;
use tracing::Instrument as _;

use super::request_id::{RequestId, X_REQUEST_ID};

use crate::auth::{AuthFailure, Caller};
use crate::metrics::{Observation, UNMATCHED_ROUTE};
use crate::operations::Operations;
use crate::rate_limit::Counted;

pub async fn observe(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let started = Instant::now();
    let id = RequestId::from_headers(request.headers());
    request.extensions_mut().insert(id.clone());
    let method = request.method().clone();
    let operations = request.app_data::<web::Data<Operations>>().cloned();
    let span = tracing::info_span!("request", request_id = %id);

    let outcome = next.call(request).instrument(span).await;

    let (status, facts) = match &outcome {
        Ok(response) => (response.status(), Facts::of(response)),
        // Only a middleware fails this way; actix renders the error after us.
        Err(error) => (error.as_response_error().status_code(), Facts::default()),
    };
    let observation = Observation {
        method: &method,
        route: facts.route.as_deref(),
        status,
        elapsed: started.elapsed(),
        refused_by: facts.refused_by(status),
        auth_failure: facts.auth_failure,
    };
    log(&id, &observation, facts.caller.as_ref());
    if let Some(operations) = operations {
        operations.metrics().observe(&observation);
    }
    let mut response = outcome?;
    response
        .headers_mut()
        .insert(X_REQUEST_ID, id.header_value());
    Ok(response)
}

/// What the handlers left in the request's extensions.
#[derive(Default)]
struct Facts {
    route: Option<String>,
    caller: Option<Caller>,
    auth_failure: Option<AuthFailure>,
    counted: Option<Counted>,
    throttled_by: Option<ThrottledBy>,
}

impl Facts {
    fn of<B>(response: &ServiceResponse<B>) -> Self {
        let request = response.request();
        let extensions = request.extensions();
        Self {
            route: request.match_pattern(),
            caller: extensions.get::<Caller>().cloned(),
            auth_failure: extensions.get::<AuthFailure>().copied(),
            counted: extensions.get::<Counted>().copied(),
            throttled_by: extensions.get::<ThrottledBy>().copied(),
        }
    }

    /// The budget behind a 429: the key's when authentication counted it over budget, else
    /// the failure budget (or the verification gate) that refused the authentication.
    fn refused_by(&self, status: StatusCode) -> Option<&'static str> {
        if status != StatusCode::TOO_MANY_REQUESTS {
            return None;
        }
        Some(match (self.counted, self.throttled_by) {
            (Some(counted), _) if !counted.status.allowed => counted.class.policy_name(),
            (_, Some(by)) => by.as_str(),
            _ => "auth_failures",
        })
    }
}

fn log(id: &RequestId, observation: &Observation<'_>, caller: Option<&Caller>) {
    let latency_ms = observation.elapsed.as_secs_f64() * 1_000.0;
    tracing::info!(
        target: "access",
        request_id = id.as_str(),
        method = observation.method.as_str(),
        route = observation.route.unwrap_or(UNMATCHED_ROUTE),
        status = observation.status.as_u16(),
        latency_ms = (latency_ms * 1_000.0).round() / 1_000.0,
        key_prefix = caller.map(|caller| caller.key_prefix.as_str()),
        shop_id = caller.map(|caller| caller.shop_id.as_str()),
        auth_failure = observation.auth_failure.map(AuthFailure::as_str),
        "request"
    );
}

#[cfg(test)]
mod tests;
