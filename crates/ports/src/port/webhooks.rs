//! What webhooks need from the database: the shop's endpoints, and the delivery queue that
//! the outbox feeds. The outbox itself has no port: every write that moves an `updatedAt`
//! appends its events in its own transaction (see the persistence's `webhooks/outbox.rs`),
//! rendered by the [`EventRenderer`] the application gives the store.

use std::time::Duration;

use async_trait::async_trait;
use shop_domain::Timestamp;
use shop_domain::id::{DeliveryId, EventId, ShopId, WebhookEndpointId};
use shop_domain::scope::ScopeSet;
use shop_domain::webhook::{
    DeliveryLine, DeliveryStatus, DisabledReason, EndpointUrl, EventSelection, EventType, NewEvent,
    WebhookEndpoint, WebhookSecret,
};

use super::ClaimRoom;
use crate::StoreError;

/// An event's JSON body (`{id, type, timestamp, data}`), `data` as the v1 `GET` of its
/// resource shows it: the HTTP adapter's DTOs, so that the push and the pull never differ.
#[cfg_attr(feature = "mocks", mockall::automock)]
pub trait EventRenderer: Send + Sync {
    fn render(&self, event: &NewEvent) -> String;
}

/// Everything a new endpoint is stored with.
#[derive(Clone, Debug)]
pub struct NewEndpoint {
    pub id: WebhookEndpointId,
    pub shop: ShopId,
    pub url: EndpointUrl,
    pub events: EventSelection,
    /// The types it is sent: `events` within what the creating key could read.
    pub receives: Vec<EventType>,
    /// The creating key's scopes, kept so that `*` can cover types added later.
    pub creator_scopes: ScopeSet,
    pub description: String,
    pub secret: WebhookSecret,
    pub at: Timestamp,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EndpointCreation {
    Created(Box<WebhookEndpoint>),
    /// The shop already holds `MAX_ENDPOINTS_PER_SHOP`.
    LimitReached,
}

/// A `PATCH`: the fields given, each already valid.
#[derive(Clone, Debug, Default)]
pub struct EndpointChange {
    pub url: Option<EndpointUrl>,
    /// The selection and the types it is sent (as in [`NewEndpoint`]).
    pub events: Option<(EventSelection, Vec<EventType>)>,
    pub description: Option<String>,
    /// `Some(true)` enables (its pending events resume), `Some(false)` disables as `manual`.
    pub enabled: Option<bool>,
}

/// A page of an endpoint's deliveries, newest first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeliveryQuery {
    pub status: Option<DeliveryStatus>,
    /// Rows strictly older than this (`created_at`, row key), from the previous page.
    pub before: Option<(Timestamp, String)>,
    pub limit: usize,
}

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait WebhookEndpointStore: Send + Sync {
    /// In one transaction, so that two concurrent creations cannot pass the limit.
    async fn create_endpoint(&self, new: &NewEndpoint) -> Result<EndpointCreation, StoreError>;

    /// Up to `limit` of the shop's endpoints by ascending id, after `after`.
    async fn list_endpoints(
        &self,
        shop: &ShopId,
        after: Option<WebhookEndpointId>,
        limit: usize,
    ) -> Result<Vec<WebhookEndpoint>, StoreError>;

    async fn get_endpoint(
        &self,
        shop: &ShopId,
        id: &WebhookEndpointId,
    ) -> Result<Option<WebhookEndpoint>, StoreError>;

    /// `None` when the shop has no such endpoint.
    async fn update_endpoint(
        &self,
        shop: &ShopId,
        id: &WebhookEndpointId,
        change: &EndpointChange,
        at: Timestamp,
    ) -> Result<Option<WebhookEndpoint>, StoreError>;

    /// Deletes the endpoint with its deliveries and attempts; `false` when there was none.
    async fn delete_endpoint(
        &self,
        shop: &ShopId,
        id: &WebhookEndpointId,
    ) -> Result<bool, StoreError>;

    /// Replaces the secret; the old one keeps signing until `previous_until`. `false` when the
    /// shop has no such endpoint.
    async fn rotate_secret(
        &self,
        shop: &ShopId,
        id: &WebhookEndpointId,
        secret: &WebhookSecret,
        previous_until: Timestamp,
        at: Timestamp,
    ) -> Result<bool, StoreError>;

    /// Writes `event` (a ping) with one delivery, to this endpoint only. `false` when the shop
    /// has no such endpoint.
    async fn enqueue_ping(
        &self,
        shop: &ShopId,
        id: &WebhookEndpointId,
        event: &NewEvent,
    ) -> Result<bool, StoreError>;

    /// Sends the newest event of the delivery's resource again (never an older state after
    /// a newer one): its delivery becomes pending, due at `at`. `false` when the shop has no
    /// such endpoint or the endpoint no such delivery.
    async fn retry_delivery(
        &self,
        shop: &ShopId,
        id: &WebhookEndpointId,
        delivery: &DeliveryId,
        at: Timestamp,
    ) -> Result<bool, StoreError>;

    /// For every resource with an event since `since` that the endpoint receives (those
    /// written while it was disabled included) whose newest such event it was not delivered:
    /// that event becomes pending, due at `at`. Enables a disabled endpoint. Returns how many
    /// resources were queued; `None` when the shop has no such endpoint.
    async fn recover(
        &self,
        shop: &ShopId,
        id: &WebhookEndpointId,
        since: Timestamp,
        at: Timestamp,
    ) -> Result<Option<usize>, StoreError>;

    /// `None` when the shop has no such endpoint.
    async fn list_deliveries(
        &self,
        shop: &ShopId,
        id: &WebhookEndpointId,
        query: &DeliveryQuery,
    ) -> Result<Option<Vec<DeliveryLine>>, StoreError>;
}

