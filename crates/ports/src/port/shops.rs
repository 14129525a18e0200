use async_trait::async_trait;
use shop_domain::Timestamp;
use shop_domain::shop::{Shop, ShopSlug};

use crate::StoreError;

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait ShopStore: Send + Sync {
    /// Stores a new shop. `Conflict { what: "slug" }` when the slug is taken.
    async fn insert_shop(&self, shop: &Shop, at: Timestamp) -> Result<(), StoreError>;

    /// Overwrites the plan and subscription of the shop with `shop.id`.
    async fn update_shop(&self, shop: &Shop, at: Timestamp) -> Result<(), StoreError>;

    async fn find_shop_by_slug(&self, slug: &ShopSlug) -> Result<Option<Shop>, StoreError>;
}
