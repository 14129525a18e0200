use std::sync::atomic::AtomicI64;
use std::sync::{Arc, Mutex};

use shop_domain::api_key::KeySecret;
use shop_domain::client_address::ClientAddress;
use shop_domain::id::ShopId;
use shop_domain::rate_limit::RateBudget;
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
        last_used_at: None,
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

/// Records every note of use, as (prefix, instant).
#[derive(Default)]
struct NotedUses(Mutex<Vec<(String, i64)>>);

impl KeyUsageSink for NotedUses {
    fn key_used(&self, prefix: &KeyPrefix, at: Timestamp) {
        self.0
            .lock()
            .unwrap()
            .push((prefix.to_string(), at.millis()));
    }
}

#[tokio::test]
async fn a_key_use_is_noted_once_a_minute_to_the_minute_across_rereads() {
    let harness = Harness::new();
    let noted = Arc::new(NotedUses::default());
    let auth = harness
        .authenticator(4, 1)
        .noting_use(noted.clone() as Arc<dyn KeyUsageSink>);
    // At 1 s, 6.5 s and 12 s (re-reads after the first, never argon2 again), then at 61 s.
    for step in [0, 5_500, 5_500, 49_000] {
        harness.advance(step);
        auth.authenticate(&presented().reveal(), Operation::Me)
            .await
            .unwrap();
    }
    let prefix = presented().prefix().to_string();
    assert_eq!(
        *noted.0.lock().unwrap(),
        [(prefix.clone(), 0), (prefix, 60_000)],
        "the first use of each minute, floored to the minute"
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

/// A clock that always says 1 s past the epoch.
fn fixed_clock() -> Arc<MockClock> {
    let mut clock = MockClock::new();
    clock
        .expect_now()
        .return_const(Timestamp::from_millis(1_000));
    Arc::new(clock)
}

/// An authenticator over the harness's stored key and a slow counting hasher, before it is
/// shared by tasks.
fn slow_authenticator_of(harness: &Harness) -> (Authenticator, Arc<SlowHasher>) {
    let mut keys = MockApiKeyStore::new();
    let row = Arc::clone(&harness.row);
    keys.expect_find_key()
        .returning(move |_| Ok(row.lock().unwrap().clone()));
    let hasher = Arc::new(SlowHasher {
        runs: std::sync::atomic::AtomicUsize::new(0),
    });
    let auth = Authenticator::new(Arc::new(keys), hasher.clone(), fixed_clock());
    (auth, hasher)
}

/// [`slow_authenticator_of`] the usual stored key, shareable by tasks.
fn slow_authenticator() -> (Arc<Authenticator>, Arc<SlowHasher>) {
    let (auth, hasher) = slow_authenticator_of(&Harness::new());
    (Arc::new(auth), hasher)
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

    auth.identify_key(&digested(), &ClientAddress::unknown())
        .await
        .unwrap();
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
    auth.identify_key(&digested(), &ClientAddress::unknown())
        .await
        .unwrap();
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

/// An authenticator over the harness's stored key and the slow counting hasher, held to
/// budgets of `per_client` failures per client and key on the domain's windows, behind `gate`.
fn budgeted_authenticator(
    harness: &Harness,
    per_client: u32,
    gate: ClientGate,
) -> (Arc<Authenticator>, Arc<SlowHasher>) {
    let budgets = FailureBudgets::new(
        Arc::new(crate::port::mock_on_real_windows()),
        fixed_clock(),
        RateBudget {
            limit: per_client,
            window_millis: 60_000,
        },
        RateBudget::KEY_FAILURES,
    );
    let (auth, hasher) = slow_authenticator_of(harness);
    let auth = auth
        .limiting_failures(Arc::new(budgets))
        .with_verification_gate(gate);
    (Arc::new(auth), hasher)
}

/// `count` concurrent requests from `client`, each with a distinct wrong secret.
fn wrong_secret_burst(
    auth: &Arc<Authenticator>,
    client: &ClientAddress,
    count: u8,
) -> Vec<tokio::task::JoinHandle<Result<Principal, AuthError>>> {
    (0..count)
        .map(|n| {
            let (auth, client) = (Arc::clone(auth), client.clone());
            tokio::spawn(async move {
                let key = DigestedKey::parse(&wrong_secret(n + 10)).unwrap();
                auth.identify_key(&key, &client).await
            })
        })
        .collect()
}

fn wrong_secret(n: u8) -> String {
    PresentedKey::new(
        presented().prefix().clone(),
        KeySecret::from_random_bytes([n; 32]),
    )
    .reveal()
}

#[tokio::test]
async fn a_concurrent_burst_of_distinct_wrong_secrets_runs_exactly_the_budget() {
    let (auth, hasher) = budgeted_authenticator(&Harness::new(), 3, ClientGate::new(1_000, 1_000));
    let client = ClientAddress::of("203.0.113.9".parse().unwrap());
    let burst = wrong_secret_burst(&auth, &client, 50);
    let mut throttled = 0;
    for request in burst {
        match request.await.unwrap() {
            Err(AuthError::Throttled(throttle)) => {
                assert_eq!(throttle.by, ThrottledBy::Client);
                throttled += 1;
            }
            Err(AuthError::Unauthorized(Rejection::WrongSecret)) => {}
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(
        hasher.runs.load(Ordering::SeqCst),
        3,
        "reserved before verifying"
    );
    assert_eq!(throttled, 47);
    // The right secret from the same address meets the same spent budget for that key.
    let right = DigestedKey::parse(&presented().reveal()).unwrap();
    assert!(matches!(
        auth.identify_key(&right, &client).await,
        Err(AuthError::Throttled(_))
    ));
    // From another address it is verified, and its slots given back.
    let elsewhere = ClientAddress::of("198.51.100.1".parse().unwrap());
    assert!(auth.identify_key(&right, &elsewhere).await.is_ok());
}

#[tokio::test]
async fn verifications_beyond_the_gate_are_refused_at_once() {
    let (auth, hasher) = budgeted_authenticator(&Harness::new(), 100, ClientGate::new(2, 1));
    let flooder = ClientAddress::of("203.0.113.9".parse().unwrap());
    let burst = wrong_secret_burst(&auth, &flooder, 5);
    // Meanwhile a quiet client's valid key, verified for the first time, gets the other place.
    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    let quiet = ClientAddress::of("198.51.100.1".parse().unwrap());
    let right = DigestedKey::parse(&presented().reveal()).unwrap();
    assert!(auth.identify_key(&right, &quiet).await.is_ok());
    let mut queued_out = 0;
    for request in burst {
        if let Err(AuthError::Throttled(throttle)) = request.await.unwrap() {
            assert_eq!(throttle.by, ThrottledBy::Queue);
            assert_eq!(throttle.status.retry_after_seconds(), 1);
            queued_out += 1;
        }
    }
    assert_eq!(queued_out, 4, "one place per client");
    assert_eq!(hasher.runs.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_revoked_key_is_refused_without_a_verification_and_counted() {
    let harness = Harness::new();
    harness.update(|key, _| key.revoked_at = Some(Timestamp::from_millis(10)));
    let (auth, hasher) = budgeted_authenticator(&harness, 1, ClientGate::for_verifications());
    let client = ClientAddress::of("203.0.113.9".parse().unwrap());
    let right = DigestedKey::parse(&presented().reveal()).unwrap();
    assert!(matches!(
        auth.identify_key(&right, &client).await,
        Err(AuthError::Unauthorized(Rejection::Revoked))
    ));
    assert!(matches!(
        auth.identify_key(&right, &client).await,
        Err(AuthError::Throttled(_))
    ));
    assert_eq!(hasher.runs.load(Ordering::SeqCst), 0, "never verified");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_client_over_its_budget_is_looked_up_one_request_at_a_time() {
    use std::sync::atomic::AtomicUsize;

    let lookups = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&lookups);
    let mut keys = MockApiKeyStore::new();
    keys.expect_find_key().returning(move |prefix| {
        counted.fetch_add(1, Ordering::SeqCst);
        // A store busy long enough for the whole burst to arrive while one lookup is under way.
        std::thread::sleep(std::time::Duration::from_millis(50));
        Ok((prefix == presented().prefix()).then(|| (stored_key(), shop())))
    });
    let mut hasher = MockSecretHasher::new();
    hasher.expect_verify().returning(|_, _| Ok(true));
    let one_a_minute = RateBudget {
        limit: 1,
        window_millis: 60_000,
    };
    let budgets = FailureBudgets::new(
        Arc::new(crate::port::mock_on_real_windows()),
        fixed_clock(),
        one_a_minute,
        RateBudget::KEY_FAILURES,
    );
    let auth = Arc::new(
        Authenticator::new(Arc::new(keys), Arc::new(hasher), fixed_clock())
            .limiting_failures(Arc::new(budgets)),
    );
    let unknown = |n: u8| {
        let key = PresentedKey::new(
            KeyPrefix::from_random_bytes([9, 9, 9, n]),
            KeySecret::from_random_bytes([n; 32]),
        );
        DigestedKey::parse(&key.reveal()).unwrap()
    };
    let flooder = ClientAddress::of("203.0.113.9".parse().unwrap());
    assert!(matches!(
        auth.identify_key(&unknown(0), &flooder).await,
        Err(AuthError::Unauthorized(Rejection::UnknownKey))
    ));

    let burst: Vec<_> = (1..=10u8)
        .map(|n| {
            let (auth, flooder) = (Arc::clone(&auth), flooder.clone());
            tokio::spawn(async move { auth.identify_key(&unknown(n), &flooder).await })
        })
        .collect();
    for request in burst {
        match request.await.unwrap() {
            // Looked up: an unknown key, told the budget's wait.
            Err(AuthError::Throttled(throttle)) if throttle.by == ThrottledBy::Client => {
                assert!(throttle.status.retry_after_seconds() > 1, "{throttle:?}");
            }
            // Not looked up: told when the gate lets it through, within a second.
            Err(AuthError::Throttled(throttle)) => {
                assert_eq!(throttle.by, ThrottledBy::LookupPace);
                assert_eq!(throttle.status.retry_after_seconds(), 1);
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(
        lookups.load(Ordering::SeqCst),
        2,
        "one lookup under way at a time"
    );

    // Another integration behind the same address still gets its real key through.
    let right = DigestedKey::parse(&presented().reveal()).unwrap();
    let result = auth.identify_key(&right, &flooder).await;
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(lookups.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_key_refused_by_the_lookup_pace_is_told_its_next_slot_and_let_through_then() {
    let harness = Harness::new();
    let mut keys = MockApiKeyStore::new();
    let row = Arc::clone(&harness.row);
    keys.expect_find_key().returning(move |prefix| {
        Ok(row
            .lock()
            .unwrap()
            .clone()
            .filter(|(key, _)| key.prefix == *prefix))
    });
    let mut hasher = MockSecretHasher::new();
    hasher.expect_verify().returning(|_, _| Ok(true));
    let mut clock = MockClock::new();
    let now = Arc::clone(&harness.now);
    clock
        .expect_now()
        .returning(move || Timestamp::from_millis(now.load(Ordering::SeqCst)));
    let clock: Arc<MockClock> = Arc::new(clock);
    // The server's own failure budgets: 30 a minute from one address.
    let budgets = FailureBudgets::new(
        Arc::new(crate::port::mock_on_real_windows()),
        clock.clone(),
        RateBudget::AUTH_FAILURES,
        RateBudget::KEY_FAILURES,
    );
    let auth = Authenticator::new(Arc::new(keys), Arc::new(hasher), clock)
        .limiting_failures(Arc::new(budgets));
    let flooder = ClientAddress::of("203.0.113.9".parse().unwrap());
    // 40 unknown keys, one a millisecond: the budget is spent, then the lookups are paced.
    for n in 0..40u8 {
        let unknown = PresentedKey::new(
            KeyPrefix::from_random_bytes([9, 9, 9, n]),
            KeySecret::from_random_bytes([n; 32]),
        );
        let refused = auth
            .identify_key(&DigestedKey::parse(&unknown.reveal()).unwrap(), &flooder)
            .await;
        assert!(refused.is_err());
        harness.advance(1);
    }

    let right = DigestedKey::parse(&presented().reveal()).unwrap();
    let throttle = match auth.identify_key(&right, &flooder).await {
        Err(AuthError::Throttled(throttle)) => throttle,
        other => panic!("paced out: {other:?}"),
    };
    assert_eq!(throttle.by, ThrottledBy::LookupPace);
    let retry_after = throttle.status.retry_after_seconds();
    assert_eq!(
        retry_after, 1,
        "the pace's next slot, not the budget's 60 s"
    );
    harness.advance(retry_after * 1_000);
    let result = auth.identify_key(&right, &flooder).await;
    assert!(result.is_ok(), "let through on the first retry: {result:?}");
}
