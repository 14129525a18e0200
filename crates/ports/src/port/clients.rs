use async_trait::async_trait;
use shop_domain::client::{Client, ClientListQuery};
use shop_domain::id::{ClientId, ShopId};

use crate::StoreError;
use crate::port::ReadFrom;

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait ClientRepository: Send + Sync {
    /// Up to `query.limit + 1` clients of the shop matching the search, by ascending id.
    async fn list_clients(
        &self,
        shop: &ShopId,
        query: &ClientListQuery,
        from: ReadFrom,
    ) -> Result<Vec<Client>, StoreError>;

    async fn find_client(
        &self,
        shop: &ShopId,
        id: &ClientId,
        from: ReadFrom,
    ) -> Result<Option<Client>, StoreError>;
}
