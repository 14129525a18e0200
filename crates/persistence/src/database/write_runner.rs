//! Where a SQLite write transaction's statements run: its `BEGIN IMMEDIATE` and its `COMMIT`
//! on tokio's blocking pool, the statements between them on the calling thread.
//!
//! Why the split: `BEGIN IMMEDIATE` may wait for another process's write lock
//! (`busy_timeout`) and `COMMIT` waits for the disk (`synchronous = FULL`); a worker thread
//! must not wait with either, so they keep the blocking pool. Between them the transaction
//! holds SQLite's write lock and the process's write turn (`Database::write_turn`): its
//! statements never wait, each takes a few dozen microseconds of CPU, and the hop to a
//! blocking thread and back for each of them (two wake-ups, on a machine whose cores serve
//! HTTP meanwhile) was most of the time a write held the turn while every other writer waited
//! for it (docs/performance-log.md, "The API v2 writes: what the request did that its
//! ceiling did not").

use std::error::Error;
use std::future::{Future, ready};
use std::pin::Pin;

use diesel::SqliteConnection;
use diesel::connection::AnsiTransactionManager;
use diesel::result::QueryResult;
use diesel_async::TransactionManager;
use diesel_async::sync_connection_wrapper::{
    SpawnBlocking, SyncConnectionWrapper, SyncTransactionManagerWrapper,
};

use super::SqliteOn;

/// The runner a connection wrapper was built with.
trait RunnerOf {
    type Runner;
}

impl<C, S> RunnerOf for SyncConnectionWrapper<C, S> {
    type Runner = S;
}

/// diesel-async's default runner (tokio's blocking pool, which waits for a task it started
/// even when its caller gives up), reached through the wrapper since diesel-async does not
/// export its name.
type BlockingPool = <SyncConnectionWrapper<SqliteConnection> as RunnerOf>::Runner;

tokio::task_local! {
    /// Set while a write transaction's body runs ([`between_begin_and_commit`]).
    static IN_WRITE_TRANSACTION: ();
}

/// The writers' runner: the calling thread inside [`between_begin_and_commit`], tokio's
/// blocking pool everywhere else (the transaction's own `BEGIN` and `COMMIT`, a connection's
/// setup, a statement outside a transaction).
pub(crate) struct WriterRunner(BlockingPool);

type Answer<'a, R> =
    Pin<Box<dyn Future<Output = Result<R, Box<dyn Error + Send + Sync + 'static>>> + Send + 'a>>;

impl SpawnBlocking for WriterRunner {
    fn spawn_blocking<'a, R>(&mut self, task: impl FnOnce() -> R + Send + 'static) -> Answer<'a, R>
    where
        R: Send + 'static,
    {
        if IN_WRITE_TRANSACTION.try_with(|()| ()).is_ok() {
            Box::pin(ready(Ok(task())))
        } else {
            self.0.spawn_blocking(task)
        }
    }

    fn get_runtime() -> Self {
        Self(BlockingPool::get_runtime())
    }
}

/// Runs `body`, a write transaction's statements after its `BEGIN IMMEDIATE`, with each
/// statement on the calling thread.
pub(crate) async fn between_begin_and_commit<F: Future>(body: F) -> F::Output {
    IN_WRITE_TRANSACTION.scope((), body).await
}

/// `BEGIN IMMEDIATE` on a writer, as diesel-async's `immediate_transaction` sends it (which
/// exists for its default runner only).
pub(crate) async fn begin_immediate(conn: &mut SqliteOn<WriterRunner>) -> QueryResult<()> {
    conn.spawn_blocking(|inner| {
        AnsiTransactionManager::begin_transaction_sql(inner, "BEGIN IMMEDIATE")
    })
    .await
}

/// Commits the transaction [`begin_immediate`] opened when `outcome` is `Ok`, rolls it back
/// otherwise; a failed commit or rollback is the answer then.
pub(crate) async fn end_transaction<T, E: From<diesel::result::Error>>(
    conn: &mut SqliteOn<WriterRunner>,
    outcome: Result<T, E>,
) -> Result<T, E> {
    type Manager = SyncTransactionManagerWrapper<AnsiTransactionManager>;
    match outcome {
        Ok(value) => {
            Manager::commit_transaction(conn).await?;
            Ok(value)
        }
        Err(error) => {
            Manager::rollback_transaction(conn).await?;
            Err(error)
        }
    }
}
