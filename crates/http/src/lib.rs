//! The HTTP delivery of the shop API on actix-web: v1 (`/api/v1`, frozen) and v2 (`/api/v2`:
//! every v1 operation unchanged, and what v2 adds; see `api_version`).
//!
//! **Architecture invariants**
//! - This is the only crate that knows HTTP. Handlers parse requests into domain values, call a
//!   use case of `shop-ports`, and convert the result into a response DTO by hand: no domain or
//!   database type is ever serialized, so a field can only reach a client through a DTO here.
//! - Every response body of the API is JSON, and every error goes through `error::ApiError`,
//!   the one place where failures become the spec's envelope
//!   `{"error": {"code", "message", "details"?}}`. The only other bodies are the files of the
//!   docs page (`openapi`, under `/docs/`) and the operational routes outside `/api/v1`
//!   (`operations`: the probes' own small JSON, including `/readyz`'s 503, and `/metrics`).
//! - The OpenAPI documents (`openapi`, served at `/api/v1/openapi.json` and
//!   `/api/v2/openapi.json`, committed as `docs/openapi.json` and `docs/openapi-v2.json`) are
//!   generated from the handlers' `#[utoipa::path]` attributes and the
//!   DTOs' `ToSchema`; a test fails when a committed copy differs.
//!   Error responses that actix produces itself (wrong method, oversized body, extractor
//!   errors) and panics are rewritten into the same envelope by the `middleware` module.
//! - Order of checks, per request: authentication (401, or 429 first when the client address
//!   has failed too often), the key's rate limit (429), the shop's plan, its subscription and
//!   the key's scope (403), query validation (400), then the lookup (404): 401 -> 429 -> 403 ->
//!   400 -> 404. Handlers therefore authenticate before they look at the query string, and the
//!   writes (`POST /stock/adjustments`, v2's webhook endpoints) before they read a byte of their
//!   body. Every request with a valid key is counted whatever its outcome, and its response
//!   carries the budget's headers (see `auth` and `rate_limit`).

use std::sync::Arc;

use shop_domain::client_address::TrustedProxies;
use shop_ports::usecase::webhooks::{WebhookEndpoints, WebhookEvents};
use shop_ports::usecase::{
    Authenticator, ClientDirectory, ClientEditor, LoyaltyOverview, OrderHistory, PointsKeeper,
    ProductCatalogue, ProductEditor, RateLimiter, StockKeeper,
};

mod api_version;
mod auth;
mod body;
pub mod connection;
pub mod connection_errors;
mod dto;
mod error;
mod etag;
mod handlers;
mod metrics;
mod middleware;
mod mount;
mod openapi;
mod operations;
mod path_id;
mod query;
mod rate_limit;
mod read_from;
mod routes;
mod server;

pub use dto::event::EventBodies;
pub use mount::Mount;
pub use openapi::{openapi_json, openapi_v2_json};
pub use operations::{MetricsToken, MetricsTokenTooShort, Operations};
pub use read_from::ReadRouting;
pub use server::{ServerOptions, serve, serve_app, serve_metrics};

/// The use cases the handlers call; cloned into every actix worker.
#[derive(Clone)]
pub struct ApiState {
    pub authenticator: Arc<Authenticator>,
    pub catalogue: Arc<ProductCatalogue>,
    pub orders: Arc<OrderHistory>,
    pub clients: Arc<ClientDirectory>,
    pub loyalty: Arc<LoyaltyOverview>,
    pub stock: Arc<StockKeeper>,
    /// API v2: adjustments of clients' points.
    pub points: Arc<PointsKeeper>,
    /// API v2: an integration's creates and patches of clients.
    pub client_writes: Arc<ClientEditor>,
    /// API v2: an integration's creates and patches of products and their variants.
    pub product_writes: Arc<ProductEditor>,
    /// API v2: the shop's webhook endpoints, and its event log.
    pub webhook_endpoints: Arc<WebhookEndpoints>,
    pub webhook_events: Arc<WebhookEvents>,
    /// The per-key read and write budgets, applied by every handler's authentication step.
    pub rate_limiter: Arc<RateLimiter>,
    /// The proxies whose forwarding headers name the client (`TRUSTED_PROXIES`).
    pub trusted_proxies: TrustedProxies,
}

#[cfg(test)]
mod tests;
