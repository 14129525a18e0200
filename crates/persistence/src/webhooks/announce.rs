//! PostgreSQL's wake-up of every instance's webhook workers: a `NOTIFY` on the outbox's
//! channel, sent after the write's commit by a task of this process, not inside the write.
//!
//! Why outside: a transaction that issues `NOTIFY` takes one database-wide lock at its commit
//! and holds it until the commit is flushed, which makes every writer of every shop commit one
//! after the other (see docs/PERFORMANCE.md, "Webhooks"). Here the writes only ask for an
//! announcement; the task sends one `NOTIFY` for all the commits that asked while it was busy,
//! in a transaction that writes nothing and so flushes nothing. An announcement lost with a
//! process that stopped is made up for by the workers' poll of at most a second.

use std::sync::Arc;

use diesel::sql_types::Text;
use diesel_async::AsyncPgConnection;
use diesel_async::RunQueryDsl;
use diesel_async::pooled_connection::deadpool::Pool as DeadPool;
use tokio::sync::Notify;

use super::outbox::CHANNEL;
use crate::database::{Database, Pool};

impl Database {
    /// Starts the task that sends the `NOTIFY`s, on the current tokio runtime (the process's
    /// main one: a write may run on a runtime that ends before the process, an HTTP worker's).
    /// Started with the workers' `LISTEN` (`listen.rs`); a process without it (a command-line
    /// tool) wakes the other instances by their poll, or by [`Self::announce_events_now`].
    pub(crate) fn start_announcing(&self) {
        let Pool::Postgres(pool) = &self.pool else {
            return;
        };
        self.announcer.get_or_init(|| {
            let wanted = Arc::new(Notify::new());
            tokio::spawn(announce(pool.clone(), wanted.clone()));
            wanted
        });
    }

    /// Asks for a `NOTIFY` to every instance (PostgreSQL), once the task is started.
    pub(crate) fn announce_events(&self) {
        if let Some(wanted) = self.announcer.get() {
            wanted.notify_one();
        }
    }

    /// Sends the `NOTIFY` now and waits for it: for a process that may end right after its
    /// write (an import run from the command line).
    pub(crate) async fn announce_events_now(&self) {
        if let Pool::Postgres(pool) = &self.pool
            && let Err(error) = notify(pool).await
        {
            tracing::warn!(%error, "webhooks: cannot NOTIFY the workers");
        }
    }
}

type PgPool = DeadPool<AsyncPgConnection>;

async fn announce(pool: PgPool, wanted: Arc<Notify>) {
    loop {
        wanted.notified().await;
        if pool.is_closed() {
            return;
        }
        if let Err(error) = notify(&pool).await {
            tracing::warn!(%error, "webhooks: cannot NOTIFY the workers");
        }
    }
}

async fn notify(pool: &PgPool) -> Result<(), String> {
    let mut conn = pool.get().await.map_err(|error| error.to_string())?;
    diesel::sql_query("SELECT pg_notify($1, '')")
        .bind::<Text, _>(CHANNEL)
        .execute(&mut *conn)
        .await
        .map_err(|error| error.to_string())?;
    Ok(())
}
