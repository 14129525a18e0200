//! The `shop-api` command line. Its interface is relied on by scripts and tests: keep it.

mod limits;
mod owners;
mod run;
mod seed;
pub mod terminal_text;
mod webhook_args;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use shop_console::{ConsoleExposure, PublicUrl};
use shop_domain::Timestamp;
use shop_domain::api_key::KeyPrefix;
use shop_domain::id::VariantId;
use shop_domain::owner::OwnerEmail;
use shop_domain::scope::ScopeSet;
use shop_domain::shop::{ShopSlug, SubscriptionStatus};
use shop_http::{MetricsToken, MetricsTokenTooShort};
use shop_persistence::PoolOptions;

pub use limits::RateLimitArgs;
pub use owners::Refused;
pub use run::{describe, run};
pub use webhook_args::WebhookArgs;

use crate::server::ServerConfig;
use crate::services::{ReplicaSettings, ServiceSettings};
use crate::telemetry::LogFormat;

pub const DEFAULT_DATABASE_URL: &str = "sqlite://data/shop.db";

#[derive(Debug, Parser)]
#[command(
    name = "shop-api",
    version,
    about = "Public REST API v1 of the shop-management service"
)]
pub struct Cli {
    /// `sqlite://<path>` (relative or `sqlite:///absolute`) or `postgres://...`.
    #[arg(long, env = "DATABASE_URL", default_value = DEFAULT_DATABASE_URL, global = true)]
    pub database_url: String,

    #[arg(long, env = "LOG_FORMAT", value_enum, default_value_t = LogFormat::Text, global = true)]
    pub log_format: LogFormat,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the API.
    Serve(ServeArgs),
    /// Create a demo shop with a realistic catalogue if there is none, print a fresh
    /// full-scope key, a curl line, and the console's address with an owner's e-mail and a
    /// fresh password, then serve.
    Demo(ServeArgs),
    /// Manage shops.
    #[command(subcommand)]
    Shop(ShopCommand),
    /// Manage API keys.
    #[command(subcommand)]
    Key(KeyCommand),
    /// Manage the shop owners who sign in to the console.
    #[command(subcommand)]
    Owner(OwnerCommand),
    /// Inspect stock.
    #[command(subcommand)]
    Stock(StockCommand),
    /// Import a shop's data from a JSON file (one transaction, upsert by id).
    Import {
        #[arg(long, value_parser = parse_slug)]
        shop: ShopSlug,
        file: PathBuf,
    },
    /// Deliver webhooks only, without serving the API: to scale deliveries apart from the
    /// API (on PostgreSQL, any number of instances share the queue).
    Deliver(DeliverArgs),
    /// Fill an empty shop (created if missing) with deterministic synthetic data, in large
    /// batches; print one summary line with the rows per second.
    Seed(SeedArgs),
}

#[derive(Debug, Args)]
pub struct SeedArgs {
    /// The shop's slug, at most 51 characters (its rows' ids start with it).
    #[arg(long, value_parser = parse_slug)]
    pub shop: ShopSlug,
    #[arg(long)]
    pub products: usize,
    #[arg(long)]
    pub orders: usize,
    #[arg(long)]
    pub clients: usize,
    /// The same seed makes the same data, byte for byte.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(Debug, Args)]
pub struct DeliverArgs {
    /// Database connections kept open at most.
    #[arg(long, env = "DATABASE_POOL_SIZE", value_parser = clap::value_parser!(u16).range(1..),
          default_value_t = 8)]
    pub database_pool_size: u16,
    #[command(flatten)]
    pub webhooks: WebhookArgs,
}

