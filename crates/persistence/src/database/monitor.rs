//! The pool's figures for `/metrics`, read from deadpool's status at each scrape. SQLite's two
//! pools (writers and readers) are reported as one: together they are the connections to the
//! database file.

use std::sync::atomic::Ordering;

use shop_ports::port::{PoolMonitor, PoolStats};

use super::{Database, Pool};

impl PoolMonitor for Database {
    fn pool_stats(&self) -> PoolStats {
        let statuses = match &self.pool {
            Pool::Sqlite(pools) => vec![pools.writes.status(), pools.reads.status()],
            Pool::Postgres(pool) => vec![pool.status()],
        };
        let max_size = statuses.iter().map(|status| status.max_size).sum();
        let open: usize = statuses.iter().map(|status| status.size).sum();
        let available: usize = statuses.iter().map(|status| status.available).sum();
        let waiting = statuses.iter().map(|status| status.waiting).sum();
        PoolStats {
            max_size,
            open,
            in_use: open.saturating_sub(available),
            waiting,
            wait_timeouts: self.wait_timeouts.load(Ordering::Relaxed),
        }
    }
}
