use std::sync::Mutex;

use shop_domain::Timestamp;
use shop_domain::client_address::ClientAddress;
use shop_domain::id::{OwnerId, ShopId};
use shop_domain::owner::Owner;
use shop_domain::owner_device::{DeviceCookie, DeviceSecret};
use shop_domain::owner_session::SessionDigest;
use shop_domain::rate_limit::RateStatus;
use shop_domain::shop::{Shop, ShopSlug, SubscriptionStatus};

use super::*;

use crate::port::{
    MockClock, MockDeviceSecretStore, MockOwnerStore, MockPasswordHasher, MockRandomTokens,
    MockRateLimitStore, MockSessionStore, Reservation, Slot,
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

fn device_secret() -> DeviceSecret {
    DeviceSecret::from_random_bytes([0x5e; 32])
}

/// The store holds [`device_secret`] already.
fn stored_device_secret() -> MockDeviceSecretStore {
    let mut store = MockDeviceSecretStore::new();
    store
        .expect_device_secret()
        .returning(|_| Ok(device_secret()));
    store
}

/// Owners: only `ana@boutique.fr`, enabled unless `disabled`; every budget has room (and no
/// slot is given back unless a test expects it); no verification expected unless asked for.
struct Setup {
    owners: MockOwnerStore,
    sessions: MockSessionStore,
    hasher: MockPasswordHasher,
    windows: MockRateLimitStore,
    device_secret: MockDeviceSecretStore,
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
            device_secret: stored_device_secret(),
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
            Arc::new(self.device_secret),
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
            None,
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
        Arc::new(setup.device_secret),
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
            Err(SignInError::Busy {
                retry_after_seconds: 1
            })
        ),
        "nothing failed, another sign-in is being checked: {second:?}"
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

/// Sign-ins on the domain's real windows with the default budgets: ana's password is
/// [`PASSWORD`], and every success starts a session.
fn on_real_windows() -> OwnerSessions {
    let mut setup = Setup::new(false);
    setup.windows = crate::port::mock_on_real_windows();
    setup
        .hasher
        .expect_verify_password()
        .returning(|password, _| Ok(password.expose() == PASSWORD));
    setup
        .sessions
        .expect_delete_expired_sessions()
        .returning(|_, _| Ok(0));
    setup.sessions.expect_insert_session().returning(|_| Ok(()));
    setup.build()
}

async fn attempt(
    sessions: &OwnerSessions,
    password: &str,
    device: Option<&DeviceCookie>,
) -> Result<StartedSession, SignInError> {
    sessions
        .sign_in(
            "ana@boutique.fr",
            &Password::attempt(password),
            &client(),
            None,
            device,
        )
        .await
}

/// Ten wrong passwords for ana from browsers without her device cookie.
async fn lock_out_strangers(sessions: &OwnerSessions) {
    for _ in 0..10 {
        let failed = attempt(sessions, "a stranger's guess", None).await;
        assert!(
            matches!(failed, Err(SignInError::InvalidCredentials)),
            "{failed:?}"
        );
    }
    let locked = attempt(sessions, PASSWORD, None).await;
    assert!(
        matches!(locked, Err(SignInError::Throttled { .. })),
        "{locked:?}"
    );
}

#[tokio::test]
async fn the_owners_browser_signs_in_while_strangers_are_locked_out_of_the_email() {
    let sessions = on_real_windows();
    let device = attempt(&sessions, PASSWORD, None).await.unwrap().device;
    assert!(
        device
            .device_for(
                &device_secret(),
                &OwnerEmail::parse("ana@boutique.fr").unwrap()
            )
            .is_some(),
        "a sign-in hands out a device cookie for the owner's e-mail"
    );

    lock_out_strangers(&sessions).await;
    let started = attempt(&sessions, PASSWORD, Some(&device)).await;
    assert!(started.is_ok(), "the owner's own browser: {started:?}");
    let fresh = started.unwrap().device;
    assert_ne!(fresh, device, "each sign-in hands out a new one");
    assert!(attempt(&sessions, PASSWORD, Some(&fresh)).await.is_ok());
    assert!(
        matches!(
            attempt(&sessions, PASSWORD, None).await,
            Err(SignInError::Throttled { .. })
        ),
        "strangers stay locked out"
    );
}

#[tokio::test]
async fn a_device_cookie_that_keeps_failing_is_locked_out_alone() {
    let sessions = on_real_windows();
    let device = attempt(&sessions, PASSWORD, None).await.unwrap().device;
    for _ in 0..10 {
        let failed = attempt(&sessions, "a wrong guess", Some(&device)).await;
        assert!(
            matches!(failed, Err(SignInError::InvalidCredentials)),
            "{failed:?}"
        );
    }
    let locked = attempt(&sessions, PASSWORD, Some(&device)).await;
    assert!(
        matches!(locked, Err(SignInError::Throttled { retry_after_seconds }) if retry_after_seconds > 60),
        "its own 15 minutes: {locked:?}"
    );
    assert!(
        attempt(&sessions, PASSWORD, None).await.is_ok(),
        "the device's failures are not the e-mail's"
    );
}

#[tokio::test]
async fn a_forged_altered_or_foreign_device_cookie_counts_as_none() {
    let sessions = on_real_windows();
    let genuine = attempt(&sessions, PASSWORD, None).await.unwrap().device;
    lock_out_strangers(&sessions).await;

    let ana = OwnerEmail::parse("ana@boutique.fr").unwrap();
    let bob = OwnerEmail::parse("bob@boutique.fr").unwrap();
    let value = genuine.expose();
    let last = if value.ends_with('0') { "1" } else { "0" };
    let altered = format!("{}{last}", &value[..value.len() - 1]);
    for (what, cookie) in [
        (
            "another e-mail's",
            DeviceCookie::issue(&device_secret(), &bob, [4; 32]),
        ),
        (
            "signed with another secret",
            DeviceCookie::issue(&DeviceSecret::from_random_bytes([1; 32]), &ana, [4; 32]),
        ),
        ("altered", DeviceCookie::presented(&altered).unwrap()),
    ] {
        let refused = attempt(&sessions, PASSWORD, Some(&cookie)).await;
        assert!(
            matches!(refused, Err(SignInError::Throttled { .. })),
            "{what}: {refused:?}"
        );
    }
    assert!(attempt(&sessions, PASSWORD, Some(&genuine)).await.is_ok());
}

#[tokio::test]
async fn the_device_secret_is_read_once_and_a_new_one_offered_only_to_an_empty_store() {
    let mut setup = Setup::new(false);
    setup
        .hasher
        .expect_verify_password()
        .times(2)
        .returning(|password, _| Ok(password.expose() == PASSWORD));
    setup.device_secret = MockDeviceSecretStore::new();
    // The store keeps the first candidate it is offered; this instance asks once.
    setup
        .device_secret
        .expect_device_secret()
        .times(1)
        .returning(|candidate| Ok(candidate.clone()));
    setup
        .sessions
        .expect_delete_expired_sessions()
        .returning(|_, _| Ok(0));
    setup.sessions.expect_insert_session().returning(|_| Ok(()));
    setup.windows.expect_release().returning(|_, _| Ok(()));
    let sessions = setup.build();
    let device = attempt(&sessions, PASSWORD, None).await.unwrap().device;
    let wrong = attempt(&sessions, "not the password", Some(&device)).await;
    assert!(matches!(wrong, Err(SignInError::InvalidCredentials)));
}
