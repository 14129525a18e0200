//! API v2's webhook calls: the shop's endpoints, their deliveries, and the event log. Each
//! method is one request; reads and `PATCH`/`DELETE` are retried like v1's reads, the other
//! writes only after a 429 or 503 (a lost answer could hide an applied rotation or test).

use reqwest::Method;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use time::OffsetDateTime;

use crate::client::{Client, json_body};
use crate::error::ApiError;
use crate::models::{Data, Page};
use crate::query::Params;

const ENDPOINTS: &str = "webhook-endpoints";

/// A webhook endpoint (never its secret).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookEndpoint {
    pub id: String,
    pub url: String,
    /// `["*"]` or the event types it is sent.
    pub events: Vec<String>,
    pub description: Option<String>,
    /// `enabled` or `disabled`.
    pub status: String,
    /// `gone`, `failing` or `manual` when disabled.
    pub disabled_reason: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
}

/// The creation's answer: the endpoint, and its secret, shown this once.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct CreatedWebhookEndpoint {
    #[serde(flatten)]
    pub endpoint: WebhookEndpoint,
    /// `whsec_…`: what [`crate::verify_webhook`] checks deliveries with.
    pub secret: String,
}

/// What `POST /api/v2/webhook-endpoints` takes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NewWebhookEndpoint {
    /// An absolute `https` URL.
    pub url: String,
    /// Event types (`stock.updated`, …), or `["*"]` for every type the key may read.
    pub events: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// A `PATCH`: only the fields given change.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WebhookEndpointChange {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `enabled` or `disabled`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

/// A row of an endpoint's deliveries: an attempt made, or an event `pending` or
/// `superseded`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookDelivery {
    pub id: String,
    pub event_id: String,
    pub event_type: String,
    pub attempt: Option<u32>,
    /// `pending`, `succeeded`, `failed` or `superseded`.
    pub status: String,
    pub response_status: Option<u16>,
    pub duration_ms: Option<i64>,
    pub error: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub next_attempt_at: Option<OffsetDateTime>,
}

/// An event of the log, byte for byte as its receivers were sent it: parse it as you parse
/// a delivery's body (`{id, type, timestamp, data}`).
#[derive(Clone, Debug, Deserialize)]
#[serde(transparent)]
pub struct LoggedEvent(pub Box<RawValue>);

impl LoggedEvent {
    pub fn json(&self) -> &str {
        self.0.get()
    }
}

/// A page of `GET /api/v2/events`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventLogQuery {
    /// One event type, or every type the key may read.
    pub event_type: Option<String>,
    /// RFC 3339: events at or after this instant.
    pub since: Option<String>,
    pub cursor: Option<String>,
    pub limit: Option<u32>,
}

#[derive(Deserialize)]
struct Secret {
    secret: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Test {
    event_id: String,
}

#[derive(Deserialize)]
struct Queued {
    queued: u64,
}

impl Client {
    /// `POST /api/v2/webhook-endpoints`. Keep the answer's `secret`: it is never shown again.
    pub async fn create_webhook_endpoint(
        &self,
        endpoint: &NewWebhookEndpoint,
    ) -> Result<CreatedWebhookEndpoint, ApiError> {
        let answer: Data<CreatedWebhookEndpoint> = self
            .write(Method::POST, &[ENDPOINTS], Some(json_body(endpoint)?))
            .await?;
        Ok(answer.data)
    }

    /// One page of the shop's endpoints, by id.
    pub async fn webhook_endpoints(
        &self,
        cursor: Option<&str>,
    ) -> Result<Page<WebhookEndpoint>, ApiError> {
        let mut params = Params::new();
        if let Some(cursor) = cursor {
            params.push(("cursor", cursor.to_owned()));
        }
        self.read(&[ENDPOINTS], params).await
    }

    pub async fn webhook_endpoint(&self, id: &str) -> Result<WebhookEndpoint, ApiError> {
        self.read_data(&[ENDPOINTS, id], Params::new()).await
    }

