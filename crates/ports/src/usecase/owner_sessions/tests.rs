use std::sync::Mutex;

use shop_domain::Timestamp;
use shop_domain::client_address::ClientAddress;
use shop_domain::id::{OwnerId, ShopId};
use shop_domain::owner::Owner;
use shop_domain::owner_session::SessionDigest;
use shop_domain::rate_limit::RateStatus;
use shop_domain::shop::{Shop, ShopSlug, SubscriptionStatus};

use super::*;

use crate::port::{
    MockClock, MockOwnerStore, MockPasswordHasher, MockRandomTokens, MockRateLimitStore,
    MockSessionStore, Reservation, Slot,
};

const NOW: i64 = 1_000_000_000;
const PASSWORD: &str = "correct horse battery";

fn owner(disabled: bool) -> Owner {
    Owner {
        id: OwnerId::parse("owner_1").unwrap(),
        shop_id: ShopId::parse("shop_1").unwrap(),
        email: OwnerEmail::parse("ana@boutique.fr").unwrap(),
        password_hash: "phc-of-the-password".into(),
        created_at: Timestamp::from_millis(0),
        disabled_at: disabled.then(|| Timestamp::from_millis(1)),
    }
}

fn shop() -> Shop {
    Shop {
        id: ShopId::parse("shop_1").unwrap(),
        slug: ShopSlug::parse("boutique").unwrap(),
        name: "Boutique".into(),
        public_api_in_plan: true,
        subscription: SubscriptionStatus::Active,
    }
}

fn reservation(allowed: bool) -> Reservation {
    Reservation {
        status: RateStatus {
            allowed,
            limit: 10,
            remaining: u32::from(allowed),
            reset_after_millis: 61_500,
        },
        slot: allowed.then(|| Slot::new("1")),
    }
}

fn client() -> ClientAddress {
    ClientAddress::of("203.0.113.7".parse().unwrap())
}

/// Owners: only `ana@boutique.fr`, enabled unless `disabled`; every budget has room (and no
/// slot is given back unless a test expects it); no verification expected unless asked for.
struct Setup {
    owners: MockOwnerStore,
    sessions: MockSessionStore,
    hasher: MockPasswordHasher,
    windows: MockRateLimitStore,
    now: i64,
}

impl Setup {
    fn new(disabled: bool) -> Self {
        let mut owners = MockOwnerStore::new();
        owners.expect_find_owner_by_email().returning(move |email| {
            Ok((email.as_str() == "ana@boutique.fr").then(|| (owner(disabled), shop())))
        });
        let mut windows = MockRateLimitStore::new();
        windows
            .expect_reserve()
            .returning(|_, _, _| Ok(reservation(true)));
        Self {
            owners,
            sessions: MockSessionStore::new(),
            hasher: MockPasswordHasher::new(),
            windows,
            now: NOW,
        }
    }

    /// The stored hash accepts `PASSWORD`; exactly one verification is expected.
    fn verifies_once(mut self) -> Self {
        self.hasher
            .expect_verify_password()
            .times(1)
            .returning(|password, _| Ok(password.expose() == PASSWORD));
        self
    }

    fn build(self) -> OwnerSessions {
        let counter = Mutex::new(0u8);
        let mut tokens = MockRandomTokens::new();
        tokens.expect_random_bytes().returning(move || {
            let mut n = counter.lock().unwrap();
            *n += 1;
            [*n; 32]
        });
        let mut clock = MockClock::new();
        clock
            .expect_now()
            .return_const(Timestamp::from_millis(self.now));
        OwnerSessions::new(
            Arc::new(self.owners),
            Arc::new(self.sessions),
            Arc::new(self.hasher),
            Arc::new(self.windows),
            Arc::new(tokens),
            Arc::new(clock),
            SignInLimits::default(),
        )
    }
}

/// A failed attempt: a slot reserved in the e-mail's and the address's budget, and kept.
fn expect_failure_recorded(windows: &mut MockRateLimitStore, email_bucket: &'static str) {
    *windows = MockRateLimitStore::new();
    windows
        .expect_reserve()
        .withf(move |bucket, budget, _| {
            bucket == email_bucket && budget.limit == 10 && budget.window_millis == 900_000
        })
        .times(1)
        .returning(|_, _, _| Ok(reservation(true)));
    windows
        .expect_reserve()
        .withf(|bucket, budget, _| bucket == "signin:ip:203.0.113.7" && budget.limit == 30)
        .times(1)
        .returning(|_, _, _| Ok(reservation(true)));
    windows.expect_release().times(0);
}

#[tokio::test]
async fn an_unknown_email_costs_one_verification_and_the_generic_answer() {
    let mut setup = Setup::new(false);
    setup
        .hasher
        .expect_verify_decoy()
        .times(1)
        .returning(|_| Ok(()));
    expect_failure_recorded(&mut setup.windows, "signin:email:nobody@boutique.fr");
    let result = setup
        .build()
        .sign_in(
            "Nobody@Boutique.fr",
            &Password::attempt(PASSWORD),
            &client(),
            None,
        )
        .await;
    assert!(matches!(result, Err(SignInError::InvalidCredentials)));
}

