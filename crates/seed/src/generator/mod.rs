//! The generator: a deterministic synthetic shop at scale, for benchmarks and load tests.
//!
//! The same plan and seed make the same rows, byte for byte: every value, timestamps included,
//! is drawn from a seeded ChaCha8 stream (one per kind of row) or derived from the fixed
//! [`EPOCH`], never from the clock. Ids are derived from the slug and an index (see `ids.rs`).
//! Rows are made on a thread of their own and handed over in batches through a small channel,
//! so that the next batch is made while the previous one is written.

mod catalogue;
mod clients;
mod ids;
mod orders;
mod random;
mod vocabulary;

#[cfg(test)]
mod tests;

use std::fmt;
use std::thread::JoinHandle;

use shop_domain::Timestamp;
use shop_domain::shop::ShopSlug;
use tokio::sync::mpsc;

use self::catalogue::{CatalogueEntry, ProductMaker};
use self::clients::ClientMaker;
use self::ids::SeedIds;
pub use self::ids::{MAX_CLIENTS, MAX_ORDERS, MAX_PRODUCTS, MAX_SLUG_LEN};
use self::orders::OrderMaker;
use self::random::{Draw, Stream, Timeline};
use crate::bulk_loader::BulkBatch;
use crate::seed_shop::BatchSource;

/// The instant seeded data are "as of": 2026-11-01T00:00:00Z. Orders span the two years
/// before it, products and clients the three years before it.
pub const EPOCH: Timestamp = Timestamp::from_millis(1_793_491_200_000);

const DAY_MILLIS: i64 = 86_400_000;
const YEAR_MILLIS: i64 = 365 * DAY_MILLIS;

/// Rows per batch, each written in one transaction: some tens of thousands of rows with the
/// variants and items they carry.
const PRODUCTS_PER_BATCH: usize = 4_000;
const CLIENTS_PER_BATCH: usize = 10_000;
const ORDERS_PER_BATCH: usize = 8_000;
/// Batches made ahead of the writer: enough to keep it busy, few enough to bound memory.
const BATCHES_AHEAD: usize = 2;

