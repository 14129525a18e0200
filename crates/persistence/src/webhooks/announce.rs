//! PostgreSQL's wake-up of every instance's webhook workers: a `NOTIFY` on the outbox's
//! channel, sent after the write's commit by a task of this process, not inside the write.
//!
//! Why outside: a transaction that issues `NOTIFY` takes one database-wide lock at its commit
//! and holds it until the commit is flushed, which makes every writer of every shop commit one
//! after the other (see docs/PERFORMANCE.md, "Webhooks"). Here the writes only ask for an
//! announcement; the task sends one `NOTIFY` for all the commits that asked while it was busy,
//! in a transaction that writes nothing and so flushes nothing. An announcement lost with a
//! process that stopped is made up for by the workers' poll of at most a second.
//!
//! **Not twice for this process.** A commit already wakes this process's workers in memory
//! (`Database::events_committed`); its `NOTIFY` carries the backend id of this process's
//! `LISTEN` connection (unique in the cluster while it lives), and the listener ignores the
//! notifications that carry its own, which would wake the same workers for a second turn
//! that finds nothing new (docs/performance-log.md, "The API v2 writes: what the request did
//! that its ceiling did not").

use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};

use diesel::sql_types::Text;
use diesel_async::AsyncPgConnection;
use diesel_async::RunQueryDsl;
use diesel_async::pooled_connection::deadpool::Pool as DeadPool;
use tokio::sync::Notify;

use super::outbox::CHANNEL;
use crate::database::{Database, Pool};
use crate::sql::kept_prepared::KeptPrepared;

/// The task's side of the announcements, shared with the listener (`listen.rs`).
#[derive(Clone)]
pub(crate) struct Announcer {
    /// Set by each commit that appended events; the task answers all of them with one `NOTIFY`.
    wanted: Arc<Notify>,
    /// The backend id of this process's `LISTEN` connection (0 while there is none), sent as
    /// the notification's payload.
    listener: Arc<AtomicI32>,
}

impl Announcer {
    /// Whether `payload` came from this process (the listener's own backend id).
    pub(crate) fn is_own(&self, payload: &str) -> bool {
        let own = self.listener_id();
        own != 0 && payload.parse::<i32>() == Ok(own)
    }

    fn listener_id(&self) -> i32 {
        // Spelled out: diesel-async's `RunQueryDsl::load`, implemented for every type, would
        // be taken for the atomic's own.
        AtomicI32::load(&self.listener, Ordering::Relaxed)
    }

    /// The listener's backend id, once it listens again (0 when it lost its connection).
    pub(crate) fn listening_as(&self, backend: i32) {
        self.listener.store(backend, Ordering::Relaxed);
    }
}

impl Database {
    /// Starts the task that sends the `NOTIFY`s, on the current tokio runtime (the process's
    /// main one: a write may run on a runtime that ends before the process, an HTTP worker's).
    /// Started with the workers' `LISTEN` (`listen.rs`); a process without it (a command-line
    /// tool) wakes the other instances by their poll, or by [`Self::announce_events_now`].
    pub(crate) fn start_announcing(&self) -> Option<&Announcer> {
        let Pool::Postgres(pool) = &self.pool else {
            return None;
        };
        Some(self.announcer.get_or_init(|| {
            let announcer = Announcer {
                wanted: Arc::new(Notify::new()),
                listener: Arc::default(),
            };
            tokio::spawn(announce(pool.clone(), announcer.clone()));
            announcer
        }))
    }

    /// Asks for a `NOTIFY` to every instance (PostgreSQL), once the task is started.
    pub(crate) fn announce_events(&self) {
        if let Some(announcer) = self.announcer.get() {
            announcer.wanted.notify_one();
        }
    }

    /// Sends the `NOTIFY` now and waits for it: for a process that may end right after its
    /// write (an import run from the command line).
    pub(crate) async fn announce_events_now(&self) {
        if let Pool::Postgres(pool) = &self.pool
            && let Err(error) = notify(pool, 0).await
        {
            tracing::warn!(%error, "webhooks: cannot NOTIFY the workers");
        }
    }
}

type PgPool = DeadPool<AsyncPgConnection>;

async fn announce(pool: PgPool, announcer: Announcer) {
    loop {
        announcer.wanted.notified().await;
        if pool.is_closed() {
            return;
        }
        if let Err(error) = notify(&pool, announcer.listener_id()).await {
            tracing::warn!(%error, "webhooks: cannot NOTIFY the workers");
        }
    }
}

/// `sender`: the payload, the backend id of the sending process's listener (0: none, which
/// every listener takes as another's).
async fn notify(pool: &PgPool, sender: i32) -> Result<(), String> {
    let mut conn = pool.get().await.map_err(|error| error.to_string())?;
    let notify = diesel::sql_query("SELECT pg_notify($1, $2)")
        .bind::<Text, _>(CHANNEL)
        .bind::<Text, _>(sender.to_string());
    KeptPrepared(notify)
        .execute(&mut *conn)
        .await
        .map_err(|error| error.to_string())?;
    Ok(())
}