#[tokio::test]
async fn a_wrong_password_and_a_disabled_owner_get_the_same_answer() {
    for (disabled, password) in [(false, "wrong password!"), (true, PASSWORD)] {
        let mut setup = Setup::new(disabled).verifies_once();
        expect_failure_recorded(&mut setup.windows, "signin:email:ana@boutique.fr");
        let result = setup
            .build()
            .sign_in(
                "ana@boutique.fr",
                &Password::attempt(password),
                &client(),
                None,
            )
            .await;
        assert!(
            matches!(result, Err(SignInError::InvalidCredentials)),
            "disabled: {disabled}"
        );
    }
}

#[tokio::test]
async fn over_budget_attempts_are_refused_without_any_verification() {
    let mut setup = Setup::new(false);
    setup.windows = MockRateLimitStore::new();
    setup
        .windows
        .expect_reserve()
        .withf(|bucket, _, _| bucket == "signin:email:ana@boutique.fr")
        .returning(|_, _, _| Ok(reservation(false)));
    setup.windows.expect_release().times(0);
    // The address's budget has room: the e-mail's wait is the one to tell.
    setup
        .windows
        .expect_peek()
        .withf(|bucket, _, _| bucket == "signin:ip:203.0.113.7")
        .times(1)
        .returning(|_, _, _| Ok(reservation(true).status));
    let result = setup
        .build()
        .sign_in(
            "ana@boutique.fr",
            &Password::attempt(PASSWORD),
            &client(),
            None,
        )
        .await;
    assert!(
        matches!(
            result,
            Err(SignInError::Throttled {
                retry_after_seconds: 62
            })
        ),
        "{result:?}"
    );
}

#[tokio::test]
async fn a_refusal_tells_the_wait_of_the_spent_budget_that_frees_last() {
    let mut setup = Setup::new(false);
    setup.windows = MockRateLimitStore::new();
    setup
        .windows
        .expect_reserve()
        .returning(|_, _, _| Ok(reservation(false)));
    setup.windows.expect_peek().times(1).returning(|_, _, _| {
        Ok(RateStatus {
            allowed: false,
            limit: 30,
            remaining: 0,
            reset_after_millis: 299_001,
        })
    });
    let result = setup
        .build()
        .sign_in(
            "ana@boutique.fr",
            &Password::attempt(PASSWORD),
            &client(),
            None,
        )
        .await;
    assert!(
        matches!(
            result,
            Err(SignInError::Throttled {
                retry_after_seconds: 300
            })
        ),
        "the e-mail's budget frees in 62 s, the address's in 300 s: {result:?}"
    );
}

#[tokio::test]
async fn a_sign_in_starts_a_fresh_session_and_ends_the_one_the_browser_had() {
    let previous = SessionToken::from_random_bytes([0xee; 32]);
    let previous_digest = previous.digest();
    let mut setup = Setup::new(false).verifies_once();
    setup
        .sessions
        .expect_delete_session()
        .withf(move |digest| *digest == previous_digest)
        .times(1)
        .returning(|_| Ok(()));
    setup
        .sessions
        .expect_delete_expired_sessions()
        .withf(|idle, created| {
            idle.millis() == NOW - 30 * 60_000 && created.millis() == NOW - 12 * 3_600_000
        })
        .times(1)
        .returning(|_, _| Ok(0));
    setup
        .sessions
        .expect_insert_session()
        .withf(|session| {
            session.owner_id.as_str() == "owner_1"
                && session.created_at.millis() == NOW
                && session.last_seen_at.millis() == NOW
        })
        .times(1)
        .returning(|_| Ok(()));
    // A success gives back the two slots it reserved.
    setup
        .windows
        .expect_release()
        .times(2)
        .returning(|_, _| Ok(()));
    let started = setup
        .build()
        .sign_in(
            "ANA@boutique.fr ",
            &Password::attempt(PASSWORD),
            &client(),
            Some(&previous),
        )
        .await
        .unwrap();
    assert_ne!(started.token, previous);
    assert_eq!(started.signed_in.session.digest, started.token.digest());
    assert_ne!(
        started.signed_in.session.csrf.as_str(),
        started.token.expose(),
        "the anti-CSRF token is not the session id"
    );
    assert_eq!(started.signed_in.shop.slug.as_str(), "boutique");
}

fn stored(created: i64, seen: i64, disabled: bool) -> SignedIn {
    SignedIn {
        session: OwnerSession {
            digest: SessionDigest::from_stored("d"),
            owner_id: OwnerId::parse("owner_1").unwrap(),
            csrf: CsrfToken::from_random_bytes([3; 32]),
            created_at: Timestamp::from_millis(created),
            last_seen_at: Timestamp::from_millis(seen),
        },
        owner: owner(disabled),
        shop: shop(),
    }
}

