//! A pooled connection within the wait timeout, and the count of checkouts that gave up.

use std::sync::atomic::Ordering;
use std::time::Duration;

use diesel_async::pooled_connection::deadpool::PoolError;

use super::Database;
use crate::error::DbError;

impl Database {
    /// [`checkout`] from this database's pool, counting the checkouts that time out.
    pub(crate) async fn acquire<T>(
        &self,
        get: impl Future<Output = Result<T, PoolError>>,
    ) -> Result<T, DbError> {
        let result = checkout(get, self.wait_timeout).await;
        if matches!(result, Err(DbError::PoolTimeout(_))) {
            self.wait_timeouts.fetch_add(1, Ordering::Relaxed);
        }
        result
    }
}

/// Waits at most `wait` for a pooled connection. The timeout covers establishing a new
/// connection too, which deadpool's own wait timeout would not without a runtime feature.
pub(crate) async fn checkout<T>(
    get: impl Future<Output = Result<T, PoolError>>,
    wait: Duration,
) -> Result<T, DbError> {
    match tokio::time::timeout(wait, get).await {
        Ok(Ok(object)) => Ok(object),
        Ok(Err(error)) => Err(DbError::Pool(error)),
        Err(_elapsed) => Err(DbError::PoolTimeout(wait)),
    }
}
