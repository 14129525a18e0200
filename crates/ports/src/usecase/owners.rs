//! The operator's side of owner accounts: create (with a password), list, disable.

use std::sync::Arc;

use shop_domain::id::{OwnerId, ShopId};
use shop_domain::owner::{Owner, OwnerEmail, Password};
use shop_domain::shop::{Shop, ShopSlug};

use crate::StoreError;
use crate::port::{Clock, HashError, IdGenerator, OwnerStore, PasswordHasher, ShopStore};

#[derive(Debug, thiserror::Error)]
pub enum OwnerAdminError {
    #[error("no shop has the slug `{0}`")]
    UnknownShop(String),
    #[error("an owner with the e-mail {0} already exists")]
    EmailTaken(String),
    #[error("no owner has the e-mail {0}")]
    UnknownOwner(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Hashing(#[from] HashError),
}

pub struct OwnerAdmin {
    shops: Arc<dyn ShopStore>,
    owners: Arc<dyn OwnerStore>,
    hasher: Arc<dyn PasswordHasher>,
    ids: Arc<dyn IdGenerator>,
    clock: Arc<dyn Clock>,
}

impl OwnerAdmin {
    pub fn new(
        shops: Arc<dyn ShopStore>,
        owners: Arc<dyn OwnerStore>,
        hasher: Arc<dyn PasswordHasher>,
        ids: Arc<dyn IdGenerator>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            shops,
            owners,
            hasher,
            ids,
            clock,
        }
    }

    /// A new, enabled owner of the shop. The password is already held to the policy
    /// ([`Password::new`]); only its hash is stored.
    pub async fn create(
        &self,
        shop: &ShopSlug,
        email: OwnerEmail,
        password: &Password,
    ) -> Result<Owner, OwnerAdminError> {
        let owner = Owner {
            id: OwnerId::parse(self.ids.new_id()).map_err(StoreError::failure)?,
            shop_id: self.shop_id(shop).await?,
            password_hash: self.hasher.hash_password(password).await?,
            email,
            created_at: self.clock.now(),
            disabled_at: None,
        };
        match self.owners.insert_owner(&owner).await {
            Ok(()) => Ok(owner),
            Err(StoreError::Conflict { .. }) => {
                Err(OwnerAdminError::EmailTaken(owner.email.to_string()))
            }
            Err(other) => Err(other.into()),
        }
    }

    /// The shop's owners, oldest first.
    pub async fn list(&self, shop: &ShopSlug) -> Result<Vec<Owner>, OwnerAdminError> {
        Ok(self.owners.list_owners(&self.shop_id(shop).await?).await?)
    }

    /// A new password for the owner; their open sessions end now.
    pub async fn set_password(
        &self,
        email: &OwnerEmail,
        password: &Password,
    ) -> Result<(), OwnerAdminError> {
        let hash = self.hasher.hash_password(password).await?;
        if self.owners.set_owner_password(email, &hash).await? {
            Ok(())
        } else {
            Err(OwnerAdminError::UnknownOwner(email.to_string()))
        }
    }

    /// The owner can no longer sign in, and their open sessions end now. Their shop is
    /// returned: the keys they made are the shop's and keep working, which the operator
    /// should be told.
    pub async fn disable(&self, email: &OwnerEmail) -> Result<Shop, OwnerAdminError> {
        let unknown = || OwnerAdminError::UnknownOwner(email.to_string());
        if !self.owners.disable_owner(email, self.clock.now()).await? {
            return Err(unknown());
        }
        let (_, shop) = self
            .owners
            .find_owner_by_email(email)
            .await?
            .ok_or_else(unknown)?;
        Ok(shop)
    }

    async fn shop_id(&self, slug: &ShopSlug) -> Result<ShopId, OwnerAdminError> {
        Ok(self
            .shops
            .find_shop_by_slug(slug)
            .await?
            .ok_or_else(|| OwnerAdminError::UnknownShop(slug.to_string()))?
            .id)
    }
}

#[cfg(test)]
mod tests {
    use shop_domain::Timestamp;
    use shop_domain::shop::SubscriptionStatus;

