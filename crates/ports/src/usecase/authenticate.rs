//! Authenticating a bearer key and authorising an operation.
//!
//! argon2 costs about 26 ms of CPU per verification, so a successful verification is
//! remembered in a bounded in-process cache keyed by the SHA-256 digest of the full key (the
//! secret itself is never kept). The key row and its shop are re-read from the store when the
//! cached copy is older than `freshness` (5 s by default), which bounds how long a
//! revocation, an expiry or a plan/subscription change takes to apply. Re-reading does not
//! re-run argon2 as long as the stored hash is the one already verified. Failed
//! verifications are never cached. Concurrent requests with the same key share ONE load and
//! verification (the cache coalesces them), so a burst on a fresh key costs one argon2 run,
//! not one per request.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use moka::future::Cache;
use shop_domain::Timestamp;
use shop_domain::access::{AccessDenied, authorize};
use shop_domain::api_key::{ApiKey, KeyPrefix, PresentedKey};
use shop_domain::scope::{Operation, ScopeSet};
use shop_domain::shop::Shop;

use crate::StoreError;
use crate::port::{ApiKeyStore, Clock, HashError, SecretHasher};

/// Who is calling: the key's shop and what the key may do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    pub shop: Shop,
    pub key_prefix: KeyPrefix,
    pub key_label: String,
    pub scopes: ScopeSet,
}

impl Principal {
    /// The shop's plan, its subscription, then the key's scope (see `shop_domain::access`).
    pub fn authorize(&self, operation: Operation) -> Result<(), AccessDenied> {
        authorize(&self.shop, self.scopes, operation)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// Malformed, unknown, wrong, revoked or expired key: one answer for all, so the response
    /// is no oracle. The [`Rejection`] is for logs and metrics only.
    #[error("missing or invalid API key ({0})")]
    Unauthorized(Rejection),
    #[error(transparent)]
    Denied(#[from] AccessDenied),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Hashing(#[from] HashError),
}

/// Why a presented key was refused. Never shown to the client (every cause is the same 401);
/// operators see it in the request's log line and in the metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rejection {
    /// Not of the form `svc_live_<prefix>_<secret>`.
    Malformed,
    /// No key has this prefix.
    UnknownKey,
    /// The prefix exists but the secret does not match its hash.
    WrongSecret,
    Revoked,
    Expired,
}

impl Rejection {
    /// A stable snake_case name, for log fields and metric labels.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Malformed => "malformed_key",
            Self::UnknownKey => "unknown_key",
            Self::WrongSecret => "wrong_secret",
            Self::Revoked => "revoked",
            Self::Expired => "expired",
        }
    }
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A bearer token read once per request: the key it presents and the digest under which a
/// verification of it is remembered, so that neither is computed twice.
pub struct DigestedKey {
    key: PresentedKey,
    digest: [u8; 32],
}

impl DigestedKey {
    /// A token that is not of the form `svc_live_<prefix>_<secret>` is [`Rejection::Malformed`].
    pub fn parse(token: &str) -> Result<Self, Rejection> {
        let key = PresentedKey::parse(token).map_err(|_| Rejection::Malformed)?;
        Ok(Self {
            digest: key.digest(),
            key,
        })
    }
}

/// What [`Authenticator::recall`] found in the cache.
#[derive(Debug)]
pub enum Recall {
    /// Verified moments ago (within the freshness delay) and still usable: the caller.
    Fresh(Principal),
    /// Verified before, to be re-read from the store (without argon2).
    Stale,
    /// Not verified by this instance, or forgotten since.
    Unknown,
}

/// Counters for tests and metrics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AuthStats {
    pub argon2_verifications: u64,
    pub cache_hits: u64,
}

/// What the cache holds for a key, as of now.
enum Cached {
    Fresh(Arc<VerifiedKey>),
    Stale(Arc<VerifiedKey>),
    Missing,
}

struct VerifiedKey {
    key: ApiKey,
    shop: Shop,
    loaded_at: Timestamp,
}

