//! Where an API read runs: one plain method per backend, each taking the read as an async
//! closure on that backend's connection. [`with_read_conn!`](super::with_read_conn) only picks
//! the method that matches the pool.
//!
//! - PostgreSQL ([`Database::read_on_postgres`]): a replica when the caller's [`ReadFrom`]
//!   allows one and one serves it (`replicas.rs`, [`Replicas::for_read`]), else the primary;
//!   and again the primary when the replica fails the read ([`Replicas::answered`]). The
//!   closure is compiled once and called at most twice.
//! - SQLite ([`Database::read_on_sqlite`]): a connection of the readers' pool, whose
//!   statements run on the calling thread (`calling_thread.rs`), whatever `from` says: there
//!   is one database.
//!
//! Both are generic over the closure, so a read costs no boxing or dynamic call of its own.
//! The closure is bound by [`ReadWith`] as well as `AsyncFn`: that names its future, so that
//! the future can be required `Send` (an async-trait method's future must be).
//!
//! [`Replicas::for_read`]: super::replicas::Replicas::for_read
//! [`Replicas::answered`]: super::replicas::Replicas::answered

use diesel_async::AsyncPgConnection;
use diesel_async::pooled_connection::deadpool::Pool as DeadPool;
use shop_ports::port::ReadFrom;

use std::future::Future;

use super::{Database, SqlitePools, SqliteReader};
use crate::error::DbError;

/// A read, as an async closure on a connection `C`, whose future is `Send`. `AsyncFn` alone
/// does not let a caller require that; this is diesel-async's workaround for its transactions
/// (`AsyncFunc`), for a closure that may be called twice.
pub(crate) trait ReadWith<'conn, C: 'conn, T>:
    Fn(&'conn mut C) -> <Self as ReadWith<'conn, C, T>>::Answer
{
    type Answer: Future<Output = Result<T, DbError>> + Send;
}

impl<'conn, C: 'conn, T, F, Answer> ReadWith<'conn, C, T> for F
where
    F: Fn(&'conn mut C) -> Answer,
    Answer: Future<Output = Result<T, DbError>> + Send,
{
    type Answer = Answer;
}

impl Database {
    /// Runs `read` on PostgreSQL `from` the database its caller names: on a replica that
    /// `from` allows, else on `primary`, and again on `primary` when the replica fails it.
    pub(crate) async fn read_on_postgres<T>(
        &self,
        primary: &DeadPool<AsyncPgConnection>,
        from: ReadFrom,
        read: impl for<'conn> ReadWith<'conn, AsyncPgConnection, T>
        + AsyncFn(&mut AsyncPgConnection) -> Result<T, DbError>,
    ) -> Result<T, DbError> {
        if let Some(replicas) = self.replicas.as_deref() {
            match replicas.for_read(from) {
                None => replicas.served_by_primary(),
                Some(member) => {
                    let outcome = match member.checkout().await {
                        Ok(mut conn) => read(&mut conn).await,
                        Err(error) => Err(error),
                    };
                    if let Some(answer) = replicas.answered(member, outcome) {
                        return Ok(answer);
                    }
                }
            }
        }
        let mut conn = self.acquire(primary.get()).await?;
        read(&mut conn).await
    }

    /// Runs `read` on a connection of SQLite's readers' pool, on the calling thread.
    pub(crate) async fn read_on_sqlite<T>(
        &self,
        pools: &SqlitePools,
        read: impl for<'conn> ReadWith<'conn, SqliteReader, T>
        + AsyncFn(&mut SqliteReader) -> Result<T, DbError>,
    ) -> Result<T, DbError> {
        let mut conn = self.acquire(pools.reads.get()).await?;
        read(&mut conn).await
    }
}
