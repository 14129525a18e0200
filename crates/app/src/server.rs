//! Starting and stopping the HTTP server.

use std::net::{SocketAddr, TcpListener};

use actix_web::dev::ServerHandle;
use anyhow::Context;
use shop_http::ServerOptions;

use crate::services::Services;

pub struct RunningServer {
    pub addr: SocketAddr,
    handle: ServerHandle,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl RunningServer {
    /// Binds `bind` (port 0 picks a free port) and starts serving in the background.
    pub fn start(
        services: &Services,
        bind: SocketAddr,
        workers: Option<usize>,
    ) -> anyhow::Result<Self> {
        let listener =
            TcpListener::bind(bind).with_context(|| format!("cannot listen on {bind}"))?;
        let addr = listener.local_addr()?;
        let mut options = ServerOptions::default();
        if let Some(workers) = workers {
            options.workers = workers;
        }
        let server = shop_http::serve(listener, services.api_state(), options)?;
        let handle = server.handle();
        Ok(Self {
            addr,
            handle,
            task: tokio::spawn(server),
        })
    }

    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Runs until the server stops (actix handles SIGINT/SIGTERM with a graceful shutdown).
    pub async fn wait(self) -> anyhow::Result<()> {
        self.task.await.context("the server task failed")??;
        Ok(())
    }

    /// Asks the server to stop without waiting (for `Drop` impls, which cannot await).
    pub fn request_stop(&self) {
        // actix sends the stop command when `stop` is called; the returned future only waits
        // for completion, so dropping it still stops the server.
        drop(self.handle.stop(false));
    }

    /// Stops accepting, lets in-flight requests finish, and waits for the workers.
    pub async fn stop(self) {
        self.handle.stop(true).await;
        let _ = self.task.await;
    }
}
