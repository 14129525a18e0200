//! Where a SQLite write transaction's statements run: its `BEGIN IMMEDIATE` on the calling
//! thread when SQLite's write lock is free, its `COMMIT` on tokio's blocking pool, and the
//! statements between them (`between_begin_and_commit`: a workers' turn, an API write off the
//! writer thread) on the calling thread. On the writer thread (`writer_thread.rs`, where the
//! API's writes run) every statement runs inline, `BEGIN` and `COMMIT` included: that thread
//! has nothing else to do.
//!
//! Why the split: `COMMIT` waits for the disk (`synchronous = FULL`), and `BEGIN IMMEDIATE`
//! may wait for another process's write lock (`busy_timeout`); a worker thread must not wait
//! with either. Between them the transaction holds SQLite's write lock and the process's
//! write turn (`Database::write_turn`): its statements never wait, each takes a few dozen
//! microseconds of CPU, and the hop to a blocking thread and back for each of them (two
//! wake-ups, on a machine whose cores serve HTTP meanwhile) was most of the time a write held
//! the turn while every other writer waited for it (docs/performance-log.md, "The API v2
//! writes: what the request did that its ceiling did not"). The same holds of the hops around
//! the transaction: the writer holding the turn tries `BEGIN IMMEDIATE` at once, waiting for
//! nothing, and only another process's lock sends it to the blocking pool to wait; and the
//! blocking thread that commits passes the turn on itself, rather than waking the writer to
//! do it while every other one waits.

use std::error::Error;
use std::future::{Future, ready};
use std::pin::Pin;

use diesel::SqliteConnection;
use diesel::connection::{AnsiTransactionManager, SimpleConnection, TransactionManager as _};
use diesel::result::QueryResult;
use diesel_async::sync_connection_wrapper::{SpawnBlocking, SyncConnectionWrapper};
use tokio::sync::OwnedMutexGuard;

use super::SqliteOn;
use super::open::busy_timeout;

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

/// The writers' runner: the calling thread inside [`between_begin_and_commit`] and on the
/// writer thread (`writer_thread.rs`, whose work is its writes), tokio's blocking pool
/// everywhere else (the transaction's own `BEGIN` and `COMMIT`, a connection's
/// setup, a statement outside a transaction).
pub(crate) struct WriterRunner(BlockingPool);

type Answer<'a, R> =
    Pin<Box<dyn Future<Output = Result<R, Box<dyn Error + Send + Sync + 'static>>> + Send + 'a>>;

impl SpawnBlocking for WriterRunner {
    fn spawn_blocking<'a, R>(&mut self, task: impl FnOnce() -> R + Send + 'static) -> Answer<'a, R>
    where
        R: Send + 'static,
    {
        if IN_WRITE_TRANSACTION.try_with(|()| ()).is_ok()
            || super::writer_thread::on_writer_thread()
        {
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

/// How a write transaction's `COMMIT` reaches the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CommitSync {
    /// The connections' own `synchronous = FULL`: the WAL is synced before `COMMIT` returns,
    /// so what was answered survives a power cut.
    Full,
    /// `synchronous = NORMAL` for this one transaction: its `COMMIT` is written to the WAL but
    /// not synced, and the next commit in `Full` (any writer's: the WAL is one file, synced
    /// whole) makes it durable with its own. A crash of the process loses nothing (the
    /// system holds the WAL's pages); a power cut may lose it, with the commits after it
    /// that were not synced either, and never a commit synced after it. For the webhook
    /// workers' turns, whose loss costs attempts sent again, never a change: their sync was
    /// most of the time each turn held the shop's one writer (docs/performance-log.md,
    /// "Webhooks: the workers' commits without a sync, and what the writer thread waits
    /// for").
    WithTheNextFull,
}

/// The connections' own sync (`open.rs`'s setup), set back after a transaction in another;
/// outside a transaction, as SQLite refuses it inside.
const SYNC_EVERY_COMMIT: &str = "PRAGMA synchronous = FULL";

impl CommitSync {
    /// What [`begin_unless_locked`] sends before its `BEGIN`: no wait for a lock, and this
    /// sync when it is not the connection's own.
    fn before_begin(self) -> &'static str {
        match self {
            CommitSync::Full => "PRAGMA busy_timeout = 0",
            CommitSync::WithTheNextFull => "PRAGMA busy_timeout = 0; PRAGMA synchronous = NORMAL",
        }
    }
}

/// `BEGIN IMMEDIATE` on a writer that holds the process's write turn, as diesel-async's
/// `immediate_transaction` sends it (which exists for its default runner only): on the
/// calling thread when SQLite's write lock is free, as it is unless another process writes
/// (the CLI's import, a seed); otherwise on the blocking pool, waiting for it. A `sync` other
/// than the connection's own is set first, and [`end_transaction`] sets it back.
pub(crate) async fn begin_immediate(
    conn: &mut SqliteOn<WriterRunner>,
    sync: CommitSync,
) -> QueryResult<()> {
    // The runner reads the task-local when the statement is handed to it: inside the scope.
    let at_once = IN_WRITE_TRANSACTION
        .scope((), async {
            conn.spawn_blocking(move |inner| begin_unless_locked(inner, sync))
                .await
        })
        .await?;
    if at_once {
        return Ok(());
    }
    conn.spawn_blocking(move |inner| {
        let begun = AnsiTransactionManager::begin_transaction_sql(inner, "BEGIN IMMEDIATE");
        if begun.is_err() {
            inner.batch_execute(SYNC_EVERY_COMMIT)?;
        }
        begun
    })
    .await
}

/// `BEGIN IMMEDIATE` with no wait for a lock, after setting `sync`: whether it began. Any
/// failure is tried again with the wait, which gives the error that stays.
fn begin_unless_locked(inner: &mut SqliteConnection, sync: CommitSync) -> QueryResult<bool> {
    inner.batch_execute(sync.before_begin())?;
    let begun = AnsiTransactionManager::begin_transaction_sql(inner, "BEGIN IMMEDIATE").is_ok();
    if let Err(error) = inner.batch_execute(busy_timeout!()) {
        if begun {
            AnsiTransactionManager::rollback_transaction(inner)?;
        }
        inner.batch_execute(SYNC_EVERY_COMMIT)?;
        return Err(error);
    }
    Ok(begun)
}

/// Commits the transaction [`begin_immediate`] opened when `outcome` is `Ok`, rolls it back
/// otherwise; a failed commit or rollback is the answer then. The blocking thread that ends
/// it passes the process's write `turn` on as soon as SQLite's lock is released, then sets
/// the connection's own `synchronous` back if the transaction had another, before the
/// connection can go back to the pool for an API write.
pub(crate) async fn end_transaction<T, E: From<diesel::result::Error>>(
    conn: &mut SqliteOn<WriterRunner>,
    outcome: Result<T, E>,
    turn: OwnedMutexGuard<()>,
    sync: CommitSync,
) -> Result<T, E> {
    let commit = outcome.is_ok();
    let ended = conn
        .spawn_blocking(move |inner| {
            let ended = if commit {
                AnsiTransactionManager::commit_transaction(inner)
            } else {
                AnsiTransactionManager::rollback_transaction(inner)
            };
            drop(turn);
            let restored = match sync {
                CommitSync::Full => Ok(()),
                CommitSync::WithTheNextFull => inner.batch_execute(SYNC_EVERY_COMMIT),
            };
            ended.and(restored)
        })
        .await;
    match (outcome, ended) {
        (Ok(value), Ok(())) => Ok(value),
        (Err(error), Ok(())) => Err(error),
        (_, Err(error)) => Err(error.into()),
    }
}
