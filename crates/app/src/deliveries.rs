//! The webhook delivery workers as a background task of `serve` and `demo`, and the whole of
//! `shop-api deliver`: the dispatcher's loop (`shop_ports::usecase::webhooks`), woken by
//! PostgreSQL's `NOTIFY` or, on SQLite, by this process's own commits.

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::services::Services;

pub struct DeliveryWorkers {
    stop: oneshot::Sender<()>,
    task: JoinHandle<()>,
}

impl DeliveryWorkers {
    /// Starts the workers on the current tokio runtime.
    pub fn start(services: &Services) -> Self {
        services.database.listen_for_events(&services.database_url);
        let dispatcher = services.dispatcher.clone();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            dispatcher
                .run(async {
                    let _ = stopped.await;
                })
                .await;
        });
        Self { stop, task }
    }

    /// Stops taking new work and waits for the attempts taken on, those waiting for a slot
    /// of their endpoint included (each bounded by its timeout): an attempt cut short would
    /// be sent again by the next instance anyway, and a claim left behind would hold its pair.
    pub async fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.task.await;
    }
}
