//! `GET /metrics`: the exposition, without authentication. Serve it on a separate, private
//! address (`Operations::metrics_served_elsewhere`) when the API's address is public.

use actix_web::http::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderValue};
use actix_web::{HttpResponse, web};

use super::Snapshot;
use crate::ApiState;
use crate::operations::Operations;

/// The OpenMetrics text format; Prometheus asks for it in its `Accept` header.
const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

pub async fn scrape(state: web::Data<ApiState>, operations: web::Data<Operations>) -> HttpResponse {
    let snapshot = Snapshot {
        auth: state.authenticator.stats(),
        rate_limit_store_failures: state.rate_limiter.store_failures(),
        pool: operations.pool_stats(),
    };
    HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, HeaderValue::from_static(OPENMETRICS)))
        .insert_header((CACHE_CONTROL, HeaderValue::from_static("no-store")))
        .body(operations.metrics().encode(snapshot))
}