impl DeliverArgs {
    pub fn settings(&self) -> ServiceSettings {
        ServiceSettings {
            pool: PoolOptions {
                max_size: usize::from(self.database_pool_size),
                ..PoolOptions::default()
            },
            webhooks: self.webhooks.settings(),
            ..ServiceSettings::default()
        }
    }
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    #[arg(long, env = "BIND", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,
    /// HTTP worker threads (default: one per core).
    #[arg(long, env = "WORKERS", value_parser = at_least_one_worker)]
    pub workers: Option<usize>,
    /// Serve `GET /metrics` on this address (a private interface), to anyone who reaches it.
    #[arg(long, env = "METRICS_BIND")]
    pub metrics_bind: Option<SocketAddr>,
    /// Without `--metrics-bind`: serve `GET /metrics` on `--bind` to requests bearing this
    /// token (`Authorization: Bearer <token>`), at least 32 characters. With neither,
    /// `/metrics` is not served.
    #[arg(long, env = "METRICS_TOKEN", hide_env_values = true)]
    pub metrics_token: Option<String>,
    /// The address owners type to reach the console, e.g. `https://shop.example` behind a
    /// TLS proxy: over https the session cookie is `__Host-` and `Secure` and pages send
    /// HSTS; console forms are accepted from this origin only. Required to serve beyond
    /// loopback.
    #[arg(long, env = "PUBLIC_URL", value_parser = parse_public_url)]
    pub public_url: Option<PublicUrl>,
    /// Development only: serve the console over plain HTTP on a non-loopback `--bind`
    /// without `PUBLIC_URL` (its session cookie then travels in clear).
    #[arg(long)]
    pub insecure_console: bool,
    /// Seconds the requests in flight get to finish after SIGTERM or SIGINT.
    #[arg(long, env = "SHUTDOWN_TIMEOUT_SECONDS", default_value_t = 30)]
    pub shutdown_timeout_seconds: u64,
    /// Database connections kept open at most (on SQLite, per pool: writers and API readers).
    #[arg(long, env = "DATABASE_POOL_SIZE", value_parser = clap::value_parser!(u16).range(1..),
          default_value_t = 8)]
    pub database_pool_size: u16,
    /// Milliseconds a query waits for a database connection (including connecting) before
    /// the request is answered 503.
    #[arg(long, env = "DATABASE_WAIT_TIMEOUT_MS", value_parser = clap::value_parser!(u64).range(1..),
          default_value_t = 5_000)]
    pub database_wait_timeout_ms: u64,
    /// PostgreSQL streaming replicas that answer the API's reads (comma-separated
    /// `postgres://` URLs). Refused with SQLite.
    #[arg(
        long,
        env = "DATABASE_REPLICA_URLS",
        value_delimiter = ',',
        hide_env_values = true
    )]
    pub database_replica_urls: Vec<String>,
    /// A replica further behind the primary than this leaves the rotation until it catches up.
    #[arg(long, env = "REPLICA_MAX_LAG_MS", value_parser = clap::value_parser!(u64).range(1..),
          default_value_t = 2_000)]
    pub replica_max_lag_ms: u64,
    #[command(flatten)]
    pub limits: RateLimitArgs,
    #[command(flatten)]
    pub webhooks: WebhookArgs,
}

impl ServeArgs {
    /// The services' settings: rate limits, Redis, and the pool.
    pub fn settings(&self) -> ServiceSettings {
        ServiceSettings {
            pool: PoolOptions {
                max_size: usize::from(self.database_pool_size),
                wait_timeout: Duration::from_millis(self.database_wait_timeout_ms),
            },
            replicas: ReplicaSettings::from_urls(
                &self.database_replica_urls,
                Duration::from_millis(self.replica_max_lag_ms),
            ),
            webhooks: self.webhooks.settings(),
            ..self.limits.settings()
        }
    }

    /// Where and how to serve; a metrics token too short to be secret is refused (an empty
    /// one is no token: `/metrics` is then not served on `--bind`). Not a clap value parser:
    /// clap would print the refused value, the token, in its error.
    pub fn server_config(&self) -> Result<ServerConfig, MetricsTokenTooShort> {
        let metrics_token = self
            .metrics_token
            .as_deref()
            .filter(|token| !token.trim().is_empty())
            .map(MetricsToken::new)
            .transpose()?;
        Ok(ServerConfig {
            bind: self.bind,
            workers: self.workers,
            metrics_bind: self.metrics_bind,
            metrics_token,
            shutdown_timeout: Duration::from_secs(self.shutdown_timeout_seconds),
            console: ConsoleExposure {
                public_url: self.public_url.clone(),
                insecure: self.insecure_console,
            },
        })
    }
}

#[derive(Debug, Subcommand)]
pub enum ShopCommand {
    Create {
        #[arg(long, value_parser = parse_slug)]
        slug: ShopSlug,
        #[arg(long)]
        name: String,
        /// Create the shop on a plan without the `publicApi` feature.
        #[arg(long)]
        no_public_api: bool,
        #[arg(long, value_parser = parse_subscription, default_value = "active")]
        subscription: SubscriptionStatus,
    },
    Update {
        #[arg(value_parser = parse_slug)]
        slug: ShopSlug,
        #[arg(long)]
        public_api: Option<bool>,
        #[arg(long, value_parser = parse_subscription)]
        subscription: Option<SubscriptionStatus>,
    },
}

