//! The console's handlers, guards and headers on mocked ports: what an owner (or an attacker)
//! would notice. The same behaviours run on real databases in the black-box suite and in a
//! real browser (`tests/api/console*.rs`).

use std::sync::{Arc, Mutex};

use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceResponse};
use actix_web::http::header;
use actix_web::http::{Method, StatusCode};
use actix_web::test::{self, TestRequest};
use actix_web::{App, Error, HttpResponse};
use shop_domain::Timestamp;
use shop_domain::api_key::{ApiKey, KeyPrefix, KeySecret, PresentedKey};
use shop_domain::id::{OwnerId, ShopId};
use shop_domain::owner::{Owner, OwnerEmail};
use shop_domain::owner_device::{DeviceCookie, DeviceSecret};
use shop_domain::owner_session::{CsrfToken, OwnerSession, SessionToken};
use shop_domain::rate_limit::RateStatus;
use shop_domain::scope::ScopeSet;
use shop_domain::shop::{Shop, ShopSlug, SubscriptionStatus};
use shop_domain::webhook::NetworkPolicy;
use shop_ports::port::{
    MockApiKeyStore, MockApiWriteLog, MockClock, MockDeviceSecretStore, MockIdGenerator,
    MockKeyMaterial, MockOwnerStore, MockPasswordHasher, MockRandomTokens, MockRateLimitStore,
    MockSecretHasher, MockSessionStore, MockShopStore, MockStockRepository,
    MockWebhookEndpointStore, SignedIn,
};
use shop_ports::port::{Reservation, Slot};
use shop_ports::usecase::webhooks::WebhookEndpoints;
use shop_ports::usecase::{ApiWriteHistory, KeyAdmin, OwnerSessions, SignInLimits, StockKeeper};

use crate::routes::{self, console, public_pages, signed_in_pages};
use crate::urls::{self, PREFIX, Route};
use crate::{ConsoleSettings, ConsoleState, configure};

mod api_writes;
mod webhooks;

const NOW: i64 = 1_790_000_000_000;
const ORIGIN: &str = "http://console.test";
const HOST: &str = "console.test";

fn shop(id: &str) -> Shop {
    Shop {
        id: ShopId::parse(id).unwrap(),
        slug: ShopSlug::parse("boutique").unwrap(),
        name: "La Boutique".into(),
        public_api_in_plan: true,
        subscription: SubscriptionStatus::Active,
    }
}

fn owner() -> Owner {
    Owner {
        id: OwnerId::parse("owner_1").unwrap(),
        shop_id: ShopId::parse("shop_1").unwrap(),
        email: OwnerEmail::parse("ana@boutique.fr").unwrap(),
        password_hash: "phc".into(),
        created_at: Timestamp::from_millis(0),
        disabled_at: None,
    }
}

/// The browser's session: its token, and the anti-CSRF token the server keeps for it.
fn token() -> SessionToken {
    SessionToken::from_random_bytes([1; 32])
}

fn csrf() -> CsrfToken {
    CsrfToken::from_random_bytes([2; 32])
}

fn session(last_seen: i64) -> SignedIn {
    SignedIn {
        session: OwnerSession {
            digest: token().digest(),
            owner_id: owner().id,
            csrf: csrf(),
            created_at: Timestamp::from_millis(NOW - 60_000),
            last_seen_at: Timestamp::from_millis(last_seen),
        },
        owner: owner(),
        shop: shop("shop_1"),
    }
}

fn stored_key(prefix: &str, shop: &str) -> ApiKey {
    ApiKey {
        prefix: KeyPrefix::parse(prefix).unwrap(),
        shop_id: ShopId::parse(shop).unwrap(),
        label: "ERP sync".into(),
        scopes: ScopeSet::parse_list("products:read,stock:write").unwrap(),
        secret_hash: "phc".into(),
        created_at: Timestamp::from_millis(NOW - 86_400_000),
        expires_at: None,
        revoked_at: None,
        last_used_at: Some(Timestamp::from_millis(NOW - 120_000)),
    }
}

/// What a budget with room (or without) answers a reservation.
fn reservation(allowed: bool, reset_after_millis: i64) -> Reservation {
    Reservation {
        status: RateStatus {
            allowed,
            limit: 10,
            remaining: u32::from(allowed),
            reset_after_millis,
        },
        slot: allowed.then(|| Slot::new("1")),
    }
}