async fn resolve_with(found: SignedIn, sessions: impl FnOnce(&mut MockSessionStore)) -> bool {
    let mut setup = Setup::new(false);
    setup
        .sessions
        .expect_find_session()
        .return_once(move |_| Ok(Some(found)));
    sessions(&mut setup.sessions);
    setup
        .build()
        .resolve(&SessionToken::from_random_bytes([9; 32]))
        .await
        .unwrap()
        .is_some()
}

#[tokio::test]
async fn an_idle_or_old_session_or_a_disabled_owner_is_signed_out() {
    let idle = stored(NOW - 60_000 * 40, NOW - 60_000 * 30, false);
    let old = stored(NOW - 12 * 3_600_000, NOW - 1_000, false);
    let disabled = stored(NOW - 60_000, NOW - 1_000, true);
    for found in [idle, old, disabled] {
        let live = resolve_with(found, |sessions| {
            sessions
                .expect_delete_session()
                .times(1)
                .returning(|_| Ok(()));
        })
        .await;
        assert!(!live);
    }
}

#[tokio::test]
async fn a_live_session_records_activity_at_most_once_a_minute() {
    let recent = stored(NOW - 120_000, NOW - 59_000, false);
    assert!(
        resolve_with(recent, |sessions| {
            sessions.expect_touch_session().times(0);
        })
        .await
    );
    let due = stored(NOW - 120_000, NOW - 60_000, false);
    assert!(
        resolve_with(due, |sessions| {
            sessions
                .expect_touch_session()
                .withf(|_, at| at.millis() == NOW)
                .times(1)
                .returning(|_, _| Ok(()));
        })
        .await
    );
}

/// A hasher whose verifications wait until the test lets one finish, and are counted.
struct HeldHasher {
    runs: std::sync::atomic::AtomicUsize,
    finish: tokio::sync::Semaphore,
}

#[async_trait::async_trait]
impl PasswordHasher for HeldHasher {
    async fn hash_password(&self, _: &Password) -> Result<String, HashError> {
        unreachable!("signing in never hashes")
    }

    async fn verify_password(&self, password: &Password, _: &str) -> Result<bool, HashError> {
        self.runs.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.finish.acquire().await.unwrap().forget();
        Ok(password.expose() == PASSWORD)
    }

    async fn verify_decoy(&self, _: &Password) -> Result<(), HashError> {
        unreachable!("every attempt here names the known e-mail")
    }
}

#[tokio::test]
async fn a_second_sign_in_from_an_address_whose_verification_runs_is_refused_at_the_door() {
    let mut setup = Setup::new(false);
    // The refused attempt gives back the two slots it reserved; the failed ones keep theirs.
    setup
        .windows
        .expect_release()
        .times(2)
        .returning(|_, _| Ok(()));
    let hasher = Arc::new(HeldHasher {
        runs: std::sync::atomic::AtomicUsize::new(0),
        finish: tokio::sync::Semaphore::new(0),
    });
    let mut clock = MockClock::new();
    clock.expect_now().return_const(Timestamp::from_millis(NOW));
    let sessions = Arc::new(OwnerSessions::new(
        Arc::new(setup.owners),
        Arc::new(setup.sessions),
        hasher.clone(),
        Arc::new(setup.windows),
        Arc::new(MockRandomTokens::new()),
        Arc::new(clock),
        SignInLimits::default(),
    ));
    let attempt = |address: &'static str, password: &'static str| {
        let sessions = Arc::clone(&sessions);
        tokio::spawn(async move {
            let client = ClientAddress::of(address.parse().unwrap());
            sessions
                .sign_in(
                    "ana@boutique.fr",
                    &Password::attempt(password),
                    &client,
                    None,
                )
                .await
        })
    };
    let runs = || hasher.runs.load(std::sync::atomic::Ordering::SeqCst);
    let wait_for_runs = |n: usize| async move {
        while runs() < n {
            tokio::task::yield_now().await;
        }
    };

    let first = attempt("203.0.113.7", "a wrong guess");
    wait_for_runs(1).await;
    let second = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        attempt("203.0.113.7", PASSWORD),
    )
    .await
    .expect("refused at once, not queued behind the first verification")
    .unwrap();
    assert!(
        matches!(
            second,
            Err(SignInError::Throttled {
                retry_after_seconds: 1
            })
        ),
        "{second:?}"
    );
    assert_eq!(runs(), 1);

    // The gate is per address: another one is verified meanwhile.
    let other = attempt("198.51.100.4", "another wrong guess");
    wait_for_runs(2).await;
    hasher.finish.add_permits(2);
    for failed in [first.await.unwrap(), other.await.unwrap()] {
        assert!(
            matches!(failed, Err(SignInError::InvalidCredentials)),
            "{failed:?}"
        );
    }
}
