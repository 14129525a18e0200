//! Middleware. App-wide, outermost first (see `server::app`): [`observe::observe`] (request
//! id, span, the request's log line and metrics, `X-Request-Id`), then [`api_headers::add`]
//! (`nosniff` everywhere, `no-store` on the API's answers), then
//! [`rate_limit_headers::add`] (the budget of a valid key on every response), then
//! [`envelope::finish`] (head limits, envelope, 5xx log line). Around each resource (see
//! `routes`): [`catch_panic::catch_panic`].

pub mod api_headers;
pub mod catch_panic;
pub mod envelope;
pub mod limits;
pub mod observe;
pub mod rate_limit_headers;
pub mod request_id;
