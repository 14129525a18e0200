//! Ceiling B for SQLite: the statement of one products or orders page (scripts/bench/sql/
//! sqlite/), run on the benchmarked database file by as many threads as the API's pool has
//! connections, each with a connection of its own, directly on diesel's synchronous
//! `SqliteConnection`: no HTTP, no async runtime, no pool, no hop between threads. The API's
//! pages per second as a fraction of this one is the share of the database's capacity it keeps
//! (docs/PERFORMANCE.md). The same for an API write: its transaction's statements, from a
//! write script (`script.rs`, run by `write.rs`).

mod page;
mod script;
mod statement;
mod write;

pub use script::{ScriptError, Target, WriteScript};
pub use statement::{Bind, PageStatement, StatementError};
pub use write::{WriteError, WritesMeasured, run_writes};

use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

use diesel::connection::SimpleConnection;
use diesel::{Connection, RunQueryDsl, SqliteConnection};

use page::{OrdersPageColumns, OrdersPageRow, Page, ProductsPageColumns, ProductsPageRow};

/// Which page a statement reads, and so the types of its rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PageKind {
    Products,
    Orders,
}

/// Why a run stopped.
#[derive(Debug, thiserror::Error)]
pub enum CeilingError {
    #[error("cannot open the database: {0}")]
    Open(#[from] diesel::ConnectionError),
    #[error("the statement failed: {0}")]
    Query(#[from] diesel::result::Error),
}

/// What a run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    pub pages: u64,
    pub seconds: f64,
    /// Rows of the last page read (every page of a run reads the same first page).
    pub rows_per_page: usize,
}

impl Measured {
    pub fn pages_per_second(&self) -> f64 {
        self.pages as f64 / self.seconds
    }
}

/// Runs `statement` on `database` from `connections` threads for `warm_up`, then counts the
/// pages they read in `measure`.
pub fn run(
    database: &Path,
    kind: PageKind,
    statement: &PageStatement,
    connections: usize,
    warm_up: Duration,
    measure: Duration,
) -> Result<Measured, CeilingError> {
    let url = database.to_string_lossy();
    let started = Instant::now();
    let measuring_from = started + warm_up;
    let until = measuring_from + measure;
    let counts = thread::scope(|scope| {
        let workers: Vec<_> = (0..connections.max(1))
            .map(|_| {
                scope.spawn(|| -> Result<(u64, usize), CeilingError> {
                    let mut conn = SqliteConnection::establish(&url)?;
                    conn.batch_execute(&statement.setup)?;
                    let mut pages = 0;
                    loop {
                        let rows = read_page(&mut conn, kind, statement)?;
                        let now = Instant::now();
                        if now >= until {
                            break Ok((pages, rows));
                        }
                        if now >= measuring_from {
                            pages += 1;
                        }
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().expect("a ceiling thread panicked"))
            .collect::<Result<Vec<_>, _>>()
    })?;
    Ok(Measured {
        pages: counts.iter().map(|(pages, _)| pages).sum(),
        seconds: measure.as_secs_f64(),
        rows_per_page: counts.last().map_or(0, |(_, rows)| *rows),
    })
}

/// One page, every value of every row decoded; the number of rows.
pub fn read_page(
    conn: &mut SqliteConnection,
    kind: PageKind,
    statement: &PageStatement,
) -> diesel::QueryResult<usize> {
    Ok(match kind {
        PageKind::Products => Page::<ProductsPageColumns>::new(statement)
            .load::<ProductsPageRow>(conn)?
            .len(),
        PageKind::Orders => Page::<OrdersPageColumns>::new(statement)
            .load::<OrdersPageRow>(conn)?
            .len(),
    })
}
