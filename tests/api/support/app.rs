use std::time::Duration;

use serde_json::Value;
use shop_app::server::{MetricsToken, RunningServer, ServerConfig};
use shop_app::services::{
    RedisSettings, ReplicaSettings, ServiceSettings, Services, WebhookSettings,
};
use shop_console::ConsoleExposure;
use shop_domain::Timestamp;
use shop_domain::rate_limit::RateBudget;
use shop_domain::scope::ScopeSet;
use shop_domain::shop::{Shop, ShopSlug, SubscriptionStatus};
use shop_domain::webhook::{NetworkPolicy, RetrySchedule};
use shop_ports::usecase::RateLimits;
use shop_ports::usecase::webhooks::DispatchSettings;
use shop_ports::usecase::{NewKey, NewShop, ShopChange};

use super::postgres::{self, ScratchDatabase};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A running server with its own database. Fields are dropped in order: server first, then
/// the database it used.
pub struct TestApp {
    pub backend: Backend,
    pub services: Services,
    server: Option<RunningServer>,
    client: reqwest::Client,
    base_url: String,
    /// What the console's own pages send as `Origin`: `PUBLIC_URL` when the server has one.
    console_origin: String,
    _sqlite_dir: Option<tempfile::TempDir>,
    _postgres: Option<ScratchDatabase>,
}

