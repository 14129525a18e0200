//! The macros that write a query body once and expand it per backend. They name everything by
//! its `$crate::database::…` path, so a caller imports only the macro itself, as
//! `crate::database::{with_conn, in_transaction, impl_for_each_backend}`.

/// `with_conn!(db, |conn| body)`: runs `body` with `conn` bound to a `&mut` pooled connection
/// of `db`'s backend and evaluates to `Result<_, DbError>`. `body` is expanded once per
/// backend; it may return diesel's `QueryResult` or a `Result<_, DbError>`.
macro_rules! with_conn {
    ($db:expr, |$conn:ident| $body:expr) => {{
        let db: &$crate::database::Database = $db;
        match &db.pool {
            $crate::database::Pool::Sqlite(pool) => match db.acquire(pool.get()).await {
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

/// `with_read_conn!(db, |conn| body)`: like [`with_conn!`], for an API read that a replica may
/// answer (`database/replicas.rs`): on one the request's read scope allows, else on the
/// primary, and again on the primary when the replica fails it (`Replicas::answered`).
/// `body` is also expanded for the replica's PostgreSQL connection.
macro_rules! with_read_conn {
    ($db:expr, |$conn:ident| $body:expr) => {{
        let db: &$crate::database::Database = $db;
        let on_replica = match db.replicas.as_deref() {
            None => None,
            Some(replicas) => match replicas.for_read() {
                None => {
                    replicas.served_by_primary();
                    None
                }
                Some(member) => {
                    let outcome = match member.checkout().await {
                        Ok(mut object) => {
                            let $conn: &mut ::diesel_async::AsyncPgConnection = &mut object;
                            ($body).map_err($crate::error::DbError::from)
                        }
                        Err(error) => Err(error),
                    };
                    replicas.answered(member, outcome)
                }
            },
        };
        match on_replica {
            Some(answer) => Ok(answer),
            None => $crate::database::with_conn!(db, |$conn| $body),
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
/// upgrade; and it first waits for its [`Database::write_turn`] in this process.
///
/// [`Database::write_turn`]: super::Database::write_turn
macro_rules! in_transaction {
    ($db:expr, |$conn:ident| $body:expr) => {{
        let db: &$crate::database::Database = $db;
        match &db.pool {
            $crate::database::Pool::Sqlite(pool) => match db.write_turn().await {
                Ok(_turn) => match db.acquire(pool.get()).await {
                    Ok(mut object) => {
                        object
                            .immediate_transaction(
                                async move |$conn: &mut $crate::database::SqliteConn| $body,
                            )
                            .await
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

/// `impl_for_each_backend! { impl Trait { fn … } }`: implements a query trait for both
/// backends' connections from one written body, so shared queries (used inside and outside
/// transactions) are written once and type-checked twice. Inside, `Self` is the concrete
/// connection.
macro_rules! impl_for_each_backend {
    (impl $trait:path { $($body:tt)* }) => {
        impl $trait for $crate::database::SqliteConn {
            $($body)*
        }
        impl $trait for ::diesel_async::AsyncPgConnection {
            $($body)*
        }
    };
}
pub(crate) use impl_for_each_backend;
