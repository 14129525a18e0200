//! Builds every use case on its adapters.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use shop_console::{ConsoleSettings, ConsoleState, PublicUrl};
use shop_domain::client_address::TrustedProxies;
use shop_domain::rate_limit::RateBudget;
use shop_domain::webhook::NetworkPolicy;
use shop_http::{ApiState, EventBodies, Operations, ReadRouting};
use shop_persistence::{Database, DatabaseUrl, MAX_REPLICAS, Outbox, PoolOptions, ReplicaOptions};
use shop_ports::port::{Clock, HealthCheck, RateLimitStore, WritePositions};
use shop_ports::usecase::webhooks::{
    DispatchSettings, WebhookDispatcher, WebhookEndpoints, WebhookEvents,
};
use shop_ports::usecase::{
    ApiWriteHistory, Authenticator, ClientDirectory, ClientEditor, FailureBudgets, ImportShopData,
    KeyAdmin, LoyaltyOverview, OrderHistory, OwnerAdmin, OwnerSessions, PointsKeeper,
    ProductCatalogue, ProductEditor, RateLimiter, RateLimits, ShopAdmin, SignInLimits, StockKeeper,
};
use shop_webhook_sender::HttpWebhookSender;

use crate::adapters::rate_limit::{
    DEFAULT_KEY_PREFIX, FallbackRateStore, InMemoryRateStore, RedisRateStore,
};
use crate::adapters::{
    Argon2Hasher, KeyUsageWriter, LocalWritePositions, OsKeyMaterial, RedisReadiness,
    RedisWritePositions, SystemClock, UuidV7Ids,
};

/// How long startup waits for Redis before serving anyway (on per-instance limits).
const REDIS_STARTUP_CHECK: Duration = Duration::from_secs(1);

/// What the services need beyond the database URL. `Default`: the spec's limits, kept in this
/// process (right for a single instance, and for every command but `serve` and `demo`), and
/// the default pool.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServiceSettings {
    pub rate_limits: RateLimits,
    /// The console's budgets of failed sign-ins.
    pub sign_in: SignInLimits,
    /// The proxies whose forwarding headers name the client (`TRUSTED_PROXIES`); none by
    /// default.
    pub trusted_proxies: TrustedProxies,
    /// Where the rate-limit windows are shared between instances; `None` keeps them in the
    /// process.
    pub redis: Option<RedisSettings>,
    pub pool: PoolOptions,
    /// PostgreSQL read replicas (`DATABASE_REPLICA_URLS`); `None` reads the primary only.
    pub replicas: Option<ReplicaSettings>,
    pub webhooks: WebhookSettings,
}

/// Where webhooks may point, and how their deliveries are retried.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WebhookSettings {
    /// `WEBHOOK_ALLOW_PRIVATE_NETWORKS`: development and tests only.
    pub policy: NetworkPolicy,
    pub dispatch: DispatchSettings,
}

/// Where the API's reads may go besides the primary.
#[derive(Clone, PartialEq, Eq)]
pub struct ReplicaSettings {
    /// `postgres://` URLs, one per replica.
    pub urls: Vec<String>,
    /// Further behind than this, a replica leaves the rotation (`REPLICA_MAX_LAG_MS`).
    pub max_lag: Duration,
}

impl ReplicaSettings {
    /// `None` when no URL is given (`DATABASE_REPLICA_URLS=` set but empty included).
    pub fn from_urls(urls: &[String], max_lag: Duration) -> Option<Self> {
        let urls: Vec<String> = urls
            .iter()
            .map(|url| url.trim())
            .filter(|url| !url.is_empty())
            .map(str::to_owned)
            .collect();
        (!urls.is_empty()).then_some(Self { urls, max_lag })
    }
}

/// Keeps passwords in the URLs out of logs and panic messages.
impl std::fmt::Debug for ReplicaSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplicaSettings")
            .field("replicas", &self.urls.len())
            .field("max_lag", &self.max_lag)
            .finish()
    }
}

#[derive(Clone, PartialEq, Eq)]
pub struct RedisSettings {
    /// `redis://[user:password@]host:port[/db]` or `unix:///path/to/redis.sock` (TLS is not
    /// built in).
    pub url: String,
    /// Prepended to every key, so that deployments and tests can share one Redis.
    pub key_prefix: String,
}

