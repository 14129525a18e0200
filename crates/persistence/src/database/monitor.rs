//! The pool's figures for `/metrics`, read from deadpool's status at each scrape.

use std::sync::atomic::Ordering;

use shop_ports::port::{PoolMonitor, PoolStats};

use super::{Database, Pool};

impl PoolMonitor for Database {
    fn pool_stats(&self) -> PoolStats {
        let status = match &self.pool {
            Pool::Sqlite(pool) => pool.status(),
            Pool::Postgres(pool) => pool.status(),
        };
        PoolStats {
            max_size: status.max_size,
            open: status.size,
            in_use: status.size.saturating_sub(status.available),
            waiting: status.waiting,
            wait_timeouts: self.wait_timeouts.load(Ordering::Relaxed),
        }
    }
}
