//! diesel-async adapters implementing the `shop-ports` stores on SQLite and PostgreSQL.
//!
//! One [`Database`] handle serves both backends: a pool enum (`database/`). A query that is
//! the same on both is written once and type-checked once per backend (`database/macros.rs`);
//! where the backends read best in different forms (a products or orders page), each has its
//! own file (`catalogue/postgres.rs`, `catalogue/sqlite.rs`, `orders/…`). Where an API read
//! runs is one plain method per backend (`database/read.rs`). Schema migrations are embedded
//! and applied by [`Database::open`].
//!
//! The folders, by concept: `catalogue/` (products, variants, search), `orders/`, `clients/`
//! (with loyalty), `stock/` (stock, adjustments, tracking, activity), `accounts/` (shops, API
//! keys, owners, sessions, the device secret), `import/`, `database/` (the pools, opening,
//! migrations, health, replicas, the reads' and writes' rules), `sql/` (the SQL building
//! blocks the reads share), `rows/` (rows and their conversion to domain values), `seed/`
//! (the bulk loader, only with the `seed` feature); `schema.rs` is diesel's.
//!
//! **Invariants:** every query is scoped by `shop_id`, except the import's ownership check,
//! which reads only which shop an id belongs to, idempotency records, which are keyed by
//! the API key that made them (a key belongs to one shop), and the lookups that find the shop
//! itself: a key by its prefix, an owner by e-mail, a session by its digest (each read with
//! its shop), and the console's signing secret, which belongs to no shop; timestamps are
//! epoch milliseconds set by the application; rows never leave this crate (they are converted to domain values here, and a
//! value the domain refuses is a `StoreError::Failure`); database errors become `StoreError`s
//! in one place (`error.rs`); confidential columns (an order's signatures and internal note, a
//! client's private note) have row types of their own that only the import reads, so no API
//! read can select them.

mod accounts;
mod api_writes;
mod catalogue;
mod clients;
mod database;
mod error;
mod import;
mod orders;
mod rows;
mod schema;
#[cfg(feature = "seed")]
mod seed;
mod sql;
mod stock;
mod webhooks;
mod write_log;

pub use database::MAX_REPLICAS;
pub use database::{ConnectError, Database, DatabaseUrl, PoolOptions, ReplicaOptions};
pub use webhooks::Outbox;

#[cfg(test)]
mod tests;
