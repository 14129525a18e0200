//! Middleware. App-wide, outermost first (see `server::app`): `TracingLogger` (request id,
//! span), then [`envelope::finish`] (envelope, `X-Request-Id`, 5xx log line). Around each
//! resource (see `routes`): [`catch_panic::catch_panic`].

pub mod catch_panic;
pub mod envelope;