fn clock() -> MockClock {
    let mut clock = MockClock::new();
    clock.expect_now().return_const(Timestamp::from_millis(NOW));
    clock
}

/// Mocks for each use case; tests set expectations, then `state()` builds the console.
struct Ports {
    owners: MockOwnerStore,
    sessions: MockSessionStore,
    passwords: MockPasswordHasher,
    windows: MockRateLimitStore,
    keys: MockApiKeyStore,
    stock: MockStockRepository,
    api_writes: MockApiWriteLog,
    webhooks: MockWebhookEndpointStore,
}

impl Ports {
    /// The browser's session is live (seen just now) unless a test says otherwise.
    fn signed_in() -> Self {
        let mut ports = Self::signed_out();
        ports
            .sessions
            .expect_find_session()
            .returning(|digest| Ok((*digest == token().digest()).then(|| session(NOW))));
        ports
    }

    fn signed_out() -> Self {
        Self {
            owners: MockOwnerStore::new(),
            sessions: MockSessionStore::new(),
            passwords: MockPasswordHasher::new(),
            windows: MockRateLimitStore::new(),
            keys: MockApiKeyStore::new(),
            stock: MockStockRepository::new(),
            api_writes: MockApiWriteLog::new(),
            webhooks: MockWebhookEndpointStore::new(),
        }
    }

    fn state(self) -> ConsoleState {
        let mut tokens = MockRandomTokens::new();
        tokens.expect_random_bytes().returning(|| [9; 32]);
        let mut secrets = MockSecretHasher::new();
        secrets.expect_hash().returning(|_| Ok("phc".into()));
        let mut material = MockKeyMaterial::new();
        material.expect_generate().returning(|| {
            PresentedKey::new(
                KeyPrefix::parse("0badc0de").unwrap(),
                KeySecret::from_random_bytes([0x5e; 32]),
            )
        });
        let mut ids = MockIdGenerator::new();
        ids.expect_new_id().returning(|| "switch_1".into());
        let mut webhook_ids = MockIdGenerator::new();
        webhook_ids.expect_new_id().returning(|| "hook_1".into());
        let mut webhook_tokens = MockRandomTokens::new();
        webhook_tokens
            .expect_random_bytes()
            .returning(|| [0x77; 32]);
        let mut device_secret = MockDeviceSecretStore::new();
        device_secret
            .expect_device_secret()
            .returning(|_| Ok(DeviceSecret::from_random_bytes([0x5e; 32])));
        ConsoleState {
            sessions: Arc::new(OwnerSessions::new(
                Arc::new(self.owners),
                Arc::new(self.sessions),
                Arc::new(self.passwords),
                Arc::new(self.windows),
                Arc::new(device_secret),
                Arc::new(tokens),
                Arc::new(clock()),
                SignInLimits::default(),
            )),
            keys: Arc::new(KeyAdmin::new(
                Arc::new(MockShopStore::new()),
                Arc::new(self.keys),
                Arc::new(secrets),
                Arc::new(material),
                Arc::new(clock()),
            )),
            stock: Arc::new(StockKeeper::new(
                Arc::new(self.stock),
                Arc::new(ids),
                Arc::new(clock()),
            )),
            api_writes: Arc::new(ApiWriteHistory::new(Arc::new(self.api_writes))),
            webhooks: Arc::new(WebhookEndpoints::new(
                Arc::new(self.webhooks),
                Arc::new(webhook_ids),
                Arc::new(clock()),
                Arc::new(webhook_tokens),
                NetworkPolicy::PublicOnly,
            )),
            settings: ConsoleSettings {
                public_url: None,
                trusted_proxies: Default::default(),
                body_timeout: std::time::Duration::from_secs(10),
            },
        }
    }
}

/// The whole answer, read.
struct Page {
    status: StatusCode,
    headers: header::HeaderMap,
    body: String,
}

impl Page {
    fn header(&self, name: header::HeaderName) -> &str {
        self.headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
    }
}

async fn call(state: ConsoleState, request: TestRequest) -> Page {
    let app = test::init_service(App::new().configure(|config| configure(config, &state))).await;
    let response: ServiceResponse = app.call(request.to_request()).await.unwrap();
    read(response).await
}

async fn read<B: MessageBody>(response: ServiceResponse<B>) -> Page
where
    B::Error: Into<Error>,
{
    let status = response.status();
    let headers = response.headers().clone();
    let body = test::read_body(response).await;
    Page {
        status,
        headers,
        body: String::from_utf8(body.to_vec()).unwrap(),
    }
}

