//! The macros that write a query body once and expand it per backend. They name everything by
//! its `$crate::database::…` path, so a caller imports only the macro itself, as
//! `crate::database::{with_conn, in_transaction, impl_for_each_backend}`.
//!
//! Why macros: the two backends' connections are different types, diesel's query types name
//! their backend, and a closure cannot be generic over the connection. So a body meant for
//! both is expanded once per backend, each copy type-checked against its concrete connection.
//! A macro here only matches on the pool and hands the body on: where a read runs is plain
//! code (`read.rs`), and a query that differs between the backends is written in a file of its
//! own per backend (`catalogue/postgres.rs`, `catalogue/sqlite.rs`, `orders/…`), not here.

/// `with_conn!(db, |conn| body)`: runs `body` with `conn` bound to a `&mut` pooled connection
/// of `db`'s backend and evaluates to `Result<_, DbError>`. `body` is expanded once per
/// backend; it may return diesel's `QueryResult` or a `Result<_, DbError>`.
macro_rules! with_conn {
    ($db:expr, |$conn:ident| $body:expr) => {{
        let db: &$crate::database::Database = $db;
        match &db.pool {
            $crate::database::Pool::Sqlite(pools) => match db.acquire(pools.writes.get()).await {
                Ok(mut object) => {
                    let $conn: &mut $crate::database::SqliteConn = &mut object;
                    ($body).map_err($crate::error::DbError::from)
                }
                Err(error) => Err(error),
            },
            $crate::database::Pool::Postgres(pool) => match db.acquire(pool.get()).await {
                Ok(mut object) => {
                    let $conn: &mut ::diesel_async::AsyncPgConnection = &mut object;
                    ($body).map_err($crate::error::DbError::from)
                }
                Err(error) => Err(error),
            },
        }
    }};
}
pub(crate) use with_conn;

/// `with_read_conn!(db, from, |conn| body)`: like [`with_conn!`], for a read `from` the
/// database its caller names (`shop_ports::port::ReadFrom`). Where the read runs is decided by
/// one plain method per backend (`database/read.rs`): on PostgreSQL,
/// [`Database::read_on_postgres`] (a replica that `from` allows, else the primary, and again
/// the primary when the replica fails it); on SQLite, [`Database::read_on_sqlite`] (a
/// connection of the readers' pool, on the calling thread). This macro only picks the method
/// of `db`'s backend and hands it `body` as an async closure, so `body` is written once and
/// type-checked once per backend: a closure cannot be generic over the connection's type.
///
/// [`Database::read_on_postgres`]: super::Database::read_on_postgres
/// [`Database::read_on_sqlite`]: super::Database::read_on_sqlite
macro_rules! with_read_conn {
    ($db:expr, $from:expr, |$conn:ident| $body:expr) => {{
        let db: &$crate::database::Database = $db;
        let from: ::shop_ports::port::ReadFrom = $from;
        match &db.pool {
            $crate::database::Pool::Sqlite(pools) => {
                db.read_on_sqlite(pools, async |$conn: &mut $crate::database::SqliteReader| {
                    ($body).map_err($crate::error::DbError::from)
                })
                .await
            }
            $crate::database::Pool::Postgres(pool) => {
                db.read_on_postgres(
                    pool,
                    from,
                    async |$conn: &mut ::diesel_async::AsyncPgConnection| {
                        ($body).map_err($crate::error::DbError::from)
                    },
                )
                .await
            }
        }
    }};
}
pub(crate) use with_read_conn;

