//! Middleware. App-wide, outermost first (see `server::app`): `TracingLogger` (request id,
//! span), then [`rate_limit_headers::add`] (the budget of a valid key on every response), then
//! [`envelope::finish`] (envelope, `X-Request-Id`, 5xx log line). Around each resource (see
//! `routes`): [`catch_panic::catch_panic`].

pub mod catch_panic;
pub mod envelope;
pub mod rate_limit_headers;
