//! The shop owners' web console: the account area of spec §1 and §5 where an owner creates,
//! sees and revokes the shop's API keys, follows the stock changes integrations make and what
//! they write through the API (issue 35), switches a variant's stock tracking (spec §3), and
//! adds, tests, disables and deletes the shop's webhook endpoints and follows their deliveries
//! (issue 34).
//!
//! A second delivery adapter beside `shop-http`, on the same use cases (`OwnerSessions`,
//! `KeyAdmin`, `StockKeeper`, `ApiWriteHistory`, `WebhookEndpoints`) and served by the same
//! server under `/console`: server-rendered HTML from askama templates checked at compile
//! time, one stylesheet and one small script, all compiled into the binary.
//!
//! **Invariants**
//! - No rule lives in a handler or a template: pages parse the form into domain values, call
//!   a use case and render its answer.
//! - One guard decides "signed in" (`guard::require_session`, the middleware of the route
//!   table's signed-in part, which hands handlers their `guard::SignedInOwner`) and one
//!   decides whether a state-changing request may go on (`guard::CheckedForm`: a same-origin
//!   request with the session's anti-CSRF token); handlers only ask for them.
//! - Every URL is written once, in `urls.rs`, for the route table, the redirects and the
//!   templates alike.
//! - One error page (`error::ConsoleError`) for every failure, a handler's panic included;
//!   it never shows a cause.
//! - Every response carries the console's security headers (`headers.rs`): no inline script,
//!   no framing, no sniffing, no referrer beyond the console itself, `Cache-Control:
//!   no-store` on pages, and HSTS when `PUBLIC_URL` is `https`.
//! - An owner reaches only their own shop: every use case is called with the shop of the
//!   signed-in owner, and another shop's key or variant is as unknown as a missing one.

use std::sync::Arc;
use std::time::Duration;

use shop_domain::client_address::TrustedProxies;
use shop_ports::usecase::webhooks::WebhookEndpoints;
use shop_ports::usecase::{ApiWriteHistory, KeyAdmin, OwnerSessions, StockKeeper};

mod assets;
mod cookies;
mod device_cookie;
mod error;
mod form;
mod guard;
mod headers;
mod origin;
mod pages;
mod public_url;
mod routes;
mod scopes;
mod urls;
mod view;

pub use public_url::{ConsoleExposure, ExposureError, PublicUrl, PublicUrlError};
pub use routes::configure;
pub use urls::{LOGIN as LOGIN_PATH, PREFIX};

/// What the console's pages call; shared by every worker.
#[derive(Clone)]
pub struct ConsoleState {
    pub sessions: Arc<OwnerSessions>,
    pub keys: Arc<KeyAdmin>,
    pub stock: Arc<StockKeeper>,
    /// The API writes page: what the shop's keys wrote (clients, products, points).
    pub api_writes: Arc<ApiWriteHistory>,
    /// The Webhooks page: the shop's endpoints, their deliveries, tests and recoveries.
    pub webhooks: Arc<WebhookEndpoints>,
    pub settings: ConsoleSettings,
}

#[derive(Clone, Debug)]
pub struct ConsoleSettings {
    /// `PUBLIC_URL`, if the operator gave it: over `https`, `__Host-` `Secure` cookies and
    /// HSTS; with any scheme, the one origin whose forms are accepted.
    pub public_url: Option<PublicUrl>,
    /// The proxies whose forwarding headers name the client whose failed sign-ins count.
    pub trusted_proxies: TrustedProxies,
    /// A form's body must arrive within this once its handler reads it (408 beyond), as the
    /// API's JSON bodies must: a client trickling a body holds no connection for long.
    pub body_timeout: Duration,
}

impl ConsoleSettings {
    /// Whether owners reach the console over TLS, as `PUBLIC_URL` says.
    pub fn https(&self) -> bool {
        self.public_url.as_ref().is_some_and(PublicUrl::is_https)
    }
}

#[cfg(test)]
mod tests;