pub struct Authenticator {
    keys: Arc<dyn ApiKeyStore>,
    hasher: Arc<dyn SecretHasher>,
    clock: Arc<dyn Clock>,
    freshness_millis: i64,
    // Shared, so that a cache hit copies a pointer rather than the key's and the shop's text.
    verified: Cache<[u8; 32], Arc<VerifiedKey>>,
    verifications: AtomicU64,
    cache_hits: AtomicU64,
}

impl Authenticator {
    /// The promised delay for revocations and shop changes to apply.
    pub const DEFAULT_FRESHNESS: Duration = Duration::from_secs(5);
    pub const DEFAULT_CAPACITY: u64 = 10_000;

    pub fn new(
        keys: Arc<dyn ApiKeyStore>,
        hasher: Arc<dyn SecretHasher>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self::with_limits(
            keys,
            hasher,
            clock,
            Self::DEFAULT_FRESHNESS,
            Self::DEFAULT_CAPACITY,
        )
    }

    pub fn with_limits(
        keys: Arc<dyn ApiKeyStore>,
        hasher: Arc<dyn SecretHasher>,
        clock: Arc<dyn Clock>,
        freshness: Duration,
        capacity: u64,
    ) -> Self {
        Self {
            keys,
            hasher,
            clock,
            freshness_millis: i64::try_from(freshness.as_millis()).unwrap_or(i64::MAX),
            // Idle entries leave after an hour so that memory follows the active keys.
            verified: Cache::builder()
                .max_capacity(capacity)
                .time_to_idle(Duration::from_secs(3_600))
                .build(),
            verifications: AtomicU64::new(0),
            cache_hits: AtomicU64::new(0),
        }
    }

    pub fn stats(&self) -> AuthStats {
        AuthStats {
            argon2_verifications: self.verifications.load(Ordering::Relaxed),
            cache_hits: self.cache_hits.load(Ordering::Relaxed),
        }
    }

    /// Authenticates `token` (the text after `Bearer `) and checks that its key may perform
    /// `operation`: 401 causes first, then the shop's plan, subscription, and the key's scope.
    pub async fn authenticate(
        &self,
        token: &str,
        operation: Operation,
    ) -> Result<Principal, AuthError> {
        let principal = self.identify(token).await?;
        principal.authorize(operation)?;
        Ok(principal)
    }

    /// Authenticates `token`: only the 401 causes (and store or hasher failures). The shop's
    /// state and the scopes are checked by [`Principal::authorize`].
    pub async fn identify(&self, token: &str) -> Result<Principal, AuthError> {
        let presented = DigestedKey::parse(token).map_err(AuthError::Unauthorized)?;
        self.identify_key(&presented).await
    }

    /// What this instance remembers of `presented`, for the price of one cache lookup and no
    /// store read: a request that presents a key verified moments ago needs nothing more, and
    /// one verified longer ago may skip the failure budget (re-reading its row never runs
    /// argon2). A fresh entry of a key revoked or expired since is refused here, as
    /// [`Self::identify_key`] would refuse it.
    pub async fn recall(&self, presented: &DigestedKey) -> Result<Recall, AuthError> {
        let now = self.clock.now();
        match self.cached(presented, now).await {
            Cached::Fresh(entry) => self
                .usable_principal(presented, &entry, now)
                .await
                .map(Recall::Fresh),
            Cached::Stale(_) => Ok(Recall::Stale),
            Cached::Missing => Ok(Recall::Unknown),
        }
    }

    /// [`Self::identify`] for a key already parsed and digested.
    pub async fn identify_key(&self, presented: &DigestedKey) -> Result<Principal, AuthError> {
        let now = self.clock.now();
        let verified = match self.cached(presented, now).await {
            Cached::Fresh(entry) => entry,
            Cached::Stale(entry) => {
                self.verified.invalidate(&presented.digest).await;
                self.reload(presented, Some(entry), now).await?
            }
            Cached::Missing => self.reload(presented, None, now).await?,
        };
        self.usable_principal(presented, &verified, now).await
    }

