//! Tests of the whole App (routes, middleware, error mapping) with mocked ports, through
//! `actix_web::test`, plus one test of `serve` on a real socket.

mod api_headers;
mod auth;
mod clients;
mod errors;
mod loyalty;
mod loyalty_points;
mod me;
mod orders;
pub(crate) mod products;
mod rate_limits;
mod server;
mod stock;
mod stock_adjustments;
mod webhook_deliveries;
mod webhook_endpoints;
mod writes;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderMap};
use actix_web::test::{self, TestRequest};
use actix_web::web::Bytes;
use serde_json::Value;
use shop_domain::Timestamp;
use shop_domain::api_key::{ApiKey, KeyPrefix, KeySecret};
use shop_domain::catalogue::{BrandRef, CategoryRef, Product, Variant};
use shop_domain::client_address::TrustedProxies;
use shop_domain::color::HexColor;
use shop_domain::id::{BrandId, CategoryId, ProductId, ShopId, VariantId};
use shop_domain::money::Cents;
use shop_domain::scope::ScopeSet;
use shop_domain::shop::{Shop, ShopSlug, SubscriptionStatus};
use shop_domain::tax_rate::TaxRate;
use shop_domain::webhook::NetworkPolicy;
use shop_ports::port::{
    HashError, MockApiKeyStore, MockCatalogueRepository, MockClientRepository, MockClientWriter,
    MockClock, MockEventLog, MockIdGenerator, MockLoyaltyRepository, MockOrderRepository,
    MockPointsLedger, MockProductWriter, MockRandomTokens, MockSecretHasher, MockStockRepository,
    MockWebhookEndpointStore, mock_on_real_windows,
};
use shop_ports::usecase::webhooks::{WebhookEndpoints, WebhookEvents};
use shop_ports::usecase::{
    Authenticator, ClientDirectory, ClientEditor, FailureBudgets, LoyaltyOverview, OrderHistory,
    PointsKeeper, ProductCatalogue, ProductEditor, RateLimiter, RateLimits, StockKeeper,
};

use crate::server::app;
use crate::{ApiState, Operations, routes};

pub const PREFIX: &str = "0a1b2c3d";
const HASH: &str = "$argon2id$test-hash";

pub fn secret() -> String {
    "ab".repeat(32)
}

/// The one key the mocked store and hasher accept.
pub fn key() -> String {
    format!("svc_live_{PREFIX}_{}", secret())
}

pub fn shop() -> Shop {
    Shop {
        id: ShopId::parse("shop_1").unwrap(),
        slug: ShopSlug::parse("la-boutique").unwrap(),
        name: "La Boutique".into(),
        public_api_in_plan: true,
        subscription: SubscriptionStatus::Active,
    }
}

fn stored_key(scopes: &str) -> ApiKey {
    ApiKey {
        prefix: KeyPrefix::parse(PREFIX).unwrap(),
        shop_id: shop().id,
        label: "ERP sync".into(),
        scopes: ScopeSet::parse_list(scopes).unwrap(),
        secret_hash: HASH.into(),
        created_at: Timestamp::from_millis(0),
        expires_at: None,
        revoked_at: None,
        last_used_at: None,
    }
}

/// A key store that knows `key()` with `scopes` for `shop`.
pub fn key_store(shop: Shop, scopes: &str) -> MockApiKeyStore {
    let key = stored_key(scopes);
    let mut store = MockApiKeyStore::new();
    store
        .expect_find_key()
        .returning(move |prefix| Ok((*prefix == key.prefix).then(|| (key.clone(), shop.clone()))));
    store
}

/// A hasher that verifies only `key()`'s secret against the stored hash.
pub fn hasher() -> MockSecretHasher {
    let mut hasher = MockSecretHasher::new();
    hasher.expect_verify().returning(verifies_key);
    hasher
}

/// What [`hasher`] answers, for mocks that also count their calls.
fn verifies_key(presented: &KeySecret, phc: &str) -> Result<bool, HashError> {
    Ok(phc == HASH && presented.expose() == secret())
}

/// The instant of the mocked clock.
pub const NOW_MILLIS: i64 = 1_700_000_000_000;

/// A clock that always answers `NOW_MILLIS`.
fn fixed_clock() -> MockClock {
    let mut clock = MockClock::new();
    clock
        .expect_now()
        .return_const(Timestamp::from_millis(NOW_MILLIS));
    clock
}