/// `in_transaction!(db, |conn| body)`: like [`with_conn!`], inside one transaction that
/// commits when `body` returns `Ok` and rolls back otherwise. `body`'s error type must
/// convert from both `DbError` and diesel's error.
///
/// On SQLite the transaction is `BEGIN IMMEDIATE`: it takes the write lock up front, so a
/// transaction that reads then writes waits (`busy_timeout`) instead of failing on a lock
/// upgrade; and it first waits for its [`Database::write_turn`] in this process
/// (`in_transaction!(db, turn: queue_write_turn, sync: WithTheNextFull, |conn| body)`: for
/// another turn, and a commit that is not synced at once: `write_runner::CommitSync`).
///
/// [`Database::write_turn`]: super::Database::write_turn
macro_rules! in_transaction {
    ($db:expr, |$conn:ident| $body:expr) => {
        $crate::database::in_transaction!($db, turn: write_turn, sync: Full, |$conn| $body)
    };
    ($db:expr, turn: $turn:ident, sync: $sync:ident, |$conn:ident| $body:expr) => {{
        let sync = $crate::database::write_runner::CommitSync::$sync;
        let db: &$crate::database::Database = $db;
        match &db.pool {
            $crate::database::Pool::Sqlite(pools) => match db.$turn().await {
                Ok(turn) => match db.acquire(pools.writes.get()).await {
                    Ok(mut object) => {
                        let writer: &mut $crate::database::SqliteConn = &mut object;
                        match $crate::database::write_runner::begin_immediate(writer, sync).await {
                            Ok(()) => {
                                let body = async |$conn: &mut $crate::database::SqliteConn| $body;
                                let outcome = body(&mut *writer).await;
                                $crate::database::write_runner::end_transaction(
                                    writer, outcome, turn, sync,
                                )
                                .await
                            }
                            Err(error) => Err(error.into()),
                        }
                    }
                    Err(error) => Err(error.into()),
                },
                Err(error) => Err(error.into()),
            },
            $crate::database::Pool::Postgres(pool) => match db.acquire(pool.get()).await {
                Ok(mut object) => {
                    ::diesel_async::AsyncConnection::transaction(
                        &mut *object,
                        async move |$conn: &mut ::diesel_async::AsyncPgConnection| $body,
                    )
                    .await
                }
                Err(error) => Err(error.into()),
            },
        }
    }};
}
pub(crate) use in_transaction;

/// `write_transaction!(db, write(command))`: an API write, `write(conn, command, outbox)`, in
/// one transaction that rolls back when it took longer than the sync contract allows
/// ([`WriteSpan`](super::write_span::WriteSpan)). On SQLite the whole transaction, from the
/// wait for its turn to its `COMMIT`, runs on the writer thread (`writer_thread.rs`) with a
/// copy of the command; the `@here` arm is the transaction itself, on the calling task, whose
/// statements run on that task's thread (`write_runner.rs`: an API write is a handful of
/// statements, unlike an import) should the writer thread be missing. A macro because
/// `in_transaction!`'s body is a closure of each backend's connection, which a generic
/// function could not pass on. Once committed, it wakes the webhook workers if the write
/// queued a delivery (`Database::write_committed`).
macro_rules! write_transaction {
    ($db:expr, $write:ident($command:expr)) => {{
        let db: &$crate::database::Database = $db;
        match db.sqlite_writer_thread() {
            Some(thread) => {
                let (db, command) = (db.clone(), ::std::clone::Clone::clone($command));
                thread
                    .run(async move {
                        $crate::database::write_transaction!(@here &db, $write(&command))
                    })
                    .await
            }
            None => $crate::database::write_transaction!(@here db, $write($command)),
        }
    }};
    (@here $db:expr, $write:ident($command:expr)) => {{
        let db: &$crate::database::Database = $db;
        let span = $crate::database::write_span::WriteSpan::start();
        let outbox = db.outbox_write();
        let events = outbox.as_ref();
        let result = $crate::database::in_transaction!(db, |conn| {
            $crate::database::write_runner::between_begin_and_commit(async move {
                let result = $write(conn, $command, events).await?;
                span.check()?;
                Ok::<_, $crate::error::DbError>(result)
            })
            .await
        });
        if result.is_ok() {
            db.write_committed(outbox.as_ref());
        }
        result
    }};
}
pub(crate) use write_transaction;

/// `impl_for_each_backend! { impl Trait { fn … } }`: implements a query trait for both
/// backends' connections from one written body, so shared queries (used inside and outside
/// transactions) are written once and type-checked twice: for SQLite's connections whatever
/// runs them (writers and readers), and for PostgreSQL's. Inside, `Self` is the connection.
macro_rules! impl_for_each_backend {
    (impl $trait:path { $($body:tt)* }) => {
        impl<R: $crate::database::SqliteRunner> $trait for $crate::database::SqliteOn<R> {
            $($body)*
        }
        impl $trait for ::diesel_async::AsyncPgConnection {
            $($body)*
        }
    };
}
pub(crate) use impl_for_each_backend;
