//! The operational side of a server: what its probes check and what its metrics read, and the
//! routes that expose them outside `/api/v1`, without an API key: `GET /healthz` (process
//! alive), `GET /readyz` (dependencies usable) and `GET /metrics`.
//!
//! `/metrics` tells how the service is used (routes, volumes, failed authentications), so it
//! is not served to anyone on the API's public address: only on an address of its own
//! (`serve_metrics`, a private interface), or on the API's address to the bearer of the
//! metrics token. Otherwise it is the 404 of an unknown path, whatever the method; a wrong
//! token also spends the address's failure budget (see `metrics::route`).
//!
//! They are not part of the public API: they are not in its OpenAPI document, are neither
//! authenticated nor rate-limited, and answer their own tiny JSON (or the metrics text)
//! rather than resources. Probes call them every few seconds, so they read nothing but what
//! they report.

use std::sync::Arc;

use actix_web::web;
use shop_ports::port::{HealthCheck, PoolMonitor, PoolStats, ReplicaMonitor, ReplicaStats};
use subtle::ConstantTimeEq;

use crate::handlers::{fallback, health};
use crate::metrics::{self, Metrics};
use crate::read_from::ReadRouting;
use crate::routes::read;

/// Cheap to clone; one per server, shared by its workers (and by a separate metrics server).
#[derive(Clone)]
pub struct Operations {
    readiness: Arc<[Arc<dyn HealthCheck>]>,
    pool: Option<Arc<dyn PoolMonitor>>,
    replicas: Option<Arc<dyn ReplicaMonitor>>,
    read_routing: Option<ReadRouting>,
    metrics: Arc<Metrics>,
    metrics_token: Option<MetricsToken>,
}

/// The bearer token that opens `/metrics` on the API's address.
#[derive(Clone)]
pub struct MetricsToken(Arc<str>);

/// A metrics token too short to be secret: it alone guards the metrics on the API's
/// address, which anyone can reach.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "METRICS_TOKEN must be at least {min} characters, and this one has {chars}: it alone keeps \
     the metrics from anyone who reaches the API's address, and a short token can be guessed \
     (make one with `openssl rand -hex 32`)",
    min = MetricsToken::MIN_CHARS
)]
pub struct MetricsTokenTooShort {
    pub chars: usize,
}

impl MetricsToken {
    /// 32 characters: 128 bits as hexadecimal, beyond any guessing even at the failure
    /// budget's pace.
    pub const MIN_CHARS: usize = 32;

    /// The token, trimmed; refused when shorter than [`Self::MIN_CHARS`] (an empty one
    /// included: it would open the metrics to everyone).
    pub fn new(token: &str) -> Result<Self, MetricsTokenTooShort> {
        let token = token.trim();
        let chars = token.chars().count();
        if chars < Self::MIN_CHARS {
            return Err(MetricsTokenTooShort { chars });
        }
        Ok(Self(token.into()))
    }

    /// Whether `presented` is the token, in time that does not tell how much of it matched.
    /// (A token of another length is refused at once: the length is no secret.)
    pub(crate) fn admits(&self, presented: &str) -> bool {
        self.0.as_bytes().ct_eq(presented.as_bytes()).into()
    }
}

impl std::fmt::Debug for MetricsToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MetricsToken(<redacted>)")
    }
}

impl Default for Operations {
    /// No dependency to check, no pool to watch, metrics not on the API's address.
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
            replicas: None,
            read_routing: None,
            metrics: Arc::new(Metrics::new()),
            metrics_token: None,
        }
    }

    /// The database's read replicas, for the metrics (their readiness lines are among the
    /// checks given to [`Operations::new`]).
    pub fn watching_replicas(mut self, replicas: Arc<dyn ReplicaMonitor>) -> Self {
        self.replicas = Some(replicas);
        self
    }

    /// Reads may go to the database's replicas, each key's after its last write
    /// (`read_from.rs`).
    pub fn routing_reads(mut self, routing: ReadRouting) -> Self {
        self.read_routing = Some(routing);
        self
    }

    pub(crate) fn read_routing(&self) -> Option<&ReadRouting> {
        self.read_routing.as_ref()
    }

    /// `/metrics` is served on its own address (see `server::serve_metrics`), never on the
    /// API's, whatever the token.
    pub fn metrics_served_elsewhere(mut self) -> Self {
        self.metrics_token = None;
        self
    }

    /// `/metrics` is served on the API's address to requests with `Authorization: Bearer
    /// <token>`; without it, or with another, it is an unknown path (404).
    pub fn metrics_for_token(mut self, token: MetricsToken) -> Self {
        self.metrics_token = Some(token);
        self
    }

    pub(crate) fn metrics_token(&self) -> Option<&MetricsToken> {
        self.metrics_token.as_ref()
    }

    pub(crate) fn readiness(&self) -> &[Arc<dyn HealthCheck>] {
        &self.readiness
    }

    pub(crate) fn pool_stats(&self) -> Option<PoolStats> {
        self.pool.as_ref().map(|pool| pool.pool_stats())
    }

    pub(crate) fn replica_stats(&self) -> Option<ReplicaStats> {
        self.replicas
            .as_ref()
            .map(|replicas| replicas.replica_stats())
    }

    pub(crate) fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// The probe routes, and `/metrics` for the token's bearer when there is a token.
    pub(crate) fn configure(&self, config: &mut web::ServiceConfig) {
        config
            .service(read("/healthz", health::live))
            .service(read("/readyz", health::ready));
        if self.metrics_token.is_some() {
            // Any other method than GET (and HEAD) gets what an unknown path gets, not actix's
            // 405, which would tell that the path exists.
            config.service(
                read("/metrics", metrics::scrape_with_token)
                    .default_service(web::to(fallback::unknown_route)),
            );
        }
    }
}

/// `GET /metrics` alone, to anyone who reaches it: the whole App of a separate, private
/// metrics address.
pub(crate) fn configure_metrics(config: &mut web::ServiceConfig) {
    config.service(read("/metrics", metrics::scrape));
}
