//! Starting and stopping the HTTP servers: the API's and, optionally, a separate one for
//! `/metrics`.

use std::net::{SocketAddr, TcpListener};
use std::time::Duration;

use actix_web::dev::ServerHandle;
use anyhow::Context;
use shop_console::ConsoleExposure;
use shop_http::{Mount, ServerOptions};
use tokio::task::JoinHandle;

use crate::deliveries::DeliveryWorkers;
use crate::services::Services;

/// The type of [`ServerConfig::metrics_token`].
pub use shop_http::MetricsToken;

/// Where and how to serve. Its `Debug` shows no token (`MetricsToken`'s is redacted).
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// The API's address; port 0 picks a free port.
    pub bind: SocketAddr,
    /// HTTP worker threads; `None` is one per core.
    pub workers: Option<usize>,
    /// Serve `/metrics` on this address only, to anyone who reaches it.
    pub metrics_bind: Option<SocketAddr>,
    /// Without `metrics_bind`: serve `/metrics` on `bind` to the bearer of this token. With
    /// neither, `/metrics` is not served at all.
    pub metrics_token: Option<MetricsToken>,
    /// How long in-flight requests get to finish after SIGTERM or SIGINT.
    pub shutdown_timeout: Duration,
    /// Where owners reach the console (`PUBLIC_URL`), and whether serving it over plain HTTP
    /// beyond loopback was asked for (`--insecure-console`).
    pub console: ConsoleExposure,
}

impl ServerConfig {
    pub fn new(bind: SocketAddr) -> Self {
        Self {
            bind,
            workers: None,
            metrics_bind: None,
            metrics_token: None,
            shutdown_timeout: ServerOptions::DEFAULT_SHUTDOWN_TIMEOUT,
            console: ConsoleExposure::default(),
        }
    }

    /// Takes the addresses. `serve` does this before opening the database, so that a port in
    /// use is reported at once, before any migration runs; and before that, refuses to serve
    /// the console where its cookie would travel in clear ([`ConsoleExposure::check`]).
    pub fn bind(&self) -> anyhow::Result<Listeners> {
        self.console.check(self.bind.ip())?;
        Ok(Listeners {
            api: bind(self.bind)?,
            metrics: self.metrics_bind.map(bind).transpose()?,
        })
    }
}

/// The bound sockets of a server about to start.
pub struct Listeners {
    api: TcpListener,
    metrics: Option<TcpListener>,
}

pub struct RunningServer {
    pub addr: SocketAddr,
    /// Where `/metrics` is served when it has an address of its own.
    pub metrics_addr: Option<SocketAddr>,
    api: Background,
    metrics: Option<Background>,
    /// The webhook delivery workers, which run beside the API.
    deliveries: DeliveryWorkers,
}

/// A server running on its own task.
struct Background {
    handle: ServerHandle,
    task: JoinHandle<std::io::Result<()>>,
}

impl Background {
    fn spawn(server: actix_web::dev::Server) -> Self {
        Self {
            handle: server.handle(),
            task: tokio::spawn(server),
        }
    }

    async fn join(self) -> anyhow::Result<()> {
        self.task.await.context("the server task failed")??;
        Ok(())
    }
}

impl RunningServer {
    /// Binds `bind` (port 0 picks a free port) and starts serving in the background, with
    /// the default settings otherwise.
    pub fn start(
        services: &Services,
        bind: SocketAddr,
        workers: Option<usize>,
    ) -> anyhow::Result<Self> {
        Self::start_with(
            services,
            ServerConfig {
                workers,
                ..ServerConfig::new(bind)
            },
        )
    }

    /// Binds the API's address (and the metrics address, if any) and starts serving in the
    /// background. SIGTERM or SIGINT stops the API's server gracefully; [`Self::wait`] then
    /// stops the metrics server.
    pub fn start_with(services: &Services, config: ServerConfig) -> anyhow::Result<Self> {
        Self::start_on(services, config.bind()?, config)
    }