    use super::*;
    use crate::port::{
        MockClock, MockIdGenerator, MockOwnerStore, MockPasswordHasher, MockShopStore,
    };

    fn admin(owners: MockOwnerStore) -> OwnerAdmin {
        let mut shops = MockShopStore::new();
        shops.expect_find_shop_by_slug().returning(|slug| {
            Ok((slug.as_str() == "boutique").then(|| Shop {
                id: ShopId::parse("shop_1").unwrap(),
                slug: slug.clone(),
                name: "B".into(),
                public_api_in_plan: true,
                subscription: SubscriptionStatus::Active,
            }))
        });
        let mut hasher = MockPasswordHasher::new();
        hasher
            .expect_hash_password()
            .returning(|password| Ok(format!("hash({})", password.expose().len())));
        let mut ids = MockIdGenerator::new();
        ids.expect_new_id().returning(|| "owner_1".into());
        let mut clock = MockClock::new();
        clock.expect_now().return_const(Timestamp::from_millis(5));
        OwnerAdmin::new(
            Arc::new(shops),
            Arc::new(owners),
            Arc::new(hasher),
            Arc::new(ids),
            Arc::new(clock),
        )
    }

    fn slug(text: &str) -> ShopSlug {
        ShopSlug::parse(text).unwrap()
    }

    fn email() -> OwnerEmail {
        OwnerEmail::parse("Ana@Boutique.fr").unwrap()
    }

    fn password() -> Password {
        Password::new("correct horse battery").unwrap()
    }

    #[tokio::test]
    async fn create_stores_the_hash_in_the_shop_never_the_password() {
        let mut owners = MockOwnerStore::new();
        owners
            .expect_insert_owner()
            .withf(|owner| {
                owner.shop_id.as_str() == "shop_1"
                    && owner.email.as_str() == "ana@boutique.fr"
                    && owner.password_hash == "hash(21)"
                    && owner.disabled_at.is_none()
            })
            .times(1)
            .returning(|_| Ok(()));
        let owner = admin(owners)
            .create(&slug("boutique"), email(), &password())
            .await
            .unwrap();
        assert_eq!(owner.created_at.millis(), 5);
    }

    #[tokio::test]
    async fn a_taken_email_and_an_unknown_shop_are_named() {
        let mut owners = MockOwnerStore::new();
        owners
            .expect_insert_owner()
            .returning(|_| Err(StoreError::Conflict { what: "email" }));
        let admin = admin(owners);
        assert!(matches!(
            admin.create(&slug("boutique"), email(), &password()).await,
            Err(OwnerAdminError::EmailTaken(e)) if e == "ana@boutique.fr"
        ));
        assert!(matches!(
            admin.create(&slug("other"), email(), &password()).await,
            Err(OwnerAdminError::UnknownShop(s)) if s == "other"
        ));
    }

    #[tokio::test]
    async fn disabling_an_unknown_owner_fails() {
        let mut owners = MockOwnerStore::new();
        owners.expect_disable_owner().returning(|_, _| Ok(false));
        assert!(matches!(
            admin(owners).disable(&email()).await,
            Err(OwnerAdminError::UnknownOwner(_))
        ));
    }

    #[tokio::test]
    async fn disabling_an_owner_names_their_shop() {
        let mut owners = MockOwnerStore::new();
        owners
            .expect_disable_owner()
            .times(1)
            .returning(|_, _| Ok(true));
        owners.expect_find_owner_by_email().returning(|email| {
            let shop = Shop {
                id: ShopId::parse("shop_1").unwrap(),
                slug: ShopSlug::parse("boutique").unwrap(),
                name: "B".into(),
                public_api_in_plan: true,
                subscription: SubscriptionStatus::Active,
            };
            let owner = Owner {
                id: OwnerId::parse("owner_1").unwrap(),
                shop_id: shop.id.clone(),
                email: email.clone(),
                password_hash: "hash".into(),
                created_at: Timestamp::from_millis(1),
                disabled_at: Some(Timestamp::from_millis(5)),
            };
            Ok(Some((owner, shop)))
        });
        let shop = admin(owners).disable(&email()).await.unwrap();
        assert_eq!(shop.slug.as_str(), "boutique");
    }
}