impl RedisSettings {
    /// `url` with the default key prefix (`shop-api:rl:`).
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            key_prefix: DEFAULT_KEY_PREFIX.to_owned(),
        }
    }
}

/// Keeps a password in the URL out of logs and panic messages.
impl std::fmt::Debug for RedisSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let url = match (self.url.find("://"), self.url.rfind('@')) {
            (Some(scheme), Some(at)) if at > scheme => {
                format!("{}://***{}", &self.url[..scheme], &self.url[at..])
            }
            _ => self.url.clone(),
        };
        f.debug_struct("RedisSettings")
            .field("url", &url)
            .field("key_prefix", &self.key_prefix)
            .finish()
    }
}

pub struct Services {
    pub database: Database,
    pub clock: Arc<dyn Clock>,
    pub authenticator: Arc<Authenticator>,
    pub catalogue: Arc<ProductCatalogue>,
    pub orders: Arc<OrderHistory>,
    pub clients: Arc<ClientDirectory>,
    pub loyalty: Arc<LoyaltyOverview>,
    pub stock: Arc<StockKeeper>,
    /// The console's list of what the shop's API keys wrote.
    pub api_writes: Arc<ApiWriteHistory>,
    pub points: Arc<PointsKeeper>,
    pub client_writes: Arc<ClientEditor>,
    pub product_writes: Arc<ProductEditor>,
    pub rate_limiter: Arc<RateLimiter>,
    pub shops: ShopAdmin,
    pub keys: Arc<KeyAdmin>,
    pub owners: OwnerAdmin,
    pub owner_sessions: Arc<OwnerSessions>,
    pub import: ImportShopData,
    pub webhook_endpoints: Arc<WebhookEndpoints>,
    pub webhook_events: Arc<WebhookEvents>,
    /// The delivery workers' loop, run by `serve` and `deliver` (`crate::deliveries`).
    pub dispatcher: Arc<WebhookDispatcher>,
    pub database_url: DatabaseUrl,
    /// What `/readyz` checks: the database, then Redis when configured.
    pub readiness: Vec<Arc<dyn HealthCheck>>,
    /// The keys' last write positions, when reads may go to replicas.
    write_positions: Option<Arc<dyn WritePositions>>,
    hasher: Arc<Argon2Hasher>,
    trusted_proxies: TrustedProxies,
}

impl Services {
    /// Connects and migrates the database (every command works on a current schema), then
    /// wires the use cases, with the default settings.
    pub async fn open(database_url: &str) -> anyhow::Result<Self> {
        Self::open_with(database_url, ServiceSettings::default()).await
    }

    /// [`Services::open`] with explicit rate limits and, optionally, Redis.
    ///
    /// A malformed Redis URL or a zero limit is an error; a Redis that does not answer is not:
    /// the service starts on per-instance limits, logs a warning, and shares its limits as
    /// soon as Redis answers (see `adapters::rate_limit::FallbackRateStore`).
    pub async fn open_with(database_url: &str, settings: ServiceSettings) -> anyhow::Result<Self> {
        check_limits(&settings.rate_limits)?;
        let rate_store = rate_store(&settings)?;
        let url = DatabaseUrl::parse(database_url)?;
        let database = Database::open(&url, settings.pool)
            .await
            .with_context(|| format!("cannot open the {} database {url}", url.backend_name()))?;
        let (database, write_positions) = with_replicas(database, &settings)?;
        let mut readiness: Vec<Arc<dyn HealthCheck>> = vec![Arc::new(database.clone())];
        readiness.extend(database.replica_checks());
        let rate_store: Arc<dyn RateLimitStore> = match rate_store {
            RateStore::Local(local) => Arc::new(local),
            RateStore::Shared(shared) => {
                if shared.check(REDIS_STARTUP_CHECK).await {
                    tracing::info!(
                        redis = shared.address(),
                        "rate limits are shared through Redis"
                    );
                }
                let shared = Arc::new(shared);
                readiness.push(Arc::new(RedisReadiness(shared.clone())));
                shared
            }
        };
        let sender =
            HttpWebhookSender::new(settings.webhooks.policy, settings.webhooks.dispatch.total)
                .context("cannot set up the webhooks' HTTP client")?;
        let mut services = Self::wire(
            database,
            url,
            rate_store,
            Arc::new(sender),
            &settings,
            readiness,
        );
        services.write_positions = write_positions;
        Ok(services)
    }

