//! The rate-limit options of `serve` and `demo`: the budgets, and where their windows live.

use clap::Args;
use shop_domain::client_address::TrustedProxies;
use shop_domain::rate_limit::RateBudget;
use shop_ports::usecase::RateLimits;

use crate::adapters::rate_limit::DEFAULT_KEY_PREFIX;
use crate::services::{RedisSettings, ServiceSettings};

/// Every budget is per minute, over a sliding window.
const MINUTE_MILLIS: i64 = 60_000;

#[derive(Debug, Args)]
pub struct RateLimitArgs {
    /// Redis shared by every instance for the rate limits, e.g. `redis://127.0.0.1:6379`
    /// (unset: windows kept in this process, right for a single instance).
    #[arg(long, env = "REDIS_URL")]
    pub redis_url: Option<String>,

    /// Prefix of this deployment's Redis keys.
    #[arg(long, env = "REDIS_KEY_PREFIX", default_value = DEFAULT_KEY_PREFIX)]
    pub redis_key_prefix: String,

    /// Reads (GET, HEAD) accepted per API key in any 60 seconds.
    #[arg(long, env = "RATE_LIMIT_READS_PER_MINUTE", value_parser = per_minute,
          default_value_t = RateBudget::READS.limit)]
    pub rate_limit_reads_per_minute: u32,

    /// Writes (POST, PUT, PATCH, DELETE) accepted per API key in any 60 seconds.
    #[arg(long, env = "RATE_LIMIT_WRITES_PER_MINUTE", value_parser = per_minute,
          default_value_t = RateBudget::WRITES.limit)]
    pub rate_limit_writes_per_minute: u32,

    /// Failed authentications accepted per client address in any 60 seconds: those that
    /// cost no verification, and, counted apart for each key, wrong secrets.
    #[arg(long, env = "AUTH_FAILURES_PER_MINUTE", value_parser = per_minute,
          default_value_t = RateBudget::AUTH_FAILURES.limit)]
    pub auth_failures_per_minute: u32,

    /// Wrong secrets accepted per API key, from every address together, in any 60 seconds.
    #[arg(long, env = "AUTH_FAILURES_PER_KEY_PER_MINUTE", value_parser = per_minute,
          default_value_t = RateBudget::KEY_FAILURES.limit)]
    pub auth_failures_per_key_per_minute: u32,

    /// Proxies (CIDR blocks or addresses, comma-separated) whose `Forwarded` or
    /// `X-Forwarded-For` names the client; none by default (the TCP peer is the client).
    #[arg(long, env = "TRUSTED_PROXIES", value_parser = parse_proxies, default_value = "")]
    pub trusted_proxies: TrustedProxies,
}

impl RateLimitArgs {
    pub fn settings(&self) -> ServiceSettings {
        let per_minute = |limit| RateBudget {
            limit,
            window_millis: MINUTE_MILLIS,
        };
        ServiceSettings {
            rate_limits: RateLimits {
                reads: per_minute(self.rate_limit_reads_per_minute),
                writes: per_minute(self.rate_limit_writes_per_minute),
                auth_failures: per_minute(self.auth_failures_per_minute),
                key_failures: per_minute(self.auth_failures_per_key_per_minute),
            },
            trusted_proxies: self.trusted_proxies.clone(),
            // `REDIS_URL=` (set but empty, as templates often leave it) means no Redis.
            redis: self
                .redis_url
                .as_deref()
                .map(str::trim)
                .filter(|url| !url.is_empty())
                .map(|url| RedisSettings {
                    url: url.to_owned(),
                    key_prefix: self.redis_key_prefix.clone(),
                }),
            ..ServiceSettings::default()
        }
    }
}

fn parse_proxies(text: &str) -> Result<TrustedProxies, String> {
    TrustedProxies::parse(text).map_err(|e| e.to_string())
}

/// A zero budget would refuse every request: refused at startup rather than served as 429s.
fn per_minute(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(0) => Err("must be at least 1 (0 would refuse every request)".to_owned()),
        Ok(limit) => Ok(limit),
        Err(_) => Err(format!("expected a whole number of requests, got `{text}`")),
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use crate::cli::{Cli, Command};

    use super::*;

    fn serve_settings(args: &[&str]) -> Result<ServiceSettings, String> {
        let mut argv = vec!["shop-api", "serve"];
        argv.extend_from_slice(args);
        match Cli::try_parse_from(argv)
            .map_err(|e| e.to_string())?
            .command
        {
            Command::Serve(serve) => Ok(serve.limits.settings()),
            other => Err(format!("parsed as {other:?}")),
        }
    }

    #[test]
    fn the_defaults_are_the_spec_and_no_redis() {
        // The environment may set these variables; clap reads them only for absent flags.
        let settings = serve_settings(&[
            "--rate-limit-reads-per-minute",
            "120",
            "--rate-limit-writes-per-minute",
            "30",
            "--auth-failures-per-minute",
            "30",
            "--redis-url",
            "",
        ])
        .expect("valid");
        assert_eq!(settings, ServiceSettings::default());
    }

    #[test]
    fn limits_and_redis_are_configurable() {
        let settings = serve_settings(&[
            "--rate-limit-reads-per-minute",
            "1000",
            "--rate-limit-writes-per-minute",
            "7",
            "--auth-failures-per-minute",
            "5",
            "--redis-url",
            "redis://127.0.0.1:6379",
            "--redis-key-prefix",
            "staging:rl:",
        ])
        .expect("valid");
        assert_eq!(settings.rate_limits.reads.limit, 1000);
        assert_eq!(settings.rate_limits.writes.limit, 7);
        assert_eq!(settings.rate_limits.auth_failures.limit, 5);
        assert_eq!(settings.rate_limits.reads.window_millis, 60_000);
        assert_eq!(
            settings.redis,
            Some(RedisSettings {
                url: "redis://127.0.0.1:6379".to_owned(),
                key_prefix: "staging:rl:".to_owned()
            })
        );
    }

    #[test]
    fn a_zero_limit_is_refused_clearly() {
        for flag in [
            "--rate-limit-reads-per-minute",
            "--rate-limit-writes-per-minute",
            "--auth-failures-per-minute",
        ] {
            let error = serve_settings(&[flag, "0"]).expect_err("0 is refused");
            assert!(error.contains("must be at least 1"), "{error}");
            assert!(error.contains(flag), "{error}");
        }
    }
}
