//! Benchmark seeding, out of the production crates: what `shop-api seed` writes and how.
//!
//! - `generator`: the plan's rows, made deterministically from a seed ([`SeedPlan`],
//!   [`Generator`], and [`spawn`], which makes them on a thread of their own);
//! - [`SeedShop`]: the use case that finds or creates the shop, refuses one that holds data,
//!   and writes the batches in order through the [`BulkLoader`] port;
//! - [`BulkLoader`]: the port, implemented on diesel by `shop-persistence` under its `seed`
//!   feature, which only `shop-app` turns on.
//!
//! **Invariant:** this crate knows no database or HTTP framework (the dependency check proves
//! it), and no production crate depends on it: `shop-app` calls it for the `seed` command.

mod bulk_loader;
mod generator;
mod seed_shop;

pub use bulk_loader::{BulkBatch, BulkLoader};
pub use generator::{
    EPOCH, GeneratedBatches, Generator, GeneratorError, InvalidPlan, MAX_CLIENTS, MAX_ORDERS,
    MAX_PRODUCTS, MAX_SLUG_LEN, SeedPlan, spawn,
};
pub use seed_shop::{
    BatchSource, SeedCounts, SeedError, SeedShop, seeded_shop_id, seeded_shop_name,
};