/// The authenticator's failure budgets on the domain's real windows: `per_client` failures
/// per client address (and per client and key), `per_key` wrong secrets per key.
pub fn failure_budgets(per_client: u32, per_key: u32) -> Arc<FailureBudgets> {
    let real = RateLimits::default();
    Arc::new(FailureBudgets::new(
        Arc::new(mock_on_real_windows()),
        Arc::new(fixed_clock()),
        shop_domain::rate_limit::RateBudget {
            limit: per_client,
            ..real.auth_failures
        },
        shop_domain::rate_limit::RateBudget {
            limit: per_key,
            ..real.key_failures
        },
    ))
}

/// A rate limiter with `limits` on a fresh [`window_store`] and the fixed clock. Share one
/// between several `TestApi`s to carry budgets from one request to the next.
pub fn rate_limiter(limits: RateLimits) -> Arc<RateLimiter> {
    Arc::new(RateLimiter::new(
        Arc::new(mock_on_real_windows()),
        Arc::new(fixed_clock()),
        limits,
    ))
}

/// The id the mocked generator gives every new record.
pub const NEW_ID: &str = "mov_new";

/// Every read scope of v1.
pub const READ_SCOPES: &str = "products:read,orders:read,stock:read,clients:read,loyalty:read";

/// The App under test: its ports, then `send`. A port left without expectations panics when
/// called (a 500), which is how tests show that a refused request never reached storage.
pub struct TestApi {
    keys: MockApiKeyStore,
    hasher: MockSecretHasher,
    repository: MockCatalogueRepository,
    orders: MockOrderRepository,
    clients: MockClientRepository,
    loyalty: MockLoyaltyRepository,
    stock: MockStockRepository,
    points: MockPointsLedger,
    client_writer: MockClientWriter,
    product_writer: MockProductWriter,
    webhook_store: MockWebhookEndpointStore,
    event_log: MockEventLog,
    rate_limiter: Arc<RateLimiter>,
    failures: Arc<FailureBudgets>,
    operations: Operations,
}

impl TestApi {
    /// An active shop whose key holds every read scope.
    pub fn new() -> Self {
        Self::with_key(shop(), READ_SCOPES)
    }

    pub fn with_key(shop: Shop, scopes: &str) -> Self {
        Self {
            keys: key_store(shop, scopes),
            hasher: hasher(),
            repository: MockCatalogueRepository::new(),
            orders: MockOrderRepository::new(),
            clients: MockClientRepository::new(),
            loyalty: MockLoyaltyRepository::new(),
            stock: MockStockRepository::new(),
            points: MockPointsLedger::new(),
            client_writer: MockClientWriter::new(),
            product_writer: MockProductWriter::new(),
            webhook_store: MockWebhookEndpointStore::new(),
            event_log: MockEventLog::new(),
            rate_limiter: rate_limiter(RateLimits::default()),
            failures: failure_budgets(
                RateLimits::default().auth_failures.limit,
                RateLimits::default().key_failures.limit,
            ),
            operations: Operations::default().metrics_for_token(metrics_token()),
        }
    }

    pub fn orders(mut self, orders: MockOrderRepository) -> Self {
        self.orders = orders;
        self
    }

    /// Read by both `GET /clients` and the loyalty summary.
    pub fn clients(mut self, clients: MockClientRepository) -> Self {
        self.clients = clients;
        self
    }

    pub fn loyalty(mut self, loyalty: MockLoyaltyRepository) -> Self {
        self.loyalty = loyalty;
        self
    }

    pub fn stock(mut self, stock: MockStockRepository) -> Self {
        self.stock = stock;
        self
    }

    pub fn points(mut self, points: MockPointsLedger) -> Self {
        self.points = points;
        self
    }

    pub fn client_writer(mut self, writer: MockClientWriter) -> Self {
        self.client_writer = writer;
        self
    }

    pub fn product_writer(mut self, writer: MockProductWriter) -> Self {
        self.product_writer = writer;
        self
    }

    pub fn webhook_store(mut self, store: MockWebhookEndpointStore) -> Self {
        self.webhook_store = store;
        self
    }

    pub fn event_log(mut self, log: MockEventLog) -> Self {
        self.event_log = log;
        self
    }

