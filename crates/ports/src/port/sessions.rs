use async_trait::async_trait;
use shop_domain::Timestamp;
use shop_domain::owner::Owner;
use shop_domain::owner_session::{OwnerSession, SessionDigest};
use shop_domain::shop::Shop;

use crate::StoreError;

/// A stored session with its owner and the owner's shop, as one lookup returns them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedIn {
    pub session: OwnerSession,
    pub owner: Owner,
    pub shop: Shop,
}

/// Console sessions, kept server-side in the database so that every instance sees them and a
/// session can be ended at once (sign-out, a disabled owner).
#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait SessionStore: Send + Sync {
    /// Stores a new session. Its digest is 256 random bits hashed: a conflict is a failure.
    async fn insert_session(&self, session: &OwnerSession) -> Result<(), StoreError>;

    /// The session with this digest, its owner and the owner's shop, in one round trip.
    /// Expired sessions and disabled owners are returned too: the caller decides.
    async fn find_session(&self, digest: &SessionDigest) -> Result<Option<SignedIn>, StoreError>;

    /// Records activity at `at` (never moves it backwards). A deleted session stays deleted.
    async fn touch_session(&self, digest: &SessionDigest, at: Timestamp) -> Result<(), StoreError>;

    /// Deletes the session if it exists.
    async fn delete_session(&self, digest: &SessionDigest) -> Result<(), StoreError>;

    /// Deletes every session idle since before `idle_before` or created before
    /// `created_before`; returns how many. Housekeeping: expired sessions are refused anyway.
    async fn delete_expired_sessions(
        &self,
        idle_before: Timestamp,
        created_before: Timestamp,
    ) -> Result<u64, StoreError>;
}
