use async_trait::async_trait;
use shop_domain::Timestamp;
use shop_domain::id::ShopId;
use shop_domain::owner::{Owner, OwnerEmail, Password};
use shop_domain::shop::Shop;

use crate::StoreError;
use crate::port::HashError;

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait OwnerStore: Send + Sync {
    /// Stores a new owner. `Conflict { what: "email" }` when an owner already has this e-mail
    /// (e-mails are stored lower-cased, so the comparison ignores case).
    async fn insert_owner(&self, owner: &Owner) -> Result<(), StoreError>;

    /// The owner with this e-mail and their shop, in one round trip; disabled owners too.
    async fn find_owner_by_email(
        &self,
        email: &OwnerEmail,
    ) -> Result<Option<(Owner, Shop)>, StoreError>;

    /// Every owner of the shop, oldest first.
    async fn list_owners(&self, shop: &ShopId) -> Result<Vec<Owner>, StoreError>;

    /// In one transaction: replaces the owner's password hash and deletes all their sessions
    /// (a new password closes what the old one opened). `Ok(false)` when no owner has this
    /// e-mail.
    async fn set_owner_password(
        &self,
        email: &OwnerEmail,
        password_hash: &str,
    ) -> Result<bool, StoreError>;

    /// In one transaction: marks the owner disabled at `at` (an owner disabled earlier keeps
    /// that time) and deletes all their sessions. `Ok(false)` when no owner has this e-mail.
    async fn disable_owner(&self, email: &OwnerEmail, at: Timestamp) -> Result<bool, StoreError>;
}

/// Hashes and verifies owners' passwords (argon2id, the keys' settings). Both are CPU-heavy:
/// implementations must not run them on the async workers.
#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait PasswordHasher: Send + Sync {
    /// A PHC string with its own random salt.
    async fn hash_password(&self, password: &Password) -> Result<String, HashError>;

    /// Whether `password` matches `phc`. `Ok(false)` too for a `phc` this hasher cannot read;
    /// `Err` only when the work itself could not be done.
    async fn verify_password(&self, password: &Password, phc: &str) -> Result<bool, HashError>;

    /// For a sign-in without an account: a verification of the same cost as
    /// [`Self::verify_password`], against a decoy hash, so that an unknown e-mail takes the
    /// time a wrong password does. `Err` only when the work could not be done.
    async fn verify_decoy(&self, password: &Password) -> Result<(), HashError>;
}
