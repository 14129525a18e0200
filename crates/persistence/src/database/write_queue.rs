//! SQLite's writers take turns in the process, in arrival order, rather than polling SQLite's
//! lock (see [`Database::write_turn`]).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::Database;
use crate::error::DbError;

impl Database {
    /// The turn of a SQLite write transaction, held until it commits or rolls back.
    ///
    /// SQLite lets one connection write at a time. Left to SQLite, the pool's other writers
    /// poll the lock with sleeps of growing length (the busy handler: 1, 2, 5, ... 100 ms),
    /// in no order, so that under concurrent adjustments the unluckiest writer waited far
    /// longer than the median one (see docs/performance-log.md, "Full runs", "Earlier fixes").
    /// Queued here (tokio's mutex is first come, first served), a writer is woken as soon as
    /// the previous one commits, and no pooled connection is held while waiting. The busy
    /// handler still covers writers of other processes (the CLI's import, a seed).
    pub(crate) async fn write_turn(&self) -> Result<tokio::sync::OwnedMutexGuard<()>, DbError> {
        let turn = Arc::clone(&self.sqlite_writer).lock_owned();
        match tokio::time::timeout(self.wait_timeout, turn).await {
            Ok(guard) => Ok(guard),
            Err(_elapsed) => {
                self.wait_timeouts.fetch_add(1, Ordering::Relaxed);
                Err(DbError::PoolTimeout(self.wait_timeout))
            }
        }
    }
}
