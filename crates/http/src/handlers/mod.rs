//! One async function per endpoint. Each follows the contract's order: authenticate for its
//! operation, parse the query (and a write's body), call the use case, convert to a DTO. Its
//! `#[utoipa::path]` names its parameters (`params`) and its responses (`responses`), which
//! `crate::openapi` gathers into the document.

pub mod clients;
pub mod events;
pub mod fallback;
pub mod health;
pub(crate) mod idempotency;
pub mod loyalty;
pub mod me;
pub mod orders;
pub(crate) mod params;
pub mod product_writes;
pub mod products;
pub(crate) mod responses;
pub mod stock;
pub mod webhooks;
pub(crate) mod write_request;
