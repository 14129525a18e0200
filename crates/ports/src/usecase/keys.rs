//! The owner's side of API keys: create (shown once), list, revoke. The CLI names a shop by
//! its slug; the console acts for the signed-in owner's shop, and may only ever reach that
//! shop's keys (another shop's prefix is as unknown as one that does not exist).

use std::sync::Arc;

use shop_domain::Timestamp;
use shop_domain::api_key::{ApiKey, KeyPrefix, KeyStatus, MAX_LABEL_LEN, PresentedKey};
use shop_domain::id::ShopId;
use shop_domain::scope::{Scope, ScopeSet};
use shop_domain::shop::ShopSlug;
use shop_domain::text::parse_label;

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
    /// Every problem of the new key's label, scopes and expiry, at once.
    #[error("{}", KeyProblem::sentence(.0))]
    Invalid(Vec<KeyProblem>),
    #[error("could not find a free key prefix")]
    NoFreePrefix,
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Hashing(#[from] HashError),
}

/// Which part of a new key a problem is about (the console's form fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyField {
    Label,
    Scopes,
    ExpiresAt,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyProblem {
    pub field: KeyField,
    pub message: String,
}

impl KeyProblem {
    fn new(field: KeyField, message: impl Into<String>) -> Self {
        Self {
            field,
            message: message.into(),
        }
    }

    fn sentence(problems: &[KeyProblem]) -> String {
        let parts: Vec<&str> = problems.iter().map(|p| p.message.as_str()).collect();
        parts.join("; ")
    }
}

/// A key asked for by the operator's CLI, for the shop with `shop` as slug.
pub struct NewKey {
    pub shop: ShopSlug,
    pub label: String,
    pub scopes: ScopeSet,
    pub expires_at: Option<Timestamp>,
}

/// A key asked for by a shop's owner in the console.
pub struct NewShopKey {
    pub label: String,
    pub scopes: ScopeSet,
    pub expires_at: Option<Timestamp>,
}