    /// [`Self::start_with`] on listeners bound earlier by [`ServerConfig::bind`].
    pub fn start_on(
        services: &Services,
        listeners: Listeners,
        config: ServerConfig,
    ) -> anyhow::Result<Self> {
        let Listeners {
            api: listener,
            metrics: metrics_listener,
        } = listeners;
        let addr = listener.local_addr()?;
        let metrics_addr = metrics_listener
            .as_ref()
            .map(TcpListener::local_addr)
            .transpose()?;

        let mut options = ServerOptions {
            shutdown_timeout: config.shutdown_timeout,
            ..ServerOptions::default()
        };
        if let Some(workers) = config.workers {
            options.workers = workers;
        }
        let mut operations = services.operations();
        if let Some(token) = config.metrics_token {
            operations = operations.metrics_for_token(token);
        }
        if metrics_listener.is_some() {
            operations = operations.metrics_served_elsewhere();
        }
        let console = services.console_state(config.console.public_url.clone());
        services.prepare_sign_in();
        let mounts = vec![Mount::new(shop_console::PREFIX, move |config| {
            shop_console::configure(config, &console);
        })];
        let metrics = metrics_listener
            .map(|listener| {
                shop_http::serve_metrics(listener, services.api_state(), operations.clone())
            })
            .transpose()?
            .map(Background::spawn);
        let api = Background::spawn(shop_http::serve(
            listener,
            services.api_state(),
            operations,
            options,
            mounts,
        )?);
        Ok(Self {
            addr,
            metrics_addr,
            api,
            metrics,
            deliveries: DeliveryWorkers::start(services),
        })
    }

    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Where an owner signs in to the console.
    pub fn console_url(&self) -> String {
        format!("{}{}", self.base_url(), shop_console::LOGIN_PATH)
    }

    /// Runs until the API's server stops (SIGTERM or SIGINT: it stops accepting, lets the
    /// requests in flight finish within the shutdown timeout), then stops the metrics server.
    ///
    /// The webhook workers stop at the signal itself, beside the API's draining: a supervisor
    /// that kills the process after a grace period shorter than the shutdown timeout then
    /// finds their last attempts recorded, not claimed and sent again after the restart
    /// (docs/RELIABILITY.md, finding 8). Events the draining requests commit meanwhile wait
    /// in the queue for the next start.
    pub async fn wait(self) -> anyhow::Result<()> {
        let Self {
            api,
            metrics,
            deliveries,
            ..
        } = self;
        let api = api.join();
        tokio::pin!(api);
        let outcome = tokio::select! {
            outcome = &mut api => {
                deliveries.stop().await;
                outcome
            }
            _ = stop_requested() => tokio::join!(api, deliveries.stop()).0,
        };
        if let Some(metrics) = metrics {
            metrics.handle.stop(true).await;
            metrics.join().await?;
        }
        outcome
    }

    /// Asks the servers to stop without waiting (for `Drop` impls, which cannot await).
    pub fn request_stop(&self) {
        // actix sends the stop command when `stop` is called; the returned future only waits
        // for completion, so dropping it still stops the server.
        drop(self.api.handle.stop(false));
        if let Some(metrics) = &self.metrics {
            drop(metrics.handle.stop(false));
        }
    }

    /// Stops accepting, lets in-flight requests finish, and waits for the workers.
    pub async fn stop(self) {
        self.api.handle.stop(true).await;
        let _ = self.api.task.await;
        self.deliveries.stop().await;
        if let Some(metrics) = self.metrics {
            metrics.handle.stop(true).await;
            let _ = metrics.task.await;
        }
    }
}

fn bind(address: SocketAddr) -> anyhow::Result<TcpListener> {
    TcpListener::bind(address).with_context(|| format!("cannot listen on {address}"))
}

/// A stop signal; never, if the process cannot listen for one (the API's server then ends on
/// its own signal handling, and the workers stop after it).
async fn stop_requested() {
    if let Err(error) = crate::stop_signal::requested().await {
        tracing::warn!(%error, "webhooks: the workers stop after the API");
        std::future::pending::<()>().await;
    }
}
