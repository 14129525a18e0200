use std::sync::atomic::AtomicI64;
use std::sync::{Arc, Mutex};

use shop_domain::api_key::KeySecret;
use shop_domain::id::ShopId;
use shop_domain::scope::Scope;
use shop_domain::shop::{ShopSlug, SubscriptionStatus};

use super::*;
use crate::port::{MockApiKeyStore, MockClock, MockSecretHasher, SecretHasher};

const HASH: &str = "$argon2id$stored";

fn presented() -> PresentedKey {
    PresentedKey::new(
        KeyPrefix::from_random_bytes([1, 2, 3, 4]),
        KeySecret::from_random_bytes([7; 32]),
    )
}

fn stored_key() -> ApiKey {
    ApiKey {
        prefix: presented().prefix().clone(),
        shop_id: ShopId::parse("shop_a").unwrap(),
        label: "ERP".into(),
        scopes: ScopeSet::parse_list("products:read").unwrap(),
        secret_hash: HASH.into(),
        created_at: Timestamp::from_millis(0),
        expires_at: None,
        revoked_at: None,
    }
}

fn shop() -> Shop {
    Shop {
        id: ShopId::parse("shop_a").unwrap(),
        slug: ShopSlug::parse("a").unwrap(),
        name: "A".into(),
        public_api_in_plan: true,
        subscription: SubscriptionStatus::Active,
    }
}

/// A store whose row can be changed between calls, a clock that the test moves, and a hasher
/// that accepts `presented()`'s secret and counts its calls through mockall's `times`.
struct Harness {
    row: Arc<Mutex<Option<(ApiKey, Shop)>>>,
    now: Arc<AtomicI64>,
}

impl Harness {
    fn new() -> Self {
        Self {
            row: Arc::new(Mutex::new(Some((stored_key(), shop())))),
            now: Arc::new(AtomicI64::new(1_000)),
        }
    }

    fn authenticator(&self, store_reads: usize, verifications: usize) -> Authenticator {
        let mut keys = MockApiKeyStore::new();
        let row = Arc::clone(&self.row);
        keys.expect_find_key()
            .times(store_reads)
            .returning(move |_| Ok(row.lock().unwrap().clone()));
        let mut hasher = MockSecretHasher::new();
        hasher
            .expect_verify()
            .times(verifications)
            .returning(|secret, phc| Ok(phc == HASH && *secret == *presented().secret()));
        let mut clock = MockClock::new();
        let now = Arc::clone(&self.now);
        clock
            .expect_now()
            .returning(move || Timestamp::from_millis(now.load(Ordering::SeqCst)));
        Authenticator::new(Arc::new(keys), Arc::new(hasher), Arc::new(clock))
    }

    fn advance(&self, millis: i64) {
        self.now.fetch_add(millis, Ordering::SeqCst);
    }

    fn update(&self, change: impl FnOnce(&mut ApiKey, &mut Shop)) {
        let mut row = self.row.lock().unwrap();
        let (key, shop) = row.as_mut().unwrap();
        change(key, shop);
    }
}

#[tokio::test]
async fn malformed_keys_are_refused_without_touching_the_store() {
    let auth = Harness::new().authenticator(0, 0);
    for token in [
        "",
        "svc_live_x",
        "Basic abc",
        &presented().reveal().to_uppercase(),
    ] {
        let refused = auth.authenticate(token, Operation::Me).await;
        assert!(
            matches!(refused, Err(AuthError::Unauthorized(Rejection::Malformed))),
            "{token}"
        );
    }
}

#[tokio::test]
async fn unknown_prefix_is_unauthorized() {
    let harness = Harness::new();
    *harness.row.lock().unwrap() = None;
    let auth = harness.authenticator(1, 0);
    assert!(matches!(
        auth.authenticate(&presented().reveal(), Operation::Me)
            .await,
        Err(AuthError::Unauthorized(Rejection::UnknownKey))
    ));
}

#[tokio::test]
async fn a_verified_key_does_not_run_argon2_again() {
    let harness = Harness::new();
    let auth = harness.authenticator(1, 1);
    for _ in 0..5 {
        let principal = auth
            .authenticate(&presented().reveal(), Operation::ListProducts)
            .await
            .unwrap();
        assert_eq!(principal.key_label, "ERP");
        harness.advance(100);
    }
    assert_eq!(
        auth.stats(),
        AuthStats {
            argon2_verifications: 1,
            cache_hits: 4
        }
    );
}