fn get(path: &str) -> TestRequest {
    TestRequest::get()
        .uri(path)
        .insert_header((header::HOST, HOST))
        .cookie(crate::cookies::session(&token(), false))
}

/// A form post as the console's own page sends it: same origin, the session's cookie.
fn post(path: &str, fields: &[(&str, &str)]) -> TestRequest {
    let body: String = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(fields)
        .finish();
    TestRequest::post()
        .uri(path)
        .insert_header((header::HOST, HOST))
        .insert_header((header::ORIGIN, ORIGIN))
        .insert_header((header::CONTENT_TYPE, "application/x-www-form-urlencoded"))
        .cookie(crate::cookies::session(&token(), false))
        .set_payload(body)
}

#[actix_web::test]
async fn every_page_without_a_live_session_redirects_to_sign_in() {
    let requests = [
        TestRequest::get().uri("/console"),
        TestRequest::get().uri("/console/keys"),
        TestRequest::get().uri("/console/stock?q=mug"),
        TestRequest::get().uri("/console/keys/0a1b2c3d/revoke"),
        TestRequest::get().uri("/console/webhooks"),
        TestRequest::get().uri("/console/webhooks/we_1"),
        TestRequest::get().uri("/console/webhooks/we_1/delete"),
        TestRequest::get().uri("/console/nothing-here"),
        TestRequest::post().uri("/console/keys"),
        TestRequest::post().uri("/console/webhooks"),
        TestRequest::post().uri("/console/webhooks/we_1/test"),
        TestRequest::post().uri("/console/logout"),
    ];
    for request in requests {
        let mut ports = Ports::signed_out();
        ports.sessions.expect_find_session().times(0);
        let page = call(ports.state(), request).await;
        assert_eq!(page.status, StatusCode::SEE_OTHER);
        assert_eq!(page.header(header::LOCATION), "/console/login");
    }
}

/// A request to `pattern` (a route of the table under [`PREFIX`]) with its parameter filled
/// in, as the console's own page would send it but without a session: a same-origin form
/// with a token, for the methods that take one.
fn anonymous(method: &Method, pattern: &str) -> TestRequest {
    let uri = urls::fill(&format!("{PREFIX}{pattern}"), "0a1b2c3d");
    let request = TestRequest::default()
        .method(method.clone())
        .uri(&uri)
        .insert_header((header::HOST, HOST));
    if *method == Method::POST {
        request
            .insert_header((header::ORIGIN, ORIGIN))
            .insert_header((header::CONTENT_TYPE, "application/x-www-form-urlencoded"))
            .set_payload(format!("tracked=on&label=x&csrf_token={}", csrf().as_str()))
    } else {
        request
    }
}

/// The methods a test tries on every route.
const METHODS: [Method; 6] = [
    Method::GET,
    Method::POST,
    Method::PUT,
    Method::DELETE,
    Method::PATCH,
    Method::HEAD,
];

#[test]
fn every_route_is_registered_once_as_public_or_signed_in() {
    let registered: Vec<&str> = public_pages()
        .iter()
        .chain(&signed_in_pages())
        .map(|page| page.pattern)
        .collect();
    for route in Route::ALL {
        let times = registered
            .iter()
            .filter(|pattern| **pattern == route.pattern())
            .count();
        assert_eq!(times, 1, "{route:?}");
    }
    assert_eq!(registered.len(), Route::ALL.len(), "{registered:?}");
}

#[actix_web::test]
async fn every_signed_in_route_and_method_without_a_session_redirects_to_sign_in() {
    for page in signed_in_pages() {
        assert!(!page.methods().is_empty(), "{}", page.pattern);
        for method in page.methods() {
            // No expectation on any port: a handler that ran would fail the test.
            let mut ports = Ports::signed_out();
            ports.sessions.expect_find_session().times(0);
            let answer = call(ports.state(), anonymous(&method, page.pattern)).await;
            assert_eq!(
                (answer.status, answer.header(header::LOCATION)),
                (StatusCode::SEE_OTHER, urls::LOGIN),
                "{method} {}",
                page.pattern
            );
        }
    }
}

