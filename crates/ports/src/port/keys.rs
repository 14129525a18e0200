use async_trait::async_trait;
use shop_domain::Timestamp;
use shop_domain::api_key::{ApiKey, KeyPrefix, KeySecret, PresentedKey};
use shop_domain::id::ShopId;
use shop_domain::shop::Shop;

use crate::StoreError;

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait ApiKeyStore: Send + Sync {
    /// Stores a new key. `Conflict { what: "prefix" }` when the prefix is taken.
    async fn insert_key(&self, key: &ApiKey) -> Result<(), StoreError>;

    /// The key with this prefix and its shop, in one round trip: this is on the
    /// authentication path. Revoked and expired keys are returned too; the caller decides.
    async fn find_key(&self, prefix: &KeyPrefix) -> Result<Option<(ApiKey, Shop)>, StoreError>;

    /// Every key of the shop, oldest first.
    async fn list_keys(&self, shop: &ShopId) -> Result<Vec<ApiKey>, StoreError>;

    /// Marks the key revoked at `at`; a key revoked earlier keeps its first revocation time.
    /// `Ok(false)` when no key has this prefix.
    async fn revoke_key(&self, prefix: &KeyPrefix, at: Timestamp) -> Result<bool, StoreError>;

    /// The shop's key with this prefix; another shop's key is `None`, like an unknown one.
    async fn find_shop_key(
        &self,
        shop: &ShopId,
        prefix: &KeyPrefix,
    ) -> Result<Option<ApiKey>, StoreError>;

    /// [`Self::revoke_key`], only if the key belongs to `shop`: `Ok(false)` for another shop's
    /// key, exactly as for an unknown prefix, and nothing changes.
    async fn revoke_shop_key(
        &self,
        shop: &ShopId,
        prefix: &KeyPrefix,
        at: Timestamp,
    ) -> Result<bool, StoreError>;

    /// Records that the key authenticated a request at `at`; the stored time only moves
    /// forward. An unknown prefix is ignored.
    async fn record_key_use(&self, prefix: &KeyPrefix, at: Timestamp) -> Result<(), StoreError>;
}

/// Where "this key was just used" goes. Called on the request's path, so implementations
/// return at once and do their writing elsewhere; they may drop a note when they cannot keep
/// up (the time shown is then a minute or so older), never hold the request.
#[cfg_attr(feature = "mocks", mockall::automock)]
pub trait KeyUsageSink: Send + Sync {
    fn key_used(&self, prefix: &KeyPrefix, at: Timestamp);
}

#[derive(Debug, thiserror::Error)]
#[error("the secret hasher failed")]
pub struct HashError(#[source] pub crate::BoxError);

/// Hashes and verifies key secrets (argon2id). Both are CPU-heavy: implementations must not
/// run them on the async workers.
#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait SecretHasher: Send + Sync {
    /// A PHC string with its own random salt.
    async fn hash(&self, secret: &KeySecret) -> Result<String, HashError>;

    /// `Ok(false)` when the secret does not match, or when `phc` is not a hash this hasher
    /// can read. `Err` only when the work itself could not be done.
    async fn verify(&self, secret: &KeySecret, phc: &str) -> Result<bool, HashError>;
}

/// Random key material from the operating system's generator.
#[cfg_attr(feature = "mocks", mockall::automock)]
pub trait KeyMaterial: Send + Sync {
    fn generate(&self) -> PresentedKey;
}