/// What to seed: how many of each, into which shop, from which seed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedPlan {
    pub slug: ShopSlug,
    pub products: usize,
    pub clients: usize,
    pub orders: usize,
    pub seed: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidPlan {
    #[error("a seeded shop's slug has at most {MAX_SLUG_LEN} characters, so that its ids fit")]
    SlugTooLong,
    #[error("at most {max} {what} can be seeded")]
    TooMany { what: &'static str, max: usize },
    #[error("orders need products to sell: give --products 1 or more")]
    OrdersWithoutProducts,
}

impl SeedPlan {
    pub fn new(
        slug: ShopSlug,
        products: usize,
        clients: usize,
        orders: usize,
        seed: u64,
    ) -> Result<Self, InvalidPlan> {
        if slug.as_str().len() > MAX_SLUG_LEN {
            return Err(InvalidPlan::SlugTooLong);
        }
        for (what, count, max) in [
            ("products", products, MAX_PRODUCTS),
            ("clients", clients, MAX_CLIENTS),
            ("orders", orders, MAX_ORDERS),
        ] {
            if count > max {
                return Err(InvalidPlan::TooMany { what, max });
            }
        }
        if orders > 0 && products == 0 {
            return Err(InvalidPlan::OrdersWithoutProducts);
        }
        Ok(Self {
            slug,
            products,
            clients,
            orders,
            seed,
        })
    }
}

/// A value the generator made that the domain refuses: a bug in the generator.
#[derive(Debug, thiserror::Error)]
#[error("the seed generator made an invalid value (a bug): {0}")]
pub struct GeneratorError(String);

/// The domain's verdict on a generated value.
fn checked<T, E: fmt::Display>(parsed: Result<T, E>) -> Result<T, GeneratorError> {
    parsed.map_err(|error| GeneratorError(error.to_string()))
}

#[derive(Clone, Copy, Debug)]
enum Phase {
    Reference,
    Products(usize),
    Clients(usize),
    Orders(usize),
    Done,
}

/// The plan's rows, batch by batch, parents before the rows that refer to them: tiers,
/// categories and brands; products with their variants; clients; orders with their items and
/// the tickets and spins they gave.
pub struct Generator {
    plan: SeedPlan,
    ids: SeedIds,
    phase: Phase,
    products: ProductMaker,
    clients: ClientMaker,
    orders: OrderMaker,
    catalogue_draw: Draw,
    client_draw: Draw,
    order_draw: Draw,
    /// What orders need of every product made so far.
    catalogue: Vec<CatalogueEntry>,
}

impl Generator {
    pub fn new(plan: SeedPlan) -> Self {
        let ids = SeedIds::new(&plan.slug);
        let before = |millis: i64| EPOCH.plus_millis(-millis);
        let product_times = Timeline {
            from: before(3 * YEAR_MILLIS),
            to: before(30 * DAY_MILLIS),
            count: plan.products,
        };
        let client_times = Timeline {
            from: before(3 * YEAR_MILLIS),
            to: before(DAY_MILLIS),
            count: plan.clients,
        };
        let order_times = Timeline {
            from: before(2 * YEAR_MILLIS),
            to: EPOCH,
            count: plan.orders,
        };
        Self {
            products: ProductMaker::new(ids.clone(), plan.slug.as_str(), product_times, EPOCH),
            clients: ClientMaker::new(ids.clone(), client_times, EPOCH),
            orders: OrderMaker::new(ids.clone(), order_times, product_times, client_times, EPOCH),
            catalogue_draw: Draw::new(plan.seed, Stream::Catalogue),
            client_draw: Draw::new(plan.seed, Stream::Clients),
            order_draw: Draw::new(plan.seed, Stream::Orders),
            catalogue: Vec::with_capacity(plan.products),
            phase: Phase::Reference,
            ids,
            plan,
        }
    }

    /// The next batch, or `None` when the plan is complete.
    pub fn next_batch(&mut self) -> Result<Option<BulkBatch>, GeneratorError> {
        loop {
            match self.phase {
                Phase::Reference => {
                    self.phase = Phase::Products(0);
                    return Ok(Some(BulkBatch {
                        tiers: catalogue::tiers(&self.ids)?,
                        categories: catalogue::categories(&self.ids)?,
                        brands: catalogue::brands(&self.ids)?,
                        ..BulkBatch::default()
                    }));
                }
                Phase::Products(start) if start < self.plan.products => {
                    let end = (start + PRODUCTS_PER_BATCH).min(self.plan.products);
                    let mut products = Vec::with_capacity(end - start);
                    for i in start..end {
                        let product = self.products.product(i, &mut self.catalogue_draw)?;
                        self.catalogue.push(CatalogueEntry::of(&product));
                        products.push(product);
                    }
                    self.phase = Phase::Products(end);
                    return Ok(Some(BulkBatch {
                        products,
                        ..BulkBatch::default()
                    }));
                }
                Phase::Products(_) => self.phase = Phase::Clients(0),
                Phase::Clients(start) if start < self.plan.clients => {
                    let end = (start + CLIENTS_PER_BATCH).min(self.plan.clients);
                    let clients = (start..end)
                        .map(|i| self.clients.client(i, &mut self.client_draw))
                        .collect::<Result<_, _>>()?;
                    self.phase = Phase::Clients(end);
                    return Ok(Some(BulkBatch {
                        clients,
                        ..BulkBatch::default()
                    }));
                }
                Phase::Clients(_) => self.phase = Phase::Orders(0),
                Phase::Orders(start) if start < self.plan.orders => {
                    let end = (start + ORDERS_PER_BATCH).min(self.plan.orders);
                    let mut batch = BulkBatch::default();
                    for i in start..end {
                        let sale = self.orders.sale(i, &self.catalogue, &mut self.order_draw)?;
                        batch.orders.push(sale.order);
                        batch.lottery_tickets.extend(sale.tickets);
                        batch.spins.extend(sale.spins);
                    }
                    self.phase = Phase::Orders(end);
                    return Ok(Some(batch));
                }
                Phase::Orders(_) => self.phase = Phase::Done,
                Phase::Done => return Ok(None),
            }
        }
    }
}

impl Iterator for Generator {
    type Item = Result<BulkBatch, GeneratorError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch().transpose()
    }
}

/// The plan's batches, made on a thread of their own ahead of the writer.
pub struct GeneratedBatches {
    receiver: mpsc::Receiver<BulkBatch>,
    thread: JoinHandle<Result<(), GeneratorError>>,
}

/// Starts making the plan's batches, at most `BATCHES_AHEAD` ahead of the writer.
pub fn spawn(plan: SeedPlan) -> GeneratedBatches {
    let (sender, receiver) = mpsc::channel(BATCHES_AHEAD);
    let thread = std::thread::spawn(move || {
        for batch in Generator::new(plan) {
            if sender.blocking_send(batch?).is_err() {
                // The writer stopped (it failed): nothing more is wanted.
                break;
            }
        }
        Ok(())
    });
    GeneratedBatches { receiver, thread }
}

impl GeneratedBatches {
    /// Stops the generator if it is still running, and says whether it failed: a failed
    /// generator ends its batches early, which must not pass for a complete data set.
    pub fn finish(self) -> Result<(), GeneratorError> {
        drop(self.receiver);
        self.thread
            .join()
            .unwrap_or_else(|_| Err(GeneratorError("its thread panicked".to_owned())))
    }
}

impl BatchSource for GeneratedBatches {
    async fn next_batch(&mut self) -> Option<BulkBatch> {
        self.receiver.recv().await
    }
}