#[actix_web::test]
async fn every_public_route_answers_without_a_session() {
    for page in public_pages() {
        for method in page.methods() {
            // Posted from another site: the sign-in form refuses it itself, before any port.
            let request = anonymous(&method, page.pattern)
                .insert_header((header::ORIGIN, "https://evil.example"));
            let answer = call(Ports::signed_out().state(), request).await;
            let expected = if method == Method::GET {
                StatusCode::OK
            } else {
                StatusCode::FORBIDDEN
            };
            assert_eq!(answer.status, expected, "{method} {}", page.pattern);
        }
    }
}

#[actix_web::test]
async fn every_route_answers_another_method_with_the_405_page_signed_in_or_not() {
    for page in public_pages().into_iter().chain(signed_in_pages()) {
        let answered = page.methods();
        for method in METHODS.iter().filter(|method| !answered.contains(method)) {
            for ports in [Ports::signed_out(), Ports::signed_in()] {
                let request = anonymous(method, page.pattern)
                    .cookie(crate::cookies::session(&token(), false));
                let answer = call(ports.state(), request).await;
                assert_eq!(
                    answer.status,
                    StatusCode::METHOD_NOT_ALLOWED,
                    "{method} {}",
                    page.pattern
                );
            }
        }
    }
}

#[actix_web::test]
async fn a_panicking_page_answers_the_error_page_and_the_next_request_is_served() {
    let mut ports = Ports::signed_in();
    ports.keys.expect_list_keys().returning(|_| Ok(vec![]));
    let state = ports.state();
    let panicking = routes::Page::under("/panic").get(|| async {
        if true {
            panic!("a bug in a page");
        }
        HttpResponse::Ok().finish()
    });
    let app = test::init_service(App::new().service(console(&state, vec![panicking]))).await;

    let response = app.call(get("/console/panic").to_request()).await.unwrap();
    let page = read(response).await;
    assert_eq!(page.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert!(page.body.contains("Something went wrong"), "{}", page.body);
    assert!(
        !page.body.contains("a bug in a page"),
        "no cause on the page"
    );
    assert_eq!(page.header(header::CACHE_CONTROL), "no-store");
    assert!(
        page.header(header::CONTENT_SECURITY_POLICY)
            .contains("default-src 'self'")
    );

    let response = app.call(get("/console/keys").to_request()).await.unwrap();
    let next = read(response).await;
    assert_eq!(next.status, StatusCode::OK, "{}", next.body);
    assert!(next.body.contains("API keys"));
}

#[actix_web::test]
async fn a_session_idle_for_thirty_minutes_is_ended_and_sends_to_sign_in() {
    let mut ports = Ports::signed_out();
    ports
        .sessions
        .expect_find_session()
        .returning(|_| Ok(Some(session(NOW - 30 * 60_000))));
    ports
        .sessions
        .expect_delete_session()
        .withf(|digest| *digest == token().digest())
        .times(1)
        .returning(|_| Ok(()));
    let page = call(ports.state(), get("/console/keys")).await;
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    assert_eq!(page.header(header::LOCATION), "/console/login");
}

#[actix_web::test]
async fn a_form_without_the_session_token_or_from_another_site_changes_nothing() {
    let good = csrf();
    let cases = [
        post(
            "/console/keys",
            &[("label", "x"), ("scopes", "products:read")],
        ),
        post(
            "/console/keys",
            &[
                ("label", "x"),
                ("scopes", "products:read"),
                ("csrf_token", &"0".repeat(64)),
            ],
        ),
        post(
            "/console/keys",
            &[
                ("label", "x"),
                ("scopes", "products:read"),
                ("csrf_token", good.as_str()),
            ],
        )
        .insert_header((header::ORIGIN, "http://evil.example")),
        post(
            "/console/keys",
            &[
                ("label", "x"),
                ("scopes", "products:read"),
                ("csrf_token", good.as_str()),
            ],
        )
        .insert_header(("sec-fetch-site", "cross-site")),
        // A program that says nothing of its origin is not a page of this console either.
        TestRequest::post()
            .uri("/console/keys")
            .insert_header((header::HOST, HOST))
            .insert_header((header::CONTENT_TYPE, "application/x-www-form-urlencoded"))
            .cookie(crate::cookies::session(&token(), false))
            .set_payload(format!(
                "label=x&scopes=products%3Aread&csrf_token={}",
                good.as_str()
            )),
    ];
    for request in cases {
        let mut ports = Ports::signed_in();
        ports.keys.expect_insert_key().times(0);
        let page = call(ports.state(), request).await;
        assert_eq!(page.status, StatusCode::FORBIDDEN, "{}", page.body);
        assert!(page.body.contains("This form has expired"));
    }
}

#[actix_web::test]
async fn a_new_key_is_shown_whole_once_and_never_on_the_list() {
    let mut ports = Ports::signed_in();
    let created = Arc::new(Mutex::new(None::<ApiKey>));
    let stored = Arc::clone(&created);
    ports
        .keys
        .expect_insert_key()
        .withf(|key| key.shop_id.as_str() == "shop_1")
        .times(1)
        .returning(move |key| {
            *stored.lock().unwrap() = Some(key.clone());
            Ok(())
        });
    let listed = Arc::clone(&created);
    ports
        .keys
        .expect_list_keys()
        .returning(move |_| Ok(listed.lock().unwrap().iter().cloned().collect()));
    let state = ports.state();
    let full_key = format!("svc_live_0badc0de_{}", "5e".repeat(32));

    let page = call(
        state.clone(),
        post(
            "/console/keys",
            &[
                ("label", "Zapier"),
                ("scopes", "products:read"),
                ("scopes", "stock:write"),
                ("expires_at", ""),
                ("csrf_token", csrf().as_str()),
            ],
        ),
    )
    .await;
    assert_eq!(page.status, StatusCode::OK);
    assert_eq!(page.header(header::CACHE_CONTROL), "no-store");
    assert_eq!(page.body.matches(&full_key).count(), 1, "{}", page.body);
    assert!(page.body.contains("shown this once"));

    let list = call(state, get("/console/keys")).await;
    assert_eq!(list.status, StatusCode::OK);
    assert!(list.body.contains("0badc0de") && list.body.contains("Zapier"));
    assert!(
        !list.body.contains(&"5e".repeat(32)),
        "the secret is never listed"
    );
}

#[actix_web::test]
async fn a_refused_key_lists_every_problem_and_keeps_what_was_typed() {
    let mut ports = Ports::signed_in();
    ports.keys.expect_insert_key().times(0);
    ports.keys.expect_list_keys().returning(|_| Ok(vec![]));
    let page = call(
        ports.state(),
        post(
            "/console/keys",
            &[
                ("label", "Zapier <b>"),
                ("scopes", "orders:write"),
                ("scopes", "stock:delete"),
                ("expires_at", "2026-02-30"),
                ("csrf_token", csrf().as_str()),
            ],
        ),
    )
    .await;
    assert_eq!(page.status, StatusCode::BAD_REQUEST);
    for expected in [
        "unknown scope `stock:delete`",
        "orders:write is reserved for version 2",
        "expected a date such as 2027-01-31",
        "value=\"Zapier &#60;b&#62;\"",
    ] {
        assert!(page.body.contains(expected), "{expected}: {}", page.body);
    }
}

#[actix_web::test]
async fn revoking_another_shops_key_answers_as_an_unknown_prefix_and_changes_nothing() {
    let mut bodies = Vec::new();
    for prefix in ["0a0a0a0a", "0b0b0b0b"] {
        let mut ports = Ports::signed_in();
        // 0a0a0a0a belongs to shop_2: the store scopes the revocation by shop and finds none.
        ports
            .keys
            .expect_revoke_shop_key()
            .withf(|shop, _, _| shop.as_str() == "shop_1")
            .times(1)
            .returning(|_, _, _| Ok(false));
        ports.keys.expect_revoke_key().times(0);
        let page = call(
            ports.state(),
            post(
                &format!("/console/keys/{prefix}/revoke"),
                &[("csrf_token", csrf().as_str())],
            ),
        )
        .await;
        assert_eq!(page.status, StatusCode::NOT_FOUND);
        bodies.push(page.body);
    }
    assert_eq!(bodies[0], bodies[1], "no oracle across shops");
}

#[actix_web::test]
async fn a_revocation_sends_back_to_the_keys() {
    let mut ports = Ports::signed_in();
    ports
        .keys
        .expect_revoke_shop_key()
        .withf(|shop, prefix, at| {
            shop.as_str() == "shop_1" && prefix.as_str() == "0a1b2c3d" && at.millis() == NOW
        })
        .times(1)
        .returning(|_, _, _| Ok(true));
    let page = call(
        ports.state(),
        post(
            "/console/keys/0a1b2c3d/revoke",
            &[("csrf_token", csrf().as_str())],
        ),
    )
    .await;
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    assert_eq!(page.header(header::LOCATION), "/console/keys");
}

#[actix_web::test]
async fn the_overview_says_what_a_plan_without_the_api_means_for_integrations() {
    let mut ports = Ports::signed_out();
    ports.sessions.expect_find_session().returning(|_| {
        let mut signed_in = session(NOW);
        signed_in.shop.public_api_in_plan = false;
        Ok(Some(signed_in))
    });
    ports.keys.expect_list_keys().returning(|_| Ok(vec![]));
    ports
        .webhooks
        .expect_list_endpoints()
        .returning(|_, _, _| Ok(vec![]));
    let page = call(ports.state(), get("/console")).await;
    assert_eq!(page.status, StatusCode::OK);
    for expected in ["La Boutique", "boutique", "Not included"] {
        assert!(page.body.contains(expected), "{expected}");
    }
    assert!(
        page.body
            .contains("keys will be refused with 403 FEATURE_NOT_IN_PLAN"),
        "{}",
        page.body
    );
    assert!(!page.body.contains("SUBSCRIPTION_INACTIVE"));

    // In the plan and active: no warning at all.
    let mut ports = Ports::signed_in();
    ports.keys.expect_list_keys().returning(|_| Ok(vec![]));
    ports
        .webhooks
        .expect_list_endpoints()
        .returning(|_, _, _| Ok(vec![]));
    let page = call(ports.state(), get("/console")).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(!page.body.contains("will be refused"), "{}", page.body);
}

#[actix_web::test]
async fn the_confirmation_says_what_will_stop() {
    let mut ports = Ports::signed_in();
    ports
        .keys
        .expect_find_shop_key()
        .returning(|_, prefix| Ok(Some(stored_key(prefix.as_str(), "shop_1"))));
    let page = call(ports.state(), get("/console/keys/0a1b2c3d/revoke")).await;
    assert_eq!(page.status, StatusCode::OK);
    for expected in [
        "ERP sync",
        "0a1b2c3d",
        "within 5 seconds",
        "adjust stock",
        "csrf_token",
    ] {
        assert!(page.body.contains(expected), "{expected}");
    }
}

#[actix_web::test]
async fn signing_in_sets_a_strict_session_cookie_and_goes_to_the_overview() {
    let mut ports = Ports::signed_out();
    ports
        .owners
        .expect_find_owner_by_email()
        .returning(|_| Ok(Some((owner(), shop("shop_1")))));
    ports
        .passwords
        .expect_verify_password()
        .times(1)
        .returning(|password, _| Ok(password.expose() == "correct horse battery"));
    ports
        .windows
        .expect_reserve()
        .times(2)
        .returning(|_, _, _| Ok(reservation(true, 0)));
    // A sign-in gives back the slots it reserved.
    ports
        .windows
        .expect_release()
        .times(2)
        .returning(|_, _| Ok(()));
    ports
        .sessions
        .expect_delete_expired_sessions()
        .returning(|_, _| Ok(0));
    ports
        .sessions
        .expect_insert_session()
        .times(1)
        .returning(|_| Ok(()));
    let request = TestRequest::post()
        .uri("/console/login")
        .insert_header((header::HOST, HOST))
        .insert_header((header::CONTENT_TYPE, "application/x-www-form-urlencoded"))
        .set_payload("email=ana%40boutique.fr&password=correct+horse+battery");
    // Served behind a TLS proxy (`PUBLIC_URL=https://...`).
    let mut state = ports.state();
    state.settings.public_url = Some(crate::PublicUrl::parse("https://console.test").unwrap());
    let page = call(state, request).await;
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    assert_eq!(page.header(header::LOCATION), "/console");
    let cookie = page.header(header::SET_COOKIE);
    let expected = format!(
        "__Host-shop_console_session={}",
        SessionToken::from_random_bytes([9; 32]).expose()
    );
    assert!(cookie.starts_with(&expected), "{cookie}");
    let attributes: Vec<&str> = cookie.split("; ").collect();
    for part in ["HttpOnly", "SameSite=Strict", "Path=/", "Secure"] {
        assert!(attributes.contains(&part), "{cookie}");
    }
}

#[actix_web::test]
async fn a_browser_with_its_device_cookie_is_counted_alone_and_gets_a_new_one() {
    let mut ports = Ports::signed_out();
    ports
        .owners
        .expect_find_owner_by_email()
        .returning(|_| Ok(Some((owner(), shop("shop_1")))));
    ports
        .passwords
        .expect_verify_password()
        .times(1)
        .returning(|password, _| Ok(password.expose() == "correct horse battery"));
    // The device's budget only: not the e-mail's, not the address's.
    ports
        .windows
        .expect_reserve()
        .withf(|bucket, _, _| bucket.starts_with("signin:email:ana@boutique.fr:device:"))
        .times(1)
        .returning(|_, _, _| Ok(reservation(true, 0)));
    ports
        .windows
        .expect_release()
        .times(1)
        .returning(|_, _| Ok(()));
    ports
        .sessions
        .expect_delete_expired_sessions()
        .returning(|_, _| Ok(0));
    ports.sessions.expect_insert_session().returning(|_| Ok(()));
    let device = DeviceCookie::issue(
        &DeviceSecret::from_random_bytes([0x5e; 32]),
        &OwnerEmail::parse("ana@boutique.fr").unwrap(),
        [1; 32],
    );
    let request = TestRequest::post()
        .uri("/console/login")
        .insert_header((header::HOST, HOST))
        .insert_header((header::CONTENT_TYPE, "application/x-www-form-urlencoded"))
        .insert_header((
            header::COOKIE,
            format!("shop_console_device={}", device.expose()),
        ))
        .set_payload("email=ana%40boutique.fr&password=correct+horse+battery");
    let page = call(ports.state(), request).await;
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    let set: Vec<&str> = page
        .headers
        .get_all(header::SET_COOKIE)
        .filter_map(|value| value.to_str().ok())
        .collect();
    let renewed = set
        .iter()
        .find(|cookie| cookie.starts_with("shop_console_device="))
        .unwrap_or_else(|| panic!("a device cookie in {set:?}"));
    assert!(!renewed.contains(device.expose()), "a new one: {renewed}");
    assert!(renewed.contains("Max-Age=31536000"), "{renewed}");
}

#[actix_web::test]
async fn a_failed_sign_in_shows_the_form_with_one_generic_message() {
    let mut ports = Ports::signed_out();
    ports
        .owners
        .expect_find_owner_by_email()
        .returning(|_| Ok(None));
    ports
        .passwords
        .expect_verify_decoy()
        .times(1)
        .returning(|_| Ok(()));
    // A failure keeps the slots it reserved.
    ports
        .windows
        .expect_reserve()
        .times(2)
        .returning(|_, _, _| Ok(reservation(true, 0)));
    ports.windows.expect_release().times(0);
    let request = TestRequest::post()
        .uri("/console/login")
        .insert_header((header::HOST, HOST))
        .insert_header((header::ORIGIN, ORIGIN))
        .insert_header((header::CONTENT_TYPE, "application/x-www-form-urlencoded"))
        .set_payload("email=nobody%40boutique.fr&password=whatever+it+is");
    let page = call(ports.state(), request).await;
    assert_eq!(page.status, StatusCode::UNAUTHORIZED);
    assert!(
        page.body
            .contains("The e-mail address or the password is incorrect.")
    );
    assert!(page.body.contains("value=\"nobody@boutique.fr\""));
    assert!(page.header(header::SET_COOKIE).is_empty());
}

#[actix_web::test]
async fn a_blocked_sign_in_is_429_with_retry_after_and_no_verification() {
    let mut ports = Ports::signed_out();
    ports.passwords.expect_verify_password().times(0);
    ports.passwords.expect_verify_decoy().times(0);
    ports
        .windows
        .expect_reserve()
        .returning(|_, _, _| Ok(reservation(false, 125_000)));
    // The other budget is spent too, but frees sooner: the wait told is the e-mail's.
    ports
        .windows
        .expect_peek()
        .returning(|_, _, _| Ok(reservation(false, 60_000).status));
    let request = TestRequest::post()
        .uri("/console/login")
        .insert_header((header::HOST, HOST))
        .insert_header((header::CONTENT_TYPE, "application/x-www-form-urlencoded"))
        .set_payload("email=ana%40boutique.fr&password=x");
    let page = call(ports.state(), request).await;
    assert_eq!(page.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(page.header(header::RETRY_AFTER), "125");
    assert!(page.body.contains("Wait 3 minutes"), "{}", page.body);
    assert!(page.body.contains("id=\"email\""), "the form comes back");
}

#[actix_web::test]
async fn a_sign_in_form_from_another_site_is_refused() {
    let ports = Ports::signed_out();
    let request = TestRequest::post()
        .uri("/console/login")
        .insert_header((header::HOST, HOST))
        .insert_header((header::ORIGIN, "https://evil.example"))
        .insert_header((header::CONTENT_TYPE, "application/x-www-form-urlencoded"))
        .set_payload("email=ana%40boutique.fr&password=correct+horse+battery");
    assert_eq!(
        call(ports.state(), request).await.status,
        StatusCode::FORBIDDEN
    );
}

#[actix_web::test]
async fn every_answer_carries_the_security_headers() {
    let requests = [
        TestRequest::get().uri("/console/login"),
        TestRequest::get().uri("/console/keys"),
        TestRequest::put().uri("/console/keys"),
    ];
    for request in requests {
        let page = call(Ports::signed_out().state(), request).await;
        let csp = page.header(header::CONTENT_SECURITY_POLICY);
        assert!(csp.contains("default-src 'self'") && csp.contains("frame-ancestors 'none'"));
        assert!(!csp.contains("unsafe-inline"), "{csp}");
        assert_eq!(page.header(header::X_CONTENT_TYPE_OPTIONS), "nosniff");
        assert_eq!(page.header(header::REFERRER_POLICY), "same-origin");
        assert!(
            !page.headers.contains_key(header::STRICT_TRANSPORT_SECURITY),
            "no HSTS without an https PUBLIC_URL"
        );
    }
    let login = call(
        Ports::signed_out().state(),
        TestRequest::get().uri("/console/login"),
    )
    .await;
    assert!(!login.body.contains("<script>"), "no inline script");
    assert_eq!(login.header(header::CACHE_CONTROL), "no-store");
}

#[actix_web::test]
async fn over_https_every_answer_carries_hsts() {
    for uri in ["/console/login", "/console/keys", "/console/nowhere"] {
        let mut state = Ports::signed_out().state();
        state.settings.public_url = Some(crate::PublicUrl::parse("https://shop.example").unwrap());
        let page = call(state, TestRequest::get().uri(uri)).await;
        assert_eq!(
            page.header(header::STRICT_TRANSPORT_SECURITY),
            "max-age=31536000",
            "{uri}"
        );
    }
}

#[actix_web::test]
async fn signing_out_ends_the_session_and_forgets_the_cookie() {
    let mut ports = Ports::signed_in();
    ports
        .sessions
        .expect_delete_session()
        .withf(|digest| *digest == token().digest())
        .times(1)
        .returning(|_| Ok(()));
    let page = call(
        ports.state(),
        post("/console/logout", &[("csrf_token", csrf().as_str())]),
    )
    .await;
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    assert_eq!(page.header(header::LOCATION), "/console/login");
    assert!(page.header(header::SET_COOKIE).contains("Max-Age=0"));
}

#[actix_web::test]
async fn a_tracking_switch_comes_back_to_the_same_stock_page() {
    let mut ports = Ports::signed_in();
    ports
        .stock
        .expect_switch_tracking()
        .withf(|command| {
            command.shop.as_str() == "shop_1"
                && command.variant_id.as_str() == "var_1"
                && !command.tracked
                && command.owner_id.as_str() == "owner_1"
        })
        .times(1)
        .returning(|_| Ok(shop_ports::port::TrackingOutcome::Switched));
    let page = call(
        ports.state(),
        post(
            "/console/variants/var_1/tracking",
            &[
                ("tracked", "off"),
                ("q", "mug bleu"),
                ("cursor", ""),
                ("csrf_token", csrf().as_str()),
            ],
        ),
    )
    .await;
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    assert_eq!(page.header(header::LOCATION), "/console/stock?q=mug+bleu");
}

#[actix_web::test]
async fn another_shops_variant_cannot_be_switched() {
    let mut ports = Ports::signed_in();
    ports
        .stock
        .expect_switch_tracking()
        .returning(|_| Ok(shop_ports::port::TrackingOutcome::VariantNotFound));
    let page = call(
        ports.state(),
        post(
            "/console/variants/var_other/tracking",
            &[("tracked", "on"), ("csrf_token", csrf().as_str())],
        ),
    )
    .await;
    assert_eq!(page.status, StatusCode::NOT_FOUND);
}
