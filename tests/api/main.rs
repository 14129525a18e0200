//! The black-box suite: every test starts the real server on a fresh database and talks HTTP
//! to it, on SQLite and (when `TEST_DATABASE_URL` is set) on PostgreSQL.

// Scenarios are plain async fns called by generated #[test]s: unwrap is their assertion.
#![expect(clippy::unwrap_used, reason = "a failed unwrap is a failed test")]

mod support;

mod auth;
mod auth_budgets;
mod client;
mod client_writes;
mod client_writes_sdk;
mod clients;
mod conditional_reads;
mod console;
mod console_browser;
mod console_browser_api_writes;
mod console_public_url;
mod console_tls_proxy;
mod cross_shop_probe;
mod errors;
mod fixtures;
mod loyalty;
mod loyalty_points;
mod me;
mod observability;
mod orders;
mod product_writes;
mod product_writes_sdk;
mod products;
mod products_paging;
mod rate_limits;
mod replicas;
mod stock_adjustments;
mod stock_bounds;
mod stock_concurrency;
mod stock_list;
mod sync;
mod v2;
mod webhooks;
