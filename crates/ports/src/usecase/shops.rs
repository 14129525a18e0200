//! The owner's side: creating shops and changing their plan or subscription.

use std::sync::Arc;

use shop_domain::id::ShopId;
use shop_domain::shop::{Shop, ShopSlug, SubscriptionStatus};
use shop_domain::text::{InvalidLabel, parse_label};

use crate::StoreError;
use crate::port::{Clock, IdGenerator, ShopStore};

pub const MAX_SHOP_NAME_LEN: usize = 200;

#[derive(Debug, thiserror::Error)]
pub enum ShopAdminError {
    #[error("no shop has the slug `{0}`")]
    UnknownShop(String),
    #[error("the slug `{0}` is already taken")]
    SlugTaken(String),
    #[error("shop name {0}")]
    InvalidName(InvalidLabel),
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub struct NewShop {
    pub slug: ShopSlug,
    pub name: String,
    pub public_api_in_plan: bool,
    pub subscription: SubscriptionStatus,
}

/// `None` leaves a field as it is.
#[derive(Default)]
pub struct ShopChange {
    pub public_api_in_plan: Option<bool>,
    pub subscription: Option<SubscriptionStatus>,
}

pub struct ShopAdmin {
    shops: Arc<dyn ShopStore>,
    ids: Arc<dyn IdGenerator>,
    clock: Arc<dyn Clock>,
}

impl ShopAdmin {
    pub fn new(
        shops: Arc<dyn ShopStore>,
        ids: Arc<dyn IdGenerator>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self { shops, ids, clock }
    }

    pub async fn create(&self, new: NewShop) -> Result<Shop, ShopAdminError> {
        let name =
            parse_label(&new.name, MAX_SHOP_NAME_LEN).map_err(ShopAdminError::InvalidName)?;
        let id = ShopId::parse(self.ids.new_id()).map_err(StoreError::failure)?;
        let shop = Shop {
            id,
            slug: new.slug,
            name,
            public_api_in_plan: new.public_api_in_plan,
            subscription: new.subscription,
        };
        match self.shops.insert_shop(&shop, self.clock.now()).await {
            Ok(()) => Ok(shop),
            Err(StoreError::Conflict { .. }) => {
                Err(ShopAdminError::SlugTaken(shop.slug.to_string()))
            }
            Err(other) => Err(other.into()),
        }
    }

    pub async fn update(
        &self,
        slug: &ShopSlug,
        change: ShopChange,
    ) -> Result<Shop, ShopAdminError> {
        let mut shop = self.find(slug).await?;
        if let Some(public_api) = change.public_api_in_plan {
            shop.public_api_in_plan = public_api;
        }
        if let Some(subscription) = change.subscription {
            shop.subscription = subscription;
        }
        self.shops.update_shop(&shop, self.clock.now()).await?;
        Ok(shop)
    }

    pub async fn find(&self, slug: &ShopSlug) -> Result<Shop, ShopAdminError> {
        self.shops
            .find_shop_by_slug(slug)
            .await?
            .ok_or_else(|| ShopAdminError::UnknownShop(slug.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use shop_domain::Timestamp;

    use super::*;
    use crate::port::{MockClock, MockIdGenerator, MockShopStore};

    fn admin(store: MockShopStore) -> ShopAdmin {
        let mut ids = MockIdGenerator::new();
        ids.expect_new_id().returning(|| "shop_new".into());
        let mut clock = MockClock::new();
        clock.expect_now().return_const(Timestamp::from_millis(42));
        ShopAdmin::new(Arc::new(store), Arc::new(ids), Arc::new(clock))
    }

    fn new_shop() -> NewShop {
        NewShop {
            slug: ShopSlug::parse("boutique").unwrap(),
            name: "  La Boutique ".into(),
            public_api_in_plan: true,
            subscription: SubscriptionStatus::Active,
        }
    }

    #[tokio::test]
    async fn create_stores_a_trimmed_name_and_a_generated_id() {
        let mut store = MockShopStore::new();
        store
            .expect_insert_shop()
            .withf(|shop, at| {
                shop.name == "La Boutique" && shop.id.as_str() == "shop_new" && at.millis() == 42
            })
            .times(1)
            .returning(|_, _| Ok(()));
        let shop = admin(store).create(new_shop()).await.unwrap();
        assert_eq!(shop.slug.as_str(), "boutique");
    }

    #[tokio::test]
    async fn a_taken_slug_is_reported_as_such() {
        let mut store = MockShopStore::new();
        store
            .expect_insert_shop()
            .returning(|_, _| Err(StoreError::Conflict { what: "slug" }));
        assert!(
            matches!(admin(store).create(new_shop()).await, Err(ShopAdminError::SlugTaken(slug)) if slug == "boutique")
        );
    }

    #[tokio::test]
    async fn update_changes_only_what_is_given() {
        let mut store = MockShopStore::new();
        store.expect_find_shop_by_slug().returning(|slug| {
            Ok(Some(Shop {
                id: ShopId::parse("s1").unwrap(),
                slug: slug.clone(),
                name: "B".into(),
                public_api_in_plan: true,
                subscription: SubscriptionStatus::Active,
            }))
        });
        store
            .expect_update_shop()
            .withf(|shop, _| {
                shop.public_api_in_plan && shop.subscription == SubscriptionStatus::Cancelled
            })
            .times(1)
            .returning(|_, _| Ok(()));
        let change = ShopChange {
            subscription: Some(SubscriptionStatus::Cancelled),
            ..ShopChange::default()
        };
        admin(store)
            .update(&ShopSlug::parse("b").unwrap(), change)
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn updating_an_unknown_shop_fails() {
        let mut store = MockShopStore::new();
        store.expect_find_shop_by_slug().returning(|_| Ok(None));
        let result = admin(store)
            .update(&ShopSlug::parse("nope").unwrap(), ShopChange::default())
            .await;
        assert!(matches!(result, Err(ShopAdminError::UnknownShop(_))));
    }
}
