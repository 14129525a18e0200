//! PostgreSQL's wake-up of the webhook workers: a connection of its own `LISTEN`s on the
//! outbox's channel, and each `NOTIFY` (sent at the commit of a write that appended events,
//! by another instance) wakes this process's workers at once; this process's own commits
//! wake them in memory (`announce.rs`). The workers' poll of at most a second stays as the
//! safety net for the moments this connection is being re-established.

use std::pin::pin;
use std::time::Duration;

use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use futures::StreamExt;

use super::outbox::CHANNEL;
use crate::database::{Database, DatabaseUrl, Pool};

/// How long the listener waits before connecting again after losing its connection.
const RECONNECT_AFTER: Duration = Duration::from_secs(1);

impl Database {
    /// On PostgreSQL, starts the listener, and the announcer of this process's commits
    /// (`announce.rs`), on the current tokio runtime; on SQLite, whose one instance is woken
    /// in process, does nothing.
    pub fn listen_for_events(&self, url: &DatabaseUrl) {
        let (Pool::Postgres(_), DatabaseUrl::Postgres(url)) = (&self.pool, url) else {
            return;
        };
        let Some(announcer) = self.start_announcing() else {
            return;
        };
        let announcer = announcer.clone();
        let url = url.clone();
        let wake = self.events_wake.clone();
        tokio::spawn(async move {
            loop {
                match listen(&url).await {
                    Ok((mut conn, backend)) => {
                        announcer.listening_as(backend);
                        // Anything committed while no one listened is looked for now.
                        wake.notify_one();
                        let mut notifications = pin!(conn.notifications_stream());
                        while let Some(notification) = notifications.next().await {
                            match notification {
                                Ok(notification) if announcer.is_own(&notification.payload) => {}
                                Ok(_) => wake.notify_one(),
                                Err(error) => {
                                    tracing::warn!(%error, "webhooks: the LISTEN connection failed");
                                    break;
                                }
                            }
                        }
                        announcer.listening_as(0);
                    }
                    Err(error) => {
                        tracing::warn!(%error, "webhooks: cannot LISTEN for new events");
                    }
                }
                tokio::time::sleep(RECONNECT_AFTER).await;
            }
        });
    }
}

/// A connection listening on the channel, and its backend id.
async fn listen(url: &str) -> Result<(AsyncPgConnection, i32), diesel::result::Error> {
    let mut conn = AsyncPgConnection::establish(url)
        .await
        .map_err(|error| diesel::result::Error::QueryBuilderError(error.into()))?;
    diesel::sql_query(format!("LISTEN {CHANNEL}"))
        .execute(&mut conn)
        .await?;
    let backend = diesel::select(pg_backend_pid())
        .get_result(&mut conn)
        .await?;
    Ok((conn, backend))
}

diesel::define_sql_function! {
    /// The id of the server process serving this connection.
    fn pg_backend_pid() -> diesel::sql_types::Integer;
}