/// A stored key and what it is now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyListing {
    pub key: ApiKey,
    pub status: KeyStatus,
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

    /// The operator's key: any scope, the reserved ones included.
    pub async fn create(&self, new: NewKey) -> Result<CreatedKey, KeyAdminError> {
        let now = self.clock.now();
        let label = checked(&new.label, new.scopes, new.expires_at, now, &[])?;
        let shop = self.shop_id(&new.shop).await?;
        self.insert(shop, label, new.scopes, new.expires_at, now)
            .await
    }

    /// An owner's key for their shop. It may hold only the scopes of version 1's operations:
    /// the reserved write scopes are refused (the console offers them as "reserved for v2").
    pub async fn create_for_shop(
        &self,
        shop: &ShopId,
        new: NewShopKey,
    ) -> Result<CreatedKey, KeyAdminError> {
        let now = self.clock.now();
        let label = checked_for_shop(&new, now)?;
        self.insert(shop.clone(), label, new.scopes, new.expires_at, now)
            .await
    }

    /// What [`Self::create_for_shop`] would refuse in `new`, without creating anything: for a
    /// form that has problems of its own to show them all at once.
    pub fn problems_for_shop(&self, new: &NewShopKey) -> Vec<KeyProblem> {
        match checked_for_shop(new, self.clock.now()) {
            Err(KeyAdminError::Invalid(problems)) => problems,
            _ => Vec::new(),
        }
    }

    pub async fn list(&self, shop: &ShopSlug) -> Result<Vec<ApiKey>, KeyAdminError> {
        let shop = self.shop_id(shop).await?;
        Ok(self.keys.list_keys(&shop).await?)
    }

    /// Every key of the shop, oldest first, with its status now.
    pub async fn list_for_shop(&self, shop: &ShopId) -> Result<Vec<KeyListing>, KeyAdminError> {
        let now = self.clock.now();
        let keys = self.keys.list_keys(shop).await?;
        Ok(keys.into_iter().map(|key| listing(key, now)).collect())
    }

    /// The shop's key with this prefix; another shop's is `UnknownKey`, like a missing one.
    pub async fn find_for_shop(
        &self,
        shop: &ShopId,
        prefix: &KeyPrefix,
    ) -> Result<KeyListing, KeyAdminError> {
        let key = self
            .keys
            .find_shop_key(shop, prefix)
            .await?
            .ok_or_else(|| KeyAdminError::UnknownKey(prefix.to_string()))?;
        Ok(listing(key, self.clock.now()))
    }

    pub async fn revoke(&self, prefix: &KeyPrefix) -> Result<(), KeyAdminError> {
        if self.keys.revoke_key(prefix, self.clock.now()).await? {
            Ok(())
        } else {
            Err(KeyAdminError::UnknownKey(prefix.to_string()))
        }
    }

    /// Revokes the shop's key; another shop's prefix is `UnknownKey` and nothing changes.
    pub async fn revoke_for_shop(
        &self,
        shop: &ShopId,
        prefix: &KeyPrefix,
    ) -> Result<(), KeyAdminError> {
        if self
            .keys
            .revoke_shop_key(shop, prefix, self.clock.now())
            .await?
        {
            Ok(())
        } else {
            Err(KeyAdminError::UnknownKey(prefix.to_string()))
        }
    }

    async fn shop_id(&self, slug: &ShopSlug) -> Result<ShopId, KeyAdminError> {
        Ok(self
            .shops
            .find_shop_by_slug(slug)
            .await?
            .ok_or_else(|| KeyAdminError::UnknownShop(slug.to_string()))?
            .id)
    }

    async fn insert(
        &self,
        shop: ShopId,
        label: String,
        scopes: ScopeSet,
        expires_at: Option<Timestamp>,
        now: Timestamp,
    ) -> Result<CreatedKey, KeyAdminError> {
        for _ in 0..PREFIX_ATTEMPTS {
            let full_key = self.material.generate();
            let key = ApiKey {
                prefix: full_key.prefix().clone(),
                shop_id: shop.clone(),
                label: label.clone(),
                scopes,
                secret_hash: self.hasher.hash(full_key.secret()).await?,
                created_at: now,
                expires_at,
                revoked_at: None,
                last_used_at: None,
            };
            match self.keys.insert_key(&key).await {
                Ok(()) => return Ok(CreatedKey { key, full_key }),
                Err(StoreError::Conflict { .. }) => continue,
                Err(other) => return Err(other.into()),
            }
        }
        Err(KeyAdminError::NoFreePrefix)
    }
}

fn listing(key: ApiKey, now: Timestamp) -> KeyListing {
    KeyListing {
        status: key.status_at(now),
        key,
    }
}

/// [`checked`] for an owner's key: the reserved scopes are refused.
fn checked_for_shop(new: &NewShopKey, now: Timestamp) -> Result<String, KeyAdminError> {
    let reserved: Vec<Scope> = new.scopes.iter().filter(|s| s.is_reserved()).collect();
    checked(&new.label, new.scopes, new.expires_at, now, &reserved)
}

