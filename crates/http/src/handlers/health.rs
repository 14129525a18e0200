//! `GET /healthz` and `GET /readyz`: the probes of an orchestrator or a load balancer.
//!
//! - `/healthz` answers 200 as long as the process serves HTTP at all: restart it otherwise.
//! - `/readyz` checks every dependency at once, each within [`CHECK_DEADLINE`]: 200 when the
//!   required ones answer, 503 when one does not (take the instance out of rotation; it comes
//!   back by itself when the dependency does). Each check's outcome is listed by name:
//!   `{"status":"ready","checks":{"database":"ok","redis":"ok"}}`, or
//!   `{"status":"unavailable","checks":{"database":"unreachable"}}`. A dependency that is not
//!   required (Redis, which the rate limits fall back from) is listed but never makes the
//!   instance unready: a cache outage must not take every instance out at once.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use actix_web::http::header::{CACHE_CONTROL, HeaderValue};
use actix_web::{HttpResponse, HttpResponseBuilder, web};
use futures::future::join_all;
use serde::Serialize;
use shop_ports::port::HealthCheck;

use crate::error::error_chain;
use crate::middleware::envelope::OwnBody;
use crate::operations::Operations;

/// How long a readiness check may take before it counts as unreachable. Probes usually time
/// out after 1 to 5 s; the database check is also bounded by the pool's wait timeout.
pub const CHECK_DEADLINE: Duration = Duration::from_secs(2);

const OK: &str = "ok";
const TIMED_OUT: &str = "unreachable";

#[derive(Serialize)]
struct Liveness {
    status: &'static str,
}

#[derive(Serialize)]
struct Readiness {
    status: &'static str,
    checks: BTreeMap<&'static str, &'static str>,
}

pub async fn live() -> HttpResponse {
    no_store(&mut HttpResponse::Ok()).json(Liveness { status: "alive" })
}

pub async fn ready(operations: web::Data<Operations>) -> HttpResponse {
    let outcomes = join_all(operations.readiness().iter().map(run)).await;
    let ready = outcomes
        .iter()
        .all(|(check, outcome)| *outcome == OK || !check.required());
    let checks = outcomes
        .iter()
        .map(|(check, outcome)| (check.name(), *outcome))
        .collect();
    let (mut builder, status) = if ready {
        (HttpResponse::Ok(), "ready")
    } else {
        (HttpResponse::ServiceUnavailable(), "unavailable")
    };
    let mut response = no_store(&mut builder).json(Readiness { status, checks });
    // The 503 is the report itself, not an error of the API.
    response.extensions_mut().insert(OwnBody);
    response
}

/// One check within the deadline: `ok` or the reason it failed, logged with its cause.
async fn run(check: &Arc<dyn HealthCheck>) -> (&Arc<dyn HealthCheck>, &'static str) {
    let outcome = match actix_web::rt::time::timeout(CHECK_DEADLINE, check.check()).await {
        Ok(Ok(())) => OK,
        Ok(Err(unhealthy)) => {
            tracing::warn!(
                dependency = check.name(),
                cause = error_chain(&unhealthy),
                "readiness check failed"
            );
            unhealthy.reason()
        }
        Err(_elapsed) => {
            tracing::warn!(
                dependency = check.name(),
                deadline_ms = CHECK_DEADLINE.as_millis(),
                "readiness check timed out"
            );
            TIMED_OUT
        }
    };
    (check, outcome)
}

/// Probe answers describe this instant: no cache may keep them.
fn no_store(response: &mut HttpResponseBuilder) -> &mut HttpResponseBuilder {
    response.insert_header((CACHE_CONTROL, HeaderValue::from_static("no-store")))
}

#[cfg(test)]
mod tests;