    /// Builds the use cases; must run on a tokio runtime (the keys' last-use writer is a task).
    fn wire(
        database: Database,
        database_url: DatabaseUrl,
        rate_store: Arc<dyn RateLimitStore>,
        sender: Arc<HttpWebhookSender>,
        settings: &ServiceSettings,
        readiness: Vec<Arc<dyn HealthCheck>>,
    ) -> Self {
        let ids = Arc::new(UuidV7Ids);
        // Every write appends its webhook events, rendered by the API's own DTOs.
        let database = database.with_outbox(Outbox::new(Arc::new(EventBodies), ids.clone()));
        let store = Arc::new(database.clone());
        let clock: Arc<dyn Clock> = Arc::new(SystemClock);
        let hasher = Arc::new(Argon2Hasher::new());
        let key_usage = KeyUsageWriter::start(store.clone());
        let failures = Arc::new(FailureBudgets::new(
            rate_store.clone(),
            clock.clone(),
            settings.rate_limits.auth_failures,
            settings.rate_limits.key_failures,
        ));
        Self {
            authenticator: Arc::new(
                Authenticator::new(store.clone(), hasher.clone(), clock.clone())
                    .noting_use(key_usage)
                    .limiting_failures(failures),
            ),
            catalogue: Arc::new(ProductCatalogue::new(store.clone(), clock.clone())),
            orders: Arc::new(OrderHistory::new(store.clone(), clock.clone())),
            clients: Arc::new(ClientDirectory::new(store.clone(), clock.clone())),
            loyalty: Arc::new(LoyaltyOverview::new(store.clone(), store.clone())),
            stock: Arc::new(StockKeeper::new(store.clone(), ids.clone(), clock.clone())),
            api_writes: Arc::new(ApiWriteHistory::new(store.clone())),
            points: Arc::new(PointsKeeper::new(store.clone(), ids.clone(), clock.clone())),
            client_writes: Arc::new(ClientEditor::new(store.clone(), ids.clone(), clock.clone())),
            product_writes: Arc::new(ProductEditor::new(
                store.clone(),
                ids.clone(),
                clock.clone(),
            )),
            rate_limiter: Arc::new(RateLimiter::new(
                rate_store.clone(),
                clock.clone(),
                settings.rate_limits,
            )),
            shops: ShopAdmin::new(store.clone(), ids.clone(), clock.clone()),
            keys: Arc::new(KeyAdmin::new(
                store.clone(),
                store.clone(),
                hasher.clone(),
                Arc::new(OsKeyMaterial),
                clock.clone(),
            )),
            owners: OwnerAdmin::new(
                store.clone(),
                store.clone(),
                hasher.clone(),
                ids.clone(),
                clock.clone(),
            ),
            owner_sessions: Arc::new(OwnerSessions::new(
                store.clone(),
                store.clone(),
                hasher.clone(),
                rate_store,
                store.clone(),
                Arc::new(OsKeyMaterial),
                clock.clone(),
                settings.sign_in,
            )),
            import: ImportShopData::new(store.clone(), store.clone(), clock.clone()),
            webhook_endpoints: Arc::new(WebhookEndpoints::new(
                store.clone(),
                ids.clone(),
                clock.clone(),
                Arc::new(OsKeyMaterial),
                settings.webhooks.policy,
            )),
            webhook_events: Arc::new(WebhookEvents::new(store.clone())),
            dispatcher: Arc::new(WebhookDispatcher::new(
                store,
                sender,
                clock.clone(),
                ids.clone(),
                Arc::new(OsKeyMaterial),
                settings.webhooks.dispatch.clone(),
            )),
            database_url,
            hasher,
            trusted_proxies: settings.trusted_proxies.clone(),
            clock,
            database,
            readiness,
            write_positions: None,
        }
    }

