//! The seed's one port: writing large amounts of new rows fast. `shop-persistence`
//! implements it on diesel under its `seed` feature (its `seed` module).

use async_trait::async_trait;
use shop_domain::catalogue::{BrandRef, CategoryRef, Product};
use shop_domain::client::Client;
use shop_domain::id::ShopId;
use shop_domain::loyalty::{LotteryTicket, LoyaltyTier, Spin};
use shop_domain::order::Order;
use shop_ports::StoreError;

/// New rows of one shop, written together in one transaction. Products carry their variants and
/// orders their items. A batch may refer to rows of earlier batches (an order to a client, a
/// ticket to an order) but never to later ones.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BulkBatch {
    pub tiers: Vec<LoyaltyTier>,
    pub categories: Vec<CategoryRef>,
    pub brands: Vec<BrandRef>,
    pub products: Vec<Product>,
    pub clients: Vec<Client>,
    pub orders: Vec<Order>,
    pub lottery_tickets: Vec<LotteryTicket>,
    pub spins: Vec<Spin>,
}

impl BulkBatch {
    /// Every row the batch writes, variants and order items included.
    pub fn row_count(&self) -> usize {
        let variants: usize = self.products.iter().map(|p| p.variants.len()).sum();
        let items: usize = self.orders.iter().map(|o| o.items.len()).sum();
        self.tiers.len()
            + self.categories.len()
            + self.brands.len()
            + self.products.len()
            + variants
            + self.clients.len()
            + self.orders.len()
            + items
            + self.lottery_tickets.len()
            + self.spins.len()
    }
}

/// Loading large amounts of new data fast, for `shop-api seed`: plain multi-row inserts in
/// large transactions, no comparison with what is stored.
// Only this crate's tests mock it, so the mock needs no feature of its own.
#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait BulkLoader: Send + Sync {
    /// Whether the shop holds any product, client or order.
    async fn shop_has_data(&self, shop: &ShopId) -> Result<bool, StoreError>;

    /// Inserts every row of the batch into the shop in ONE transaction, parents first (tiers,
    /// categories, brands, products and their variants, clients, orders and their items,
    /// tickets, spins). Nothing is updated: an id that is already stored fails the whole batch
    /// with `Conflict` and nothing of it is written. The derived search columns are computed
    /// by the same domain functions as the import's; confidential columns are left empty.
    async fn insert_batch(&self, shop: &ShopId, batch: BulkBatch) -> Result<(), StoreError>;

    /// Refreshes the query planner's statistics of every table (`ANALYZE`), so that plans
    /// fit the new volume at once.
    async fn analyze(&self) -> Result<(), StoreError>;
}
