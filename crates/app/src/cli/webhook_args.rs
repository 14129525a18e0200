//! The webhook settings of `serve`, `demo` and `deliver`.

use std::time::Duration;

use clap::Args;
use shop_domain::webhook::{NetworkPolicy, RetrySchedule};
use shop_ports::usecase::webhooks::DispatchSettings;

use crate::services::WebhookSettings;

#[derive(Debug, Args)]
pub struct WebhookArgs {
    /// Development and tests only: endpoints may point to loopback, private and link-local
    /// addresses, and use plain `http`. Never in production: it lets a key holder reach
    /// the servers of your own network.
    #[arg(long, env = "WEBHOOK_ALLOW_PRIVATE_NETWORKS", default_value_t = false,
          action = clap::ArgAction::Set)]
    pub webhook_allow_private_networks: bool,
    /// The waits between a failed attempt and the next, comma-separated (`1s,2s,4s`; units
    /// ms, s, m, h, d), kept exactly. Default: 5s, 1m, 5m, 30m, 2h, 6h, 12h, 24h, 24h, each
    /// ±20%.
    #[arg(long, env = "WEBHOOK_RETRY_SCHEDULE", value_parser = parse_schedule)]
    pub webhook_retry_schedule: Option<RetrySchedule>,
    /// An endpoint whose deliveries have all failed for this long is disabled (`failing`).
    #[arg(long, env = "WEBHOOK_DISABLE_AFTER", value_parser = parse_duration,
          default_value = "5d")]
    pub webhook_disable_after: Duration,
    /// Attempts in flight to one endpoint at most (each instance): a receiver's concurrent
    /// requests, and how fast a backlog drains to it.
    #[arg(long, env = "WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT",
          value_parser = clap::value_parser!(u16).range(1..=256), default_value_t = 16)]
    pub webhook_max_in_flight_per_endpoint: u16,
    /// Days the events, their deliveries and attempts are kept (`GET /api/v2/events`).
    #[arg(long, env = "EVENT_RETENTION_DAYS", value_parser = clap::value_parser!(u32).range(1..),
          default_value_t = 30)]
    pub event_retention_days: u32,
}

impl WebhookArgs {
    pub fn settings(&self) -> WebhookSettings {
        WebhookSettings {
            policy: if self.webhook_allow_private_networks {
                NetworkPolicy::AllowPrivate
            } else {
                NetworkPolicy::PublicOnly
            },
            dispatch: DispatchSettings {
                schedule: self.webhook_retry_schedule.clone().unwrap_or_default(),
                disable_after: self.webhook_disable_after,
                retention: Duration::from_secs(u64::from(self.event_retention_days) * 86_400),
                per_endpoint: usize::from(self.webhook_max_in_flight_per_endpoint),
                ..DispatchSettings::default()
            },
        }
    }
}

fn parse_schedule(text: &str) -> Result<RetrySchedule, String> {
    RetrySchedule::parse(text).map_err(|e| e.to_string())
}

/// One duration, as the schedule writes them (`5d`, `12h`, `90s`).
fn parse_duration(text: &str) -> Result<Duration, String> {
    let schedule = RetrySchedule::parse(text).map_err(|e| e.to_string())?;
    match schedule.wait_after(1, 0.0, None) {
        Some(wait) if schedule.max_attempts() == 2 => Ok(wait),
        _ => Err(format!(
            "expected one duration such as `5d` or `12h`, found `{text}`"
        )),
    }
}