    pub fn api_state(&self) -> ApiState {
        ApiState {
            authenticator: self.authenticator.clone(),
            catalogue: self.catalogue.clone(),
            orders: self.orders.clone(),
            clients: self.clients.clone(),
            loyalty: self.loyalty.clone(),
            stock: self.stock.clone(),
            points: self.points.clone(),
            client_writes: self.client_writes.clone(),
            product_writes: self.product_writes.clone(),
            webhook_endpoints: self.webhook_endpoints.clone(),
            webhook_events: self.webhook_events.clone(),
            rate_limiter: self.rate_limiter.clone(),
            trusted_proxies: self.trusted_proxies.clone(),
        }
    }

    /// Makes, in the background, the decoy hash that a sign-in with an unknown e-mail is
    /// verified against, so that even the first such sign-in costs only one verification.
    pub fn prepare_sign_in(&self) {
        let hasher = Arc::clone(&self.hasher);
        tokio::spawn(async move {
            if let Err(error) = hasher.decoy().await {
                tracing::warn!(error = %error, "could not prepare the sign-in's decoy hash");
            }
        });
    }

    /// What the owners' console calls, reached by owners at `public_url` if the operator
    /// said where.
    pub fn console_state(&self, public_url: Option<PublicUrl>) -> ConsoleState {
        ConsoleState {
            sessions: self.owner_sessions.clone(),
            keys: self.keys.clone(),
            stock: self.stock.clone(),
            api_writes: self.api_writes.clone(),
            webhooks: self.webhook_endpoints.clone(),
            settings: ConsoleSettings {
                public_url,
                trusted_proxies: self.trusted_proxies.clone(),
                body_timeout: shop_http::connection::BODY_READ_TIMEOUT,
            },
        }
    }

    /// What one server's probes check and its metrics read. Each call makes a new metrics
    /// registry: call it once per server.
    pub fn operations(&self) -> Operations {
        let operations = Operations::new(
            self.readiness.clone(),
            Some(Arc::new(self.database.clone())),
        );
        match &self.write_positions {
            Some(positions) => operations
                .watching_replicas(Arc::new(self.database.clone()))
                .routing_reads(ReadRouting::new(positions.clone())),
            None => operations,
        }
    }
}

/// Adds the read replicas of `settings` to `database`, with where the keys' write positions
/// are kept: in Redis when there is one (every instance must know them), else in process.
fn with_replicas(
    database: Database,
    settings: &ServiceSettings,
) -> anyhow::Result<(Database, Option<Arc<dyn WritePositions>>)> {
    let Some(replicas) = &settings.replicas else {
        return Ok((database, None));
    };
    if database.backend_name() != "postgres" {
        anyhow::bail!(
            "DATABASE_REPLICA_URLS needs a PostgreSQL DATABASE_URL: an SQLite database has no \
             replicas (unset DATABASE_REPLICA_URLS, or use PostgreSQL)"
        );
    }
    if replicas.urls.len() > MAX_REPLICAS {
        anyhow::bail!(
            "DATABASE_REPLICA_URLS names {} replicas; at most {MAX_REPLICAS} are supported",
            replicas.urls.len()
        );
    }
    let urls = replicas
        .urls
        .iter()
        .map(|url| DatabaseUrl::parse(url))
        .collect::<Result<Vec<_>, _>>()
        .context("DATABASE_REPLICA_URLS holds an invalid URL")?;
    let positions: Arc<dyn WritePositions> = match &settings.redis {
        Some(redis) => Arc::new(
            RedisWritePositions::new(&redis.url, &redis.key_prefix)
                .map_err(|error| anyhow::anyhow!("REDIS_URL is not a usable Redis URL: {error}"))?,
        ),
        None => Arc::new(LocalWritePositions::default()),
    };
    tracing::info!(
        replicas = urls.len(),
        max_lag_ms = replicas.max_lag.as_millis(),
        shared = settings.redis.is_some(),
        "API reads go to the read replicas in rotation"
    );
    let options = ReplicaOptions {
        urls,
        max_lag: replicas.max_lag,
        positions: positions.clone(),
    };
    let database = database
        .with_replicas(options, settings.pool)
        .context("cannot set up the read replicas")?;
    Ok((database, Some(positions)))
}