    pub fn keys(mut self, keys: MockApiKeyStore) -> Self {
        self.keys = keys;
        self
    }

    pub fn hasher(mut self, hasher: MockSecretHasher) -> Self {
        self.hasher = hasher;
        self
    }

    pub fn repository(mut self, repository: MockCatalogueRepository) -> Self {
        self.repository = repository;
        self
    }

    /// By default each `TestApi` has its own limiter with the spec's limits.
    pub fn rate_limiter(mut self, rate_limiter: Arc<RateLimiter>) -> Self {
        self.rate_limiter = rate_limiter;
        self
    }

    /// By default each `TestApi` has its own failure budgets with the spec's limits.
    pub fn failures(mut self, failures: Arc<FailureBudgets>) -> Self {
        self.failures = failures;
        self
    }

    /// By default: no readiness checks, no pool, metrics on the API's address for the bearer
    /// of [`METRICS_TOKEN`].
    pub fn operations(mut self, operations: Operations) -> Self {
        self.operations = operations;
        self
    }

    pub fn state(self) -> ApiState {
        let clock = Arc::new(fixed_clock());
        let mut ids = MockIdGenerator::new();
        ids.expect_new_id().returning(|| NEW_ID.into());
        let clients = Arc::new(self.clients);
        let mut points_ids = MockIdGenerator::new();
        points_ids.expect_new_id().returning(|| NEW_ID.into());
        let mut client_ids = MockIdGenerator::new();
        client_ids.expect_new_id().returning(|| NEW_ID.into());
        let mut product_ids = MockIdGenerator::new();
        product_ids.expect_new_id().returning(|| NEW_ID.into());
        let mut webhook_ids = MockIdGenerator::new();
        webhook_ids.expect_new_id().returning(|| NEW_ID.into());
        let mut webhook_random = MockRandomTokens::new();
        webhook_random
            .expect_random_bytes()
            .returning(|| [0x5e; 32]);
        ApiState {
            authenticator: Arc::new(
                Authenticator::new(Arc::new(self.keys), Arc::new(self.hasher), clock.clone())
                    .limiting_failures(self.failures),
            ),
            catalogue: Arc::new(ProductCatalogue::new(
                Arc::new(self.repository),
                clock.clone(),
            )),
            orders: Arc::new(OrderHistory::new(Arc::new(self.orders), clock.clone())),
            clients: Arc::new(ClientDirectory::new(clients.clone(), clock.clone())),
            loyalty: Arc::new(LoyaltyOverview::new(clients, Arc::new(self.loyalty))),
            stock: Arc::new(StockKeeper::new(
                Arc::new(self.stock),
                Arc::new(ids),
                clock.clone(),
            )),
            points: Arc::new(PointsKeeper::new(
                Arc::new(self.points),
                Arc::new(points_ids),
                clock.clone(),
            )),
            client_writes: Arc::new(ClientEditor::new(
                Arc::new(self.client_writer),
                Arc::new(client_ids),
                clock.clone(),
            )),
            product_writes: Arc::new(ProductEditor::new(
                Arc::new(self.product_writer),
                Arc::new(product_ids),
                clock.clone(),
            )),
            webhook_endpoints: Arc::new(WebhookEndpoints::new(
                Arc::new(self.webhook_store),
                Arc::new(webhook_ids),
                clock,
                Arc::new(webhook_random),
                NetworkPolicy::PublicOnly,
            )),
            webhook_events: Arc::new(WebhookEvents::new(Arc::new(self.event_log))),
            rate_limiter: self.rate_limiter,
            trusted_proxies: TrustedProxies::default(),
        }
    }

    pub async fn send(self, request: TestRequest) -> Reply {
        let mut replies = self.send_all(vec![request]).await;
        replies.pop().expect("one reply per request")
    }

    /// The requests in turn on ONE App, so that they share its authentication cache.
    pub async fn send_all(self, requests: Vec<TestRequest>) -> Vec<Reply> {
        let operations = self.operations.clone();
        let service = test::init_service(app(self.state(), operations, routes::configure)).await;
        let mut replies = Vec::with_capacity(requests.len());
        for request in requests {
            let response = test::call_service(&service, request.to_request()).await;
            replies.push(Reply {
                status: response.status(),
                headers: response.headers().clone(),
                body: test::read_body(response).await,
            });
        }
        replies
    }
}

