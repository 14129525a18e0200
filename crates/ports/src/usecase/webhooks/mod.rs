//! Webhooks' use cases: the shop's endpoints, and the workers that deliver their events.

mod dispatch;
mod endpoints;
mod events;

pub use dispatch::{DispatchSettings, WebhookDispatcher};
pub use endpoints::{
    CreatedEndpoint, EndpointError, EndpointInput, ROTATION_GRACE, WebhookEndpoints,
};
pub use events::WebhookEvents;
