//! Authenticating a bearer key and authorising an operation.
//!
//! argon2 costs many milliseconds of CPU per verification (see docs/performance-log.md,
//! "argon2 verification"), so a successful verification is remembered in a bounded
//! in-process cache keyed by the SHA-256 digest of the full key (the
//! secret itself is never kept). The key row and its shop are re-read from the store when the
//! cached copy is older than `freshness` (5 s by default), which bounds how long a
//! revocation, an expiry or a plan/subscription change takes to apply. Re-reading does not
//! re-run argon2 as long as the stored hash is the one already verified. Failed
//! verifications are never cached. Concurrent requests with the same key share ONE load and
//! verification (the cache coalesces them), so a burst on a fresh key costs one argon2 run,
//! not one per request.
//!
//! A key this instance has not verified yet is held to the failure budgets (`authenticate/failures.rs`):
//! before its secret is verified, a slot is reserved in the client's budget for that key and in
//! the key's own, and given back if the secret is right; an unknown prefix, or a revoked or
//! expired key (refused without a verification), counts against the client. At most a few
//! verifications are under way at once, and a client over its budget is looked up one
//! request at a time (`usecase/client_gate.rs`). Keys already verified never meet either.
//!
//! When the key's use is noted (a [`KeyUsageSink`], for the console's "last used"), each
//! cached key notes it at most once per minute on this instance: one atomic compare on the
//! request's path, and the sink does the writing elsewhere.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use moka::future::Cache;
use shop_domain::Timestamp;
use shop_domain::access::{AccessDenied, authorize};
use shop_domain::api_key::{ApiKey, KeyPrefix, KeyStatus, PresentedKey};
use shop_domain::client_address::ClientAddress;
use shop_domain::scope::{Operation, ScopeSet};
use shop_domain::shop::Shop;

use crate::StoreError;
use crate::port::{ApiKeyStore, Clock, HashError, KeyUsageSink, SecretHasher};

mod failures;

use crate::usecase::client_gate::{Admission, ClientGate};
use crate::usecase::reserved_slots::ReservedSlots;
pub use failures::{FailureBudgets, Throttle, ThrottledBy};

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
    /// Refused before any verification: a failure budget is spent, or too many verifications
    /// are under way. 429 with `Retry-After`.
    #[error("too many failed authentications ({})", .0.by.as_str())]
    Throttled(Throttle),
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
    /// The last minute (epoch milliseconds) this instance noted the key's use, carried over
    /// when the entry is re-read.
    use_noted_minute: AtomicI64,
}

