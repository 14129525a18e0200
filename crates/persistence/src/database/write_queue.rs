//! SQLite's writers take turns in the process, in arrival order, rather than polling SQLite's
//! lock (see [`Database::write_turn`]); the webhook workers' turn goes ahead of the line
//! ([`Database::queue_write_turn`]).

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::sync::OwnedMutexGuard;

use super::Database;
use super::writer_thread::WriterThread;
use crate::error::DbError;

/// How long the webhook workers' turn waits in the writers' line before it goes ahead of it
/// (docs/PERFORMANCE.md, "Webhooks").
const QUEUE_PATIENCE: Duration = Duration::from_millis(10);

/// SQLite's one writer at a time: the turn itself, the line the writers of the API, the
/// console and the tools wait in for it, and the thread the API's writes run on.
#[derive(Clone, Default)]
pub(crate) struct SqliteWriters {
    turn: Arc<tokio::sync::Mutex<()>>,
    line: Arc<tokio::sync::Mutex<()>>,
    pub(crate) thread: Arc<WriterThread>,
}

impl SqliteWriters {
    /// The turn, taken straight.
    async fn turn(&self) -> OwnedMutexGuard<()> {
        Arc::clone(&self.turn).lock_owned().await
    }

    /// The turn, taken after waiting in the line: only the line's head waits at the turn.
    async fn in_line(&self) -> OwnedMutexGuard<()> {
        let _head_of_the_line = self.line.lock().await;
        self.turn().await
    }
}

impl Database {
    /// The turn of a SQLite write transaction, held until it commits or rolls back.
    ///
    /// SQLite lets one connection write at a time. Left to SQLite, the pool's other writers
    /// poll the lock with sleeps of growing length (the busy handler: 1, 2, 5, ... 100 ms),
    /// in no order, so that under concurrent adjustments the unluckiest writer waited far
    /// longer than the median one (see docs/performance-log.md, "Full runs", "Earlier fixes").
    /// Queued here (tokio's mutexes are first come, first served), a writer is woken as soon
    /// as the previous one commits, and no pooled connection is held while waiting. The busy
    /// handler still covers writers of other processes (the CLI's import, a seed).
    ///
    /// The writers wait in a line, and only its head waits at the turn itself, so that the
    /// webhook workers' turn waits for at most one of them besides the one writing.
    pub(crate) async fn write_turn(&self) -> Result<OwnedMutexGuard<()>, DbError> {
        self.within_wait_timeout(self.sqlite_writers.in_line())
            .await
    }

    /// The webhook workers' turn (a turn of the delivery queue): in the line of
    /// [`Self::write_turn`], but ahead of it once it has waited [`QUEUE_PATIENCE`]. Behind the
    /// whole line, a turn waited for every writer in it (as many as the API's connections),
    /// so under a load of writes the workers, which record and claim a batch a turn, sent one
    /// batch per round of the line and fell behind the deliveries the writes queued; ahead
    /// of it at once, their turns came so often, each with a few deliveries, that they took
    /// most of the writer's time (docs/performance-log.md, "The webhook workers' turn ahead
    /// of the writers' line"). Waiting that long first, a turn gathers a batch worth its cost.
    pub(crate) async fn queue_write_turn(&self) -> Result<OwnedMutexGuard<()>, DbError> {
        let writers = &self.sqlite_writers;
        self.within_wait_timeout(async {
            match tokio::time::timeout(QUEUE_PATIENCE, writers.in_line()).await {
                Ok(turn) => turn,
                Err(_waited) => writers.turn().await,
            }
        })
        .await
    }

    async fn within_wait_timeout(
        &self,
        turn: impl Future<Output = OwnedMutexGuard<()>>,
    ) -> Result<OwnedMutexGuard<()>, DbError> {
        match tokio::time::timeout(self.wait_timeout, turn).await {
            Ok(guard) => Ok(guard),
            Err(_elapsed) => {
                self.wait_timeouts.fetch_add(1, Ordering::Relaxed);
                Err(DbError::PoolTimeout(self.wait_timeout))
            }
        }
    }
}