    /// `PATCH`: `status: "disabled"` stops its deliveries (`manual`), `"enabled"` resumes them.
    pub async fn update_webhook_endpoint(
        &self,
        id: &str,
        change: &WebhookEndpointChange,
    ) -> Result<WebhookEndpoint, ApiError> {
        let answer: Data<WebhookEndpoint> = self
            .write(Method::PATCH, &[ENDPOINTS, id], Some(json_body(change)?))
            .await?;
        Ok(answer.data)
    }

    pub async fn delete_webhook_endpoint(&self, id: &str) -> Result<(), ApiError> {
        self.send_v2::<serde_json::Value>(Method::DELETE, &[ENDPOINTS, id], Params::new(), None)
            .await
            .map(|_| ())
    }

    /// A new secret; for 24 hours the old one signs too.
    pub async fn rotate_webhook_secret(&self, id: &str) -> Result<String, ApiError> {
        let answer: Data<Secret> = self
            .write(Method::POST, &[ENDPOINTS, id, "secret", "rotate"], None)
            .await?;
        Ok(answer.data.secret)
    }

    /// Sends a `ping` to the endpoint; its event id.
    pub async fn send_webhook_test(&self, id: &str) -> Result<String, ApiError> {
        let answer: Data<Test> = self
            .write(Method::POST, &[ENDPOINTS, id, "test"], None)
            .await?;
        Ok(answer.data.event_id)
    }

    /// One page of the endpoint's deliveries, newest first; `status` filters them.
    pub async fn webhook_deliveries(
        &self,
        id: &str,
        status: Option<&str>,
        cursor: Option<&str>,
    ) -> Result<Page<WebhookDelivery>, ApiError> {
        let mut params = Params::new();
        if let Some(status) = status {
            params.push(("status", status.to_owned()));
        }
        if let Some(cursor) = cursor {
            params.push(("cursor", cursor.to_owned()));
        }
        self.read(&[ENDPOINTS, id, "deliveries"], params).await
    }

    /// Sends the newest event of the delivery's resource again.
    pub async fn retry_webhook_delivery(&self, id: &str, delivery: &str) -> Result<(), ApiError> {
        self.write::<serde_json::Value>(
            Method::POST,
            &[ENDPOINTS, id, "deliveries", delivery, "retry"],
            None,
        )
        .await
        .map(|_| ())
    }

    /// Sends again the newest state of every resource changed since `since` (RFC 3339) that
    /// the endpoint was not delivered, and enables it; how many were queued.
    pub async fn recover_webhook_endpoint(&self, id: &str, since: &str) -> Result<u64, ApiError> {
        let body = json_body(&serde_json::json!({ "since": since }))?;
        let answer: Data<Queued> = self
            .write(Method::POST, &[ENDPOINTS, id, "recover"], Some(body))
            .await?;
        Ok(answer.data.queued)
    }

    /// One page of the shop's event log, in commit order.
    pub async fn events(&self, query: &EventLogQuery) -> Result<Page<LoggedEvent>, ApiError> {
        let mut params = Params::new();
        if let Some(event_type) = &query.event_type {
            params.push(("type", event_type.clone()));
        }
        if let Some(since) = &query.since {
            params.push(("since", since.clone()));
        }
        if let Some(cursor) = &query.cursor {
            params.push(("cursor", cursor.clone()));
        }
        if let Some(limit) = query.limit {
            params.push(("limit", limit.to_string()));
        }
        self.read(&["events"], params).await
    }

    async fn read<T: serde::de::DeserializeOwned>(
        &self,
        segments: &[&str],
        params: Params,
    ) -> Result<T, ApiError> {
        self.send_v2(Method::GET, segments, params, None)
            .await?
            .ok_or_else(no_body)
    }

    async fn read_data<T: serde::de::DeserializeOwned>(
        &self,
        segments: &[&str],
        params: Params,
    ) -> Result<T, ApiError> {
        let answer: Data<T> = self.read(segments, params).await?;
        Ok(answer.data)
    }

    async fn write<T: serde::de::DeserializeOwned>(
        &self,
        method: Method,
        segments: &[&str],
        body: Option<Vec<u8>>,
    ) -> Result<T, ApiError> {
        self.send_v2(method, segments, Params::new(), body)
            .await?
            .ok_or_else(no_body)
    }
}

fn no_body() -> ApiError {
    ApiError::Invalid("the server answered 204 where a body was expected".to_owned())
}