enum RateStore {
    Local(InMemoryRateStore),
    Shared(FallbackRateStore),
}

fn rate_store(settings: &ServiceSettings) -> anyhow::Result<RateStore> {
    let local = InMemoryRateStore::for_limits(&settings.rate_limits, &settings.sign_in);
    let Some(redis) = &settings.redis else {
        return Ok(RateStore::Local(local));
    };
    let shared = RedisRateStore::new(&redis.url, &redis.key_prefix)
        .map_err(|error| {
            anyhow::anyhow!(
                "REDIS_URL is not a usable Redis URL (expected redis://[user:password@]host:port[/db]): {error}"
            )
        })?;
    Ok(RateStore::Shared(FallbackRateStore::new(shared, local)))
}

/// A zero limit would refuse every request, and a zero window would limit nothing.
fn check_limits(limits: &RateLimits) -> anyhow::Result<()> {
    let budgets = [
        ("reads", limits.reads),
        ("writes", limits.writes),
        ("failed authentications", limits.auth_failures),
        ("wrong secrets per key", limits.key_failures),
    ];
    for (
        name,
        RateBudget {
            limit,
            window_millis,
        },
    ) in budgets
    {
        anyhow::ensure!(
            limit >= 1,
            "the rate limit of {name} must be at least 1 request per window, not {limit}"
        );
        anyhow::ensure!(
            window_millis >= 1,
            "the rate-limit window of {name} must be at least 1 ms, not {window_millis}"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use shop_domain::api_key::KeyPrefix;
    use shop_domain::rate_limit::RequestClass;

    use super::*;

    fn error_of(result: anyhow::Result<Services>) -> String {
        match result {
            Ok(_) => panic!("expected an error"),
            Err(error) => format!("{error:#}"),
        }
    }

    #[tokio::test]
    async fn zero_limits_and_windows_are_refused_before_anything_opens() {
        let mut settings = ServiceSettings::default();
        settings.rate_limits.writes.limit = 0;
        let error = error_of(Services::open_with("mysql://never-opened", settings).await);
        assert!(error.contains("writes must be at least 1"), "{error}");

        let mut settings = ServiceSettings::default();
        settings.rate_limits.auth_failures.window_millis = 0;
        let error = error_of(Services::open_with("mysql://never-opened", settings).await);
        assert!(
            error.contains("window of failed authentications"),
            "{error}"
        );
    }

    #[tokio::test]
    async fn a_malformed_redis_url_is_one_clear_error() {
        let settings = ServiceSettings {
            redis: Some(RedisSettings::new("localhost:6379")),
            ..ServiceSettings::default()
        };
        let error = error_of(Services::open_with("mysql://never-opened", settings).await);
        assert!(
            error.starts_with("REDIS_URL is not a usable Redis URL"),
            "{error}"
        );
        assert_eq!(error.lines().count(), 1, "{error}");
    }

    #[tokio::test]
    async fn an_unreachable_redis_is_not_a_startup_error_and_limits_still_hold() {
        let dir = tempfile::tempdir().expect("temp dir");
        let url = format!("sqlite://{}", dir.path().join("shop.db").display());
        let mut settings = ServiceSettings {
            redis: Some(RedisSettings::new("redis://127.0.0.1:1")),
            ..ServiceSettings::default()
        };
        settings.rate_limits.reads.limit = 2;
        let services = Services::open_with(&url, settings)
            .await
            .expect("starts without Redis");
        let key = KeyPrefix::parse("0a1b2c3d").expect("prefix");
        let limiter = &services.rate_limiter;
        assert!(limiter.consume(&key, RequestClass::Read).await.allowed);
        assert!(limiter.consume(&key, RequestClass::Read).await.allowed);
        assert!(!limiter.consume(&key, RequestClass::Read).await.allowed);
        assert_eq!(
            limiter.store_failures(),
            0,
            "the fallback decided, not fail-open"
        );
    }

    #[test]
    fn debug_output_hides_the_redis_password() {
        let settings = RedisSettings::new("redis://app:s3cret@cache.internal:6379/2");
        let shown = format!("{settings:?}");
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(
            shown.contains("redis://***@cache.internal:6379/2"),
            "{shown}"
        );
    }
}
