//! The App (routes, middleware, limits) and the servers that run it: the API's, and an
//! optional separate one for the metrics.

use std::io;
use std::net::TcpListener;
use std::num::NonZeroUsize;
use std::time::Duration;

use actix_web::body::MessageBody;
use actix_web::dev::{Server, ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::middleware::from_fn;
use actix_web::{App, HttpServer, web};

use crate::error::MAX_BODY_BYTES;
use crate::handlers::fallback;
use crate::middleware::{api_headers, envelope, observe, rate_limit_headers};
use crate::mount::{Mount, Mounts};
use crate::operations::{self, Operations};
use crate::{ApiState, connection, openapi, routes};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerOptions {
    /// Worker threads, each with its own App; at least 1.
    pub workers: usize,
    /// After a stop (SIGTERM, SIGINT, or `ServerHandle::stop(true)`), how long in-flight
    /// requests may take to finish before their workers are dropped.
    pub shutdown_timeout: Duration,
    /// Stop gracefully on SIGTERM and on SIGINT (the binary). Off, only the server's handle
    /// stops it.
    pub stop_on_signals: bool,
}

impl ServerOptions {
    pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(30);
}

impl Default for ServerOptions {
    /// actix's own defaults: one worker per available CPU, 30 s to finish in-flight requests.
    fn default() -> Self {
        Self {
            workers: std::thread::available_parallelism().map_or(2, NonZeroUsize::get),
            shutdown_timeout: Self::DEFAULT_SHUTDOWN_TIMEOUT,
            stop_on_signals: true,
        }
    }
}

/// Serves the API, and the adapters of `mounts` beside it, on an already-bound listener (the
/// caller chooses the address, tests use port 0). Binds nothing itself. The returned server
/// runs when awaited; stop it through `Server::handle`, or with SIGTERM/SIGINT when
/// `options.stop_on_signals`.
pub fn serve(
    listener: TcpListener,
    state: ApiState,
    operations: Operations,
    options: ServerOptions,
    mounts: Vec<Mount>,
) -> io::Result<Server> {
    openapi::prepare();
    let mounts = Mounts::new(mounts);
    serve_app(listener, options, move || {
        let data = web::Data::new(mounts.clone());
        let mounts = mounts.clone();
        app(state.clone(), operations.clone(), move |config| {
            routes::configure(config);
            for mount in mounts.iter() {
                mount.configure(config);
            }
        })
        .app_data(data)
    })
}

/// Serves only `GET /metrics` on its own listener (a private address), with one worker. Pass
/// it the same `operations` as the API's server, made with
/// `Operations::metrics_served_elsewhere`. It never reacts to signals: stop it through its
/// handle once the API's server has stopped.
pub fn serve_metrics(
    listener: TcpListener,
    state: ApiState,
    operations: Operations,
) -> io::Result<Server> {
    let options = ServerOptions {
        workers: 1,
        shutdown_timeout: Duration::from_secs(1),
        stop_on_signals: false,
    };
    serve_app(listener, options, move || {
        App::new()
            .app_data(web::Data::new(state.clone()))
            .app_data(web::Data::new(operations.clone()))
            .configure(operations::configure_metrics)
    })
}

/// Runs the App that `factory` builds (once per worker) on `listener`, with `options` and the
/// service's [`connection`] settings. Every server of the service starts here, so that they
/// all behave alike; a benchmark's baseline server can too.
pub fn serve_app<F, T, B>(
    listener: TcpListener,
    options: ServerOptions,
    factory: F,
) -> io::Result<Server>
where
    F: Fn() -> App<T> + Send + Clone + 'static,
    T: ServiceFactory<
            ServiceRequest,
            Config = (),
            Response = ServiceResponse<B>,
            Error = actix_web::Error,
            InitError = (),
        > + 'static,
    B: MessageBody + 'static,
{
    if options.workers == 0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the server needs at least one worker",
        ));
    }
    let server = HttpServer::new(factory)
        .workers(options.workers)
        .client_request_timeout(connection::CLIENT_REQUEST_TIMEOUT)
        .client_disconnect_timeout(connection::CLIENT_DISCONNECT_TIMEOUT)
        .keep_alive(connection::KEEP_ALIVE)
        .max_connections(connection::MAX_CONNECTIONS_PER_WORKER)
        .shutdown_timeout(options.shutdown_timeout.as_secs());
    let server = if options.stop_on_signals {
        server.shutdown_signal(stop_signal())
    } else {
        server.disable_signals()
    };
    Ok(server.listen(listener)?.run())
}

/// Resolves on the first SIGTERM or SIGINT. actix alone would stop gracefully on SIGTERM but
/// drop in-flight requests on SIGINT; both mean "stop" here, gracefully.
async fn stop_signal() {
    use actix_web::rt::signal::unix::{SignalKind, signal};
    use futures::future::{Either, select};

    let (Ok(mut terminate), Ok(mut interrupt)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        tracing::error!("cannot listen for SIGTERM and SIGINT; stop the server another way");
        return futures::future::pending().await;
    };
    let name = match select(Box::pin(terminate.recv()), Box::pin(interrupt.recv())).await {
        Either::Left(_) => "SIGTERM",
        Either::Right(_) => "SIGINT",
    };
    tracing::info!(
        signal = name,
        "stopping: no new connections, finishing the requests in flight"
    );
}

/// The whole application. Production passes `routes::configure` and the mounted adapters'
/// routes; tests pass `routes::configure` alone, so that they exercise the very middleware and
/// limits served here.
///
/// Middleware order, outermost first: `observe` gives every request an id and a span, and
/// logs and counts it once its response is final; `api_headers::add` marks every response
/// `nosniff` and the API's answers `no-store`; `rate_limit_headers::add` puts a valid
/// key's budget on the final response, including one the envelope rebuilt; `envelope::finish`
/// refuses oversized heads and sees every outcome (panics are turned into 500s around each
/// resource, see `routes`), logging 5xx within the request's span.
///
/// The operational routes (`/healthz`, `/readyz`, `/metrics`) go through the same middleware,
/// so their requests are logged and counted too.
pub(crate) fn app(
    state: ApiState,
    operations: Operations,
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
        .app_data(web::Data::new(operations.clone()))
        .app_data(web::PayloadConfig::new(MAX_BODY_BYTES))
        .configure(|config| operations.configure(config))
        .configure(routes)
        .default_service(web::to(fallback::unknown_route))
        .wrap(from_fn(envelope::finish))
        .wrap(from_fn(rate_limit_headers::add))
        .wrap(from_fn(api_headers::add))
        .wrap(from_fn(observe::observe))
}
