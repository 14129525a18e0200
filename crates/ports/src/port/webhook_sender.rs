use std::time::Duration;

use async_trait::async_trait;
use shop_domain::webhook::{EndpointUrl, SignatureHeader};

/// One signed `POST` of an event to an endpoint, ready to go: the dispatch use case signed it
/// (`shop_domain::webhook::sign`); the sender only carries it.
#[derive(Clone, Debug)]
pub struct OutgoingDelivery {
    pub url: EndpointUrl,
    /// `webhook-id`: the event's id, the same at every attempt.
    pub webhook_id: String,
    /// `webhook-timestamp`: Unix seconds of this attempt.
    pub timestamp: i64,
    /// `webhook-signature`.
    pub signature: SignatureHeader,
    /// The event's JSON body, sent byte for byte as signed.
    pub body: String,
}

/// What came of one attempt. Never an error: a refused address, a timeout or a reset is an
/// attempt that failed, recorded like any other.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SentAttempt {
    /// The answer's status; `None` when no answer came (refused address, connection error,
    /// timeout).
    pub status: Option<u16>,
    pub duration: Duration,
    /// Why no answer came, in words an integrator can act on (`None` when one came).
    pub error: Option<String>,
    /// The first bytes of the answer's body, at most
    /// `shop_domain::webhook::delivery::RESPONSE_EXCERPT_BYTES`, cut on a character boundary.
    pub response_excerpt: String,
    /// The answer's `Retry-After` header, as sent.
    pub retry_after: Option<String>,
}

/// The outbound HTTP of webhooks (a driven adapter of its own): connects only to addresses
/// the operator's `NetworkPolicy` allows, checked after resolution and connected to as
/// checked; follows no redirect; gives up after `ATTEMPT_TIMEOUT`.
#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait WebhookSender: Send + Sync {
    async fn send(&self, delivery: &OutgoingDelivery) -> SentAttempt;
}
