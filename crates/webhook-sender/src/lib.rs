//! The outbound HTTP of webhooks: [`HttpWebhookSender`] implements the [`WebhookSender`] port
//! on reqwest with rustls.
//!
//! One attempt is one `POST` of the signed body, with the Standard Webhooks headers, to the
//! endpoint's URL, bounded as a whole by `ATTEMPT_TIMEOUT` and never followed through a
//! redirect. Under `NetworkPolicy::PublicOnly` it reaches no address of the shop's own
//! network: an IP literal is judged before anything is sent, and a name goes through the
//! resolver of `resolve.rs`, which hands the connector only the addresses the policy allows,
//! so the connection goes to an address that was checked (no window for DNS rebinding). No
//! proxy is used, since a proxy would connect on our behalf to addresses never checked.
//!
//! **Architecture Invariant:** the adapter decides nothing about an attempt's meaning (retry,
//! `Gone`, supersession): it reports what happened, and the dispatch use case applies the
//! domain's rules to it.

mod describe;
mod excerpt;
mod resolve;

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use reqwest::header::{CONTENT_TYPE, HeaderName, RETRY_AFTER};
use reqwest::redirect;
use shop_domain::webhook::delivery::{ATTEMPT_TIMEOUT, RESPONSE_EXCERPT_BYTES};
use shop_domain::webhook::{EndpointUrl, NetworkPolicy};
use shop_ports::port::{OutgoingDelivery, SentAttempt, WebhookSender};

use resolve::{PolicyResolver, Refusal};

/// `user-agent` of every attempt, naming the service and its version.
pub const USER_AGENT: &str = concat!("shop-api-webhooks/", env!("CARGO_PKG_VERSION"));

/// How long an idle pooled connection to a receiver is kept for its next delivery.
const POOL_IDLE_TIMEOUT: Duration = Duration::from_secs(30);

const WEBHOOK_ID: HeaderName = HeaderName::from_static("webhook-id");
const WEBHOOK_TIMESTAMP: HeaderName = HeaderName::from_static("webhook-timestamp");
const WEBHOOK_SIGNATURE: HeaderName = HeaderName::from_static("webhook-signature");

/// The HTTP client could not be set up (its TLS configuration); only at start-up.
#[derive(Debug, thiserror::Error)]
#[error("the webhook sender's HTTP client could not be built")]
pub struct SenderBuildError(#[source] reqwest::Error);

/// The [`WebhookSender`] of production: one shared client (its connections pooled per
/// receiver), cheap to clone.
#[derive(Clone, Debug)]
pub struct HttpWebhookSender {
    client: reqwest::Client,
    policy: NetworkPolicy,
    timeout: Duration,
}

impl HttpWebhookSender {
    /// A sender that gives each attempt `ATTEMPT_TIMEOUT`, connects only where `policy`
    /// allows, and keeps up to `in_flight` idle connections to each receiver (scheme, host
    /// and port), each until it has been idle for `POOL_IDLE_TIMEOUT`.
    ///
    /// `in_flight` is the workers' bound on attempts in flight at once, so no more
    /// connections to a receiver are ever busy together; keeping that many idle means that
    /// a receiver taking attempts in rounds gets them on the connections of the round before.
    /// With a few kept, most of a round's connections were closed and opened again for the
    /// next, at a cost to both sides (docs/performance-log.md, "Webhooks: the receivers'
    /// connections kept").
    pub fn new(policy: NetworkPolicy, in_flight: usize) -> Result<Self, SenderBuildError> {
        Self::with_timeout(policy, ATTEMPT_TIMEOUT, in_flight)
    }

    /// As [`new`](Self::new) with another bound on an attempt: for tests, which cannot wait
    /// ten seconds for a receiver that never answers.
    pub fn with_timeout(
        policy: NetworkPolicy,
        timeout: Duration,
        in_flight: usize,
    ) -> Result<Self, SenderBuildError> {
        let client = reqwest::Client::builder()
            .use_rustls_tls()
            .user_agent(USER_AGENT)
            .redirect(redirect::Policy::none())
            .no_proxy()
            .dns_resolver(Arc::new(PolicyResolver::new(policy)))
            // The attempt as a whole is bounded in `send`; this also ends a connection
            // that the pool goes on making in the background after its attempt gave up.
            .connect_timeout(timeout)
            .pool_idle_timeout(POOL_IDLE_TIMEOUT)
            .pool_max_idle_per_host(in_flight)
            .build()
            .map_err(SenderBuildError)?;
        Ok(Self {
            client,
            policy,
            timeout,
        })
    }

    /// The request and as much of its answer as an attempt keeps; `answer` holds what came
    /// so far when the timeout cuts it short.
    async fn attempt(
        &self,
        delivery: &OutgoingDelivery,
        answer: &mut Answer,
    ) -> Result<(), String> {
        let mut response = self
            .client
            .post(delivery.url.as_str())
            .header(CONTENT_TYPE, "application/json")
            .header(WEBHOOK_ID, delivery.webhook_id.as_str())
            .header(WEBHOOK_TIMESTAMP, delivery.timestamp.to_string())
            .header(WEBHOOK_SIGNATURE, delivery.signature.as_str())
            .body(delivery.body.clone())
            .send()
            .await
            .map_err(|error| describe::failure(&error, self.timeout))?;
        answer.status = Some(response.status().as_u16());
        answer.retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
        // Only the excerpt is read: a huge answer is never buffered. A body that breaks off
        // leaves what came of it; the answer (its status) came all the same.
        while answer.body.len() < RESPONSE_EXCERPT_BYTES {
            let Ok(Some(chunk)) = response.chunk().await else {
                break;
            };
            let room = RESPONSE_EXCERPT_BYTES - answer.body.len();
            answer
                .body
                .extend_from_slice(&chunk[..chunk.len().min(room)]);
        }
        Ok(())
    }
}

/// What came of an answer, filled in as it arrives.
#[derive(Default)]
struct Answer {
    status: Option<u16>,
    retry_after: Option<String>,
    body: Vec<u8>,
}

/// The policy's verdict on a URL whose host is an IP literal: such a host never reaches the
/// resolver, so it is judged here, before any connection.
fn refused_literal(url: &EndpointUrl, policy: NetworkPolicy) -> Option<Refusal> {
    let address = match url.host()? {
        url::Host::Ipv4(v4) => v4.into(),
        url::Host::Ipv6(v6) => v6.into(),
        url::Host::Domain(_) => return None,
    };
    policy
        .refuses(address)
        .map(|reason| Refusal::Literal { address, reason })
}

#[async_trait]
impl WebhookSender for HttpWebhookSender {
    async fn send(&self, delivery: &OutgoingDelivery) -> SentAttempt {
        let started = Instant::now();
        let mut answer = Answer::default();
        let outcome = match refused_literal(&delivery.url, self.policy) {
            Some(refusal) => Err(refusal.to_string()),
            None => tokio::time::timeout(self.timeout, self.attempt(delivery, &mut answer))
                .await
                .unwrap_or_else(|_elapsed| Err(describe::timed_out(self.timeout, answer.status))),
        };
        let duration = started.elapsed();
        match outcome {
            Ok(()) => SentAttempt {
                status: answer.status,
                duration,
                error: None,
                response_excerpt: excerpt::cut(&answer.body, RESPONSE_EXCERPT_BYTES),
                retry_after: answer.retry_after,
            },
            Err(error) => SentAttempt {
                status: None,
                duration,
                error: Some(error),
                response_excerpt: String::new(),
                retry_after: None,
            },
        }
    }
}

#[cfg(test)]
mod tests;