/// The label as stored, or every problem of the new key: its label, no scope or `refused`
/// ones, an expiry that is not in the future.
fn checked(
    label: &str,
    scopes: ScopeSet,
    expires_at: Option<Timestamp>,
    now: Timestamp,
    refused: &[Scope],
) -> Result<String, KeyAdminError> {
    let mut problems = Vec::new();
    let label = parse_label(label, MAX_LABEL_LEN)
        .map_err(|e| problems.push(KeyProblem::new(KeyField::Label, format!("label {e}"))));
    if scopes.is_empty() {
        problems.push(KeyProblem::new(
            KeyField::Scopes,
            "a key needs at least one scope",
        ));
    }
    for scope in refused {
        problems.push(KeyProblem::new(
            KeyField::Scopes,
            format!("{scope} is reserved for version 2 and cannot be granted yet"),
        ));
    }
    if expires_at.is_some_and(|expiry| expiry <= now) {
        problems.push(KeyProblem::new(
            KeyField::ExpiresAt,
            "the expiry date is already past",
        ));
    }
    match label {
        Ok(label) if problems.is_empty() => Ok(label),
        _ => Err(KeyAdminError::Invalid(problems)),
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

    fn fields(error: KeyAdminError) -> Vec<KeyField> {
        match error {
            KeyAdminError::Invalid(problems) => problems.iter().map(|p| p.field).collect(),
            other => panic!("expected Invalid, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn refuses_no_scopes_past_expiry_and_unknown_shops() {
        let admin = admin(MockApiKeyStore::new());
        let error = admin.create(new_key("")).await.err().unwrap();
        assert_eq!(error.to_string(), "a key needs at least one scope");
        let past = NewKey {
            expires_at: Some(Timestamp::from_millis(1_000)),
            ..new_key("orders:read")
        };
        assert_eq!(
            fields(admin.create(past).await.err().unwrap()),
            [KeyField::ExpiresAt]
        );
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

#[cfg(test)]
mod shop_tests {
    use shop_domain::api_key::{KeySecret, KeyStatus};

    use super::*;
    use crate::port::{
        MockApiKeyStore, MockClock, MockKeyMaterial, MockSecretHasher, MockShopStore,
    };

    fn admin(keys: MockApiKeyStore) -> KeyAdmin {
        let mut hasher = MockSecretHasher::new();
        hasher.expect_hash().returning(|_| Ok("phc".into()));
        let mut material = MockKeyMaterial::new();
        material.expect_generate().returning(|| {
            PresentedKey::new(
                KeyPrefix::from_random_bytes([7; 4]),
                KeySecret::from_random_bytes([8; 32]),
            )
        });
        let mut clock = MockClock::new();
        clock
            .expect_now()
            .return_const(Timestamp::from_millis(1_000));
        KeyAdmin::new(
            Arc::new(MockShopStore::new()),
            Arc::new(keys),
            Arc::new(hasher),
            Arc::new(material),
            Arc::new(clock),
        )
    }

    fn shop() -> ShopId {
        ShopId::parse("shop_1").unwrap()
    }

    #[tokio::test]
    async fn an_owner_key_is_created_in_the_owner_shop_without_any_lookup_by_slug() {
        let mut keys = MockApiKeyStore::new();
        keys.expect_insert_key()
            .withf(|key| key.shop_id.as_str() == "shop_1" && key.label == "Zapier")
            .times(1)
            .returning(|_| Ok(()));
        let created = admin(keys)
            .create_for_shop(
                &shop(),
                NewShopKey {
                    label: " Zapier ".into(),
                    scopes: ScopeSet::parse_list("products:read,stock:write").unwrap(),
                    expires_at: Some(Timestamp::from_millis(2_000)),
                },
            )
            .await
            .unwrap();
        assert_eq!(
            created.key.status_at(Timestamp::from_millis(1_500)),
            KeyStatus::Active
        );
    }

    #[tokio::test]
    async fn an_owner_key_lists_every_problem_and_refuses_reserved_scopes() {
        let mut keys = MockApiKeyStore::new();
        keys.expect_insert_key().times(0);
        let error = admin(keys)
            .create_for_shop(
                &shop(),
                NewShopKey {
                    label: "  ".into(),
                    scopes: ScopeSet::parse_list("products:read,orders:write").unwrap(),
                    expires_at: Some(Timestamp::from_millis(1_000)),
                },
            )
            .await
            .err()
            .unwrap();
        let KeyAdminError::Invalid(problems) = error else {
            panic!("expected Invalid");
        };
        let fields: Vec<_> = problems.iter().map(|p| p.field).collect();
        assert_eq!(
            fields,
            [KeyField::Label, KeyField::Scopes, KeyField::ExpiresAt]
        );
        assert!(problems[1].message.contains("orders:write"));
    }

    #[tokio::test]
    async fn another_shop_key_is_unknown_to_an_owner() {
        let mut keys = MockApiKeyStore::new();
        keys.expect_revoke_shop_key()
            .withf(|shop, prefix, _| shop.as_str() == "shop_1" && prefix.as_str() == "deadbeef")
            .returning(|_, _, _| Ok(false));
        keys.expect_find_shop_key().returning(|_, _| Ok(None));
        let admin = admin(keys);
        let prefix = KeyPrefix::parse("deadbeef").unwrap();
        assert!(matches!(
            admin.revoke_for_shop(&shop(), &prefix).await,
            Err(KeyAdminError::UnknownKey(p)) if p == "deadbeef"
        ));
        assert!(matches!(
            admin.find_for_shop(&shop(), &prefix).await,
            Err(KeyAdminError::UnknownKey(_))
        ));
    }
}