/// A response, read whole.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text))
    }

    pub fn error_code(&self) -> String {
        self.json()["error"]["code"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// The `field` of every validation detail.
    pub fn detail_fields(&self) -> Vec<String> {
        self.json()["error"]["details"]
            .as_array()
            .map(|details| {
                details
                    .iter()
                    .filter_map(|d| d["field"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

impl TestApp {
    /// The bearer token that opens `/metrics` on the test servers' address.
    pub const METRICS_TOKEN: &'static str = "test-metrics-token-0123456789abcdef";

    /// `None` only for PostgreSQL when no test server is configured. Rate limits are raised far
    /// above any scenario's needs, so that only the rate-limit tests meet them.
    pub async fn start(backend: Backend) -> Option<Self> {
        Self::start_with(backend, Self::generous()).await
    }

    pub async fn start_with(backend: Backend, settings: ServiceSettings) -> Option<Self> {
        Self::start_exposed(backend, settings, None).await
    }

    /// A server whose console owners reach at `public_url` (`PUBLIC_URL`), e.g. through a TLS
    /// proxy, with generous limits.
    pub async fn start_public(backend: Backend, public_url: &str) -> Option<Self> {
        let public_url = shop_console::PublicUrl::parse(public_url).expect("a public URL");
        Self::start_exposed(backend, Self::generous(), Some(public_url)).await
    }

    async fn start_exposed(
        backend: Backend,
        settings: ServiceSettings,
        public_url: Option<shop_console::PublicUrl>,
    ) -> Option<Self> {
        let (url, sqlite_dir, postgres) = match backend {
            Backend::Sqlite => {
                let dir = tempfile::tempdir().expect("temp dir");
                let url = format!("sqlite://{}", dir.path().join("shop.db").display());
                (url, Some(dir), None)
            }
            Backend::Postgres => {
                let scratch = postgres::create().await?;
                (scratch.url.clone(), None, Some(scratch))
            }
        };
        Some(Self::serve(backend, url, settings, sqlite_dir, postgres, public_url).await)
    }

    /// A server on a scratch database of the streaming pair (`scripts/replica/up.sh`), reading
    /// from its replica as `settings` say (`replicas` is filled in here), with generous limits.
    /// `None` when the pair is not configured (and not required).
    pub async fn start_replicated(max_lag: Duration, redis: Option<String>) -> Option<Self> {
        let (scratch, replica_url) = postgres::create_replicated().await?;
        let mut settings = Self::generous();
        settings.replicas = Some(ReplicaSettings {
            urls: vec![replica_url],
            max_lag,
        });
        settings.redis = redis.map(|url| RedisSettings {
            url,
            key_prefix: format!("shop-test:{}:", uuid::Uuid::new_v4().simple()),
        });
        let url = scratch.url.clone();
        Some(Self::serve(Backend::Postgres, url, settings, None, Some(scratch), None).await)
    }

    /// A server whose webhooks follow `webhooks` (the others allow loopback receivers and
    /// retry after 200 ms, 400 ms, 800 ms).
    pub async fn start_with_webhooks(backend: Backend, webhooks: WebhookSettings) -> Option<Self> {
        let settings = ServiceSettings {
            webhooks,
            ..Self::generous()
        };
        Self::start_with(backend, settings).await
    }

    /// Loopback receivers allowed (`WEBHOOK_ALLOW_PRIVATE_NETWORKS=true`), retries on
    /// `schedule` (`WEBHOOK_RETRY_SCHEDULE`).
    pub fn test_webhooks(schedule: &str) -> WebhookSettings {
        WebhookSettings {
            policy: NetworkPolicy::AllowPrivate,
            dispatch: DispatchSettings {
                schedule: RetrySchedule::parse(schedule).expect("a schedule"),
                ..DispatchSettings::default()
            },
        }
    }

    fn generous() -> ServiceSettings {
        let generous = RateBudget {
            limit: 1_000_000,
            window_millis: 60_000,
        };
        ServiceSettings {
            rate_limits: RateLimits {
                reads: generous,
                writes: generous,
                auth_failures: generous,
                key_failures: generous,
            },
            webhooks: Self::test_webhooks("200ms,400ms,800ms"),
            ..ServiceSettings::default()
        }
    }

    async fn serve(
        backend: Backend,
        url: String,
        settings: ServiceSettings,
        sqlite_dir: Option<tempfile::TempDir>,
        postgres: Option<ScratchDatabase>,
        public_url: Option<shop_console::PublicUrl>,
    ) -> Self {
        let services = Services::open_with(&url, settings)
            .await
            .expect("open and migrate the test database");
        let config = ServerConfig {
            workers: Some(2),
            metrics_token: Some(
                MetricsToken::new(Self::METRICS_TOKEN).expect("a long enough token"),
            ),
            console: ConsoleExposure {
                public_url: public_url.clone(),
                insecure: false,
            },
            ..ServerConfig::new("127.0.0.1:0".parse().expect("loopback address"))
        };
        let server = RunningServer::start_with(&services, config).expect("start the server");
        let base_url = server.base_url();
        let console_origin = public_url.map_or_else(|| base_url.clone(), |url| url.to_string());
        Self {
            backend,
            services,
            server: Some(server),
            client: reqwest::Client::builder()
                .timeout(Duration::from_secs(30))
                .build()
                .expect("client"),
            base_url,
            console_origin,
            _sqlite_dir: sqlite_dir,
            _postgres: postgres,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    pub async fn create_shop(&self, slug: &str) -> Shop {
        self.services
            .shops
            .create(NewShop {
                slug: ShopSlug::parse(slug).expect("test slug"),
                name: format!("Shop {slug}"),
                public_api_in_plan: true,
                subscription: SubscriptionStatus::Active,
            })
            .await
            .expect("create shop")
    }

    pub async fn update_shop(&self, slug: &str, change: ShopChange) {
        self.services
            .shops
            .update(&ShopSlug::parse(slug).expect("slug"), change)
            .await
            .expect("update shop");
    }

    pub async fn create_key(&self, slug: &str, scopes: &str) -> String {
        self.create_key_expiring(slug, scopes, None).await
    }

    pub async fn create_key_expiring(
        &self,
        slug: &str,
        scopes: &str,
        expires_at: Option<Timestamp>,
    ) -> String {
        let created = self
            .services
            .keys
            .create(NewKey {
                shop: ShopSlug::parse(slug).expect("slug"),
                label: format!("{slug} test key"),
                scopes: ScopeSet::parse_list(scopes).expect("scopes"),
                expires_at,
            })
            .await
            .expect("create key");
        created.full_key.reveal()
    }

    /// Imports `data` (the import file format) into the shop through the CLI's code path.
    pub async fn import(&self, slug: &str, data: &Value) {
        let parsed =
            shop_app::import_file::parse(&data.to_string(), &shop_app::adapters::UuidV7Ids)
                .unwrap_or_else(|problems| panic!("bad test data: {problems:?}"));
        self.services
            .import
            .run(&ShopSlug::parse(slug).expect("slug"), parsed)
            .await
            .expect("import");
    }

    /// Imports through the CLI's path, returning the refusal's problems as `path: message`.
    pub async fn try_import(&self, slug: &str, data: &Value) -> Result<(), Vec<String>> {
        let parsed =
            shop_app::import_file::parse(&data.to_string(), &shop_app::adapters::UuidV7Ids)
                .map_err(|problems| problems.iter().map(ToString::to_string).collect::<Vec<_>>())?;
        match self
            .services
            .import
            .run(&ShopSlug::parse(slug).expect("slug"), parsed)
            .await
        {
            Ok(_) => Ok(()),
            Err(shop_ports::usecase::ImportError::Invalid(problems)) => {
                Err(problems.iter().map(ToString::to_string).collect())
            }
            Err(other) => panic!("import failed: {other}"),
        }
    }

    pub async fn get(&self, path: &str, key: &str) -> Reply {
        self.send(self.client.get(self.url(path)).bearer_auth(key))
            .await
    }

    /// `POST /api/v1/stock/adjustments` with a JSON body and, optionally, an idempotency key.
    pub async fn adjust(&self, key: &str, body: &Value, idempotency_key: Option<&str>) -> Reply {
        self.send(self.adjustment_request(key, body, idempotency_key))
            .await
    }

    pub fn adjustment_request(
        &self,
        key: &str,
        body: &Value,
        idempotency_key: Option<&str>,
    ) -> reqwest::RequestBuilder {
        self.post_request("/api/v1/stock/adjustments", key, body, idempotency_key)
    }

    /// A JSON `POST` of `body` to `path` with `key` and, optionally, an idempotency key.
    pub fn post_request(
        &self,
        path: &str,
        key: &str,
        body: &Value,
        idempotency_key: Option<&str>,
    ) -> reqwest::RequestBuilder {
        let mut request = self
            .client
            .post(self.url(path))
            .bearer_auth(key)
            .header("Content-Type", "application/json")
            .body(body.to_string());
        if let Some(idempotency_key) = idempotency_key {
            request = request.header("Idempotency-Key", idempotency_key);
        }
        request
    }

    /// A JSON Merge Patch (`application/merge-patch+json`) of `body` to `path` with `key` and,
    /// optionally, `If-Match`.
    pub fn patch_request(
        &self,
        path: &str,
        key: &str,
        body: &Value,
        if_match: Option<&str>,
    ) -> reqwest::RequestBuilder {
        let mut request = self
            .client
            .patch(self.url(path))
            .bearer_auth(key)
            .header("Content-Type", "application/merge-patch+json")
            .body(body.to_string());
        if let Some(tag) = if_match {
            request = request.header("If-Match", tag);
        }
        request
    }

    /// Sends every request at once (a task each) and returns their replies in order.
    pub async fn send_all_at_once(&self, requests: Vec<reqwest::RequestBuilder>) -> Vec<Reply> {
        let tasks: Vec<_> = requests
            .into_iter()
            .map(|request| tokio::spawn(Self::reply_to(request)))
            .collect();
        let mut replies = Vec::with_capacity(tasks.len());
        for task in tasks {
            replies.push(task.await.expect("task"));
        }
        replies
    }

    pub async fn send(&self, request: reqwest::RequestBuilder) -> Reply {
        Self::reply_to(request).await
    }

    async fn reply_to(request: reqwest::RequestBuilder) -> Reply {
        let response = request.send().await.expect("request");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.text().await.expect("body");
        Reply {
            status,
            headers,
            text,
        }
    }

    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// Revokes `key` as its owner would, through the key service; the instant of the answer.
    pub async fn revoke_key(&self, key: &str) -> std::time::Instant {
        let presented = shop_domain::api_key::PresentedKey::parse(key).unwrap();
        self.services.keys.revoke(presented.prefix()).await.unwrap();
        std::time::Instant::now()
    }

    /// The promise of a revocation, made at `revoked` (after its answer): a request sent 5 s
    /// later is refused. Polls every 100 ms until then; the send time of the first refusal,
    /// measured from `revoked`.
    pub async fn refused_within_five_seconds(
        &self,
        key: &str,
        path: &str,
        revoked: std::time::Instant,
    ) -> Duration {
        let promise = Duration::from_secs(5);
        let mut first_refused = None;
        while first_refused.is_none() && revoked.elapsed() < promise {
            let sent = revoked.elapsed();
            if self.get(path, key).await.status == 401 {
                first_refused = Some(sent);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        if let Some(remaining) = promise.checked_sub(revoked.elapsed()) {
            tokio::time::sleep(remaining).await;
        }
        let at_the_promise = self.get(path, key).await;
        assert_eq!(
            at_the_promise.status,
            401,
            "sent {:?} after the revocation: {}",
            revoked.elapsed(),
            at_the_promise.text
        );
        first_refused.unwrap_or(promise)
    }

    /// `GET /metrics` with the servers' metrics token.
    pub async fn scrape_metrics(&self) -> Reply {
        self.send(
            self.client
                .get(self.url("/metrics"))
                .bearer_auth(Self::METRICS_TOKEN),
        )
        .await
    }

    /// A new owner of the shop `slug`, who signs in with `password`.
    pub async fn create_owner(&self, slug: &str, email: &str, password: &str) {
        self.services
            .owners
            .create(
                &ShopSlug::parse(slug).expect("slug"),
                shop_domain::owner::OwnerEmail::parse(email).expect("email"),
                &shop_domain::owner::Password::new(password).expect("password"),
            )
            .await
            .expect("create owner");
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The origin the console's own pages post their forms from.
    pub fn console_origin(&self) -> &str {
        &self.console_origin
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        // actix workers are threads of their own: stop them, or every test leaks its server.
        if let Some(server) = self.server.take() {
            server.request_stop();
        }
    }
}
