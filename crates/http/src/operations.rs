//! The operational side of a server: what its probes check and what its metrics read, and the
//! routes that expose them outside `/api/v1`, without authentication: `GET /healthz`
//! (process alive), `GET /readyz` (dependencies usable) and `GET /metrics`.
//!
//! They are not part of the public API: they are not in its OpenAPI document, are neither
//! authenticated nor rate-limited, and answer their own tiny JSON (or the metrics text)
//! rather than resources. Probes call them every few seconds, so they read nothing but what
//! they report.

use std::sync::Arc;

use actix_web::web;
use shop_ports::port::{HealthCheck, PoolMonitor, PoolStats};

use crate::handlers::health;
use crate::metrics::{self, Metrics};
use crate::routes::read;

/// Cheap to clone; one per server, shared by its workers (and by a separate metrics server).
#[derive(Clone)]
pub struct Operations {
    readiness: Arc<[Arc<dyn HealthCheck>]>,
    pool: Option<Arc<dyn PoolMonitor>>,
    metrics: Arc<Metrics>,
    metrics_on_api: bool,
}

impl Default for Operations {
    /// No dependency to check, no pool to watch, metrics on the API's address.
    fn default() -> Self {
        Self::new(Vec::new(), None)
    }
}

impl Operations {
    /// `readiness`: what `/readyz` checks, in this order; `pool`: what the pool metrics read.
    pub fn new(readiness: Vec<Arc<dyn HealthCheck>>, pool: Option<Arc<dyn PoolMonitor>>) -> Self {
        Self {
            readiness: readiness.into(),
            pool,
            metrics: Arc::new(Metrics::new()),
            metrics_on_api: true,
        }
    }

    /// `/metrics` is not served on the API's address (see `server::serve_metrics`).
    pub fn metrics_served_elsewhere(mut self) -> Self {
        self.metrics_on_api = false;
        self
    }

    pub(crate) fn readiness(&self) -> &[Arc<dyn HealthCheck>] {
        &self.readiness
    }

    pub(crate) fn pool_stats(&self) -> Option<PoolStats> {
        self.pool.as_ref().map(|pool| pool.pool_stats())
    }

    pub(crate) fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// The probe routes, and `/metrics` unless it is served elsewhere.
    pub(crate) fn configure(&self, config: &mut web::ServiceConfig) {
        config
            .service(read("/healthz", health::live))
            .service(read("/readyz", health::ready));
        if self.metrics_on_api {
            configure_metrics(config);
        }
    }
}

/// `GET /metrics` alone: the whole App of a separate metrics address.
pub(crate) fn configure_metrics(config: &mut web::ServiceConfig) {
    config.service(read("/metrics", metrics::scrape));
}
