use async_trait::async_trait;
use shop_domain::id::{OrderId, ShopId};
use shop_domain::order::{Order, OrderListQuery};

use crate::StoreError;
use crate::port::ReadFrom;

/// Read access to one shop's orders. Scoped by `shop` like every store.
#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait OrderRepository: Send + Sync {
    /// Up to `query.limit + 1` orders of the shop matching the query, newest first by
    /// `(created_at, id)` descending, each with all its items — in a constant number of
    /// queries whatever the number of items (no N+1).
    async fn list_orders(
        &self,
        shop: &ShopId,
        query: &OrderListQuery,
        from: ReadFrom,
    ) -> Result<Vec<Order>, StoreError>;

    async fn find_order(
        &self,
        shop: &ShopId,
        id: &OrderId,
        from: ReadFrom,
    ) -> Result<Option<Order>, StoreError>;
}