impl VerifiedKey {
    /// The minute to note if the use at `now` is the first of it. Every request of a busy key
    /// asks: a plain load answers all but the first of each minute, without writing the
    /// shared cache line; the read-modify-write settles which of that minute's first requests
    /// notes it.
    fn first_use_of_minute(&self, now: Timestamp) -> Option<Timestamp> {
        let minute = now.floor_to_minute();
        let millis = minute.millis();
        let first = self.use_noted_minute.load(Ordering::Relaxed) < millis
            && self.use_noted_minute.fetch_max(millis, Ordering::Relaxed) < millis;
        first.then_some(minute)
    }
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
    usage: Option<Arc<dyn KeyUsageSink>>,
    failures: Option<Arc<FailureBudgets>>,
    verification_gate: ClientGate,
    lookup_gate: ClientGate,
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
            usage: None,
            failures: None,
            verification_gate: ClientGate::for_verifications(),
            lookup_gate: ClientGate::for_lookups_over_budget(),
        }
    }

    /// Holds keys this instance has not verified to `budgets` (without: no limit).
    pub fn limiting_failures(mut self, budgets: Arc<FailureBudgets>) -> Self {
        self.failures = Some(budgets);
        self
    }

    /// At most `gate`'s verifications under way at once, instead of
    /// [`ClientGate::for_verifications`].
    #[cfg(test)]
    pub(crate) fn with_verification_gate(mut self, gate: ClientGate) -> Self {
        self.verification_gate = gate;
        self
    }

    /// Counts a failure that cost no verification (no key, a malformed one) against
    /// `client`: `Err` when its budget was spent already.
    pub async fn count_unverified_failure(&self, client: &ClientAddress) -> Result<(), Throttle> {
        match &self.failures {
            Some(budgets) => budgets.count_unverified_failure(client).await,
            None => Ok(()),
        }
    }

    /// Notes each key's use, at most once a minute per key, to `sink`.
    pub fn noting_use(mut self, sink: Arc<dyn KeyUsageSink>) -> Self {
        self.usage = Some(sink);
        self
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
        self.identify_key(&presented, &ClientAddress::unknown())
            .await
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

    /// [`Self::identify`] for a key already parsed and digested, presented by `client` (whose
    /// budgets a first verification is held to).
    pub async fn identify_key(
        &self,
        presented: &DigestedKey,
        client: &ClientAddress,
    ) -> Result<Principal, AuthError> {
        let now = self.clock.now();
        let verified = match self.cached(presented, now).await {
            Cached::Fresh(entry) => entry,
            Cached::Stale(entry) => {
                self.verified.invalidate(&presented.digest).await;
                self.reload(presented, Some(entry), client, now).await?
            }
            Cached::Missing => {
                let _lookup = self.admit_lookup(client).await?;
                self.reload(presented, None, client, now).await?
            }
        };
        self.usable_principal(presented, &verified, now).await
    }

    /// A client whose budget of failures is spent may still present a real key (another
    /// integration behind the same NAT), so it is still looked up, but through the lookup
    /// gate: one lookup at a time and a few a second. The rest is refused at once with the
    /// gate's wait, a fraction of a second, not the budget's: the gate cannot tell a real key
    /// from an unknown one before the lookup, and a real one is let through at its next slot
    /// (an unknown one then meets the budget, and is told the budget's wait). Anyone else
    /// passes freely.
    async fn admit_lookup(
        &self,
        client: &ClientAddress,
    ) -> Result<Option<Admission<'_>>, AuthError> {
        let Some(budgets) = &self.failures else {
            return Ok(None);
        };
        if budgets.spent_by(client).await.is_none() {
            return Ok(None);
        }
        self.lookup_gate
            .admit(client, self.clock.now())
            .map(Some)
            .map_err(|refused| {
                AuthError::Throttled(Throttle::at_the_gate(ThrottledBy::LookupPace, refused))
            })
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

    /// Loads and verifies the key into the cache; concurrent callers share one run (held to
    /// the budgets of the client that started it).
    async fn reload(
        &self,
        presented: &DigestedKey,
        stale: Option<Arc<VerifiedKey>>,
        client: &ClientAddress,
        now: Timestamp,
    ) -> Result<Arc<VerifiedKey>, AuthError> {
        self.verified
            .try_get_with(
                presented.digest,
                self.load_and_verify(&presented.key, stale, client, now),
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
        if let Some(rejection) = unusable_at(key, now) {
            self.verified.invalidate(&presented.digest).await;
            return Err(AuthError::Unauthorized(rejection));
        }
        if let Some(usage) = &self.usage
            && let Some(minute) = verified.first_use_of_minute(now)
        {
            usage.key_used(&key.prefix, minute);
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
    /// key was already verified against. An unknown prefix, and a key that is revoked or
    /// expired (refused whatever its secret, so not verified), count against `client`.
    async fn load_and_verify(
        &self,
        presented: &PresentedKey,
        stale: Option<Arc<VerifiedKey>>,
        client: &ClientAddress,
        now: Timestamp,
    ) -> Result<Arc<VerifiedKey>, AuthError> {
        let Some((key, shop)) = self.keys.find_key(presented.prefix()).await? else {
            self.count_unverified_failure(client)
                .await
                .map_err(AuthError::Throttled)?;
            return Err(AuthError::Unauthorized(Rejection::UnknownKey));
        };
        let noted = stale.as_ref().map_or(i64::MIN, |entry| {
            entry.use_noted_minute.load(Ordering::Relaxed)
        });
        let already_verified = stale.is_some_and(|entry| entry.key.secret_hash == key.secret_hash);
        if !already_verified {
            if let Some(rejection) = unusable_at(&key, now) {
                self.count_unverified_failure(client)
                    .await
                    .map_err(AuthError::Throttled)?;
                return Err(AuthError::Unauthorized(rejection));
            }
            self.verify(presented, &key, client).await?;
        }
        Ok(Arc::new(VerifiedKey {
            key,
            shop,
            loaded_at: now,
            use_noted_minute: AtomicI64::new(noted),
        }))
    }
}

impl Authenticator {
    /// One verification of a key this instance has not verified, held to the client's and the
    /// key's failure budgets (slots given back if the secret is right) and to the gate.
    async fn verify(
        &self,
        presented: &PresentedKey,
        key: &ApiKey,
        client: &ClientAddress,
    ) -> Result<(), AuthError> {
        let reserved = match &self.failures {
            Some(budgets) => Some(
                budgets
                    .reserve_verification(client, &key.prefix)
                    .await
                    .map_err(AuthError::Throttled)?,
            ),
            None => None,
        };
        let admission = match self.verification_gate.admit(client, self.clock.now()) {
            Ok(admission) => admission,
            Err(refused) => {
                self.give_back(reserved).await;
                return Err(AuthError::Throttled(Throttle::at_the_gate(
                    ThrottledBy::Queue,
                    refused,
                )));
            }
        };
        self.verifications.fetch_add(1, Ordering::Relaxed);
        let matched = self
            .hasher
            .verify(presented.secret(), &key.secret_hash)
            .await;
        drop(admission);
        match matched {
            Ok(true) => {
                self.give_back(reserved).await;
                Ok(())
            }
            // A failure: its slots stay taken.
            Ok(false) => Err(AuthError::Unauthorized(Rejection::WrongSecret)),
            Err(error) => {
                self.give_back(reserved).await;
                Err(error.into())
            }
        }
    }

    async fn give_back(&self, reserved: Option<ReservedSlots>) {
        if let (Some(budgets), Some(reserved)) = (&self.failures, reserved) {
            budgets.give_back(reserved).await;
        }
    }
}

/// Why a stored key is refused at `now`, if it is.
fn unusable_at(key: &ApiKey, now: Timestamp) -> Option<Rejection> {
    match key.status_at(now) {
        KeyStatus::Active => None,
        KeyStatus::Revoked => Some(Rejection::Revoked),
        KeyStatus::Expired => Some(Rejection::Expired),
    }
}

/// Requests that waited on another's verification share its error; rebuild an owned one of the
/// same kind (store and hashing causes keep their message for the log).
fn unshare(error: Arc<AuthError>) -> AuthError {
    Arc::try_unwrap(error).unwrap_or_else(|shared| match &*shared {
        AuthError::Unauthorized(rejection) => AuthError::Unauthorized(*rejection),
        AuthError::Denied(denied) => AuthError::Denied(*denied),
        AuthError::Throttled(throttle) => AuthError::Throttled(*throttle),
        AuthError::Store(StoreError::Unavailable(_)) => {
            AuthError::Store(StoreError::Unavailable(shared.to_string().into()))
        }
        AuthError::Store(_) => AuthError::Store(StoreError::Failure(shared.to_string().into())),
        AuthError::Hashing(_) => AuthError::Hashing(HashError(shared.to_string().into())),
    })
}

#[cfg(test)]
mod tests;
