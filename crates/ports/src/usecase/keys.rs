//! The owner's side of API keys: create (shown once), list, revoke.

use std::sync::Arc;

use shop_domain::Timestamp;
use shop_domain::api_key::{ApiKey, KeyPrefix, MAX_LABEL_LEN, PresentedKey};
use shop_domain::scope::ScopeSet;
use shop_domain::shop::ShopSlug;
use shop_domain::text::{InvalidLabel, parse_label};

use crate::StoreError;
use crate::port::{ApiKeyStore, Clock, HashError, KeyMaterial, SecretHasher, ShopStore};

/// Prefixes are 32 random bits; a collision is rare but possible, so creation retries.
const PREFIX_ATTEMPTS: usize = 5;

#[derive(Debug, thiserror::Error)]
pub enum KeyAdminError {
    #[error("no shop has the slug `{0}`")]
    UnknownShop(String),
    #[error("no key has the prefix `{0}`")]
    UnknownKey(String),
    #[error("label {0}")]
    InvalidLabel(InvalidLabel),
    #[error("a key needs at least one scope")]
    NoScopes,
    #[error("the expiry date is already past")]
    ExpiryInThePast,
    #[error("could not find a free key prefix")]
    NoFreePrefix,
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Hashing(#[from] HashError),
}

pub struct NewKey {
    pub shop: ShopSlug,
    pub label: String,
    pub scopes: ScopeSet,
    pub expires_at: Option<Timestamp>,
}

/// A freshly created key. `full_key` is the only copy of the secret: show it once.
pub struct CreatedKey {
    pub key: ApiKey,
    pub full_key: PresentedKey,
}

pub struct KeyAdmin {
    shops: Arc<dyn ShopStore>,
    keys: Arc<dyn ApiKeyStore>,
    hasher: Arc<dyn SecretHasher>,
    material: Arc<dyn KeyMaterial>,
    clock: Arc<dyn Clock>,
}

impl KeyAdmin {
    pub fn new(
        shops: Arc<dyn ShopStore>,
        keys: Arc<dyn ApiKeyStore>,
        hasher: Arc<dyn SecretHasher>,
        material: Arc<dyn KeyMaterial>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            shops,
            keys,
            hasher,
            material,
            clock,
        }
    }

    pub async fn create(&self, new: NewKey) -> Result<CreatedKey, KeyAdminError> {
        let label = parse_label(&new.label, MAX_LABEL_LEN).map_err(KeyAdminError::InvalidLabel)?;
        if new.scopes.is_empty() {
            return Err(KeyAdminError::NoScopes);
        }
        let now = self.clock.now();
        if new.expires_at.is_some_and(|expiry| expiry <= now) {
            return Err(KeyAdminError::ExpiryInThePast);
        }
        let shop = self
            .shops
            .find_shop_by_slug(&new.shop)
            .await?
            .ok_or_else(|| KeyAdminError::UnknownShop(new.shop.to_string()))?;

        for _ in 0..PREFIX_ATTEMPTS {
            let full_key = self.material.generate();
            let key = ApiKey {
                prefix: full_key.prefix().clone(),
                shop_id: shop.id.clone(),
                label: label.clone(),
                scopes: new.scopes,
                secret_hash: self.hasher.hash(full_key.secret()).await?,
                created_at: now,
                expires_at: new.expires_at,
                revoked_at: None,
            };
            match self.keys.insert_key(&key).await {
                Ok(()) => return Ok(CreatedKey { key, full_key }),
                Err(StoreError::Conflict { .. }) => continue,
                Err(other) => return Err(other.into()),
            }
        }
        Err(KeyAdminError::NoFreePrefix)
    }

    pub async fn list(&self, shop: &ShopSlug) -> Result<Vec<ApiKey>, KeyAdminError> {
        let shop = self
            .shops
            .find_shop_by_slug(shop)
            .await?
            .ok_or_else(|| KeyAdminError::UnknownShop(shop.to_string()))?;
        Ok(self.keys.list_keys(&shop.id).await?)
    }

