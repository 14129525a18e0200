//! An endpoint's state: enabled, or disabled and why.

use std::fmt;

use crate::Timestamp;
use crate::id::WebhookEndpointId;
use crate::scope::ScopeSet;

use super::endpoint_url::EndpointUrl;
use super::event_type::{EventSelection, EventType};

/// A shop holds at most this many endpoints (a 17th is refused with 422
/// `WEBHOOK_ENDPOINT_LIMIT`).
pub const MAX_ENDPOINTS_PER_SHOP: usize = 16;
/// The longest `description` an endpoint keeps.
pub const MAX_DESCRIPTION_LEN: usize = 500;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndpointStatus {
    Enabled,
    Disabled(DisabledReason),
}

/// Why an endpoint stopped receiving: its receiver answered 410 (`gone`), every delivery
/// failed for `WEBHOOK_DISABLE_AFTER` (`failing`), or a person disabled it (`manual`: a
/// `PATCH` or the console).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DisabledReason {
    Gone,
    Failing,
    Manual,
}

impl DisabledReason {
    pub const fn as_str(self) -> &'static str {
        match self {
            DisabledReason::Gone => "gone",
            DisabledReason::Failing => "failing",
            DisabledReason::Manual => "manual",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [
            DisabledReason::Gone,
            DisabledReason::Failing,
            DisabledReason::Manual,
        ]
        .into_iter()
        .find(|reason| reason.as_str() == text)
    }
}

impl EndpointStatus {
    /// The API's `status`.
    pub const fn as_str(self) -> &'static str {
        match self {
            EndpointStatus::Enabled => "enabled",
            EndpointStatus::Disabled(_) => "disabled",
        }
    }

    /// The API's `disabledReason`.
    pub const fn disabled_reason(self) -> Option<DisabledReason> {
        match self {
            EndpointStatus::Enabled => None,
            EndpointStatus::Disabled(reason) => Some(reason),
        }
    }
}

/// A shop's endpoint as the API shows it. Its secret is not here: only the creation's and a
/// rotation's answers hold one, so no other response type can leak it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebhookEndpoint {
    pub id: WebhookEndpointId,
    pub url: EndpointUrl,
    pub events: EventSelection,
    pub description: String,
    pub status: EndpointStatus,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// How its deliveries have been going (the console shows it; the API's shape has no
    /// room for it).
    pub health: EndpointHealth,
}

/// An endpoint's recent deliveries, in brief.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EndpointHealth {
    /// Failed attempts since its last success.
    pub failures_in_a_row: u32,
    /// Its last attempt: when, and whether it succeeded.
    pub last_attempt: Option<(Timestamp, bool)>,
}

impl EndpointHealth {
    /// The health after `attempts` (when each was made, whether it succeeded, in the order
    /// made), with `failing_since`: when the endpoint's current run of failures began, from
    /// which `WEBHOOK_DISABLE_AFTER` counts (`None` after a success).
    pub fn after_attempts(
        mut self,
        mut failing_since: Option<Timestamp>,
        attempts: &[(Timestamp, bool)],
    ) -> (Self, Option<Timestamp>) {
        for &(at, succeeded) in attempts {
            if succeeded {
                self.failures_in_a_row = 0;
                failing_since = None;
            } else {
                self.failures_in_a_row = self.failures_in_a_row.saturating_add(1);
                failing_since.get_or_insert(at);
            }
            self.last_attempt = Some((at, succeeded));
        }
        (self, failing_since)
    }
}

/// The types an endpoint with `events`, made by a key holding `scopes`, is sent: what the
/// outbox's fan-out matches each event against.
pub fn received_types(events: &EventSelection, scopes: ScopeSet) -> Vec<EventType> {
    EventType::SUBSCRIBABLE
        .into_iter()
        .filter(|kind| events.receives(*kind, scopes))
        .collect()
}

impl fmt::Display for DisabledReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_success_ends_the_run_of_failures_and_a_failure_starts_one_only_once() {
        let at = Timestamp::from_millis;
        let healthy = EndpointHealth::default();
        let (health, since) =
            healthy.after_attempts(None, &[(at(1), false), (at(2), false), (at(3), false)]);
        assert_eq!(health.failures_in_a_row, 3);
        assert_eq!(health.last_attempt, Some((at(3), false)));
        assert_eq!(since, Some(at(1)));
        let (health, since) = health.after_attempts(since, &[(at(4), false)]);
        assert_eq!((health.failures_in_a_row, since), (4, Some(at(1))));
        let (health, since) = health.after_attempts(since, &[(at(5), true), (at(6), false)]);
        assert_eq!(health.failures_in_a_row, 1);
        assert_eq!(since, Some(at(6)));
        let (health, since) = health.after_attempts(since, &[(at(7), true)]);
        assert_eq!((health.failures_in_a_row, since), (0, None));
        assert_eq!(health.last_attempt, Some((at(7), true)));
    }

    #[test]
    fn a_status_shows_its_reason_only_when_disabled() {
        assert_eq!(EndpointStatus::Enabled.as_str(), "enabled");
        assert_eq!(EndpointStatus::Enabled.disabled_reason(), None);
        let gone = EndpointStatus::Disabled(DisabledReason::Gone);
        assert_eq!(
            (gone.as_str(), gone.disabled_reason()),
            ("disabled", Some(DisabledReason::Gone))
        );
        for reason in [
            DisabledReason::Gone,
            DisabledReason::Failing,
            DisabledReason::Manual,
        ] {
            assert_eq!(DisabledReason::parse(reason.as_str()), Some(reason));
        }
        assert_eq!(DisabledReason::parse("paused"), None);
    }
}
