use async_trait::async_trait;
use shop_domain::id::{ClientId, ShopId};
use shop_domain::loyalty::{LotteryTicket, LoyaltyTier, Spin};

use crate::StoreError;
use crate::port::ReadFrom;

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait LoyaltyRepository: Send + Sync {
    /// Every tier of the shop, in any order.
    async fn tiers(&self, shop: &ShopId, from: ReadFrom) -> Result<Vec<LoyaltyTier>, StoreError>;

    /// The client's `limit` latest tickets, by `(created_at, id)` descending.
    async fn recent_tickets(
        &self,
        shop: &ShopId,
        client: &ClientId,
        limit: usize,
        from: ReadFrom,
    ) -> Result<Vec<LotteryTicket>, StoreError>;

    /// The client's `limit` latest spins, by `(created_at, id)` descending.
    async fn recent_spins(
        &self,
        shop: &ShopId,
        client: &ClientId,
        limit: usize,
        from: ReadFrom,
    ) -> Result<Vec<Spin>, StoreError>;
}
