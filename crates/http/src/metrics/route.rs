//! `GET /metrics`: the exposition. On a separate, private address to anyone
//! ([`scrape`], `Operations::metrics_served_elsewhere`); on the API's address only to the
//! bearer of the metrics token ([`scrape_with_token`]), everyone else getting the 404 of an
//! unknown path, so that the route's existence is not told either.
//!
//! A wrong token is a guess, and guesses are what the failure budgets are for: each one is
//! counted against the client address like a bad API key, and once the address's budget is
//! spent it gets the API's 429 here as on the API. So the budget that bounds key guesses
//! bounds token guesses too, and a guesser cannot switch between the two to get more. What
//! this tells a caller without the token is what the budget implies, no more: the 429 shows
//! only after the address has spent its budget, and then on `/api/v1` too. A request without
//! an `Authorization` header guesses nothing and is only the 404. The right token is admitted
//! even from a spent address (like a real key, which is still looked up there): a scraper
//! behind a guesser's NAT keeps working, and the token's 32 characters, not the budget, are
//! what keeps it secret.

use actix_web::http::header::{AUTHORIZATION, CACHE_CONTROL, CONTENT_TYPE, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};

use super::Snapshot;
use crate::ApiState;
use crate::auth::{bearer_token, throttled};
use crate::error::ApiError;
use crate::handlers::fallback;
use crate::operations::Operations;
use crate::rate_limit::client_address;

pub async fn scrape_with_token(
    request: HttpRequest,
    state: web::Data<ApiState>,
    operations: web::Data<Operations>,
) -> Result<HttpResponse, ApiError> {
    let Some(token) = operations.metrics_token() else {
        return fallback::unknown_route().await;
    };
    if !request.headers().contains_key(AUTHORIZATION) {
        return fallback::unknown_route().await;
    }
    if bearer_token(request.headers()).is_some_and(|presented| token.admits(presented)) {
        return Ok(scrape(state, operations).await);
    }
    let client = client_address(&request, &state);
    if let Err(throttle) = state.authenticator.count_unverified_failure(&client).await {
        return Err(throttled(&request, throttle));
    }
    fallback::unknown_route().await
}

/// The OpenMetrics text format; Prometheus asks for it in its `Accept` header.
const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

pub async fn scrape(state: web::Data<ApiState>, operations: web::Data<Operations>) -> HttpResponse {
    let snapshot = Snapshot {
        auth: state.authenticator.stats(),
        rate_limit_store_failures: state.rate_limiter.store_failures(),
        pool: operations.pool_stats(),
        connection_errors: crate::connection_errors::counts(),
        replicas: operations.replica_stats(),
    };
    HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, HeaderValue::from_static(OPENMETRICS)))
        .insert_header((CACHE_CONTROL, HeaderValue::from_static("no-store")))
        .body(operations.metrics().encode(snapshot))
}