#[tokio::test]
async fn a_stale_entry_rereads_the_key_but_does_not_rehash() {
    let harness = Harness::new();
    let auth = harness.authenticator(2, 1);
    auth.authenticate(&presented().reveal(), Operation::Me)
        .await
        .unwrap();
    harness.advance(5_000);
    auth.authenticate(&presented().reveal(), Operation::Me)
        .await
        .unwrap();
    assert_eq!(auth.stats().argon2_verifications, 1);
}

#[tokio::test]
async fn a_wrong_secret_is_refused_every_time_and_never_cached() {
    let harness = Harness::new();
    let auth = harness.authenticator(2, 2);
    let wrong = PresentedKey::new(
        presented().prefix().clone(),
        KeySecret::from_random_bytes([8; 32]),
    );
    for _ in 0..2 {
        assert!(matches!(
            auth.authenticate(&wrong.reveal(), Operation::Me).await,
            Err(AuthError::Unauthorized(Rejection::WrongSecret))
        ));
    }
}

#[tokio::test]
async fn a_revoked_key_is_refused_within_the_freshness_delay() {
    let harness = Harness::new();
    let auth = harness.authenticator(2, 1);
    auth.authenticate(&presented().reveal(), Operation::Me)
        .await
        .unwrap();
    harness.update(|key, _| key.revoked_at = Some(Timestamp::from_millis(1_001)));

    harness.advance(4_999);
    assert!(
        auth.authenticate(&presented().reveal(), Operation::Me)
            .await
            .is_ok(),
        "still inside the window"
    );
    harness.advance(1);
    assert!(matches!(
        auth.authenticate(&presented().reveal(), Operation::Me)
            .await,
        Err(AuthError::Unauthorized(Rejection::Revoked))
    ));
}

#[tokio::test]
async fn a_key_expiring_while_cached_is_refused_at_once() {
    let harness = Harness::new();
    harness.update(|key, _| key.expires_at = Some(Timestamp::from_millis(1_500)));
    let auth = harness.authenticator(1, 1);
    auth.authenticate(&presented().reveal(), Operation::Me)
        .await
        .unwrap();
    harness.advance(500);
    assert!(matches!(
        auth.authenticate(&presented().reveal(), Operation::Me)
            .await,
        Err(AuthError::Unauthorized(Rejection::Expired))
    ));
}

#[tokio::test]
async fn plan_and_subscription_changes_apply_after_the_freshness_delay() {
    let harness = Harness::new();
    let auth = harness.authenticator(3, 1);
    auth.authenticate(&presented().reveal(), Operation::Me)
        .await
        .unwrap();

    harness.update(|_, shop| shop.public_api_in_plan = false);
    harness.advance(5_000);
    let denied = auth
        .authenticate(&presented().reveal(), Operation::Me)
        .await;
    assert!(matches!(
        denied,
        Err(AuthError::Denied(AccessDenied::FeatureNotInPlan))
    ));

    harness.update(|_, shop| {
        shop.public_api_in_plan = true;
        shop.subscription = SubscriptionStatus::Expired;
    });
    harness.advance(5_000);
    let denied = auth
        .authenticate(&presented().reveal(), Operation::Me)
        .await;
    assert!(matches!(
        denied,
        Err(AuthError::Denied(AccessDenied::SubscriptionInactive))
    ));
}

#[tokio::test]
async fn a_key_without_the_scope_is_denied_after_authentication() {
    let auth = Harness::new().authenticator(1, 1);
    let denied = auth
        .authenticate(&presented().reveal(), Operation::ListOrders)
        .await;
    assert!(matches!(
        denied,
        Err(AuthError::Denied(AccessDenied::InsufficientScope {
            required: Scope::OrdersRead
        }))
    ));
}

#[tokio::test]
async fn store_outages_surface_as_store_errors() {
    let mut keys = MockApiKeyStore::new();
    keys.expect_find_key()
        .returning(|_| Err(StoreError::Unavailable("pool timed out".into())));
    let mut clock = MockClock::new();
    clock.expect_now().return_const(Timestamp::from_millis(0));
    let auth = Authenticator::new(
        Arc::new(keys),
        Arc::new(MockSecretHasher::new()),
        Arc::new(clock),
    );
    let failed = auth
        .authenticate(&presented().reveal(), Operation::Me)
        .await;
    assert!(matches!(
        failed,
        Err(AuthError::Store(StoreError::Unavailable(_)))
    ));
}

/// A hasher that takes its time, as argon2 does, and counts its runs.
struct SlowHasher {
    runs: std::sync::atomic::AtomicUsize,
}

#[async_trait::async_trait]
impl SecretHasher for SlowHasher {
    async fn hash(&self, _: &KeySecret) -> Result<String, HashError> {
        unreachable!("authentication never hashes")
    }

