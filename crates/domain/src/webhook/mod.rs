//! Webhooks' pure rules (API v2): which events exist and who may receive them, how a delivery
//! is signed (the Standard Webhooks specification), where an endpoint may point, when a failed
//! attempt is tried again, and which of a resource's pending events is the one worth sending.
//!
//! The outbox, the delivery queue and the dispatch are ports and use cases (`shop-ports`); the
//! outbound HTTP is a driven adapter of its own. Nothing here performs I/O: a delivery's
//! randomness (secrets, jitter) and its clock come in as arguments.

pub mod address;
pub mod delivery;
pub mod endpoint;
pub mod endpoint_url;
pub mod event;
pub mod event_type;
pub mod retry;
pub mod secret;
pub mod signature;

pub use address::{ForbiddenAddress, forbidden_reason};
pub use delivery::{
    AttemptOutcome, DeliveryLine, DeliveryStatus, UnknownDeliveryStatus, failing_for_too_long,
    newest_and_superseded,
};
pub use endpoint::{
    DisabledReason, EndpointHealth, EndpointStatus, MAX_DESCRIPTION_LEN, MAX_ENDPOINTS_PER_SHOP,
    WebhookEndpoint, received_types,
};
pub use endpoint_url::{EndpointUrl, EndpointUrlError, NetworkPolicy};
pub use event::{EventData, NewEvent, StockCause, stock_entry_of};
pub use event_type::{EventSelection, EventType, EventTypeError};
pub use retry::{RetrySchedule, RetryScheduleError, parse_retry_after};
pub use secret::{InvalidWebhookSecret, WebhookSecret};
pub use signature::{SignatureHeader, sign};