    pub async fn revoke(&self, prefix: &KeyPrefix) -> Result<(), KeyAdminError> {
        if self.keys.revoke_key(prefix, self.clock.now()).await? {
            Ok(())
        } else {
            Err(KeyAdminError::UnknownKey(prefix.to_string()))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use shop_domain::api_key::KeySecret;
    use shop_domain::id::ShopId;
    use shop_domain::shop::{Shop, SubscriptionStatus};

    use super::*;
    use crate::port::{
        MockApiKeyStore, MockClock, MockKeyMaterial, MockSecretHasher, MockShopStore,
    };

    fn shops() -> MockShopStore {
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
        shops
    }

    fn admin(keys: MockApiKeyStore) -> KeyAdmin {
        let mut hasher = MockSecretHasher::new();
        hasher
            .expect_hash()
            .returning(|secret| Ok(format!("hash-of-{}", &secret.expose()[..4])));
        let counter = Mutex::new(0u8);
        let mut material = MockKeyMaterial::new();
        material.expect_generate().returning(move || {
            let mut n = counter.lock().unwrap();
            *n += 1;
            PresentedKey::new(
                KeyPrefix::from_random_bytes([*n; 4]),
                KeySecret::from_random_bytes([*n; 32]),
            )
        });
        let mut clock = MockClock::new();
        clock
            .expect_now()
            .return_const(Timestamp::from_millis(1_000));
        KeyAdmin::new(
            Arc::new(shops()),
            Arc::new(keys),
            Arc::new(hasher),
            Arc::new(material),
            Arc::new(clock),
        )
    }

    fn new_key(scopes: &str) -> NewKey {
        NewKey {
            shop: ShopSlug::parse("boutique").unwrap(),
            label: "Zapier".into(),
            scopes: ScopeSet::parse_list(scopes).unwrap(),
            expires_at: None,
        }
    }

    #[tokio::test]
    async fn create_stores_only_the_hash_and_returns_the_full_key() {
        let mut keys = MockApiKeyStore::new();
        keys.expect_insert_key()
            .withf(|key| key.secret_hash == "hash-of-0101" && key.shop_id.as_str() == "shop_1")
            .times(1)
            .returning(|_| Ok(()));
        let created = admin(keys).create(new_key("products:read")).await.unwrap();
        assert!(created.full_key.reveal().starts_with("svc_live_01010101_"));
        assert!(
            !created
                .key
                .secret_hash
                .contains(created.full_key.secret().expose())
        );
    }

    #[tokio::test]
    async fn a_prefix_collision_draws_a_new_key() {
        let mut keys = MockApiKeyStore::new();
        let mut seq = mockall::Sequence::new();
        keys.expect_insert_key()
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_| Err(StoreError::Conflict { what: "prefix" }));
        keys.expect_insert_key()
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_| Ok(()));
        let created = admin(keys).create(new_key("stock:write")).await.unwrap();
        assert_eq!(created.key.prefix.as_str(), "02020202");
    }

    #[tokio::test]
    async fn refuses_no_scopes_past_expiry_and_unknown_shops() {
        let admin = admin(MockApiKeyStore::new());
        assert!(matches!(
            admin.create(new_key("")).await,
            Err(KeyAdminError::NoScopes)
        ));
        let past = NewKey {
            expires_at: Some(Timestamp::from_millis(1_000)),
            ..new_key("orders:read")
        };
        assert!(matches!(
            admin.create(past).await,
            Err(KeyAdminError::ExpiryInThePast)
        ));
        let elsewhere = NewKey {
            shop: ShopSlug::parse("other").unwrap(),
            ..new_key("orders:read")
        };
        assert!(matches!(
            admin.create(elsewhere).await,
            Err(KeyAdminError::UnknownShop(_))
        ));
    }

    #[tokio::test]
    async fn revoking_an_unknown_prefix_fails() {
        let mut keys = MockApiKeyStore::new();
        keys.expect_revoke_key().returning(|_, _| Ok(false));
        let result = admin(keys)
            .revoke(&KeyPrefix::parse("deadbeef").unwrap())
            .await;
        assert!(matches!(result, Err(KeyAdminError::UnknownKey(p)) if p == "deadbeef"));
    }
}