    async fn verify(&self, secret: &KeySecret, phc: &str) -> Result<bool, HashError> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        Ok(phc == HASH && *secret == *presented().secret())
    }
}

/// An authenticator over the usual stored key and a slow counting hasher, shareable by tasks.
fn slow_authenticator() -> (Arc<Authenticator>, Arc<SlowHasher>) {
    let harness = Harness::new();
    let mut keys = MockApiKeyStore::new();
    let row = Arc::clone(&harness.row);
    keys.expect_find_key()
        .returning(move |_| Ok(row.lock().unwrap().clone()));
    let mut clock = MockClock::new();
    clock
        .expect_now()
        .return_const(Timestamp::from_millis(1_000));
    let hasher = Arc::new(SlowHasher {
        runs: std::sync::atomic::AtomicUsize::new(0),
    });
    let auth = Arc::new(Authenticator::new(
        Arc::new(keys),
        hasher.clone(),
        Arc::new(clock),
    ));
    (auth, hasher)
}

#[tokio::test]
async fn a_burst_on_a_fresh_key_runs_argon2_once() {
    let (auth, hasher) = slow_authenticator();

    let mut burst = Vec::new();
    for _ in 0..20 {
        let auth = Arc::clone(&auth);
        burst.push(tokio::spawn(async move {
            auth.authenticate(&presented().reveal(), Operation::Me)
                .await
        }));
    }
    for request in burst {
        assert!(request.await.unwrap().is_ok());
    }
    assert_eq!(hasher.runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_burst_of_wrong_secrets_shares_one_run_and_is_refused_every_time() {
    let (auth, hasher) = slow_authenticator();
    let wrong = PresentedKey::new(
        presented().prefix().clone(),
        KeySecret::from_random_bytes([8; 32]),
    );

    let mut burst = Vec::new();
    for _ in 0..10 {
        let (auth, token) = (Arc::clone(&auth), wrong.reveal());
        burst.push(tokio::spawn(async move {
            auth.authenticate(&token, Operation::Me).await
        }));
    }
    for request in burst {
        assert!(matches!(
            request.await.unwrap(),
            Err(AuthError::Unauthorized(Rejection::WrongSecret))
        ));
    }
    assert!(
        hasher.runs.load(Ordering::SeqCst) < 10,
        "concurrent identical attempts are coalesced"
    );
    // Failures are not cached: a later attempt verifies again.
    let before = hasher.runs.load(Ordering::SeqCst);
    assert!(matches!(
        auth.authenticate(&wrong.reveal(), Operation::Me).await,
        Err(AuthError::Unauthorized(Rejection::WrongSecret))
    ));
    assert_eq!(hasher.runs.load(Ordering::SeqCst), before + 1);
}

fn digested() -> DigestedKey {
    DigestedKey::parse(&presented().reveal()).unwrap()
}

#[tokio::test]
async fn recall_knows_a_key_only_once_verified_and_for_the_freshness_delay() {
    let harness = Harness::new();
    let auth = harness.authenticator(1, 1);
    assert!(matches!(
        auth.recall(&digested()).await,
        Ok(Recall::Unknown)
    ));

    auth.identify_key(&digested()).await.unwrap();
    harness.advance(4_999);
    let Ok(Recall::Fresh(principal)) = auth.recall(&digested()).await else {
        panic!("a key verified 4,999 ms ago is recalled without a store read");
    };
    assert_eq!(principal.key_label, "ERP");
    assert_eq!(auth.stats().cache_hits, 1);

    harness.advance(1);
    assert!(matches!(auth.recall(&digested()).await, Ok(Recall::Stale)));
}

#[tokio::test]
async fn recall_refuses_a_key_that_expired_while_cached_and_forgets_it() {
    let harness = Harness::new();
    harness.update(|key, _| key.expires_at = Some(Timestamp::from_millis(1_500)));
    let auth = harness.authenticator(1, 1);
    auth.identify_key(&digested()).await.unwrap();
    harness.advance(500);
    assert!(matches!(
        auth.recall(&digested()).await,
        Err(AuthError::Unauthorized(Rejection::Expired))
    ));
    assert!(matches!(
        auth.recall(&digested()).await,
        Ok(Recall::Unknown)
    ));
}

#[test]
fn a_token_that_is_not_a_key_is_malformed() {
    for token in ["", "svc_live_x", &presented().reveal().to_uppercase()] {
        assert!(
            matches!(DigestedKey::parse(token), Err(Rejection::Malformed)),
            "{token}"
        );
    }
}