/// A page of the shop's events (`GET /api/v2/events`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventQuery {
    /// Only the types whose resource the key may read (and, with `type=`, that one).
    pub types: Vec<EventType>,
    /// Events created at or after this instant.
    pub since: Option<Timestamp>,
    /// Events after this position (the previous page's last).
    pub after: Option<i64>,
    pub limit: usize,
}

/// One event of the log, as its receivers were sent it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoggedEvent {
    /// Its position in the shop's log: the page cursor.
    pub position: i64,
    pub id: EventId,
    pub event_type: EventType,
    pub created_at: Timestamp,
    /// The JSON body, byte for byte as delivered.
    pub body: String,
}

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait EventLog: Send + Sync {
    /// Up to `query.limit + 1` events of the shop in commit order, the oldest first.
    async fn list_events(
        &self,
        shop: &ShopId,
        query: &EventQuery,
    ) -> Result<Vec<LoggedEvent>, StoreError>;
}

/// An endpoint and resource with a pending delivery due and no attempt in flight.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DueWork {
    pub endpoint_id: WebhookEndpointId,
    pub resource: String,
}

/// The newest pending event of a resource, claimed for one attempt to one endpoint.
#[derive(Clone, Debug)]
pub struct ClaimedDelivery {
    pub delivery_id: DeliveryId,
    pub endpoint_id: WebhookEndpointId,
    pub resource: String,
    pub url: EndpointUrl,
    /// The current secret first, then the previous one while a rotation's grace lasts.
    pub secrets: Vec<WebhookSecret>,
    pub event_id: EventId,
    pub body: String,
    /// This attempt's number, from 1.
    pub attempt: u32,
    /// The endpoint's first failure since its last success.
    pub failing_since: Option<Timestamp>,
}

impl ClaimedDelivery {
    /// The (endpoint, resource) pair this attempt holds.
    pub fn pair(&self) -> DueWork {
        DueWork {
            endpoint_id: self.endpoint_id.clone(),
            resource: self.resource.clone(),
        }
    }
}

/// What the dispatcher decided after an attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeliveryNext {
    Succeeded,
    /// Failed; tried again at this instant.
    RetryAt(Timestamp),
    /// Failed, and the schedule is spent.
    GaveUp,
}

/// One attempt made, with everything it changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttemptRecord {
    pub attempt_id: String,
    pub delivery_id: DeliveryId,
    pub endpoint_id: WebhookEndpointId,
    pub resource: String,
    pub attempt: u32,
    pub succeeded: bool,
    pub response_status: Option<u16>,
    pub duration: Duration,
    pub error: Option<String>,
    pub response_excerpt: String,
    pub at: Timestamp,
    pub next: DeliveryNext,
    /// Disables the endpoint (`gone` on a 410, `failing` after `WEBHOOK_DISABLE_AFTER`).
    pub disable: Option<DisabledReason>,
}

/// What a turn of the loop claimed.
#[derive(Clone, Debug, Default)]
pub struct Turn {
    pub claimed: Vec<ClaimedDelivery>,
    /// Nothing was due at all (whatever the room): the loop may sleep until the next retry.
    pub nothing_due: bool,
    /// Another instance took some of the pairs this turn chose while it chose them: what is
    /// due has moved on since it was read, so the loop turns again at once rather than
    /// sleeping until the poll, which left a second instance idle behind a busy one.
    pub contended: bool,
}

impl AttemptRecord {
    /// The (endpoint, resource) pair the attempt held.
    pub fn pair(&self) -> DueWork {
        DueWork {
            endpoint_id: self.endpoint_id.clone(),
            resource: self.resource.clone(),
        }
    }
}

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait DeliveryQueue: Send + Sync {
    /// One turn of an instance's loop, in one transaction: stores the attempts that `ended`
    /// (in the order made), moves their deliveries and endpoints on and releases their
    /// claims; then reads the head of each enabled endpoint's queue (the pending deliveries
    /// due at `now` of pairs without a live claim, the longest-waiting first), takes what
    /// `room` selects, claims those pairs for `instance` until `until` (taking over an expired
    /// claim), marks the older pending deliveries of each resource superseded, and returns
    /// the newest pending delivery of each pair claimed. A pair another instance holds, or
    /// with nothing pending any more, is left out.
    ///
    /// Each endpoint's head is read on its own, so that one endpoint's backlog never hides
    /// another's due deliveries. A store that queues deliveries after the events' commit
    /// (SQLite) queues those of the events committed since the last turn first.
    async fn turn(
        &self,
        ended: &[AttemptRecord],
        room: &ClaimRoom,
        instance: &str,
        now: Timestamp,
        until: Timestamp,
    ) -> Result<Turn, StoreError>;

    /// Releases at once the claims no running instance can hold: on SQLite, whose one
    /// instance is the one starting, every claim left by a previous run. On PostgreSQL the
    /// claims of an instance that died expire instead. Returns how many were released.
    async fn release_orphaned_claims(&self) -> Result<u64, StoreError>;

    /// The earliest instant after `now` at which a pending delivery of an enabled endpoint
    /// falls due (a retry's), so that the workers wake for it on time.
    async fn next_due(&self, now: Timestamp) -> Result<Option<Timestamp>, StoreError>;

    /// Returns when an event may be waiting: a commit's wake-up (PostgreSQL `NOTIFY`, an
    /// in-process signal on SQLite), or after `at_most` (the safety net).
    async fn wait_for_events(&self, at_most: Duration);

    /// Returns after `duration`, events or not.
    async fn pause(&self, duration: Duration);

    /// Deletes the events created before `before` with their deliveries and attempts;
    /// returns how many events went.
    async fn prune(&self, before: Timestamp) -> Result<u64, StoreError>;
}
