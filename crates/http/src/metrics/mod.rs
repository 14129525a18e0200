//! The service's Prometheus metrics, on `prometheus-client` (the Prometheus project's own Rust
//! client): one registry per server, no global state, so that servers started side by side
//! in one process (the tests) count apart.
//!
//! Two kinds of values:
//! - counted here, per request, by the `observe` middleware: requests by route template,
//!   method and status; their latency; rate-limit refusals by budget; authentication
//!   failures by cause;
//! - read at each scrape from their owners (see [`snapshot`]): the authenticator's argon2
//!   runs and cache hits, the rate limiter's store failures, the connection pool.
//!
//! Labels are bounded: a route is its template (`/api/v1/products/{id}`), never the raw
//! path, and every unmatched path is one `unmatched` route; a method outside the standard
//! set is `other`. The exposition is the OpenMetrics text format, which Prometheus scrapes
//! natively.

mod route;
mod snapshot;

use std::time::Duration;

use actix_web::http::{Method, StatusCode};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::encoding::text::{encode_eof, encode_registry};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};

pub use route::{scrape, scrape_with_token};
pub use snapshot::Snapshot;

use crate::auth::AuthFailure;

/// Every metric name starts with it: `shop_http_requests_total`, ...
const PREFIX: &str = "shop";

/// The route label of requests that matched no route (404s of unknown paths).
pub const UNMATCHED_ROUTE: &str = "unmatched";

/// Latency buckets in seconds, from a cached read (about 1 ms) to the pool's wait timeout and
/// PostgreSQL's statement timeout (3 and 10 s).
const LATENCY_BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 3.0, 10.0,
];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: &'static str,
    route: String,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    method: &'static str,
    route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct BudgetLabels {
    budget: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CauseLabels {
    cause: &'static str,
}

type LatencyFamily = Family<RouteLabels, Histogram, fn() -> Histogram>;

/// What the `observe` middleware learnt about one finished request.
#[derive(Clone, Debug)]
pub struct Observation<'a> {
    pub method: &'a Method,
    /// The matched route's template; `None` when no route matched.
    pub route: Option<&'a str>,
    pub status: StatusCode,
    pub elapsed: Duration,
    /// For a 429, the budget that refused it: `reads`, `writes`, `auth_failures` (a client's),
    /// `key_failures` (a key's, from every address), `verification_queue` or `lookup_pace` (the
    /// paced lookups of a client over its failure budget).
    pub refused_by: Option<&'static str>,
    pub auth_failure: Option<AuthFailure>,
}

/// The registry and the families counted per request. Shared by every worker of a server.
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: LatencyFamily,
    rate_limit_refusals: Family<BudgetLabels, Counter>,
    auth_failures: Family<CauseLabels, Counter>,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix(PREFIX);
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "http_requests",
            "HTTP requests answered, by method, route template and status",
            requests.clone(),
        );
        let latency: LatencyFamily =
            Family::new_with_constructor(|| Histogram::new(LATENCY_BUCKETS));
        registry.register_with_unit(
            "http_request_duration",
            "Time from the request's head to its response's head, by method and route template",
            Unit::Seconds,
            latency.clone(),
        );
        let rate_limit_refusals = Family::<BudgetLabels, Counter>::default();
        registry.register(
            "rate_limit_refusals",
            "Requests refused with 429, by budget (reads, writes, auth_failures, key_failures, \
             verification_queue, lookup_pace)",
            rate_limit_refusals.clone(),
        );
        let auth_failures = Family::<CauseLabels, Counter>::default();
        registry.register(
            "auth_failures",
            "Requests refused with 401, by cause (the response is the same for all)",
            auth_failures.clone(),
        );
        Self {
            registry,
            requests,
            latency,
            rate_limit_refusals,
            auth_failures,
        }
    }

    pub fn observe(&self, observation: &Observation<'_>) {
        let method = method_label(observation.method);
        let route = observation.route.unwrap_or(UNMATCHED_ROUTE).to_owned();
        self.latency
            .get_or_create(&RouteLabels {
                method,
                route: route.clone(),
            })
            .observe(observation.elapsed.as_secs_f64());
        self.requests
            .get_or_create(&RequestLabels {
                method,
                route,
                status: observation.status.as_u16(),
            })
            .inc();
        if let Some(budget) = observation.refused_by {
            self.rate_limit_refusals
                .get_or_create(&BudgetLabels { budget })
                .inc();
        }
        if let Some(failure) = observation.auth_failure {
            self.auth_failures
                .get_or_create(&CauseLabels {
                    cause: failure.as_str(),
                })
                .inc();
        }
    }

    /// The exposition: the families counted here, then `snapshot`'s values.
    pub fn encode(&self, snapshot: Snapshot) -> String {
        let mut scraped = Registry::with_prefix(PREFIX);
        scraped.register_collector(Box::new(snapshot));
        let mut text = String::new();
        // Writing into a String cannot fail; an encoder error would be a bug of the crate.
        let written = encode_registry(&mut text, &self.registry)
            .and_then(|()| encode_registry(&mut text, &scraped))
            .and_then(|()| encode_eof(&mut text));
        if let Err(error) = written {
            tracing::error!(%error, "metrics could not be encoded");
        }
        text
    }
}

/// The standard methods by name; anything else (any token is a valid method) is `other`.
fn method_label(method: &Method) -> &'static str {
    match method.as_str() {
        "GET" => "GET",
        "HEAD" => "HEAD",
        "POST" => "POST",
        "PUT" => "PUT",
        "PATCH" => "PATCH",
        "DELETE" => "DELETE",
        "OPTIONS" => "OPTIONS",
        "CONNECT" => "CONNECT",
        "TRACE" => "TRACE",
        _ => "other",
    }
}

#[cfg(test)]
mod tests;