#[derive(Debug, Subcommand)]
pub enum StockCommand {
    /// List the shop's stock movements, newest first.
    Movements {
        #[arg(long, value_parser = parse_slug)]
        shop: ShopSlug,
        #[arg(long, value_parser = parse_variant)]
        variant: Option<VariantId>,
    },
}

#[derive(Debug, Subcommand)]
pub enum KeyCommand {
    /// Print a new key: the full key is the only line on stdout, shown this once.
    Create {
        #[arg(long, value_parser = parse_slug)]
        shop: ShopSlug,
        #[arg(long)]
        label: String,
        /// Comma-separated, e.g. `products:read,stock:write`.
        #[arg(long, value_parser = parse_scopes)]
        scopes: ScopeSet,
        /// RFC 3339, e.g. `2027-01-01T00:00:00Z`.
        #[arg(long, value_parser = parse_timestamp)]
        expires_at: Option<Timestamp>,
    },
    List {
        #[arg(long, value_parser = parse_slug)]
        shop: ShopSlug,
    },
    Revoke {
        #[arg(value_parser = parse_prefix)]
        prefix: KeyPrefix,
    },
}

#[derive(Debug, Subcommand)]
pub enum OwnerCommand {
    /// Create an owner of the shop. The password is the first line of standard input, or is
    /// asked for, unseen, at a terminal; at least 12 characters.
    Create {
        #[arg(long, value_parser = parse_slug)]
        shop: ShopSlug,
        #[arg(long, value_parser = parse_email)]
        email: OwnerEmail,
    },
    /// Give an owner a new password (read like `create`'s); their sessions end.
    SetPassword {
        #[arg(long, value_parser = parse_email)]
        email: OwnerEmail,
    },
    /// The shop's owners: e-mail, created, disabled.
    List {
        #[arg(long, value_parser = parse_slug)]
        shop: ShopSlug,
    },
    /// The owner can no longer sign in; their open sessions end at once. Prints the shop's
    /// active keys (prefix, label, scopes), which keep working: keys belong to the shop.
    Disable {
        #[arg(long, value_parser = parse_email)]
        email: OwnerEmail,
    },
}

fn parse_email(text: &str) -> Result<OwnerEmail, String> {
    OwnerEmail::parse(text).map_err(|e| e.to_string())
}

fn at_least_one_worker(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_owned()),
        Ok(workers) => Ok(workers),
        Err(_) => Err(format!("expected a whole number of threads, got `{text}`")),
    }
}

fn parse_slug(text: &str) -> Result<ShopSlug, String> {
    ShopSlug::parse(text).map_err(|e| e.to_string())
}

fn parse_public_url(text: &str) -> Result<PublicUrl, String> {
    PublicUrl::parse(text).map_err(|e| e.to_string())
}

fn parse_subscription(text: &str) -> Result<SubscriptionStatus, String> {
    SubscriptionStatus::from_str(text).map_err(|e| e.to_string())
}

fn parse_scopes(text: &str) -> Result<ScopeSet, String> {
    ScopeSet::parse_list(text).map_err(|e| {
        let known: Vec<_> = shop_domain::scope::Scope::ALL
            .iter()
            .map(|s| s.as_str())
            .collect();
        format!("{e}; known scopes: {}", known.join(", "))
    })
}

fn parse_timestamp(text: &str) -> Result<Timestamp, String> {
    Timestamp::parse_rfc3339(text).map_err(|e| e.to_string())
}

fn parse_variant(text: &str) -> Result<VariantId, String> {
    VariantId::parse(text).map_err(|e| e.to_string())
}

fn parse_prefix(text: &str) -> Result<KeyPrefix, String> {
    KeyPrefix::parse(text).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn unknown_scopes_are_refused_with_the_known_ones() {
        let parsed = Cli::try_parse_from([
            "shop-api",
            "key",
            "create",
            "--shop",
            "s",
            "--label",
            "l",
            "--scopes",
            "products:read,stock:delete",
        ]);
        let message = parsed.unwrap_err().to_string();
        assert!(message.contains("stock:delete"), "{message}");
        assert!(message.contains("loyalty:read"), "{message}");
    }
}
