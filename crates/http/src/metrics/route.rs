//! `GET /metrics`: the exposition. On a separate, private address to anyone
//! ([`scrape`], `Operations::metrics_served_elsewhere`); on the API's address only to the
//! bearer of the metrics token ([`scrape_with_token`]), everyone else getting the 404 of an
//! unknown path, so that the route's existence is not told either.

use actix_web::http::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};

use super::Snapshot;
use crate::ApiState;
use crate::auth::bearer_token;
use crate::error::ApiError;
use crate::handlers::fallback;
use crate::operations::Operations;

pub async fn scrape_with_token(
    request: HttpRequest,
    state: web::Data<ApiState>,
    operations: web::Data<Operations>,
) -> Result<HttpResponse, ApiError> {
    let admitted = match (operations.metrics_token(), bearer_token(request.headers())) {
        (Some(token), Some(presented)) => token.admits(presented),
        _ => false,
    };
    if admitted {
        Ok(scrape(state, operations).await)
    } else {
        fallback::unknown_route().await
    }
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
