//! The pool's figures for `/metrics`, read from deadpool's status at each scrape. SQLite's two
//! pools (writers and readers) are reported as one: together they are the connections to the
//! database file.

use std::sync::atomic::Ordering;

use shop_ports::port::{PoolMonitor, PoolStats};

use super::{Database, Pool};

impl PoolMonitor for Database {
    fn pool_stats(&self) -> PoolStats {
        // (max size, open, available, waiting)
        let (max_size, open, available, waiting) = match &self.pool {
            Pool::Sqlite(pools) => {
                let (writes, reads) = (pools.writes.status(), pools.reads.status());
                (
                    writes.max_size + reads.max_size,
                    writes.size + reads.size,
                    writes.available + reads.available,
                    writes.waiting + reads.waiting,
                )
            }
            Pool::Postgres(pool) => {
                let status = pool.status();
                (
                    status.max_size,
                    status.size,
                    status.available,
                    status.waiting,
                )
            }
        };
        PoolStats {
            max_size,
            open,
            in_use: open.saturating_sub(available),
            waiting,
            wait_timeouts: self.wait_timeouts.load(Ordering::Relaxed),
        }
    }
}