    /// The cache's entry for `presented`, fresh or not; a fresh one counts as a cache hit.
    async fn cached(&self, presented: &DigestedKey, now: Timestamp) -> Cached {
        match self.verified.get(&presented.digest).await {
            Some(entry) if self.is_fresh(&entry, now) => {
                self.cache_hits.fetch_add(1, Ordering::Relaxed);
                Cached::Fresh(entry)
            }
            Some(entry) => Cached::Stale(entry),
            None => Cached::Missing,
        }
    }

    /// Loads and verifies the key into the cache; concurrent callers share one run.
    async fn reload(
        &self,
        presented: &DigestedKey,
        stale: Option<Arc<VerifiedKey>>,
        now: Timestamp,
    ) -> Result<Arc<VerifiedKey>, AuthError> {
        self.verified
            .try_get_with(
                presented.digest,
                self.load_and_verify(&presented.key, stale, now),
            )
            .await
            .map_err(unshare)
    }

    /// The caller of a verified entry, unless its key has been revoked or has expired: then
    /// the entry is forgotten and the request refused.
    async fn usable_principal(
        &self,
        presented: &DigestedKey,
        verified: &VerifiedKey,
        now: Timestamp,
    ) -> Result<Principal, AuthError> {
        let key = &verified.key;
        if !key.is_usable_at(now) {
            self.verified.invalidate(&presented.digest).await;
            let rejection = if key.revoked_at.is_some() {
                Rejection::Revoked
            } else {
                Rejection::Expired
            };
            return Err(AuthError::Unauthorized(rejection));
        }
        Ok(Principal {
            shop: verified.shop.clone(),
            key_prefix: key.prefix.clone(),
            key_label: key.label.clone(),
            scopes: key.scopes,
        })
    }

    fn is_fresh(&self, entry: &VerifiedKey, now: Timestamp) -> bool {
        let age = now.millis_since(entry.loaded_at);
        (0..self.freshness_millis).contains(&age)
    }

    /// Reads the key and its shop; runs argon2 unless the stored hash is the one this exact
    /// key was already verified against.
    async fn load_and_verify(
        &self,
        presented: &PresentedKey,
        stale: Option<Arc<VerifiedKey>>,
        now: Timestamp,
    ) -> Result<Arc<VerifiedKey>, AuthError> {
        let Some((key, shop)) = self.keys.find_key(presented.prefix()).await? else {
            return Err(AuthError::Unauthorized(Rejection::UnknownKey));
        };
        let already_verified = stale.is_some_and(|entry| entry.key.secret_hash == key.secret_hash);
        if !already_verified {
            self.verifications.fetch_add(1, Ordering::Relaxed);
            if !self
                .hasher
                .verify(presented.secret(), &key.secret_hash)
                .await?
            {
                return Err(AuthError::Unauthorized(Rejection::WrongSecret));
            }
        }
        Ok(Arc::new(VerifiedKey {
            key,
            shop,
            loaded_at: now,
        }))
    }
}

/// Requests that waited on another's verification share its error; rebuild an owned one of the
/// same kind (store and hashing causes keep their message for the log).
fn unshare(error: Arc<AuthError>) -> AuthError {
    Arc::try_unwrap(error).unwrap_or_else(|shared| match &*shared {
        AuthError::Unauthorized(rejection) => AuthError::Unauthorized(*rejection),
        AuthError::Denied(denied) => AuthError::Denied(*denied),
        AuthError::Store(StoreError::Unavailable(_)) => {
            AuthError::Store(StoreError::Unavailable(shared.to_string().into()))
        }
        AuthError::Store(_) => AuthError::Store(StoreError::Failure(shared.to_string().into())),
        AuthError::Hashing(_) => AuthError::Hashing(HashError(shared.to_string().into())),
    })
}

#[cfg(test)]
mod tests;
