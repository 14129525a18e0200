//! The App (routes, middleware, limits) and the server that runs it.

use std::io;
use std::net::TcpListener;
use std::num::NonZeroUsize;

use actix_web::body::MessageBody;
use actix_web::dev::{Server, ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::middleware::from_fn;
use actix_web::{App, HttpServer, web};
use tracing_actix_web::TracingLogger;

use crate::error::{ApiError, MAX_BODY_BYTES};
use crate::handlers::fallback;
use crate::middleware::{envelope, rate_limit_headers};
use crate::{ApiState, openapi, routes};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerOptions {
    /// Worker threads, each with its own App; at least 1.
    pub workers: usize,
}

impl Default for ServerOptions {
    /// actix's own default: one worker per available CPU.
    fn default() -> Self {
        Self {
            workers: std::thread::available_parallelism().map_or(2, NonZeroUsize::get),
        }
    }
}

/// Serves the API on an already-bound listener (the caller chooses the address, tests use port
/// 0). Binds nothing itself. The returned server runs when awaited; stop it through
/// `Server::handle`.
pub fn serve(listener: TcpListener, state: ApiState, options: ServerOptions) -> io::Result<Server> {
    if options.workers == 0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the server needs at least one worker",
        ));
    }
    openapi::prepare();
    let server = HttpServer::new(move || app(state.clone(), routes::configure))
        .workers(options.workers)
        .listen(listener)?
        .run();
    Ok(server)
}

/// The whole application. Production passes `routes::configure`; tests pass the same plus
/// test-only routes, so that they exercise the very middleware and limits served here.
///
/// Middleware order, outermost first: `TracingLogger` gives every request a span and an id;
/// `rate_limit_headers::add` puts a valid key's budget on the final response, including one
/// the envelope rebuilt; `envelope::finish` then sees every outcome (panics are turned into
/// 500s around each resource, see `routes`) and logs 5xx within that span.
pub(crate) fn app(
    state: ApiState,
    routes: impl FnOnce(&mut web::ServiceConfig),
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    App::new()
        .app_data(web::Data::new(state))
        .app_data(
            web::JsonConfig::default()
                .limit(MAX_BODY_BYTES)
                .error_handler(|error, _| ApiError::from(error).into()),
        )
        .app_data(web::PayloadConfig::new(MAX_BODY_BYTES))
        .configure(routes)
        .default_service(web::to(fallback::unknown_route))
        .wrap(from_fn(envelope::finish))
        .wrap(from_fn(rate_limit_headers::add))
        .wrap(TracingLogger::default())
}
