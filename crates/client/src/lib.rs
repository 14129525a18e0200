//! Typed async client of the shop API v1 (`/api/v1`), for Rust integrators.
//!
//! - One method per endpoint, returning typed models ([`Product`], [`Order`], [`Client`](models::Client),
//!   [`LoyaltySummary`], [`StockEntry`], ...); one page with `products(query)`, or every item
//!   of a list as a [`Stream`](futures::Stream) with `products_stream(query)` (following
//!   `nextCursor` until it is `null`).
//! - Incremental sync: `sync_orders(query, checkpoint)` (likewise products, clients, stock)
//!   is a [`SyncRun`]: the items changed since the [`Checkpoint`], a page at a time, then the
//!   checkpoint of the next run (the first page's `pageInfo.syncedAt`).
//! - `429 RATE_LIMITED` is waited out and retried, honouring `Retry-After` exactly, up to
//!   [`ClientBuilder::max_retries`] (3) times, then returned as [`ApiError::RateLimited`].
//!   `503` and transport errors (lost connection, timeout) are retried the same way, with
//!   exponential backoff when the server gives no `Retry-After`.
//! - Each stock adjustment carries an `Idempotency-Key` (a UUID v4, or yours) that its
//!   retries send again, so a retried adjustment is never applied twice.
//! - API v2's client writes: `create_client(&draft)` ([`ClientDraft`]) under an
//!   `Idempotency-Key` as adjustments are, and `update_client(id, &patch, if_match)`, a JSON
//!   Merge Patch ([`ClientPatch`], each member [`Patch::Keep`], [`Patch::Clear`] or
//!   [`Patch::Set`]) made conditional by the `ETag` every read and write hands back
//!   ([`Written::etag`]); a stale one is [`ApiError::PreconditionFailed`] with the current
//!   tag, and `modify_client(id, change)` is the read-modify-write loop around it.
//! - API v2's product writes, the same way: `create_product(&draft)` ([`ProductDraft`] with
//!   its [`VariantDraft`]s) and `add_variant(id, &draft)` under an `Idempotency-Key`,
//!   `update_product(id, &patch, if_match)` ([`ProductPatch`]) and
//!   `update_variant(id, variant_id, &patch, if_match)` ([`VariantPatch`], conditional on the
//!   PRODUCT's `ETag`: a variant has none of its own), and the loops `modify_product(id,
//!   change)` and `modify_variant(id, variant_id, change)`. Each answers the whole product.
//! - Every error of the API is an [`ApiError::Api`] with its [`ErrorCode`], message and
//!   validation `details`.
//! - Webhooks: [`verify_webhook`] checks a delivery's Standard Webhooks signature (several
//!   secrets and signatures, constant-time, a 5-minute timestamp tolerance) and reads its
//!   [`WebhookEvent`]; `examples/webhook_receiver.rs` is a receiver built on it.
//!
//! Instants are [`time::OffsetDateTime`] (the API sends RFC 3339 UTC with milliseconds), a
//! birth date is a [`time::Date`], money is integer cents (`i64`) and VAT rates are the API's
//! decimal strings (`"20.00"`).
//!
//! The crate chooses no TLS backend: for `https://` servers, enable one on your own `reqwest`
//! dependency (`reqwest = { version = "0.12", features = ["rustls-tls"] }`, which Cargo
//! merges with this crate's), or pass a configured client to [`ClientBuilder::http_client`].
//!
//! ```no_run
//! use futures::TryStreamExt;
//! use shop_api_client::{ApiError, Client, ErrorCode, ProductQuery};
//!
//! # async fn run() -> Result<(), ApiError> {
//! let client = Client::new("http://127.0.0.1:8080", "svc_live_0123abcd_...")?;
//! println!("connected to {}", client.me().await?.shop.name);
//!
//! // Every active product, 100 per request.
//! let query = ProductQuery { limit: Some(100), ..Default::default() };
//! let products: Vec<_> = client.products_stream(query).try_collect().await?;
//!
//! // Remove two from a variant's stock; safe to retry, applied once.
//! let outcome = client.adjust_stock("demo_var_001_0", -2, "Casse en rayon").await?;
//! println!("stock now {} (key {})", outcome.adjustment.new_stock, outcome.idempotency_key);
//!
//! match client.order("no-such-order").await {
//!     Err(ApiError::Api { code: ErrorCode::NotFound, .. }) => println!("no such order"),
//!     other => println!("{other:?}"),
//! }
//! # Ok(()) }
//! ```

mod client;
mod client_writes;
mod conditional;
mod error;
mod loyalty_points;
mod merge_patch;
pub mod models;
mod product_writes;
mod query;
mod retry;
mod sync;
mod v2_writes;
mod webhook;
mod webhook_endpoints;

pub use client::{Client, ClientBuilder, IDEMPOTENCY_KEY_HEADER, new_idempotency_key};
pub use client_writes::{BillingDraft, BillingPatch, ClientDraft, ClientPatch};
pub use conditional::Conditional;
pub use error::{ApiError, ErrorCode, FieldIssue};
pub use loyalty_points::{PointsAdjustment, PointsOutcome};
pub use merge_patch::Patch;
pub use models::{
    AdjustmentOutcome, LoyaltySummary, Me, Order, OrderItem, OrderSource, OrderStatus, Page,
    PageInfo, PaymentStatus, Product, StockAdjustment, StockEntry, Variant,
};
pub use product_writes::{ProductDraft, ProductPatch, Reference, VariantDraft, VariantPatch};
pub use query::{ActiveFilter, ClientQuery, DateBound, OrderQuery, ProductQuery, StockQuery};
pub use retry::{RetryEvent, RetryReason};
pub use sync::{Checkpoint, SyncRun};
pub use v2_writes::Written;
pub use webhook::{
    WEBHOOK_TOLERANCE, WebhookError, WebhookEvent, verify_webhook, verify_webhook_at,
};
pub use webhook_endpoints::{
    CreatedWebhookEndpoint, EventLogQuery, LoggedEvent, NewWebhookEndpoint, WebhookDelivery,
    WebhookEndpoint, WebhookEndpointChange,
};

#[cfg(test)]
mod tests;
