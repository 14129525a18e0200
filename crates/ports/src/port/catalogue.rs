use async_trait::async_trait;
use shop_domain::catalogue::{Product, ProductListQuery};
use shop_domain::id::{ProductId, ShopId};

use crate::StoreError;
use crate::port::ReadFrom;

/// Read access to one shop's catalogue. Every method is scoped by `shop`: another shop's
/// product is indistinguishable from a missing one; and reads `from` the database its caller
/// names.
#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait CatalogueRepository: Send + Sync {
    /// Up to `query.limit + 1` products of the shop matching the query, by ascending id, each
    /// with ALL its variants in display order (visibility is the caller's rule).
    async fn list_products(
        &self,
        shop: &ShopId,
        query: &ProductListQuery,
        from: ReadFrom,
    ) -> Result<Vec<Product>, StoreError>;

    /// The product with all its variants in display order, or `None` if it does not exist in
    /// this shop.
    async fn find_product(
        &self,
        shop: &ShopId,
        id: &ProductId,
        from: ReadFrom,
    ) -> Result<Option<Product>, StoreError>;
}
