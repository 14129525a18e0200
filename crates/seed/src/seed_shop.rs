//! `SeedShop`: loading a large synthetic data set into an empty shop.
//!
//! The data come from a [`BatchSource`] (the generator's batches, `crate::generator`); this
//! use case decides where they
//! go: the shop is found or created with an id derived from its slug, refused unless it is
//! empty (so that a run is reproducible), every batch is written in its own transaction in the
//! order the source gives, and the planner statistics are refreshed at the end.

use std::sync::Arc;

use shop_domain::Timestamp;
use shop_domain::id::ShopId;
use shop_domain::shop::{Shop, ShopSlug, SubscriptionStatus};

use shop_ports::StoreError;
use shop_ports::port::ShopStore;

use crate::bulk_loader::{BulkBatch, BulkLoader};

#[derive(Debug, thiserror::Error)]
pub enum SeedError {
    #[error(
        "the shop `{0}` already holds products, clients or orders; nothing was written (seed into a new shop)"
    )]
    NotEmpty(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Rows written, per kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeedCounts {
    pub tiers: usize,
    pub categories: usize,
    pub brands: usize,
    pub products: usize,
    pub variants: usize,
    pub clients: usize,
    pub orders: usize,
    pub order_items: usize,
    pub lottery_tickets: usize,
    pub spins: usize,
}

impl SeedCounts {
    /// Every row written, of every kind.
    pub fn rows(&self) -> usize {
        self.tiers
            + self.categories
            + self.brands
            + self.products
            + self.variants
            + self.clients
            + self.orders
            + self.order_items
            + self.lottery_tickets
            + self.spins
    }

    fn add(&mut self, batch: &BulkBatch) {
        self.tiers += batch.tiers.len();
        self.categories += batch.categories.len();
        self.brands += batch.brands.len();
        self.products += batch.products.len();
        self.variants += batch
            .products
            .iter()
            .map(|p| p.variants.len())
            .sum::<usize>();
        self.clients += batch.clients.len();
        self.orders += batch.orders.len();
        self.order_items += batch.orders.iter().map(|o| o.items.len()).sum::<usize>();
        self.lottery_tickets += batch.lottery_tickets.len();
        self.spins += batch.spins.len();
    }
}

/// Where the batches come from. A source yields the rows a batch refers to (a client, an
/// order) in that batch or an earlier one, never in a later one: batches are written in order.
pub trait BatchSource: Send {
    /// The next batch, or `None` when the data set is complete.
    fn next_batch(&mut self) -> impl Future<Output = Option<BulkBatch>> + Send;
}

/// The id a shop created by `seed` gets: derived from its slug, so that a run names every row,
/// the shop's included, the same way each time.
pub fn seeded_shop_id(slug: &ShopSlug) -> Result<ShopId, StoreError> {
    ShopId::parse(format!("seed-{slug}")).map_err(StoreError::failure)
}

/// `bench-pg` is named `Bench Pg`.
pub fn seeded_shop_name(slug: &ShopSlug) -> String {
    slug.as_str()
        .split('-')
        .filter(|word| !word.is_empty())
        .map(|word| {
            let mut letters = word.chars();
            letters.next().map_or_else(String::new, |first| {
                first.to_uppercase().chain(letters).collect()
            })
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub struct SeedShop {
    shops: Arc<dyn ShopStore>,
    loader: Arc<dyn BulkLoader>,
}

impl SeedShop {
    pub fn new(shops: Arc<dyn ShopStore>, loader: Arc<dyn BulkLoader>) -> Self {
        Self { shops, loader }
    }

    /// The shop to seed: found by its slug, or created at `at` (id from [`seeded_shop_id`],
    /// name from [`seeded_shop_name`], the public API in its plan, subscription active).
    /// `NotEmpty` when it already holds products, clients or orders.
    pub async fn prepare(&self, slug: &ShopSlug, at: Timestamp) -> Result<Shop, SeedError> {
        let shop = match self.shops.find_shop_by_slug(slug).await? {
            Some(existing) => existing,
            None => {
                let shop = Shop {
                    id: seeded_shop_id(slug)?,
                    slug: slug.clone(),
                    name: seeded_shop_name(slug),
                    public_api_in_plan: true,
                    subscription: SubscriptionStatus::Active,
                };
                self.shops.insert_shop(&shop, at).await?;
                shop
            }
        };
        if self.loader.shop_has_data(&shop.id).await? {
            return Err(SeedError::NotEmpty(slug.to_string()));
        }
        Ok(shop)
    }

    /// Writes every batch of `source` into the shop, one transaction each, in the source's
    /// order; calls `progress` with the running counts after each; then refreshes the planner
    /// statistics. A failed batch stops the load: the batches before it stay written.
    pub async fn load(
        &self,
        shop: &ShopId,
        source: &mut impl BatchSource,
        mut progress: impl FnMut(&SeedCounts),
    ) -> Result<SeedCounts, SeedError> {
        let mut counts = SeedCounts::default();
        while let Some(batch) = source.next_batch().await {
            let mut written = counts;
            written.add(&batch);
            self.loader.insert_batch(shop, batch).await?;
            counts = written;
            progress(&counts);
        }
        self.loader.analyze().await?;
        Ok(counts)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use mockall::Sequence;
    use shop_domain::id::{ClientId, OrderId, TicketId, TierId};
    use shop_domain::loyalty::{LotteryTicket, LoyaltyTier};

    use shop_ports::port::MockShopStore;

    use super::*;
    use crate::bulk_loader::MockBulkLoader;

    struct Batches(VecDeque<BulkBatch>);

    impl BatchSource for Batches {
        async fn next_batch(&mut self) -> Option<BulkBatch> {
            self.0.pop_front()
        }
    }

    fn slug() -> ShopSlug {
        ShopSlug::parse("bench-pg").unwrap()
    }

    fn stored_shop() -> Shop {
        Shop {
            id: ShopId::parse("0190a3c4").unwrap(),
            slug: slug(),
            name: "Bench".into(),
            public_api_in_plan: true,
            subscription: SubscriptionStatus::Active,
        }
    }

    fn tiers(count: usize) -> BulkBatch {
        let tier = |n: usize| LoyaltyTier {
            id: TierId::parse(format!("t{n}")).unwrap(),
            name: format!("Tier {n}"),
            min_points_lifetime: n as i64 * 100,
            color: shop_domain::color::HexColor::parse("#C0C0C0").unwrap(),
        };
        BulkBatch {
            tiers: (0..count).map(tier).collect(),
            ..BulkBatch::default()
        }
    }

    fn tickets(count: usize) -> BulkBatch {
        let ticket = |n: usize| LotteryTicket {
            id: TicketId::parse(format!("k{n}")).unwrap(),
            client_id: ClientId::parse("c1").unwrap(),
            order_id: OrderId::parse("o1").ok(),
            created_at: Timestamp::from_millis(7),
        };
        BulkBatch {
            lottery_tickets: (0..count).map(ticket).collect(),
            ..BulkBatch::default()
        }
    }

    fn use_case(shops: MockShopStore, loader: MockBulkLoader) -> SeedShop {
        SeedShop::new(Arc::new(shops), Arc::new(loader))
    }

    #[test]
    fn a_seeded_shop_is_named_and_identified_after_its_slug() {
        assert_eq!(seeded_shop_name(&slug()), "Bench Pg");
        assert_eq!(seeded_shop_name(&ShopSlug::parse("big").unwrap()), "Big");
        assert_eq!(seeded_shop_id(&slug()).unwrap().as_str(), "seed-bench-pg");
    }

    #[tokio::test]
    async fn a_missing_shop_is_created_from_the_slug_at_the_given_instant() {
        let mut shops = MockShopStore::new();
        shops.expect_find_shop_by_slug().returning(|_| Ok(None));
        shops
            .expect_insert_shop()
            .withf(|shop, at| {
                shop.id.as_str() == "seed-bench-pg"
                    && shop.name == "Bench Pg"
                    && shop.public_api_in_plan
                    && shop.subscription == SubscriptionStatus::Active
                    && at.millis() == 42
            })
            .times(1)
            .returning(|_, _| Ok(()));
        let mut loader = MockBulkLoader::new();
        loader
            .expect_shop_has_data()
            .withf(|shop| shop.as_str() == "seed-bench-pg")
            .returning(|_| Ok(false));
        let shop = use_case(shops, loader)
            .prepare(&slug(), Timestamp::from_millis(42))
            .await
            .unwrap();
        assert_eq!(shop.slug, slug());
    }

    #[tokio::test]
    async fn an_existing_empty_shop_keeps_its_id() {
        let mut shops = MockShopStore::new();
        shops
            .expect_find_shop_by_slug()
            .returning(|_| Ok(Some(stored_shop())));
        shops.expect_insert_shop().never();
        let mut loader = MockBulkLoader::new();
        loader.expect_shop_has_data().returning(|_| Ok(false));
        let shop = use_case(shops, loader)
            .prepare(&slug(), Timestamp::from_millis(42))
            .await
            .unwrap();
        assert_eq!(shop.id.as_str(), "0190a3c4");
    }

    #[tokio::test]
    async fn a_shop_with_data_is_refused() {
        let mut shops = MockShopStore::new();
        shops
            .expect_find_shop_by_slug()
            .returning(|_| Ok(Some(stored_shop())));
        let mut loader = MockBulkLoader::new();
        loader.expect_shop_has_data().returning(|_| Ok(true));
        loader.expect_insert_batch().never();
        let result = use_case(shops, loader)
            .prepare(&slug(), Timestamp::from_millis(42))
            .await;
        let Err(error) = result else {
            panic!("a shop with data was accepted")
        };
        assert!(matches!(error, SeedError::NotEmpty(_)));
        let message = error.to_string();
        assert!(message.contains("`bench-pg` already holds"), "{message}");
        assert_eq!(message.lines().count(), 1);
    }

    #[tokio::test]
    async fn batches_are_written_in_order_then_analyzed_and_counted() {
        let mut loader = MockBulkLoader::new();
        let mut order = Sequence::new();
        loader
            .expect_insert_batch()
            .withf(|shop, batch| shop.as_str() == "s1" && batch.tiers.len() == 3)
            .times(1)
            .in_sequence(&mut order)
            .returning(|_, _| Ok(()));
        loader
            .expect_insert_batch()
            .withf(|_, batch| batch.lottery_tickets.len() == 2)
            .times(1)
            .in_sequence(&mut order)
            .returning(|_, _| Ok(()));
        loader
            .expect_analyze()
            .times(1)
            .in_sequence(&mut order)
            .returning(|| Ok(()));
        let mut source = Batches(VecDeque::from([tiers(3), tickets(2)]));
        let mut seen = Vec::new();
        let counts = use_case(MockShopStore::new(), loader)
            .load(&ShopId::parse("s1").unwrap(), &mut source, |counts| {
                seen.push(counts.rows());
            })
            .await
            .unwrap();
        assert_eq!((counts.tiers, counts.lottery_tickets), (3, 2));
        assert_eq!(counts.rows(), 5);
        assert_eq!(seen, [3, 5]);
    }

    #[tokio::test]
    async fn a_failed_batch_stops_the_load_without_analyzing_or_counting_it() {
        let mut loader = MockBulkLoader::new();
        loader
            .expect_insert_batch()
            .times(1)
            .returning(|_, _| Err(StoreError::Conflict { what: "id" }));
        loader.expect_analyze().never();
        let mut source = Batches(VecDeque::from([tiers(3), tickets(2)]));
        let mut seen = Vec::new();
        let result = use_case(MockShopStore::new(), loader)
            .load(&ShopId::parse("s1").unwrap(), &mut source, |counts| {
                seen.push(counts.rows());
            })
            .await;
        assert!(matches!(
            result,
            Err(SeedError::Store(StoreError::Conflict { .. }))
        ));
        assert!(seen.is_empty());
    }
}