/// The token that opens `/metrics` on the API's address in these tests.
pub const METRICS_TOKEN: &str = "scrape-token-for-tests-0123456789abcdef";

pub fn metrics_token() -> crate::MetricsToken {
    crate::MetricsToken::new(METRICS_TOKEN).expect("a token of 32 characters or more")
}

/// A GET carrying `key()`.
pub fn get(uri: &str) -> TestRequest {
    TestRequest::get()
        .uri(uri)
        .insert_header((header::AUTHORIZATION, format!("Bearer {}", key())))
}

pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|_| panic!("not JSON: {:?}", self.body))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }

    /// Asserts an enveloped error with this status and code; returns `error`.
    pub fn error(&self, status: StatusCode, code: &str) -> Value {
        assert_eq!(self.status, status, "{:?}", self.body);
        assert_eq!(self.header("content-type"), Some("application/json"));
        let body = self.json();
        assert_eq!(body["error"]["code"], code, "{body}");
        assert!(body["error"]["message"].is_string(), "{body}");
        body["error"].clone()
    }

    /// The `field`s of a validation error's details, in order.
    pub fn detail_fields(&self) -> Vec<String> {
        let error = self.error(StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        error["details"]
            .as_array()
            .unwrap_or_else(|| panic!("no details: {error}"))
            .iter()
            .map(|issue| issue["field"].as_str().unwrap().to_owned())
            .collect()
    }
}

/// A product with every optional value present.
pub fn full_product(id: &str) -> Product {
    Product {
        id: ProductId::parse(id).unwrap(),
        name: "Écharpe laine".into(),
        product_type: "simple".into(),
        ean: Some("3760000000017".into()),
        sku: Some("ECH-01".into()),
        price: Cents(2_500),
        list_price: Cents(2_900),
        compare_at_price: Some(Cents(3_200)),
        promo_active: true,
        tax_rate: TaxRate::parse("20.00").unwrap(),
        active: true,
        track_stock: true,
        tags: vec!["hiver".into()],
        photos: vec!["https://cdn.example/ech.jpg".into()],
        category: Some(CategoryRef {
            id: CategoryId::parse("cat_1").unwrap(),
            name: "Accessoires".into(),
        }),
        brand: Some(BrandRef {
            id: BrandId::parse("brand_1").unwrap(),
            name: "Laines & Co".into(),
        }),
        variants: vec![Variant {
            id: VariantId::parse(format!("{id}_v1")).unwrap(),
            label: "Rouge".into(),
            sku: Some("ECH-01-R".into()),
            barcode: Some("3760000000024".into()),
            swatch_color: Some(HexColor::parse("#a1b2c3").unwrap()),
            price: Cents(2_500),
            stock: 7,
            low_stock_threshold: 2,
            is_default: true,
            active: true,
            order: 0,
            tracked: true,
        }],
        created_at: Timestamp::parse_rfc3339("2026-11-21T09:30:00Z").unwrap(),
        updated_at: Timestamp::parse_rfc3339("2026-11-22T10:00:00.123Z").unwrap(),
    }
}

/// A product with every optional value absent.
pub fn bare_product(id: &str) -> Product {
    let mut product = full_product(id);
    product.ean = None;
    product.sku = None;
    product.compare_at_price = None;
    product.track_stock = false;
    product.category = None;
    product.brand = None;
    product.tags = vec![];
    product.photos = vec![];
    for variant in &mut product.variants {
        variant.sku = None;
        variant.barcode = None;
        variant.swatch_color = None;
    }
    product
}

/// The set of keys of a JSON object, to pin a resource's exact fields.
pub fn keys(object: &Value) -> BTreeSet<&str> {
    object
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {object}"))
        .keys()
        .map(String::as_str)
        .collect()
}

/// Log lines written while the guard lives (on this thread, which runs the whole test App).
#[derive(Clone, Default)]
pub struct CapturedLogs(Arc<Mutex<Vec<u8>>>);

impl CapturedLogs {
    pub fn start() -> (Self, tracing::subscriber::DefaultGuard) {
        let logs = Self::default();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(logs.clone())
            .with_ansi(false)
            .with_max_level(tracing::Level::TRACE)
            .finish();
        (logs, tracing::subscriber::set_default(subscriber))
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

impl std::io::Write for CapturedLogs {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for CapturedLogs {
    type Writer = Self;

    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}
